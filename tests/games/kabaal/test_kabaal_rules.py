"""Kabaal rules on rigged deals: follow suit, trick winners, placing, pushing, rituals, pity,
game end, round limit, the deck by player count and the rules decisions of rules.py."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from .kabaal_helpers import (
    BLACK, BLUE, RED, act, area, cards, cultists_of, deal, legal_names, play, set_board, stop_placing,
)

from kabenvs.core.errors import ConfigError, IllegalActionError
from kabenvs.games.kabaal import KabaalGame
from kabenvs.games.kabaal.cards import CARD_666, COLOUR, NO_COLOUR, VALUE, card, deck_for
from kabenvs.games.kabaal.rules import ritual_lines, trick_winner


def three(**config):
    game = KabaalGame(num_players=3, **config)
    return game.new_state(0)


# -- deck and deal ---------------------------------------------------------------------------------
def test_deck_by_player_count():
    two = deck_for(2)
    assert len(two) == 19 and CARD_666 not in two
    assert all(COLOUR[k] == NO_COLOUR or VALUE[k] % 2 == 1 for k in two)
    assert sorted(k for k in two if COLOUR[k] == NO_COLOUR) == cards("5+", "6+", "7+")
    assert deck_for(3) == deck_for(4) == list(range(36))
    for n in (2, 3, 4):
        s = KabaalGame(num_players=n).new_state(5)
        assert all(len(h) == 8 for h in s.hands)
        assert len(s.undealt) == len(deck_for(n)) - 8 * n
        assert s.phase == "pass" and s.current_player == s.amulet


def test_amulet_holder_is_random_and_passes_left():
    holders = {KabaalGame(num_players=4).new_state(seed).amulet for seed in range(40)}
    assert holders == {0, 1, 2, 3}


# -- follow suit and trick winners --------------------------------------------------------------------
def test_follow_suit_with_colour_held_allows_colour_or_colourless():
    s = three()
    deal(s, {RED: (["red 3"], []), BLUE: (["red 5", "6+", "blue 8"], []), BLACK: ([], ["red"])}, leader=RED)
    play(s, RED, "red 3")
    names = legal_names(s)
    assert "play 6+" in names and "play red 5" in names and "play blue 8" not in names
    assert all(n == "play 6+" or n.startswith("play red") for n in names)


def test_void_in_led_colour_may_play_anything():
    s = three()
    deal(s, {RED: (["red 3"], []), BLUE: ([], ["red"]), BLACK: ([], ["red"])}, leader=RED)
    play(s, RED, "red 3")
    assert len(legal_names(s)) == 8


def test_colourless_lead_must_be_followed_with_colourless():
    s = three()
    deal(s, {RED: (["6+"], []), BLUE: (["7+", "666"], []), BLACK: ([], [])}, leader=RED)
    play(s, RED, "6+")
    assert sorted(legal_names(s)) == ["play 666", "play 7+"]
    act(s, "play 7+", BLUE)
    # Black has no colourless card left in the game: anything goes.
    assert len(legal_names(s)) == 8


def test_trick_winner_rules():
    r, b, k = RED, BLUE, BLACK
    w = lambda names, lowest=False: trick_winner([card(x) for x in names], [r, b, k], lowest)  # noqa: E731
    assert w(["red 3", "blue 8", "red 2"]) == r  # a higher card of another colour never wins
    assert w(["red 3", "red 7", "5+"]) == b  # 7 beats 5+
    assert w(["red 5", "5+", "red 2"]) == b  # 5+ beats 5
    assert w(["red 6", "5+", "red 2"]) == r  # 5+ loses to 6
    assert w(["5+", "red 8", "6+"]) == k  # colourless lead: only colourless cards win
    assert w(["red 8", "666", "7+"]) == b  # 666 always wins
    assert w(["7+", "6+", "666"]) == k
    # lowest_wins: the lowest eligible card; 5+ sits between 5 and 6; 666 still wins.
    assert w(["red 3", "red 1", "blue 1"], True) == b
    assert w(["red 6", "5+", "red 7"], True) == b
    assert w(["red 5", "5+", "red 7"], True) == r
    assert w(["red 1", "666", "red 2"], True) == b
    assert w(["6+", "5+", "red 1"], True) == b  # colourless lead: colour cards cannot win


def test_lowest_wins_option_in_play():
    s = three(lowest_wins=True)
    deal(s, {RED: (["red 8"], []), BLUE: (["red 2"], []), BLACK: (["red 4"], [])}, leader=RED)
    play(s, RED, "red 8")
    play(s, BLUE, "red 2")
    play(s, BLACK, "red 4")
    assert s.tricks_won == [0, 1, 0] and s.actor == BLUE


# -- placing ------------------------------------------------------------------------------------------
def test_at_most_two_placements_first_mandatory():
    s = three()
    deal(s, {RED: (["blue 8"], []), BLUE: (["yellow 3"], ["blue"]), BLACK: (["purple 5"], ["blue"])}, leader=RED)
    play(s, RED, "blue 8")
    play(s, BLUE, "yellow 3")
    play(s, BLACK, "purple 5")
    assert s.actor == RED
    assert sorted(legal_names(s)) == ["place on blue 7/8", "place on purple 5/6", "place on yellow 3/4"]
    act(s, "place on yellow 3/4", RED)
    assert sorted(legal_names(s)) == ["place no more cultists", "place on blue 7/8", "place on purple 5/6"]
    act(s, "place on blue 7/8", RED)
    # two placed: the trick is over, never a third
    assert s.phase == "play" and cultists_of(s, RED) == ["blue 7/8", "yellow 3/4"] and s.supply[RED] == 4


def test_move_instead_of_place_when_supply_is_empty():
    s = three()
    deal(s, {RED: (["red 8"], []), BLUE: (["red 2"], []), BLACK: (["red 5"], [])}, leader=RED)
    six = ["red 5/6", "purple 1/2", "red 7/8", "purple 3/4", "purple 7/8", "red 3/4"]  # no line
    set_board(s, {RED: six})
    assert s.supply[RED] == 0
    play(s, RED, "red 8")
    play(s, BLUE, "red 2")
    play(s, BLACK, "red 5")
    assert sorted(legal_names(s)) == ["place on red 1/2", "place on red 5/6", "place on red 7/8"]
    before = s.clone()
    act(s, "place on red 1/2", RED)
    assert s.phase == "move" and len(legal_names(s)) == 6
    act(s, "move cultist from purple 3/4", RED)
    assert sorted(cultists_of(s, RED)) == sorted(set(six) - {"purple 3/4"} | {"red 1/2"})
    assert s.supply[RED] == 0 and not s.invariants()
    # Onto a card where one of mine stands: that one cannot be the mover, and it is pushed.
    t = before
    act(t, "place on red 7/8", RED)
    assert "move cultist from red 7/8" not in legal_names(t) and len(legal_names(t)) == 5
    act(t, "move cultist from purple 1/2", RED)
    assert t.phase == "push" and t.push_queue == [[area("red 7/8"), RED]]
    act(t, "push red cultist to yellow 3/4", RED)
    assert sorted(cultists_of(t, RED)) == sorted(set(six) - {"purple 1/2"} | {"yellow 3/4"})
    assert not t.invariants()


def test_pushed_cultist_without_destination_returns_to_supply():
    s = three()
    deal(s, {RED: (["red 2"], []), BLUE: ([], ["red"]), BLACK: ([], ["red"])}, leader=RED)
    # red 1/2 touches only yellow 5/6 and blue 5/6; both hold a blue cultist.
    set_board(s, {BLUE: ["red 1/2", "yellow 5/6", "blue 5/6"]})
    play(s, RED, "red 2")
    act(s, f"play {s.game.catalog.name(s.legal_actions()[0])[5:]}", BLUE)
    act(s, f"play {s.game.catalog.name(s.legal_actions()[0])[5:]}", BLACK)
    assert s.actor == RED
    supply = s.supply[BLUE]
    act(s, "place on red 1/2", RED)
    stop_placing(s)
    assert s.supply[BLUE] == supply + 1
    assert cultists_of(s, BLUE) == ["blue 5/6", "yellow 5/6"]
    assert s.board[area("red 1/2")] == 1 << RED


def test_both_placements_come_before_any_push_and_pushed_cultists_stay_put():
    """Rules note 3: both cultists are placed (step 3), then the cultists that stood on the first
    card are pushed, then those of the second; a cultist pushed onto the second card stays there
    ("you cannot push back", no chain reaction). The old engine pushed after each placement, so
    this blue cultist was pushed a second time off red 7/8."""
    s = three()
    deal(s, {RED: (["blue 2"], []), BLUE: (["red 7"], ["blue"]), BLACK: (["yellow 3"], ["blue"])}, leader=RED)
    set_board(s, {BLUE: ["blue 1/2"], BLACK: ["red 7/8"]})
    play(s, RED, "blue 2")
    play(s, BLUE, "red 7")
    play(s, BLACK, "yellow 3")
    act(s, "place on blue 1/2", RED)
    # no push yet: the second placement is chosen first; the blue cultist waits, lifted off
    assert s.phase == "place" and s.push_queue == [[area("blue 1/2"), BLUE]]
    act(s, "place on red 7/8", RED)
    assert s.push_queue == [[area("blue 1/2"), BLUE], [area("red 7/8"), BLACK]]
    # blue 1/2's cultist first: red 7/8 (now Red's, and Black's waiting to leave) is open to it
    assert s.phase == "push" and sorted(legal_names(s)) == [
        "push blue cultist to purple 7/8", "push blue cultist to red 5/6", "push blue cultist to red 7/8",
    ]
    act(s, "push blue cultist to red 7/8", RED)
    # then red 7/8's cultist that stood there before: Black's, not the blue one just pushed in
    assert s.push_queue == [[area("red 7/8"), BLACK]]
    assert "push black cultist to yellow 3/4" in legal_names(s)
    act(s, "push black cultist to yellow 3/4", RED)
    assert s.phase == "play" and not s.push_queue
    assert cultists_of(s, BLUE) == ["red 7/8"]
    assert cultists_of(s, BLACK) == ["yellow 3/4"]
    assert cultists_of(s, RED) == ["blue 1/2", "red 7/8"]


def test_stop_after_one_placement_then_its_pushes():
    s = three()
    deal(s, {RED: (["blue 2"], []), BLUE: (["red 7"], ["blue"]), BLACK: (["yellow 3"], ["blue"])}, leader=RED)
    set_board(s, {BLUE: ["blue 1/2"]})
    play(s, RED, "blue 2")
    play(s, BLUE, "red 7")
    play(s, BLACK, "yellow 3")
    act(s, "place on blue 1/2", RED)
    act(s, "place no more cultists", RED)
    assert s.phase == "push" and s.push_queue == [[area("blue 1/2"), BLUE]]
    act(s, "push blue cultist to red 7/8", RED)
    assert cultists_of(s, BLUE) == ["red 7/8"] and s.phase == "play"


def test_whoever_played_the_first_one_pushes():
    s = three()
    deal(s, {RED: (["red 8"], []), BLUE: (["red 1"], []), BLACK: (["yellow 1"], ["red"])}, leader=RED)
    set_board(s, {BLACK: ["red 7/8"]})
    play(s, RED, "red 8")
    play(s, BLUE, "red 1")
    play(s, BLACK, "yellow 1")
    assert s.actor == RED and s.pusher == BLUE
    act(s, "place on red 7/8", RED)
    # the winner places (the optional second placement too), then the "1" player pushes
    assert s.current_player == RED and s.phase == "place"
    act(s, "place no more cultists", RED)
    assert s.current_player == BLUE and s.phase == "push"
    act(s, "push black cultist to yellow 3/4", BLUE)
    assert s.phase == "play" and cultists_of(s, BLACK) == ["yellow 3/4"]


# -- rituals ---------------------------------------------------------------------------------------------
def test_double_ritual_with_five_cultists():
    s = three()
    deal(s, {RED: (["yellow 2"], []), BLUE: ([], ["yellow"]), BLACK: ([], ["yellow"])}, leader=RED)
    # An L: blue 1/2, purple 7/8 (column 1) and blue 3/4, blue 5/6 (row 4) meet at yellow 1/2.
    set_board(s, {RED: ["blue 1/2", "purple 7/8", "blue 3/4", "blue 5/6"], BLUE: ["red 5/6"]})
    play(s, RED, "yellow 2")
    for seat in (BLUE, BLACK):
        if s.current_player == seat and s.phase == "play":
            s.apply(s.legal_actions()[0])
    act(s, "place on yellow 1/2", RED)
    if s.phase == "place":
        act(s, "place no more cultists", RED)
    assert s.altar[RED] == 2 and s.supply[RED] == 4 and cultists_of(s, RED) == []
    assert cultists_of(s, BLUE) == ["red 5/6"]


def test_line_of_four_is_one_ritual_and_holes_break_lines():
    from kabenvs.games.kabaal.board import BoardGeometry

    geo = KabaalGame(num_players=3).geometry
    board = [0] * 16
    for name in ("blue 1/2", "red 7/8", "yellow 7/8", "purple 3/4"):  # all of row 2
        board[area(name)] = 1
    assert [len(x) for x in ritual_lines(board, geo, 3)] == [1, 0, 0]
    # The cross layout: row 2 has red 3/4 next to purple 1/2, then a hole, then blue 3/4.
    from kabenvs.games.kabaal.board import CROSS_WITH_HOLES

    cross = BoardGeometry.build(CROSS_WITH_HOLES)
    board = [0] * 16
    for name in ("purple 1/2", "red 3/4", "blue 3/4", "yellow 3/4"):
        board[area(name)] = 1
    assert ritual_lines(board, cross, 3)[0] == []
    board = [0] * 16
    for name in ("red 1/2", "blue 1/2", "yellow 1/2"):  # the top row between two holes
        board[area(name)] = 2
    assert ritual_lines(board, cross, 3)[1] == [(area("red 1/2"), area("blue 1/2"), area("yellow 1/2"))]


def red_performs_a_ritual(s, altar: list[int]) -> None:
    """Red leads the only card of a trick it wins and places the cultist that completes a line."""
    deal(s, {RED: (["red 4"], []), BLUE: ([], ["red"]), BLACK: ([], ["red"])}, leader=RED)
    set_board(s, {RED: ["yellow 7/8", "blue 5/6"]}, altar=altar)
    play(s, RED, "red 4")
    while s.current_player in (BLUE, BLACK) and s.phase == "play":
        s.apply(s.legal_actions()[0])
    act(s, "place on red 3/4", RED)
    if s.current_player is not None and s.phase == "place":
        act(s, "place no more cultists", RED)


def test_several_cults_perform_in_the_same_step_and_game_end_at_end_of_turn():
    """Covered in full by the worked example (round 3); here the game ends mid-round."""
    s = three()
    red_performs_a_ritual(s, altar=[2, 0, 0])
    assert s.altar[RED] == 3 and s.current_player is None and s.tricks_played == 0
    assert s.winners() == [RED] and s.returns() == [1.0, -1.0, -1.0]
    with pytest.raises(IllegalActionError):
        s.apply(0)



def test_score_reward_is_the_ritual_margin_over_the_best_other_player():
    """reward="score": (my rituals - the most rituals of any other player) / 3, at the end only;
    the rules and the winners are the rulebook's either way."""
    s = three(reward="score")
    assert s.returns() == [0.0, 0.0, 0.0]  # not over: no reward yet
    red_performs_a_ritual(s, altar=[2, 1, 0])
    assert s.altar == [3, 1, 0] and s.current_player is None and s.winners() == [RED]
    assert s.returns() == pytest.approx([2 / 3, -2 / 3, -1.0])
    s.game = KabaalGame(num_players=3)  # the same end under the default reward
    assert s.returns() == [1.0, -1.0, -1.0]
    with pytest.raises(ConfigError, match="reward"):
        KabaalGame(reward="rituals")


