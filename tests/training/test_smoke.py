"""Tiny end-to-end training runs: the run folder, the final evaluation, --resume and Ctrl-C."""

from __future__ import annotations

import csv
import json

import pytest

pytest.importorskip("sb3_contrib")

from kabenvs import ENV_IDS, game_class
from kabenvs.agents.policy import load_agent
from training.config import validate
from training.run import Trainer, train


def tiny_config(tmp_path, env_id="kabaleo_v0", steps=256, **game):
    return validate({
        "game": {"env_id": env_id, **game},
        "algorithm": {"total_timesteps": steps, "n_envs": 4, "n_steps": 32, "batch_size": 64, "n_epochs": 1,
                      "trunk": 16, "net_arch": [16]},
        "self_play": {"snapshot_interval": 64, "opponents": {"self": 0.4, "snapshots": 0.3, "random": 0.2, "heuristic": 0.1}},
        "evaluation": {"interval": 128, "deals": 2, "final_deals": 3},
        "output": {"dir": str(tmp_path), "name": "run", "checkpoint_interval": 128, "progress_bar": False,
                   "tensorboard": False},
    })


def test_tiny_kabaleo_run_writes_the_whole_run_folder(tmp_path):
    cfg = tiny_config(tmp_path, num_players=2)
    trainer, reports = train(cfg, echo=lambda *a: None)
    run = trainer.run.path
    assert run == tmp_path / "run"
    assert trainer.model.num_timesteps >= 256
    for name in ("config.yaml", "final_model.zip", "final_model.safetensors", "final_model.json",
                 "evaluations.csv", "win_rate.png", "final_evaluation.json"):
        assert (run / name).is_file(), name
    assert list((run / "checkpoints").glob("step_*.zip")) and list((run / "snapshots").glob("snap_*.pt"))
    for ckpt in (run / "checkpoints").glob("step_*.zip"):  # every checkpoint also as a safe model
        assert ckpt.with_suffix(".safetensors").is_file() and ckpt.with_suffix(".json").is_file()
    rows = list(csv.DictReader(open(run / "evaluations.csv")))
    assert {r["baseline"] for r in rows} >= {"random"}
    assert int(rows[-1]["games"]) == 6  # final_deals x 2 seatings
    assert "random" in reports and reports["random"].result.games == 6
    summary = json.loads((run / "final_evaluation.json").read_text())
    assert summary["step"] == trainer.model.num_timesteps
    agent = load_agent(run / "final_model", trainer.game)  # the final (safe) model plays
    assert agent.path == str(run / "final_model.safetensors")
    assert agent.metadata["env_id"] == "kabaleo_v0"

    # --resume continues the same run to a longer total
    cfg2 = dict(cfg, algorithm={**cfg["algorithm"], "total_timesteps": 512})
    trainer2, reports2 = train(cfg2, resume_folder=run, echo=lambda *a: None)
    assert trainer2.run.path == run and trainer2.model.num_timesteps >= 512
    assert len(trainer2.pool.snapshots) >= 1  # the pool came back from disk

    # a second run with the same name gets a fresh folder
    trainer3 = Trainer(cfg, __import__("training.run", fromlist=["x"]).fresh_run_folder(cfg))
    assert trainer3.run.path == tmp_path / "run_2"


def test_ctrl_c_saves_a_checkpoint(tmp_path, monkeypatch):
    cfg = tiny_config(tmp_path, steps=4096)
    import training.run as run_mod

    real = run_mod.Trainer.periodic_evaluation

    def interrupt(self, step, logger=None):
        real(self, step, logger)
        raise KeyboardInterrupt

    monkeypatch.setattr(run_mod.Trainer, "periodic_evaluation", interrupt)
    trainer, reports = train(cfg, echo=lambda *a: None)
    assert reports is None
    ckpt = trainer.run.latest_checkpoint()
    assert ckpt is not None and ckpt.with_suffix(".json").is_file()
    assert 0 < trainer.model.num_timesteps < 4096


@pytest.mark.slow
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_smoke_every_registered_game(tmp_path, env_id):
    counts = game_class(env_id).Config.PLAYER_COUNTS
    for n in sorted({min(counts), max(counts)}):
        cfg = tiny_config(tmp_path / f"{n}p", env_id=env_id, steps=512, num_players=n)
        trainer, reports = train(cfg, echo=lambda *a: None)
        assert trainer.model.num_timesteps >= 512
        assert (trainer.run.path / "final_model.zip").is_file()
        assert reports  # at least the random baseline


def test_a_run_with_search_opponents_asks_them_to_move(tmp_path, monkeypatch):
    """A few hundred learner steps against a pool that holds the search bot: it is asked to move
    (and answers legally: the env would fail on an illegal action)."""
    from kabenvs.agents.search import SearchAgent

    asked = []
    real = SearchAgent.act

    def counting(self, decision):
        asked.append(decision.player)
        return real(self, decision)

    monkeypatch.setattr(SearchAgent, "act", counting)
    cfg = tiny_config(tmp_path, steps=256, num_players=2)
    cfg["self_play"] = {**cfg["self_play"], "opponents": {"self": 0.5, "search": 0.5},
                        "search_spec": "search:sims=2"}
    cfg["evaluation"] = {**cfg["evaluation"], "baselines": ["random"], "final_deals": 1}
    trainer, reports = train(cfg, echo=lambda *a: None)
    assert trainer.model.num_timesteps >= 256
    assert trainer.pool.search_agent is not None and trainer.pool.search_agent.sims == 2
    assert len(asked) > 10
    assert trainer.pool.search_agent.last_iterations in (0, 2)


def test_cuda_asked_for_without_a_gpu_trains_on_the_cpu_and_says_so(tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA GPU (test_a_cuda_run_learns_plays_and_saves runs instead)")
    cfg = tiny_config(tmp_path, num_players=2)
    cfg["algorithm"]["device"] = "cuda"
    lines = []
    trainer, _ = train(cfg, echo=lambda *a: lines.append(" ".join(map(str, a))))
    assert trainer.model.device.type == "cpu"
    assert "note: algorithm.device is 'cuda' but torch sees no CUDA GPU here: training on the CPU" in lines


def test_a_cuda_run_learns_plays_and_saves(tmp_path):
    """With a GPU the learner is on it and also plays its own training opponents (self and
    snapshots: their observations go to the GPU, their actions come back); the run resumes, and
    its safe model loads on the CPU. Before the fix the first opponent move failed with torch's
    'Expected all tensors to be on the same device' (seen on an NVIDIA H200)."""
    import torch

    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    cfg = tiny_config(tmp_path, num_players=2)
    cfg["algorithm"]["device"] = "cuda"
    trainer, reports = train(cfg, echo=lambda *a: None)
    assert trainer.model.device.type == "cuda" and trainer.pool.snapshots
    assert "random" in reports
    cfg2 = dict(cfg, algorithm={**cfg["algorithm"], "total_timesteps": 512})
    trainer2, _ = train(cfg2, resume_folder=trainer.run.path, echo=lambda *a: None)
    assert trainer2.model.num_timesteps >= 512 and trainer2.model.device.type == "cuda"
    agent = load_agent(trainer.run.path / "final_model", trainer.game)
    assert next(agent.policy.parameters()).device.type == "cpu"
