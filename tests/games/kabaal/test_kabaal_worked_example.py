"""The rulebook's whole worked example ("Example: Playing a Round"), on rigged deals.

Red, Blue and Black (seats 0, 1, 2; clockwise = seat order) play on the default Baal layout.
Blue holds the amulet, so the order of play is Blue, Black, Red and Blue passes to Black.
The tricks the rulebook skips ("Blue wins 2 more tricks and Red wins 1 more") are filled in with
cards that give exactly the board the rest of the example needs.
"""

from __future__ import annotations

import numpy as np
import pytest

from .kabaal_helpers import BLACK, BLUE, RED, act, area, cards, cultists_of, legal_names, rig_pass_phase, rig_play_phase, set_board

from kabenvs.games.kabaal import KabaalGame
from kabenvs.games.kabaal.cards import card
from kabenvs.games.kabaal.rules import trick_winner

# Dealt hands before passing (8 each).
BLUE_DEAL = cards("purple 7", "666", "blue 2", "blue 4", "yellow 2", "blue 6", "red 1", "yellow 1")
BLACK_DEAL = cards("7+", "5+", "yellow 3", "yellow 5", "red 3", "red 7", "red 2", "yellow 6")
RED_DEAL = cards("purple 8", "purple 1", "6+", "red 5", "red 6", "yellow 8", "purple 2", "blue 8")


def round_one():
    game = KabaalGame(num_players=3)
    s = game.new_state(0)
    rig_pass_phase(s, {RED: RED_DEAL, BLUE: BLUE_DEAL, BLACK: BLACK_DEAL}, amulet=BLUE)
    return s


def test_round_one_passing_is_secret_then_face_up():
    s = round_one()
    black_view = s.observation(BLACK)
    act(s, "pass red 1", BLUE)
    act(s, "pass yellow 1", BLUE)
    # Black's view of the world changed only in whose turn it is and that Blue chose two cards
    # (and was the last to decide), not in what Blue chose.
    lay = s.game.layout
    after = s.observation(BLACK)
    for block in lay.blocks():
        if block not in ("to_move", "passes_chosen", "last_mover"):
            assert (lay.split(after)[block] == lay.split(black_view)[block]).all(), block
    assert lay.split(after)["passes_chosen"].tolist() == [0, 0, 1]  # Blue is Black's seat -1
    assert lay.split(after)["last_move"].sum() == 0 and lay.split(after)["last_mover"].tolist() == [0, 0, 1]
    act(s, "pass red 2", BLACK)
    act(s, "pass yellow 6", BLACK)
    act(s, "pass purple 2", RED)
    act(s, "pass blue 8", RED)
    assert s.faceup[BLACK] == cards("red 1", "yellow 1")
    assert s.faceup[RED] == cards("red 2", "yellow 6")
    assert s.faceup[BLUE] == cards("purple 2", "blue 8")
    assert len(s.hands[BLUE]) == 6 and s.phase == "play" and s.current_player == BLUE


def play_round_one_tricks_1_to_3(s, before_placing=None):
    for name, seat in (("pass red 1", BLUE), ("pass yellow 1", BLUE), ("pass red 2", BLACK),
                       ("pass yellow 6", BLACK), ("pass purple 2", RED), ("pass blue 8", RED)):
        act(s, name, seat)
    # Trick 1: Blue leads purple 7; Black has no purple and may play anything.
    act(s, "play purple 7", BLUE)
    assert len(legal_names(s)) == 8
    act(s, "play 7+", BLACK)
    # Red holds purple: purple cards or his colourless 6+ only.
    assert sorted(legal_names(s)) == ["play 6+", "play purple 1", "play purple 8"]
    act(s, "play purple 8", RED)
    # Red won; only purple in the trick and 7/8 share one card: the placement is forced.
    assert cultists_of(s, RED) == ["purple 7/8"] and s.tricks_won == [1, 0, 0]
    # Trick 2: Red leads 6+; Blue's only colourless card is the 666 and Black's the 5+ (forced).
    assert s.current_player == RED
    act(s, "play 6+", RED)
    assert s.played[BLUE][-1] == card("666") and s.played[BLACK][-1] == card("5+")
    assert s.tricks_won == [1, 1, 0]
    assert sum(bin(m).count("1") for m in s.board) == 1  # colourless cards place nothing
    # Trick 3: Blue leads her face-up purple 2 and replaces it at once (a decision).
    act(s, "play purple 2", BLUE)
    assert s.phase == "face_up" and s.current_player == BLUE
    act(s, "face up blue 6", BLUE)
    assert s.faceup[BLUE] == cards("blue 6", "blue 8")
    act(s, "play red 1", BLACK)  # no purple, no colourless: anything; his face-up red 1
    act(s, "face up red 3", BLACK)
    # Red's purple 1 is forced (his only purple, no colourless left).
    assert s.trick_cards == [card("purple 2"), card("red 1"), card("purple 1")]
    assert s.tricks_won == [1, 2, 0]
    if before_placing is not None:
        before_placing(s)
    # Two colours: Blue may place on red 1/2 and purple 1/2.
    assert sorted(legal_names(s)) == ["place on purple 1/2", "place on red 1/2"]
    assert s.pusher == BLACK  # Black played the first "1" (nothing to push here)
    act(s, "place on red 1/2", BLUE)
    assert sorted(legal_names(s)) == ["place no more cultists", "place on purple 1/2"]
    act(s, "place on purple 1/2", BLUE)
    assert cultists_of(s, BLUE) == ["purple 1/2", "red 1/2"]


