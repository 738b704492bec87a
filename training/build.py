"""Build the pieces of a training run from a resolved config: the pool, the env, the model."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kabenvs.core.game import Game
from .pool import OpponentPool
from .selfplay import SelfPlayVecEnv


def set_threads(n: int) -> None:
    """Torch's intra-op threads. On a 2-core box the small MLPs here run fastest on one thread:
    more threads spin on synchronisation and fight the environment's Python for the cores."""
    import torch

    torch.set_num_threads(n)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass  # may only be set once per process


MAX_AUTO_UPDATE_THREADS = 4


def update_threads(alg: dict[str, Any], own_load: float = 0.0) -> int:
    """Torch threads for the gradient updates (``algorithm.update_threads``; 0: the usable cores
    that other work is not keeping busy, at most ``MAX_AUTO_UPDATE_THREADS``). While PPO updates,
    no game is played and the cores would otherwise sit idle; the updates' large matrix products
    (minibatch x observation x trunk) split well across threads, where the rollout's small batches
    do not (they keep ``torch_threads``). A thread more than there are free cores is far worse than
    none: each product waits for the thread that is not running (on a 2-core box with another busy
    process, two update threads made Alakazum!'s training five times slower than one)."""
    n = alg.get("update_threads", 0)
    if n:
        return n
    cores = usable_cores()
    return max(1, min(cores - busy_cores(own_load), MAX_AUTO_UPDATE_THREADS))


def usable_cores() -> int:
    import os

    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def busy_cores(own_load: float = 0.0) -> int:
    """Cores other processes keep busy, from the system's 1-minute load average less about one
    for this process (its rollouts run on one thread; its updates' extra threads, part of the
    time, stay under the 0.75 that counts a core as taken) and ``own_load``, the cores this run's
    self-play workers kept busy lately (``worker_load`` of its env, measured: they play while this
    process does and wait through every update). 0 where there is no load average."""
    import os

    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0
    return max(0, int(load - 1.0 - own_load + 0.25))


def env_workers(alg: dict[str, Any]) -> int:
    """Processes that play the self-play games, the learner's own among them
    (``algorithm.env_workers``), never more than there are games. (No automatic count: the
    update's threads are counted against the load these processes make, so the count must not
    change with that load.)"""
    n = alg.get("env_workers", 1)
    return max(1, min(n, alg.get("n_envs", n)))


def update_threads_callback(rollout_threads: int, threads: int | Callable[[], int]):
    """An SB3 callback that gives PPO's update ``threads`` torch threads (a callable: asked again
    before every update, as ``update_threads: 0`` is) and the rollouts ``rollout_threads``: SB3
    calls ``on_rollout_end`` just before each update and ``on_rollout_start`` just after it; the
    end of ``learn`` puts the rollout setting back."""
    import torch
    from stable_baselines3.common.callbacks import BaseCallback

    # only the intra-op count changes here (set_threads has set the rest once, before learning)
    class UpdateThreads(BaseCallback):
        def _on_rollout_end(self) -> None:
            torch.set_num_threads(threads() if callable(threads) else threads)

        def _on_rollout_start(self) -> None:
            torch.set_num_threads(rollout_threads)

        def _on_training_end(self) -> None:
            torch.set_num_threads(rollout_threads)

        def _on_step(self) -> bool:
            return True

    return UpdateThreads()


def update_threads_rule(alg: dict[str, Any], env=None) -> int | Callable[[], int]:
    """What a training run gives ``update_threads_callback``: the configured count, or for
    ``update_threads: 0`` the rule itself, asked again before every update (the load changes;
    the load ``env``'s own worker processes made is not another's)."""
    if alg.get("update_threads", 0):
        return alg["update_threads"]
    return lambda: update_threads(alg, env.worker_load() if env is not None else 0.0)


def make_pool(cfg: dict[str, Any], game: Game, warn: bool = True) -> OpponentPool:
    import numpy as np

    from kabenvs.core.errors import ConfigError
    from .config import TrainingConfigError

    sp = cfg["self_play"]
    try:
        return OpponentPool(
            game.env_id, sp["opponents"], sp["max_snapshots"],
            rng=np.random.default_rng(cfg["algorithm"]["seed"] + 17), warn=warn,
            search_spec=sp["search_spec"], game=game,
        )
    except ConfigError as exc:  # the search opponent's spec (its model= cannot be loaded for this game)
        raise TrainingConfigError(f"self_play.search_spec={sp['search_spec']!r}: {exc}") from None


