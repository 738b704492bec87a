"""Cábula's perfect recall: each test builds two histories (rigged deal, chosen moves, through
``apply``) that a seat can tell apart and checks that its observation tells them apart too, with
the knowledge blocks holding exactly what the seat knows (knowledge.py, docs "What is summarised")."""

from __future__ import annotations

import numpy as np
import pytest

from kabenvs.games.cabula import CabulaGame
from kabenvs.games.cabula.cards import ATTACK_KINDS, NUM_TYPES
from tests.games.cabula.cabula_helpers import ID, act, counts, rig
from tests.games.cabula.test_cabula_information import assert_world_replays

TAKE_HIDDEN = ("play 2 crystal balls", "target the player 1 seat clockwise", "take a minotaur")


def parts(state, seat):
    return state.game.layout.split(state.observation(seat))


def group_of(state, v, p):
    """``v``'s group about ``p``: ({type: count}, unknown cards, survivors), or None."""
    g = state.maybe_group(v, p)
    if g is None:
        return None
    return {k: g[c] for k, c in ID.items() if g[c]}, g[NUM_TYPES], g[NUM_TYPES + 1]


def look_then(third_first: bool | None, hand: dict | None = None, p_plays_star: bool = False):
    """Four players. Player 0 looks at player 2's hand with two crystal balls and takes the wand
    (so it knows {star, minotaur, cauldron}). Player 1 takes a card from player 2 with two crystal
    balls, unseen by player 0: before player 2's draw (``third_first``) or after it, one round
    later (``None``: never). With a take, everything public ends the same either way."""
    s = rig(4, hands=[{"crystal_ball": 2}, {"crystal_ball": 2},
                      hand or {"star": 1, "minotaur": 1, "cauldron": 1, "magic_wand": 1}, {}],
            top=["dragon", "kraken", "cyclops", "dragon", "kraken", "cyclops"])
    for move in ("play 2 crystal balls", "target the player 2 seats clockwise", "take a magic wand"):
        act(s, move)
    for turn in range(1, 7):  # players 1, 2, 3, 0, 1, 2
        player = turn % 4
        assert s.current_player == player
        if player == 1 and third_first is not None and (turn == 1) == third_first:
            for move in TAKE_HIDDEN:
                act(s, move)
        elif player == 2 and turn == 2 and p_plays_star:
            act(s, "play a star")
        else:
            act(s, "pass")
    return s


def test_an_unseen_loss_keeps_two_of_the_three_seen_cards():
    """'Saw {star, minotaur, cauldron}, then a third player took one unseen': the hand still holds
    two of the three (a group), where the old counts kept nothing."""
    s = look_then(third_first=True)
    assert s.known_cards(0, 2) == [0] * NUM_TYPES
    assert group_of(s, 0, 2) == ({"star": 1, "minotaur": 1, "cauldron": 1}, 0, 2)
    row = parts(s, 0)
    assert row["maybe_count"][2] == pytest.approx(0.4)
    assert list(np.flatnonzero(row["maybe_hands"][2])) == [ID["star"], ID["minotaur"], ID["cauldron"]]
    assert not row["maybe_hands"][[0, 1, 3]].any()
    # the taker and the victim saw the card: the group is player 0's alone
    assert s.maybe_group(1, 2) is None and s.maybe_group(3, 2) is None


def test_a_public_play_from_the_group_narrows_it():
    """... then player 2 plays a star: one of {minotaur, cauldron} is surely still there."""
    played = look_then(third_first=True, p_plays_star=True)
    assert group_of(played, 0, 2) == ({"minotaur": 1, "cauldron": 1}, 0, 1)
    kept = look_then(third_first=True)
    assert not np.array_equal(played.observation(0), kept.observation(0))


def test_the_order_of_a_draw_and_an_unseen_loss_is_kept():
    """Loss then draw: two of the three seen cards and one unknown card. Draw then loss: three of
    the four cards (the seen three and the drawn one) - the seen cards are more likely still there.
    The public table is the same; only the knowledge blocks differ."""
    loss_first = look_then(third_first=True)
    draw_first = look_then(third_first=False)
    assert group_of(loss_first, 0, 2) == ({"star": 1, "minotaur": 1, "cauldron": 1}, 0, 2)
    assert group_of(draw_first, 0, 2) == ({"star": 1, "minotaur": 1, "cauldron": 1}, 1, 3)
    a, b = parts(loss_first, 0), parts(draw_first, 0)
    differ = [name for name in a if not np.array_equal(a[name], b[name])]
    assert differ == ["maybe_hands", "maybe_count"]


