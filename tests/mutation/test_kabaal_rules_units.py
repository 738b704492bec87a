"""Kabaal's legality and winner code at the edges mutation testing found untested (docs/testing.md)."""

from __future__ import annotations

import pytest

from kabenvs.games.kabaal import KabaalGame
from kabenvs.games.kabaal.rules import RITUALS_TO_WIN


def test_nobody_has_won_while_a_decision_is_pending_even_at_the_winning_altar_count():
    # With Dagon a third ritual is followed by flips (decisions) before the game ends: until then
    # the seat with RITUALS_TO_WIN on its altar is not yet a winner.
    s = KabaalGame(num_players=3).new_state(0)
    assert s.current_player is not None
    s.altar[0] = RITUALS_TO_WIN
    assert s.winners() == []
    s.current_player = None
    assert s.winners() == [0]
    s.truncated = True
    assert s.winners() == []


def test_an_unknown_phase_is_named():
    s = KabaalGame(num_players=3).new_state(0)
    s.phase = "nap"
    with pytest.raises(AssertionError, match=r"^unknown phase 'nap'$"):
        s._legal_actions()
