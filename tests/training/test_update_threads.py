"""PPO's update runs on ``algorithm.update_threads`` torch threads, the rollouts on ``torch_threads``."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib")
import torch

from kabenvs import make_game
from training.build import (MAX_AUTO_UPDATE_THREADS, make_env, make_model, make_pool, set_threads, update_threads,
                            update_threads_callback, update_threads_rule)
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
    monkeypatch.setattr(os, "getloadavg", lambda: (1.0, 1.0, 1.0))  # only this process at work
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


@pytest.mark.parametrize("load,cores,threads", [
    (1.0, 2, 2), (1.6, 2, 2),  # this process alone (its own update threads part of the time)
    (2.1, 2, 1), (2.9, 2, 1), (6.0, 2, 1),  # another busy process: one update thread, never 0
    (0.1, 8, 4), (3.2, 8, 4), (6.0, 8, 3), (30.0, 8, 1),
])
def test_zero_leaves_the_cores_other_work_keeps_busy(monkeypatch, load, cores, threads):
    """On a 2-core box with another busy process, two update threads made training five times
    slower than one (each product waits for the thread that is not running)."""
    import os

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    assert update_threads({"update_threads": 0}) == threads
    assert update_threads({"update_threads": 2}) == 2  # a set count is kept whatever the load


def test_without_a_load_average_zero_means_the_usable_cores(monkeypatch):
    import os

    def unavailable():
        raise OSError("no load average here")

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", unavailable)
    assert update_threads({"update_threads": 0}) == 2


def test_a_run_asks_the_rule_again_before_every_update(monkeypatch):
    import os

    loads = iter([1.0, 2.5, 1.0, 2.5, 1.0, 2.5])
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (next(loads),) * 3)
    rule = update_threads_rule({"update_threads": 0})
    assert callable(rule) and update_threads_rule({"update_threads": 3}) == 3
    callback = update_threads_callback(1, rule)
    counts = []
    try:
        for _ in range(4):
            callback.on_rollout_end()
            counts.append(torch.get_num_threads())
            callback.on_rollout_start()
            assert torch.get_num_threads() == 1
    finally:
        set_threads(1)
    assert counts == [2, 1, 2, 1]
