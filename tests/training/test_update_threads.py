"""PPO's update runs on ``algorithm.update_threads`` torch threads, the rollouts on ``torch_threads``."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib")
import torch

from kabenvs import make_game
from training.build import (MAX_AUTO_UPDATE_THREADS, make_env, make_model, make_pool, set_threads, update_threads,
                            update_threads_callback)
from training.config import ConfigError, validate


def _config(**alg):
    return validate({
        "game": {"env_id": "kabaleo_v0", "num_players": 2},
        "algorithm": {"total_timesteps": 128, "n_envs": 2, "n_steps": 32, "batch_size": 32, "n_epochs": 1,
                      "trunk": 8, "net_arch": [8], **alg},
        "self_play": {"opponents": {"random": 1.0}},
        "output": {"progress_bar": False, "tensorboard": False},
    })


def test_the_update_and_the_rollouts_each_get_their_threads():
    cfg = _config(torch_threads=1, update_threads=2)
    game = make_game("kabaleo_v0", num_players=2)
    pool = make_pool(cfg, game, warn=False)
    env = make_env(cfg, game, pool)
    model = make_model(cfg, env)
    seen = {"update": set(), "rollout": set()}
    train = model.train

    def recording_train():
        seen["update"].add(torch.get_num_threads())
        train()

    model.train = recording_train
    from stable_baselines3.common.callbacks import BaseCallback, CallbackList

    class Rollout(BaseCallback):
        def _on_step(self) -> bool:
            seen["rollout"].add(torch.get_num_threads())
            return True

    set_threads(1)
    try:
        model.learn(128, callback=CallbackList([Rollout(), update_threads_callback(1, update_threads(cfg["algorithm"]))]))
        assert seen == {"update": {2}, "rollout": {1}}
        assert torch.get_num_threads() == 1  # put back when learn ends (evaluation plays games next)
    finally:
        set_threads(1)


def test_zero_means_the_usable_cores_at_most_four(monkeypatch):
    import os

    assert update_threads({"update_threads": 3}) == 3
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)), raising=False)
    assert update_threads({"update_threads": 0}) == MAX_AUTO_UPDATE_THREADS == 4
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert update_threads({"update_threads": 0}) == 1
    assert _config()["algorithm"]["update_threads"] == 0  # the default


@pytest.mark.parametrize("value", [-1, 65, "two", 1.5])
def test_a_bad_value_is_refused_in_one_line(value):
    with pytest.raises(ConfigError) as err:
        _config(update_threads=value)
    assert "update_threads" in str(err.value) and "\n" not in str(err.value)
