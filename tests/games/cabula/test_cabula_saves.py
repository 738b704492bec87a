"""Cábula saves are untrusted input: every tampered field is refused with a ConfigError naming it."""

from __future__ import annotations

import json
import random

import pytest

from kabenvs.core.errors import ConfigError
from kabenvs.core.game import State
from kabenvs.games.cabula import CabulaGame
from kabenvs.games.cabula.cards import DRAGON, STAR


def mid_game_save(n: int = 3) -> dict:
    """A position some way into a random game, with cards in every zone and a decision pending."""
    game = CabulaGame(num_players=n)
    s = game.new_state(4)
    r = random.Random(4)
    for _ in range(40):
        s.apply(r.choice(s.legal_actions()))
    assert s.current_player is not None and s.stack
    return json.loads(s.to_json())


def _set(path, value):
    def tamper(st):
        *head, last = path
        for key in head:
            st = st[key]
        st[last] = value(st[last]) if callable(value) else value
    return tamper


def _delete(key):
    return lambda st: st.pop(key)


def _credit_unknown_card(st):
    """Row 1 (player 0 about player 1): the shadow credits a card of the hand the real row lacks."""
    c = next(c for c, k in enumerate(st["hands"][1]) if k and not (st["known"][1] or [0] * 14)[c])
    st["shadow_known"][1] = [int(t == c) for t in range(14)]


TAMPERINGS = {  # name -> (tampering of the saved fields, text the refusal must name)
    "a duplicated card in a hand": (_set(["hands", 1, DRAGON], lambda k: k + 1), "hands"),
    "ten extra cards in a hand": (_set(["hands", 2, STAR], lambda k: k + 10), "hands"),
    "a card missing from the deck": (_set(["deck"], lambda d: d[:-1]), "deck"),
    "a card type that does not exist": (_set(["deck", 0], 99), "deck"),
    "a negative count": (_set(["discard", 3], -1), "discard"),
    "a negative display": (_set(["display", 0, 0], -2), "display[0]"),
    "a curse in a hand": (_set(["hands", 0, 2], 1), "hands[0]"),
    "an out-of-range turn seat": (_set(["turn"], 7), "turn"),
    "an out-of-range winner": (_set(["winner"], -1), "winner"),
    "a turn count past max_turns": (_set(["turn_count"], 10_000), "turn_count"),
    "a count of the wrong type": (_set(["hands", 0, 0], 1.5), "hands[0]"),
    "a flag of the wrong type": (_set(["deck_cap_known"], "yes"), "deck_cap_known"),
    "a knowledge row of the wrong type": (_set(["known", 1], "all"), "known[1]"),
    "a floor row too short": (_set(["deck_floor", 1], [0] * 5), "deck_floor[1]"),
    "a bad last attack": (_set(["last_attack"], [5, 9, 0, 1]), "last_attack"),
    "a bad last play": (_set(["last_play"], [0, 20, 1]), "last_play"),
    "a bad chance script": (_set(["chance"], ["a star"]), "chance"),
    "an unknown pending effect": (_set(["stack"], lambda st: st + [{"k": "fly"}]), "stack"),
    "a pending effect with a seat out of range": (_set(["stack", -1, "p"], 9), "stack"),
    "a decision that is not current_player's": (_set(["current_player"], lambda p: (p + 1) % 3), "stack"),
    "a missing field": (_delete("last_attack"), "last_attack"),
    "an extra field": (_set(["bonus"], 1), "bonus"),
    "truncated mid-game": (_set(["truncated"], True), "truncated"),
    "a display for another player count": (_set(["display"], lambda d: d[:2]), "display"),
    "hands for another player count": (_set(["hands"], lambda h: h + [[0] * 14]), "hands"),
    "a knowledge table for another player count": (_set(["known"], lambda k: k[:4]), "known"),
    "a group row too short": (_set(["groups", 1], [1, 2]), "groups[1]"),
    "a group table for another player count": (_set(["groups"], lambda g: g[:4]), "groups"),
    "a group that claims cards the hand cannot hold": (_set(["groups", 1], [0] * 14 + [0, 5]), "groups[1]"),
    "a second group row too short": (_set(["groups2", 1], [1, 2]), "groups2[1]"),
    "a second group with unknown cards": (_set(["groups2", 1], [1] + [0] * 13 + [1, 1]), "groups2[1]"),
    "a negative fresh count": (_set(["fresh", 1], -1), "fresh"),
    "fresh cards without a rebuilt deck": (_set(["fresh", 1], 1), "fresh"),
    "a bad attack record": (_set(["attacks", 0], [99, 0]), "attacks"),
    "a shadow row of the wrong type": (_set(["shadow_known", 1], "all"), "shadow_known[1]"),
    "a shadow table for another player count": (_set(["shadow_groups"], lambda g: g[:4]), "shadow_groups"),
    "a shadow claiming a card the hand lacks": (_set(["shadow_known", 1], [0] * 13 + [9]), "shadow_known[1]"),
    "a shadow crediting a card the viewer does not know": (_credit_unknown_card, "shadow_known[1]"),
    "a shadow group with nothing to claim": (_set(["shadow_groups", 1], [0] * 14 + [0, 5]), "shadow_groups[1]"),
    "a negative shadow fresh count": (_set(["shadow_fresh", 1], -1), "shadow_fresh"),
    "fresh cards in the shadow without a rebuilt deck": (_set(["shadow_fresh", 1], 1), "shadow_fresh"),
    "cards spent from a deck never rebuilt": (_set(["shadow_spent", 1], [1] + [0] * 13), "shadow_spent"),
    "draws from a deck never rebuilt": (_set(["rebuilt_drawn", 1, DRAGON], 1), "rebuilt_drawn"),
    "draws for another player count": (_set(["rebuilt_drawn"], lambda d: d[:2]), "rebuilt_drawn"),
}


