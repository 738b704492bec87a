"""kabenvs.wrappers: one seat of a game as a Gymnasium env, and the public self-play VecEnv.

* every game passes Gymnasium's own ``check_env`` (seeded resets and steps replay exactly);
* the other seats are really played by the named agents (the learner only ever sees its own
  decisions) and the final reward is the seat's return;
* bad specs, seats and counts are one-line ConfigErrors; an illegal action loses or raises;
* plain MaskablePPO (no kabenvs training code) learns on it for a few thousand steps.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import kabenvs
from kabenvs.core.errors import ConfigError, IllegalActionError
from kabenvs.wrappers import SingleAgentEnv


@pytest.mark.parametrize("env_id", kabenvs.ENV_IDS)
def test_check_env_passes_for_every_game(env_id):
    env = SingleAgentEnv(env_id, seat="random", opponents="random")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*(infinity|spec).*")
        check_env(env, skip_render_check=True)


def _play_out(env, seed, pick_seed=0):
    """Random legal play to the end; returns the learner's decisions, reward, flags and info."""
    pick = np.random.default_rng(pick_seed)
    obs, info = env.reset(seed=seed)
    seat = info["seat"]
    steps = []
    while True:
        state = env.state
        assert state.current_player == seat  # every step is a decision of the learner's seat
        assert np.array_equal(obs, state.observation(seat))
        assert np.array_equal(env.action_masks(), state.legal_mask().astype(bool))
        assert np.array_equal(info["action_mask"], state.legal_mask())
        action = int(pick.choice(np.flatnonzero(env.action_masks())))
        steps.append(action)
        obs, reward, term, trunc, info = env.step(action)
        if term or trunc:
            return steps, reward, term, trunc, info


@pytest.mark.parametrize("env_id", kabenvs.ENV_IDS)
def test_opponents_play_the_other_seats_and_the_reward_is_the_seats_return(env_id):
    env = SingleAgentEnv(env_id, seat="random", opponents="heuristic", num_players=3
                         if env_id != "barakka_v0" else 2)
    seats = set()
    for seed in range(4):
        steps, reward, term, trunc, info = _play_out(env, seed)
        state = env.state
        seats.add(info["seat"])
        assert term and not trunc and state.current_player is None
        assert reward == state.returns()[info["seat"]] == info["returns"][info["seat"]]
        mine = [a for a, p in _movers(state) if p == info["seat"]]
        assert mine == steps  # the learner's moves, and nothing else, came from step()
        assert len(mine) < len(state.history)  # the others moved too
        assert not env.action_masks().any()
    assert len(seats) > 1  # seat="random" draws the seat


def _movers(state):
    """(action, seat) for every move of a finished game, by replaying it from its start."""
    replay = state.replay_start()
    out = []
    for a in state.replay_actions():
        out.append((a, replay.current_player))
        replay.apply(a)
    return out


def test_a_seeded_reset_replays_the_deal_the_seat_and_the_opponents():
    env = SingleAgentEnv("kabaleo_v0", seat="random", opponents=["heuristic", "random"], num_players=3)
    first = _play_out(env, seed=7)
    history = list(env.state.history)
    again = _play_out(env, seed=7)
    assert first[0] == again[0] and history == list(env.state.history)


def test_one_spec_per_other_seat_in_seat_order():
    env = SingleAgentEnv("kabaleo_v0", seat=1, opponents=["random", "heuristic"], num_players=3)
    env.reset(seed=0)
    names = [type(a).__name__ if a is not None else None for a in env.agents]
    assert names[1] is None and names[0] == "RandomAgent" and names[2] == "HeuristicAgent"


@pytest.mark.parametrize("kwargs, words", [
    ({"opponents": "nobody"}, "neither a bot nor an existing model file"),
    ({"opponents": ["random"], "num_players": 3}, "1 spec(s) given for the 2 other seat(s)"),
    ({"seat": 5}, "seat=5"),
    ({"seat": True}, "seat=True"),
    ({"illegal": "ignore"}, "illegal='ignore'"),
    ({"opponents": "search:sims=-3"}, "sims"),
])
def test_bad_arguments_are_one_line_config_errors(kwargs, words):
    with pytest.raises(ConfigError) as err:
        SingleAgentEnv("kabaleo_v0", **kwargs)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_an_illegal_action_loses_or_raises():
    env = SingleAgentEnv("kabaleo_v0", opponents="random")
    env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, term, trunc, info = env.step(bad)
    assert (reward, term, trunc) == (-1.0, True, False) and info["illegal_action"] == repr(bad)
    assert not env.action_masks().any()
    strict = SingleAgentEnv("kabaleo_v0", opponents="random", illegal="raise")
    strict.reset(seed=0)
    before = strict.state.to_json()
    with pytest.raises(IllegalActionError):
        strict.step(bad)
    assert strict.state.to_json() == before


def test_render_shows_the_seats_own_view():
    env = SingleAgentEnv("cabula_v0", seat=1, opponents="random", render_mode="ansi")
    env.reset(seed=3)
    assert env.render() == env.state.render(1)


def test_plain_maskable_ppo_learns_on_it_without_kabenvs_training_code():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    env = SingleAgentEnv("kabaleo_v0", seat="random", opponents="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=128, n_epochs=2, seed=0, verbose=0)
    model.learn(2048)
    assert model.num_timesteps >= 2048
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]


def test_the_self_play_vec_env_is_public():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from kabenvs.wrappers import self_play_vec_env

    env = self_play_vec_env("cabula_v0", num_envs=4, opponents={"self": 0.5, "random": 0.5}, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0, verbose=0)
    env.pool.set_current(model.policy)
    model.learn(256)
    assert env.episodes > 0 and model.num_timesteps >= 256


def test_a_snapshot_can_be_taken_right_after_learn():
    """After a gradient update the policy keeps a distribution with graph tensors on it; taking a
    snapshot then (between ``learn`` calls, as users of the public env do) must still work."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from kabenvs.wrappers import self_play_vec_env

    env = self_play_vec_env("cabula_v0", num_envs=2, opponents={"self": 0.5, "snapshots": 0.5}, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0, verbose=0)
    env.pool.set_current(model.policy)
    model.learn(64)
    key = env.pool.add_snapshot(model.num_timesteps)
    snap = env.pool.policy(key)
    assert snap is not model.policy and not any(p.requires_grad for p in snap.parameters())
    model.learn(64, reset_num_timesteps=False)
