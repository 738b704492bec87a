"""The search bot over whole games of every game, and on rigged positions with one winning move.

Whole games: every seat is the search bot (ISMCTS, ``sims=2``, random rollouts) at every player
count of every registered game, on the games' default configs (full games, no caps: the slowest,
Alakazum! at 3 to 5 players, takes 4-6 s a test on the project's loaded 2-core machine).

Rigged positions (a move that wins at once, in every world the seat cannot tell from the real
one; the test first checks that by applying every legal move, and the winning move again in ten
worlds resampled for the seat):

* Kabaleo: the last piece of the game, where only cancelling the top of one stack leaves the
  searcher's colour alone on the most spots, whatever the others' secret colours;
* Barakka: the last card of the deck drawn, which completes the searcher's green sequence (its
  base tile wins; a discard only ties);
* Cábula: a player with four stars and a star in hand (playing it wins; anything else does not);
* Kabaal (2 players): the pity cultist of a round in which the searcher, at two rituals, won no
  trick; 17 moves (16 area cards, or none), and only the gap of its one broken line, purple 5/6,
  makes the third ritual that ends the game. Its rival is at two rituals too (at 2 against 0
  random rollouts win most games later whatever the move, and 60 simulations miss the win);
* Alakazum! (2 players): an Alakazum of 8 CAT points conjured, the final enemy to beat still to
  choose; the searcher saw (Clairvoyance) that card 2 is Black Friday (7), the only one of the
  five below 8 (Fast Food, 8, is no win: the points must be higher).

In Kabaal and Alakazum! the winning move is not the lowest legal id (15th of 17, 3rd of 5), so the
search's last tie-break (the lower id) cannot find it by itself.
"""

from __future__ import annotations

import numpy as np
import pytest

from kabenvs.agents.base import Decision
from kabenvs.agents.search import SearchAgent
from kabenvs.core.registry import env_ids, game_class, make_game

EVERY_TABLE = [(eid, n) for eid in env_ids() for n in game_class(eid).Config.PLAYER_COUNTS]


# Alakazum! at 3 and 4 players: these seeded games pass long stretches after large hidden gifts
# where worlds are hard to find, and the patient draws there take 6-12 minutes a game (run with -m slow)
LONG_GAMES = {("alakazum_v0", 3), ("alakazum_v0", 4)}


@pytest.mark.parametrize("env_id,players", [
    pytest.param(e, n, id=f"{e}-{n}p", marks=[pytest.mark.slow] if (e, n) in LONG_GAMES else [])
    for e, n in EVERY_TABLE])
def test_the_search_bot_plays_whole_games(env_id, players):
    game = make_game(env_id, num_players=players)
    state = game.new_state(np.random.default_rng(players))
    agents = [SearchAgent(seed=10 + p, sims=2) for p in range(players)]
    moves = choices = short = 0
    while state.current_player is not None:
        p = state.current_player
        legal = state.legal_actions()
        action = agents[p].act(Decision(p, state))
        assert action in legal
        if len(legal) > 1:
            # Every simulation runs, except one skipped because no world came back that varies
            # the other seats' hidden choices (search.tree.Worlds: Alakazum!'s resampler after a
            # large hidden gift can run out of budget even patiently; never the real choices).
            worlds = agents[p].last_worlds
            assert agents[p].last_iterations + worlds.skipped == 2
            assert not worlds.skipped or worlds.followed_truth  # only where no usable world came
            choices += 1
            short += worlds.skipped > 0
        state.apply(action)
        moves += 1
        assert moves <= game.max_decisions()
    # a minority (Alakazum!: 3 of 261 decisions in one 4-player game, 38 of 332 in a 3-player one
    # with a long stretch after large hidden gifts)
    assert short <= 0.25 * choices
    assert not state.truncated  # each game ended by its own rules
    assert len(state.returns()) == players


# -- rigged positions ----------------------------------------------------------------------------
def _the_one_winning_move(state) -> int:
    """The legal move after which the game is over and the mover has won; asserts there is
    exactly one, that no other move wins at once, and that it also wins at once in worlds
    resampled for the mover (what it cannot see does not matter)."""
    me = state.current_player
    winning = []
    for a in state.legal_actions():
        after = state.clone()
        after.apply(a)
        if after.current_player is None and after.returns()[me] > 0:
            winning.append(a)
    assert len(winning) == 1, [state.action_name(a) for a in winning]
    rng = np.random.default_rng(0)
    for _ in range(10):
        world = state.resample_hidden(me, rng)
        world.apply(winning[0])
        assert world.current_player is None and world.returns()[me] > 0
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


def _kabaal_pity_ritual():
    from kabenvs.games.kabaal import KabaalGame
    from tests.games.kabaal.kabaal_helpers import BLUE, RED, deal, set_board

    s = KabaalGame(num_players=2).new_state(0)
    # Blue leads every trick, each colour card it leads is above Red's cards of that colour, and
    # Red holds no colourless card: Red wins no trick. Neither hand names purple 5/6, purple 7/8
    # or red 3/4 (their cards, purple 5, purple 7 and red 3, are the undealt ones): no trick
    # places or pushes there, so Red's line stays broken at purple 5/6 till its pity cultist.
    deal(s, {RED: (["red 1", "red 5", "blue 1", "blue 3", "yellow 1", "yellow 3", "purple 1", "purple 3"], []),
             BLUE: (["red 7", "blue 5", "blue 7", "yellow 5", "yellow 7", "5+", "6+", "7+"], [])}, leader=BLUE)
    set_board(s, {RED: ["purple 7/8", "red 3/4"]}, altar=[2, 2])  # the Baal layout's third row
    while not (s.current_player == RED and s.context == "pity"):
        s.apply(s.legal_actions()[0])  # the round played out with the first legal move
    assert s.tricks_won == [0, 6] and s.altar == [2, 2]
    return s


def _alakazum_final_enemy():
    from tests.games.alakazum.helpers import Table, do

    t = Table(2)
    t.arrange(teams={0: [("Montserrat", 2), ("Castanyera", 2), ("Caganer", 0)], 1: [("Olentzero", 0)]})
    s = t.state  # CAT: 4 + 3 + 1 = 8 points
    s.finals = [t.final(x) for x in ("Halloween", "Santa Claus", "Black Friday", "Fast Food", "Saint Valentine")]
    s.seen[0][2] = True  # a Clairvoyance of an earlier turn
    t.at_alakazum(0)
    do(s, "conjure an Alakazum with CAT")
    assert s.pending["k"] == "choose_final_enemy" and len(s.legal_actions()) == 5
    return s


RIGGED = {"kabaleo": _kabaleo_last_piece, "barakka": _barakka_last_card, "cabula": _cabula_fifth_star,
          "kabaal": _kabaal_pity_ritual, "alakazum": _alakazum_final_enemy}


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
