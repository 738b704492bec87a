"""Barakka's seat views (narration.py, table.py): a deck draw is seen by its drawer only; El-Karim's
first card is shown to the opponent (also with memory="table"); refills, tiles and the end's
score breakdown are told; the table shows backs for what a seat cannot see."""

from __future__ import annotations

import json

from test_barakka_rules import conserve, do, give, rig


def told(s, name, seat):
    before = s.clone()
    do(s, name)
    return s.narrate(before, s.game.catalog.lookup_name(name), seat)


def test_a_deck_draw_shows_the_card_to_its_drawer_only():
    game, s = rig()
    s.decks[0].append(game.card("red", 3))
    s.touch()
    before = s.clone()
    do(s, "draw from the deck")
    a = game.catalog.lookup_name("draw from the deck")
    assert s.narrate(before, a, 0) == ["player 0: draw from the deck", "player 0 draws red 3"]
    assert s.narrate(before, a, None) == ["player 0: draw from the deck", "player 0 draws red 3"]
    assert s.narrate(before, a, 1) == ["player 0: draw from the deck",
                                       "player 0 draws a card from the deck (hidden)"]
    assert s.table_view(1)["players"][0]["holds"] is None
    assert s.table_view(0)["players"][0]["holds"] == ["red 3"]


def test_el_karim_first_card_is_shown_to_the_opponent_also_with_table_memory():
    for memory in ("perfect", "table"):
        game, s = rig(el_karim=True, memory=memory)
        s.decks[0].append(game.card("red", 4))
        s.touch()
        do(s, "draw from the deck")
        tale = told(s, "play onto sequence 1", seat=1)
        shown_first = "player 0 starts sequence 1 face down with red 4 (shown to the opponent first)"
        assert tale == ["player 0: play onto sequence 1", shown_first], memory
        # on the table it is a back to the opponent unless it remembers every card it saw
        shown = s.table_view(1)["players"][0]["sequences"][0]["cards"]
        assert shown == (["red 4"] if memory == "perfect" else [None])


def test_a_pile_draw_its_refill_and_a_discard_are_told():
    game, s = rig()
    s.piles = [[game.card("red", 1)], [game.card("blue", 2)]]
    conserve(s)
    top = game.card_names[s.decks[0][-1]]
    tale = told(s, "draw from discard pile 1", seat=1)
    assert tale == ["player 0: draw from discard pile 1", "player 0 takes red 1 from discard pile 1",
                    f"discard pile 1 is refilled from the deck: {top}"]
    assert told(s, "discard onto pile 2", seat=1)[1] == "player 0 discards red 1 onto pile 2"


def test_finishing_a_colour_takes_its_tile_and_the_end_tells_each_score():
    game, s = rig()
    give(s, 0, "red", 1, 2, 3, 4)
    s.held[0] = [game.card("red", 5)]
    s.phase = "play"
    conserve(s)
    # the deck is empty: the game ends with this turn (decision 1); its cards lie in pile 1
    s.piles[0] = s.decks[0] + s.piles[0]
    s.decks[0] = []
    s.touch()
    assert not s.invariants()
    tale = told(s, "play into the red sequence", seat=1)
    assert "player 0 plays red 5 into the red sequence (5 card(s))" in tale
    assert "player 0 takes the red tile" in tale
    assert "game over: every card is revealed" in tale
    lines = [line for line in tale if line.startswith("player 0: ") and "points:" in line]
    assert lines and lines[0].startswith(f"player 0: {int(s.scores()[0])} points: sequences ")
    assert "1 tile(s) 1" in lines[0]
    assert tale[-1] == "player 0 wins"
    view = s.table_view(1)
    assert view["terminal"] and view["winners"] == [0] and view["players"][0]["tiles"] == {"red": 1}
    json.dumps(view)