def make_env(cfg: dict[str, Any], game: Game, pool: OpponentPool):
    """The self-play env: every game in this process, or split over ``env_workers`` processes
    (``parallel_selfplay``); call its ``close()`` when done (it stops the workers)."""
    alg, sp = cfg["algorithm"], cfg["self_play"]
    options = {"seed": alg["seed"], "deterministic_opponents": sp["deterministic_opponents"],
               "skip_forced": sp["skip_forced"]}
    processes = env_workers(alg)
    if processes > 1:
        from .parallel_selfplay import ParallelSelfPlayVecEnv

        return ParallelSelfPlayVecEnv(game, alg["n_envs"], pool, processes, **options)
    return SelfPlayVecEnv(game, alg["n_envs"], pool, **options)


def fused_adam_supported(device: str) -> bool:
    """Whether this torch has Adam's fused kernel for ``device`` (CPU from torch 2.4 on)."""
    import torch

    try:
        from stable_baselines3.common.utils import get_device

        torch.optim.Adam([torch.zeros(1, device=get_device(device), requires_grad=True)], fused=True)
    except (RuntimeError, ValueError, TypeError):
        return False
    return True


def prepare_learner(model) -> None:
    """What a new or loaded MaskablePPO model gets before it learns, none of it saved with it: the
    step-major rollout buffer (training/rollout_buffer.py), the masked categorical distribution
    without torch's slow paths (training/distribution.py) and, where this torch has the kernel,
    Adam fused: the same Adam (SB3's eps for PPO), whose step over the trunk's thousands of
    columns took 1.8 ms of foreach calls a minibatch, 0.17 fused. Set on the optimizer each time
    rather than stored in the model's arguments, so a checkpoint resumes under a torch without
    the kernel, and an older checkpoint gets it."""
    import torch

    from .distribution import use_lean_distribution
    from .rollout_buffer import use_step_major_buffer

    use_step_major_buffer(model)
    use_lean_distribution(model.policy)
    optimizer = model.policy.optimizer
    if isinstance(optimizer, torch.optim.Adam):
        fused = fused_adam_supported(str(model.device))
        for group in optimizer.param_groups:
            if fused:
                group["foreach"] = None
            group["fused"] = fused or None


def policy_kwargs(alg: dict[str, Any], activation) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"net_arch": list(alg["net_arch"]), "activation_fn": activation}
    if alg["trunk"]:
        from kabenvs.agents.policy import TrunkExtractor

        kwargs["features_extractor_class"] = TrunkExtractor
        kwargs["features_extractor_kwargs"] = {"features_dim": alg["trunk"], "activation": alg["activation"]}
        kwargs["share_features_extractor"] = True
    return kwargs


def make_model(cfg: dict[str, Any], env: SelfPlayVecEnv, tensorboard_log: str | None = None):
    import torch
    from sb3_contrib import MaskablePPO

    alg = cfg["algorithm"]
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[alg["activation"]]
    model = MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=alg["learning_rate"],
        n_steps=alg["n_steps"],
        batch_size=alg["batch_size"],
        n_epochs=alg["n_epochs"],
        gamma=alg["gamma"],
        gae_lambda=alg["gae_lambda"],
        clip_range=alg["clip_range"],
        ent_coef=alg["ent_coef"],
        vf_coef=alg["vf_coef"],
        max_grad_norm=alg["max_grad_norm"],
        target_kl=alg["target_kl"],
        policy_kwargs=policy_kwargs(alg, activation),
        tensorboard_log=tensorboard_log,
        seed=alg["seed"],
        device=alg["device"],
        verbose=cfg["output"]["verbose"],
    )
    if tensorboard_log is None:
        log_without_temp_folder(model)
    prepare_learner(model)
    env.pool.set_current(model.policy)
    return model


def log_without_temp_folder(model) -> None:
    """Give ``model`` the logger SB3 would, minus the folder: without TensorBoard, SB3's
    ``learn`` makes an empty ``SB3-<date>`` folder in the temp directory every time (the test
    suite left hundreds), though nothing is written there (its outputs are stdout or none)."""
    import sys

    from stable_baselines3.common.logger import HumanOutputFormat, Logger

    model.set_logger(Logger(None, [HumanOutputFormat(sys.stdout)] if model.verbose >= 1 else []))
