"""Evaluation: matches between trained models, heuristic bots and random agents.

Everything runs through ``kabenvs.agents.arena.play_match`` (seats rotated, deals paired, Wilson
intervals); this module adds what a report needs on top of it: competitors named from the
command line, OpenSkill ratings for free-for-all games (fed game by game from ``on_game``),
optional game logs, a table and a JSON form.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from kabenvs.agents import RandomAgent
from kabenvs.agents.arena import MatchResult, MoveClock, play_deal, play_match
from kabenvs.core.errors import ConfigError, brief
from kabenvs.core.game import Game, State

BASELINES = ("random", "heuristic")


@dataclass
class Competitor:
    """One entry of a match: an agent (or a seed -> agent factory) plus how logs name it."""

    name: str
    agent: Any  # an Agent, or a callable seed -> Agent (a fresh one per game)
    seat_info: dict[str, Any] = field(default_factory=dict)


def baseline(kind: str, env_id: str, name: str | None = None, game: Game | None = None,
             trust_pickle: bool = False) -> Competitor:
    """``random``, ``heuristic`` or a search spec (``search:sims=400``) as a competitor (a fresh,
    seeded agent per game). A search spec's ``model=`` is loaded for ``game`` (default: the env
    id's default config), an SB3 archive only with ``trust_pickle``."""
    if kind == "random":
        return Competitor(name or "random", lambda seed: RandomAgent(seed), {"kind": "random", "name": name or "random"})
    if kind == "heuristic":
        from .pool import heuristic_available

        ok, why = heuristic_available(env_id)
        if not ok:
            raise ConfigError(why)
        from kabenvs.agents import heuristic_agent

        return Competitor(
            name or "heuristic", lambda seed: heuristic_agent(env_id, seed=seed),
            {"kind": "heuristic", "name": name or "heuristic"},
        )
    from kabenvs.agents.search import is_search_spec, parse_search_spec, search_agent_from_spec

    if is_search_spec(kind):
        parse_search_spec(kind)  # a bad spec fails here, in one line, not in the first game
        label = name or kind
        return Competitor(
            label, lambda seed: search_agent_from_spec(kind, game or env_id, seed=seed, trust_pickle=trust_pickle),
            {"kind": "search", "name": label, "spec": kind},
        )
    raise ConfigError(f"unknown baseline {brief(kind)}; allowed: {list(BASELINES)}, search[:key=value,...] or a model path")


