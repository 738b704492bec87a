"""A ladder: every competitor against every other, one tournament, one OpenSkill rating each.

``ladder(game, competitors, deals, seed)`` plays every group of ``num_players`` distinct
competitors (every pair at 2 players) on the same ``deals`` deals, each deal once per seat rotation
(``kabenvs.agents.arena.play_match``: the luck of the deal cancels out), and feeds every finished
game, in order, to one set of OpenSkill (Plackett-Luce) ratings, ranked by each seat's return. The
report ranks competitors by the rating's ordinal (mu - 3 sigma, a cautious estimate) and keeps each
group's win rates, so a pair's head-to-head record stays visible behind the ratings, and each
competitor's CPU milliseconds per decision (``MoveClock``), so a strength comes with its price.

    kabenvs evaluate --ladder random heuristic zoo search:sims=100 --game kabaleo_v0 --deals 50
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Callable

from kabenvs.agents.arena import MoveClock, play_match, wilson_interval
from kabenvs.core.errors import ConfigError
from kabenvs.core.game import Game, State

from .evaluation import Competitor, Ratings



@dataclass
class LadderReport:
    env_id: str
    game_config: dict[str, Any]
    deals: int
    seed: int
    names: list[str]
    ratings: list[dict[str, float]]
    games: list[int]  # per competitor
    wins: list[float]  # shared wins count 1/k
    total_return: list[float]
    matches: list[dict[str, Any]]  # per group: names, games, win rates, mean returns
    ms_per_move: list[float | None]  # CPU ms per decision with a choice, per competitor

    def rows(self) -> list[dict[str, Any]]:
        rows = []
        for i, name in enumerate(self.names):
            lo, hi = wilson_interval(self.wins[i], self.games[i])
            rows.append({"name": name, "openskill": self.ratings[i], "games": self.games[i],
                         "win_rate": self.wins[i] / self.games[i] if self.games[i] else 0.0, "ci95": [lo, hi],
                         "mean_return": self.total_return[i] / self.games[i] if self.games[i] else 0.0,
                         "cpu_ms_per_move": self.ms_per_move[i]})
        return sorted(rows, key=lambda r: -r["openskill"]["ordinal"])

    def to_json(self) -> dict[str, Any]:
        n = int(self.game_config["num_players"])
        return {"env_id": self.env_id, "game_config": self.game_config, "deals": self.deals, "seed": self.seed,
                "even": 1.0 / n, "ladder": self.rows(), "matches": self.matches}

    def table(self) -> str:
        n = int(self.game_config["num_players"])
        opts = ", ".join(f"{k}={v}" for k, v in self.game_config.items())
        lines = [f"ladder, {self.env_id} ({opts}): {len(self.matches)} matches of {self.deals} deals x {n} seatings, "
                 f"seed {self.seed}",
                 f"{'rank':>4} {'agent':<34} {'OpenSkill':>9} {'mu':>7} {'sigma':>6} {'games':>6} {'win rate':>8} "
                 f"{'95% CI':>15} {'mean return':>11} {'CPU ms/move':>11}"]
        for k, r in enumerate(self.rows(), 1):
            o = r["openskill"]
            lines.append(f"{k:>4} {r['name'][:34]:<34} {o['ordinal']:>9.2f} {o['mu']:>7.2f} {o['sigma']:>6.2f} "
                         f"{r['games']:>6} {r['win_rate']:>8.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}] "
                         f"{r['mean_return']:>11.3f} {_ms(r['cpu_ms_per_move']):>11}")
        lines.append(f"even play would give each {1 / n:.3f}; shared wins count 1/k each")
        if n == 2:  # the head-to-head records behind the ratings
            lines.append("head to head (row's win rate against column):")
            order = [r["name"] for r in self.rows()]
            short = [name[:12] for name in order]
            lines.append(f"{'':<34} " + " ".join(f"{s:>12}" for s in short))
            vs = {(m["names"][0], m["names"][1]): m["win_rates"][0] for m in self.matches}
            vs.update({(m["names"][1], m["names"][0]): m["win_rates"][1] for m in self.matches})
            for a in order:
                cells = ["-" if a == b else f"{vs[(a, b)]:.3f}" for b in order]
                lines.append(f"{a[:34]:<34} " + " ".join(f"{c:>12}" for c in cells))
        return "\n".join(lines)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def ladder(game: Game, competitors: list[Competitor], deals: int, seed: int = 0,
           on_game: Callable[[State, list[int], int], None] | None = None,
           on_match: Callable[[list[str]], None] | None = None) -> LadderReport:
    """Every group of ``game.num_players`` distinct competitors plays the same ``deals`` deals.

    ``on_game(state, seating, deal_seed)`` sees each finished game with ``seating`` in indices of
    ``competitors`` (as ``evaluate``'s does); ``on_match(names)`` is told when a group starts."""
    n = game.num_players
    names = [c.name for c in competitors]
    if len(set(names)) != len(names):
        raise ConfigError(f"a ladder needs distinct competitors; given {names}")
    if len(competitors) < max(2, n):
        raise ConfigError(f"a ladder of {game.env_id} at {n} players needs at least {max(2, n)} competitors, "
                          f"given {len(competitors)}")
    rater = Ratings(names)
    k = len(competitors)
    games, wins, total = [0] * k, [0.0] * k, [0.0] * k
    matches = []
    clocks = [MoveClock() for _ in competitors]
    timed = [clock.wrap(c.agent) for clock, c in zip(clocks, competitors)]
    for group in itertools.combinations(range(k), n):
        if on_match is not None:
            on_match([names[i] for i in group])

        def each_game(state: State, seating: list[int], deal_seed: int, group=group) -> None:
            seats = [group[i] for i in seating]  # group position -> competitor index
            rater.update(state, seats)
            if on_game is not None:
                on_game(state, seats, deal_seed)

        result = play_match(game, [timed[i] for i in group], deals, seed=seed,
                            names=[names[i] for i in group], on_game=each_game)
        for pos, i in enumerate(group):
            games[i] += result.games
            wins[i] += result.wins[pos]
            total[i] += result.total_return[pos]
        matches.append({"names": [names[i] for i in group], "games": result.games,
                        "win_rates": [result.win_rate(p) for p in range(n)],
                        "mean_returns": [result.mean_return(p) for p in range(n)], "truncated": result.truncated})
    return LadderReport(env_id=game.env_id, game_config=game.config.to_dict(), deals=deals, seed=seed, names=names,
                        ratings=rater.as_dicts(), games=games, wins=wins, total_return=total, matches=matches,
                        ms_per_move=[c.ms_per_move() for c in clocks])


__all__ = ["LadderReport", "ladder"]