def test_score_reward_is_zero_on_truncation():
    game = KabaalGame(num_players=3, max_rounds=1, reward="score")
    rnd = random.Random(0)
    for seed in range(10):
        s = game.new_state(seed)
        while s.current_player is not None:
            s.apply(rnd.choice(s.legal_actions()))
        if s.truncated:
            assert s.returns() == [0.0, 0.0, 0.0]
            return
    pytest.fail("no game of one round was truncated in 10 deals")

# -- end of round: pity cultists -----------------------------------------------------------------------
def rig_pity(s, queue: list[int], amulet: int):
    """The sixth trick is over; ``queue`` won no trick."""
    n = s.num_players
    for p in range(n):
        held = s.hands[p] + s.passing[p]
        s.faceup[p] = sorted(held[:2])
        s.played[p] = held[2:8]
        s.hands[p] = []
        s.passing[p] = []
    s.amulet = amulet
    s.tricks_played = 6
    s.tricks_won = [0 if p in queue else 3 for p in range(n)]
    s.trick_cards, s.trick_seats = [], []
    s.context = "pity"
    s.pity_queue = list(queue)
    s.actor = s.pusher = queue[0]
    s.placements_done = 0
    s.place_colours = []
    s.phase = "place"
    s.current_player = queue[0]
    s.touch()


