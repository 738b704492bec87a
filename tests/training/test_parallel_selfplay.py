"""Self-play games split over processes (``algorithm.env_workers``): to the learner exactly the
games the same shares would give in one process, the learner's network sent to the workers
whenever it changes, and a worker that fails a clear one-line error, never a hang."""

from __future__ import annotations

import multiprocessing
from multiprocessing import shared_memory

import pytest

pytest.importorskip("sb3_contrib")
import numpy as np
import torch

from kabenvs.core.errors import KabenvsError
from kabenvs.core.registry import make_game
from training.build import make_env, make_model, make_pool
from training.config import TrainingConfigError, validate
from training.parallel_selfplay import ParallelSelfPlayVecEnv, WorkerError, shares, worker_seed
from training.pool import OpponentPool
from training.selfplay import SelfPlayVecEnv

ENV_ID = "kabaleo_v0"  # short games: many deals, finished games and new opponents in a few steps
WEIGHTS = {"self": 0.4, "snapshots": 0.2, "random": 0.2, "heuristic": 0.2}


def _cfg(workers: int, n_envs: int = 6, seed: int = 3) -> dict:
    return validate({
        "game": {"env_id": ENV_ID, "num_players": 2},
        "algorithm": {"n_envs": n_envs, "n_steps": 8, "batch_size": 16, "n_epochs": 1, "trunk": 32,
                      "net_arch": [16], "update_threads": 1, "seed": seed, "env_workers": workers},
        "self_play": {"opponents": WEIGHTS},
        "output": {"progress_bar": False, "tensorboard": False},
    })


def _reference(game, n_envs: int, processes: int, seed: int, policy, snapshots: dict) -> list[SelfPlayVecEnv]:
    """The same shares, each in this process with the seed its process gets."""
    envs = []
    for i, share in enumerate(shares(n_envs, processes)):
        pool = OpponentPool(game.env_id, WEIGHTS, warn=False)
        pool.set_current(policy)
        pool.snapshots.update(snapshots)
        env = SelfPlayVecEnv(game, share.stop - share.start, pool, seed=worker_seed(seed, i))
        env.seed(worker_seed(seed, i))
        envs.append(env)
    return envs


def _without_times(infos: list[dict]) -> list[dict]:
    return [{k: ({**v, "t": None} if k == "episode" else v) for k, v in info.items()} for info in infos]


def _same(a, b) -> None:
    assert set(a) == set(b)
    for key in a:
        if isinstance(a[key], np.ndarray):
            np.testing.assert_array_equal(a[key], b[key])
        else:
            assert a[key] == b[key], key


def test_processes_play_exactly_the_games_their_shares_play_in_one_process():
    """Three processes (the learner's and two workers) against the three shares stepped here with
    the same seeds and actions: the same observations, masks, rewards, dones and infos, bit for
    bit, through finished games and new deals; then the learner's network changes (an in-place
    edit that makes every network opponent pick one move) and the workers must act with the new
    weights at once, as the shares here do."""
    processes, n_envs, seed = 3, 7, 3
    cfg = _cfg(processes, n_envs, seed)
    game = make_game(ENV_ID, num_players=2)
    pool = make_pool(cfg, game, warn=False)
    env = make_env(cfg, game, pool)
    try:
        assert isinstance(env, ParallelSelfPlayVecEnv) and env.workers == processes
        model = make_model(cfg, env)
        pool.add_snapshot(0)
        ref = _reference(game, n_envs, processes, seed, model.policy, dict(pool.snapshots))
        env.seed(seed)
        obs = env.reset()
        np.testing.assert_array_equal(obs, np.concatenate([r.reset() for r in ref]))
        rng = np.random.default_rng(0)
        finished = 0
        for step in range(60):
            if step == 30:
                with torch.no_grad():  # every network opponent now plays its highest legal move id
                    head = model.policy.action_net
                    head.weight.zero_()
                    head.bias.copy_(torch.arange(head.bias.numel(), dtype=torch.float32) * 100)
            masks = env.action_masks()
            np.testing.assert_array_equal(masks, np.concatenate([r.action_masks() for r in ref]))
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            obs, rewards, dones, infos = env.step(actions)
            parts = [r.step(actions[s]) for r, s in zip(ref, shares(n_envs, processes))]
            np.testing.assert_array_equal(obs, np.concatenate([p[0] for p in parts]))
            np.testing.assert_array_equal(rewards, np.concatenate([p[1] for p in parts]))
            np.testing.assert_array_equal(dones, np.concatenate([p[2] for p in parts]))
            for ours, theirs in zip(_without_times(infos), _without_times([i for p in parts for i in p[3]])):
                _same(ours, theirs)
            finished += int(dones.sum())
        assert finished >= 10  # the comparison went through many finished games and new deals
    finally:
        env.close()


