"""The training opponents' numpy actor: torch's logits to float rounding, rebuilt whenever the
weights change (an optimizer step, fused or not; a load), torch where it does not apply."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib")
import numpy as np
import torch

from kabenvs.agents import numpy_actor as na
from kabenvs.agents.policy import masked_logits, policy_actions
from kabenvs.core.registry import make_game
from training.build import make_env, make_model, make_pool
from training.config import validate

from .test_trunk import _observations


def _model(env_id: str, trunk: int, activation: str, net_arch=(16,)):
    cfg = validate({
        "game": {"env_id": env_id, "num_players": 2},
        "algorithm": {"n_envs": 2, "n_steps": 16, "batch_size": 16, "n_epochs": 1, "trunk": trunk,
                      "net_arch": list(net_arch), "activation": activation, "update_threads": 1},
        "self_play": {"opponents": {"self": 1.0}},
        "output": {"progress_bar": False, "tensorboard": False},
    })
    game = make_game(env_id, num_players=2)
    return make_model(cfg, make_env(cfg, game, make_pool(cfg, game, warn=False)))


def _masks(env_id: str, count: int) -> np.ndarray:
    game = make_game(env_id, num_players=2)
    rng = np.random.default_rng(1)
    return (rng.random((count, game.num_actions)) < 0.3).astype(np.int8) | np.eye(count, game.num_actions, dtype=np.int8)


def _agree(policy, obs, masks) -> None:
    ours = np.where(masks.astype(bool), na.numpy_actor(policy).logits(obs), -np.inf)
    theirs = masked_logits(policy, obs, masks)
    assert np.array_equal(np.isinf(ours), np.isinf(theirs))
    finite = np.isfinite(theirs)
    assert np.allclose(ours[finite], theirs[finite], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("env_id,trunk,activation,net_arch", [
    ("alakazum_v0", 32, "relu", (16,)), ("kabaleo_v0", 16, "tanh", (8, 8)), ("cabula_v0", 0, "tanh", (16,)),
    ("kabaal_v0", 0, "relu", ()),
])
def test_the_logits_are_torchs_to_float_rounding_for_one_row_and_many(env_id, trunk, activation, net_arch):
    model = _model(env_id, trunk, activation, net_arch)
    obs = _observations(env_id, 40)
    masks = _masks(env_id, 40)
    for rows in (slice(0, 1), slice(1, 4), slice(0, 40)):
        _agree(model.policy, obs[rows], masks[rows])
    # an all-zero observation reads no weight row: the bias path alone
    _agree(model.policy, np.zeros_like(obs[:2]), masks[:2])


def test_a_new_copy_after_every_optimizer_step_and_load_but_not_between():
    model = _model("kabaleo_v0", 16, "relu")
    assert model.policy.optimizer.param_groups[0]["fused"]  # the kernel that leaves version counters alone
    policy, obs, masks = model.policy, _observations("kabaleo_v0", 8), _masks("kabaleo_v0", 8)
    first = na.numpy_actor(policy)
    assert na.numpy_actor(policy) is first  # cached while nothing changed
    model.learn(32)  # one rollout and its update
    second = na.numpy_actor(policy)
    assert second is not first
    _agree(policy, obs, masks)
    state = {k: v + 0.01 for k, v in policy.state_dict().items()}
    policy.load_state_dict(state)  # edited in place, no optimizer
    assert na.numpy_actor(policy) is not second
    _agree(policy, obs, masks)


def test_frozen_snapshots_keep_their_copy_while_the_learner_trains():
    model = _model("kabaleo_v0", 16, "relu")
    model.env.pool.add_snapshot(1)
    snapshot = model.env.pool.policy("snap:1")
    copy = na.numpy_actor(snapshot)
    model.learn(32)
    assert na.numpy_actor(snapshot) is copy


def test_torch_plays_where_the_numpy_actor_does_not_apply(monkeypatch):
    model = _model("kabaleo_v0", 16, "relu")
    policy, obs, masks = model.policy, _observations("kabaleo_v0", 4), _masks("kabaleo_v0", 4)
    monkeypatch.setattr(na, "actor_of_sb3_policy", lambda p: (_ for _ in ()).throw(na.ModelLoadError("no")))
    na._cache.clear()
    assert na.numpy_actor(policy) is None
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    assert np.array_equal(na.opponent_actions(policy, obs, masks, False, rng_a),
                          policy_actions(policy, obs, masks, False, rng_b))


def test_weights_off_the_cpu_when_the_copy_would_be_built_give_none():
    model = _model("kabaleo_v0", 16, "relu")
    na._cache.clear()
    policy = model.policy.to("meta")  # (no GPU here: another device that is not the CPU)
    assert na.numpy_actor(policy) is None
    assert na.numpy_actor(policy) is None  # and again from the cache