def test_pity_cultist_is_optional_then_amulet_passes_left():
    s = three()
    rig_pity(s, [BLUE, BLACK], amulet=BLUE)
    assert len(legal_names(s)) == 17
    act(s, "place no more cultists", BLUE)
    assert s.current_player == BLACK
    act(s, "place on red 1/2", BLACK)
    assert cultists_of(s, BLACK) == ["red 1/2"] and cultists_of(s, BLUE) == []
    assert s.round == 2 and s.amulet == BLACK and s.phase == "pass" and s.current_player == BLACK


def test_pity_cultist_with_empty_supply_moves_one():
    s = three()
    rig_pity(s, [RED], amulet=RED)
    six = ["red 5/6", "purple 1/2", "red 7/8", "purple 3/4", "purple 7/8", "red 3/4"]
    set_board(s, {RED: six})
    act(s, "place on blue 7/8", RED)
    assert s.phase == "move"
    act(s, "move cultist from red 5/6", RED)
    assert sorted(cultists_of(s, RED)) == sorted(set(six) - {"red 5/6"} | {"blue 7/8"})


def test_game_ends_after_the_whole_pity_phase():
    s = three()
    rig_pity(s, [RED, BLUE], amulet=RED)
    set_board(s, {RED: ["yellow 7/8", "blue 5/6"], BLUE: ["red 5/6", "yellow 3/4"]}, altar=[2, 2, 0])
    act(s, "place on red 3/4", RED)
    assert s.altar == [3, 2, 0] and s.current_player == BLUE  # Blue still places her pity cultist
    act(s, "place on purple 1/2", BLUE)
    assert s.altar == [3, 3, 0] and s.current_player is None
    assert s.winners() == [RED, BLUE]


