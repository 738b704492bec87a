"""The match runner: seats rotated within every deal, deals paired, the Wilson interval."""

from __future__ import annotations

import pytest

from kabenvs.agents import RandomAgent
from kabenvs.agents.arena import play_match, wilson_interval
from kabenvs.core.registry import game_class


@pytest.mark.parametrize("env_id,players,competitors", [
    ("kabaleo_v0", 3, 3), ("kabaleo_v0", 4, 2), ("cabula_v0", 2, 2), ("kabaal_v0", 3, 3),
])
def test_every_competitor_sits_in_every_seat_of_every_deal_and_deals_are_paired(env_id, players, competitors):
    game = game_class(env_id)(num_players=players)
    games = []

    def record(state, seating, deal_seed):
        games.append((deal_seed, list(seating), state.start))

    agents = [lambda seed: RandomAgent(seed=seed) for _ in range(competitors)]
    result = play_match(game, agents, deals=3, seed=5, on_game=record)
    assert result.games == len(games) == 3 * players
    deal_seeds = []
    for d in range(3):
        block = games[d * players:(d + 1) * players]
        seeds = {seed for seed, _, _ in block}
        assert len(seeds) == 1, "the games of one deal must share its seed"
        deal_seeds.append(seeds.pop())
        # paired: every rotation of a deal starts from the very same deal
        assert all(start == block[0][2] for _, _, start in block)
        for seat in range(players):
            sat_here = {seating[seat] for _, seating, _ in block}
            assert sat_here == set(range(competitors)), f"seat {seat} of deal {d} saw only {sat_here}"
        if competitors == players:  # each game of the deal is a different rotation
            assert len({tuple(s) for _, s, _ in block}) == players
    assert len(set(deal_seeds)) == 3, "different deals"


@pytest.mark.parametrize("wins,n,lo,hi", [
    # reference values of the Wilson score interval at 95% (z = 1.96), computed independently
    (5, 10, 0.2366, 0.7634),
    (8, 10, 0.4902, 0.9433),
    (0, 10, 0.0, 0.2775),
    (10, 10, 0.7225, 1.0),
    (81, 263, 0.2553, 0.3662),  # Newcombe (1998), example (a)
])
def test_wilson_interval_matches_reference_values(wins, n, lo, hi):
    got = wilson_interval(wins, n)
    assert got == pytest.approx((lo, hi), abs=6e-5)


def test_wilson_interval_without_games_is_uninformative():
    assert wilson_interval(0, 0) == (0.0, 1.0)
