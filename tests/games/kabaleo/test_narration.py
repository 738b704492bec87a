"""Kabaleo's seat views (narration.py, table.py): a cancellation, the end with the tie-break that
decided, the secret colours in the table view."""

from __future__ import annotations

import json

from .test_rules import B, G, O, P, place, rigged


def narrated(game, s, colour, spot, seat):
    before = s.clone()
    place(game, s, colour, spot)
    return s.narrate(before, game.catalog.id("place", colour, spot), seat)


def test_a_cancellation_is_told_with_what_the_spot_shows_again():
    game, s = rigged(spots=[[G, O, B]], stock=[[0, 0, 1], [1]])
    tale = narrated(game, s, B, 0, seat=1)
    assert tale == [
        "player 0: place blue on spot 0",
        "cancellation on spot 0: the two blue pieces leave the game; spot 0 shows its orange piece again",
        "player 0 has placed every piece",
    ]
    game, s = rigged(spots=[[G, O]], stock=[[1], [1]])
    assert narrated(game, s, O, 0, seat=0)[1].endswith("spot 0 shows its green base again")


def test_the_last_move_reveals_the_colours_and_names_the_tie_break_that_decided():
    # orange (player 1) and green (player 0) end on 4 spots each; orange tops more covered stacks
    board = ([[O]] * 2 + [[B]] + [[B, O]] + [[G]] * 3 + [[P, G]] + [[O, B]] * 2 + [[G, P]]
             + [[B]] * 2 + [[P]] * 3)
    game, s = rigged(spots=board, stock=[[0], [1]], targets=[G, O], player=1)
    tale = narrated(game, s, O, 2, seat=0)
    assert s.winners() == [1]
    assert tale[-5:] == [
        "game over; the secret colours: player 0 green, player 1 orange",
        "spots showing the colour: player 0 4, player 1 4",
        "covered stacks showing the colour (first tie-break): player 0 1, player 1 2",
        "the tie was decided by covered stacks showing the colour (first tie-break)",
        "player 1 wins",
    ]


def test_a_full_tie_is_told_as_a_shared_victory():
    board = [[O]] * 2 + [[B, O]] * 2 + [[G]] * 2 + [[B, G]] * 2 + [[B]] * 2 + [[P]] * 4 + [[O], [G]]
    game, s = rigged(spots=board, stock=[[0, 0, 0, 1], [0]], targets=[O, G], player=0)
    tale = narrated(game, s, P, 8, seat=None)  # pink on a blue base: nobody's colours change
    assert s.winners() == [0, 1]
    assert tale[-1] == "player 0 and player 1 share the victory (still tied after every tie-break)"


def test_the_table_shows_a_seat_only_its_own_colour_until_the_end():
    game, s = rigged(spots=[[G, O]], stock=[[1], [1]], targets=[G, O])
    mine, theirs = s.table_view(0), s.table_view(1)
    assert mine["secret_colours"] == ["green", None] and theirs["secret_colours"] == [None, "orange"]
    assert s.table_view(None)["secret_colours"] == ["green", "orange"]
    assert mine["spots"][0] == {"base": "green", "pieces": ["orange"], "top": "orange", "last_move": False}
    assert mine["stock"][0]["orange"] == 1
    assert mine["targets"][str(game.catalog.id("place", O, 0))] == ["stock:orange", "spot:0"]
    assert "targets" not in theirs
    json.dumps(mine)
