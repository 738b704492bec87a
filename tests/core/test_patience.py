"""Patient resampling (kabenvs.core.patience): inside ``patient()`` the backtracking resamplers
try more often and longer, so a position where the usual budget runs out (and a world keeping
the real hidden choices comes back, marked) gets a world of its own. The search's Worlds (and
OpenSpiel through it) makes such a draw (tests/agents/test_search.py,
tests/interop/test_openspiel.py); these checks need no extra installed."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kabenvs.core.patience import PATIENT_BUDGET, PATIENT_TRIES, is_patient, patient, resample_budget, resample_tries
from kabenvs.core.registry import make_game


def test_the_budget_is_raised_only_inside_the_block():
    assert not is_patient() and resample_budget(100) == 100 and resample_tries(3) == 3
    with patient():
        assert is_patient() and resample_budget(100) == 100 * PATIENT_BUDGET
        assert resample_tries(3) == 3 * PATIENT_TRIES
        with patient():
            assert is_patient()
        assert is_patient()  # the inner block restores the outer one
    assert not is_patient() and resample_budget(7) == 7
    with pytest.raises(KeyError):
        with patient():
            raise KeyError("the block is left on an error too")
    assert not is_patient()


def _marked_then_patient(env_id: str, players: int, module, shrunk: dict, seed: int, every: int):
    """With the resampler's usual budget shrunk (``shrunk``: its module's budget constants and
    their small values), the positions of a random game where a seat's world comes back marked,
    and what a patient draw gives there."""
    game = make_game(env_id, num_players=players)
    state = game.new_state(seed)
    rnd = random.Random(seed)
    found = []
    step = 0
    with pytest.MonkeyPatch.context() as mp:
        for name, base in shrunk.items():
            mp.setattr(module, name, base)
        while state.current_player is not None and len(found) < 3:
            state.apply(rnd.choice(state.legal_actions()))
            step += 1
            if step % every or state.current_player is None:
                continue
            for seat in range(players):
                world = state.resample_hidden(seat, np.random.default_rng(step))
                if world._followed_truth:
                    with patient():
                        again = state.resample_hidden(seat, np.random.default_rng(step))
                    found.append((state.clone(), seat, world, again))
    return found


def _check(found):
    assert found, "the shrunk budget never ran out: the test needs another seed"
    for state, seat, marked, world in found:
        # the public reading of the mark (State.followed_truth): what a user checks before using
        # a world as a sample; a clone is a new state and starts without it
        assert marked.followed_truth is True and marked.clone().followed_truth is False
        assert state.followed_truth is False
        assert world.followed_truth is False and not world._followed_truth
        np.testing.assert_array_equal(world.observation(seat), state.observation(seat))
        assert world.legal_actions() == state.legal_actions() or state.current_player != seat


def test_alakazum_patient_draws_find_a_world_where_the_budget_ran_out():
    import kabenvs.games.alakazum.resample as module

    _check(_marked_then_patient("alakazum_v0", 4, module, {"RECHOOSE_BUDGET": 0, "RECHOOSE_FLOOR": 200},
                                seed=3, every=15))


def test_cabula_patient_draws_find_a_world_where_the_budget_ran_out():
    import kabenvs.games.cabula.resample as module

    # one pass over the events (plus the fixed 500 steps) a try: "truth" still fits, the others
    # often do not
    _check(_marked_then_patient("cabula_v0", 4, module, {"BUDGET": 1}, seed=0, every=5))


def test_the_kits_usable_world_draws_a_marked_world_again_patiently():
    """The kit's checks of what worlds hold look at the worlds a consumer uses: a world marked
    ``followed_truth`` is drawn again inside ``patient()``, with the next generator; three marked
    patient draws in a row fail the check rather than pass a truth-following world."""
    from tests.core.kit import usable_world

    class Source:
        def __init__(self, marked_when_patient: int) -> None:
            self.calls: list[tuple[bool, int]] = []
            self.marked_when_patient = marked_when_patient

        def resample_hidden(self, seat, rng):
            self.calls.append((is_patient(), rng))
            patient_calls = sum(p for p, _ in self.calls)
            world = type("World", (), {})()
            world.followed_truth = not is_patient() or patient_calls <= self.marked_when_patient
            world.rng = rng
            return world

    source = Source(marked_when_patient=1)
    world = usable_world(source, 0, lambda retry: retry)
    assert not world.followed_truth and world.rng == 2
    assert source.calls == [(False, 0), (True, 1), (True, 2)]
    with pytest.raises(AssertionError, match="three patient draws"):
        usable_world(Source(marked_when_patient=3), 0, lambda retry: retry)
