"""Files in the way: a --log that is some other file or lies under one, model metadata nested past
Python's recursion limit, a zoo --dir that is a file or cannot be made. Each is one line, exit
status 2, refused before any game is played, and leaves every file as it was."""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("safetensors")

from kabenvs.agents.policy import save_model
from kabenvs.commands.evaluate import main as evaluate_main
from kabenvs.commands.zoo import main as zoo_main
from kabenvs.core.registry import make_game
from kabenvs.play.cli import main as play_main
from kabenvs.records import read_records
from training.build import make_env, make_model, make_pool
from training.config import validate

EVALUATE = ["heuristic", "random", "--game", "kabaleo_v0", "--deals", "1"]
PLAY = ["kabaleo_v0", "--seat", "random", "random", "--seed", "3"]


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    """An untrained Kabaleo safe model (NAME.safetensors + NAME.json), as training saves it."""
    game = make_game("kabaleo_v0", num_players=2)
    cfg = validate({"game": {"env_id": "kabaleo_v0", "num_players": 2},
                    "algorithm": {"n_envs": 2, "n_steps": 8, "batch_size": 16, "trunk": 8, "net_arch": [8]},
                    "self_play": {"opponents": {"random": 1.0}}})
    net = make_model(cfg, make_env(cfg, game, make_pool(cfg, game, warn=False)))
    return save_model(net, tmp_path_factory.mktemp("model") / "m.zip", game).with_suffix("")


def _one_line(err: str) -> str:
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def _not_played(monkeypatch):
    """Fail the test if evaluate gets as far as building the game (the check must come first)."""
    def played(*args, **kwargs):
        raise AssertionError("games were played before the --log target was checked")

    monkeypatch.setattr("kabenvs.commands.evaluate.build_game", played)


# -- --log: an existing file that is not a game log ------------------------------------------------
NOT_LOGS = {
    "model metadata": None,  # the model's own NAME.json (the audit's case)
    "yaml config": b"game:\n  env_id: kabaleo_v0\n",
    "binary": bytes(range(256)) * 10,
    "json list": b"[1, 2, 3]\n",
    "another json object": b'{"env_id": "kabaleo_v0"}\n{"seed": 1}\n',
}


@pytest.mark.parametrize("kind", NOT_LOGS, ids=list(NOT_LOGS))
def test_log_refuses_an_existing_file_that_is_not_a_game_log(model, tmp_path, capsys, monkeypatch, kind):
    target = tmp_path / "target.json"
    if NOT_LOGS[kind] is None:
        shutil.copy(model.with_suffix(".json"), target)
    else:
        target.write_bytes(NOT_LOGS[kind])
    before = target.read_bytes()
    _not_played(monkeypatch)
    assert evaluate_main(EVALUATE + ["--log", str(target)]) == 2
    err = _one_line(capsys.readouterr().err)
    assert "not a kabenvs game log" in err and "appends game records" in err and str(target) in err
    out, err = io.StringIO(), io.StringIO()
    assert play_main(PLAY + ["--log", str(target)], io.StringIO(""), out, err) == 2
    assert "not a kabenvs game log" in _one_line(err.getvalue())
    assert target.read_bytes() == before  # not one byte appended


def test_the_model_still_loads_after_a_refused_log(model, tmp_path, capsys):
    for suffix in (".json", ".safetensors"):
        shutil.copy(model.with_suffix(suffix), tmp_path / f"m{suffix}")
    assert evaluate_main(EVALUATE + ["--log", str(tmp_path / "m.json")]) == 2
    capsys.readouterr()
    assert evaluate_main([str(tmp_path / "m"), "random", "--deals", "1"]) == 0


def test_log_still_appends_to_game_logs_and_empty_files(tmp_path, capsys):
    log = tmp_path / "games.jsonl"
    assert evaluate_main(EVALUATE + ["--log", str(log)]) == 0
    assert evaluate_main(EVALUATE + ["--log", str(log)]) == 0
    assert len(read_records(log)) == 4  # 1 deal x 2 seat rotations, twice
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert evaluate_main(EVALUATE + ["--log", str(empty)]) == 0
    assert play_main(PLAY + ["--log", str(empty)], io.StringIO(""), io.StringIO(), io.StringIO()) == 0
    assert len(read_records(empty)) == 3