def test_two_of_three_seen_cards_is_not_two_seen_cards_and_an_unknown_one():
    lost = look_then(third_first=True)  # 2 of {star, minotaur, cauldron} + 2 drawn cards
    s = look_then(None, hand={"star": 1, "cauldron": 1, "magic_wand": 1})  # {star, cauldron} + 2 drawn
    assert s.hand_size(2) == lost.hand_size(2) == 4
    assert s.known_cards(0, 2) == counts({"star": 1, "cauldron": 1}) and s.maybe_group(0, 2) is None
    a, b = parts(lost, 0), parts(s, 0)
    for block in ("known_hands", "maybe_hands", "maybe_count"):
        assert not np.array_equal(a[block], b[block])


def rebuilt(hand: dict, top: str):
    """Two players; the deck was just rebuilt from the pile (public contents) with ``top`` on top.
    Player 0 looks at player 1's hand with two crystal balls and takes the wand."""
    s = rig(2, hands=[{"crystal_ball": 2}, {**hand, "magic_wand": 1}], deck_rest=False)
    assert s.deck_cap_known
    for c in ("kraken", top):  # player 1 draws ``top``, then player 0 the kraken
        s.deck.remove(ID[c])
        s.deck.append(ID[c])
    s.touch()
    for move in ("play 2 crystal balls", "take a magic wand"):
        act(s, move)
    assert s.current_player == 1 and s.fresh[0 * 2 + 1] == 1  # it drew one card from the rebuilt deck
    cap = s.deck_cap[0][:]
    act(s, "play a star")
    return s, cap


def test_a_card_that_can_only_have_come_from_the_rebuilt_deck_leaves_its_cap():
    """Player 0 knows player 1 holds a cauldron and one card drawn from the rebuilt deck; a star
    played then is that card, so the deck is now known exactly. If player 1 held a star already,
    the star played tells nothing about the deck: the drawn card is still one of it."""
    drawn, cap_drawn = rebuilt({"cauldron": 1}, top="star")
    held, cap_held = rebuilt({"star": 1}, top="cauldron")
    assert drawn.discard == held.discard and drawn.hands[0] == held.hands[0]
    assert drawn.hand_size(1) == held.hand_size(1) == 1
    deck = counts({})
    for c in drawn.deck:
        deck[c] += 1
    assert drawn.deck_cap[0] == drawn.deck_floor[0] == deck  # the deck is known exactly
    assert drawn.known_cards(0, 1) == counts({"cauldron": 1}) and drawn.fresh[1] == 0
    assert held.known_cards(0, 1) == [0] * NUM_TYPES and held.fresh[1] == 1
    assert held.deck_cap[0] == [k - (c == ID["kraken"]) for c, k in enumerate(cap_held)]
    assert drawn.deck_cap[0] == [k - (c == ID["kraken"]) - (c == ID["star"]) for c, k in enumerate(cap_drawn)]
    assert parts(held, 0)["fresh"][1] == pytest.approx(0.2)
    assert not np.array_equal(drawn.observation(0), held.observation(0))
    rng = np.random.default_rng(2)
    for s in (drawn, held):
        for p in (0, 1):
            assert_world_replays(s, p, s.resample_hidden(p, rng))