# -- round limit -------------------------------------------------------------------------------------------
def test_round_limit_truncates_without_result():
    game = KabaalGame(num_players=3, max_rounds=1)
    rnd = random.Random(0)
    truncated = 0
    for seed in range(10):
        s = game.new_state(seed)
        while s.current_player is not None:
            s.apply(rnd.choice(s.legal_actions()))
        if s.truncated:
            truncated += 1
            assert s.round == 1 and s.returns() == [0.0, 0.0, 0.0] and s.winners() == []
            assert s.final_info()["truncated"] is True
    assert truncated >= 5


# -- configuration and layouts ----------------------------------------------------------------------------
def test_config_errors_name_the_problem():
    with pytest.raises(ConfigError, match="num_players"):
        KabaalGame(num_players=5)
    with pytest.raises(ConfigError, match="dagon"):
        KabaalGame(dagon="yes")
    with pytest.raises(ConfigError, match="max_rounds"):
        KabaalGame(max_rounds=0)
    with pytest.raises(ConfigError, match="known layout"):
        KabaalGame(layout="moloch")
    with pytest.raises(ConfigError, match="rectangular"):
        KabaalGame(layout=[["red 1/2"], ["red 3/4", None]])
    with pytest.raises(ConfigError, match="appears twice"):
        KabaalGame(layout=[["red 1/2", "red 1/2"]])
    with pytest.raises(ConfigError, match="lacks area card"):
        KabaalGame(layout=[["red 1/2", None]])
    with pytest.raises(ConfigError, match="neither an area card nor a hole"):
        KabaalGame(layout=[["green 1/2"]])


