"""Alakazum!'s seat views (narration.py, table.py) on rigged tables: the events a move caused, told
by card name and only to the seats that saw them, and the table a seat may draw."""

from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest

from kabenvs.games.alakazum import AlakazumGame

from .helpers import Table, do


def dice(state, rolls: list[int]) -> None:
    """Give ``state`` a generator whose next die rolls are ``rolls`` (a real generator, unlike
    ``script_dice``: a clone, and so the narration's replay, rolls the same)."""
    for seed in range(100_000):
        rng = np.random.default_rng(seed)
        if all(int(rng.integers(1, 7)) == r for r in rolls):
            state.rng = np.random.default_rng(seed)
            state.touch()
            return
    raise AssertionError(f"no seed rolls {rolls}")


def step(state, name: str) -> tuple:
    """Apply the move named ``name``; returns (before, action) for ``state.narrate``."""
    legal = {state.action_name(a): a for a in state.legal_actions()}
    assert name in legal, f"{name!r} not legal at {state.decision()}: {sorted(legal)}"
    before = state.clone()
    state.apply(legal[name])
    return before, legal[name]


def tale(state, before, action, seat) -> str:
    return "\n".join(state.narrate(before, action, seat))


def test_a_forest_draw_is_named_to_its_drawer_only_and_the_character_with_its_stats():
    t = Table(2)
    t.arrange(teams={0: [("Olentzero", 0), ("Moura", 0)], 1: [("Penitente", 0)]},
              forest_top=["Barretina", "Fallera"])
    s = t.at_alakazum(1)
    before, a = step(s, "pass")  # player 1 ends the turn: player 0 explores two cards
    mine, theirs = tale(s, before, a, 0), tale(s, before, a, 1)
    assert "player 0 finds Barretina in the forest" in mine
    assert "player 0 finds a hand card in the forest (hidden)" in theirs and "Barretina" not in theirs
    for text in (mine, theirs, tale(s, before, a, None)):
        assert text.startswith("player 1: pass\n")
        assert "player 0's turn" in text
        assert ("Fallera (VAL, level A: combat 1, resistance 1, culture 1) appears in the forest: player 0 "
                "must fight it") in text


def test_the_combat_the_roll_and_the_hypnosis_result_are_narrated():
    t = Table(2)
    t.arrange(teams={0: [("Olentzero", 0)], 1: [("Moura", 0)]}, forest_top=["Fallera"])
    s = t.begin_turn(0)
    assert s.pending["k"] == "forest_combat_potions"
    dice(s, [5])
    before, a = step(s, "pass")
    for seat in (None, 0, 1):
        lines = s.narrate(before, a, seat)
        assert lines == [
            "player 0: pass",
            "Olentzero wins the combat (2 against 1) and rises to level B",
            "player 0 rolls 5 to hypnotise Fallera (resistance 1)",
            "player 0 hypnotises Fallera (die 5 against resistance 1): it joins their team at level A",
        ]


def test_a_failed_hypnosis_and_a_lost_forest_combat():
    t = Table(2)
    t.arrange(teams={0: [("Olentzero", 0)], 1: [("Moura", 0)]}, forest_top=["Vicentica"])
    s = t.begin_turn(0)
    before, a = step(s, "pass")  # 2 against Vicentica's 2: a tie goes to the forest character
    text = tale(s, before, a, 1)
    assert ("Vicentica wins the combat (2 against 2) and goes back into the forest deck, which is "
            "shuffled") in text
    assert "graveyard" not in text  # Olentzero is player 0's only character: it stays

    t = Table(2)
    t.arrange(teams={0: [("Olentzero", 0)], 1: [("Moura", 0)]}, forest_top=["Fallera"])
    s = t.begin_turn(0)
    dice(s, [1])
    step(s, "pass")
    assert s.pending["k"] == "forest_die_potions"
    before, a = step(s, "pass")
    assert s.narrate(before, a, 1) == [
        "player 0: pass",
        "the hypnosis fails (die 1 against resistance 1): Fallera goes to the graveyard"]


def test_a_trap_and_santa_claus_die_are_narrated():
    t = Table(2)
    t.arrange(teams={0: [("Olentzero", 0), ("Moura", 0)], 1: [("Penitente", 0)]},
              forest_top=["Santa Claus' Present"])
    s = t.at_alakazum(1)
    dice(s, [2])
    before, a = step(s, "pass")
    text = tale(s, before, a, 1)
    assert "player 0 falls into a trap: Santa Claus' Present" in text
    assert ("player 0 rolls 2 for Santa Claus' Present: the present explodes: a character of theirs goes to "
            "the graveyard") in text
    assert s.pending["k"] == "lose_character" and s.current_player == 0
    before, a = step(s, "character Moura")
    assert s.narrate(before, a, 1) == ["player 0: character Moura",
                                       "player 0's Moura goes to the graveyard (back to level A)"]