def test_cards_drawn_from_a_rebuilt_deck_that_runs_out_become_a_group_on_the_hand():
    """The rebuilt deck holds a dragon and a kraken; players 1 and 2 draw one each, unseen. When it
    runs out, player 0 knows each of them holds one of {dragon, kraken}; each of them knows
    which one the other holds."""
    s = rig(3, hands=[{}, {}, {}])
    pile = s.discard
    for c in s.deck:
        pile[c] += 1
    pile[ID["dragon"]] -= 1
    pile[ID["kraken"]] -= 1
    s.deck = [ID["dragon"], ID["kraken"]]
    s.deck_cap = [counts({"dragon": 1, "kraken": 1}) for _ in range(3)]
    s.deck_floor = [c[:] for c in s.deck_cap]
    s.deck_cap_known = True
    s.public_cap = s.deck_cap[0][:]  # everyone knows the rebuilt deck's pile
    s.touch()
    assert not s.invariants()
    act(s, "pass")  # player 1 draws the kraken
    assert s.fresh[0 * 3 + 1] == 1 and s.fresh[2 * 3 + 1] == 1
    act(s, "pass")  # player 2 draws the dragon: the deck runs out and is rebuilt
    for v, p in ((0, 1), (0, 2)):
        assert group_of(s, v, p) == ({"dragon": 1, "kraken": 1}, 0, 1)
    # each drawer saw its own card, so it knows the other's
    assert s.known_cards(2, 1) == counts({"kraken": 1}) and s.known_cards(1, 2) == counts({"dragon": 1})
    assert not any(s.fresh)
    row = parts(s, 0)
    assert row["maybe_count"][1] == row["maybe_count"][2] == pytest.approx(0.2)
    for p in range(3):
        assert_world_replays(s, p, s.resample_hidden(p, np.random.default_rng(p)))


@pytest.mark.parametrize("seat", range(4))
def test_an_older_attack_that_changed_nothing_is_remembered(seat):
    """Player 0 pranks player 1 or player 2 (neither has a star: nothing happens); then player 1
    pranks player 3. The last attack is the same; each player's last attack made is not."""
    obs = []
    for first in ("target the player 1 seat clockwise", "target the player 2 seats clockwise"):
        s = rig(4, hands=[{"cyclops": 2}, {"kraken": 2}, {"star": 1}, {}])
        for move in ("play 2 cyclopes", first, "play 2 krakens", "target the player 2 seats clockwise"):
            act(s, move)
        assert s.last_attack == [ID["kraken"], 2, 1, 3]
        row = parts(s, seat)
        me0 = (0 - seat) % 4
        assert row["attack_made"][me0][ATTACK_KINDS.index("prank")] == 1
        assert row["attack_made_on"][me0][((1 if "1 seat" in first else 2) - seat) % 4] == 1
        assert row["attack_made_on"][(1 - seat) % 4][(3 - seat) % 4] == 1
        obs.append(s.observation(seat))
    assert not np.array_equal(*obs)


def test_different_players_turning_the_same_curse_on_the_same_victim_read_differently():
    """A Skull drawn by player 0 goes round: 0 -> 1 -> 3 -> 2, or 0 -> 3 -> 1 -> 2. Both wand
    holders spent their pairs either way; only who turned it on player 2 differs."""
    routes = {3: ("target the player 1 seat clockwise", "target the player 2 seats clockwise",
                  "target the player 3 seats clockwise"),
              1: ("target the player 3 seats clockwise", "target the player 2 seats clockwise",
                  "target the player 1 seat clockwise")}
    obs = {}
    for last_turner, targets in routes.items():
        s = rig(4, hands=[{"magic_wand": 2}, {"magic_wand": 2}, {}, {"magic_wand": 2}],
                display=[(0, 0), (0, 0), (2, 0), (0, 0)], top=["skull"], draw_first=True)
        for target in targets:
            act(s, "cancel and turn the curse with 2 magic wands")
            act(s, target)
        assert s.current_player == 2 and s.stack[-1]["by"] == last_turner
        obs[last_turner] = [s.observation(q) for q in range(4)]
        for q in range(4):
            row = parts(s, q)
            assert row["curse_turned_by"][(last_turner - q) % 4] == 1 and row["curse_turned_by"].sum() == 1
            assert row["context_card"][ID["skull"]] == 1
    for q in range(4):
        assert not np.array_equal(obs[1][q], obs[3][q])


# before the 2026-12-01 changes (groups; second groups), the 2026-12-02 one (the others'
# knowledge of my hand) and the 2026-12-06 one (generations)
@pytest.mark.parametrize("size", [180, 238, 268, 344])
def test_models_trained_on_the_older_observation_are_refused(size):
    from kabenvs.agents.policy import ModelLoadError, check_compatible, game_metadata

    game = CabulaGame(num_players=2)
    assert game.observation_size == 465
    old = {**game_metadata(game), "observation_size": size}
    with pytest.raises(ModelLoadError, match=f"observation size {size}.*differs in: observation_size"):
        check_compatible(old, game)


