"""Rollout policies: how a search plays a world from a new leaf to the end of the game."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from kabenvs.agents.base import Decision
from kabenvs.core.game import State

_CHUNK = 256  # uniform draws fetched at once: one generator call per move costs more than the move


def random_rollout(limit: int) -> Callable[[State, np.random.Generator], None]:
    """Uniform random moves for every seat until the game ends (or ``limit`` moves, a guard
    against a game without its own cap)."""

    def play(world: State, rng: np.random.Generator) -> None:
        draws = rng.random(_CHUNK)
        i = 0
        for _ in range(limit):
            if world.current_player is None:
                return
            legal = world.legal_actions()
            if i == _CHUNK:
                draws, i = rng.random(_CHUNK), 0
            world.apply(legal[int(draws[i] * len(legal))])
            i += 1

    return play


def heuristic_rollout(
    env_id: str, num_players: int, limit: int
) -> Callable[[State, np.random.Generator], None]:
    """Every seat plays the game's heuristic bot. The bots are made fresh for each rollout and
    seeded from the search's generator, so a search stays a pure function of its seed."""

    def play(world: State, rng: np.random.Generator) -> None:
        bots = _bots(env_id, num_players, rng)
        for _ in range(limit):
            p = world.current_player
            if p is None:
                return
            legal = world.legal_actions()
            world.apply(legal[0] if len(legal) == 1 else bots[p].act(Decision(p, world)))

    return play


def others_policy(kind: str, env_id: str, num_players: int, rng: np.random.Generator):
    """The opponent model of ``others=`` for one tree: ``(world, player) -> move``, every modelled
    seat playing the game's heuristic bot (one bot per seat, seeded from ``rng``; random where the
    game has none) or uniformly random moves. None for ``search`` (every seat is searched)."""
    if kind == "search":
        return None
    if kind == "heuristic" and has_heuristic(env_id):
        bots = _bots(env_id, num_players, rng)
        return lambda world, p: bots[p].act(Decision(p, world))

    def uniform(world: State, p: int) -> int:
        legal = world.legal_actions()
        return int(legal[int(rng.integers(len(legal)))])

    return uniform


def _bots(env_id: str, num_players: int, rng: np.random.Generator) -> list:
    """One heuristic bot per seat, each seeded from ``rng`` (a search stays a function of its seed)."""
    from kabenvs.agents import heuristic_agent

    return [heuristic_agent(env_id, int(s)) for s in rng.integers(0, 2**31, size=num_players)]


def policy_move(kind: str, env_id: str, state: State, me: int, rng: np.random.Generator) -> int | None:
    """The rollout policy's own move for seat ``me`` at ``state`` (from the seat's information
    only, as the bot reads it): the heuristic bot's, or None for random rollouts (no move of
    their own to prefer)."""
    if kind != "heuristic" or not has_heuristic(env_id):
        return None
    from kabenvs.agents import heuristic_agent

    return int(heuristic_agent(env_id, int(rng.integers(0, 2**31))).act(Decision(me, state)))


def has_heuristic(env_id: str) -> bool:
    try:
        from kabenvs.agents import heuristic_agent

        heuristic_agent(env_id, 0)
        return True
    except (ImportError, AttributeError):
        return False