def test_log_after_a_cut_off_first_record_is_still_a_game_log(tmp_path, capsys):
    """A writer killed mid-way through the very first record leaves a log of one cut-off line;
    appending there goes on (append_record starts the next record on a line of its own)."""
    log = tmp_path / "games.jsonl"
    assert evaluate_main(EVALUATE + ["--log", str(log)]) == 0
    log.write_bytes(log.read_bytes()[:200])
    assert evaluate_main(EVALUATE + ["--log", str(log)]) == 0
    lines = log.read_bytes().splitlines()
    assert len(lines) == 3 and json.loads(lines[1])["format"] == "kabenvs-game-log"


# -- --log: a parent that is a file or cannot be made ---------------------------------------------
def test_log_under_a_file_is_refused_before_any_game(tmp_path, capsys, monkeypatch):
    blocker = tmp_path / "afile"
    blocker.write_text("keep me\n")
    for target in (blocker / "x.jsonl", blocker / "sub" / "dir" / "x.jsonl"):
        _not_played(monkeypatch)
        assert evaluate_main(EVALUATE + ["--deals", "3", "--log", str(target)]) == 2
        err = _one_line(capsys.readouterr().err)
        assert f"{blocker} is a file, not a folder" in err, err
        out, err = io.StringIO(), io.StringIO()
        assert play_main(PLAY + ["--log", str(target)], io.StringIO(""), out, err) == 2
        assert "is a file, not a folder" in _one_line(err.getvalue())
        assert "deal seed" not in out.getvalue()  # refused before the game started
    assert blocker.read_text() == "keep me\n"


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc, where nothing can be created")
def test_log_in_a_folder_where_nothing_can_be_made_is_refused_before_any_game(capsys, monkeypatch):
    _not_played(monkeypatch)
    assert evaluate_main(EVALUATE + ["--log", "/proc/kabenvs-nope/x.jsonl"]) == 2
    assert "cannot write in /proc" in _one_line(capsys.readouterr().err)


# -- model metadata nested past the recursion limit -------------------------------------------------
def test_deeply_nested_model_metadata_is_one_line(model, tmp_path, capsys):
    shutil.copy(model.with_suffix(".safetensors"), tmp_path / "deep.safetensors")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    for argv, main in (([str(tmp_path / "deep"), "random", "--deals", "1"], evaluate_main),
                       (["add", str(tmp_path / "deep"), "--command", "x", "--dir", str(tmp_path / "zoo")], zoo_main)):
        assert main(argv) == 2
        err = _one_line(capsys.readouterr().err)
        assert "deep.json" in err and "nested too deeply" in err and "recursion" not in err, err
    assert not (tmp_path / "zoo").exists()


# -- zoo add --dir ----------------------------------------------------------------------------------
def test_zoo_add_dir_that_is_a_file_or_cannot_be_made(model, tmp_path, capsys, monkeypatch):
    def measured(*args, **kwargs):
        raise AssertionError("the zoo folder must be checked before the strength games")

    monkeypatch.setattr("kabenvs.commands.zoo._strength", measured)
    blocker = tmp_path / "afile"
    blocker.write_text("keep me\n")
    for folder, expected in ((blocker, "exists but is not a folder"), (blocker / "sub", "cannot be created")):
        argv = ["add", str(model), "--command", "x", "--deals", "1", "--against", "random", "--dir", str(folder)]
        assert zoo_main(argv) == 2
        err = _one_line(capsys.readouterr().err)
        assert f"--dir {str(folder)!r} {expected}" in err, err
    assert blocker.read_text() == "keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]  # nothing staged or written


def test_a_bad_game_option_from_a_models_metadata_names_the_model(tmp_path, capsys):
    """The options in a model's metadata fill in --game/--players/--option: an error in them once
    read as if the user had typed num_players=99."""
    import json
    import shutil
    from pathlib import Path

    import kabenvs
    from kabenvs.commands.evaluate import main as evaluate_main

    zoo = Path(kabenvs.__file__).parent / "zoo" / "agents"
    shutil.copy(zoo / "kabaleo_v0-2p.safetensors", tmp_path / "m.safetensors")
    meta = json.loads((zoo / "kabaleo_v0-2p.json").read_text())
    meta["game_config"]["num_players"] = 99
    (tmp_path / "m.json").write_text(json.dumps(meta))
    rc = evaluate_main([str(tmp_path / "m"), "random", "--deals", "1"])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and "\n" not in err
    assert "num_players=99" in err and "the game options come from the metadata of model" in err
