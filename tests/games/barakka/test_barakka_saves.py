"""Barakka saves are untrusted input: every tampering is refused at load, naming the field."""

from __future__ import annotations

import json
import random

import pytest

from kabenvs.core.errors import ConfigError
from kabenvs.core.game import State
from kabenvs.games.barakka import BarakkaGame


def mid_game(cfg=None, steps: int = 60):
    game = BarakkaGame(**(cfg or {}))
    s = game.new_state(11)
    rnd = random.Random(11)
    for _ in range(steps):
        s.apply(rnd.choice(s.legal_actions()))
    return game, s


def saved(state, edit, keep_start: bool = False) -> dict:
    """The state's save with ``edit`` applied to its fields (the start dropped unless kept, so
    the field checks, not the replay from the start, must catch the tampering)."""
    data = json.loads(state.to_json())
    if not keep_start:
        data["state"]["start"] = None
    edit(data["state"])
    return data


def dup_card(f):
    """One card type once too often, another once too rarely (the count of cards stays right)."""
    top = f["piles"][0][-1]
    j = next(j for j, x in enumerate(f["decks"][0]) if x != top)
    f["decks"][0][j] = top


def set_(key, value):
    def edit(f):
        f[key] = value
    return edit


TAMPERINGS = [
    ("duplicate card", dup_card, "is there"),
    ("card in two zones", lambda f: f["seqs"][0][0].append(f["decks"][0].pop()) or f["piles"][0].append(f["seqs"][0][0][-1]), "time(s)"),
    ("negative tile count", lambda f: f["tile_supply"].__setitem__(0, -1), "tile_supply"),
    ("tile count over the supply", lambda f: f["tiles"][1].__setitem__(2, 7), "tiles[1]"),
    ("out-of-range token seat", set_("token", 5), "token"),
    ("out-of-range held_src", set_("held_src", 4), "held_src"),
    ("card type out of range", lambda f: f["decks"][0].__setitem__(0, 99), "decks[0]"),
    ("wrong type: turn as a string", set_("turn", "12"), "turn"),
    ("wrong type: bool as a count", lambda f: f["finished"][0].__setitem__(0, True), "finished[0]"),
    ("wrong type: seqs a dict", set_("seqs", {"0": []}), "seqs"),
    ("unknown phase", set_("phase", "bid"), "phase"),
    ("turn past the cap", set_("turn", 10_000), "turn"),
    ("sequence of six cards", lambda f: f["seqs"][0].__setitem__(0, [0, 1, 2, 3, 4, 5]), "seqs[0][0]"),
    ("missing field", lambda f: f.pop("piles"), "piles"),
    ("extra field", set_("bonus", 3), "bonus"),
    ("mismatched player count: seqs", lambda f: f["seqs"].append([[] for _ in range(5)]), "seqs"),
    ("mismatched player count: held", lambda f: f["held"].pop(), "held"),
    ("mismatched player count: tiles", lambda f: f["tiles"].append([0] * 5), "tiles"),
    ("too few sequence positions", lambda f: f["seqs"][1].pop(), "seqs[1]"),
    ("three discard piles", lambda f: f["piles"].append([]), "piles"),
    ("truncated flag mid-game", set_("truncated", True), "truncated"),
    ("sadid stack without the variant", set_("sadid_stack", [0, 1]), "sadid_stack"),
    ("Desert Rose without El-Karim", set_("rose", 0), "rose"),
    ("opponent holding a card out of turn", lambda f: f["held"][1 - f["current_player"]].append(f["decks"][0].pop()), "held["),
]


@pytest.mark.parametrize("name,edit,field", TAMPERINGS, ids=[t[0] for t in TAMPERINGS])
def test_tampered_save_is_refused_naming_the_field(name, edit, field):
    game, s = mid_game()
    State.from_json(saved(s, lambda f: None), game=game)  # the untampered save loads
    with pytest.raises(ConfigError, match=None) as err:
        State.from_json(saved(s, edit), game=game)
    assert field in str(err.value), str(err.value)
    with pytest.raises(ConfigError):  # with its start too (then also the replay would refuse it)
        State.from_json(saved(s, edit, keep_start=True), game=game)


def test_truncated_save_text_is_refused():
    game, s = mid_game()
    text = s.to_json()
    with pytest.raises(ConfigError, match="not JSON"):
        State.from_json(text[: len(text) // 2], game=game)


def test_save_of_another_player_count_is_refused():
    game, s = mid_game()
    solo = BarakkaGame(num_players=1)
    with pytest.raises(ConfigError, match="config"):
        State.from_json(s.to_json(), game=solo)
    data = json.loads(game.new_state(3).to_json())
    data["config"]["num_players"] = 1  # the config says one player, the fields hold two
    data["state"]["start"] = None
    with pytest.raises(ConfigError, match="phase|removed|decks|seqs|held|piles"):
        State.from_json(data)


def test_tampered_sequences_that_once_crashed_later_are_refused_at_load():
    """Before field checks a save whose player had 4 sequence positions loaded, and the game
    crashed with an IndexError hundreds of steps later when a card of the fifth colour came."""
    game, s = mid_game()
    with pytest.raises(ConfigError, match=r"seqs\[0\]"):
        State.from_json(saved(s, lambda f: (f["decks"][0].extend(f["seqs"][0][-1]), f["seqs"][0].pop())), game=game)


@pytest.mark.parametrize("cfg", [{}, {"num_players": 1, "el_basr": True, "el_portugues": True},
                                 {"el_karim": True, "sadid_al_aziz": True, "el_portugues": True, "el_basr": True}])
def test_every_state_of_random_games_passes_its_field_checks(cfg):
    game = BarakkaGame(**cfg)
    rnd = random.Random(2)
    for seed in range(3):
        s = game.new_state(seed)
        while True:
            assert s.check_fields() == [] and s.invariants() == [], (s.check_fields(), s.invariants())
            if s.current_player is None:
                break
            s.apply(rnd.choice(s.legal_actions()))
        back = State.from_json(s.to_json(), game=game)
        assert back.to_json() == s.to_json()
