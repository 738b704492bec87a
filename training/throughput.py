"""Training throughput: learner env-steps per second of MaskablePPO learning, and where time goes.

``measure_training_throughput`` runs our batched self-play env with the network, rollout, update
and opponents of a training config: a YAML file (``shipped_config(env_id)`` is the game's own
``configs/<game>.yaml``, what ``kabenvs benchmark --training`` measures), or the config schema's
defaults when given none. The file is read and validated by ``training/config.py`` like a training
run's; the imitation warm start it may ask for is skipped (it runs once before learning, and is not
learner throughput). ``measure_tutorial_baseline`` runs the plain pattern of PettingZoo's SB3
action-masking tutorial on ``connect_four_v3`` (one env, one policy playing both seats through an
AEC-to-Gymnasium wrapper, SB3's ``ActionMasker``). ``scripts/benchmark.py`` prints both.

Shares: ``env`` is the time inside the vectorised env's ``step``/``reset`` less the opponents'
inference, ``opponents`` the opponents' action choice (batched forward passes, bots),
``update`` the PPO gradient updates, ``other`` the rest (the learner's own forward pass, the
rollout buffer, SB3 bookkeeping).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

SCHEMA_DEFAULTS = "schema defaults"  # the ``config`` of a row measured without a config file

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


def configs_dir() -> Path | None:
    """The checkout's ``configs/`` folder, or None where kabenvs is installed without it.

    ``configs/`` is not package data (setup.py installs ``kabenvs*`` and ``training/`` only), so a
    non-editable install has no shipped configs; a checkout and an editable install do."""
    folder = Path(__file__).resolve().parent.parent / "configs"
    return folder if folder.is_dir() else None


def shipped_config(env_id: str) -> Path | None:
    """The game's shipped training config, ``configs/<game>.yaml`` (``kabaal_v0`` ->
    ``configs/kabaal.yaml``), or None when this kabenvs has no ``configs/`` folder or no such file."""
    folder = configs_dir()
    if folder is None:
        return None
    path = folder / f"{env_id.rsplit('_v', 1)[0]}.yaml"
    return path if path.is_file() else None


def no_shipped_config_note(env_id: str) -> str:
    """One line saying why a row falls back to the schema defaults."""
    if configs_dir() is None:
        return ("note: this kabenvs is installed without the configs/ folder (a non-editable install); "
                "training rows use the config schema's defaults, not each game's configs/<game>.yaml")
    return f"note: no configs/{env_id.rsplit('_v', 1)[0]}.yaml for {env_id}; its training row uses the schema defaults"


def _config_label(path: Path) -> str:
    """``configs/kabaal.yaml`` for a file of the checkout's configs/ folder, else the path as given."""
    folder = configs_dir()
    try:
        if folder is not None:
            return str(Path("configs") / path.resolve().relative_to(folder.resolve()))
    except ValueError:
        pass
    return str(path)


def throughput_config(env_id: str, game_options: dict[str, Any] | None = None, config: str | Path | None = None,
                      overrides: dict[str, dict] | None = None) -> tuple[dict[str, Any], str]:
    """The resolved config a throughput run uses, and its label (a file, or ``SCHEMA_DEFAULTS``).

    ``config`` is a training YAML file, loaded with ``training/config.py``'s strict loader and
    validated like a training run's (its ``game.env_id`` must be ``env_id``); None: the schema's
    defaults. ``game_options`` (e.g. ``num_players=2``) and ``overrides`` (``{section: {key: value}}``)
    replace the file's values; TensorBoard is off (nothing is logged)."""
    from .config import TrainingConfigError, load_yaml_file, validate

    if config is None:
        raw: dict[str, Any] = {"game": {"env_id": env_id}}
        source = label = SCHEMA_DEFAULTS
    else:
        path = Path(config)
        raw = load_yaml_file(path)
        source, label = str(path), _config_label(path)
        if not isinstance(raw, dict) or not isinstance(raw.get("game"), dict):
            validate(raw, source=source)  # says what is wrong with the shape
        if raw["game"].get("env_id") != env_id:
            raise TrainingConfigError(f"{source}: game.env_id={raw['game'].get('env_id')!r}, not {env_id!r}")
        if raw.get("engine", "sb3") != "sb3":
            raise TrainingConfigError(f"{source}: engine: {raw['engine']}; MaskablePPO throughput needs engine: sb3")
    raw["game"] = {**raw["game"], **(game_options or {})}
    for section, values in {"output": {"tensorboard": False}, **(overrides or {})}.items():
        raw[section] = {**(raw.get(section) or {}), **values}
    return validate(raw, source=source), label


