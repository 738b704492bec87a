#!/usr/bin/env python
"""Speed and a small strength check of the search bot (kabenvs.agents.search).

    python scripts/search_benchmark.py [--seconds 3] [--env cabula_v0 ...] [--spec search:algo=pimc]
    python scripts/search_benchmark.py --versus heuristic --spec search:sims=200 --deals 20 [--budget 600]

Speed: for each game at 2 players and at its largest table, positions are taken from random
games (every 7th decision with a real choice) and searched for ``--seconds`` in all; the row is
simulations (iterations: one world, one walk down the tree, one rollout) per second
(``kabenvs.agents.search.speed``, which ``kabenvs benchmark --search`` reports too).

``--versus KIND``: the search bot against ``KIND`` (``heuristic`` or ``random``) at 2 players,
deals paired with the seats swapped (``kabenvs.agents.arena.play_match``, one deal at a time so
that ``--budget`` seconds per game can stop it early; the table says how many deals were played).

``--oracle`` (with ``--versus``): a diagnostic, not a fair player. The search seat's worlds are
copies of the real state (every hand, and the order of a face-down deck where the game stores
one; future dice from a fresh generator), so it searches with perfect information. What it wins
bounds what hidden information costs the search at that budget: where even the oracle stays
near the baseline, the baseline is close to the best the game's luck allows at that budget.
``--oracle hands`` sees every hand but not the order of the face-down deck (each world shuffles
the real deck again: Cábula's deck, Barakka's two decks): it separates what knowing the other
hands is worth from what knowing the next draws is worth. A fair search that infers the others'
hands perfectly can at best reach it, so where it stays under a goal, no belief model gets there.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import kabenvs  # noqa: E402
from kabenvs.agents.search import parse_search_spec, search_agent_from_spec  # noqa: E402
from kabenvs.agents.search.speed import sims_per_second  # noqa: E402  (shared with kabenvs benchmark --search)
from kabenvs.commands import OneLineParser, seed_arg  # noqa: E402
from kabenvs.core.errors import ConfigError  # noqa: E402
from kabenvs.core.registry import game_class, make_game  # noqa: E402


def largest_table(env_id: str) -> int:
    counts = game_class(env_id).Config.PLAYER_COUNTS
    return max(counts)


# The face-down decks of the games where ``--oracle hands`` applies: state attributes holding a
# list of cards (or a list of such lists) in an order no seat knows.
FACE_DOWN_DECKS = {"cabula_v0": "deck", "barakka_v0": "decks"}
ORACLES = ("all", "hands")


class _SeesEverything:
    """The real state, except that every world it is asked for is a copy of itself with a fresh
    generator for the future's chance (``--oracle``); with ``deck`` named (``--oracle hands``)
    that list of cards, or each list of it, is shuffled again in the world too."""

    def __init__(self, state, deck: str | None = None) -> None:
        self._state = state
        self._deck = deck

    def resample_hidden(self, player, rng):
        from kabenvs.agents.search.tree import fresh_generator

        world = self._state.clone()
        world.rng = fresh_generator(rng)
        if self._deck is not None:
            cards = getattr(world, self._deck)
            piles = cards if cards and isinstance(cards[0], list) else [cards]
            for pile in piles:
                pile[:] = [pile[i] for i in rng.permutation(len(pile)).tolist()]
            world._reset_caches()
        return world

    def __getattr__(self, name):
        return getattr(self._state, name)


def oracle_agent(agent, deck: str | None = None):
    """``agent`` (a SearchAgent) searching real-state copies instead of resampled worlds (with
    the face-down ``deck`` shuffled again in each, for ``--oracle hands``)."""
    plain = agent.search
    agent.search = lambda state, me: plain(_SeesEverything(state, deck), me)
    return agent


class _CountsAgreement:
    """A timed search seat that also counts, in ``counts``, its choices (more than one legal
    move) that are its model's own most likely move: a search that always agrees adds nothing to
    its network. The model is asked outside the timed move, so the CPU ms stay the search's own."""

    def __init__(self, timed, prior, counts: dict) -> None:
        self.timed, self.prior, self.counts = timed, prior, counts

    def act(self, decision) -> int:
        legal = decision.legal_actions
        if len(legal) < 2:
            return self.timed.act(decision)
        probs, _ = self.prior(decision.state, decision.player)
        best = max(legal, key=lambda a: probs[a])
        move = self.timed.act(decision)
        self.counts["same"] += move == best
        self.counts["decisions"] += 1
        return move

    def __getattr__(self, name):  # reseed, name, ... of the seat itself
        if name == "timed":  # not set yet (a copy being built): no endless lookup
            raise AttributeError(name)
        return getattr(self.timed, name)