def test_round_one_first_three_tricks():
    s = round_one()
    play_round_one_tricks_1_to_3(s)
    # "If Red had played his 6+ or purple 1, Black would have won the trick instead".
    for alt in ("6+", "purple 1"):
        assert trick_winner([card("purple 7"), card("7+"), card(alt)], [BLUE, BLACK, RED]) == BLACK
    assert trick_winner([card("purple 7"), card("7+"), card("purple 8")], [BLUE, BLACK, RED]) == RED


def play_round_one_to_the_end(s):
    play_round_one_tricks_1_to_3(s)
    # Trick 4: Blue leads blue 2, nobody else has blue; Blue places on blue 1/2.
    act(s, "play blue 2", BLUE)
    act(s, "play yellow 3", BLACK)
    act(s, "play red 5", RED)
    act(s, "place on blue 1/2", BLUE)
    act(s, "place no more cultists", BLUE)
    # Trick 5: Blue leads blue 4; places on blue 3/4.
    act(s, "play blue 4", BLUE)
    act(s, "play yellow 5", BLACK)
    act(s, "play red 6", RED)
    act(s, "place on blue 3/4", BLUE)
    act(s, "place no more cultists", BLUE)
    # Trick 6: Blue leads yellow 2; Black must follow (his face-up yellow 1), Red wins with yellow 8
    # and chooses the yellow 1/2 card over yellow 7/8.
    act(s, "play yellow 2", BLUE)
    # Black's only yellow card is his face-up yellow 1 and no colourless card is left: forced, and
    # so is its replacement (red 7, his last hidden card).
    assert s.played[BLACK][-1] == card("yellow 1")
    assert s.faceup[BLACK] == cards("red 3", "red 7")
    assert sorted(legal_names(s)) == ["play yellow 6", "play yellow 8"]
    act(s, "play yellow 8", RED)
    assert sorted(legal_names(s)) == ["place on yellow 1/2", "place on yellow 7/8"]
    act(s, "place on yellow 1/2", RED)
    assert s.tricks_won == [2, 4, 0]


def test_round_one_pity_cultist_and_push_choices():
    s = round_one()
    play_round_one_to_the_end(s)
    # Round over: everyone holds exactly their two face-up cards; Black won no trick.
    assert all(len(s.hands[p]) == 0 and len(s.faceup[p]) == 2 for p in range(3))
    assert s.context == "pity" and s.current_player == BLACK
    names = legal_names(s)
    assert "place no more cultists" in names and len(names) == 17  # any card, or decline
    act(s, "place on purple 7/8", BLACK)
    # Black pushes Red's cultist: blue 1/2 or purple 5/6, not yellow 1/2 (a red cultist is there).
    assert s.current_player == BLACK
    assert sorted(legal_names(s)) == ["push red cultist to blue 1/2", "push red cultist to purple 5/6"]
    act(s, "push red cultist to blue 1/2", BLACK)
    assert cultists_of(s, BLACK) == ["purple 7/8"]
    assert cultists_of(s, RED) == ["blue 1/2", "yellow 1/2"]
    assert s.board[area("blue 1/2")] == (1 << RED) | (1 << BLUE)  # Red and Blue share the card
    # Blue passes the amulet to Black and a new round is dealt.
    assert s.amulet == BLACK and s.round == 2 and s.phase == "pass" and s.current_player == BLACK
    assert s.supply == [4, 2, 5]


