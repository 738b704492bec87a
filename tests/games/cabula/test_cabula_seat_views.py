"""Cábula's seat views (narration.py, table.py) on rigged deals: the events a move caused, told
only to the seats that saw them, and the table a seat may draw."""

from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest

from kabenvs.games.cabula import CabulaGame

from .cabula_helpers import rig


def step(state, name: str) -> tuple:
    """Apply the move named ``name``; returns (before, action) for ``state.narrate``."""
    legal = {state.action_name(a): a for a in state.legal_actions()}
    assert name in legal, f"{name!r} not legal at {state.decision()}: {sorted(legal)}"
    before = state.clone()
    state.apply(legal[name])
    return before, legal[name]


def test_draws_are_named_to_the_drawer_only():
    s = rig(3, hands=[{"parchment": 1}, {}, {}], top=["star", "dragon"])
    before, a = step(s, "play +2 parchment")
    assert s.narrate(before, a, 0)[:4] == [
        "player 0: play +2 parchment", "player 0 draws a star", "player 0 draws a dragon",
        "turn 2: player 1's turn"]
    assert s.narrate(before, a, 1)[:4] == [
        "player 0: play +2 parchment", "player 0 draws a card", "player 0 draws a card",
        "turn 2: player 1's turn"]
    assert s.narrate(before, a, None)[:4] == s.narrate(before, a, 0)[:4]


def test_a_curse_turned_with_two_wands_names_who_sent_it():
    s = rig(3, hands=[{"magic_wand": 2}, {}, {}], display=[(0, 0), (2, 1), (0, 0)], top=["skull"],
            draw_first=True)
    assert s.stack[-1]["k"] == "curse" and s.current_player == 0
    before, a = step(s, "cancel and turn the curse with 2 magic wands")
    assert s.narrate(before, a, 2) == ["player 0: cancel and turn the curse with 2 magic wands"]
    before, a = step(s, "target the player 1 seat clockwise")
    assert s.narrate(before, a, 2) == [
        "player 0: target the player 1 seat clockwise (player 1)",
        "player 0 turns the Skull on player 1 with two magic wands",
        "player 1 may answer player 0's Skull with magic wands",
    ]
    before, a = step(s, "take the curse")
    assert s.narrate(before, a, 0) == [
        "player 1: take the curse",
        "the Skull (sent by player 0) hits player 1: player 1 loses every displayed star "
        "(2 stars and 1 double star)",
    ]
    assert s.display[1] == [0, 0]


def test_a_drawn_curse_opens_a_wand_window_and_the_witch_takes_a_star():
    s = rig(2, hands=[{"dragon": 1}, {}], display=[(1, 0), (0, 0)],
            top=["thieving_witch"])
    before, a = step(s, "play dragon")
    assert s.narrate(before, a, 1) == [
        "player 0: play dragon",
        "player 0 draws the curse Thieving Witch (shown to everyone)",
        "player 0 may answer the Thieving Witch with magic wands",
    ]
    before, a = step(s, "take the curse")
    assert s.narrate(before, a, 1)[:4] == [
        "player 0: take the curse", "the Thieving Witch hits player 0",
        "player 0 loses a star to the Thieving Witch",
        "turn 2: player 1's turn"]  # the dragon was the turn's play


def test_a_card_taken_with_two_crystal_balls_is_hidden_from_the_others():
    s = rig(3, hands=[{"crystal_ball": 2}, {"star": 1, "dragon": 1}, {}])
    step(s, "play 2 crystal balls")
    before, a = step(s, "target the player 1 seat clockwise")
    assert "player 0 looks at player 1's hand: 1 star, 1 dragon" in s.narrate(before, a, 0)
    assert "player 0 looks at player 1's hand" in s.narrate(before, a, 2)
    before, a = step(s, "take a star")
    assert s.narrate(before, a, 1)[:2] == [
        "player 0: take a star", "player 0 takes a star from player 1's hand"]
    assert s.narrate(before, a, 2)[:3] == [
        "player 0: take a card (hidden)", "player 0 takes a card from player 1's hand (hidden)",
        "turn 2: player 1's turn"]
    # the same words whichever card was taken: nothing for player 2 to tell them apart
    other = before.clone()
    legal = {other.action_name(x): x for x in other.legal_actions()}
    other.apply(legal["take a dragon"])
    assert other.narrate(before, legal["take a dragon"], 2) == s.narrate(before, a, 2)


