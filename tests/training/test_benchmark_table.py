"""scripts/benchmark.py prints its table, training rows included (they once crashed it at the end)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _benchmark():
    spec = importlib.util.spec_from_file_location("benchmark_script", ROOT / "scripts" / "benchmark.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_table_prints_aec_raw_and_training_rows(capsys):
    bench = _benchmark()
    import kabenvs

    env = kabenvs.make("kabaal_v0")
    rows = [
        {"env": "pettingzoo tictactoe_v3", "loop": "AEC", "config": {}, "agent_steps_per_s": 1000.0,
         "games_per_s": 100.0, "mean_game_length": 10.0},
        {"env": "kabaal_v0", "loop": "AEC", "config": {}, **bench.bench_aec(env, 0.05)},
        {"env": "kabaal_v0", "loop": "raw", "config": {}, **bench.bench_raw(env.game, 0.05)},
        *bench.parts_rows(["kabaal_v0"], 0.05),
        # what training/throughput.py returns (steps_per_s, shares), not measured: no training here
        {"env": "pettingzoo connect_four_v3 (SB3 tutorial pattern)", "loop": "train", "steps_per_s": 500.0,
         "share_env": 0.5, "share_opponents": 0.0, "share_update": 0.4},
        {"env": "kabaal_v0", "loop": "train", "config": {"num_players": 2}, "steps_per_s": 1500.0,
         "share_env": 0.3, "share_opponents": 0.2, "share_update": 0.4},
    ]
    bench.print_table(rows)
    out = capsys.readouterr().out
    lines = out.splitlines()
    train_line = next(line for line in lines if line.startswith("kabaal_v0") and "3.00" in line)
    assert "1,500" in train_line and "30%" in train_line
    # the per-part costs: one row per player count (2 and 4), the parts adding up to the step
    parts = [line.split() for line in lines if line.startswith("kabaal_v0") and len(line.split()) == 9]
    assert [row[1] for row in parts] == ["2", "4"]
    for row in parts:
        step, rules, obs, mask, adapter = map(float, row[2:7])
        assert rules > 0 and obs > 0 and mask > 0
        assert abs(step - (rules + obs + mask + adapter)) < 0.2
    aec = next(line for line in lines if line.startswith("kabaal_v0") and " AEC " in line)
    assert aec.split()[4] != "nan"  # compared with tictactoe
    assert "x connect4" in out and "training throughput" in out


@pytest.mark.parametrize("key", ["steps_per_s", "env_steps_per_s"])
def test_training_rows_from_either_key(key):
    bench = _benchmark()
    text = bench.format_table([{"env": "a", "loop": "train", key: 10.0}, {"env": "b", "loop": "train", key: 20.0}])
    assert "2.00" in text.splitlines()[-1]


def test_the_command_runs_end_to_end(capsys):
    """The whole command, on tiny budgets: every kind of row is measured and printed (a broken
    merge once left ``pettingzoo_rows`` returning nothing, which only a real run shows)."""
    bench = _benchmark()
    assert bench.main(["--seconds", "0.02", "--env", "kabaleo_v0"]) == 0
    out = capsys.readouterr().out
    assert "pettingzoo connect_four_v3" in out and "pettingzoo tictactoe_v3" in out
    assert any(line.startswith("kabaleo_v0") and " raw " in line for line in out.splitlines())
    assert "x connect4" in out


def test_search_rows_at_the_smallest_and_largest_table(capsys):
    """--search: the search bot's simulations per second, per game at its smallest and largest
    player count, in the table and in --json (tiny budgets)."""
    import json

    bench = _benchmark()
    argv = ["--seconds", "0.01", "--no-parts", "--env", "kabaleo_v0", "barakka_v0",
            "--search", "--search-seconds", "0.05"]
    assert bench.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    head = lines.index(next(line for line in lines if line.startswith("search bot")))
    rows = [line.split() for line in lines[head + 1:]]
    assert [(r[0], r[1]) for r in rows] == [("kabaleo_v0", "2"), ("kabaleo_v0", "4"),
                                            ("barakka_v0", "1"), ("barakka_v0", "2")]
    assert all(float(r[2].replace(",", "")) > 0 and int(r[3]) > 0 and r[4] == "search" for r in rows)
    assert bench.main([*argv[:-4], "--search", "--search-seconds", "0.05",
                       "--search-spec", "search:rollout=heuristic", "--json"]) == 0
    search = [r for r in json.loads(capsys.readouterr().out)["rows"] if r["loop"] == "search"]
    assert [r["config"]["num_players"] for r in search] == [2, 4]
    assert all(r["sims_per_s"] > 0 and r["spec"] == "search:rollout=heuristic" for r in search)
    assert bench.main([*argv, "--search-spec", "search:simz=3"]) == 2
    assert "simz" in capsys.readouterr().err


def _throughput():
    from kabenvs.extras import training_module

    return training_module("throughput")


def _nonzero(weights: dict) -> dict:
    return {k: v for k, v in weights.items() if v}


def test_training_rows_measure_each_games_shipped_config(capsys):
    """--training: a game's row is built from its configs/<game>.yaml (Kabaal ships half heuristic
    opponents, not the schema's 0.1), says so in --json and in the table (tiny budgets)."""
    import json

    from training.config import SCHEMA, load_config

    bench = _benchmark()
    argv = ["--seconds", "0.01", "--no-parts", "--env", "kabaal_v0", "--training", "--training-seconds", "0.01"]
    assert bench.main([*argv, "--json"]) == 0
    rows = [r for r in json.loads(capsys.readouterr().out)["rows"] if r["loop"] == "train"]
    assert [r["env"] for r in rows] == ["pettingzoo connect_four_v3 (SB3 tutorial pattern)", "kabaal_v0"]
    row = rows[1]
    shipped = load_config(ROOT / "configs" / "kabaal.yaml")
    alg = shipped["algorithm"]
    assert row["config_file"] == "configs/kabaal.yaml" and row["config"] == {"num_players": 2}
    assert _nonzero(row["opponents"]) == _nonzero(shipped["self_play"]["opponents"])  # the pool's weights
    assert row["opponents"]["heuristic"] == 0.5 != SCHEMA["self_play"]["opponents"].default["heuristic"]
    assert (row["trunk"], row["net_arch"], row["activation"]) == (alg["trunk"], alg["net_arch"], alg["activation"])
    assert (row["n_envs"], row["n_steps"], row["batch_size"], row["n_epochs"]) == (
        alg["n_envs"], alg["n_steps"], alg["batch_size"], alg["n_epochs"])
    assert row["env_workers"] == alg["env_workers"] == 2  # the games in two processes, as the config plays them
    assert row["steps"] > 0 and row["steps_per_s"] > 0
    # the table names the config of each row
    text = bench.format_table(rows)
    assert next(line for line in text.splitlines() if line.startswith("kabaal_v0")).endswith(
        "configs/kabaal.yaml num_players=2")


