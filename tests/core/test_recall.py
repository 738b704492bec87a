"""The perfect-recall probe (kabenvs/core/recall.py) finds merges planted in an observation."""

from __future__ import annotations

import numpy as np
import pytest

import kabenvs
from kabenvs.core.errors import ConfigError
from kabenvs.core.recall import probe_recall, same_possible_worlds, seat_view


def _forgetful(cls, keep: slice):
    """A copy of a game's state class whose observation keeps only ``keep`` (the rest zeroed)."""
    real = cls.observation

    def observation(self, player):
        obs = real(self, player)
        out = np.zeros_like(obs)
        out[keep] = obs[keep]
        return out

    return type(cls.__name__, (cls,), {"observation": observation})


def test_a_forgetful_observation_merges_positions_that_differ(monkeypatch):
    # Kabaleo's probe finds no merge at all with the real observation; keeping only the first
    # blocks (whose turn, the decision) makes a seat forget the board while the hands still differ
    game = kabenvs.make_game("kabaleo_v0", num_players=2)
    real = probe_recall(game, seed=3, n_games=2, positions_per_game=10)
    assert real.comparisons > 100 and real.merges == 0
    monkeypatch.setattr(game, "State", _forgetful(game.State, slice(0, 8)))
    forgetful = probe_recall(game, seed=3, n_games=2, positions_per_game=10)
    assert forgetful.state_merges > 0
    assert any(not m.pure_history for m in forgetful.examples)
    # an unexplained merge says which saved fields differ (here the board: no hidden item moved)
    shown = [str(m) for m in forgetful.examples if not m.pure_history]
    assert all("differs in " in t and "spots" in t and "hidden items" not in t for t in shown), shown[:2]


def test_a_merge_is_counted_at_the_branch_itself_and_once_per_seat_and_branch(monkeypatch):
    # with the forgetful observation the mover's two moves read apart (their names) but leave the
    # same observation at once: step 0; each (seat, branch pair) counts one merge at most
    game = kabenvs.make_game("kabaleo_v0", num_players=2)
    monkeypatch.setattr(game, "State", _forgetful(game.State, slice(0, 8)))
    report = probe_recall(game, seed=3, n_games=2, positions_per_game=10, max_examples=10_000)
    assert any(m.steps_after_branch == 0 for m in report.examples)
    assert len(report.examples) == report.merges <= report.branches * game.num_players
    seen = [(m.seat, m.moves, m.decision) for m in report.examples]
    assert report.merges > 0 and len(seen) >= 1


def test_branches_a_seat_cannot_tell_apart_are_not_compared():
    # two moves that read alike to a seat and leave its observation alike (another seat's hidden
    # pass in Kabaal) are not distinguishable to it: no comparison, so no merge, is counted for it
    game = kabenvs.make_game("kabaal_v0", num_players=3)
    state = game.new_state(np.random.default_rng(1))
    for _ in range(200):
        if state.current_player is None:
            break
        legal = state.legal_actions()
        if len(legal) >= 2 and "pass" in state.action_name(legal[0]):
            me = (state.current_player + 1) % 3
            a, b = legal[:2]
            A, B = state.clone(), state.clone()
            A.apply(a)
            B.apply(b)
            if seat_view(state, A, a, me) == seat_view(state, B, b, me):
                return
        state.apply(legal[0])
    raise AssertionError("no hidden pass found in 200 steps")


def test_same_possible_worlds_meets_an_unseen_take_in_both_branches():
    # the rigged Cábula pair of docs/games/cabula.md item 6: seat 2 saw different moves, and a
    # take between players 0 and 1 moved a cyclops in one game and a minotaur in the other; the
    # resampler, drawing from seat 2's whole history, puts them either way from both (seat 2's
    # generation counts planted alike: since item 8 they tell the two games apart)
    kept, played = _unseen_take_histories_pair()
    assert same_possible_worlds(kept, played, 2, tries=20)
    assert same_possible_worlds(played, kept, 2, tries=20)


