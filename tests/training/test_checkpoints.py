"""Runs survive being killed: atomic files, pruning, and --resume from the newest intact checkpoint."""

from __future__ import annotations

import csv
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

pytest.importorskip("sb3_contrib")

from training import checkpoints as ck
from training.config import validate
from training.run import train

ROOT = Path(__file__).resolve().parents[2]


def raw_config(tmp_path, steps=512, **output):
    return {
        "game": {"env_id": "kabaal_v0", "num_players": 2},
        "algorithm": {"total_timesteps": steps, "n_envs": 4, "n_steps": 16, "batch_size": 64, "n_epochs": 1,
                      "trunk": 8, "net_arch": [8]},
        "self_play": {"snapshot_interval": 32, "max_snapshots": 2,
                      "opponents": {"self": 0.5, "snapshots": 0.3, "random": 0.2}},
        "evaluation": {"interval": 128, "deals": 1, "final_deals": 1, "baselines": ["random"]},
        "output": {"dir": str(tmp_path), "name": "run", "checkpoint_interval": 64, "progress_bar": False,
                   "tensorboard": False, "keep_checkpoints": 2, **output},
    }


def test_checkpoints_and_snapshots_are_pruned_on_disk(tmp_path):
    trainer, reports = train(validate(raw_config(tmp_path)), echo=lambda *a: None)
    run = trainer.run
    checkpoints = ck.numbered(run.checkpoints, ck.CHECKPOINT_RE)
    snapshots = ck.numbered(run.snapshots, ck.SNAPSHOT_RE)
    assert len(checkpoints) == 2, checkpoints  # keep_checkpoints, though 8+ were written
    # exactly the pool of the newest checkpoint (max_snapshots), though 16 were taken
    assert [k for k, _ in snapshots] == sorted(int(key.split(":")[1]) for key in trainer.pool.snapshots), snapshots
    assert len(snapshots) == 2, snapshots
    assert len(list(run.checkpoints.glob("step_*.json"))) == 2  # metadata pruned with its archive
    assert checkpoints[-1][0] == trainer.model.num_timesteps
    progress = json.loads(run.progress.read_text())
    assert progress["checkpoint"] == checkpoints[-1][1].name
    assert ck.checkpoint_progress(checkpoints[-1][1])["last_checkpoint"] == checkpoints[-1][0]
    assert not [p for p in run.path.rglob(".*") if ".tmp" in p.name]  # no temporaries left


def test_training_and_resuming_leave_nothing_in_the_temp_directory(tmp_path, monkeypatch, capsys):
    """SB3 made an empty SB3-<date> folder in the temp directory at every learn() without
    TensorBoard (the test suite left hundreds); its verbose table still goes to stdout."""
    import tempfile

    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.delenv("SB3_LOGDIR", raising=False)
    raw = raw_config(tmp_path, steps=128, verbose=1)
    trainer, _ = train(validate(raw), echo=lambda *a: None)
    assert "total_timesteps" in capsys.readouterr().out  # SB3's table, as before
    raw["algorithm"]["total_timesteps"] = 192
    train(validate(raw), resume_folder=trainer.run.path, echo=lambda *a: None)
    assert not list(temp.glob("SB3-*")), list(temp.iterdir())


