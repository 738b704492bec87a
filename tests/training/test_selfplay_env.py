"""The single-agent view: the learner acts only on its own decisions (out-of-turn ones included),
sees only its own observation and mask, gets its own return, and changes seat between games."""

from __future__ import annotations

import numpy as np
import pytest

from training.pool import OpponentPool
from training.selfplay import SelfPlayVecEnv
from tests.training.toy import ToyGame


def make_env(num_players=3, n=6, weights=None, seed=0):
    game = ToyGame(num_players=num_players, rounds=3)
    pool = OpponentPool(game.env_id, weights or {"random": 1.0}, rng=np.random.default_rng(seed))
    return game, SelfPlayVecEnv(game, n, pool, seed=seed)


def random_learner_actions(env, rng):
    masks = env.action_masks()
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def test_learner_sees_only_its_own_decisions_views_and_masks():
    game, env = make_env()
    rng = np.random.default_rng(1)
    obs = env.reset()
    reactions = 0
    for _ in range(200):
        for i in range(env.num_envs):
            st, seat = env.states[i], env.learner[i]
            assert st.current_player == seat  # the env only ever stops at the learner's decisions
            np.testing.assert_array_equal(obs[i], st.observation(seat))
            assert obs[i][seat] == 1 and obs[i][:3].sum() == 1  # its own seat's view, no other
            np.testing.assert_array_equal(env.action_masks()[i], st.legal_mask())
            if st.reacting is not None:  # an out-of-turn decision of the learner
                reactions += 1
                assert env.action_masks()[i].tolist() == [0, 0, 0, 1, 1]
        obs, rewards, dones, infos = env.step(random_learner_actions(env, rng))
    assert reactions > 50


def test_every_learner_step_is_a_learner_decision_and_opponents_play_the_rest():
    game, env = make_env(n=4)
    rng = np.random.default_rng(2)
    env.reset()
    steps = [0] * env.num_envs
    seen_full_games = 0
    for _ in range(300):
        before = [env.states[i] for i in range(env.num_envs)]
        seats = list(env.learner)
        _, _, dones, infos = env.step(random_learner_actions(env, rng))
        for i in range(env.num_envs):
            steps[i] += 1
            if dones[i]:
                finished = before[i]  # the same object, played to its end
                assert finished.current_player is None
                mine = [a for p, a in finished.actors if p == seats[i]]
                assert len(mine) == steps[i]  # exactly the learner's decisions, reactions included
                assert any(a >= 3 for a in mine)  # some were out-of-turn reactions
                assert len(finished.actors) > len(mine)  # the others were played by opponents
                steps[i] = 0
                seen_full_games += 1
    assert seen_full_games > 20


def test_reward_is_the_learners_return_and_seats_are_redrawn():
    game, env = make_env(n=8)
    rng = np.random.default_rng(3)
    env.reset()
    seats = set()
    rewards_seen = set()
    for _ in range(300):
        seat_before = list(env.learner)
        _, rewards, dones, infos = env.step(random_learner_actions(env, rng))
        for i in range(env.num_envs):
            if dones[i]:
                info = infos[i]
                assert info["learner_seat"] == seat_before[i]
                assert rewards[i] == info["returns"][seat_before[i]]
                assert info["episode"]["r"] == rewards[i]
                assert info["terminal_observation"][seat_before[i]] == 1
                seats.add(seat_before[i])
                rewards_seen.add(float(rewards[i]))
            else:
                assert rewards[i] == 0
    assert seats == {0, 1, 2}
    assert {1.0, -1.0} <= rewards_seen


def test_solo_game_needs_no_opponents():
    game = ToyGame(num_players=1, rounds=3)
    pool = OpponentPool(game.env_id, {"self": 1.0})  # never consulted: no other seat exists
    env = SelfPlayVecEnv(game, 3, pool, seed=0)
    env.reset()
    total = 0
    for _ in range(12):
        _, rewards, dones, _ = env.step(np.full(3, 2))  # always pick 2: total 6 >= 4, a win
        total += int(dones.sum())
        assert all(r == 1.0 for r, d in zip(rewards, dones) if d)
    assert total == 12  # three picks per game, 3 slots, 12 steps