def _looked_and_forgotten():
    """Two players; player 0 looks at player 1's hand with two crystal balls and takes a card, so
    the rest of that hand is certain to it. Then the rows that say so are wiped (planted
    forgetting), and a copy holds one of player 1's cards swapped with a deck card of another
    type: both show the seat the same hidden items, only split otherwise."""
    from tests.games.cabula.cabula_helpers import act, rig

    s = rig(2, hands=[{"crystal_ball": 2, "dragon": 1}, {"kraken": 1, "minotaur": 1, "magic_wand": 1}],
            top=["cyclops", "cyclops", "cyclops"])
    for move in ("play 2 crystal balls", "take a magic wand"):  # (two players: no victim to choose)
        act(s, move)
    for table in (s.known, s.groups, s.groups2, s.fresh):
        table[0 * 2 + 1] = None if table is not s.fresh else 0
    s._reset_caches()
    other = s.clone()
    other.hands = [h[:] for h in s.hands]
    other.deck = s.deck[:]
    kraken, cyclops = 8, 6
    other.hands[1][kraken] -= 1
    other.hands[1][cyclops] += 1
    other.deck[other.deck.index(cyclops)] = kraken
    other._reset_caches()
    return s, other


def test_same_possible_worlds_refuses_a_split_the_seats_history_rules_out():
    # the rows forgot what the seat saw, but the resampler replays its whole history: no world of
    # the first holds a cyclops in player 1's hand, so the check says no (where the observation
    # alone would have merged them)
    s, other = _looked_and_forgotten()
    zones, others = s.hidden_zones(0), other.hidden_zones(0)
    assert sorted(zones["hand of player 1"]) != sorted(others["hand of player 1"])
    assert not same_possible_worlds(s, other, 0, tries=20)


def _unseen_take_histories_pair():
    from tests.games.cabula.test_cabula_recall import _unseen_take_pair_counts_alike

    return _unseen_take_pair_counts_alike()


def test_same_possible_worlds_needs_the_rest_of_the_difference_named(monkeypatch):
    kept, played = _unseen_take_histories_pair()
    # another difference no summary names (the discard pile): not the same possible worlds
    odd = played.clone()
    odd.discard = odd.discard[:]
    odd.discard[0] += 1
    assert not same_possible_worlds(kept, odd, 2, tries=20)
    # a game that declares no placement fields has no such check
    monkeypatch.setattr(type(kept), "PLACEMENT_FIELDS", ())
    assert not same_possible_worlds(kept, played, 2, tries=20)


def test_same_possible_worlds_checks_the_world_it_is_given(monkeypatch):
    # a world_holding that answers with the other branch itself: it holds the wanted split, but
    # its history is not this branch's, so replaying it shows the seat other views: refused
    kept, played = _unseen_take_histories_pair()
    assert same_possible_worlds(kept, played, 2, tries=20)
    others = {id(kept): played, id(played): kept}
    monkeypatch.setattr(type(kept), "world_holding", lambda self, seat, want, rng, tries: others[id(self)].clone())
    assert not same_possible_worlds(kept, played, 2, tries=20)
    # and one that holds the wrong split: refused by its count
    monkeypatch.setattr(type(kept), "world_holding", lambda self, seat, want, rng, tries: self.clone())
    assert not same_possible_worlds(kept, played, 2, tries=20)


def test_world_holding_by_default_draws_until_a_world_fits():
    # Kabaal has no builder of its own: the contract's default draws resampled worlds
    game = kabenvs.make_game("kabaal_v0", num_players=3)
    state = game.new_state(np.random.default_rng(5))
    for _ in range(4):
        state.apply(state.legal_actions()[0])
    zones = state.hidden_zones(0)
    name = next(z for z in zones if zones[z])
    item = zones[name][0]
    want = {name: {item: zones[name].count(item)}}
    world = state.world_holding(0, want, np.random.default_rng(1), 200)
    assert world is not None and world.hidden_zones(0)[name].count(item) == want[name][item]
    # a count no world can hold: every card of that kind already elsewhere
    assert state.world_holding(0, {name: {item: 99}}, np.random.default_rng(1), 5) is None
    with pytest.raises(ConfigError, match="not a seat"):
        state.world_holding(7, want, 1, 5)
    for bad, says in (({"the moon": {item: 1}}, "want must map zone names"), ([name], "want must map zone names"),
                      ({name: {item: -1}}, "counts >= 0"), ({name: [item]}, "counts >= 0")):
        with pytest.raises(ConfigError, match=says):
            state.world_holding(0, bad, 1, 5)
    with pytest.raises(ConfigError, match="tries must be an integer >= 1"):
        state.world_holding(0, want, 1, 0)
    with pytest.raises(ConfigError, match="own generator"):
        state.world_holding(0, want, state.rng, 5)