@pytest.mark.parametrize("env_id", ["alakazum_v0", "barakka_v0", "cabula_v0", "kabaal_v0", "kabaleo_v0"])
def test_the_throughput_run_keeps_every_learning_setting_of_the_shipped_config(env_id):
    """Only the table size (2 players) and TensorBoard differ from what `kabenvs train` would use."""
    from training.config import load_config

    throughput = _throughput()
    path = throughput.shipped_config(env_id)
    assert path is not None and path.name == f"{env_id.split('_v')[0]}.yaml"
    cfg, label = throughput.throughput_config(env_id, {"num_players": 2}, path)
    shipped = load_config(path, ["game.num_players=2"])
    assert label == f"configs/{path.name}"
    for section in ("algorithm", "self_play", "imitation", "game"):
        assert cfg[section] == shipped[section]


def test_without_configs_the_rows_fall_back_to_the_schema_defaults_with_a_note(monkeypatch, capsys):
    """A non-editable install has no configs/ folder (setup.py ships kabenvs* and training/ only)."""
    from training.config import SCHEMA

    throughput = _throughput()
    monkeypatch.setattr(throughput, "configs_dir", lambda: None)
    monkeypatch.setattr(throughput, "measure_tutorial_baseline",
                        lambda seconds: {"steps_per_s": 100.0, "share_env": 0.5, "share_update": 0.4})
    tiny = {"algorithm": {"n_envs": 4, "n_steps": 8, "batch_size": 32, "n_epochs": 1}}
    rows = _benchmark().training_rows(["kabaal_v0", "cabula_v0"], 0.01, overrides=tiny)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "without the configs/ folder" in err[0] and "schema's defaults" in err[0]
    for row in rows[1:]:
        assert row["config_file"] == "schema defaults"
        assert _nonzero(row["opponents"]) == _nonzero(SCHEMA["self_play"]["opponents"].default)
        assert row["n_envs"] == 4 and row["steps"] > 0
