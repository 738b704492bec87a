"""``engine: rllib``: the same YAML config trained by Ray RLlib's PPO (new API stack) instead of SB3.

How the config maps (docs/training.md, "Training with Ray RLlib"):

- ``self_play.opponents``: ``KabenvsSelfPlayEnv`` draws one learner seat and an opponent kind per
  other seat at every deal; the policy mapping sends ``main:*`` agents to the learning policy
  ``main``, ``snap_<k>:*`` to the frozen policy ``snap_<k>`` (``max_snapshots`` slots, refilled round
  robin every ``snapshot_interval`` learner steps with a copy of ``main``), and the env plays
  ``random`` and ``heuristic`` seats itself. Unlike the SB3 engine, ``self`` seats' moves train
  ``main`` too (RLlib's self-play: every seat played by ``main`` is experience).
- ``algorithm``: one PPO update per ``n_envs * n_steps`` env steps (``train_batch_size_per_learner``),
  ``batch_size`` -> minibatches, ``n_epochs``, learning rate, gamma, ``gae_lambda``, ``clip_range``,
  ``ent_coef``, ``vf_coef``, ``max_grad_norm``, ``target_kl`` (a KL loss when set); the actor is an
  MLP of ``[trunk] + net_arch`` with ``activation``; ``total_timesteps`` counts the learning policy's
  decisions, as with SB3.
- ``ray``: where Ray runs (``address``, else RAY_ADDRESS, else a local Ray of ``num_cpus``), env
  runners and learners.
- ``evaluation``/``output``: the trained policy is exported to the safe model format at every
  evaluation, checkpoint and at the end, and evaluated by the same code as SB3 runs (CSV, plot,
  final_evaluation.json); ``final_model.safetensors`` is what ``kabenvs evaluate``/``play``/``serve``
  load. ``--resume`` is not supported with this engine (the run folder holds safe models, not
  RLlib's algorithm state).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from kabenvs.agents.policy import load_agent
from kabenvs.core.files import atomic_write_json
from kabenvs.extras import require
from .config import dump_config, game_options
from .evaluation import Report
from .run import Trainer, drive


def ppo_config(cfg: dict[str, Any]):
    """The ``PPOConfig`` of a validated ``engine: rllib`` config."""
    require("ray.rllib", "rllib")
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from kabenvs.interop.rllib import KabenvsSelfPlayEnv, MaskedPPOTorchRLModule

    alg, sp, ray_cfg = cfg["algorithm"], cfg["self_play"], cfg["ray"]
    env_id = cfg["game"]["env_id"]
    snaps = KabenvsSelfPlayEnv.snapshot_ids(sp["max_snapshots"])
    hidden = ([alg["trunk"]] if alg["trunk"] else []) + list(alg["net_arch"])
    model = {"fcnet_hiddens": hidden, "fcnet_activation": alg["activation"], "head_fcnet_hiddens": []}
    spec = RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=model)
    target_kl = alg["target_kl"]
    return (
        PPOConfig()
        .environment(KabenvsSelfPlayEnv, env_config={
            "env_id": env_id, **game_options(cfg), "opponents": sp["opponents"],
            "max_snapshots": sp["max_snapshots"], "seed": alg["seed"],
        })
        .multi_agent(policies={"main", *snaps}, policies_to_train=["main"],
                     policy_mapping_fn=_policy_mapping)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={m: spec for m in ["main", *snaps]}))
        .env_runners(num_env_runners=ray_cfg["num_env_runners"],
                     num_envs_per_env_runner=ray_cfg["num_envs_per_env_runner"])
        .learners(num_learners=ray_cfg["num_learners"], num_gpus_per_learner=ray_cfg["num_gpus_per_learner"])
        .training(
            train_batch_size_per_learner=alg["n_envs"] * alg["n_steps"], minibatch_size=alg["batch_size"],
            num_epochs=alg["n_epochs"], lr=alg["learning_rate"], gamma=alg["gamma"], lambda_=alg["gae_lambda"],
            clip_param=alg["clip_range"], entropy_coeff=alg["ent_coef"], vf_loss_coeff=alg["vf_coef"],
            grad_clip=alg["max_grad_norm"], grad_clip_by="global_norm",
            use_kl_loss=target_kl is not None, **({"kl_target": target_kl} if target_kl is not None else {}),
        )
        .debugging(seed=alg["seed"])
    )


def _policy_mapping(agent_id, episode=None, **kwargs) -> str:
    return str(agent_id).split(":", 1)[0]  # KabenvsSelfPlayEnv.policy_of, without importing Ray here


def start_ray(ray_cfg: dict[str, Any]) -> str:
    """Join ``ray.address`` (or RAY_ADDRESS), else start a local Ray; returns where it runs."""
    import ray

    address = ray_cfg["address"] or os.environ.get("RAY_ADDRESS") or None
    if not ray.is_initialized():
        if address:
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(num_cpus=ray_cfg["num_cpus"], include_dashboard=False, log_to_driver=False)
    return f"the Ray cluster at {address}" if address else "a local Ray on this machine"


class RllibTrainer(Trainer):
    """The SB3 ``Trainer``'s run folder, evaluation and report, with RLlib doing the learning."""

    def __init__(self, cfg: dict[str, Any], folder: Path, echo=print) -> None:
        super().__init__(cfg, folder, resume=False, echo=echo)
        self.algo = None
        self.steps = 0
        self.snapshots_taken = 0
        self._latest: Path | None = None

    def setup(self) -> None:
        import torch

        torch.set_num_threads(self.cfg["algorithm"]["torch_threads"])
        self.run.create()
        dump_config(self.cfg, self.run.config)
        where = start_ray(self.cfg["ray"])
        self.notes.append(f"trained by Ray RLlib on {where}")
        self.algo = ppo_config(self.cfg).build_algo()
        self._export(self.run.checkpoints / "step_0")

    # -- the learning policy as a kabenvs agent -----------------------------------------------
    def _export(self, path: Path) -> Path:
        from kabenvs.interop.rllib import export_safe_model

        module = self.algo.get_module("main")
        weights = export_safe_model(module, path, self.game.env_id, extra={
            "train_seconds": round(self.train_seconds(), 1), "learner_steps": self.steps, "config": self.cfg,
        }, **self.game.config.to_dict())
        self._latest = weights
        return weights

    def learner_agent(self, seed: int):
        agent = load_agent(self._latest, self.game, seed=seed, deterministic=self.cfg["evaluation"]["deterministic"])
        agent.name = "trained"
        return agent

    def evaluate_now(self, deals: int) -> dict[str, Report]:
        self._export(self.run.checkpoints / f"step_{self.steps}")
        return self._reports(deals)

    def _reports(self, deals: int) -> dict[str, Report]:
        from .evaluation import solo_reports, versus_baseline

        seed = self.cfg["evaluation"]["seed"]
        if self.game.num_players == 1:
            return solo_reports(self.game, "trained", self.learner_agent(seed), self.baselines, deals, seed)
        return {kind: versus_baseline(self.game, "trained", self.learner_agent(seed), kind, deals, seed)
                for kind in self.baselines}

    def learner_steps(self) -> int:
        return self.steps

    # -- snapshots and checkpoints -----------------------------------------------------------------
    def take_snapshot(self, step: int) -> None:
        k = self.snapshots_taken % self.cfg["self_play"]["max_snapshots"]
        slot = f"snap_{k}"
        state = self.algo.learner_group.get_state(components="learner/rl_module/main")
        main = state["learner"]["rl_module"]["main"]
        self.algo.learner_group.set_state({"learner": {"rl_module": {slot: main}}})
        self.algo.env_runner_group.sync_weights(from_worker_or_learner_group=self.algo.learner_group,
                                                policies=[slot], inference_only=True)
        self.snapshots_taken += 1
        ready = min(self.snapshots_taken, self.cfg["self_play"]["max_snapshots"])
        # every env of every env runner (the driver's local runner has no env when sampling is remote)
        self.algo.env_runner_group.foreach_env_runner(
            lambda runner: [e.unwrapped.set_snapshots(ready) for e in (runner.env.envs if runner.env else [])])
        self.progress["last_snapshot"] = step

    def save_checkpoint(self, step: int) -> Path:
        path = self._export(self.run.checkpoints / f"step_{step}")
        self.progress.update(last_checkpoint=step, checkpoint=path.name, train_seconds=self.train_seconds())
        return path

    # -- the run -----------------------------------------------------------------------------------
    def learn(self) -> bool:
        total = self.cfg["algorithm"]["total_timesteps"]
        sp, ev, out = self.cfg["self_play"], self.cfg["evaluation"], self.cfg["output"]
        bar = _progress(total, out["progress_bar"])
        self._t0 = time.perf_counter()
        try:
            while self.steps < total:
                result = self.algo.train()
                before, self.steps = self.steps, learner_steps_of(result)
                self.last_result = result
                bar(self.steps - before)
                if self.steps - self.progress["last_snapshot"] >= sp["snapshot_interval"]:
                    self.take_snapshot(self.steps)
                if self.steps - self.progress["last_eval"] >= ev["interval"]:
                    self.periodic_evaluation(self.steps)
                if self.steps - self.progress["last_checkpoint"] >= out["checkpoint_interval"]:
                    self.save_checkpoint(self.steps)
        except KeyboardInterrupt:
            path = self.save_checkpoint(self.steps)
            self.echo(f"\ninterrupted at step {self.steps}; the policy so far is saved as {path}")
            return False
        finally:
            bar(None)
        return True

    def finish(self) -> dict[str, Report]:
        self.save_checkpoint(self.steps)
        self._export(self.run.final_model.with_suffix(""))
        reports = self.evaluate_final()
        self.stop()
        return reports

    def evaluate_final(self) -> dict[str, Report]:
        reports = self._reports(self.cfg["evaluation"]["final_deals"])
        self._record(self.steps, reports, phase="final")
        safe = self.run.final_model.with_suffix(".safetensors")
        atomic_write_json(self.run.final_evaluation, {
            "step": self.steps, "train_seconds": round(self.train_seconds(), 1), "engine": "rllib",
            "model": str(safe), "reports": {k: r.to_json() for k, r in reports.items()}, "notes": self.notes,
        }, indent=2)
        return reports

    def stop(self) -> None:
        if self.algo is not None:
            self.algo.stop()
            self.algo = None


