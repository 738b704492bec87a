"""Saved states are untrusted input: every tampering is refused with a ConfigError naming the field."""

from __future__ import annotations

import random

import pytest

from kabenvs.core.errors import ConfigError
from kabenvs.core.game import State
from kabenvs.games.alakazum import AlakazumGame


def mid_game(n=3, steps=150, seed=4):
    game = AlakazumGame(num_players=n)
    s = game.new_state(seed)
    rnd = random.Random(seed)
    for _ in range(steps):
        s.apply(rnd.choice(s.legal_actions()))
    assert s.current_player is not None
    return s


def dup_card(d):
    d["state"]["hands"][0].append(d["state"]["forest"][0])


def swap_card_for_a_copy(d):
    # same number of cards, but one is there twice and another nowhere
    f = d["state"]["forest"]
    f[1] = f[0]


def move_card_into_two_zones(d):
    d["state"]["market"].append(d["state"]["teams"][1][0])


def setitem(*path_value):
    *path, value = path_value

    def tamper(d):
        x = d["state"]
        for key in path[:-1]:
            x = x[key]
        x[path[-1]] = value
    return tamper


def delete(name):
    def tamper(d):
        del d["state"][name]
    return tamper


def fewer_players(d):
    d["config"]["num_players"] = 2


def whole_deck_set_without_its_card(d):
    """A set over the whole forest deck (what a reshuffle leaves) naming a card held in a hand."""
    x = d["state"]
    x["forest_sets"][0] = [len(x["forest"]), [x["hands"][1][0]], [], 0]


TAMPERINGS = [
    ("duplicate card", dup_card, "forest"),
    ("a card twice, another missing", swap_card_for_a_copy, "forest"),
    ("a character in a team and the market", move_card_into_two_zones, "market"),
    ("negative count", setitem("exchanges", 0, -3), "exchanges[0]"),
    ("negative explore count", setitem("explore_left", -1), "explore_left"),
    ("level out of range", setitem("level", 5, 3), "level[5]"),
    ("out-of-range seat", setitem("turn_player", 7), "turn_player"),
    ("out-of-range pending seat", setitem("pending", "p", 9), "pending.p"),
    ("unknown decision", setitem("pending", "k", "dance"), "pending"),
    ("wrong type", setitem("turn", "3"), "turn"),
    ("wrong type in a list", setitem("hands", 1, 0, "x"), "hands[1][0]"),
    ("bool for an int", setitem("first_player", True), "first_player"),
    ("card id out of range", setitem("market", [500]), "market[0]"),
    ("stage unknown", setitem("stage", "lunch"), "stage"),
    ("known list too short", setitem("known", [[]]), "known"),
    ("missing field", delete("market"), "market"),
    ("extra field", setitem("bonus", 1), "bonus"),
    ("truncated mid-game", setitem("truncated", True), "truncated"),
    ("over mid-game", setitem("over", True), "pending"),
    ("mismatched player count", fewer_players, "one per player"),
    ("deck set larger than the cards", setitem("forest_sets", 0, [500, [], [], 0]), "forest_sets[0][0]"),
    ("whole-deck set naming a card not in the deck", whole_deck_set_without_its_card, "forest_sets[0]"),
]


@pytest.mark.parametrize("what, tamper, field", TAMPERINGS, ids=[t[0] for t in TAMPERINGS])
def test_tampered_saves_are_refused_naming_the_field(what, tamper, field):
    s = mid_game()
    while s.current_player == 2:  # a seat of 2 players too: the player count is what differs
        s.apply(s.legal_actions()[0])
    d = s.to_dict()
    State.from_json(d)  # the untouched save loads
    tamper(d)
    with pytest.raises(ConfigError) as err:
        State.from_json(d)
    assert field in str(err.value), str(err.value)


def test_every_field_is_checked_in_random_positions():
    for n in (2, 5):
        s = mid_game(n, steps=80, seed=n)
        assert s.check_fields() == [] and s.invariants() == []
        assert State.from_json(s.to_json()).to_json() == s.to_json()


PUBLIC = ("public_known", "public_groups", "public_joint", "public_capped")


def test_a_save_from_before_the_public_rows_rebuilds_them_from_its_history():
    s = mid_game(n=4, steps=300, seed=9)
    assert any(s.public_known) and any(s.public_groups)  # something to rebuild
    data = s.to_dict()
    for key in PUBLIC:  # as saved by the version before them
        del data["state"][key]
        del data["state"]["start"]["state"][key]
    loaded = State.from_json(data)
    for key in PUBLIC:
        assert getattr(loaded, key) == getattr(s, key), key
    assert (loaded.observation(2) == s.observation(2)).all()
    del data["state"]["start"]  # nothing to replay: what everyone knows starts empty
    bare = State.from_json(data)
    assert bare.public_known == [[]] * 4 and bare.public_capped == [[]] * 4


def test_public_rows_are_checked():
    data = mid_game().to_dict()
    data["state"]["public_known"] = data["state"]["public_known"][:2]
    with pytest.raises(ConfigError, match="public_known: 2 entries, must be 3"):
        State.from_json(data)
    two = mid_game(n=2).to_dict()
    assert all(two["state"][key] == [] for key in PUBLIC)


def test_a_world_with_a_reshuffle_script_saves_loads_and_replays_to_itself():
    """A resampled world's start scripts its last reshuffle (resample.py): the script is saved,
    checked, and replaying the world from its start gives the world again."""
    import numpy as np

    s = mid_game(n=2, steps=120, seed=1)
    world = s.resample_hidden(s.current_player, np.random.default_rng(3))
    assert any(o is not None for o in world.start["state"]["shuffles"])  # the premise: one is scripted
    loaded = State.from_json(world.to_json())
    assert loaded.to_json() == world.to_json()
    replay = world.replay_start()
    for a in world.replay_actions():
        replay.apply(a)
    assert replay.forest == world.forest and replay.hands == world.hands


def test_a_save_from_before_the_chance_scripts_loads_with_none():
    s = mid_game(n=3, steps=200, seed=2)
    data = s.to_dict()
    for key in ("shuffles", "rolls"):
        del data["state"][key]
        del data["state"]["start"]["state"][key]
    loaded = State.from_json(data)
    assert loaded.shuffles == [] == loaded.rolls and loaded.to_json() == s.to_json()


@pytest.mark.parametrize("bad", [[[0, 0, 1]], [[1, 2]], [["0", 1]], [5], "none"])
def test_a_malformed_reshuffle_script_is_refused_naming_the_field(bad):
    data = mid_game().to_dict()
    data["state"]["shuffles"] = bad
    with pytest.raises(ConfigError, match="shuffles"):
        State.from_json(data)


def test_a_reshuffle_script_that_does_not_fit_the_deck_is_refused_on_load():
    import numpy as np

    s = mid_game(n=2, steps=120, seed=1)
    data = s.resample_hidden(s.current_player, np.random.default_rng(3)).to_dict()
    script = data["state"]["start"]["state"]["shuffles"]
    script[next(i for i, x in enumerate(script) if x is not None)] = [0, 1, 2, 3, 4]
    with pytest.raises(ConfigError, match="shuffles: the scripted reshuffle orders 5 cards"):
        State.from_json(data)


@pytest.mark.parametrize("bad", [[7], [0], ["3"], [True], 3])
def test_a_malformed_dice_script_is_refused_naming_the_field(bad):
    data = mid_game().to_dict()
    data["state"]["rolls"] = bad
    with pytest.raises(ConfigError, match="rolls"):
        State.from_json(data)