def versus(env_id: str, spec: str, kind: str, deals: int, budget: float, seed: int,
           oracle: str | None = None) -> dict:
    from kabenvs.agents import RandomAgent, heuristic_agent
    from kabenvs.agents.arena import MoveClock, play_match, wilson_interval

    game = make_game(env_id, num_players=2)
    clock = MoveClock()  # CPU time of the search's real decisions (more than one legal move)

    agree = {"same": 0, "decisions": 0}  # with a model: how often the search kept its argmax

    def searcher(s: int):
        agent = search_agent_from_spec(spec, game, seed=s)  # model=zoo: the 2-player agent
        deck = FACE_DOWN_DECKS[env_id] if oracle == "hands" else None
        timed = clock.wrap(oracle_agent(agent, deck) if oracle else agent)
        return _CountsAgreement(timed, agent.prior, agree) if agent.prior is not None else timed

    def other(s: int):
        return heuristic_agent(env_id, s) if kind == "heuristic" else RandomAgent(s)

    wins = games = truncated = 0.0
    ret = 0.0
    start = time.perf_counter()
    played = 0
    for d in range(deals):
        if played and time.perf_counter() - start > budget:
            break
        r = play_match(game, [searcher, other], deals=1, seed=seed * 1000 + d, names=["search", kind])
        wins += r.wins[0]
        games += r.games
        truncated += r.truncated
        ret += r.total_return[0]
        played += 1
    lo, hi = wilson_interval(wins, int(games))
    return {"env_id": env_id, "spec": spec, "oracle": oracle, "versus": kind, "deals": played, "games": int(games),
            "win_rate": round(wins / games, 3), "ci95": [round(lo, 3), round(hi, 3)],
            "mean_return": round(ret / games, 3), "truncated": int(truncated),
            "cpu_ms_per_move": round(clock.ms_per_move() or 0.0, 1), "moves": clock.moves,
            "model_argmax_share": (round(agree["same"] / agree["decisions"], 3) if agree["decisions"] else None),
            "seconds": round(time.perf_counter() - start, 1)}


def main(argv=None) -> int:
    p = OneLineParser(description=__doc__.split("\n")[0])
    p.add_argument("--env", nargs="+", default=list(kabenvs.ENV_IDS), help="env ids (default: all)")
    p.add_argument("--spec", default="search", help="the search bot's seat spec (default: search)")
    p.add_argument("--seconds", type=float, default=3.0, help="search time per row (speed mode)")
    p.add_argument("--versus", choices=("heuristic", "random"), help="play this baseline instead of timing")
    p.add_argument("--deals", type=int, default=20, help="--versus: paired deals per game")
    p.add_argument("--budget", type=float, default=1e9, help="--versus: seconds per game before stopping early")
    p.add_argument("--oracle", nargs="?", const="all", choices=ORACLES,
                   help="--versus: the search sees the real state (a diagnostic of what hidden information costs, not a "
                        "fair player); 'hands': every hand but not the deck's order (Cábula, Barakka)")
    p.add_argument("--seed", type=seed_arg, default=0)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.oracle and not args.versus:
        p.error("--oracle goes with --versus (it changes who plays, not the speed rows)")
    if args.oracle == "hands" and (bad := [e for e in args.env if e not in FACE_DOWN_DECKS]):
        p.error(f"--oracle hands needs a face-down deck to shuffle; {', '.join(bad)} has none here "
                f"(allowed: {', '.join(FACE_DOWN_DECKS)})")
    # everything checked before any work, each a one-line message (a bad spec, an env id, a count
    # or a time out of range reached the search or the statistics as a traceback)
    if bad := [e for e in args.env if e not in kabenvs.ENV_IDS]:
        p.error(f"--env {bad[0]!r} is not a registered env id; known: {list(kabenvs.ENV_IDS)}")
    if not 0 < args.seconds <= 86400:
        p.error(f"--seconds {args.seconds}: give a number of seconds in (0, 86400]")
    if args.deals < 1:
        p.error(f"--deals {args.deals}: play at least 1 deal")
    if not args.budget > 0:
        p.error(f"--budget {args.budget}: give a number of seconds > 0")
    try:
        parse_search_spec(args.spec)
    except ConfigError as exc:
        p.error(f"--spec {args.spec!r}: {exc}")
    rows = []
    for env_id in args.env:
        if args.versus:
            row = versus(env_id, args.spec, args.versus, args.deals, args.budget, args.seed, args.oracle)
            line = (f"{env_id:<12} {f'oracle {args.oracle} ' if args.oracle else ''}{row['deals']:>3} deals {row['games']:>3} games  win rate {row['win_rate']:.3f} "
                    f"[{row['ci95'][0]:.3f}, {row['ci95'][1]:.3f}]  mean return {row['mean_return']:+.3f}  "
                    f"{row['cpu_ms_per_move']:.0f} CPU ms/move over {row['moves']} moves  ({row['seconds']:.0f} s)")
            if row["model_argmax_share"] is not None:
                line += f"  the model's own move {row['model_argmax_share']:.1%} of the time"
        else:
            counts = sorted({2, largest_table(env_id)} & set(game_class(env_id).Config.PLAYER_COUNTS))
            for n in counts:
                rows.append(sims_per_second(env_id, n, args.spec, args.seconds, args.seed))
                r = rows[-1]
                print(f"{env_id:<12} {n} players  {r['sims_per_s']:>8.1f} sims/s  ({r['spec']})", flush=True)
            continue
        rows.append(row)
        print(line, flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
