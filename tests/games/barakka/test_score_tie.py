"""Barakka: a score tie stays a tie (rules decision 12: the rulebook has no tie-break).

The tie here is made of different parts on each side, so every plausible tie-break would pick a
winner: player 0 has one complete flawless sequence and its Barakka tile (10 + 1^2), player 1 has
no tile, more sequences and more cards (8 + 2 + 1). The engine must name both winners and pay 0
to both, under both reward modes, and through the env at the natural end of the deck."""

from __future__ import annotations

import pytest

import kabenvs
from kabenvs.games.barakka import BarakkaGame


def _tied_state(reward: str):
    game = BarakkaGame(reward=reward)
    s = game.new_state(0)
    s.seqs = [[[] for _ in range(game.num_colours)] for _ in range(2)]
    s.tiles = [[0] * game.num_colours for _ in range(2)]

    def give(player, colour, *ranks):
        s.seqs[player][game.colours.index(colour)] = [game.card(colour, r) for r in ranks]

    give(0, "red", 1, 2, 3, 4, 5)  # 10, and its tile: 1 tile = 1 point
    red = game.colours.index("red")
    s.tiles[0][red] = 1  # taken from the supply with the fifth red card
    s.tile_supply[red] -= 1
    give(1, "blue", 1, 2, 3, 4)  # 8
    give(1, "orange", 1, 2)  # 2
    give(1, "green", 1)  # 1
    # the cards put on the table come out of the deck; one card is left to draw
    placed = [x for seqs in s.seqs for st in seqs for x in st]
    pool = list(game.full_deck)
    for x in placed + [x for pile in s.piles for x in pile] + [x for h in s.held for x in h]:
        pool.remove(x)
    s.piles[1] = pool[:-1] + s.piles[1]
    s.decks[0] = pool[-1:]
    s.current_player = 0
    s.phase = "draw"
    s.touch()
    assert not s.invariants(), s.invariants()
    return game, s


@pytest.mark.parametrize("reward", ["win", "score"])
def test_equal_totals_from_different_parts_are_a_tie(reward):
    game, s = _tied_state(reward)
    parts = [s.player_score(p) for p in range(2)]
    assert [ps.total for ps in parts] == [11, 11]
    assert [ps.tiles for ps in parts] == [1, 0]  # a tile-count tie-break would pick player 0
    assert [len(ps.sequences) for ps in parts] == [1, 3]  # a sequence-count one player 1
    s.apply(game.catalog.lookup_name("draw from the deck"))
    s.apply(game.catalog.lookup_name("discard onto pile 1"))
    assert s.current_player is None and not s.truncated
    assert s.winners() == [0, 1]
    assert s.returns() == [0.0, 0.0]
    info = s.final_info()
    assert info["scores"] == [11.0, 11.0] and info["winners"] == [0, 1]


@pytest.mark.parametrize("reward", ["win", "score"])
def test_the_tie_through_the_env_pays_zero_to_both(reward):
    game, s = _tied_state(reward)
    env = kabenvs.make("barakka_v0", reward=reward)
    env.reset(options={"state": s.to_json()})
    env.step(game.catalog.lookup_name("draw from the deck"))
    env.step(game.catalog.lookup_name("discard onto pile 1"))
    for agent in ("player_0", "player_1"):
        assert env.terminations[agent] and not env.truncations[agent]
        assert env.rewards[agent] == env._cumulative_rewards[agent] == 0.0
        assert env.infos[agent]["winners"] == [0, 1]
