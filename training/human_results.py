"""How agents fare against people: a summary of game logs (``kabenvs.records``).

    python -m training.human_results games.jsonl [more.jsonl ...] [--json]

For every agent (a trained model by its file hash, or a bot kind) and game (env id and player
count: a 25% win rate means something else with 4 players than with 2) it counts the finished
games the agent played with at least one human at the table, the agent's win rate with a 95%
Wilson interval, and how the humans did in those games (their win rate and mean return, and their
mean score where the game keeps scores).

Win shares follow ``kabenvs.agents.arena``: a victory shared by k winners counts 1/k to each;
an agent or the humans holding several seats of one game get the mean of their seats. Games
abandoned before the end or truncated by a game's limit have no result: they are counted apart
("unfinished") and never as a loss of either side.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from os import PathLike

from kabenvs.agents.arena import wilson_interval
from kabenvs.records import RecordError, read_records


def agent_key(seat: dict) -> str:
    """An agent's identity across logs: a model by its file hash, a bot by its kind."""
    if seat.get("kind") == "model":
        # 16 hex digits identify the weights; logs may hold the full SHA-256 or this prefix
        return f"model:{str(seat.get('model_hash'))[:16]}"
    return str(seat.get("kind"))


@dataclass
class _Tally:
    env_id: str
    num_players: int
    agent: str
    label: str
    games: int = 0
    unfinished: int = 0
    wins: float = 0.0
    human_wins: float = 0.0
    human_return: float = 0.0
    human_score: float = 0.0
    scored_games: int = 0

    def row(self) -> dict:
        lo, hi = wilson_interval(self.wins, self.games)
        n = self.games
        return {
            "env_id": self.env_id,
            "num_players": self.num_players,
            "agent": self.agent,
            "label": self.label,
            "games": n,
            "unfinished": self.unfinished,
            "agent_wins": round(self.wins, 6),
            "agent_win_rate": round(self.wins / n, 6) if n else None,
            "agent_win_rate_ci95": [round(lo, 6), round(hi, 6)] if n else None,
            "human_win_rate": round(self.human_wins / n, 6) if n else None,
            "human_mean_return": round(self.human_return / n, 6) if n else None,
            "human_mean_score": round(self.human_score / self.scored_games, 6) if self.scored_games else None,
        }


def _share(seats: Iterable[int], winners: Sequence[int]) -> float:
    """Mean over ``seats`` of each seat's win share (1/k of a k-way shared victory)."""
    seats = list(seats)
    if not winners or not seats:
        return 0.0
    return sum(1.0 / len(winners) for s in seats if s in winners) / len(seats)


def tally(records: Iterable[dict]) -> list[_Tally]:
    tallies: dict[tuple[str, int, str], _Tally] = {}
    for rec in records:
        seats = rec["seats"]
        humans = [i for i, s in enumerate(seats) if s.get("kind") == "human"]
        if not humans:
            continue
        by_agent: dict[str, list[int]] = {}
        for i, seat in enumerate(seats):
            if seat.get("kind") != "human":
                by_agent.setdefault(agent_key(seat), []).append(i)
        result = rec["result"]
        finished = bool(result.get("finished")) and not result.get("truncated")
        winners = result.get("winners") or []
        returns = result.get("returns") or []
        scores = result.get("scores")
        n = len(seats)
        for key, agent_seats in by_agent.items():
            seat = seats[agent_seats[0]]
            label = key if seat.get("kind") != "model" else f"{seat.get('name')} #{key[6:18]}"
            t = tallies.setdefault((rec["env_id"], n, key), _Tally(rec["env_id"], n, key, label))
            if not finished:
                t.unfinished += 1
                continue
            t.games += 1
            t.wins += _share(agent_seats, winners)
            t.human_wins += _share(humans, winners)
            t.human_return += sum(float(returns[h]) for h in humans) / len(humans)
            if isinstance(scores, list) and all(isinstance(scores[h], (int, float)) for h in humans):
                t.human_score += sum(float(scores[h]) for h in humans) / len(humans)
                t.scored_games += 1
    return sorted(tallies.values(), key=lambda t: (t.env_id, t.num_players, t.agent))


def _fmt(value, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def summarize(paths: str | PathLike | Sequence[str | PathLike], as_json: bool = False) -> str:
    """The per-agent, per-game summary of the game logs at ``paths`` (text table or JSON)."""
    if isinstance(paths, (str, PathLike)):
        paths = [paths]
    records = []
    for path in paths:
        records.extend(read_records(path))
    rows = [t.row() for t in tally(records)]
    human_games = sum(1 for r in records if any(s.get("kind") == "human" for s in r["seats"]))
    if as_json:
        return json.dumps({"logs": [str(p) for p in paths], "games": len(records),
                           "games_with_humans": human_games, "rows": rows}, indent=2)
    header = (f"{'game':<16} {'agent':<30} {'games':>5} {'unfin':>5} {'agent win':>9} {'95% CI':>15} "
              f"{'human win':>9} {'human ret':>9} {'human score':>11}")
    lines = [f"{len(records)} games in {len(paths)} log(s), {human_games} with at least one human", header]
    for r in rows:
        ci = r["agent_win_rate_ci95"]
        game = f"{r['env_id']} {r['num_players']}p"
        lines.append(
            f"{game:<16} {r['label'][:30]:<30} {r['games']:>5} {r['unfinished']:>5} "
            f"{_fmt(r['agent_win_rate'], '.3f'):>9} {('[%.3f, %.3f]' % tuple(ci)) if ci else '-':>15} "
            f"{_fmt(r['human_win_rate'], '.3f'):>9} {_fmt(r['human_mean_return'], '+.3f'):>9} "
            f"{_fmt(r['human_mean_score'], '.2f'):>11}"
        )
    if not rows:
        lines.append("(no game with both a human and an agent)")
    lines.append("win rates count a k-way shared victory as 1/k; "
                 "unfinished games (quit, truncated) have no result")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="human_results",
                                     description="Agents' results against humans, from game logs.")
    parser.add_argument("logs", nargs="+", help="game logs (JSON lines written by play.py or evaluation)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    try:
        print(summarize(args.logs, as_json=args.json))
    except RecordError as exc:
        print(f"human_results: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