def test_round_two_blue_ritual():
    s = round_one()
    play_round_one_to_the_end(s)
    act(s, "place on purple 7/8", BLACK)
    act(s, "push red cultist to blue 1/2", BLACK)
    # Round 2, rigged after the exchange. Black leads; order Black, Red, Blue.
    rig_play_phase(s, {
        BLACK: (cards("blue 2", "red 8", "yellow 8", "purple 8", "red 6", "yellow 7"), cards("5+", "6+")),
        RED: (cards("yellow 4", "red 4", "purple 3", "purple 4", "yellow 5", "red 5"), cards("7+", "666")),
        BLUE: (cards("blue 3", "blue 5", "purple 6", "yellow 6", "red 1", "red 2"), cards("blue 7", "purple 5")),
    }, leader=BLACK)
    act(s, "play blue 2", BLACK)
    act(s, "play yellow 4", RED)
    act(s, "play blue 3", BLUE)
    # Two blue cards: Blue chooses which blue card to place on; yellow 3/4 also offered.
    assert sorted(legal_names(s)) == ["place on blue 1/2", "place on blue 3/4", "place on yellow 3/4"]
    act(s, "place on blue 3/4", BLUE)
    # She places only one cultist (pushing comes once placing is done, rules note 3) ...
    assert sorted(legal_names(s)) == ["place no more cultists", "place on yellow 3/4"]
    act(s, "place no more cultists", BLUE)
    # ... and pushes her own cultist that stood there.
    assert s.current_player == BLUE
    assert sorted(legal_names(s)) == [
        "push blue cultist to blue 5/6", "push blue cultist to purple 5/6", "push blue cultist to yellow 1/2",
    ]
    act(s, "push blue cultist to blue 5/6", BLUE)
    # blue 3/4, blue 5/6, red 1/2: a horizontal line -> ritual; only Blue's cultists leave.
    assert s.altar == [0, 1, 0]
    assert cultists_of(s, BLUE) == []
    assert s.supply[BLUE] == 5
    assert cultists_of(s, RED) == ["blue 1/2", "yellow 1/2"] and cultists_of(s, BLACK) == ["purple 7/8"]
    assert s.current_player == BLUE and s.phase == "play"  # the game goes on; Blue leads


def test_round_three_double_victory_black_pushes_with_a_one():
    game = KabaalGame(num_players=3)
    s = game.new_state(0)
    rig_play_phase(s, {
        RED: (cards("red 4", "red 8", "purple 3", "purple 4", "yellow 5", "blue 5"), cards("7+", "666")),
        BLUE: (cards("red 2", "blue 3", "purple 6", "yellow 6", "blue 1", "blue 2"), cards("blue 7", "purple 5")),
        BLACK: (cards("yellow 1", "yellow 8", "purple 8", "purple 2", "blue 6", "yellow 7"), cards("5+", "6+")),
    }, leader=RED, amulet=RED)
    set_board(s, {
        RED: ["yellow 7/8", "blue 5/6"],
        BLUE: ["red 5/6"],
        BLACK: ["red 7/8", "blue 3/4", "red 3/4"],
    }, altar=[2, 2, 2])
    act(s, "play red 4", RED)
    # Blue's red 2 is her only red card and she has no colourless one: forced.
    assert s.played[BLUE] == [card("red 2")]
    act(s, "play yellow 1", BLACK)  # no red: anything; a "1"
    assert s.pusher == BLACK
    act(s, "place on red 3/4", RED)
    act(s, "place no more cultists", RED)  # Red places one cultist (yellow 1/2 was offered too)
    # Black, who played the "1", pushes his own cultist off red 3/4.
    assert s.current_player == BLACK
    assert "push black cultist to purple 5/6" in legal_names(s)
    act(s, "push black cultist to purple 5/6", BLACK)  # to the left
    # Red: yellow 7/8, red 3/4, blue 5/6 (a column); Black: red 7/8, purple 5/6, blue 3/4 (a column).
    assert s.altar == [3, 2, 3]
    assert s.current_player is None and not s.truncated
    assert s.winners() == [RED, BLACK]
    assert s.returns() == [1.0, -1.0, 1.0]
    assert not s.invariants()


