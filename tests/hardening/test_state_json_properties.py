"""Saves are untrusted input: any mutation of a real save of any game either loads a state that
then plays on without error, or is refused with ``ConfigError`` - never any other exception."""

from __future__ import annotations

import functools
import json
import os

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from kabenvs import ENV_IDS
from kabenvs.core.errors import ConfigError
from kabenvs.core.game import State
from kabenvs.core.registry import game_class, make_game
from tests.hardening.mutate import mutate

EXAMPLES = int(os.environ.get("PROPERTY_EXAMPLES", "10"))  # more for a deeper search, e.g. 500
CASES = [(e, n) for e in ENV_IDS for n in sorted({min(game_class(e).Config.PLAYER_COUNTS),
                                                   max(game_class(e).Config.PLAYER_COUNTS)})]


@functools.lru_cache(maxsize=None)
def real_save(env_id: str, players: int, seed: int, moves: int) -> str:
    """The JSON save of a game after ``moves`` random moves (fewer if it ends first)."""
    state = make_game(env_id, num_players=players).new_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    for _ in range(moves):
        if state.current_player is None:
            break
        state.apply(int(rng.choice(state.legal_actions())))
    return state.to_json()


def play_on(state: State, seed: int, moves: int = 6) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if state.current_player is None:
            break
        for p in range(state.num_players):
            state.observation(p)
        legal = state.legal_actions()
        assert len(legal) > 0
        state.apply(int(rng.choice(legal)))
    assert state.invariants() == []


def check_one(env_id: str, players: int, data) -> None:
    seed = data.draw(st.integers(0, 3), label="seed")
    moves = data.draw(st.sampled_from([0, 3, 20, 60]), label="moves")
    doc = json.loads(real_save(env_id, players, seed, moves))
    if data.draw(st.booleans(), label="no start"):  # no replay check: the field checks alone guard
        doc["state"]["start"] = None
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        mutate(data, doc, data.draw(st.sampled_from([(), ("state",)]), label="root"))
    try:
        state = State.from_json(json.dumps(doc))
    except ConfigError:
        return
    play_on(state, seed)


@pytest.mark.parametrize("env_id,players", CASES, ids=[f"{e}-{n}p" for e, n in CASES])
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          phases=[Phase.explicit, Phase.generate],  # no shrinking: the falsifying draws are shown as found
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_a_mutated_save_loads_and_plays_or_is_refused(env_id, players, data):
    check_one(env_id, players, data)
