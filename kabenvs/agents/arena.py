"""Play many games between agents with seats rotated and deals paired.

Every deal (seed) is played once per rotation of the seats, so each agent sits in every seat of
every deal and the luck of the deal cancels out. This is the one match runner; evaluation,
benchmarks of bots and the training callbacks all build on it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from kabenvs.agents.base import Agent, play_game
from kabenvs.core.game import Game, State

AgentFactory = Callable[[int], Agent]  # seed -> a fresh agent


def wilson_interval(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate (ties count half a win)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class MatchResult:
    names: list[str]
    games: int = 0
    # per seat: a shared victory counts 1/k to each of k winners; a competitor in several seats
    # gets the mean of its seats, so with n seats an even match gives each 1/n
    wins: list[float] = field(default_factory=list)
    outright: list[int] = field(default_factory=list)
    total_return: list[float] = field(default_factory=list)
    truncated: int = 0
    states: list[State] = field(default_factory=list)  # finished games, if kept

    def win_rate(self, i: int) -> float:
        return self.wins[i] / self.games if self.games else 0.0

    def interval(self, i: int) -> tuple[float, float]:
        return wilson_interval(self.wins[i], self.games)

    def mean_return(self, i: int) -> float:
        return self.total_return[i] / self.games if self.games else 0.0

    def table(self) -> str:
        rows = [f"{'agent':<24} {'win rate':>9} {'95% CI':>17} {'mean return':>12}"]
        for i, name in enumerate(self.names):
            lo, hi = self.interval(i)
            rows.append(f"{name:<24} {self.win_rate(i):>9.3f} [{lo:.3f}, {hi:.3f}] {self.mean_return(i):>12.3f}")
        rows.append(f"{self.games} games, {self.truncated} truncated")
        return "\n".join(rows)


def deal_seeds(seed: int, deals: int) -> list[int]:
    """The seed of each deal of a match (``game.new_state(np.random.default_rng(deal_seed))``)."""
    return [int(x) for x in np.random.SeedSequence(seed).generate_state(deals, dtype=np.uint64)]


def seatings(num_players: int, competitors: int) -> list[list[int]]:
    """The seat rotations of one deal: ``seating[seat]`` = competitor index."""
    n, k = num_players, competitors
    return [[(s + rot) % k if k >= n else (s + rot) % n % k for s in range(n)] for rot in range(n)]


def play_deal(game: Game, agents: Sequence[AgentFactory | Agent], deal_seed: int) -> list[tuple[State, list[int]]]:
    """Play one deal once per seat rotation; ``[(finished state, seating), ...]`` in rotation order.

    A game depends only on the deal seed and the seating, never on the games played before it:
    a factory gets ``deal_seed * 31 + seat`` and an agent instance with a ``reseed`` method
    (a model that samples its moves) is reseeded with the same number before the game. So the
    deals of a match can be played in any order, in other processes, with the same results.
    """
    out = []
    for seating in seatings(game.num_players, len(agents)):
        seat_agents = []
        for s, idx in enumerate(seating):
            a = agents[idx]
            if callable(a) and not hasattr(a, "act"):
                a = a(deal_seed * 31 + s)
            elif hasattr(a, "reseed"):
                a.reseed(deal_seed * 31 + s)
            seat_agents.append(a)
        state = game.new_state(np.random.default_rng(deal_seed))
        play_game(state, seat_agents)
        out.append((state, seating))
    return out


def tally(result: MatchResult, state: State, seating: list[int], keep_states: bool = False) -> None:
    """Count one finished game into ``result``."""
    result.games += 1
    if state.current_player is not None or state.truncated:
        result.truncated += 1
    ret = state.returns()
    # Each competitor's share of the game: average over the seats it occupies.
    per: dict[int, list[int]] = {}
    for s, idx in enumerate(seating):
        per.setdefault(idx, []).append(s)
    winners = [] if (state.current_player is not None or state.truncated) else state.winners()
    for idx, seats in per.items():
        result.total_return[idx] += sum(ret[s] for s in seats) / len(seats)
        if winners:
            # per seat: a competitor in two seats is judged by its average seat
            result.wins[idx] += sum(1 for s in seats if s in winners) / len(winners) / len(seats)
            if len(winners) == 1 and winners[0] in seats:
                result.outright[idx] += 1
    if keep_states:
        result.states.append(state)


class MoveClock:
    """CPU time an agent spends choosing, over decisions with more than one legal move (forced
    moves cost nothing to think about). CPU, not wall clock: on a shared machine the wall clock
    counts the time others held the core."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.moves = 0

    def wrap(self, agent):
        """The agent (or ``seed -> agent`` factory, as ``play_match`` takes them) with its choices timed."""
        if callable(agent) and not hasattr(agent, "act"):
            return lambda seed: _Timed(agent(seed), self)
        return _Timed(agent, self)

    def ms_per_move(self) -> float | None:
        return 1000 * self.seconds / self.moves if self.moves else None


class _Timed:
    def __init__(self, agent, clock: MoveClock) -> None:
        self.agent, self.clock = agent, clock

    def act(self, decision) -> int:
        if len(decision.legal_actions) < 2:
            return self.agent.act(decision)
        start = time.process_time()
        action = self.agent.act(decision)
        self.clock.seconds += time.process_time() - start
        self.clock.moves += 1
        return action

    def __getattr__(self, name):  # reseed, name, ... of the agent itself
        if name == "agent":  # not set yet (a copy being built): no endless lookup
            raise AttributeError(name)
        return getattr(self.agent, name)


GamesSource = Callable[[list[int]], Iterable[tuple[State, list[int], int]]]


def play_match(
    game: Game,
    agents: Sequence[AgentFactory | Agent],
    deals: int,
    seed: int = 0,
    names: Sequence[str] | None = None,
    keep_states: bool = False,
    on_game: Callable[[State, list[int], int], None] | None = None,
    games: GamesSource | None = None,
) -> MatchResult:
    """``agents[i]`` is the i-th competitor; with fewer competitors than seats they repeat in turn.

    Each deal is played ``num_players`` times with the seating rotated; ``on_game(state, seating,
    deal_seed)`` sees every finished game (``seating[seat]`` = competitor index; the game was dealt
    by ``game.new_state(np.random.default_rng(deal_seed))`` and ``state.history`` replays it), e.g.
    to write a game log.

    ``games(deal_seeds)``, when given, plays the games elsewhere (other processes or machines,
    ``training.evaluation.parallel_games``) and yields ``(state, seating, deal_seed)`` in the
    order this function would play them; the result is then the same as the serial one.
    """
    k = len(agents)
    names = list(names) if names else [getattr(a, "name", f"agent{i}") for i, a in enumerate(agents)]
    result = MatchResult(names=names, wins=[0.0] * k, outright=[0] * k, total_return=[0.0] * k)
    seeds = deal_seeds(seed, deals)
    if games is None:
        def games(seeds):
            for deal_seed in seeds:
                for state, seating in play_deal(game, agents, deal_seed):
                    yield state, seating, deal_seed
    for state, seating, deal_seed in games(seeds):
        tally(result, state, seating, keep_states)
        if on_game is not None:
            on_game(state, seating, deal_seed)
    return result