def two_losses(cauldron_first: bool, then: tuple[str, ...] = ()):
    """Four players. Player 0 looks at player 2's hand ({star, minotaur, cauldron} after taking the
    wand); player 1 takes a card from it with one crystal ball, unseen by player 0, after or before
    player 0's two cauldrons return player 2's two displayed stars to the hand; then player 3
    takes one the same way. With the cauldrons between the two losses, player 0 knows that at most
    one of those two stars went in the second loss; with them before both, it does not. The public
    table ends the same, and so does the merged group ({3 stars, minotaur, cauldron, 2 unknown}, 5)."""
    s = rig(4, hands=[{"crystal_ball": 2, "cauldron": 2}, {"crystal_ball": 1},
                      {"star": 1, "minotaur": 1, "cauldron": 1, "magic_wand": 1}, {"crystal_ball": 1}],
            display=[(0, 0), (0, 0), (2, 0), (0, 0)])
    for move in ("play 2 crystal balls", "target the player 2 seats clockwise", "take a magic wand"):
        act(s, move)
    steal = ("play crystal ball", "target the player 1 seat clockwise")
    cauldrons = ("play 2 cauldrons", "target the player 2 seats clockwise")
    turns = [steal, ("pass",), ("pass",), cauldrons, ("pass",), ("pass",)]
    if cauldron_first:
        turns = [("pass",), ("pass",), ("pass",), cauldrons, steal, ("pass",)]
    turns.append(("play crystal ball", "target the player 3 seats clockwise"))
    for moves in turns:
        for move in moves:
            act(s, move)
    for move in then:
        act(s, move)
    return s


def test_at_most_one_certain_card_lost_unseen_is_kept_next_to_the_merged_group():
    """docs 'What is summarised', item 1: the second claim (K, |K| - 1) is kept and observed."""
    between, before = two_losses(False), two_losses(True)
    merged = ({"star": 3, "minotaur": 1, "cauldron": 1}, 2, 5)
    assert group_of(between, 0, 2) == group_of(before, 0, 2) == merged
    assert between.known_cards(0, 2) == before.known_cards(0, 2) == [0] * NUM_TYPES
    assert between.second_group(0, 2) == counts({"star": 2}) + [0, 1]
    assert before.second_group(0, 2) is None
    a, b = parts(between, 0), parts(before, 0)
    differ = [name for name in a if not np.array_equal(a[name], b[name])]
    # everything else is equal but what everyone knows of player 2's hand (the public rows, seen
    # by all: with the stars returned between the losses at least one is surely still there)
    assert differ == ["maybe2_hands", "maybe2_count", "public_hands"]
    assert between.public_groups[2] == counts({"star": 2}) + [4, 5]  # 5 of them, 4 unknown: a star
    assert before.public_groups[2] == counts({"star": 2}) + [5, 5]  # 5 of 7, 5 unknown: maybe none
    assert a["maybe2_hands"][2][ID["star"]] == pytest.approx(0.4) and a["maybe2_count"][2] == pytest.approx(0.2)
    rng = np.random.default_rng(5)
    for s in (between, before):
        for p in range(4):
            for _ in range(3):
                assert_world_replays(s, p, s.resample_hidden(p, rng))


def test_the_second_group_follows_the_same_rules_as_the_first():
    """A star played from the hand takes the second group's survivor with it (it may have been one
    of the two); then nothing sure is left of it. Without the star it stays."""
    star = two_losses(False, then=("pass", "pass", "play a star"))
    assert star.second_group(0, 2) is None
    assert group_of(star, 0, 2) == ({"star": 2, "minotaur": 1, "cauldron": 1}, 2, 4)
    kept = two_losses(False, then=("pass", "pass", "pass"))
    assert kept.second_group(0, 2) == counts({"star": 2}) + [0, 1]
    for s in (star, kept):
        for p in range(4):
            assert_world_replays(s, p, s.resample_hidden(p, np.random.default_rng(p)))