def test_seeded_env_is_reproducible():
    def trajectory():
        _, env = make_env(seed=7)
        env.seed(7)
        obs = [env.reset()]
        for _ in range(30):
            obs.append(env.step(np.array([int(np.flatnonzero(m)[0]) for m in env.action_masks()]))[0])
        return np.stack(obs)

    np.testing.assert_array_equal(trajectory(), trajectory())


def test_opponent_decisions_are_batched_one_forward_pass_per_policy_group(monkeypatch):
    pytest.importorskip("sb3_contrib")
    import training.selfplay as sp
    from training.build import make_model
    from training.config import validate

    game = ToyGame(num_players=3, rounds=3)
    pool = OpponentPool(game.env_id, {"self": 0.5, "snapshots": 0.5}, rng=np.random.default_rng(0))
    env = SelfPlayVecEnv(game, 16, pool, seed=0)
    cfg = validate({"game": {"env_id": "kabaleo_v0"}, "algorithm": {"n_envs": 16, "n_steps": 8, "batch_size": 16}})
    make_model(cfg, env)
    pool.add_snapshot(1)
    calls = []
    real = sp.opponent_actions

    def counting(policy, obs, masks, *a, **k):
        calls.append(len(obs))
        return real(policy, obs, masks, *a, **k)

    monkeypatch.setattr(sp, "opponent_actions", counting)
    env.reset()
    calls.clear()
    rng = np.random.default_rng(0)
    for _ in range(5):
        env.step(random_learner_actions(env, rng))
    # every call answered many games at once; one call per group per round of decisions
    assert max(calls) >= 4
    assert np.mean(calls) > 2


def test_games_keep_their_snapshot_opponent_when_the_pool_drops_it():
    pytest.importorskip("sb3_contrib")
    from training.build import make_model
    from training.config import validate

    game = ToyGame(num_players=3, rounds=3)
    pool = OpponentPool(game.env_id, {"snapshots": 1.0}, max_snapshots=1, rng=np.random.default_rng(0))
    env = SelfPlayVecEnv(game, 8, pool, seed=0)
    cfg = validate({"game": {"env_id": "kabaleo_v0"}, "algorithm": {"n_envs": 8, "n_steps": 8, "batch_size": 16}})
    make_model(cfg, env)
    pool.add_snapshot(1)
    env.reset()
    assert any("snap:1" in opp for opp in env.opponents)
    rng = np.random.default_rng(0)
    for step in range(2, 40):
        pool.add_snapshot(step)  # drops the previous one while games against it are in flight
        env.step(random_learner_actions(env, rng))


def test_skip_forced_plays_the_learners_single_choice_moves_for_it():
    """With ``skip_forced`` the learner is only ever asked when it has a real choice; its forced
    moves are still applied (the game's record holds them) and games still end with a reward."""
    from kabenvs.core.registry import make_game

    game = make_game("alakazum_v0", num_players=2, max_turns=6)
    pool = OpponentPool(game.env_id, {"random": 1.0}, rng=np.random.default_rng(0))
    env = SelfPlayVecEnv(game, 4, pool, seed=0, skip_forced=True)
    plain = SelfPlayVecEnv(game, 4, OpponentPool(game.env_id, {"random": 1.0}, rng=np.random.default_rng(0)), seed=0)
    rng = np.random.default_rng(5)
    env.reset()
    plain.reset()
    forced_seen = 0
    done_games = 0
    for _ in range(150):
        assert (env.action_masks().sum(axis=1) >= 2).all()
        forced_seen += int((plain.action_masks().sum(axis=1) == 1).sum())
        _, _, dones, _ = env.step(random_learner_actions(env, rng))
        plain.step(random_learner_actions(plain, rng))
        done_games += int(dones.sum())
    assert forced_seen > 20  # without the option the learner is asked forced moves
    assert done_games > 3
