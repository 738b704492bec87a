"""--resume of a run whose config.yaml no longer describes the game its checkpoints were trained for
(a user edited the player count or an option) is refused in one line and changes nothing; it used
to set every checkpoint aside as broken, delete the snapshots, trim the CSV and train again from
step 0 over the final model."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
import yaml

pytest.importorskip("sb3_contrib")

from kabenvs.commands.train import main as train_main
from training import checkpoints as ck
from training.config import validate
from training.run import train

from tests.training.test_checkpoints import raw_config as checkpoint_run_config


def raw_config(tmp_path: Path, steps: int = 128) -> dict:
    """test_checkpoints' tiny run, evaluated every 64 steps."""
    raw = checkpoint_run_config(tmp_path, steps=steps)
    raw["evaluation"]["interval"] = 64
    return raw


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    """One tiny finished run (two checkpoints, snapshots, CSV, final model), trained once."""
    base = tmp_path_factory.mktemp("runs")
    trainer, reports = train(validate(raw_config(base)), echo=lambda *a: None)
    assert reports and len(ck.numbered(trainer.run.checkpoints, ck.CHECKPOINT_RE)) == 2
    return trainer.run.path


def folder_state(folder: Path) -> dict[str, tuple[int, str]]:
    """Every file under ``folder``: its size and sha256 (a renamed, deleted or rewritten file shows)."""
    return {str(p.relative_to(folder)): (p.stat().st_size, hashlib.sha256(p.read_bytes()).hexdigest())
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("edit, was, now", [
    ({"num_players": 3}, "num_players=2", "num_players=3"),  # other sizes: the checkpoints would not load
    ({"max_rounds": 20}, "max_rounds=30", "max_rounds=20"),  # same sizes: they would load and train another game
])
def test_resume_refuses_a_run_whose_config_yaml_names_another_game(finished_run, tmp_path, capsys, edit, was, now):
    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    saved = yaml.safe_load((run / "config.yaml").read_text())
    saved["game"].update(edit)  # the user edits the run's config.yaml
    (run / "config.yaml").write_text(yaml.safe_dump(saved, sort_keys=False))
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(raw_config(tmp_path, steps=256)))
    before = folder_state(run)
    assert any(name.startswith("snapshots/") for name in before) and "final_model.safetensors" in before

    rc = train_main([str(config), "--resume", str(run)])

    err = capsys.readouterr().err
    assert rc == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert "checkpoint" in err and was in err and now in err, err
    assert "restore" in err and "start a new run" in err, err
    assert "Traceback" not in err
    assert folder_state(run) == before  # nothing renamed *.broken, deleted, trimmed or overwritten


@pytest.mark.parametrize("edit, was, now", [
    ({"net_arch": [17, 9]}, "net_arch=[8]", "net_arch=[17, 9]"),  # SB3 would keep the archive's network
    ({"trunk": 0}, "trunk=8", "trunk=0"),
    ({"learning_rate": 0.001}, "learning_rate=0.0005", "learning_rate=0.001"),  # and its hyperparameters
])
def test_resume_refuses_an_edited_setting_the_checkpoint_fixes(finished_run, tmp_path, capsys, edit, was, now):
    """A checkpoint's archive fixes the network, the hyperparameters and the seed: resuming went on
    with the checkpoint's and left config.yaml saying otherwise (the final model then did not match
    its run's config). Refused in one line, naming what --resume may change; nothing is touched."""
    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    saved = yaml.safe_load((run / "config.yaml").read_text())
    saved["algorithm"].update(edit)
    (run / "config.yaml").write_text(yaml.safe_dump(saved, sort_keys=False))
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(raw_config(tmp_path, steps=256)))
    before = folder_state(run)

    rc = train_main([str(config), "--resume", str(run)])

    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1, err
    assert was in err and now in err and "n_envs" in err and "start a new run" in err, err
    assert folder_state(run) == before