def test_a_rebuilt_deck_and_the_win_are_narrated():
    s = rig(2, hands=[{"parchment": 1}, {}], top=["star"], discard={"dragon": 3}, deck_rest=False)
    assert len(s.deck) == 1
    before, a = step(s, "play +2 parchment")
    lines = s.narrate(before, a, 1)
    pile = sum(before.discard) + 1  # the parchment joined the pile
    assert lines[:4] == ["player 0: play +2 parchment", "player 0 draws a card",
                         f"the deck ran out: the discard pile ({pile} cards) is shuffled into a new deck",
                         "player 0 draws a card"]
    s = rig(2, hands=[{"star": 1}, {}], display=[(4, 0), (0, 0)])
    before, a = step(s, "play a star")
    assert s.narrate(before, a, 1) == ["player 0: play a star", "game over: player 0 wins with 5 stars"]
    assert s.table_view(1)["winners"] == [0] and s.table_view(1)["terminal"]


def test_the_table_view_and_its_click_targets():
    s = rig(3, hands=[{"dragon": 2, "star": 1}, {"magic_wand": 1}, {}], display=[(1, 0), (2, 1), (0, 0)])
    view = s.table_view(0)
    assert json.loads(json.dumps(view)) == view
    me, p1, _ = view["players"]
    assert me["hand"] == [{"card": "star", "name": "star", "count": 1},
                          {"card": "dragon", "name": "dragon", "count": 2}]
    assert (p1["stars"], p1["double_stars"], p1["total"], p1["hand_size"], p1["hand"], p1["known_hand"]) == (
        2, 1, 4, 1, None, [])
    assert view["deck_size"] == len(s.deck) and view["pending"] == {"kind": "main", "player": 0}
    names = {s.action_name(int(a)): key for a, key in view["targets"].items()}
    assert names == {"play a star": "card:hand:star", "play dragon": "card:hand:dragon",
                     "play 2 dragons": "card:hand:dragon"}
    assert s.table_view(1)["targets"] is None and s.table_view(None)["targets"] is None
    assert s.table_view(1)["players"][0]["hand"] is None
    step(s, "play 2 dragons")
    names = {s.action_name(int(a)): key for a, key in s.table_view(0)["targets"].items()}
    assert names == {"target the player 1 seat clockwise": "player:1",
                     "target the player 2 seats clockwise": "player:2"}
    step(s, "target the player 1 seat clockwise")
    view = s.table_view(1)  # player 1 gives up a star: a single or the double
    assert view["pending"]["kind"] == "star" and view["pending"]["reason"] == "prank"
    names = {s.action_name(int(a)): key for a, key in view["targets"].items()}
    assert names == {"choose a star": "star:1:single", "choose a double star": "star:1:double"}


@pytest.mark.parametrize("players", [2, 4])
def test_no_leak_in_table_views_and_narration_of_random_games(players):
    """A world resampled for a seat gives it the same table view; a drawn card's name is read only
    by its drawer; a card taken from a hand only by the taker and the victim."""
    game = CabulaGame(num_players=players)
    rnd = random.Random(players)
    rng = np.random.default_rng(3)
    s = game.new_state(5)
    checked = 0
    while s.current_player is not None and len(s.history) < 1500:
        before = s.clone()
        a = rnd.choice(s.legal_actions())
        s.apply(a)
        for seat in range(players):
            for line in s.narrate(before, a, seat):
                drawn = re.fullmatch(r"player (\d) draws an? (.+)", line)
                if drawn and drawn[2] != "card":
                    assert int(drawn[1]) == seat, line
                taken = re.fullmatch(r"player (\d) takes an? (.+?)( at random)? from player (\d)'s hand",
                                     line)
                if taken and taken[2] != "card":
                    assert seat in (int(taken[1]), int(taken[4])), line
        if len(s.history) % 11 == 0:
            for seat in range(players):
                assert s.resample_hidden(seat, rng).table_view(seat) == s.table_view(seat)
                checked += 1
    assert checked > 10
