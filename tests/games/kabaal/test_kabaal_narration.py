"""Kabaal's seat views (narration.py, table.py): forced moves, pushes with nowhere to go, rituals,
the pass exchange and new rounds appear in the narration; the table hides the others' hands."""

from __future__ import annotations

import json
import random

from .kabaal_helpers import BLACK, BLUE, RED, act, deal, play, set_board

from kabenvs.games.kabaal import KabaalGame
from kabenvs.games.kabaal.narration import _observe


def three(**config):
    return KabaalGame(num_players=3, **config).new_state(0)


def told(state, name, seat=None, player=None):
    """Apply the move named ``name`` and return its narration to ``seat``."""
    before = state.clone()
    act(state, name, player)
    return state.narrate(before, before.game.catalog.lookup_name(name), seat)


def test_forced_cards_and_a_double_ritual_are_narrated():
    s = three()
    deal(s, {RED: (["yellow 2"], []), BLUE: ([], ["yellow"]), BLACK: ([], ["yellow"])}, leader=RED)
    set_board(s, {RED: ["blue 1/2", "purple 7/8", "blue 3/4", "blue 5/6"], BLUE: ["red 5/6"]})
    tale = told(s, "play yellow 2", seat=BLUE)
    assert tale[0] == "player 0: play yellow 2"
    while s.current_player in (BLUE, BLACK) and s.phase == "play":
        before = s.clone()
        a = s.legal_actions()[0]
        s.apply(a)
        tale += s.narrate(before, a, BLUE)
    assert any(line.startswith("player 0 wins trick 1 with yellow 2") for line in tale), tale
    tale = told(s, "place on yellow 1/2", seat=BLACK, player=RED)
    if s.phase == "place":
        tale += told(s, "place no more cultists", seat=BLACK, player=RED)
    rituals = [line for line in tale if line.startswith("ritual: player 0's red cult")]
    assert len(rituals) == 2, tale
    assert "all of player 0's cultists leave the board; player 0 now has 2 ritual(s) on the altar" in tale


def test_a_card_the_engine_plays_for_a_player_is_told_as_the_only_legal_choice():
    s = three()
    # Blue holds one red card and no colourless one: following red is forced (rules note 12)
    deal(s, {RED: (["red 2"], []), BLUE: (["red 7"], ["red"]), BLACK: ([], [])}, leader=RED)
    before = s.clone()
    act(s, "play red 2", RED)
    assert s.played[BLUE] == [s.game.catalog.move(s.game.catalog.lookup_name("play red 7"))[0]]
    tale = s.narrate(before, before.game.catalog.lookup_name("play red 2"), BLACK)
    assert tale == ["player 0: play red 2", "player 1 (the only legal choice): play red 7"]


def test_a_pushed_cultist_with_nowhere_to_go_is_told_going_back_to_the_supply():
    s = three()
    deal(s, {RED: (["red 2"], []), BLUE: ([], ["red"]), BLACK: ([], ["red"])}, leader=RED)
    set_board(s, {BLUE: ["red 1/2", "yellow 5/6", "blue 5/6"]})
    play(s, RED, "red 2")
    for seat in (BLUE, BLACK):
        if s.current_player == seat:
            s.apply(s.legal_actions()[0])
    tale = told(s, "place on red 1/2", seat=BLACK, player=RED)
    if s.phase == "place":
        tale += told(s, "place no more cultists", seat=BLACK, player=RED)
    assert "player 1's blue cultist from red 1/2 has no free neighbour: back to the supply" in tale, tale


def test_the_exchange_tells_the_face_up_cards_and_hides_a_pass_from_the_others():
    s = three()  # a fresh deal: the amulet holder chooses a card to pass
    assert s.phase == "pass"
    RED = s.current_player
    BLUE = (RED + 1) % 3
    first = s.game.catalog.name(s.legal_actions()[0])
    before = s.clone()
    a = s.legal_actions()[0]
    s.apply(a)
    assert s.narrate(before, a, BLUE) == [f"player {RED}: pass a card (hidden)"]
    assert s.narrate(before, a, RED) == [f"player {RED}: {first}"]
    tale = []
    while s.phase == "pass":
        before = s.clone()
        a = s.legal_actions()[0]
        s.apply(a)
        tale = s.narrate(before, a, BLUE)
    for p in range(3):
        to = (p + 1) % 3
        assert any(line.startswith(f"player {p} passes ") and line.endswith(f"to player {to} (kept face up)")
                   for line in tale), tale


def test_the_replayed_move_reaches_exactly_the_state_after_it_and_games_end_with_the_winner():
    """The narration replays the move with the rule steps observed: it must land on the real
    state after the move, or it would tell another game."""
    rnd = random.Random(3)
    configs = ({"num_players": 3}, {"num_players": 2, "dagon": True}, {"num_players": 4, "max_rounds": 2})
    for config in configs:
        s = KabaalGame(**config).new_state(rnd.randrange(1000))
        tale = []
        while s.current_player is not None:
            before = s.clone()
            a = rnd.choice(s.legal_actions())
            s.apply(a)
            sim = before.clone()
            _observe(sim, [])
            sim.apply(a)
            assert json.dumps(sim._data(), sort_keys=True) == json.dumps(s._data(), sort_keys=True)
            tale = s.narrate(before, a, 0)
        if s.truncated:
            assert any("round limit" in line for line in tale), tale
        else:
            won = s.winners()
            assert tale[-1] == (f"player {won[0]} wins" if len(won) == 1
                                else " and ".join(f"player {p}" for p in won) + " share the victory"), tale


def test_table_view_shows_only_the_seats_own_hand_and_clickable_cards():
    s = three()
    deal(s, {RED: (["red 2"], []), BLUE: ([], []), BLACK: ([], [])}, leader=RED)
    mine = s.table_view(RED)
    theirs = s.table_view(BLUE)
    assert mine["players"][RED]["hand"] and theirs["players"][RED]["hand"] is None
    assert theirs["players"][RED]["hand_size"] == len(s.hands[RED])
    assert mine["targets"][str(s.game.catalog.lookup_name("play red 2"))] == "card:hand:red 2"
    assert "targets" not in theirs
    assert theirs["areas"]["blue 1/2"] == {"cultists": [], "face_down": False}
    assert mine["grid"][0] == ["red 5/6", "yellow 3/4", "purple 1/2", "blue 7/8"]
