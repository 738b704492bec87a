"""One training run: config -> run folder -> MaskablePPO self-play -> final model + evaluation.

Run folder (``output.dir/output.name``)::

    config.yaml            the resolved config (every default filled in)
    checkpoints/           step_<N>.zip (SB3 archive, for --resume) + step_<N>.safetensors/.json (the
                           safe model; the .json also records the progress at that step), every
                           output.checkpoint_interval steps, on Ctrl-C, and at the end; the newest
                           output.keep_checkpoints are kept; progress.json summarises the last one
    snapshots/             snap_<N>.pt: the opponent pool's frozen policies as of the newest
                           checkpoint (restored by --resume); never more than self_play.max_snapshots
    tensorboard/           SB3's TensorBoard logs plus eval/win_rate_<baseline>
    evaluations.csv        one row per (step, baseline) evaluation
    win_rate.png           win rate against each baseline over training steps, with 95% CIs
    final_model.safetensors/.json  the trained policy as a safe model (share and play this one)
    final_model.zip        SB3's archive of the final model (unpickled on load: trusted like code)
    final_evaluation.json  the final table as JSON

Every file is written atomically and ``--resume`` takes the newest intact checkpoint
(``training/checkpoints.py``), so a run killed at any moment can be resumed.
"""

from __future__ import annotations

import csv
import io
import json
import time
from pathlib import Path
from typing import Any

from kabenvs.agents.policy import PolicyAgent, save_model
from kabenvs.agents.safe_model import game_metadata
from kabenvs.core.errors import brief
from kabenvs.core.files import atomic_write, atomic_write_json
from . import checkpoints as ck
from .config import TrainingConfigError, dump_config, load_yaml_file, make_game_from_config, validate
from .evaluation import BASELINES, Report, solo_reports, versus_baseline

CSV_FIELDS = ["step", "phase", "baseline", "players", "games", "win_rate", "ci_low", "ci_high", "mean_return",
              "fair_share", "elapsed_s"]


class RunFolder:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.checkpoints = path / "checkpoints"
        self.snapshots = path / "snapshots"
        self.tensorboard = path / "tensorboard"
        self.csv = path / "evaluations.csv"
        self.plot = path / "win_rate.png"
        self.config = path / "config.yaml"
        self.progress = self.checkpoints / "progress.json"
        self.final_model = path / "final_model.zip"
        self.final_evaluation = path / "final_evaluation.json"

    def create(self) -> None:
        for p in (self.path, self.checkpoints, self.snapshots):
            try:
                p.mkdir(parents=True, exist_ok=True)
            except OSError as exc:  # a file in the way, no permission, a read-only disk: bad output.dir
                raise TrainingConfigError(
                    f"output: cannot create the run folder {str(p)!r} ({exc.strerror or exc}); "
                    "choose another output.dir/output.name"
                ) from None

    def latest_checkpoint(self) -> Path | None:
        """The newest intact checkpoint (a broken newer one, e.g. from ``kill -9``, is passed over)."""
        for path, problem in self.checkpoint_candidates():
            if problem is None:
                return path
        return None

    def checkpoint_candidates(self) -> list[tuple[Path, str | None]]:
        """Every checkpoint, newest first, with what is wrong with it (None: intact)."""
        found = ck.numbered(self.checkpoints, ck.CHECKPOINT_RE)
        return [(path, ck.checkpoint_problem(path)) for _, path in reversed(found)]


