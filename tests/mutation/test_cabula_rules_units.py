"""Cábula's winner and scoring code at the edges mutation testing found untested (docs/testing.md)."""

from __future__ import annotations

import pytest

from kabenvs.games.cabula import CabulaGame


def _state(n=3):
    return CabulaGame(num_players=n).new_state(0)


def test_a_win_ends_the_game_with_that_seat_the_winner():
    s = _state()
    assert s.winners() == [] and not s.is_terminal()
    s._win(2)
    assert s.current_player is None and s.is_terminal() and s.legal_actions() == []
    assert s.winners() == [2] and s.stack == []


def test_scores_are_each_displays_total():
    s = _state()
    s.display = [[1, 0], [0, 2], [3, 1]]
    assert s.scores() == [1.0, 4.0, 5.0]
    assert all(type(v) is float for v in s.scores())
    assert s.final_info()["scores"] == [1.0, 4.0, 5.0]


def test_an_unknown_pending_effect_is_named():
    s = _state()
    s.stack[-1] = {"k": "nap"}
    with pytest.raises(RuntimeError, match=r"^no decision for pending effect \{'k': 'nap'\}$"):
        s._legal_actions()
