"""Kabaal perfect recall of the board: every board move of the round, in order, and the board the
round was dealt on. Each test builds two histories through ``apply`` that end in the same board
and asserts that every seat's observation tells them apart."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kabenvs.games.kabaal import KabaalGame
from kabenvs.games.kabaal.board import CULTISTS_PER_PLAYER, NUM_AREAS
from kabenvs.games.kabaal.encoding import MOVE_KIND, MOVE_KINDS, PITY_PART, max_board_moves
from kabenvs.games.kabaal.rules import ritual_lines

from .kabaal_helpers import BLACK, BLUE, RED, act, area, cultists_of, deal, play, set_board

SEATS = (RED, BLUE, BLACK)


def _differ(a, b, seat):
    lay = a.game.layout
    va, vb = lay.split(a.observation(seat)), lay.split(b.observation(seat))
    return sorted(k for k in va if not np.array_equal(va[k], vb[k]))


def _lead_the_same_card(a, b):
    """The next trick's leader plays the same card in both histories, so ``last_move`` agrees."""
    assert a.phase == b.phase == "play" and a.current_player == b.current_player
    move = a.legal_actions()[0]
    a.apply(move)
    b.apply(move)


def test_placement_order_within_a_trick_is_remembered():
    # Red wins a trick holding a red and a blue card: red 5/6 then blue 1/2, or the other way
    # round. Both cards were empty: the same board, and the same last move once Red leads again.
    s = KabaalGame(num_players=3).new_state(0)
    deal(s, {RED: (["red 5"], []), BLUE: (["red 3"], []), BLACK: (["blue 1"], ["red"])}, leader=RED)
    for seat, name in zip(SEATS, ("red 5", "red 3", "blue 1")):
        play(s, seat, name)
    a, b = s.clone(), s.clone()
    act(a, "place on red 5/6", RED)
    act(a, "place on blue 1/2", RED)
    act(b, "place on blue 1/2", RED)
    act(b, "place on red 5/6", RED)
    _lead_the_same_card(a, b)
    assert a.board == b.board and a.supply == b.supply
    for seat in SEATS:
        assert _differ(a, b, seat) == ["board_moves_to"], seat
    lay = a.game.layout
    to = lay.split(a.observation(BLUE))["board_moves_to"]
    assert np.argwhere(to).tolist() == [[0, area("red 5/6")], [1, area("blue 1/2")]]


def test_where_a_cultist_was_pushed_is_remembered_after_a_ritual_wipes_it_out():
    # Blue stands on red 7/8 with a cultist at both ends of two possible lines: pushing it to
    # yellow 7/8 completes column 3, to purple 5/6 row 3; either way Blue performs a ritual and
    # leaves the board, so the boards agree; the pusher's choice is evidence all the same.
    s = KabaalGame(num_players=3).new_state(0)
    deal(s, {RED: (["red 8"], []), BLUE: (["red 3"], []), BLACK: (["5+"], ["red"])}, leader=RED)
    set_board(s, {BLUE: ["red 7/8", "purple 1/2", "red 3/4", "purple 7/8"]})
    for seat, name in zip(SEATS, ("red 8", "red 3", "5+")):
        play(s, seat, name)
    act(s, "place on red 7/8", RED)
    a, b = s.clone(), s.clone()
    act(a, "push blue cultist to yellow 7/8", RED)
    act(b, "push blue cultist to purple 5/6", RED)
    assert a.altar[BLUE] == b.altar[BLUE] == 1 and a.board == b.board and cultists_of(a, BLUE) == []
    _lead_the_same_card(a, b)
    for seat in SEATS:
        assert _differ(a, b, seat) == ["board_moves_to"], seat
    # the record in Blue's view: Red placed, then Red pushed Blue's own cult (relative 0)
    view = a.game.layout.split(a.observation(BLUE))
    assert view["board_moves_kind"][:3].argmax(axis=1).tolist() == [MOVE_KIND["place"], MOVE_KIND["push"], 0]
    assert view["board_moves_who"][:2].argmax(axis=1).tolist() == [2, 2]  # Red is Blue's seat + 2
    assert view["board_moves_cult"][:2].argmax(axis=1).tolist() == [2, 0]
    assert view["board_moves_from"][1].argmax() == area("red 7/8")
    assert view["board_moves_kind"][2].sum() == 0  # rows after the last move stay empty