def _game_differences(meta: dict[str, Any], want: dict[str, Any], game) -> tuple[list[str], list[str]]:
    """What a checkpoint's metadata says about its game that ``want`` (``game_metadata(game)``)
    does not, as ``(the checkpoint's, the config's)`` phrases; empty lists when they agree. Fields
    the metadata lacks (older checkpoints) are not compared."""
    was, now = [], []
    env = meta.get("env_id")
    if isinstance(env, str) and env != want["env_id"]:
        was.append(_cut(env))
        now.append(want["env_id"])
    options = meta.get("game_config")
    if not was and isinstance(options, dict):
        # a checkpoint saved before an option existed played it at its default (GameConfig.completed)
        options = game.Config.completed(options)
        changed = sorted(str(k) for k in set(options) | set(want["game_config"])
                         if options.get(k) != want["game_config"].get(k))
        for key in changed[:6]:  # untrusted metadata: a few names, each value cut short
            was.append(f"{_cut(key)}={brief(options.get(key), 40)}")
            now.append(f"{_cut(key)}={brief(want['game_config'].get(key), 40)}")
        if len(changed) > 6:
            was.append(f"... ({len(changed)} options differ)")
            now.append("...")
    for key, phrase in (("observation_size", "observation size {}"), ("num_actions", "{} actions")):
        if key in meta and meta[key] != want[key]:
            was.append(phrase.format(brief(meta[key], 20)))
            now.append(phrase.format(want[key]))
    return was, now


# The algorithm settings --resume takes from config.yaml: the length of training, the games played
# side by side (SB3 rebuilds its rollout buffer for the env it is given) and where, on how many
# threads and in how many processes it runs. Every other one is fixed by the checkpoint's archive (SB3 restores its network,
# hyperparameters and seed), so an edit of one in the run's config.yaml would be silently ignored.
RESUMABLE_SETTINGS = frozenset({"total_timesteps", "n_envs", "torch_threads", "update_threads", "device",
                                "env_workers"})


def fixed_settings(alg: dict[str, Any]) -> dict[str, Any]:
    """The algorithm settings a checkpoint fixes, as its metadata stores them (JSON types)."""
    return json.loads(json.dumps({k: v for k, v in sorted(alg.items()) if k not in RESUMABLE_SETTINGS}))