def test_a_card_given_away_is_named_to_the_giver_and_the_recipient_only():
    t = Table(3)
    t.arrange(teams={0: [("Olentzero", 0)], 1: [("Moura", 0)], 2: [("Penitente", 0)]},
              hands={0: ["Barretina", "Txapela"]}, forest_top=["Black Friday's Discount"])
    s = t.at_alakazum(2)
    before, a = step(s, "pass")
    assert "player 0 falls into a trap: Black Friday's Discount (gives 1 of 2 hand cards away)" in tale(
        s, before, a, 1)
    before, a = step(s, "to the player 1 seat(s) to the left")
    assert s.narrate(before, a, 2) == ["player 0: to the player 1 seat(s) to the left (player 1)"]
    before, a = step(s, "give Barretina")
    assert "player 0 gives Barretina to player 1" in tale(s, before, a, 1)
    assert "player 0 gives Barretina to player 1" in tale(s, before, a, 0)
    hidden = tale(s, before, a, 2)
    assert "Barretina" not in hidden and "player 0 gives a card to player 1 (hidden)" in hidden


def test_the_table_view_shows_stats_threshold_market_and_combat_by_name():
    t = Table(2)
    t.arrange(teams={0: [("Olentzero", 1)], 1: [("Moura", 0), ("Dolçainer", 0)]},
              hands={0: ["Combat potion +1", "Barretina"], 1: ["Magic hat 2"]},
              forest_top=["Fallera"], market=["Die potion +1", "Magic hat 1"])
    s = t.begin_turn(0)
    do(s, "play Combat potion +1")
    view = s.table_view(0)
    assert json.loads(json.dumps(view)) == view
    assert view["alakazum_threshold"] == 8
    me, other = view["players"]
    assert me["hand"] == ["Barretina"] and me["known_hand"] is None
    assert other["hand"] is None and other["hand_size"] == 1 and other["known_hand"] == []
    assert me["team"] == [{"name": "Olentzero", "key": "character:Olentzero", "culture": "EUS", "level": "B",
                           "combat": 2, "resistance": 1, "culture_points": 1, "trait": None, "broom": False}]
    assert me["alakazum_points"]["CAT"] == 2 and me["culture_points"]["CAT"] == 0
    assert view["market"] == ["Magic hat 1", "Die potion +1"]  # top first
    cb = view["combat"]
    assert cb["kind"] == "forest"
    assert cb["fighter"]["name"] == "Olentzero" and cb["target"]["name"] == "Fallera"
    assert (cb["attacker_base"], cb["attacker_total"], cb["defender_total"]) == (2, 3, 1)
    assert cb["potions"] == [{"card": "Combat potion +1", "by": 0, "on": "combat"}]
    assert view["targets"] == {}  # forest combat potions: only combat potions, and the hand holds none now
    assert s.table_view(1)["targets"] is None and s.table_view(None)["targets"] is None
    assert "Barretina" not in json.dumps(s.table_view(1))


def test_click_targets_name_the_things_on_the_table():
    t = Table(2)
    t.arrange(teams={0: [("Olentzero", 0), ("Moura", 0)], 1: [("Penitente", 0), ("Casteller", 0)]},
              hands={0: ["Magic hat 2", "Combat potion +1"]})
    s = t.at_action(0)
    targets = s.table_view(0)["targets"]
    names = {s.action_name(int(a)): key for a, key in targets.items()}
    assert names["go to the market showing Magic hat 2"] == "hand:Magic hat 2"
    assert "pass" not in names
    do(s, "fight and hypnotise")
    names = {s.action_name(int(a)): key for a, key in s.table_view(0)["targets"].items()}
    assert names == {"character Penitente": "character:Penitente",
                     "character Casteller": "character:Casteller"}


@pytest.mark.parametrize("players", [2, 3])
def test_no_leak_in_table_views_and_narration_of_random_games(players):
    """A world resampled for a seat gives it the same table view; the names of the cards in the
    other hands never appear in its narration unless it was told them (hands it can see)."""
    game = AlakazumGame(num_players=players)
    rnd = random.Random(players)
    rng = np.random.default_rng(7)
    s = game.new_state(11)
    checked = 0
    while s.current_player is not None:
        before = s.clone()
        a = rnd.choice(s.legal_actions())
        s.apply(a)
        for seat in range(players):
            for line in s.narrate(before, a, seat):
                found = re.fullmatch(r"player (\d) finds (.+) in the forest", line)
                if found and found[2] != "a hand card":
                    assert int(found[1]) == seat, line  # only the drawer reads the card's name
                gift = re.fullmatch(r"player (\d) gives (.+) to player (\d)", line)
                if gift:
                    assert seat in (int(gift[1]), int(gift[3])), line
        if len(s.history) % 9 == 0:
            for seat in range(players):
                world = s.resample_hidden(seat, rng)
                assert world.table_view(seat) == s.table_view(seat)
                checked += 1
    assert checked > 10