@pytest.mark.parametrize("name", sorted(TAMPERINGS))
def test_a_tampered_save_is_refused_naming_the_field(name):
    tamper, field = TAMPERINGS[name]
    data = mid_game_save()
    tamper(data["state"])
    with pytest.raises(ConfigError) as err:
        State.from_json(data)
    assert field in str(err.value), str(err.value)


def test_an_untouched_save_loads_and_a_tampered_start_is_refused():
    data = mid_game_save()
    state = State.from_json(data)
    assert state.to_json() == json.dumps(data, sort_keys=True, separators=(",", ":"))
    data["state"]["start"]["state"]["hands"][0][DRAGON] += 1
    with pytest.raises(ConfigError, match="hands"):
        State.from_json(data)


def test_a_two_player_save_whose_shadow_is_not_the_real_row_is_refused():
    """With two players the shadow is the other player's row itself: a save where it knows less
    (still a true claim, and among the real row's cards) is refused all the same."""
    game = CabulaGame(num_players=2)
    s = game.new_state(1)
    r = random.Random(1)
    while not any(row is not None for row in s.known):
        s.apply(r.choice(s.legal_actions()))
    i = next(i for i, row in enumerate(s.known) if row is not None)
    data = json.loads(s.to_json())
    assert State.from_json(data).shadow_known[i] == s.known[i]
    data["state"]["shadow_known"][i] = None
    with pytest.raises(ConfigError, match=rf"shadow_\*\[{i}\]: with two players the shadow is the real row"):
        State.from_json(data)


PUBLIC = ("public_known", "public_groups", "public_groups2", "public_fresh", "public_cap")


def _long_game(n: int, seed: int):
    """A random game played until the public rows hold something and the deck was rebuilt."""
    game = CabulaGame(num_players=n)
    s = game.new_state(seed)
    r = random.Random(seed)
    while s.current_player is not None and not (s.deck_cap_known and any(s.public_fresh)
                                                and any(g is not None for g in s.public_groups)):
        s.apply(r.choice(s.legal_actions()))
    assert s.current_player is not None, "the game ended before the public rows filled"
    return s


def test_a_save_from_before_the_public_rows_rebuilds_them_from_its_history():
    s = _long_game(4, 11)
    data = json.loads(s.to_json())
    for key in PUBLIC:  # as saved by the version before them
        del data["state"][key]
        del data["state"]["start"]["state"][key]
    loaded = State.from_json(json.dumps(data))
    for key in PUBLIC:
        assert getattr(loaded, key) == getattr(s, key), key
    assert (loaded.observation(1) == s.observation(1)).all()
    assert json.loads(loaded.to_json()) == json.loads(s.to_json())  # saved again: the new format
    # without a start it cannot be replayed: the rows start empty (sound, if less informed)
    del data["state"]["start"]
    bare = State.from_json(json.dumps(data))
    assert bare.public_known == [None] * 4 and bare.public_fresh == [0] * 4
    # a tampered older save is still refused in one line naming what is wrong
    data = json.loads(s.to_json())
    for key in PUBLIC:
        del data["state"][key]
        del data["state"]["start"]["state"][key]
    data["state"]["history"][3] = 10**6
    with pytest.raises(ConfigError, match=r"history: must be a list of action ids"):
        State.from_json(json.dumps(data))


def test_two_player_saves_have_no_public_rows():
    data = mid_game_save(2)
    assert all(data["state"][key] == [] for key in PUBLIC)
    data["state"]["public_fresh"] = [0, 0]
    with pytest.raises(ConfigError, match="public_fresh: must hold 0"):
        State.from_json(json.dumps(data))