def test_custom_layout_from_json_lists_with_holes():
    from kabenvs.games.kabaal.board import CROSS_WITH_HOLES

    grid = [[c if c is not None else "." for c in row] for row in CROSS_WITH_HOLES]
    game = KabaalGame.Config.from_dict({"num_players": 3, "layout": grid})
    g = KabaalGame(game)
    geo = g.geometry
    assert geo.neighbours[area("red 5/6")] == ()  # surrounded by holes
    assert sorted(geo.neighbours[area("red 3/4")]) == sorted([area("red 1/2"), area("purple 1/2")])
    assert len(geo.lines) == 3
    # A cultist pushed off a card with holes all around goes back to its supply.
    s = g.new_state(1)
    deal(s, {RED: (["red 6"], []), BLUE: ([], ["red"]), BLACK: ([], ["red"])}, leader=RED)
    set_board(s, {BLUE: ["red 5/6"]})
    play(s, RED, "red 6")
    while s.current_player in (BLUE, BLACK) and s.phase == "play":
        s.apply(s.legal_actions()[0])
    act(s, "place on red 5/6", RED)
    stop_placing(s)
    assert cultists_of(s, BLUE) == [] and s.supply[BLUE] == 6


# -- Dagon --------------------------------------------------------------------------------------------------
def test_dagon_ritual_turns_a_card_face_down_and_flip_up_instead_of_placing():
    s = three(dagon=True)
    deal(s, {RED: (["red 4", "purple 6"], []), BLUE: (["blue 3"], ["red", "purple"]),
             BLACK: (["yellow 3"], ["red", "purple"])}, leader=RED)
    # Row 3 of Baal: purple 7/8, purple 5/6, red 3/4, yellow 5/6.
    set_board(s, {RED: ["purple 7/8", "purple 5/6"], BLUE: ["purple 5/6"]})
    play(s, RED, "red 4")
    while s.current_player in (BLUE, BLACK) and s.phase == "play":
        s.apply(s.legal_actions()[0])
    act(s, "place on red 3/4", RED)
    if s.phase == "place":
        act(s, "place no more cultists", RED)
    # Ritual: the performer turns one card of the line face down.
    assert s.altar[RED] == 1 and s.phase == "flip_down" and s.current_player == RED
    assert sorted(legal_names(s)) == ["flip down purple 5/6", "flip down purple 7/8", "flip down red 3/4"]
    act(s, "flip down purple 5/6", RED)
    # Blue's cultist there is pushed by the performer, never onto a face-down card.
    assert s.current_player == RED and s.phase == "push"
    names = legal_names(s)
    assert names and all(n.startswith("push blue cultist to") for n in names)
    act(s, "push blue cultist to blue 3/4", RED)
    assert s.face_down[area("purple 5/6")] == 1 and s.board[area("purple 5/6")] == 0
    # Next trick (Red leads): a purple 6 may flip purple 5/6 up instead of placing.
    assert s.current_player == RED and s.phase == "play"
    play(s, RED, "purple 6")
    while s.current_player in (BLUE, BLACK) and s.phase == "play":
        s.apply(s.legal_actions()[0])
    assert s.actor == RED
    names = legal_names(s)
    assert "flip up purple 5/6" in names and "place on purple 5/6" not in names
    supply = s.supply[RED]
    act(s, "flip up purple 5/6", RED)
    assert s.face_down[area("purple 5/6")] == 0 and s.supply[RED] == supply
    assert "flip up purple 5/6" not in legal_names(s)


