"""Training throughput: learner env-steps per second of MaskablePPO learning, and where time goes.

``measure_training_throughput`` runs our batched self-play env with the default network and the
default config; ``measure_tutorial_baseline`` runs the plain pattern of PettingZoo's SB3
action-masking tutorial on ``connect_four_v3`` (one env, one policy playing both seats through an
AEC-to-Gymnasium wrapper, SB3's ``ActionMasker``). ``scripts/benchmark.py`` prints both.

Shares: ``env`` is the time inside the vectorised env's ``step``/``reset`` less the opponents'
inference, ``opponents`` the opponents' action choice (batched forward passes, bots),
``update`` the PPO gradient updates, ``other`` the rest (the learner's own forward pass, the
rollout buffer, SB3 bookkeeping).
"""

from __future__ import annotations

import time
from typing import Any

# The tutorial's own wrapper pattern, reproduced so the baseline measures exactly that loop. It is
# not kabenvs.wrappers.SingleAgentEnv: here one policy plays every seat of a PettingZoo env in turn
# (the tutorial's design), there one seat learns while agents play the others.


def _tutorial_wrapper_class():
    import gymnasium
    import pettingzoo.utils

    # gymnasium >= 1.0 wrappers insist on a ``gymnasium.Env`` (the tutorial pins 0.29.1); adding the
    # base class changes nothing in the loop being measured.
    class TutorialMaskWrapper(pettingzoo.utils.BaseWrapper, gymnasium.Env):
        """AEC env seen as one Gymnasium env whose single policy plays every seat in turn."""

        def reset(self, seed=None, options=None):
            super().reset(seed, options)
            self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
            self.action_space = super().action_space(self.possible_agents[0])
            return self.observe(self.agent_selection), {}

        def step(self, action):
            acting = self.agent_selection
            super().step(action)
            return (
                self.observe(self.agent_selection),
                self._cumulative_rewards[acting],
                self.terminations[acting],
                self.truncations[acting],
                self.infos[acting],
            )

        def observe(self, agent):
            return super().observe(agent)["observation"]

        def action_mask(self):
            return super().observe(self.agent_selection)["action_mask"]

    return TutorialMaskWrapper


class _UpdateTimer:
    """Wraps ``model.train`` to time the PPO updates."""

    def __init__(self, model) -> None:
        self.seconds = 0.0
        original = model.train

        def timed_train(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - t0

        model.train = timed_train


def measure_training_throughput(env_id: str, game_options: dict[str, Any] | None = None, seconds: float = 20.0,
                                threads: int = 1, overrides: dict[str, dict] | None = None) -> dict:
    """Learner env-steps/s of MaskablePPO self-play on ``env_id`` with the default config/network."""
    from kabenvs.core.registry import make_game
    from .build import make_env, make_model, make_pool, set_threads
    from .config import validate

    set_threads(threads)
    raw = {"game": {"env_id": env_id, **(game_options or {})}, "output": {"tensorboard": False}}
    for section, values in (overrides or {}).items():
        raw.setdefault(section, {}).update(values)
    cfg = validate(raw, source="throughput")
    game = make_game(env_id, **(game_options or {}))
    pool = make_pool(cfg, game, warn=False)
    env = make_env(cfg, game, pool)
    model = make_model(cfg, env)
    # a snapshot so the 'snapshots' share of the pool is a real second network, as in training
    pool.add_snapshot(0)
    timer = _UpdateTimer(model)
    model.learn(model.n_steps * model.n_envs)  # warm-up rollout + update
    env.time_env = env.time_opponents = 0.0
    timer.seconds = 0.0
    steps, wall = _steps_for_continuing(model, seconds)
    opp = env.time_opponents
    env_only = env.time_env - opp
    return {
        "env_id": env_id,
        "game_options": dict(game_options or {}),
        "steps_per_s": steps / wall,
        "steps": steps,
        "seconds": wall,
        "share_env": env_only / wall,
        "share_opponents": opp / wall,
        "share_update": timer.seconds / wall,
        "share_other": max(0.0, 1 - (env_only + opp + timer.seconds) / wall),
        "n_envs": model.n_envs,
        "torch_threads": threads,
        "opponents": dict(pool.weights),
    }


def _steps_for_continuing(model, seconds: float) -> tuple[int, float]:
    start = model.num_timesteps
    rollout = model.n_steps * model.n_envs
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        model.learn(rollout, reset_num_timesteps=False)
    return model.num_timesteps - start, time.perf_counter() - t0


def measure_tutorial_baseline(seconds: float = 20.0, threads: int = 1) -> dict:
    """The PettingZoo SB3 action-masking tutorial's pattern on connect_four_v3, same measurements."""
    from pettingzoo.classic import connect_four_v3
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from sb3_contrib.common.wrappers import ActionMasker

    from .build import set_threads

    set_threads(threads)
    env = _tutorial_wrapper_class()(connect_four_v3.env())
    env.reset(seed=0)
    env_time = [0.0]

    class TimedMasker(ActionMasker):
        def step(self, action):
            t0 = time.perf_counter()
            try:
                return super().step(action)
            finally:
                env_time[0] += time.perf_counter() - t0

        def reset(self, **kwargs):
            t0 = time.perf_counter()
            try:
                return super().reset(**kwargs)
            finally:
                env_time[0] += time.perf_counter() - t0

    masked = TimedMasker(env, lambda e: e.action_mask())
    model = MaskablePPO(MaskableActorCriticPolicy, masked, verbose=0, seed=0)
    timer = _UpdateTimer(model)
    model.learn(model.n_steps)  # warm-up rollout + update
    env_time[0] = 0.0
    timer.seconds = 0.0
    steps, wall = _steps_for_continuing(model, seconds)
    return {
        "env_id": "connect_four_v3 (PettingZoo SB3 tutorial pattern)",
        "steps_per_s": steps / wall,
        "steps": steps,
        "seconds": wall,
        "share_env": env_time[0] / wall,
        "share_opponents": 0.0,  # the one policy plays both seats inside the rollout
        "share_update": timer.seconds / wall,
        "share_other": max(0.0, 1 - (env_time[0] + timer.seconds) / wall),
        "torch_threads": threads,
    }


__all__ = ["measure_training_throughput", "measure_tutorial_baseline"]
