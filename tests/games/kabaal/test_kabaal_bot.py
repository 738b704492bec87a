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
