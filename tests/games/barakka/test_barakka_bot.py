"""The Barakka heuristic bot beats the random agent clearly (and reads only its own information:
the shared kit checks that on resampled worlds)."""

from __future__ import annotations

import pytest

from kabenvs.agents import RandomAgent, heuristic_agent
from kabenvs.agents.arena import play_match
from kabenvs.games.barakka import BarakkaGame
from kabenvs.games.barakka.bots import HeuristicAgent


def match(deals: int, **cfg):
    return play_match(
        BarakkaGame(**cfg),
        [lambda s: HeuristicAgent(seed=s), lambda s: RandomAgent(seed=s)],
        deals=deals,
        seed=2024,
        names=["heuristic", "random"],
    )


@pytest.mark.parametrize("cfg", [{}, {"memory": "table", "el_karim": True}, {"el_samra": True, "el_basr": True,
                                                                           "el_portugues": True}])
def test_heuristic_beats_random_quick(cfg):
    result = match(5, **cfg)
    assert result.games == 10 and result.truncated == 0
    assert result.win_rate(0) >= 0.8, result.table()


def test_registered_as_the_games_heuristic_agent():
    assert isinstance(heuristic_agent("barakka_v0", seed=1), HeuristicAgent)


def test_solo_heuristic_scores_far_above_random():
    game = BarakkaGame(num_players=1)
    bot = play_match(game, [lambda s: HeuristicAgent(seed=s)], deals=20, seed=3).mean_return(0)
    rnd = play_match(game, [lambda s: RandomAgent(seed=s)], deals=20, seed=3).mean_return(0)
    assert bot > rnd + 0.3, (bot, rnd)


@pytest.mark.slow
def test_heuristic_beats_random_over_1000_games():
    result = match(500)
    print(result.table())
    assert result.games == 1000
    low, _ = result.interval(0)
    assert low > 0.9, result.table()


def test_one_bot_reused_across_table_memory_games_stays_legal():
    """The bot's own memory (table mode) must not leak from one game into the next."""
    from kabenvs.agents.base import play_game

    game = BarakkaGame(memory="table", el_karim=True)
    bot, rnd = HeuristicAgent(seed=1), RandomAgent(seed=2)
    for seed in range(3):
        state = play_game(game.new_state(seed), [bot, rnd])
        assert state.current_player is None and not state.truncated
