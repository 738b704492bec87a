"""What the others know of my hand (docs/games/alakazum.md, "What the others know of my hand"):
the blocks ``mine_known``, ``mine_groups``, ``mine_joint`` and ``mine_capped`` show, for every
other seat, its knowledge of my hand as the rules keep it (rules note 15). Every event that
changes it is one I see, so it is part of my information state and stays the same in every
world I cannot tell apart; what another seat knows of a third hand or of the deck is not."""

from __future__ import annotations

import numpy as np
import pytest

from .helpers import Table, do
from .test_information import block, replays_for_every_seat
from .test_recall import htype, names

TEAMS = {0: [("Moura", 0)], 1: [("Olentzero", 0)], 2: [("Trasno", 0)]}
MINE = ("mine_known", "mine_groups", "mine_joint", "mine_capped")


def without_mine(s, p):
    parts = s.game.layout.split(s.observation(p))
    return np.concatenate([v.ravel() for k, v in parts.items() if k not in MINE])


def gift_and_back(card: str):
    """Player 0 holds a Food and a Broom (nobody has seen either), draws Black Friday's Discount
    and gives ``card`` to player 1; player 1 draws Halloween's Trick or Treat and gives the same
    card back. Player 0 ends with the same hand either way, and knows the same of every hand;
    player 1 saw the card come back to player 0, player 2 saw neither gift."""
    t = Table(3)
    t.arrange(teams=TEAMS, hands={0: ["Food VAL/CAT", "Broom"], 1: ["Combat potion +1"]},
              forest_top=["Black Friday's Discount", "Halloween's Trick or Treat", "Die potion +1"])
    s = t.begin_turn(0)
    do(s, "to the player 1 seat(s) to the left", f"give {card}", "pass", "pass")
    do(s, "give half of the hand", "to the player 2 seat(s) to the left", f"give {card}")
    assert s.turn_player == 1 and s.pending["k"] == "choose_action"
    return t, s


def test_a_food_or_a_broom_given_back_leaves_the_giver_knowing_a_different_card_of_my_hand():
    """Two histories I tell apart that end in the same position as far as every other block goes:
    with the new blocks switched off (or not written) they read alike and this test fails."""
    (t, a), (_, b) = gift_and_back("Food VAL/CAT"), gift_and_back("Broom")
    assert names(t, a.hands[0]) == names(t, b.hands[0]) == ["Broom", "Food VAL/CAT"]
    assert names(t, a.known[1][0]) == ["Food VAL/CAT"] and names(t, b.known[1][0]) == ["Broom"]
    assert a.known[2][0] == b.known[2][0] == [] and a.groups[2][0] == b.groups[2][0] == []
    # everything else I observe is the same: only what player 1 knows of my hand tells them apart
    np.testing.assert_array_equal(without_mine(a, 0), without_mine(b, 0))
    assert not np.array_equal(a.observation(0), b.observation(0))
    ka, kb = block(a, 0, "mine_known"), block(b, 0, "mine_known")
    food, broom = htype(t, "Food VAL/CAT"), htype(t, "Broom")
    # row 0: the player one seat to my left; row 1: player 2, who saw nothing
    assert ka[0, food] == np.float32(1 / 3) and ka[0].sum() == np.float32(1 / 3)
    assert kb[0, broom] == np.float32(1 / 3) and kb[0].sum() == np.float32(1 / 3)
    assert not ka[1].any() and not kb[1].any()
    replays_for_every_seat(a, tries=2)


def test_each_other_seat_has_its_row_seat_relative():
    """Player 2 gives player 0 a Broom (Black Friday): player 2, two seats to player 0's left, is
    row 1 of player 0's block; player 1, who did not see the gift, row 0."""
    t = Table(3)
    t.arrange(teams=TEAMS, hands={2: ["Broom", "Traca"]}, forest_top=["Black Friday's Discount"])
    s = t.begin_turn(2)
    do(s, "to the player 1 seat(s) to the left", "give Broom")
    assert names(t, s.known[2][0]) == ["Broom"] and s.known[1][0] == []
    rows = block(s, 0, "mine_known")
    assert rows[1, htype(t, "Broom")] == np.float32(1 / 3) and rows[1].sum() == np.float32(1 / 3)
    assert not rows[0].any()
    # and player 0 saw the Broom leave player 2's hand: what player 0 knows of it, from player 2's side
    assert not block(s, 2, "mine_known").any()