def test_dagon_pity_and_pushes_avoid_face_down_cards():
    s = three(dagon=True)
    rig_pity(s, [RED], amulet=RED)
    s.face_down[area("purple 5/6")] = 1
    set_board(s, {BLUE: ["purple 7/8"]})
    names = legal_names(s)
    assert "place on purple 5/6" not in names and len(names) == 16
    act(s, "place on purple 7/8", RED)
    assert sorted(legal_names(s)) == ["push blue cultist to blue 1/2", "push blue cultist to yellow 1/2"]


# -- information ------------------------------------------------------------------------------------------
def test_resample_hidden_keeps_what_the_player_knows():
    game = KabaalGame(num_players=4)
    rnd = random.Random(4)
    rng = np.random.default_rng(0)
    for seed in range(6):
        s = game.new_state(seed)
        for _ in range(rnd.randrange(1, 60)):
            if s.current_player is None:
                break
            s.apply(rnd.choice(s.legal_actions()))
        for p in range(4):
            w = s.resample_hidden(p, rng)
            assert w.hands[p] == s.hands[p] and w.passing[p] == s.passing[p]
            assert w.faceup == s.faceup and w.played == s.played and w.board == s.board
            for q in range(4):
                assert len(w.hands[q]) == len(s.hands[q]) and len(w.passing[q]) == len(s.passing[q])
            assert not w.invariants()