class Ratings:
    """OpenSkill (Plackett-Luce) ratings updated after every game, ranked by each seat's return."""

    def __init__(self, names: list[str]) -> None:
        from openskill.models import PlackettLuce

        self.model = PlackettLuce()
        self.names = names
        self.ratings = [self.model.rating(name=n) for n in names]

    def update(self, state: State, seating: list[int]) -> None:
        if len(set(seating)) < len(seating) or len(seating) < 2:
            return  # a competitor in several seats of one game (or a solo game) is not a ranking
        ret = state.returns()
        teams = [[self.ratings[idx]] for idx in seating]
        new = self.model.rate(teams, scores=[float(r) for r in ret])
        for idx, team in zip(seating, new):
            self.ratings[idx] = team[0]

    def as_dicts(self) -> list[dict[str, float]]:
        return [
            {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for r in self.ratings
        ]


@dataclass
class Report:
    env_id: str
    game_config: dict[str, Any]
    deals: int
    seed: int
    competitors: list[Competitor]
    result: MatchResult
    ratings: list[dict[str, float]] | None
    ms_per_move: list[float | None] | None = None  # CPU ms per real decision, when timed

    @property
    def num_players(self) -> int:
        return int(self.game_config["num_players"])

    def rows(self) -> list[dict[str, Any]]:
        out = []
        for i, c in enumerate(self.competitors):
            lo, hi = self.result.interval(i)
            row = {
                "name": c.name,
                "win_rate": self.result.win_rate(i),
                "ci95": [lo, hi],
                "outright_wins": self.result.outright[i],
                "mean_return": self.result.mean_return(i),
            }
            if self.ratings is not None:
                row["openskill"] = self.ratings[i]
            if self.ms_per_move is not None:
                row["cpu_ms_per_move"] = self.ms_per_move[i]
            out.append(row)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "env_id": self.env_id,
            "game_config": self.game_config,
            "deals": self.deals,
            "games": self.result.games,
            "truncated": self.result.truncated,
            "seed": self.seed,
            "fair_share": 1.0 / max(1, len(self.competitors)) if len(self.competitors) == self.num_players else None,
            "competitors": self.rows(),
        }

    def table(self) -> str:
        opts = ", ".join(f"{k}={v}" for k, v in self.game_config.items())
        head = f"{self.env_id} ({opts}): {self.result.games} games ({self.deals} deals x {self.num_players} seatings), seed {self.seed}"
        rating_head = f" {'OpenSkill':>10}" if self.ratings is not None else ""
        ms_head = f" {'CPU ms/move':>11}" if self.ms_per_move is not None else ""
        lines = [head, f"{'agent':<28} {'win rate':>8} {'95% CI':>15} {'mean return':>11}{rating_head}{ms_head}"]
        for i, row in enumerate(self.rows()):
            lo, hi = row["ci95"]
            rating = f" {row['openskill']['ordinal']:>10.2f}" if self.ratings is not None else ""
            ms = ""
            if self.ms_per_move is not None:
                ms = f" {'-' if row['cpu_ms_per_move'] is None else format(row['cpu_ms_per_move'], '.1f'):>11}"
            lines.append(f"{row['name'][:28]:<28} {row['win_rate']:>8.3f} [{lo:.3f}, {hi:.3f}] {row['mean_return']:>11.3f}"
                         f"{rating}{ms}")
        if len(self.competitors) == self.num_players:
            lines.append(f"even play would give each {1 / self.num_players:.3f}; shared wins count 1/k each")
        elif len(self.competitors) < self.num_players:
            # A common surprise: `MODEL heuristic` at 4 players seats the model twice, not once.
            lines.append(
                f"{len(self.competitors)} competitors for {self.num_players} seats: they repeat around the table, "
                f"each win rate is the mean of its seats' (even play: {1 / self.num_players:.3f}); "
                "name one per seat for a one-against-the-rest match"
            )
        if self.result.truncated:
            lines.append(f"{self.result.truncated} games hit a step limit and count for nobody")
        return "\n".join(lines)


def evaluate(
    game: Game,
    competitors: list[Competitor],
    deals: int,
    seed: int = 0,
    on_game: Callable[[State, list[int], int], None] | None = None,
    ratings: bool = True,
    games=None,
    time_moves: bool = False,
) -> Report:
    """Play ``deals`` deals, each once per seat rotation; ratings when every seat has its own agent.

    ``games`` plays them elsewhere (``parallel_games``); the report is the same as the serial one.
    ``time_moves`` (serial play only) measures each competitor's CPU ms per decision with a choice."""
    rater = Ratings([c.name for c in competitors]) if ratings and len(competitors) >= 2 else None
    clocks = [MoveClock() for _ in competitors] if time_moves and games is None else None
    agents = [c.agent for c in competitors] if clocks is None else \
        [clock.wrap(c.agent) for clock, c in zip(clocks, competitors)]

    def each_game(state: State, seating: list[int], deal_seed: int) -> None:
        if rater is not None:
            rater.update(state, seating)
        if on_game is not None:
            on_game(state, seating, deal_seed)

    result = play_match(
        game, agents, deals, seed=seed, names=[c.name for c in competitors],
        on_game=each_game, games=games,
    )
    usable = rater is not None and len(competitors) == game.num_players
    return Report(
        env_id=game.env_id, game_config=game.config.to_dict(), deals=deals, seed=seed,
        competitors=competitors, result=result, ratings=rater.as_dicts() if usable else None,
        ms_per_move=None if clocks is None else [c.ms_per_move() for c in clocks],
    )


def versus_baseline(game: Game, agent_name: str, agent, kind: str, deals: int, seed: int) -> Report:
    """One agent against ``num_players - 1`` copies of a baseline (each seat its own instance)."""
    n = game.num_players
    comps = [Competitor(agent_name, agent)]
    for k in range(1, n):
        b = baseline(kind, game.env_id, name=kind if n == 2 else f"{kind}#{k}")
        comps.append(b)
    return evaluate(game, comps, deals, seed=seed, ratings=n > 2)


def solo_reports(game: Game, agent_name: str, agent, kinds: list[str], deals: int, seed: int) -> dict[str, Report]:
    """A solo game has no opponents: the agent plays the deals alone, and each baseline plays the
    same deals alone for comparison (``"solo"`` is the agent, ``"<kind> (solo)"`` the baselines)."""
    out = {"solo": evaluate(game, [Competitor(agent_name, agent)], deals, seed=seed, ratings=False)}
    for kind in kinds:
        out[f"{kind} (solo)"] = evaluate(game, [baseline(kind, game.env_id)], deals, seed=seed, ratings=False)
    return out