def test_the_board_the_round_was_dealt_on_is_remembered():
    # Red's two cultists stood on yellow 3/4 and purple 5/6, or on blue 1/2 and yellow 7/8: a
    # placement on red 7/8 completes a line either way and the ritual clears them, so the board,
    # supplies, altars and every move of the round agree; only the round's starting board differs.
    def history(red_cultists):
        s = KabaalGame(num_players=3).new_state(0)
        deal(s, {RED: (["red 7"], []), BLUE: (["red 3"], []), BLACK: (["5+"], ["red"])}, leader=RED)
        set_board(s, {RED: red_cultists})
        for seat, name in zip(SEATS, ("red 7", "red 3", "5+")):
            play(s, seat, name)
        act(s, "place on red 7/8", RED)
        return s

    a = history(["yellow 3/4", "purple 5/6"])
    b = history(["blue 1/2", "yellow 7/8"])
    assert a.altar == b.altar and a.board == b.board and a.supply == b.supply
    assert a.board_log == b.board_log
    _lead_the_same_card(a, b)
    for seat in SEATS:
        assert _differ(a, b, seat) == ["round_start_board"], seat


def test_a_declined_second_placement_and_a_forced_push_are_recorded():
    s = KabaalGame(num_players=3).new_state(0)
    deal(s, {RED: (["red 5"], []), BLUE: (["red 3"], []), BLACK: (["blue 1"], ["red"])}, leader=RED)
    # Black stands on red 5/6; Black's "1" makes him the pusher
    set_board(s, {BLACK: ["red 5/6"], BLUE: ["yellow 3/4"]})
    for seat, name in zip(SEATS, ("red 5", "red 3", "blue 1")):
        play(s, seat, name)
    act(s, "place on red 5/6", RED)
    act(s, "place no more cultists", RED)
    # red 5/6 (row 1, column 1) touches yellow 3/4 and blue 1/2: Black may go to either
    act(s, "push black cultist to blue 1/2", BLACK)
    kinds = [MOVE_KINDS[e[1]] for e in s.board_log]
    assert kinds == ["place", "stop", "push"]
    assert [e[0] for e in s.board_log] == [RED, RED, BLACK]  # Black played the first "1": he pushes
    assert [e[5] for e in s.board_log] == [0, 0, 0]  # all three were asked


def test_a_pushed_cultist_with_nowhere_to_go_is_recorded_as_returned():
    s = KabaalGame(num_players=3).new_state(0)
    deal(s, {RED: (["red 5"], []), BLUE: (["red 3"], []), BLACK: (["yellow 4"], ["red"])}, leader=RED)
    # red 5/6 touches yellow 3/4 and blue 1/2, both already holding a black cultist
    set_board(s, {BLACK: ["red 5/6", "yellow 3/4", "blue 1/2"]})
    for seat, name in zip(SEATS, ("red 5", "red 3", "yellow 4")):
        play(s, seat, name)
    act(s, "place on red 5/6", RED)
    if s.phase == "place":
        act(s, "place no more cultists", RED)
    returned = [e for e in s.board_log if MOVE_KINDS[e[1]] == "return"]
    assert returned == [[RED, MOVE_KIND["return"], BLACK, area("red 5/6"), -1, 1, 0]]
    assert s.supply[BLACK] == CULTISTS_PER_PLAYER - 2 and cultists_of(s, BLACK) == ["blue 1/2", "yellow 3/4"]


# -- the bound, and the record determines the board ------------------------------------------------

CONFIGS = [
    {"num_players": 2}, {"num_players": 3}, {"num_players": 4},
    {"num_players": 3, "dagon": True}, {"num_players": 4, "dagon": True},
]


