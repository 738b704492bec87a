"""How fast the search bot searches: simulations per second on positions of random games.

``sims_per_second(env_id, players, spec, seconds)`` is what ``scripts/search_benchmark.py`` and
``kabenvs benchmark --search`` report: positions are taken from random games (every 7th decision
with a real choice), each searched for an equal share of ``seconds`` by the bot ``spec`` names
(its ``sims``/``time`` budget replaced by that share); the rate is simulations (one world, one
walk down the tree, one rollout) per second of search.
"""

from __future__ import annotations

import time

import numpy as np

from kabenvs.agents.search import parse_search_spec, search_agent_from_spec
from kabenvs.core.registry import make_game

POSITIONS = 6  # positions searched per measurement
EVERY = 7  # one position every EVERY real decisions of the random games


def positions(game, count: int, seed: int) -> list:
    """``count`` positions with a real choice, spread over whole random games."""
    rng = np.random.default_rng(seed)
    out, k = [], 0
    while len(out) < count:
        state = game.new_state(rng)
        while state.current_player is not None and len(out) < count:
            legal = state.legal_actions()
            if len(legal) > 1:
                k += 1
                if k % EVERY == 0:
                    out.append(state.clone())
            state.apply(legal[int(rng.integers(len(legal)))])
    return out


def sims_per_second(env_id: str, players: int, spec: str = "search", seconds: float = 3.0, seed: int = 0) -> dict:
    """``{env_id, players, spec, sims, seconds, sims_per_s}`` of the search ``spec`` names on
    ``POSITIONS`` positions of ``env_id`` at ``players`` players (default options otherwise)."""
    game = make_game(env_id, num_players=players)
    options = {k: v for k, v in parse_search_spec(spec).items() if k not in ("sims", "time")}
    states = positions(game, POSITIONS, seed)
    per = seconds / len(states)
    timed = "search:" + ",".join([*(f"{k}={v}" for k, v in options.items()), f"time={per!r}"])
    sims = spent = 0
    for i, state in enumerate(states):
        agent = search_agent_from_spec(timed, game, seed=seed + i)  # model= too: loaded for this game
        t0 = time.perf_counter()
        agent.search(state, state.current_player)
        spent += time.perf_counter() - t0
        sims += agent.last_iterations
    return {"env_id": env_id, "players": players, "spec": spec, "sims": sims, "seconds": round(spent, 2),
            "sims_per_s": round(sims / spent, 1)}


__all__ = ["positions", "sims_per_second"]