class GameLog:
    """An ``on_game`` hook writing each game to a game log (``kabenvs.records``).

    A write that fails after games were played (a full disk, a removed folder) does not stop the
    evaluation, whose results would be lost with it: writing stops, the games go on, and
    ``problem`` says which log, how many games reached it and why the rest did not."""

    def __init__(self, path: str, competitors: list[Competitor]) -> None:
        try:
            from kabenvs.records import append_record, make_record
        except ImportError as exc:
            raise ConfigError(
                f"--log needs the game-log module kabenvs.records, which is not available here ({exc})"
            ) from None
        self._append, self._make = append_record, make_record
        self.path, self.competitors = path, competitors
        self.written = 0
        self.problem: str | None = None

    def __call__(self, state: State, seating: list[int], deal_seed: int) -> None:
        if self.problem is not None:
            return
        seats = [dict(self.competitors[idx].seat_info or {"kind": "agent", "name": self.competitors[idx].name})
                 for idx in seating]
        try:
            self._append(self.path, self._make(state, seats, deal_seed))
        except OSError as exc:
            reason = " ".join((exc.strerror or str(exc)).split())
            before = f"the {self.written} games before it are" if self.written != 1 else "the game before it is"
            self.problem = (f"--log {self.path}: game {self.written + 1} could not be appended ({reason}); "
                            f"{before} in the log, the later ones are not (the results above count them all)")
        else:
            self.written += 1


# -- playing a match's deals in parallel -----------------------------------------------------------
_WORKER_CACHE: dict[str, Any] = {}


def play_deals(make_agents: Callable[[], tuple[Game, list]], seeds: list[int]) -> list[tuple[State, list[int], int]]:
    """Play deals in this process: ``make_agents()`` builds ``(game, competitors' agents)`` (once
    per process and recipe); every deal once per seat rotation, in order."""
    import pickle

    key = pickle.dumps(make_agents)
    if _WORKER_CACHE.get("key") != key:
        _WORKER_CACHE.update(key=key, built=make_agents())
    game, agents = _WORKER_CACHE["built"]
    return [(state, seating, d) for d in seeds for state, seating in play_deal(game, agents, d)]


def parallel_backend(requested: str = "auto") -> str:
    """``ray`` (Ray tasks) when Ray is installed (``auto``) or asked for, else ``processes``."""
    if requested not in ("auto", "ray", "processes"):
        raise ConfigError(f"backend={requested!r}; allowed: 'auto', 'ray', 'processes'")
    if requested == "auto":
        import importlib.util

        return "ray" if importlib.util.find_spec("ray") is not None else "processes"
    if requested == "ray":
        from kabenvs.extras import require

        require("ray", "rllib")
    return requested


def parallel_games(make_agents: Callable[[], tuple[Game, list]], workers: int, backend: str = "auto",
                   chunks_per_worker: int = 4):
    """A ``games`` source for ``play_match``/``evaluate``: the deals split into contiguous chunks
    played by ``workers`` Ray tasks (``backend="ray"``; a local Ray is started unless RAY_ADDRESS
    names a cluster or Ray is already initialised) or local processes (``"processes"``), yielded
    back in the serial order. ``make_agents`` must pickle (a module-level function or a partial of
    one), since each worker builds its own agents from it."""
    backend = parallel_backend(backend)

    def games(seeds: list[int]):
        size = max(1, -(-len(seeds) // (workers * chunks_per_worker)))
        chunks = [seeds[i:i + size] for i in range(0, len(seeds), size)]
        if backend == "ray":
            import os

            import ray

            if not ray.is_initialized():
                address = os.environ.get("RAY_ADDRESS")
                ray.init(address=address or None, num_cpus=None if address else workers,
                         include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
            task = ray.remote(num_cpus=1)(play_deals)
            futures = [task.remote(make_agents, chunk) for chunk in chunks]
            for future in futures:
                yield from ray.get(future)
            return
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # spawn, not fork: a forked torch (or a forked thread pool) can hang
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = [pool.submit(play_deals, make_agents, chunk) for chunk in chunks]
            for future in futures:
                yield from future.result()

    return games
