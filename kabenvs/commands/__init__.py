"""The programs behind the ``kabenvs`` console command (kabenvs/cli.py) and scripts/*.py."""

from __future__ import annotations

import argparse
import sys

from kabenvs.core.errors import brief


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad command line is one line naming the problem (exit status 2), like every
    other bad input to these commands, instead of the usage block followed by the message."""

    def error(self, message: str):
        print(f"error: {' '.join(message.split())} (see --help)", file=sys.stderr)
        sys.exit(2)


def seed_arg(text: str) -> int:
    """argparse ``type`` of every ``--seed``: an integer >= 0 (numpy's generators, which every
    seed ends in, refuse a negative one with a traceback)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{brief(text)} is not an integer; a seed is an integer >= 0") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; a seed is an integer >= 0")
    return value


def env_tables(envs: list[str] | None, players: list[int] | None) -> list[tuple[str, int]]:
    """(env id, player count) pairs for the scripts that run games at chosen tables (soak,
    recall probe), checked before anything runs: every env id registered (None: every game), every
    asked count one its game is played at (None: each game's smallest and largest). A
    ``ConfigError`` names the first that is not and what there is."""
    from kabenvs.core.errors import ConfigError
    from kabenvs.core.registry import env_ids, game_class

    known = env_ids()
    for env_id in envs or []:
        if env_id not in known:
            raise ConfigError(f"--env {env_id!r} is not a registered env id; known: {known}")
    out = []
    for env_id in envs or known:
        counts = game_class(env_id).Config.PLAYER_COUNTS
        for n in players or sorted({min(counts), max(counts)}):
            if n not in counts:
                raise ConfigError(f"--players {n}: {env_id} is played by {list(counts)} players")
            out.append((env_id, n))
    return out
