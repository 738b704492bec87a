"""kabenvs as an installed package: the console command, the wheel's contents, plain SB3 archives,
the plot title and the evaluation progress bar."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from kabenvs.cli import COMMANDS
from kabenvs.cli import main as cli_main
from kabenvs.extras import training_package

ROOT = Path(__file__).resolve().parents[2]


def test_a_checkout_imports_its_own_training_folder():
    assert training_package() == "training"


def test_the_command_dispatches_to_the_same_programs_as_the_scripts(capsys):
    assert cli_main(["evaluate", "heuristic", "random", "--game", "kabaleo_v0", "--deals", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games"] == 2 and [c["name"] for c in report["competitors"]] == ["heuristic", "random"]
    assert cli_main(["train", str(ROOT / "configs" / "quickstart.yaml"), "--check"]) == 0
    assert "env_id: cabula_v0" in capsys.readouterr().out
    assert cli_main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in COMMANDS)


@pytest.mark.parametrize("argv, words", [
    (["fly"], "unknown command 'fly'"),
    (["serve", "--pace", "-1"], "--pace=-1.0 must be >= 0"),
    (["export", "missing.zip", "out"], "no Stable-Baselines3 archive 'missing.zip'"),
    # a file that is there, but no archive: the archive looked for is named (it said "is not a file")
    (["export", str(ROOT / "configs" / "quickstart.yaml"), "out"], "quickstart.yaml.zip' (from "),
    ([], "usage: kabenvs COMMAND"),
])
def test_bad_commands_say_so_in_one_line_with_exit_2(argv, words, capsys):
    assert cli_main(argv) == 2
    captured = capsys.readouterr()
    assert words in captured.err + captured.out


def test_the_scripts_are_thin_wrappers():
    for name in ("train", "evaluate", "benchmark", "play", "serve", "export_model", "obs_fingerprint"):
        text = (ROOT / "scripts" / f"{name}.py").read_text()
        assert len(text.splitlines()) < 25 and "import main" in text


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_long_evaluations_show_games_done_and_time_left_on_a_terminal_only(monkeypatch, capsys):
    from kabenvs.commands import evaluate

    argv = ["heuristic", "random", "--game", "cabula_v0", "--deals", "3"]
    fake = _Terminal()
    monkeypatch.setattr(sys, "stderr", fake)
    assert evaluate.main(argv) == 0
    assert "/6 games [00:00<" in fake.getvalue()  # games done/total [elapsed<time left]
    quiet = _Terminal()
    monkeypatch.setattr(sys, "stderr", quiet)
    assert evaluate.main(argv + ["--json"]) == 0
    assert quiet.getvalue() == ""
    monkeypatch.undo()
    assert evaluate.main(argv) == 0  # pytest's captured stderr is no terminal
    assert "games" not in capsys.readouterr().err


def test_the_plot_title_is_the_game_and_the_player_count():
    from kabenvs.core.registry import make_game
    from training.run import plot_title

    assert plot_title(make_game("kabaleo_v0", num_players=3, mode="equitable")) == "kabaleo_v0, 3 players"
    assert plot_title(make_game("barakka_v0", num_players=1)) == "barakka_v0, 1 player"


def test_a_plain_maskable_ppo_archive_plays_with_game_and_trust_pickle(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from kabenvs.commands import evaluate
    from kabenvs.play.cli import main as play_main
    from kabenvs.wrappers import SingleAgentEnv

    env = SingleAgentEnv("cabula_v0", opponents="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, verbose=0)
    model.learn(64)
    model.save(tmp_path / "theirs")  # a plain archive: no kabenvs metadata at all
    archive = str(tmp_path / "theirs.zip")
    assert evaluate.main([archive, "random", "--deals", "1"]) == 2
    assert "--trust-pickle" in capsys.readouterr().err  # refused before anything is unpickled
    assert evaluate.main([archive, "random", "--deals", "1", "--trust-pickle"]) == 2
    assert "--game" in capsys.readouterr().err
    assert evaluate.main([archive, "random", "--deals", "1", "--trust-pickle", "--game", "cabula_v0",
                          "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["competitors"][0]["name"] == "theirs"
    assert evaluate.main([archive, "random", "--deals", "1", "--trust-pickle", "--game", "kabaleo_v0"]) == 2
    assert "observation shape" in capsys.readouterr().err  # sizes checked against the game named
    out = io.StringIO()
    rc = play_main(["cabula_v0", "--seat", archive, "random", "--seed", "1", "--trust-pickle"],
                   input=io.StringIO(""), output=out)
    assert rc == 0 and "theirs" in out.getvalue(), out.getvalue()[-500:]


def _source_copy(dest: Path) -> Path:
    """The files a checkout would package (tracked or not ignored), away from the real tree."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.split("\n")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            (dest / rel).write_bytes(src.read_bytes())
    return dest