def learner_steps_of(result: dict) -> int:
    """The learning policy's decisions sampled so far, from an ``algo.train()`` result."""
    runners = result.get("env_runners", {})
    per_module = runners.get("num_module_steps_sampled_lifetime") or {}
    if "main" in per_module:
        return int(per_module["main"])
    return int(runners.get("num_env_steps_sampled_lifetime", 0))


def _progress(total: int, enabled: bool):
    import sys

    if not enabled or not sys.stderr.isatty():
        return lambda n: None
    from tqdm import tqdm

    bar = tqdm(total=total, unit="step", file=sys.stderr, dynamic_ncols=True)

    def update(n):
        if n is None:
            bar.close()
        else:
            bar.update(max(0, min(n, total - bar.n)))

    return update


def train_rllib(cfg: dict[str, Any], folder: Path, echo=print) -> tuple[RllibTrainer, dict[str, Report] | None]:
    trainer = RllibTrainer(cfg, folder, echo=echo)
    try:
        return drive(trainer, echo)
    finally:
        trainer.stop()


__all__ = ["RllibTrainer", "learner_steps_of", "ppo_config", "start_ray", "train_rllib"]


def measure_rllib_throughput(env_id: str, game_options: dict[str, Any] | None = None, env_runners: int = 1,
                             iterations: int = 4) -> dict:
    """Learner steps/s (the learning policy's decisions per second of ``algo.train()``, sampling
    and updates together) of the default config on engine: rllib, after one warm-up iteration;
    docs/results.md's RLlib rows come from this on a local Ray."""
    from .config import validate

    raw = {"engine": "rllib", "game": {"env_id": env_id, **(game_options or {})},
           "ray": {"num_env_runners": env_runners}, "output": {"tensorboard": False}}
    cfg = validate(raw, source="throughput")
    start_ray(cfg["ray"])
    algo = ppo_config(cfg).build_algo()
    try:
        steps = learner_steps_of(algo.train())
        t0 = time.perf_counter()
        for _ in range(iterations):
            last = learner_steps_of(algo.train())
        seconds = time.perf_counter() - t0
    finally:
        algo.stop()
    return {"env_id": env_id, "env_runners": env_runners, "learner_steps": last - steps, "seconds": round(seconds, 1),
            "learner_steps_per_s": round((last - steps) / seconds, 1)}


__all__ += ["measure_rllib_throughput"]
