"""Barakka scoring: every row of the printed tables, the rulebook's worked examples, tiles."""

from __future__ import annotations

import pytest

from kabenvs.games.barakka import BarakkaGame
from kabenvs.games.barakka.data import BASE_TABLE, BASR_TABLE, PORTUGUES_TABLE
from kabenvs.games.barakka.scoring import score_sequence


def cards(game: BarakkaGame, colour: str, *ranks) -> list[int]:
    return [game.card(colour, r) for r in ranks]


def blank_state(**cfg):
    """A two-player state with empty sequences and no tiles, ready to be rigged."""
    game = BarakkaGame(**cfg)
    s = game.new_state(0)
    s.seqs = [[[] for _ in range(game.num_colours)] for _ in range(2)]
    s.tiles = [[0] * game.num_colours for _ in range(2)]
    s.touch()
    return game, s


G = BarakkaGame(el_basr=True, el_portugues=True)

BASE_ROWS = [
    ((1, 2, 3, 4, 5), 10, 0),
    ((1, 2, 3, 4), 8, 0),
    ((1, 2, 3), 5, 0),
    ((1, 2), 2, 0),
    ((1,), 1, 0),
    (("joker",), 1, 1),  # "1 single Joker card: 1 point"; it stands for the 1 (+1 bonus)
    ((2, 3, 4, 5), 0, 0),  # no number 1
    ((1, 1, 2), 0, 0),  # a number twice
    (("joker", "joker", 1), 0, 0),  # a joker twice
    ((1, 2, 4), 2, 0),  # the rulebook's 1-2-4 example: scored up to the 2
]


@pytest.mark.parametrize("ranks,points,bonus", BASE_ROWS)
def test_base_table_rows(ranks, points, bonus):
    sc = score_sequence(cards(G, "red", *ranks), "base")
    assert (sc.points, sc.joker_bonus) == (points, bonus)


def test_different_colours_score_zero():
    sc = score_sequence(cards(G, "red", 1, 2, 3) + cards(G, "green", 4), "base", colour=G.colours.index("green"))
    assert sc.total == 0 and sc.flaw == "cards of different colours"


@pytest.mark.parametrize("ranks,points", [((1, 2, 3, 4, 5), 20), ((1, 2, 3, 4), 8), ((1, 2, 3), 5), ((1, 2), 2),
                                          ((1,), 1), ((2, 3), 0)])
def test_el_basr_table_rows(ranks, points):
    assert score_sequence(cards(G, "basr", *ranks), "basr").points == points


def test_el_basr_lone_joker_follows_the_base_rules():
    sc = score_sequence(cards(G, "basr", "joker"), "basr")
    assert (sc.points, sc.joker_bonus) == (1, 1)


@pytest.mark.parametrize("ranks,points", [((1, 2, 3, 4, 5), 20), ((1, 2, 3, 4), 5), ((1, 2, 3), 0), ((1, 2), -5),
                                          ((1,), -10), ((2, 3, 4), 0), ((3, 1, 2, 5), 0)])
def test_el_portugues_table_rows(ranks, points):
    assert score_sequence(cards(G, "portugues", *ranks), "portugues").points == points


def test_printed_tables_are_the_data_constants():
    assert BASE_TABLE == (0, 1, 2, 5, 8, 10)
    assert BASR_TABLE == (0, 1, 2, 5, 8, 20)
    assert PORTUGUES_TABLE == (0, -10, -5, 0, 5, 20)


def test_rulebook_joker_example_1_2_3_5_joker():
    sc = score_sequence(cards(G, "blue", 1, 2, 3, 5, "joker"), "base")
    assert (sc.points, sc.joker_bonus, sc.total) == (10, 4, 14) and sc.flawless_complete


def test_joker_takes_the_best_value_for_its_owner():
    # 1-2-3 + joker: as 4 the run is 1-2-3-4 (8 + 4); as 5 it would lie outside the run
    assert score_sequence(cards(G, "red", 1, 2, 3, "joker"), "base").total == 12
    # 2-3 + joker: the joker must be the 1 (5 + 1)
    assert score_sequence(cards(G, "red", 2, 3, "joker"), "base").total == 6
    # 1-3-4 + joker as 2: 1-2-3-4 (8 + 2)
    assert score_sequence(cards(G, "red", 1, 3, 4, "joker"), "base").total == 10


def test_lotti_el_samra_example_21_points():
    game, s = blank_state(el_samra=True)
    s.seqs[0][0] = cards(game, "orange", "joker", 2, 3)  # her "yellow": 5 + joker as 1
    s.seqs[0][2] = cards(game, "purple", 1, 2, 3)  # no joker: discarded
    s.seqs[0][3] = cards(game, "red", 1, 2, "joker", 3, 4)  # 10 + joker as 5
    ps = s.player_score(0)
    assert [sq.total for sq in ps.sequences] == [6, 0, 15]
    assert ps.sequences[1].flaw == "no joker (El-Samra)"
    assert ps.sequence_points == 21 and ps.total == 21  # no tile taken in the example
    s.tiles[0][3] = 1  # with the red tile she would also score 1^2
    assert s.player_score(0).total == 22


def test_el_samra_does_not_apply_to_el_portugues():
    game, s = blank_state(el_samra=True, el_portugues=True)
    s.seqs[0][game.port] = cards(game, "portugues", 1, 2, 3, 4)
    assert s.player_score(0).sequences[0].points == 5


def test_tiles_score_square_only_under_flawless_sequences():
    game, s = blank_state()
    s.seqs[0][0] = cards(game, "orange", 1, 2, 3, 4, 5)
    s.seqs[0][1] = cards(game, "green", 1, 2, 3, 4, "joker")
    s.seqs[0][2] = cards(game, "purple", 1, 2, 3, 4, 4)  # flawed: its tile is discarded
    s.tiles[0][:3] = [1, 1, 1]
    ps = s.player_score(0)
    assert ps.tiles == 2 and ps.tile_bonus == 4
    assert ps.total == 10 + 15 + 0 + 4


def test_maximum_base_score_is_100():
    game, s = blank_state()
    for c in range(5):
        s.seqs[0][c] = [game.card(game.colours[c], r) for r in (1, 2, 3, 4, "joker")]
        s.tiles[0][c] = 1
    assert s.player_score(0).total == 5 * 10 + 5 * 5 + 25


def test_final_info_carries_each_sequence_breakdown():
    game, s = blank_state()
    s.seqs[0][3] = cards(game, "red", 1, 2, 3, 5, "joker")
    s.current_player = None
    info = s.final_info()
    seq = info["players"][0]["sequences"][0]
    assert seq == {"colour": "red", "cards": ["red 1", "red 2", "red 3", "red 5", "red joker"], "points": 10,
                   "joker_bonus": 4, "run": 5, "flaw": None}
    assert info["scores"] == [14.0, 0.0] and info["winners"] == [0]