def test_a_group_on_my_hand_reads_the_same_from_both_sides():
    """Seat 2 saw player 0 take a Magic hat 2 and a Broom; player 0 then gives a Traca to player 1
    out of seat 2's sight (rules note 15): seat 2 keeps a group on player 0's hand. Player 0 sees
    that group in its own observation (player 2 is its row 1), as seat 2 sees it (player 0 is
    seat 2's row 1 of hand_groups); player 1 saw the Traca go and keeps no group."""
    from .test_recall import gift, others_turns, two_known

    t, s = two_known()
    others_turns(s)
    gift(s)
    assert [(names(t, m), r) for m, r, _ in s.groups[2][0]] == [(["Broom", "Magic hat 2"], 1)]
    mine = block(s, 0, "mine_groups")
    np.testing.assert_array_equal(mine[1], block(s, 2, "hand_groups")[1])
    assert mine[1, 0, htype(t, "Broom")] == np.float32(1 / 3) and mine[1, 0, t.cs.num_htypes] == np.float32(1 / 5)
    assert not mine[0].any()
    np.testing.assert_array_equal(block(s, 0, "mine_known")[0], block(s, 1, "known_hands")[2])
    replays_for_every_seat(s, tries=2)


def forest_magic_then_draws():
    """Player 1 casts Forest Magic and puts five hand cards back in an order only it knows; player
    2 explores one of them (unseen by player 0), then player 0 explores the next one. Player 1
    knows both cards; player 0 knows only its own."""
    t = Table(3)
    back = ["Traca", "Broom", "Barretina", "Txapela", "Abanico"]
    t.arrange(teams=TEAMS, hands={1: ["Magic hat 3"]},
              forest_top=["Magic hat 1", *back, "Die potion +1", "Die potion +1"])
    s = t.at_action(1)
    do(s, "cast Forest Magic", "pay with Magic hat 3", "forest card Magic hat 1")
    do(s, *[f"forest card {c}" for c in back[:4]])
    assert s.forest_known[1] == 5
    do(s, "pass")  # player 1's Alakazum; player 2 explores the Traca
    do(s, "pass", "pass")  # player 2's action and Alakazum; player 0 explores the Broom
    assert s.turn_player == 0
    return t, s


def test_what_another_seat_saw_of_my_draws_from_its_forest_magic_is_mine_to_know():
    t, s = forest_magic_then_draws()
    assert names(t, s.known[1][0]) == ["Broom"] and names(t, s.known[1][2]) == ["Traca"]
    row = block(s, 0, "mine_known")[0]  # player 1 is one seat to my left
    assert row[htype(t, "Broom")] == np.float32(1 / 3) and row.sum() == np.float32(1 / 3)
    replays_for_every_seat(s, tries=3)


def test_what_another_seat_knows_of_a_third_hand_or_the_deck_does_not_reach_my_observation():
    """Player 1's knowledge rests on its Forest Magic order, which only it saw: in the worlds player
    0 cannot tell apart, player 1 knows other cards of player 2's hand and another deck order,
    yet player 0's observation (its block on what player 1 knows of player 0's hand included)
    is the same in all of them. A block copying player 1's rows as they are would differ."""
    t, s = forest_magic_then_draws()
    ht = t.cs.htype
    obs = s.observation(0)
    theirs = set()
    for k in range(30):
        w = s.resample_hidden(0, np.random.default_rng(k))
        np.testing.assert_array_equal(w.observation(0), obs)
        assert sorted(ht[c] for c in w.known[1][0]) == sorted(ht[c] for c in s.known[1][0])
        theirs.add((tuple(sorted(ht[c] for c in w.known[1][2])), tuple(w.forest[-3:])))
        assert not w.invariants()
    assert len(theirs) > 1, "the worlds never moved what only player 1 saw"


@pytest.mark.parametrize("n", [2, 5])
def test_the_blocks_hold_one_row_per_other_seat(n):
    from kabenvs.games.alakazum import AlakazumGame

    game = AlakazumGame(num_players=n)
    nht = game.cs.num_htypes
    shapes = {k: v.shape for k, v in game.layout.split(np.zeros(game.observation_size)).items() if k in MINE}
    assert shapes == {"mine_known": (n - 1, nht), "mine_groups": (n - 1, 2, nht + 2),
                      "mine_joint": (n - 1, nht + 1), "mine_capped": (n - 1, 6)}
