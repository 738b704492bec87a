"""The step-major rollout buffer gives PPO the minibatches SB3's buffer gives, so training is the
same bit for bit; it only skips copies."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib")
import numpy as np
import torch
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer

from kabenvs import make_game
from training.build import make_env, make_model, make_pool
from training.config import validate
from training.rollout_buffer import StepMajorRolloutBuffer


def _model(env_id: str, n_envs: int, n_steps: int, batch_size: int):
    cfg = validate({
        "game": {"env_id": env_id, "num_players": 2},
        "algorithm": {"total_timesteps": 2 * n_envs * n_steps, "n_envs": n_envs, "n_steps": n_steps,
                      "batch_size": batch_size, "n_epochs": 2, "trunk": 8, "net_arch": [8], "seed": 3,
                      "update_threads": 1},
        "self_play": {"opponents": {"random": 0.5, "self": 0.5}},
        "output": {"progress_bar": False, "tensorboard": False},
    })
    game = make_game(env_id, num_players=2)
    return make_model(cfg, make_env(cfg, game, make_pool(cfg, game, warn=False)))


def _sb3_buffer(model) -> None:
    old = model.rollout_buffer
    model.rollout_buffer = MaskableRolloutBuffer(old.buffer_size, old.observation_space, old.action_space,
                                                 device=old.device, gae_lambda=old.gae_lambda, gamma=old.gamma,
                                                 n_envs=old.n_envs)


@pytest.mark.parametrize("env_id,n_envs,n_steps,batch_size", [
    ("kabaleo_v0", 4, 16, 16),  # minibatches that cut across envs and steps
    ("barakka_v0", 3, 10, 7),  # sizes that do not divide: a short last minibatch
])
def test_training_is_the_same_bit_for_bit_as_with_sb3s_buffer(env_id, n_envs, n_steps, batch_size):
    ours = _model(env_id, n_envs, n_steps, batch_size)
    assert type(ours.rollout_buffer) is StepMajorRolloutBuffer  # what make_model gives
    theirs = _model(env_id, n_envs, n_steps, batch_size)
    _sb3_buffer(theirs)
    batches = {"ours": [], "theirs": []}
    for name, model in (("ours", ours), ("theirs", theirs)):
        get = model.rollout_buffer.get

        def recording_get(size=None, get=get, seen=batches[name]):
            for sample in get(size):
                seen.append([t.clone() for t in sample])
                yield sample

        model.rollout_buffer.get = recording_get
        torch.manual_seed(0)
        np.random.seed(0)
        model.learn(2 * n_envs * n_steps)
    assert len(batches["ours"]) == len(batches["theirs"]) == 2 * 2 * -(-n_envs * n_steps // batch_size)
    for a, b in zip(batches["ours"], batches["theirs"]):
        assert len(a) == len(b) == 7
        for x, y in zip(a, b):
            assert x.shape == y.shape and x.dtype == y.dtype and torch.equal(x, y)
    for (name, x), (_, y) in zip(ours.policy.state_dict().items(), theirs.policy.state_dict().items()):
        assert torch.equal(x, y), name


def test_a_minibatch_does_not_share_memory_with_the_buffer():
    model = _model("kabaleo_v0", 2, 8, 4)
    model.learn(16)
    buffer = model.rollout_buffer
    before = buffer.observations.copy()
    for sample in buffer.get(4):
        sample.observations.add_(1.0)  # a caller that edits its minibatch in place
    assert np.array_equal(buffer.observations, before)


def test_a_rollout_writes_into_the_arrays_of_the_last_and_starts_with_masks_of_ones():
    model = _model("kabaleo_v0", 2, 8, 4)
    model.learn(16)
    buffer = model.rollout_buffer
    arrays = {name: id(getattr(buffer, name)) for name in ("observations", "actions", "action_masks", "values")}
    assert not buffer.action_masks.all()  # the rollout's masks were written
    buffer.reset()
    assert buffer.pos == 0 and not buffer.full and buffer.action_masks.all()
    assert {name: id(getattr(buffer, name)) for name in arrays} == arrays  # kept, not allocated again
    model.learn(16)  # (and the bit-for-bit test above trains over two rollouts through it)
    assert id(buffer.observations) == arrays["observations"] and not buffer.action_masks.all()
