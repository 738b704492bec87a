"""The cards hidden from a seat, counted by generation (kabenvs/games/cabula/generations.py; docs
item 8): the rules on rigged deals, the bounds over whole random games, saves."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from kabenvs.core.errors import ConfigError
from kabenvs.core.game import State
from kabenvs.games.cabula import CabulaGame
from kabenvs.games.cabula import generations as GEN
from tests.games.cabula.cabula_helpers import ID, act, rig

T = 14
STAR, DOUBLE = ID["star"], ID["double_star"]


def bounds(s, v: int, slot: int, card: int) -> tuple[int, int]:
    row = s.gen_free[v][slot]
    return row[card], row[T + card]


def test_a_card_seen_leaving_a_hand_of_one_generation_is_counted_exactly():
    s = rig(3, hands=[{"star": 1}, {"star": 1, "dragon": 1}, {"dragon": 1}], turn=0)
    hidden = bounds(s, 2, 1, STAR)  # seat 2's start generation: every star it cannot see
    assert hidden[0] == hidden[1] == 26 - 0
    act(s, "play a star")  # player 0 held start cards only: one start star fewer, surely
    assert bounds(s, 2, 1, STAR) == (25, 25)
    assert bounds(s, 0, 1, STAR) == (25, 25)  # (player 0's own count: its star was never hidden from it)


def test_a_returned_star_makes_a_later_star_one_of_two_kinds():
    """A cauldron returns player 0's displayed star in plain view (a card seen going in: slot 0);
    when player 0 plays a star again, it may have been that one or a start card: each kind's
    least drops by one, the most stays."""
    s = rig(3, hands=[{"star": 2}, {"cauldron": 1}, {"dragon": 1}], display=[(1, 0), (0, 0), (0, 0)], turn=1)
    before = bounds(s, 2, 1, STAR)
    act(s, "play cauldron")
    act(s, "target the player 2 seats clockwise")  # player 0, two seats from player 1
    assert bounds(s, 2, 0, STAR) == (1, 1) and s.gen_where[2 * 3 + 0] & GEN.SEEN
    act(s, "pass")  # player 2
    act(s, "play a star")  # player 0
    assert bounds(s, 2, 0, STAR) == (0, 1)
    assert bounds(s, 2, 1, STAR) == (before[0] - 1, before[1])


def test_a_rebuilt_deck_is_a_new_generation_and_the_third_merges_the_oldest():
    s = rig(2, hands=[{"parchment": 1}, {"dragon": 1}], top=["kraken"], deck_rest=False, turn=0)
    assert len(s.gen_free[0]) == 2  # slot 0 and the start
    pile = s.discard[:]
    act(s, "play +2 parchment")  # draws the kraken, the deck runs out: rebuilt from the pile
    assert len(s.gen_free[0]) == 3
    for v in range(2):
        newest = s.gen_free[v][2]
        assert newest[:T] == newest[T:]  # the pile: known exactly
    assert sum(s.gen_free[1][2][T:]) == sum(pile) + 1 - 1  # the parchment went in, one card drawn
    where = s.gen_where[1 * 2 + 0]
    assert where == 0b110  # player 0 holds start cards and (its second draw) the new generation
    # the merge itself: slots 1 and 2 add, masks follow
    slots = [[0] * 28, [1] * 28, [2] * 28, [3] * 28]
    s.gen_free = [[row[:] for row in slots] for _ in range(2)]
    s.gen_where = [0, 0b1010, 0b0100, 0]
    GEN.rebuilt(s, [5] * T)
    assert s.gen_free[0] == [[0] * 28, [3] * 28, [3] * 28, [5] * 28]
    assert s.gen_where == [0, 0b0110, 0b0010, 0]


def test_a_take_between_others_carries_the_victims_generations():
    s = rig(3, hands=[{"crystal_ball": 1}, {"dragon": 1}, {"star": 1}], display=[(0, 0), (0, 0), (0, 0)], turn=0)
    s.gen_where[2 * 3 + 1] = GEN.SEEN | 2  # (planted: seat 2 saw a card go into player 1's hand)
    s.gen_where[2 * 3 + 0] = 2
    act(s, "play crystal ball")
    act(s, "target the player 1 seat clockwise")  # player 0 takes player 1's only card, unseen by seat 2
    assert s.gen_where[2 * 3 + 0] == GEN.SEEN | 2
    # player 1's hand was empty, then its turn's draw: the current generation only, no seen card
    assert s.hand_size(1) == 1 and s.gen_where[2 * 3 + 1] == 2
    assert not s.invariants()


def test_a_curse_drawn_is_one_fewer_of_the_current_generation_for_everyone():
    s = rig(2, hands=[{"dragon": 1}, {"kraken": 1}], top=["skull"], turn=0, draw_first=False)
    before = [bounds(s, v, 1, ID["skull"]) for v in range(2)]
    act(s, "play dragon")  # supplies: draws the skull, shown
    assert [bounds(s, v, 1, ID["skull"]) for v in range(2)] == [(lo - 1, hi - 1) for lo, hi in before]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_whole_random_games_keep_every_bound_true(players):
    """Full-length games (no turn cap): the checks of ``GEN.problems`` after every step (the
    true hidden cards within all slots' bounds, the deck within the current generation's),
    and more than one generation reached."""
    game = CabulaGame(num_players=players)
    most = 0
    for seed in range(6):
        s = game.new_state(seed)
        r = random.Random(seed)
        while s.current_player is not None:
            s.apply(r.choice(s.legal_actions()))
            assert not GEN.problems(s), (seed, len(s.history), GEN.problems(s))
        most = max(most, len(s.gen_free[0]) - 1)
    assert most >= 2


def test_the_generations_are_part_of_a_save_and_checked_on_load():
    game = CabulaGame(num_players=3)
    s = game.new_state(3)
    r = random.Random(3)
    while not s.deck_cap_known:
        s.apply(r.choice(s.legal_actions()))
    data = json.loads(s.to_json())
    loaded = State.from_json(json.dumps(data))
    assert loaded.gen_free == s.gen_free and loaded.gen_where == s.gen_where
    # an older save, from before the generations: rebuilt from its start by replaying its history
    old = json.loads(s.to_json())
    for key in ("gen_free", "gen_where"):
        del old["state"][key]
        del old["state"]["start"]["state"][key]
    upgraded = State.from_json(json.dumps(old))
    assert upgraded.gen_free == s.gen_free and np.array_equal(upgraded.observation(2), s.observation(2))
    # tampered: one line naming the field and what it must hold
    for key, value, message in (
        ("gen_free", [[[0] * 28]] * 3, r"gen_free: must hold per player the same number \(2-4\) of slots"),
        ("gen_free", "x", "gen_free: must hold"),
        ("gen_where", [0] * 8, r"gen_where: must hold 9 masks"),
        ("gen_where", [99] * 9, r"gen_where: must hold 9 masks 0\.\.7"),
    ):
        bad = json.loads(json.dumps(data))
        bad["state"][key] = value
        with pytest.raises(ConfigError, match=message):
            State.from_json(json.dumps(bad))
    bad = json.loads(json.dumps(data))
    bad["state"]["gen_free"][0][1][T + STAR] = 0  # no start star hidden any more: not true
    with pytest.raises(ConfigError, match="gen_free"):
        State.from_json(json.dumps(bad))


def test_a_slot_only_one_hand_may_hold_is_in_that_hand_and_the_text_view_says_so():
    s = rig(3, hands=[{"star": 1, "dragon": 1}, {"kraken": 1}, {"cyclops": 1}], turn=2)
    # (planted) seat 2 after a rebuild: of the start's cards one double star at least is still
    # hidden, and only player 0 may still hold start cards; the current deck's slot never counts
    s.gen_free[2] = [[0] * 28, [0] * 28, [0] * 28]
    s.gen_free[2][1][DOUBLE] = s.gen_free[2][1][T + DOUBLE] = 1
    s.gen_free[2][2][STAR] = s.gen_free[2][2][T + STAR] = 3
    s.gen_where[2 * 3 + 0], s.gen_where[2 * 3 + 1] = 0b110, 0b100
    assert GEN.implied(s, 2, 0)[DOUBLE] == 1 and not any(GEN.implied(s, 2, 1))
    assert "by counting at least 1 double star" in s.render(2).splitlines()[1]
    s.gen_where[2 * 3 + 1] = 0b110  # player 1 may hold start cards too: nothing follows
    assert not any(GEN.implied(s, 2, 0))


def test_a_look_takes_the_hand_out_of_its_generations_and_counting_then_places_the_rest():
    """The traced case of docs item 8: after seat 2's look at player 1's hand (no double star
    there) and two rebuilt decks, the start's last hidden double star can only be in player 0's
    hand; the text view says so. In the other game (the double star discarded in view at the
    branch) nothing follows."""
    from tests.games.cabula.test_cabula_recall import _across_hands_pair

    a, b = _across_hands_pair()
    assert GEN.implied(a, 2, 0)[DOUBLE] == 1 and not GEN.implied(b, 2, 0)[DOUBLE]
    assert a.hands[0][DOUBLE] == 1
    assert "by counting at least 1 double star" in a.render(2).splitlines()[1]
    # a look on a rigged deal: the hand holds the seen slot only, its cards counted there
    s = rig(3, hands=[{"crystal_ball": 2}, {"star": 2, "kraken": 1}, {"cyclops": 1}], turn=0)
    act(s, "play 2 crystal balls")
    act(s, "target the player 1 seat clockwise")
    assert s.gen_where[0 * 3 + 1] == GEN.SEEN
    assert bounds(s, 0, 0, STAR) == (2, 2) and bounds(s, 0, 0, ID["kraken"]) == (1, 1)
    act(s, "take a kraken")  # the taker's own take: one kraken fewer among the seen cards, exactly
    assert bounds(s, 0, 0, ID["kraken"]) == (0, 0)
