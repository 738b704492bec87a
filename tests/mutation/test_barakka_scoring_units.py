"""Barakka's scoring helpers called directly. The table of clean-sequence scores is computed once
at import, so the game's own tests never call ``_clean_score`` or ``run_length`` again; these tests
do, against hand-counted rows and an independent brute-force reading of the rulebook (docs/testing.md)."""

from __future__ import annotations

import pytest

from kabenvs.games.barakka.data import LONE_JOKER_POINTS, MAX_SEQUENCE, RANKS
from kabenvs.games.barakka.scoring import (
    _RUN_SCORES, TABLES, PlayerScore, SequenceScore, _clean_score, run_length, score_sequence,
)


@pytest.mark.parametrize("numbers, k", [
    ((), 0), ((1,), 1), ((2,), 0), ((1, 2), 2), ((1, 3), 1), ((1, 2, 3, 5), 3), ((1, 2, 3, 4, 5), 5),
    ((2, 3, 4, 5), 0),
])
def test_run_length(numbers, k):
    assert run_length(sum(1 << (r - 1) for r in numbers)) == k


def test_run_length_stops_at_five_numbers():
    assert run_length(0b111111) == MAX_SEQUENCE  # a sixth bit (no such number) is never counted


def _reference(table, mask, joker):
    """The rulebook read directly: without a joker, the table's points for the run 1..k; a lone
    joker is the 1 (1 point + bonus 1); otherwise the joker takes whichever missing number gives its
    owner most, and earns its value as a bonus only inside the run."""
    numbers = {r for r in range(1, 6) if mask >> (r - 1) & 1}

    def run(ns):
        k = 0
        while k + 1 in ns:
            k += 1
        return k

    if not joker:
        return table[run(numbers)], 0, run(numbers)
    if not numbers:
        return LONE_JOKER_POINTS, 1, 1
    options = []
    for v in set(range(1, 6)) - numbers:
        k = run(numbers | {v})
        bonus = v if v <= k else 0
        options.append((table[k] + bonus, table[k], bonus, k))
    if not options:
        return table[5], 0, 5
    _, points, bonus, k = max(options)
    return points, bonus, k


@pytest.mark.parametrize("name", sorted(TABLES))
def test_clean_scores_follow_the_rulebook_for_every_sequence(name):
    table = TABLES[name]
    for mask in range(32):
        for joker in (False, True):
            expected = _reference(table, mask, joker)
            assert _clean_score(table, mask, joker) == expected, (name, mask, joker)
            assert _RUN_SCORES[name][mask][int(joker)] == expected


def test_clean_score_hand_counted_rows():
    base = TABLES["base"]
    assert _clean_score(base, 0b00111, False) == (5, 0, 3)
    assert _clean_score(base, 0b10111, True) == (10, 4, 5)  # 1-2-3-5 + joker as 4
    assert _clean_score(base, 0b00110, True) == (5, 1, 3)  # 2-3 + joker as 1
    assert _clean_score(base, 0, True) == (1, 1, 1)
    assert _clean_score(base, 0b11111, True) == (10, 0, 5)  # never in play: six cards
    assert _clean_score(TABLES["portugues"], 0b00001, True) == (-5, 2, 2)  # 1 + joker as 2: -5 + 2


def _cards(colour, *ranks):
    return [colour * RANKS + r for r in ranks]


def test_flaws_are_named():
    assert score_sequence(_cards(1, 0, 0, 1), "base").flaw == "more than one joker"
    assert score_sequence(_cards(1, 1, 2, 2), "base").flaw == "number 2 twice"
    assert score_sequence(_cards(1, 1, 2), "base", samra=True).flaw == "no joker (El-Samra)"
    assert score_sequence(_cards(1, 1, 2), "base", samra=True, needs_joker=False).flaw is None
    assert score_sequence(_cards(1, 0, 1), "base", samra=True).flaw is None
    sc = score_sequence(_cards(2, 1, 2, 3), "base")
    assert (sc.colour, sc.cards, sc.points, sc.joker_bonus, sc.run, sc.flaw) == (2, _cards(2, 1, 2, 3), 5, 0, 3, None)
    flawed = score_sequence(_cards(1, 1, 2, 3, 4, 4), "base")
    assert (flawed.points, flawed.joker_bonus, flawed.run, flawed.total) == (0, 0, 0, 0)


def test_player_score_sums_sequences_tiles_and_rose():
    ps = PlayerScore(sequences=[SequenceScore(0, [], points=5, joker_bonus=1), SequenceScore(1, [], points=8)],
                     tiles=3, rose="lost", rose_penalty=-5)
    assert ps.sequence_points == 14 and ps.tile_bonus == 9 and ps.total == 14 + 9 - 5
    assert not SequenceScore(0, [], run=5, flaw="x").flawless_complete
    assert SequenceScore(0, [], run=5).flawless_complete and not SequenceScore(0, [], run=4).flawless_complete