def test_a_worker_that_dies_is_one_clear_error_and_close_frees_everything():
    game = make_game(ENV_ID, num_players=2)
    env = ParallelSelfPlayVecEnv(game, 4, OpponentPool(ENV_ID, {"random": 1.0, "heuristic": 1.0}, warn=False), 2,
                                 seed=1)
    names = (env._obs_mem.name, env._mask_mem.name)
    try:
        env.reset()
        env._procs[0].kill()
        env._procs[0].join(timeout=10)
        with pytest.raises(WorkerError) as err:
            env.step(np.array([np.flatnonzero(m)[0] for m in env.action_masks()]))
        assert str(err.value).startswith("self-play worker 1 stopped (exit code")
        assert "\n" not in str(err.value) and "env_workers: 1" in str(err.value)
        assert isinstance(err.value, KabenvsError)  # kabenvs train prints it as one error line
    finally:
        env.close()
    env.close()  # twice is harmless
    assert not [p for p in multiprocessing.active_children() if p.name.startswith("kabenvs-selfplay")]
    for name in names:  # the shared memory is gone
        with pytest.raises(FileNotFoundError):
            shared_memory.SharedMemory(name=name)
    with pytest.raises(WorkerError, match="closed"):
        env.reset()


def test_the_throughput_measurement_runs_the_workers_and_stops_them():
    from training.throughput import measure_training_throughput

    row = measure_training_throughput(ENV_ID, game_options={"num_players": 2}, seconds=0.5,
                                      overrides={"algorithm": {"env_workers": 2, "n_envs": 4, "n_steps": 8,
                                                               "batch_size": 16, "update_threads": 1}})
    assert row["env_workers"] == 2 and row["steps"] > 0
    assert not [p for p in multiprocessing.active_children() if p.name.startswith("kabenvs-selfplay")]


def test_env_workers_is_checked_and_capped_by_the_games():
    from training.build import env_workers

    for bad in (0, -1, 65, "two", 1.5):
        with pytest.raises(TrainingConfigError, match="env_workers"):
            _cfg(bad)
    assert env_workers(_cfg(8, n_envs=3)["algorithm"]) == 3  # never more processes than games
    assert env_workers(validate({"game": {"env_id": ENV_ID}})["algorithm"]) == 1  # the default: one process
    with pytest.raises(ValueError, match="env_workers=1"):
        game = make_game(ENV_ID, num_players=2)
        ParallelSelfPlayVecEnv(game, 4, OpponentPool(ENV_ID, {"random": 1.0}, warn=False), 1)


def test_the_workers_load_is_measured_and_not_counted_as_other_work(monkeypatch):
    """The update's threads are counted against the load average (``update_threads: 0``); the
    worker processes of this run add to that load while they play, and wait through every
    update, so the rule subtracts what they were measured to use."""
    import os

    import training.build as build

    game = make_game(ENV_ID, num_players=2)
    env = ParallelSelfPlayVecEnv(game, 4, OpponentPool(ENV_ID, {"random": 1.0, "heuristic": 1.0}, warn=False), 2,
                                 seed=2)
    try:
        assert env.worker_load() == 0.0  # nothing measured yet
        env.reset()
        rng = np.random.default_rng(0)
        for _ in range(40):
            env.step(np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()]))
        load = env.worker_load()
        assert 0.0 < load <= 1.2  # one worker: at most one core (timer granularity aside)
        monkeypatch.setattr(build, "usable_cores", lambda: 2)
        # this process, plus the worker at (say) 0.9 of a core: no other work on the box
        monkeypatch.setattr(os, "getloadavg", lambda: (1.9, 1.9, 1.9))
        monkeypatch.setattr(env, "worker_load", lambda: 0.9)
        assert build.update_threads_rule({"update_threads": 0}, env)() == 2
        assert build.update_threads_rule({"update_threads": 0})() == 1  # the worker taken for other work
        monkeypatch.setattr(os, "getloadavg", lambda: (2.9, 2.9, 2.9))  # and another busy process
        assert build.update_threads_rule({"update_threads": 0}, env)() == 1
    finally:
        env.close()