def test_santa_claus_die_recipient_is_remembered():
    t = Table(3)
    t.arrange(teams={0: [("Olentzero", 0), ("Moura", 0)], 1: [("Penitente", 0)], 2: [("Fallera", 0)]},
              forest_top=["Santa Claus' Present"])
    s = t.at_alakazum(2)
    dice(s, [5, 1])
    step(s, "pass")
    assert s.pending["k"] == "santa_pass_die"
    one, two = s.clone(), s.clone()
    step(one, "to the player 1 seat(s) to the left")
    step(two, "to the player 2 seat(s) to the left")
    assert not np.array_equal(one.observation(0), two.observation(0))


def test_the_last_pick_sends_the_unchosen_characters_to_the_graveyard():
    s = AlakazumGame(num_players=2).new_state(3)
    first = s.current_player
    step(s, "character Moura")
    before, a = step(s, "character Olentzero")
    lines = s.narrate(before, a, first)
    assert lines[:3] == [f"player {1 - first}: character Olentzero",
                         "nobody chose Senyor Pirotècnic, Tió de Nadal, Penitente: they go to the forest "
                         "graveyard",
                         f"turn 1: player {first}'s turn"]


def test_ana_against_pep_narrated_and_drawn():
    """The rulebook's Ana-vs-Pep fight, as the narration and the table view tell it."""
    t = Table(2)
    t.arrange(teams={0: [("Penitente", 1), ("Moura", 0)], 1: [("Dolçainer", 0), ("Olentzero", 0)]},
              hands={0: ["Double potion", "Combat potion +1"],
                     1: ["Double potion", "Combat potion +2", "Die potion +1"]})
    s = t.at_action(0)
    before, a = step(s, "fight and hypnotise")
    before, a = step(s, "character Dolçainer")
    assert s.narrate(before, a, 1) == ["player 0: character Dolçainer",
                                       "player 0 attacks player 1's Dolçainer [A]"]
    before, a = step(s, "character Penitente")
    assert s.narrate(before, a, 1) == [
        "player 0: character Penitente", "combat: Penitente [B]: 1 combat point, against Dolçainer [A]: 1"]
    for name in ("play Double potion on combat", "play Double potion on combat", "play Combat potion +1"):
        step(s, name)
    before, a = step(s, "play Combat potion +2")
    assert s.narrate(before, a, 0) == ["player 1: play Combat potion +2",
                                       "combat points now 3 (player 0) against 4"]
    view = s.table_view(0)["combat"]
    assert (view["attacker_total"], view["defender_total"]) == (3, 4)
    assert [(p["card"], p["by"]) for p in view["potions"]] == [
        ("Double potion", 0), ("Double potion", 1), ("Combat potion +1", 0), ("Combat potion +2", 1)]
    step(s, "pass")
    dice(s, [1])
    before, a = step(s, "pass")
    assert s.narrate(before, a, 0) == [
        "player 1: pass",
        "Dolçainer wins the combat (4 against 3) and rises to level B",
        "player 1 rolls 1 to hypnotise Penitente (resistance 1)"]
    assert s.table_view(0)["combat"]["roll"] == 1 and s.table_view(0)["combat"]["winner"] == 1
    step(s, "play Die potion +1")
    before, a = step(s, "pass")  # Ana does not steal it
    assert s.narrate(before, a, 1) == [
        "player 0: pass",
        "player 1 hypnotises player 0's Penitente (die 2 against resistance 1): it joins their team at its "
        "level"]


def test_an_alakazum_names_the_objects_it_shows_in_the_same_order_whatever_the_hands_order():
    """The order of a hand follows how its cards got there, which the others need not have seen:
    the shared kit (KIT_SEED=8) met a world whose hand held the amulet and the Txapela the other
    way round and narrated them in that order. Shown cards are named by name, in one order."""
    tales = set()
    for hand in (["Multicolour amulet", "Txapela", "Magic hat 1"], ["Txapela", "Magic hat 1", "Multicolour amulet"]):
        t = Table(2)
        t.arrange(teams={0: [("Olentzero", 2), ("Kattalin", 2), ("Basajaun", 2)], 1: [("Pilotari", 0)]},
                  hands={0: hand})
        s = t.at_alakazum(0)
        legal = [s.action_name(a) for a in s.legal_actions()]
        name = next(m for m in legal if m.startswith("conjure an Alakazum with EUS"))
        before, a = step(s, name)
        tales.add(tuple(tale(s, before, a, seat) for seat in (0, 1, None)))
    assert len(tales) == 1
    assert "player 0 shows Multicolour amulet, Txapela" in next(iter(tales))[1]
