"""The perfect-recall probe (kabenvs/core/recall.py) finds merges planted in an observation."""

from __future__ import annotations

import numpy as np

import kabenvs
from kabenvs.core.recall import probe_recall, seat_view


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
