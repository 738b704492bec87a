"""The heuristic bot against random play (fixed seeds: deterministic, not flaky)."""

from __future__ import annotations

import pytest

from kabenvs.agents import RandomAgent, heuristic_agent
from kabenvs.agents.arena import play_match
from kabenvs.core.registry import make_game


def bot_vs_randoms(deals: int, **config):
    game = make_game("kabaal_v0", **config)
    n = game.num_players
    agents = [lambda s: heuristic_agent("kabaal_v0", s)] + [lambda s: RandomAgent(s)] * (n - 1)
    return play_match(game, agents, deals, seed=2026)


def test_bot_beats_random_quick():
    r = bot_vs_randoms(10, num_players=3)  # 30 games, seats rotated
    assert r.interval(0)[0] > 0.6, r.table()  # an even share would be 1/3


@pytest.mark.slow
@pytest.mark.parametrize("config,deals,floor", [
    ({"num_players": 2}, 500, 0.8),  # 1000 games; even share 1/2
    ({"num_players": 3}, 334, 0.75),  # 1002 games; even share 1/3
    ({"num_players": 4}, 250, 0.7),  # 1000 games; even share 1/4
    ({"num_players": 3, "dagon": True}, 100, 0.7),
    ({"num_players": 3, "lowest_wins": True}, 100, 0.85),
])
def test_bot_beats_random_over_1000_games(config, deals, floor):
    r = bot_vs_randoms(deals, **config)
    print(config, "\n", r.table())
    assert r.interval(0)[0] > floor, r.table()


@pytest.mark.parametrize("config", [{"num_players": 2}, {"num_players": 4, "dagon": True}])
def test_bot_values_a_changed_board_as_a_full_recount_does(config):
    """The bot values each candidate board from the position's window sums, counting again only
    the windows through the areas a move changes (_value_after); it must give the very number a
    full recount of the board gives (_value), for every kind of board move, on positions of whole
    random games."""
    import random

    import numpy as np

    from kabenvs.games.kabaal.board import NUM_AREAS
    from kabenvs.games.kabaal.bots import HeuristicAgent

    game = make_game("kabaal_v0", **config)
    bot = HeuristicAgent(0)
    rnd = random.Random(1)
    checked = 0
    for seed in range(4):
        state = game.new_state(np.random.default_rng(seed))
        while state.current_player is not None:
            pots = bot._pots(state)
            for me in range(game.num_players):
                others = max(p for q, p in enumerate(pots) if q != me)
                assert bot._value(state, state.board, state.face_down, me) == pots[me] - 0.7 * others
                for area in range(NUM_AREAS):  # a cultist placed, a card turned down, a pair moved
                    board = state.board[:]
                    board[area] = 1 << me
                    down = state.face_down[:]
                    down[area] = 1 - down[area]
                    other = (area + 5) % NUM_AREAS
                    moved = board[:]
                    moved[other] |= 1 << ((me + 1) % game.num_players)
                    for b, d, areas in ((board, state.face_down, (area,)), (state.board, down, (area,)),
                                        (moved, state.face_down, (area, other))):
                        assert bot._value_after(state, pots, b, d, areas, me) == bot._value(state, b, d, me)
                        checked += 1
            state.apply(rnd.choice(state.legal_actions()))
    assert checked > 10_000
