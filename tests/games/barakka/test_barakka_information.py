"""Barakka's information state: the seat's view of moves, perfect recall, and resampled worlds
that replay the seat's whole past."""

from __future__ import annotations

import random

import numpy as np
import pytest

import kabenvs
from kabenvs.games.barakka import BarakkaGame


def play(game, seed: int, steps: int, rnd_seed: int = 0):
    """A random game of ``game`` after ``steps`` decisions (or its end)."""
    rnd = random.Random(rnd_seed)
    s = game.new_state(seed)
    for _ in range(steps):
        if s.current_player is None:
            break
        s.apply(rnd.choice(s.legal_actions()))
    return s


# -- the seat's view of moves ------------------------------------------------------------------------


@pytest.mark.parametrize("cfg", [{}, {"num_players": 1}, {"el_karim": True, "memory": "table"}])
def test_every_move_is_public_and_names_no_card(cfg):
    """Barakka's moves are public (draw from where, play onto which sequence, discard onto which
    pile): every seat reads the full name, and no name carries a card (a card drawn from the deck
    or placed face down stays hidden)."""
    game = BarakkaGame(**cfg)
    s = play(game, 4, 40)
    card_names = set(game.card_names)
    while s.current_player is not None:
        for a in s.legal_actions():
            name = s.action_name(a)
            assert not any(c in name for c in card_names), name
            for seat in [None, *range(game.num_players)]:
                assert s.action_name_for(a, seat) == name
        s.apply(s.legal_actions()[0])


def test_solo_drop_of_one_of_two_identical_cards_is_remembered():
    """Solo: dropping deck 1's or deck 2's copy of one card type are two choices the player made;
    the kept card stays in the slot of its deck, so the observations differ (perfect recall)."""
    game = BarakkaGame(num_players=1)
    s = game.new_state(0)
    x = game.card("blue", 2)
    s.held[0] = [x, x]
    rest = list(game.full_deck)
    rest.remove(x)
    rest.remove(x)
    s.decks = [rest[:29], rest[29:]]
    s.touch()
    assert not s.invariants(), s.invariants()
    after = []
    for a in game.drop_ids:
        t = s.clone()
        t.apply(a)
        after.append(t)
    assert after[0].held == after[1].held and after[0].piles == after[1].piles
    v0, v1 = (game.layout.split(t.observation(0))["held"] for t in after)
    assert v0[1, x] == 1 and v0[0].sum() == 0  # dropped deck 1's: kept deck 2's
    assert v1[0, x] == 1 and v1[1].sum() == 0
