"""The heuristic bot beats random players clearly (one bot against n-1 random players)."""

from __future__ import annotations

import pytest

from kabenvs.agents import RandomAgent
from kabenvs.agents.arena import play_match
from kabenvs.agents.base import Decision
from kabenvs.games.cabula import CabulaGame
from kabenvs.games.cabula.bots import HeuristicAgent


def bot_vs_randoms(n: int, deals: int, seed: int):
    agents = [lambda s: HeuristicAgent(s)] + [lambda s, i=i: RandomAgent(s + 101 * i) for i in range(n - 1)]
    return play_match(CabulaGame(num_players=n), agents, deals=deals, seed=seed)


def test_bot_beats_random_quick():
    result = bot_vs_randoms(2, 40, seed=3)
    assert result.truncated == 0
    assert result.interval(0)[0] > 0.8


@pytest.mark.slow
@pytest.mark.parametrize("n,deals,floor", [(2, 500, 0.9), (4, 250, 0.6), (6, 167, 0.5)])
def test_bot_beats_random_over_1000_games(n, deals, floor):
    """>= 1000 seat-rotated games per player count; a fair share would be 1/n."""
    result = bot_vs_randoms(n, deals, seed=11)
    assert result.games >= 1000
    low, _ = result.interval(0)
    assert low > floor, result.table()


def test_bot_plays_every_decision_kind_legally():
    game = CabulaGame(num_players=4)
    kinds = set()
    for seed in range(30):
        s = game.new_state(seed)
        bots = [HeuristicAgent(seed=p) for p in range(4)]
        while s.current_player is not None:
            p = s.current_player
            a = bots[p].act(Decision(p, s))
            assert s.is_legal(a)
            kinds.add(game.catalog.kind(a))
            s.apply(a)
    assert {"play", "target", "star"} <= kinds