def test_the_bound_follows_the_rules():
    # 6 tricks x (2 placement decisions + 2n pushed) + (n - 1) pity x (1 + n) [+ Dagon 4n x n]
    assert [max_board_moves(n, False) for n in (2, 3, 4)] == [39, 56, 75]
    assert [max_board_moves(n, True) for n in (2, 3, 4)] == [55, 92, 139]
    for config in CONFIGS:
        game = KabaalGame(**config)
        assert game.layout.shape("board_moves_kind")[0] == game.max_board_moves


def _replay_log(s):
    """The board, face-down cards, supplies and altars rebuilt from the round's starting board and
    its board-move record alone. Placements lift whoever stood there, pushes put them back; a
    group of moves (a trick's, or one pity cultist's) ends with the rituals it formed. With
    Dagon, a ritual step's flips follow it in the record (one flip per line found), each with its
    pushes, and the next step's rituals come once that step's flips are done. Cultists lifted and
    still waiting to be pushed are off the board in both."""
    n, geo = s.num_players, s.game.geometry
    rs = s.round_start
    board, down = rs["board"][:], rs["face_down"][:]
    supply, altar = rs["supply"][:], rs["altar"][:]

    def rituals():
        found = 0
        for q, lines in enumerate(ritual_lines(board, geo, n)):
            if lines:
                for a in range(NUM_AREAS):
                    board[a] &= ~(1 << q)
                altar[q] += len(lines)
                supply[q] = CULTISTS_PER_PLAYER - altar[q]
                found += len(lines)
        return found

    group = None
    flips_due = 0  # flips still to come in the current ritual step (Dagon)
    for who, kind, cult, src, dst, _forced, part in s.board_log:
        name = MOVE_KINDS[kind]
        starts = name in ("place", "move", "stop") and (part == PITY_PART or part != group)
        if starts or part != group:
            if group is not None:
                assert flips_due == 0
                found = rituals()
                assert not (found and s.game.config.dagon)  # else its flips would be in this group
            group = part
        if name == "flip_down":
            if flips_due == 0:  # the step's rituals come before its flips
                flips_due = rituals()
                assert flips_due > 0
            flips_due -= 1
            down[dst], board[dst] = 1, 0
        elif name == "flip_up":
            down[dst] = 0
        elif name == "place":
            supply[cult] -= 1
            board[dst] = 1 << cult
        elif name == "move":
            board[src] &= ~(1 << cult)
            board[dst] = 1 << cult
        elif name == "push":
            board[dst] |= 1 << cult
        elif name == "return":
            supply[cult] += 1
    if s.phase == "flip_down":  # inside a ritual step: its rituals are done, its flips under way
        if flips_due == 0:
            rituals()
        return board, down, supply, altar
    # a trick's rituals come once its placements are all made: the log may end inside that group
    mid_group = s.phase == "push" or (
        s.context == "trick" and s.phase in ("place", "move") and group == s.tricks_played
    )
    if group is not None and not mid_group:
        rituals()
    return board, down, supply, altar


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_full_length_games_stay_within_the_bound_and_the_record_rebuilds_the_board(config):
    game = KabaalGame(**config)
    rnd = random.Random(3)
    longest = 0
    kinds = set()
    for seed in range(6):
        s = game.new_state(seed)
        while s.current_player is not None:
            s.apply(rnd.choice(s.legal_actions()))
            assert len(s.board_log) <= game.max_board_moves
            longest = max(longest, len(s.board_log))
            kinds.update(MOVE_KINDS[e[1]] for e in s.board_log)
            if s.current_player is not None:
                rebuilt = _replay_log(s)
                assert rebuilt == (s.board, s.face_down, s.supply, s.altar), s.board_log
    assert longest > 5
    assert {"place", "move", "push", "return", "stop"} <= kinds
    if config.get("dagon"):
        assert {"flip_down", "flip_up"} <= kinds
