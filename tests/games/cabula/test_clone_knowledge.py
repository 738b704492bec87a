"""Cábula: ``clone()`` copies the knowledge rows (``known``, ``deck_floor``, ``deck_cap``, the
shadow's ``shadow_known`` and the draws ``rebuilt_drawn``), so
changing a clone's knowledge in place (as a search or a resampled world does when it plays on)
never changes the original's fields or anyone's observation of it."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from kabenvs.games.cabula import CabulaGame

KNOWLEDGE = ("known", "deck_floor", "deck_cap", "shadow_known", "rebuilt_drawn")


def _state_with_knowledge(num_players: int):
    """A random game played until some seat is sure of a card in another hand and of the deck."""
    game = CabulaGame(num_players=num_players)
    for seed in range(40):
        s = game.new_state(seed)
        rnd = random.Random(seed)
        for _ in range(2000):
            if s.current_player is None:
                break
            s.apply(rnd.choice(s.legal_actions()))
            if any(row and any(row) for row in s.known) and any(any(f) for f in s.deck_floor):
                return s
    raise AssertionError("no random game built knowledge of another hand")


def _rows(value):
    """The mutable rows of a knowledge field (``known`` holds None where nothing is known)."""
    return [row for row in value if isinstance(row, list)]


@pytest.mark.parametrize("num_players", [2, 4])
def test_mutating_a_clones_knowledge_leaves_the_original_untouched(num_players):
    s = _state_with_knowledge(num_players)
    before = {name: copy.deepcopy(getattr(s, name)) for name in KNOWLEDGE}
    seen = [s.observation(p) for p in range(num_players)]
    c = s.clone()
    for name in KNOWLEDGE:
        assert getattr(c, name) == before[name]  # a faithful copy...
        assert getattr(c, name) is not getattr(s, name)
        rows = _rows(getattr(c, name))
        assert rows, name
        for row in rows:
            row[0] += 3  # ...whose rows are its own
            row.append(99)
        getattr(c, name).append([7])
    for name in KNOWLEDGE:
        assert getattr(s, name) == before[name], name
    for p in range(num_players):
        np.testing.assert_array_equal(s.observation(p), seen[p])
    assert not s.invariants()


def test_knowledge_the_clone_gains_by_playing_on_stays_in_the_clone():
    s = _state_with_knowledge(3)
    before = {name: copy.deepcopy(getattr(s, name)) for name in KNOWLEDGE}
    c = s.clone()
    rnd = random.Random(0)
    for _ in range(60):
        if c.current_player is None:
            break
        c.apply(rnd.choice(c.legal_actions()))
    assert any(getattr(c, name) != before[name] for name in KNOWLEDGE)  # the clone learnt something
    for name in KNOWLEDGE:
        assert getattr(s, name) == before[name], name