def test_observation_shows_my_passed_cards_until_played():
    s = three()
    lay = s.game.layout
    p = s.current_player
    first = s.legal_actions()[0]
    s.apply(first)
    k = first - s.game.pass_base
    assert lay.split(s.observation(p))["my_passing"][k] == 1
    other = (p + 1) % 3
    assert lay.split(s.observation(other))["my_passing"].sum() == 0


def test_readable_action_names_and_render():
    g = KabaalGame(num_players=3)
    names = g.catalog.names()
    for name in ("play purple 7", "place on blue 3/4", "push black cultist to purple 5/6", "pass 666",
                 "face up red 1", "move cultist from yellow 5/6", "place no more cultists"):
        assert name in names
    s = g.new_state(3)
    text = s.render()
    assert "red 5/6" in text and "blue 7/8" in text
    assert "hidden cards" in s.render(0)


@pytest.mark.parametrize("players", [2, 4])
def test_the_terminal_table_fits_100_columns_and_names_players_in_full(players):
    """Terminal play reads cleanly: the grid's columns are as wide as their cells (a 4x4 grid with
    cults on it stays one line a row), players are "player 2" with their cult, cards are listed
    with commas, and the altar counts towards the rituals that win."""
    g = KabaalGame(num_players=players)
    rnd = random.Random(players)
    s = g.new_state(players)
    while s.current_player is not None:
        for seat in (None, *range(players)):
            text = s.render(seat)
            assert max(len(line) for line in text.splitlines()[1:5]) <= 100, text
            assert " p0 " not in text and "player 0" in text
            assert len(re.findall(r"altar \d/3", text)) == players, text
        s.apply(rnd.choice(s.legal_actions()))
    assert "1 hidden cards" not in s.render(0)


# -- whole games ---------------------------------------------------------------------------------------------
FULL_CONFIGS = [
    {"num_players": 2}, {"num_players": 3}, {"num_players": 4},
    {"num_players": 3, "dagon": True}, {"num_players": 2, "dagon": True, "lowest_wins": True},
    {"num_players": 4, "lowest_wins": True},
]


def _random_games(config, games, check_every=1):
    game = KabaalGame(**config)
    rnd = random.Random(1)
    ended = 0
    for seed in range(games):
        s = game.new_state(seed)
        steps = 0
        while s.current_player is not None:
            s.apply(rnd.choice(s.legal_actions()))
            steps += 1
            if steps % check_every == 0:
                assert not s.invariants(), (s.invariants(), s.render())
        assert steps <= game.max_decisions()
        ended += not s.truncated
        if not s.truncated:
            assert s.winners() and all(s.altar[p] >= 3 for p in s.winners())
    return ended


