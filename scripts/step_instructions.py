#!/usr/bin/env python
"""Machine instructions per AEC step, counted by valgrind: a speed A/B that box noise cannot swamp.

    python scripts/step_instructions.py --env cabula_v0 --players 6 [--games 10] [--tree DIR ...]

On a shared machine the time of one step moves by 10-40% from one run to the next, so a change
worth 3% cannot be seen in ``scripts/benchmark.py``. This plays the benchmark's loop (``bench_aec``:
``agent_iter``, ``last()`` with observation and mask, ``step``, the same picker) on fixed seeds
under ``valgrind --tool=callgrind`` with collection on only inside that loop, and prints the
instructions per step: the same code gives the same count to about 0.2%. ``--tree`` names source
trees to compare (e.g. a ``git worktree`` of the previous commit and this checkout); each is put
first on the path in its own process. Needs valgrind (Debian: ``apt-get install valgrind``);
a 6-player Cábula game is about a second under it. Instructions are not time (cache misses and
branches differ), but for this interpreter-bound code they follow it closely; docs/benchmark.md
says how the rounds used it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if __name__ == "__main__" and "--child" not in sys.argv:
    sys.path.insert(0, str(REPO))

# The measured loop runs inside builtin sorted() so that callgrind can collect only there
# (--toggle-collect=builtin_sorted): importing, building the env and the first reset are left out.
_TOGGLE = "builtin_sorted"


def fixed_games(env, games: int) -> int:
    """Play ``games`` games through the AEC loop on seeds 0 .. games - 1 with the benchmark's
    picker (one ``random.Random(0)`` for the run); the number of steps with a choice. The same
    env and count always play the same moves."""
    import random

    from kabenvs.commands.benchmark import play_game

    rnd = random.Random(0)
    return sum(play_game(env, seed, rnd) for seed in range(games))


def _child(env_id: str, players: int, games: int) -> None:
    """Run under valgrind: build the env outside the collected part, then the loop inside it."""
    import kabenvs

    env = kabenvs.make(env_id, num_players=players)
    env.reset(seed=10**6)  # first-use caches built outside the count
    steps = []
    sorted([0], key=lambda _: steps.append(fixed_games(env, games)) or 0)
    print(f"steps {steps[0]} kabenvs {Path(kabenvs.__file__).parent.parent}", file=sys.stderr)


def count(env_id: str, players: int, games: int, tree: Path) -> tuple[int, int]:
    """(instructions, steps) of ``games`` fixed games with the kabenvs found in ``tree``."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(tree)}
    cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no", f"--toggle-collect={_TOGGLE}",
           "--callgrind-out-file=/dev/null", os.path.realpath(sys.executable), "-B",
           str(Path(__file__).resolve()), "--child", env_id, str(players), str(games)]
    # run from a neutral folder: the current directory would otherwise come first on the path
    out = subprocess.run(cmd, env=env, cwd="/", capture_output=True, text=True)
    collected = re.search(r"Collected : (\d+)", out.stderr)
    steps = re.search(r"steps (\d+) kabenvs (\S+)", out.stderr)
    if out.returncode or not collected or not steps:
        tail = out.stderr.strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"valgrind run failed for {tree}: {tail[0]}")
    if Path(steps.group(2)).resolve() != tree.resolve():
        raise RuntimeError(f"{tree} did not provide kabenvs (got {steps.group(2)}): is it a source tree?")
    return int(collected.group(1)), int(steps.group(1))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        _child(argv[1], int(argv[2]), int(argv[3]))
        return 0
    from kabenvs.commands import OneLineParser
    from kabenvs.core.errors import ConfigError
    from kabenvs.core.registry import game_class

    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", required=True, help="env id, e.g. cabula_v0")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=10, help="fixed games to play (default 10)")
    parser.add_argument("--tree", nargs="*", default=[str(REPO)],
                        help="source trees to compare (default: this checkout)")
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 10_000:
        parser.error(f"--games={args.games} must be between 1 and 10000")
    try:
        cls = game_class(args.env)
        if args.players not in cls.Config.PLAYER_COUNTS:
            raise ConfigError(f"--players={args.players}; {args.env} allows {list(cls.Config.PLAYER_COUNTS)}")
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if shutil.which("valgrind") is None:
        print("error: valgrind is not installed (Debian: apt-get install valgrind)", file=sys.stderr)
        return 2
    for tree in args.tree:
        path = Path(tree)
        if not (path / "kabenvs" / "__init__.py").is_file():
            print(f"error: --tree {tree!r} holds no kabenvs package", file=sys.stderr)
            return 2
        try:
            total, steps = count(args.env, args.players, args.games, path)
        except RuntimeError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(f"{args.env} {args.players}p {tree}: {total // max(steps, 1):,} instructions a step ({steps} steps)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
