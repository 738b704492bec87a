"""Alakazum!'s observation memos (encoding.py: the team group, the finals rows, the market; rules.py
clears them on the writes that change what they hold): every seat's observation along random games
equals the one of a clone, which starts without memos, and the legal mask the one the core builds."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kabenvs.core.game import State
from kabenvs.games.alakazum import AlakazumGame


@pytest.mark.parametrize("num_players", [2, 5])
def test_memoised_observations_equal_fresh_ones(num_players):
    game = AlakazumGame(num_players=num_players)
    rnd = random.Random(num_players)
    for seed in range(3):
        state = game.new_state(np.random.default_rng(seed))
        while state.current_player is not None:
            fresh = state.clone()  # no memos: everything written from the fields
            for p in range(num_players):  # every seat every step: memos kept across many changes
                assert state.observation(p).tobytes() == fresh.observation(p).tobytes()
            mask = state.legal_mask()  # a kept mask of the same legal set, copied
            assert mask.tobytes() == State.legal_mask(fresh).tobytes()
            mask[:] = 0  # the copy is the caller's: the kept one is untouched
            assert state.legal_mask().tobytes() == State.legal_mask(fresh).tobytes()
            state.apply(rnd.choice(state.legal_actions()))