@pytest.mark.slow
def test_the_wheel_installs_training_under_the_kabenvs_namespace(tmp_path):
    src = _source_copy(tmp_path / "src")
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", str(src),
                    "-w", str(wheels)], check=True, capture_output=True)
    (wheel,) = wheels.glob("kabenvs-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    # name-version.dist-info, whatever the tags (a compiled wheel is cp311-cp311-<platform>)
    assert {n.split("/")[0] for n in names} == {"kabenvs", "-".join(wheel.name.split("-")[:2]) + ".dist-info"}
    assert "kabenvs/_training/run.py" in names and "kabenvs/wrappers.py" in names
    shipped = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "kabenvs" / "zoo" / "agents").iterdir())
    assert shipped and set(shipped) <= set(names)  # the zoo's agents and cards install with the package
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "kabenvs = kabenvs.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
                   check=True, capture_output=True)
    user = tmp_path / "user"
    user.mkdir()
    (user / "training.py").write_text("raise RuntimeError('a user module named training was imported')\n")
    code = ("import kabenvs.extras as e, kabenvs.cli as c, kabenvs, sys; "
            "assert e.training_package() == 'kabenvs._training', e.training_package(); "
            "assert kabenvs.__file__.startswith(sys.argv[1]), kabenvs.__file__; "
            # configs/ is not package data: benchmark --training falls back to the schema's defaults
            "import kabenvs._training.throughput as t; "
            "assert t.configs_dir() is None and t.shipped_config('kabaal_v0') is None, t.configs_dir(); "
            "sys.exit(c.main(['evaluate', 'heuristic', 'random', '--game', 'cabula_v0', '--deals', '1', '--json']))")
    zoo_game, zoo_players = shipped[0].split("/")[-1].split(".")[0].split("-")  # it plays right after install
    env = {**os.environ, "PYTHONPATH": f"{target}{os.pathsep}{user}"}
    done = subprocess.run([sys.executable, "-c", code, str(target)], cwd=user, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["games"] == 2
    code = ("import kabenvs.cli as c, sys; "
            f"sys.exit(c.main(['evaluate', 'zoo', 'random', '--game', '{zoo_game}', '--players', '{zoo_players[:-1]}', "
            "'--deals', '1', '--json']))")
    done = subprocess.run([sys.executable, "-c", code], cwd=user, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["competitors"][0]["name"] == "zoo"


def test_a_missing_optional_package_while_running_is_one_line(monkeypatch, capsys):
    """A command that reaches a package of an extra only while running (evaluate -> SB3) ends with
    one line naming the package and the pip command, not a traceback."""
    from kabenvs import cli
    from kabenvs.commands import evaluate

    def missing(argv):
        raise ModuleNotFoundError("No module named 'stable_baselines3'", name="stable_baselines3")

    monkeypatch.setattr(evaluate, "main", missing)
    assert cli.main(["evaluate", "heuristic", "random", "--game", "kabaleo_v0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "stable_baselines3" in err and "pip install 'kabenvs[train]'" in err


@pytest.mark.slow
def test_without_a_c_compiler_the_wheel_installs_the_pure_modules(tmp_path):
    """setup.py compiles with Cython where it can; a compiler that fails (here /bin/false) leaves
    each module as its source, and the install still builds, imports and plays."""
    pytest.importorskip("Cython")  # --no-build-isolation uses this environment's Cython (dev extra)
    src = _source_copy(tmp_path / "src")
    wheels = tmp_path / "wheels"
    env = {**os.environ, "CC": "/bin/false", "KABENVS_PURE_PYTHON": ""}
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-v",
                           str(src), "-w", str(wheels)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "kabenvs.core.env not compiled" in done.stdout + done.stderr
    (wheel,) = wheels.glob("kabenvs-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "kabenvs/core/env.py" in names and not [n for n in names if n.endswith((".so", ".pyd"))]
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
                   check=True, capture_output=True)
    code = ("import kabenvs, kabenvs.compiled as c; assert not c.compiled_modules() and not c.running_compiled(); "
            "e = kabenvs.make('kabaleo_v0'); e.reset(seed=1); print(len(e.last()[0]['observation']))")
    ran = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(target)})
    assert ran.returncode == 0, ran.stderr[-2000:]
