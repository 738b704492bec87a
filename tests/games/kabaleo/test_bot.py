"""The heuristic bot against random play (fixed seeds: deterministic, not flaky)."""

from __future__ import annotations

import pytest

from kabenvs.agents import RandomAgent, heuristic_agent
from kabenvs.agents.arena import play_match
from kabenvs.core.registry import make_game


def bot_vs_randoms(num_players: int, deals: int):
    game = make_game("kabaleo_v0", num_players=num_players)
    agents = [lambda s: heuristic_agent("kabaleo_v0", s)] + [lambda s: RandomAgent(s)] * (num_players - 1)
    return play_match(game, agents, deals, seed=2026)


def test_bot_beats_random_two_players_quick():
    r = bot_vs_randoms(2, 60)
    assert r.interval(0)[0] > 0.75, r.table()


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_bot_beats_random_over_a_thousand_games(num_players):
    r = bot_vs_randoms(num_players, 1200 // num_players)  # 1200 games with seats rotated
    assert r.games >= 1000
    # an even seat wins 1/n; the bot's lower 95% bound must be far above that
    assert r.interval(0)[0] > 1.8 / num_players, r.table()