def test_information_state_after_trick_three():
    """What Blue and Black see after trick 3 (seat-relative blocks: 0 = me, 1 = next clockwise)."""
    s = round_one()
    lay = s.game.layout
    seen = {}
    play_round_one_tricks_1_to_3(s, before_placing=lambda st: seen.update(trick=lay.split(st.observation(BLUE))))
    # While Blue places, the trick is still on the table, in order: Blue (leader) purple 2, Black
    # red 1, Red purple 1; Blue places, Black (first "1") would push.
    during = seen["trick"]
    assert during["trick_leader"].tolist() == [1, 0, 0]
    assert np.flatnonzero(during["trick"][0]).tolist() == [card("purple 2")]
    assert np.flatnonzero(during["trick"][1]).tolist() == [card("red 1")]
    assert np.flatnonzero(during["trick"][2]).tolist() == [card("purple 1")]
    assert during["actor"].tolist() == [1, 0, 0] and during["pusher"].tolist() == [0, 1, 0]
    assert during["phase"][3] == 1  # place
    blue = lay.split(s.observation(BLUE))
    # Blue passed red 1 and yellow 1 to Black (her seat +1); red 1 has been played since.
    assert np.flatnonzero(blue["my_passing"]).tolist() == [card("yellow 1")]
    assert np.flatnonzero(blue["received"][0]).tolist() == cards("purple 2", "blue 8")
    assert np.flatnonzero(blue["received"][1]).tolist() == cards("red 1", "yellow 1")  # public
    assert np.flatnonzero(blue["face_up"][1]).tolist() == cards("red 3", "yellow 1")  # Black's
    # Trick 4 has not started; the cards of the round stay visible by seat.
    assert blue["trick"].sum() == 0 and blue["actor"].sum() == 0
    # played_round holds (trick + 1) / 6 of the trick each card went to
    for rel, names in ((0, ("purple 7", "666", "purple 2")), (1, ("7+", "5+", "red 1")),
                       (2, ("purple 8", "6+", "purple 1"))):
        row = blue["played_round"][rel]
        assert [row[card(name)] for name in names] == pytest.approx([1 / 6, 2 / 6, 3 / 6])
        assert np.count_nonzero(row) == 3
    # Who led and won each trick (Blue = 0, Black = 1, Red = 2 from Blue's seat); trick 4 not begun.
    assert blue["trick_leaders"].tolist() == [[1, 0, 0], [0, 0, 1], [1, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]
    assert blue["trick_winners"].tolist() == [[0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]
    # Forced cards: Blue's 666 and Black's 5+ in trick 2, Red's purple 1 in trick 3.
    assert np.argwhere(blue["forced_plays"]).tolist() == [[1, 0], [1, 1], [2, 2]]
    # Black played red 1 on a purple lead: he has shown he holds no purple (colour 3).
    assert np.argwhere(blue["voids"]).tolist() == [[1, 3]]
    # Both face-up replacements were turned in trick 3.
    assert blue["revealed"][0][card("blue 6")] == pytest.approx(3 / 6)
    assert blue["revealed"][1][card("red 3")] == pytest.approx(3 / 6)
    assert np.count_nonzero(blue["revealed"]) == 2
    assert blue["tricks_won"].tolist() == pytest.approx([2 / 6, 0, 1 / 6])
    assert blue["supply"].tolist() == pytest.approx([4 / 6, 1, 5 / 6])
    black = lay.split(s.observation(BLACK))
    # Black sees Blue (his seat -1 = relative 2) on red 1/2 and purple 1/2, Red (relative 1) on purple 7/8.
    assert black["board"][area("red 1/2")].tolist() == [0, 0, 1]
    assert black["board"][area("purple 1/2")].tolist() == [0, 0, 1]
    assert black["board"][area("purple 7/8")].tolist() == [0, 1, 0]
    assert black["my_hidden_hand"].sum() == 3 and black["hand_size"].tolist() == pytest.approx([5 / 8] * 3)
    assert np.count_nonzero(black["played_round"][0]) == 3  # his own three cards
    assert black["to_move"].tolist() == [0, 0, 1] and black["phase"][1] == 1  # Blue to play