def measure_training_throughput(env_id: str, game_options: dict[str, Any] | None = None, seconds: float = 20.0,
                                threads: int | None = None, overrides: dict[str, dict] | None = None,
                                config: str | Path | None = None) -> dict:
    """Learner env-steps/s of MaskablePPO self-play on ``env_id``.

    The run is built from ``config`` (a training YAML file, e.g. ``shipped_config(env_id)``; None:
    the schema's defaults) as a training run builds it (``build.make_pool``/``make_env``/
    ``make_model``: network, rollout, update, opponents, ``skip_forced``), except that the imitation
    warm start is skipped (the row says how many games it would have played) and nothing is
    evaluated, checkpointed or logged. ``threads``: torch threads (None: the config's
    ``algorithm.torch_threads``). The row carries what was measured: the config's label, the
    model's network and rollout sizes, the pool's opponent weights."""
    from .build import make_env, make_model, make_pool, set_threads, update_threads, update_threads_callback
    from .config import make_game_from_config

    cfg, label = throughput_config(env_id, game_options, config, overrides)
    threads = cfg["algorithm"]["torch_threads"] if threads is None else threads
    set_threads(threads)
    upd_threads = update_threads(cfg["algorithm"])
    callback = update_threads_callback(threads, upd_threads)  # as a training run switches them
    game = make_game_from_config(cfg)
    pool = make_pool(cfg, game, warn=False)
    env = make_env(cfg, game, pool)
    try:
        model = make_model(cfg, env)
        # a snapshot so the 'snapshots' share of the pool is a real second network, as in training
        pool.add_snapshot(0)
        timer = _UpdateTimer(model)
        model.learn(model.n_steps * model.n_envs, callback=callback)  # warm-up rollout + update
        env.time_env = env.time_opponents = 0.0
        timer.seconds = 0.0
        steps, wall = _steps_for_continuing(model, seconds, callback)
    finally:
        env.close()  # the self-play worker processes, if any
    opp = env.time_opponents
    env_only = env.time_env - opp
    return {
        "env_id": env_id,
        "game_options": dict(game_options or {}),
        "config_file": label,
        "steps_per_s": steps / wall,
        "steps": steps,
        "seconds": wall,
        "share_env": env_only / wall,
        "share_opponents": opp / wall,
        "share_update": timer.seconds / wall,
        "share_other": max(0.0, 1 - (env_only + opp + timer.seconds) / wall),
        "n_envs": model.n_envs,
        "n_steps": model.n_steps,
        "batch_size": model.batch_size,
        "n_epochs": model.n_epochs,
        "trunk": cfg["algorithm"]["trunk"],
        "net_arch": list(model.policy.net_arch),
        "activation": cfg["algorithm"]["activation"],
        "skip_forced": env.skip_forced,
        "torch_threads": threads,
        "update_threads": upd_threads,
        "env_workers": getattr(env, "workers", 1),
        "opponents": dict(pool.weights),
        "imitation_games_skipped": cfg["imitation"]["games"],
    }


def _steps_for_continuing(model, seconds: float, callback=None) -> tuple[int, float]:
    start = model.num_timesteps
    rollout = model.n_steps * model.n_envs
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        model.learn(rollout, reset_num_timesteps=False, callback=callback)
    return model.num_timesteps - start, time.perf_counter() - t0


def measure_tutorial_baseline(seconds: float = 20.0, threads: int = 1, update_threads: int | None = 0) -> dict:
    """The PettingZoo SB3 action-masking tutorial's pattern on connect_four_v3, same measurements.

    ``update_threads``: torch threads for its PPO updates, switched as a training run switches
    them (None: the rule of ``algorithm.update_threads: 0``; 0, the default: keep ``threads``
    throughout, the pattern's fastest here: its updates are small products on 84 floats, and on a
    2-core box two update threads made it 3-8% slower)."""
    from pettingzoo.classic import connect_four_v3
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from sb3_contrib.common.wrappers import ActionMasker

    from .build import log_without_temp_folder, set_threads
    from .build import update_threads as auto_update_threads

    set_threads(threads)
    if update_threads is None:
        update_threads = auto_update_threads({"update_threads": 0})
    update_threads = update_threads or threads
    callback = None
    if update_threads != threads:
        from .build import update_threads_callback

        callback = update_threads_callback(threads, update_threads)
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
    log_without_temp_folder(model)  # the same logger SB3 makes, minus its empty temp folder
    timer = _UpdateTimer(model)
    model.learn(model.n_steps, callback=callback)  # warm-up rollout + update
    env_time[0] = 0.0
    timer.seconds = 0.0
    steps, wall = _steps_for_continuing(model, seconds, callback)
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
        "update_threads": update_threads,
    }


__all__ = ["SCHEMA_DEFAULTS", "configs_dir", "measure_training_throughput", "measure_tutorial_baseline",
           "no_shipped_config_note", "shipped_config", "throughput_config"]