def _settings_differences(meta: dict[str, Any], alg: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The fixed algorithm settings a checkpoint was trained with that ``alg`` changes, as
    ``(the checkpoint's, the config's)`` phrases. Checkpoints from before the settings were saved
    are compared by their network, which every safe model's metadata describes."""
    now = fixed_settings(alg)
    saved = meta.get("algorithm_settings")
    if not isinstance(saved, dict):
        network = meta.get("network")
        if not isinstance(network, dict):
            return [], []
        trunk = network.get("trunk")
        saved = {"net_arch": network.get("hidden"), "activation": network.get("activation"),
                 "trunk": trunk.get("size") if isinstance(trunk, dict) else 0}
    changed = sorted(str(k) for k in saved if k in now and saved[k] != now[k])
    was = [f"{_cut(key)}={brief(saved[key], 40)}" for key in changed[:6]]
    said = [f"{key}={brief(now[key], 40)}" for key in changed[:6]]
    if len(changed) > 6:
        was.append(f"... ({len(changed)} settings differ)")
        said.append("...")
    return was, said


def _cut(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def fresh_run_folder(cfg: dict[str, Any]) -> Path:
    """``dir/name``, or ``dir/name_2``, ``_3``... when a previous run (or a file) holds that name."""
    base = Path(cfg["output"]["dir"]) / cfg["output"]["name"]
    path, k = base, 1
    # a file of that name is passed over like a used folder (iterdir on it raised NotADirectoryError)
    while path.exists() and (not path.is_dir() or any(path.iterdir())):
        k += 1
        path = base.with_name(f"{base.name}_{k}")
    return path


def available_baselines(cfg: dict[str, Any], env_id: str) -> tuple[list[str], list[str]]:
    from .pool import heuristic_available

    kinds, notes = [], []
    for kind in cfg["evaluation"]["baselines"]:
        if kind == "heuristic":
            ok, why = heuristic_available(env_id)
            if not ok:
                notes.append(f"evaluation against the heuristic bot skipped: {why}")
                continue
        kinds.append(kind)
    return kinds, notes


def _callback_class():
    from stable_baselines3.common.callbacks import BaseCallback

    class SelfPlayCallback(BaseCallback):
        """Snapshots for the pool, periodic evaluation (CSV, TensorBoard, plot), checkpoints."""

        def __init__(self, trainer: "Trainer") -> None:
            super().__init__()
            self.trainer = trainer

        def _on_step(self) -> bool:
            t = self.trainer
            step = self.num_timesteps
            sp, ev, out = t.cfg["self_play"], t.cfg["evaluation"], t.cfg["output"]
            if step - t.progress["last_snapshot"] >= sp["snapshot_interval"]:
                t.take_snapshot(step)
            if step - t.progress["last_eval"] >= ev["interval"]:
                t.periodic_evaluation(step, self.logger)
            if step - t.progress["last_checkpoint"] >= out["checkpoint_interval"]:
                t.save_checkpoint(step)
            return True

    return SelfPlayCallback


class Trainer:
    def __init__(self, cfg: dict[str, Any], folder: Path, resume: bool = False, echo=print) -> None:
        self.cfg = cfg
        self.run = RunFolder(folder)
        self.resume = resume
        self.echo = echo
        self.game = make_game_from_config(cfg)
        self.baselines, notes = available_baselines(cfg, self.game.env_id)
        self.notes = list(notes)
        self.progress = {"last_snapshot": 0, "last_eval": 0, "last_checkpoint": 0, "checkpoint": None,
                         "train_seconds": 0.0}
        self.model = None
        self.env = None
        self.pool = None
        self._t0 = time.perf_counter()
        self._seconds_before = 0.0

    # -- setup ------------------------------------------------------------------------------------
    def setup(self) -> None:
        from .build import make_env, make_model, make_pool, set_threads

        set_threads(self.cfg["algorithm"]["torch_threads"])
        self.run.create()
        self.pool = make_pool(self.cfg, self.game, warn=False)
        self.notes.extend(self.pool.notes)
        self.env = make_env(self.cfg, self.game, self.pool)
        tb = str(self.run.tensorboard) if self.cfg["output"]["tensorboard"] else None
        if self.resume:
            self._restore(tb)
        else:
            dump_config(self.cfg, self.run.config)
            self.model = make_model(self.cfg, self.env, tensorboard_log=tb)
            if self.cfg["imitation"]["games"] > 0:
                self._warm_start()
        if self.cfg["algorithm"]["device"] == "cuda" and self.model.device.type != "cuda":
            # SB3 falls back to the CPU without a word; a user who asked for the GPU is told
            self.notes.append("algorithm.device is 'cuda' but torch sees no CUDA GPU here: training on the CPU")

    def _warm_start(self) -> None:
        """Imitate the teacher, then measure where that leaves the policy (step 0 of the CSV)."""
        from .imitation import warm_start

        stats = warm_start(self.model, self.game, self.cfg, echo=self.echo)
        atomic_write_json(self.run.path / "imitation.json", stats, indent=2)
        if stats.get("examples"):
            self._record(0, self.evaluate_now(self.cfg["evaluation"]["deals"]), phase="imitation")
        self._seconds_before = self.train_seconds()  # the run's time includes the warm start

    def _restore(self, tb: str | None) -> None:
        """Load the newest checkpoint that is intact and loads; say in one line which one."""
        from sb3_contrib import MaskablePPO

        self._refuse_checkpoints_of_another_run()  # before anything in the folder is renamed or deleted
        ck.remove_stale_temporaries(self.run.path, self.run.checkpoints, self.run.snapshots)
        skipped = []
        for path, problem in self.run.checkpoint_candidates():
            if problem is None:
                try:
                    self.model = MaskablePPO.load(str(path), env=self.env, device=self.cfg["algorithm"]["device"],
                                                  tensorboard_log=tb)
                    if tb is None:
                        from .build import log_without_temp_folder

                        log_without_temp_folder(self.model)
                except Exception as exc:  # a checkpoint that passed the checks but does not load
                    problem = f"it does not load ({type(exc).__name__})"
            if problem is not None:
                ck.set_aside(path)
                skipped.append(f"{path.name} ({problem}; renamed *{ck.BROKEN_SUFFIX})")
                continue
            self.progress.update(ck.checkpoint_progress(path) or self._old_progress(path))
            self.progress["checkpoint"] = path.name
            break
        else:
            self._start_over(tb, skipped)
            return
        from .build import prepare_learner

        prepare_learner(self.model)  # outside the loading's try: a failure here is no broken checkpoint
        self._seconds_before = float(self.progress.get("train_seconds", 0.0))
        step = self.model.num_timesteps
        ck.trim_csv(self.run.csv, CSV_FIELDS, step)  # evaluations after the checkpoint are redone
        self.pool.set_current(self.model.policy)
        unreadable = self._restore_snapshots(step)
        notes = [f"skipped {', '.join(skipped)}"] if skipped else []
        if unreadable:
            notes.append(f"unreadable snapshots skipped: {', '.join(unreadable)}")
        self.echo(f"resuming {self.run.path} from {path.name} (the newest intact checkpoint) at step {step} "
                  f"with {len(self.pool.snapshots)} snapshots" + (f"; {'; '.join(notes)}" if notes else ""))

    def _refuse_checkpoints_of_another_run(self) -> None:
        """Refuse checkpoints whose metadata says they were made for another game than the run's
        config.yaml now describes (a user edited the player count, the game or an option), or with
        algorithm settings the checkpoint fixes and config.yaml now changes (``fixed_settings``:
        the network, a hyperparameter, the seed), which SB3 would silently keep.

        Such a checkpoint either does not load (other sizes) or trains another game than it
        learned; walking back past it would set every checkpoint aside as broken, delete the
        snapshots, trim the CSV and start over from step 0, overwriting the final model. The run
        is not broken, its config.yaml is: say so and change nothing. Metadata that cannot be read
        is left to ``_restore``, which sets that (really damaged) checkpoint aside as before."""
        want = game_metadata(self.game)
        for _, path in reversed(ck.numbered(self.run.checkpoints, ck.CHECKPOINT_RE)):
            try:
                meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
            except (OSError, ValueError, RecursionError):
                continue
            if not isinstance(meta, dict):
                continue
            was, now = _game_differences(meta, want, self.game)
            if was:
                raise TrainingConfigError(
                    f"--resume: checkpoint {path} was trained for {', '.join(was)}, but the run's config.yaml now "
                    f"says {', '.join(now)}; restore {self.run.config} or start a new run (nothing was changed)"
                )
            was, now = _settings_differences(meta, self.cfg["algorithm"])
            if was:
                raise TrainingConfigError(
                    f"--resume: checkpoint {path} was trained with {', '.join(was)}, but the run's config.yaml now "
                    f"says {', '.join(now)}, which the checkpoint fixes (--resume may change only "
                    f"{', '.join(sorted(RESUMABLE_SETTINGS))}); restore {self.run.config} or start a new run "
                    "(nothing was changed)"
                )

    def _old_progress(self, path: Path) -> dict:
        """progress.json, for a checkpoint written before checkpoints carried their progress."""
        try:
            saved = json.loads(self.run.progress.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return saved if isinstance(saved, dict) and saved.get("checkpoint") == path.name else {}

    def _restore_snapshots(self, step: int) -> list[str]:
        """Reload the pool's snapshots up to ``step``; later ones belong to a lost future: deleted."""
        unreadable = []
        snaps = ck.numbered(self.run.snapshots, ck.SNAPSHOT_RE)
        for snap_step, path in snaps:
            if snap_step > step:
                path.unlink(missing_ok=True)
        usable = [(k, p) for k, p in snaps if k <= step][-self.cfg["self_play"]["max_snapshots"]:]
        for snap_step, path in usable:
            state_dict = ck.load_snapshot(path)
            if state_dict is None:
                unreadable.append(path.name)
                path.unlink(missing_ok=True)
                continue
            self.pool.add_snapshot(snap_step, state_dict=state_dict)
        return unreadable

    def _start_over(self, tb: str | None, skipped: list[str]) -> None:
        """No usable checkpoint (killed before the first one): train this run again from step 0."""
        from .build import make_model

        for _, path in ck.numbered(self.run.snapshots, ck.SNAPSHOT_RE):
            path.unlink(missing_ok=True)
        ck.trim_csv(self.run.csv, CSV_FIELDS, -1)
        self.resume = False
        why = f" (skipped {', '.join(skipped)})" if skipped else ""
        self.echo(f"no intact checkpoint in {self.run.checkpoints}{why}; starting {self.run.path} over from step 0")
        self.model = make_model(self.cfg, self.env, tensorboard_log=tb)
        if self.cfg["imitation"]["games"] > 0:
            self._warm_start()

    # -- events during training -----------------------------------------------------------------
    def take_snapshot(self, step: int) -> None:
        """A snapshot joins the pool now; it reaches the disk with the next checkpoint."""
        self.pool.add_snapshot(step)
        self.progress["last_snapshot"] = step

    def _write_snapshots(self) -> None:
        """Make snapshots/ hold exactly the pool (at most ``max_snapshots`` files, ever).

        Called just before each checkpoint is written, so the folder holds the pool that belongs
        to the newest checkpoint, which is what --resume reloads. Stale files go first and new ones
        are written after (each atomically), so even a kill in between leaves no more than
        ``max_snapshots`` on disk; --resume from an older checkpoint (the newest one broken) then
        reloads the snapshots up to its step that are still there, possibly fewer than the pool had."""
        wanted = {int(key.split(":")[1]): snap for key, snap in self.pool.snapshots.items()}
        for step, path in ck.numbered(self.run.snapshots, ck.SNAPSHOT_RE):
            if step not in wanted:
                path.unlink(missing_ok=True)
        on_disk = {step for step, _ in ck.numbered(self.run.snapshots, ck.SNAPSHOT_RE)}
        for step, snap in wanted.items():
            if step not in on_disk:
                ck.save_snapshot(snap.state_dict(), self.run.snapshots / f"snap_{step}.pt")

    def learner_agent(self, seed: int) -> PolicyAgent:
        return PolicyAgent(self.model.policy, name="trained", seed=seed,
                           deterministic=self.cfg["evaluation"]["deterministic"])

    def evaluate_now(self, deals: int) -> dict[str, Report]:
        ev = self.cfg["evaluation"]
        self.model.policy.set_training_mode(False)
        if self.game.num_players == 1:
            return solo_reports(self.game, "trained", self.learner_agent(ev["seed"]), self.baselines, deals, ev["seed"])
        reports = {}
        for kind in self.baselines:
            agent = self.learner_agent(ev["seed"])
            reports[kind] = versus_baseline(self.game, "trained", agent, kind, deals, ev["seed"])
        return reports

    def periodic_evaluation(self, step: int, logger=None) -> dict[str, Report]:
        reports = self.evaluate_now(self.cfg["evaluation"]["deals"])
        self._record(step, reports, logger)
        self.progress["last_eval"] = step
        return reports

    def _record(self, step: int, reports: dict[str, Report], logger=None, phase: str = "periodic") -> None:
        rows = ck.read_csv_rows(self.run.csv, CSV_FIELDS)
        for kind, rep in reports.items():
            lo, hi = rep.result.interval(0)
            rows.append({
                "step": step, "phase": phase, "baseline": kind, "players": self.game.num_players,
                "games": rep.result.games, "win_rate": round(rep.result.win_rate(0), 4),
                "ci_low": round(lo, 4), "ci_high": round(hi, 4),
                "mean_return": round(rep.result.mean_return(0), 4),
                "fair_share": round(1 / self.game.num_players, 4),
                "elapsed_s": round(self.train_seconds(), 1),
            })
            if logger is not None:
                logger.record(f"eval/win_rate_{kind}", rep.result.win_rate(0))
        ck.write_csv_rows(self.run.csv, CSV_FIELDS, rows)  # rewritten whole, atomically
        try:
            plot_win_rates(self.run.csv, self.run.plot, title=plot_title(self.game))
        except Exception as exc:  # a plot must never stop a training run
            self.notes.append(f"plot not written: {exc}")

    def learner_steps(self) -> int:
        return self.model.num_timesteps

    def train_seconds(self) -> float:
        return self._seconds_before + time.perf_counter() - self._t0

    def save_checkpoint(self, step: int) -> Path:
        """Checkpoint (with the progress in its metadata), progress.json, then pruning: each step
        atomic, so a kill anywhere leaves the previous checkpoint or this one intact."""
        path = self.run.checkpoints / f"step_{step}.zip"
        self.progress["last_checkpoint"] = step
        self.progress["checkpoint"] = path.name
        self.progress["train_seconds"] = self.train_seconds()
        self._write_snapshots()
        ck.save_checkpoint(save_model, self.model, path, self.game, self.progress,
                           settings=fixed_settings(self.cfg["algorithm"]))
        ck.write_progress(self.run.progress, self.progress)
        ck.prune(self.run.checkpoints, ck.CHECKPOINT_RE, self.cfg["output"]["keep_checkpoints"],
                 protect=[path], companions=(".json", ".safetensors"))
        return path

    # -- the run ------------------------------------------------------------------------------------
    def learn(self) -> bool:
        """Train to ``total_timesteps``; returns False if interrupted (a checkpoint is saved)."""
        total = self.cfg["algorithm"]["total_timesteps"]
        remaining = total - self.model.num_timesteps
        if remaining <= 0:
            return True
        from stable_baselines3.common.callbacks import CallbackList

        from .build import update_threads_callback, update_threads_rule

        alg = self.cfg["algorithm"]
        callback = CallbackList([_callback_class()(self),
                                 update_threads_callback(alg["torch_threads"], update_threads_rule(alg, self.env))])
        self._t0 = time.perf_counter()
        try:
            self.model.learn(
                remaining, callback=callback, reset_num_timesteps=not self.resume,
                progress_bar=self.cfg["output"]["progress_bar"], tb_log_name="MaskablePPO",
            )
        except KeyboardInterrupt:
            path = self.save_checkpoint(self.model.num_timesteps)
            self.echo(f"\ninterrupted at step {self.model.num_timesteps}; checkpoint saved to {path}")
            return False
        return True

    def finish(self) -> dict[str, Report]:
        step = self.model.num_timesteps
        self.save_checkpoint(step)
        save_model(self.model, self.run.final_model, self.game, extra={
            "train_seconds": round(self.train_seconds(), 1), "config": self.cfg,
        })
        reports = self.evaluate_now(self.cfg["evaluation"]["final_deals"])
        self._record(step, reports, phase="final")
        summary = {
            "step": step, "train_seconds": round(self.train_seconds(), 1),
            "model": str(self.run.final_model),
            "reports": {k: r.to_json() for k, r in reports.items()}, "notes": self.notes,
        }
        atomic_write_json(self.run.final_evaluation, summary, indent=2)
        return reports


def final_table(game, reports: dict[str, Report], seconds: float, steps: int) -> str:
    n = game.num_players
    head = f"trained {game.env_id} {game.config.to_dict()} for {steps} learner steps in {seconds:.0f} s"
    if n == 1:  # solo: each agent alone on the same deals
        lines = [head, f"{'solo play by':<22} {'games':>6} {'win rate':>9} {'95% CI':>15} {'mean return':>11}"]
        for kind, rep in reports.items():
            r = rep.result
            lo, hi = r.interval(0)
            who = "trained agent" if kind == "solo" else kind.replace(" (solo)", "")
            lines.append(f"{who:<22} {r.games:>6} {r.win_rate(0):>9.3f} [{lo:.3f}, {hi:.3f}] {r.mean_return(0):>11.3f}")
        return "\n".join(lines)
    lines = [
        head,
        f"{'trained agent vs':<22} {'games':>6} {'win rate':>9} {'95% CI':>15} {'even share':>10}  verdict",
    ]
    for kind, rep in reports.items():
        r = rep.result
        lo, hi = r.interval(0)
        fair = 1 / n
        verdict = "beats it" if lo > fair else ("loses to it" if hi < fair else "not separable")
        who = kind if n == 2 else f"{n - 1} x {kind}"
        lines.append(f"{who:<22} {r.games:>6} {r.win_rate(0):>9.3f} [{lo:.3f}, {hi:.3f}] {fair:>10.3f}  {verdict}")
    return "\n".join(lines)


def plot_title(game) -> str:
    """The plot's title: the game and the player count (the whole config is in config.yaml)."""
    n = game.num_players
    return f"{game.env_id}, {n} player{'s' if n != 1 else ''}"


def plot_win_rates(csv_path: Path, png_path: Path, title: str = "") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(csv_path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    fig, ax = plt.subplots(figsize=(7, 4))
    for kind in dict.fromkeys(r["baseline"] for r in rows):
        by_step = {}  # the final evaluation (more deals) replaces a periodic one at the same step
        for r in rows:
            if r["baseline"] == kind and (r.get("phase") == "final" or r["step"] not in by_step):
                by_step[r["step"]] = r
        sel = sorted(by_step.values(), key=lambda r: int(r["step"]))
        x = [int(r["step"]) for r in sel]
        y = [float(r["win_rate"]) for r in sel]
        ax.plot(x, y, marker="o", label=f"vs {kind}")
        ax.fill_between(x, [float(r["ci_low"]) for r in sel], [float(r["ci_high"]) for r in sel], alpha=0.2)
    if rows:
        ax.axhline(float(rows[0]["fair_share"]), color="grey", linestyle="--", label="even share")
    ax.set_ylim(0, 1)
    ax.set_xlabel("learner steps")
    ax.set_ylabel("win rate (95% CI)")
    ax.set_title(title, fontsize=9)
    ax.legend()
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    atomic_write(png_path, buffer.getvalue())


def train(cfg: dict[str, Any], resume_folder: Path | None = None, echo=print) -> tuple[Trainer, dict[str, Report] | None]:
    """Train from a validated config. With ``resume_folder``, continue that run."""
    if cfg.get("engine", "sb3") == "rllib":
        from kabenvs.core.errors import ConfigError

        if resume_folder is not None:
            raise ConfigError("--resume is not supported with engine: rllib (its run folder holds safe models, "
                              "not RLlib's algorithm state); start a new run")
        from .rllib_engine import train_rllib

        return train_rllib(cfg, fresh_run_folder(cfg), echo=echo)
    if resume_folder is not None:
        folder = resume_folder
        saved = validate(load_yaml_file(folder / "config.yaml"), source=str(folder / "config.yaml"))
        # the saved config rules, except the length of training, which --resume may extend
        saved["algorithm"]["total_timesteps"] = cfg["algorithm"]["total_timesteps"]
        cfg = saved
    else:
        folder = fresh_run_folder(cfg)
    return drive(Trainer(cfg, folder, resume=resume_folder is not None, echo=echo), echo)


def drive(trainer: Trainer, echo=print) -> tuple[Trainer, dict[str, Report] | None]:
    """Set up, say where the run goes, learn, finish (None as the reports: interrupted)."""
    try:
        trainer.setup()
        for note in trainer.notes:
            echo(f"note: {note}")
        echo(f"run folder: {trainer.run.path}")
        if not trainer.learn():
            return trainer, None
        return trainer, trainer.finish()
    finally:
        if trainer.env is not None:
            trainer.env.close()  # the self-play worker processes, if any


__all__ = ["BASELINES", "Trainer", "final_table", "plot_title", "plot_win_rates", "train"]
