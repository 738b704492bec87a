"""The one recall summary Cábula names (State.recall_gap): what another player knows of a third hand."""

from __future__ import annotations

import copy

import numpy as np

import kabenvs
from kabenvs.core.recall import probe_recall


def _state(players: int):
    game = kabenvs.make_game("cabula_v0", num_players=players)
    state = game.new_state(np.random.default_rng(4))
    for _ in range(12):  # a few moves in, so the tables are in play
        state.apply(state.legal_actions()[0])
    return state


def _with(state, field: str, row: int, value):
    other = state.clone()
    table = copy.deepcopy(getattr(other, field))
    table[row] = value
    setattr(other, field, table)
    return other


def test_it_explains_only_third_hand_rows():
    s = _state(3)
    n, me = 3, 0
    third = 1 * n + 2  # what player 1 knows of player 2's hand
    row = [1] + [0] * 13
    assert s.recall_gap(_with(s, "known", third, row), me) == "what another player knows of a third hand"
    assert s.recall_gap(_with(s, "shadow_known", third, row), me) is not None  # player 2's shadow of it
    assert s.recall_gap(_with(s, "known", me * n + 2, row), me) is None  # my own row
    assert s.recall_gap(_with(s, "known", 1 * n + me, row), me) is None  # a row about my hand
    assert s.recall_gap(_with(s, "shadow_known", 2 * n + me, row), me) is None  # my shadow of a row on me
    hands = s.clone()
    hands.hands = copy.deepcopy(hands.hands)
    hands.hands[1][0] += 1
    assert s.recall_gap(hands, me) is None  # any other field: not this summary
    assert _state(2).recall_gap(_with(_state(2), "known", 1, row), 0) is None  # no third hand at 2 players


def test_the_probe_meets_the_gap_at_three_players_and_explains_every_merge_of_it():
    # the kit's seed at the kit's 3-player config: one merge, a star a cauldron returned in plain
    # view to a hand (so another player knows it is there), which my observation does not keep
    game = kabenvs.make_game("cabula_v0", num_players=3, max_turns=12, spell_book_pairs=False)
    report = probe_recall(game, seed=61, n_games=2, positions_per_game=12, pairs_per_position=2, horizon=30)
    assert report.explained >= 1 and report.unexplained == 0
    assert report.gaps == {"what another player knows of a third hand": report.explained}