def test_resume_passes_over_broken_files_and_says_which_checkpoint(tmp_path):
    raw = raw_config(tmp_path, steps=256, keep_checkpoints=3)
    raw["self_play"]["max_snapshots"] = 20
    cfg = validate(raw)
    trainer, _ = train(cfg, echo=lambda *a: None)
    run = trainer.run
    (newest_step, newest), (older_step, older) = ck.numbered(run.checkpoints, ck.CHECKPOINT_RE)[::-1][:2]
    newest.write_bytes(newest.read_bytes()[:100])  # a checkpoint cut off mid-write
    run.progress.write_text("")  # the JSONDecodeError of the original report
    snaps = ck.numbered(run.snapshots, ck.SNAPSHOT_RE)
    usable = [p for k, p in snaps if k <= older_step]
    usable[-1].write_bytes(usable[-1].read_bytes()[:50])  # a truncated snapshot
    with open(run.csv, "a") as fh:
        fh.write("999999,periodic,random,2,")  # half a row from an old appending writer

    lines = []
    cfg2 = dict(cfg, algorithm={**cfg["algorithm"], "total_timesteps": 384})
    trainer2, reports = train(cfg2, resume_folder=run.path, echo=lines.append)
    said = [line for line in lines if line.startswith("resuming")]
    assert len(said) == 1
    assert f"from {older.name} (the newest intact checkpoint) at step {older_step}" in said[0]
    assert f"skipped {newest.name}" in said[0] and usable[-1].name in said[0]
    assert (run.checkpoints / (newest.name + ck.BROKEN_SUFFIX)).is_file()
    assert reports and trainer2.model.num_timesteps >= 384
    # the loaded model learned with what a new one gets (training/build.py prepare_learner)
    from training.build import fused_adam_supported
    from training.distribution import LeanMaskableCategoricalDistribution
    from training.rollout_buffer import StepMajorRolloutBuffer

    assert type(trainer2.model.rollout_buffer) is StepMajorRolloutBuffer
    assert type(trainer2.model.policy.action_dist) is LeanMaskableCategoricalDistribution
    assert trainer2.model.policy.optimizer.param_groups[0]["fused"] is (fused_adam_supported("cpu") or None)
    rows = list(csv.DictReader(open(run.csv)))
    assert all(r["elapsed_s"] for r in rows) and "999999" not in {r["step"] for r in rows}


def test_resume_without_any_checkpoint_starts_over(tmp_path):
    cfg = validate(raw_config(tmp_path, steps=128))
    trainer, _ = train(cfg, echo=lambda *a: None)
    for _, p in ck.numbered(trainer.run.checkpoints, ck.CHECKPOINT_RE):
        p.with_suffix(".json").unlink()
    lines = []
    trainer2, reports = train(cfg, resume_folder=trainer.run.path, echo=lines.append)
    assert any("no intact checkpoint" in line and "over from step 0" in line for line in lines)
    assert reports and trainer2.model.num_timesteps >= 128


@pytest.mark.parametrize("kills", [2, pytest.param(6, marks=pytest.mark.slow)])
def test_a_run_killed_at_random_moments_resumes_to_completion(tmp_path, kills):
    """SIGKILL a real training process at random moments (including mid-write), resume each time.
    Each process start costs a few seconds of imports (torch), hence 2 kills in the default run."""
    cfg_path = tmp_path / "tiny.yaml"
    cfg_path.write_text(yaml.safe_dump(raw_config(tmp_path, steps=512)))
    run = tmp_path / "run"
    rnd = random.Random(int(os.environ.get("KILL_SEED", "7")))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
    killed = 0
    for attempt in range(3 * kills + 6):
        cmd = [sys.executable, str(ROOT / "scripts" / "train.py"), str(cfg_path)]
        if attempt:
            cmd += ["--resume", str(run)]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        out = []
        for line in proc.stdout:  # training starts right after this line
            out.append(line)
            if line.startswith("run folder:"):
                break
        if killed < kills and proc.poll() is None:
            time.sleep(rnd.uniform(0.2, 2.0))
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                killed += 1
        rest = proc.stdout.read()
        proc.wait()
        text = "".join(out) + rest
        assert "Traceback" not in text, text
        assert len(ck.numbered(run / "snapshots", ck.SNAPSHOT_RE)) <= 2, text  # max_snapshots, even killed
        if proc.returncode == 0:
            break
        assert proc.returncode == -signal.SIGKILL, text
    else:
        pytest.fail("the run never completed")
    assert killed >= 1
    summary = json.loads((run / "final_evaluation.json").read_text())
    assert summary["step"] >= 512
    assert len(ck.numbered(run / "checkpoints", ck.CHECKPOINT_RE)) <= 2
    assert len(ck.numbered(run / "snapshots", ck.SNAPSHOT_RE)) <= 2  # max_snapshots, kills or not
