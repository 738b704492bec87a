"""Perfect recall, measured: how often a seat's observation merges histories it could tell apart.

    python scripts/recall_probe.py                      # every game, smallest and largest table
    python scripts/recall_probe.py --env cabula_v0 --players 3 --games 6 --examples 5

See ``kabenvs/core/recall.py`` for what is compared and what a merge means.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import kabenvs  # noqa: E402
from kabenvs.commands import OneLineParser, env_tables, seed_arg  # noqa: E402
from kabenvs.core.errors import ConfigError  # noqa: E402
from kabenvs.core.recall import probe_recall  # noqa: E402


def horizon_arg(text: str) -> int:
    """``--horizon``: a whole number of steps >= 1 (left out: until each game ends)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer; the horizon is a number of steps >= 1 "
                                         "(leave it out to follow each branch to the game's end)") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is below 1; the horizon is a number of steps >= 1")
    return value


def count_arg(flag: str, least: int):
    """argparse ``type`` for a count option: a whole number >= ``least``, else one line naming it."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer; {flag} is a whole number >= {least}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"{value} is below {least}; {flag} is a whole number >= {least}")
        return value
    return parse


def main(argv=None) -> int:
    p = OneLineParser(description=__doc__.split("\n")[0])
    p.add_argument("--env", nargs="*", default=None, help="default: every game")
    p.add_argument("--players", type=int, nargs="*", default=None, help="default: smallest and largest")
    p.add_argument("--games", type=count_arg("--games", 1), default=4)
    p.add_argument("--positions", type=count_arg("--positions", 1), default=20, help="branch positions per game")
    p.add_argument("--pairs", type=count_arg("--pairs", 1), default=2, help="move pairs per position")
    p.add_argument("--horizon", type=horizon_arg, default=None,
                   help="steps to follow each branch pair (default: until the game ends)")
    p.add_argument("--seed", type=seed_arg, default=0)
    p.add_argument("--examples", type=count_arg("--examples", 0), default=3)
    p.add_argument("--odds-tries", type=count_arg("--odds-tries", 0), default=0,
                   help="attempts each way to build a world of one branch's history holding the other's hidden "
                        "split, for an unnamed merge (the same possible worlds, other odds)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    try:
        tables = env_tables(args.env, args.players)
    except ConfigError as exc:
        print(f"recall_probe.py: error: {exc}", file=sys.stderr)
        return 2
    for eid, players in tables:
        game = kabenvs.make_game(eid, num_players=players)
        t0 = time.process_time()
        r = probe_recall(game, args.seed, args.games, args.positions, args.pairs, args.horizon, args.examples,
                         args.odds_tries)
        row = {"env": eid, "players": players, **r.as_dict(), "cpu_s": round(time.process_time() - t0, 1)}
        if args.json:
            print(json.dumps(row))
            continue
        named = "; ".join(f"{k}: {v}" for k, v in r.gaps.items())
        print(f"{eid} {players}p: {r.branches} branch pairs, {r.comparisons} (seat, step) comparisons of "
              f"distinguishable branches, {r.merges} merges: {r.pure_history} pure history, "
              f"{r.explained} explained by a named summary{' (' + named + ')' if named else ''}, "
              + (f"{r.odds_only} the same possible worlds (each split shown possible after the other "
                 f"history), " if args.odds_tries else "")
              + f"{r.unexplained} unexplained; {row['cpu_s']} s")
        for e in r.examples:
            print(f"    {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