@pytest.mark.parametrize("config", FULL_CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_full_length_random_games_keep_invariants(config):
    assert _random_games(config, 6) >= 1


@pytest.mark.slow
@pytest.mark.parametrize("config", FULL_CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_many_full_length_random_games(config):
    assert _random_games(config, 300, check_every=3) > 250


def _red_wins_trick_with(s, name):
    play(s, RED, name)
    while s.current_player in (BLUE, BLACK) and s.phase == "play":
        s.apply(s.legal_actions()[0])
    assert s.actor == RED


def test_dagon_push_that_forms_a_line_triggers_a_ritual_at_once():
    s = three(dagon=True)
    deal(s, {RED: (["red 4"], []), BLUE: ([], ["red"]), BLACK: ([], ["red"])}, leader=RED)
    set_board(s, {RED: ["purple 7/8", "purple 5/6"], BLUE: ["purple 5/6", "blue 5/6", "red 1/2"]})
    _red_wins_trick_with(s, "red 4")
    act(s, "place on red 3/4", RED)
    if s.phase == "place":
        act(s, "place no more cultists", RED)
    act(s, "flip down purple 5/6", RED)
    # Red pushes Blue's cultist; onto blue 3/4 it completes Blue's bottom row.
    act(s, "push blue cultist to blue 3/4", RED)
    assert s.altar == [1, 1, 0] and cultists_of(s, BLUE) == []
    # Blue's ritual turns one card of her line face down, chosen by Blue.
    assert s.phase == "flip_down" and s.current_player == BLUE
    assert sorted(legal_names(s)) == ["flip down blue 3/4", "flip down blue 5/6", "flip down red 1/2"]
    act(s, "flip down red 1/2", BLUE)
    assert s.face_down[area("red 1/2")] == 1 and s.phase == "play" and not s.invariants()


def test_dagon_double_ritual_turns_one_card_per_line():
    s = three(dagon=True)
    deal(s, {RED: (["yellow 2"], []), BLUE: ([], ["yellow"]), BLACK: ([], ["yellow"])}, leader=RED)
    set_board(s, {RED: ["blue 1/2", "purple 7/8", "blue 3/4", "blue 5/6"]})
    _red_wins_trick_with(s, "yellow 2")
    act(s, "place on yellow 1/2", RED)
    if s.phase == "place":
        act(s, "place no more cultists", RED)
    assert s.altar[RED] == 2 and s.phase == "flip_down"
    first = sorted(legal_names(s))
    assert "flip down yellow 1/2" in first and len(first) == 3
    act(s, "flip down yellow 1/2", RED)  # the shared corner: the second line keeps two choices
    assert s.phase == "flip_down" and s.current_player == RED
    second = sorted(legal_names(s))
    assert len(second) == 2 and "flip down yellow 1/2" not in second
    act(s, second[0], RED)
    assert sum(s.face_down) == 2 and s.phase == "play"


@pytest.mark.parametrize("max_rounds", [1, 2])
def test_env_game_reaching_its_round_cap_is_truncated_for_every_agent(max_rounds):
    """Through the AEC env: a game stopped by the game's own max_rounds is truncated (not
    terminated) for every agent, with rewards 0 and the round count in the infos."""
    import kabenvs

    env = kabenvs.make("kabaal_v0", num_players=3, max_rounds=max_rounds)
    rnd = random.Random(max_rounds)
    for seed in range(20):
        env.reset(seed=seed)
        rewards = {a: 0.0 for a in env.agents}
        ends = {}  # what each agent read at its last turn: (terminated, truncated, info)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            rewards[agent] += reward
            if term or trunc:
                ends[agent] = (term, trunc, info)
                env.step(None)
                continue
            env.step(rnd.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        state = env.unwrapped.state
        if state.truncated:
            break
    else:  # pragma: no cover
        pytest.fail("no game reached the round cap")
    assert state.round == max_rounds and state.current_player is None and state.phase == "over"
    assert all(a < 3 for a in state.altar)
    assert sorted(ends) == sorted(env.possible_agents)
    for agent, (term, trunc, info) in ends.items():
        assert trunc and not term, agent
        assert info["truncated"] and info["winners"] == [] and "truncated_by" not in info
    assert all(r == 0.0 for r in rewards.values())