def test_resume_of_a_checkpoint_without_saved_settings_compares_its_network(finished_run, tmp_path, capsys):
    """Checkpoints written before the settings were saved: their network is still compared."""
    import json

    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    for meta_path in (run / "checkpoints").glob("step_*.json"):
        meta = json.loads(meta_path.read_text())
        assert meta.pop("algorithm_settings")["net_arch"] == [8]
        meta_path.write_text(json.dumps(meta))
    saved = yaml.safe_load((run / "config.yaml").read_text())
    saved["algorithm"]["net_arch"] = [17, 9]
    (run / "config.yaml").write_text(yaml.safe_dump(saved, sort_keys=False))
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(raw_config(tmp_path, steps=256)))

    assert train_main([str(config), "--resume", str(run)]) == 2
    err = capsys.readouterr().err
    assert "net_arch=[8]" in err and "net_arch=[17, 9]" in err, err


def test_resume_with_the_run_config_unchanged_still_continues(finished_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    cfg = validate(raw_config(tmp_path, steps=192))
    lines = []
    saved = yaml.safe_load((run / "config.yaml").read_text())
    saved["algorithm"]["n_envs"] = 8  # a setting --resume may change (SB3 rebuilds for the env it gets)
    (run / "config.yaml").write_text(yaml.safe_dump(saved, sort_keys=False))
    trainer, reports = train(cfg, resume_folder=run, echo=lines.append)
    assert any(line.startswith("resuming") for line in lines), lines
    assert trainer.model.n_envs == 8
    assert reports and trainer.model.num_timesteps >= 192
    assert not list((run / "checkpoints").glob(f"*{ck.BROKEN_SUFFIX}"))


def test_a_file_where_the_run_folder_would_go_is_passed_over(tmp_path):
    """output.name naming an existing file: the run goes to name_2 (it raised NotADirectoryError)."""
    from training.run import fresh_run_folder

    (tmp_path / "run").write_text("my notes")
    cfg = {"output": {"dir": str(tmp_path), "name": "run"}}
    assert fresh_run_folder(cfg) == tmp_path / "run_2"
    assert (tmp_path / "run").read_text() == "my notes"


def test_settings_read_from_a_damaged_checkpoint_metadata_are_compared_without_a_crash():
    """Checkpoint metadata is a file: whatever it holds, the comparison names at most a few
    settings, each cut short, and reads a missing or odd network as nothing to compare."""
    from training.run import _settings_differences, fixed_settings

    alg = validate(raw_config(Path("unused")))["algorithm"]
    assert _settings_differences({"algorithm_settings": fixed_settings(alg)}, alg) == ([], [])
    was, now = _settings_differences({"algorithm_settings": {"net_arch": "x" * 5000, "gamma": [1] * 999}}, alg)
    assert [w.split("=")[0] for w in was] == ["gamma", "net_arch"] and max(map(len, was)) < 80, was
    assert now == ["gamma=0.99", "net_arch=[8]"]
    many = {k: "changed" for k in fixed_settings(alg)}
    was, now = _settings_differences({"algorithm_settings": many}, alg)
    assert len(was) == 7 and was[-1].startswith("...") and "settings differ" in was[-1]
    assert _settings_differences({}, alg) == ([], []) and _settings_differences({"network": "big"}, alg) == ([], [])
    assert _settings_differences({"network": {"trunk": 5, "hidden": [8], "activation": "relu"}}, alg) == (
        ["trunk=0"], ["trunk=8"])  # a trunk that is no description reads as none
    # an old checkpoint's network: hidden and trunk size from the safe model's own description
    old = {"network": {"hidden": [8], "activation": "relu", "trunk": {"size": 8, "activation": "relu"}}}
    assert _settings_differences(old, alg) == ([], [])
    assert _settings_differences({**old, "network": {**old["network"], "trunk": None}}, alg) == (["trunk=0"], ["trunk=8"])
