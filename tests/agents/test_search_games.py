"""The search bot over whole games of every game, and on rigged positions with one winning move.

Whole games: every seat is the search bot (ISMCTS, ``sims=2``, random rollouts) at every player
count of every registered game, on the games' default configs (full games, no caps: the slowest,
Alakazum! at 3 to 5 players, takes 4-6 s a test on the project's loaded 2-core machine).

Rigged positions (a move that wins at once, in every world the seat cannot tell from the real
one; the test first checks that by applying every legal move):

* Kabaleo: the last piece of the game, where only cancelling the top of one stack leaves the
  searcher's colour alone on the most spots, whatever the others' secret colours;
* Barakka: the last card of the deck drawn, which completes the searcher's green sequence (its
  base tile wins; a discard only ties);
* Cábula: a player with four stars and a star in hand (playing it wins; anything else does not).

Not rigged (yet): Kabaal and Alakazum!. Neither has a rigged-position helper for its end of
game in its tests (Kabaal's helpers rig a round's passing or trick play, which ends in board
moves and a scoring several decisions later; Alakazum!'s script dice and moves), and building one
was left for later: this is a gap, not a claim that no such position exists.
"""

from __future__ import annotations

import numpy as np
import pytest

from kabenvs.agents.base import Decision
from kabenvs.agents.search import SearchAgent
from kabenvs.core.registry import env_ids, game_class, make_game

EVERY_TABLE = [(eid, n) for eid in env_ids() for n in game_class(eid).Config.PLAYER_COUNTS]


@pytest.mark.parametrize("env_id,players", EVERY_TABLE, ids=[f"{e}-{n}p" for e, n in EVERY_TABLE])
def test_the_search_bot_plays_whole_games(env_id, players):
    game = make_game(env_id, num_players=players)
    state = game.new_state(np.random.default_rng(players))
    agents = [SearchAgent(seed=10 + p, sims=2) for p in range(players)]
    moves = 0
    while state.current_player is not None:
        p = state.current_player
        legal = state.legal_actions()
        action = agents[p].act(Decision(p, state))
        assert action in legal
        if len(legal) > 1:
            assert agents[p].last_iterations == 2
        state.apply(action)
        moves += 1
        assert moves <= game.max_decisions()
    assert not state.truncated  # each game ended by its own rules
    assert len(state.returns()) == players


# -- rigged positions ----------------------------------------------------------------------------
def _the_one_winning_move(state) -> int:
    """The legal move after which the game is over and the mover has won; asserts there is
    exactly one and that no other move wins at once."""
    me = state.current_player
    winning = []
    for a in state.legal_actions():
        after = state.clone()
        after.apply(a)
        if after.current_player is None and after.returns()[me] > 0:
            winning.append(a)
    assert len(winning) == 1, [state.action_name(a) for a in winning]
    return winning[0]


def _kabaleo_last_piece():
    from tests.games.kabaleo.test_rules import rigged

    O, G, B, P = range(4)
    spots = [[P, O]] + [[P]] * 3 + [[O]] * 4 + [[G]] * 4 + [[B]] * 3 + [[B, P]]
    # tops: orange 5, pink 4, green 4, blue 3; pink (mine) holds one orange piece, the last one
    _, s = rigged(num_players=2, spots=spots, stock=[[1], [0]], targets=[P, O], player=0)
    return s


def _barakka_last_card():
    from tests.games.barakka.test_barakka_rules import conserve, do, give, rig

    game, s = rig()
    give(s, 0, "green", 1, 2, 3, 4)
    give(s, 1, "red", 1, 2, 3, 4)
    conserve(s)
    last = game.card("green", 5)
    s.decks[0].remove(last)
    s.piles[0] += s.decks[0]
    s.decks[0] = [last]
    s.touch()
    do(s, "draw from the deck")  # the deck's last card: this turn ends the game
    return s


def _cabula_fifth_star():
    from tests.games.cabula.cabula_helpers import rig

    return rig(2, hands=[{"star": 1, "dragon": 1, "cyclops": 1, "cauldron": 1, "kraken": 1}, {"dragon": 2}],
               display=[(4, 0), (0, 0)])


RIGGED = {"kabaleo": _kabaleo_last_piece, "barakka": _barakka_last_card, "cabula": _cabula_fifth_star}


@pytest.mark.parametrize("name", list(RIGGED))
def test_the_search_bot_finds_the_winning_move(name):
    """The default search (ISMCTS, random rollouts) with 60 simulations, three seeds. (PIMC with
    4 worlds and the same budget does not always: each world's tree gets 15 simulations for 5 to
    12 moves, and in a single world other moves often win too, later or against that world's
    colours, so its vote is not asserted here.)"""
    state = RIGGED[name]()
    best = _the_one_winning_move(state)
    assert len(state.legal_actions()) > 2
    for seed in range(3):
        agent = SearchAgent(seed=seed, sims=60)
        assert agent.act(Decision(state.current_player, state)) == best, (seed, agent.last_stats)
