"""Evaluation: reproducible with a fixed seed, ratings, clear CLI errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kabenvs.core.registry import make_game
from training.evaluation import Competitor, baseline, evaluate, versus_baseline

ROOT = Path(__file__).resolve().parents[2]


class FirstLegal:
    name = "first"

    def act(self, decision):
        return decision.legal_actions[0]


def test_same_seed_same_results_and_different_seed_differs():
    game = make_game("kabaleo_v0", num_players=2)

    def run(seed):
        comps = [Competitor("first", FirstLegal()), baseline("random", game.env_id)]
        return evaluate(game, comps, deals=15, seed=seed).to_json()

    a, b, c = run(3), run(3), run(4)
    assert a == b
    assert a != c
    assert a["games"] == 30  # every deal once per seat rotation


def test_stochastic_policy_agent_is_reproducible_with_a_seed():
    pytest.importorskip("sb3_contrib")
    from kabenvs.agents.policy import PolicyAgent
    from training.build import make_env, make_model, make_pool
    from training.config import validate

    cfg = validate({"game": {"env_id": "kabaleo_v0"}, "algorithm": {"n_envs": 2, "n_steps": 8, "batch_size": 16}})
    game = make_game("kabaleo_v0")
    model = make_model(cfg, make_env(cfg, game, make_pool(cfg, game, warn=False)))

    def run():
        agent = PolicyAgent(model.policy, seed=11, deterministic=False)
        return versus_baseline(game, "policy", agent, "random", deals=6, seed=9).to_json()

    assert run() == run()


def test_free_for_all_gets_openskill_ratings_and_a_table():
    game = make_game("kabaleo_v0", num_players=3)
    comps = [baseline("random", game.env_id, name=f"random#{k}") for k in range(2)]
    comps.insert(0, Competitor("first", FirstLegal(), {"kind": "agent", "name": "first"}))
    rep = evaluate(game, comps, deals=8, seed=0)
    js = rep.to_json()
    assert js["games"] == 24 and js["fair_share"] == pytest.approx(1 / 3)
    for row in js["competitors"]:
        assert set(row["openskill"]) == {"mu", "sigma", "ordinal"}
        assert row["openskill"]["sigma"] < 25 / 3  # ratings moved from the prior
        lo, hi = row["ci95"]
        assert lo <= row["win_rate"] <= hi
    assert abs(sum(r["win_rate"] for r in js["competitors"]) - 1) < 1e-9  # shared wins split
    table = rep.table()
    assert "OpenSkill" in table and "random#1" in table


def test_fewer_competitors_than_seats_repeat_and_the_table_says_so():
    game = make_game("kabaleo_v0", num_players=4)
    comps = [Competitor("first", FirstLegal(), {"kind": "agent", "name": "first"}), baseline("random", game.env_id)]
    rep = evaluate(game, comps, deals=2, seed=0)
    js = rep.to_json()
    assert js["games"] == 8 and js["fair_share"] is None
    # each holds two seats of four: the seat-averaged win rates sum to 1/2, not 1
    assert sum(r["win_rate"] for r in js["competitors"]) == pytest.approx(0.5)
    assert "2 competitors for 4 seats: they repeat around the table" in rep.table()
    assert "repeat" not in evaluate(make_game("kabaleo_v0"), comps, deals=1, seed=0).table()


def test_unknown_baseline_is_a_clear_error():
    from kabenvs.core.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown baseline 'randon'"):
        baseline("randon", "kabaleo_v0")


def load_script(name):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"script_{name}", ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_main(capsys, *args):
    code = load_script("evaluate").main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(
    "args, message",
    [
        (["missing_model.zip", "random"], "neither a model file"),
        (["random", "random", "--game", "kabaleo_v9"], "unknown env id 'kabaleo_v9'"),
        (["random", "random", "--game", "kabaleo_v0", "--players", "7"], "num_players=7 is not allowed"),
        (["random", "random"], "--game ENV_ID"),
        (["random", "random", "--game", "kabaleo_v0", "--option", "colour=red"], "unknown option"),
        (["random", "random", "--game", "kabaleo_v0", "--deals", "0"], "--deals=0 must be >= 1"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(capsys, args, message):
    code, out, err = run_main(capsys, *args)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_cli_exit_code_in_a_real_process():
    r = subprocess.run(
        [sys.executable, "scripts/evaluate.py", "missing_model.zip", "random"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [r.stderr.strip()]


def test_cli_table_json_and_optional_modules(capsys, tmp_path):
    import json

    code, out, err = run_main(capsys, "random", "random", "--game", "kabaleo_v0", "--deals", "3", "--json")
    assert code == 0, err
    js = json.loads(out)
    assert js["games"] == 6 and [c["name"] for c in js["competitors"]] == ["random#1", "random#2"]
    code, out, err = run_main(capsys, "random", "random", "--game", "kabaleo_v0", "--deals", "2")
    assert code == 0 and "win rate" in out and "random#2" in out
    try:
        import kabenvs.records  # noqa: F401
    except ImportError:
        code, out, err = run_main(capsys, "random", "random", "--game", "kabaleo_v0", "--deals", "1",
                                  "--log", str(tmp_path / "x.jsonl"))
        assert code == 2 and "kabenvs.records" in err
    try:
        import training.human_results  # noqa: F401
    except ImportError:
        code, out, err = run_main(capsys, "--human-log", "some.jsonl")
        assert code == 2 and "training.human_results" in err


def test_solo_games_compare_each_agent_alone_on_the_same_deals():
    from tests.training.toy import ToyGame
    from training.evaluation import solo_reports

    class PickTwo:
        name = "pick2"

        def act(self, decision):
            return 2

    game = ToyGame(num_players=1, rounds=2)
    reps = solo_reports(game, "pick2", PickTwo(), ["random"], deals=20, seed=1)
    assert set(reps) == {"solo", "random (solo)"}
    assert reps["solo"].result.games == 20 and reps["solo"].result.win_rate(0) == 1.0  # 2 + 2 >= 4
    assert reps["random (solo)"].result.win_rate(0) < 0.5
    from training.run import final_table

    table = final_table(game, reps, 1.0, 10)
    assert "trained agent" in table and "random" in table


def test_time_moves_reports_each_competitors_cpu_ms_per_move(capsys):
    from kabenvs.commands.evaluate import main

    base = ["search:sims=8", "random", "--game", "kabaleo_v0", "--deals", "2"]
    assert main(base + ["--json"]) == 0
    assert "cpu_ms_per_move" not in capsys.readouterr().out  # off by default: same seed, same output
    assert main(base + ["--json", "--time-moves"]) == 0
    rows = {r["name"]: r["cpu_ms_per_move"] for r in json.loads(capsys.readouterr().out)["competitors"]}
    assert rows["search:sims=8"] > rows["random"] > 0
    assert main(base + ["--time-moves"]) == 0
    assert "CPU ms/move" in capsys.readouterr().out
    assert main(base + ["--time-moves", "--workers", "2"]) == 2
    assert "drop --workers" in capsys.readouterr().err


def test_a_game_log_that_stops_taking_games_loses_neither_the_results_nor_the_games_written(capsys, tmp_path, monkeypatch):
    """The log was checked before play; a disk that fills up afterwards used to end the command
    with a bare OSError, no results and no word of which file: now the results are printed, the
    games go on, and one line names the log, the game that failed and how many it holds."""
    import errno

    import kabenvs.records as records

    real, calls = records.append_record, []

    def full_disk_from_the_third(path, record):
        calls.append(path)
        if len(calls) >= 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, record)

    monkeypatch.setattr(records, "append_record", full_disk_from_the_third)
    log = tmp_path / "games.jsonl"
    code, out, err = run_main(capsys, "random", "random", "--game", "kabaleo_v0", "--deals", "3", "--log", str(log))
    assert code == 1, err
    assert "win rate" in out and "random#2" in out and "appended to" not in out
    assert err.strip().splitlines() == [err.strip()], err
    assert str(log) in err and "game 3 could not be appended (No space left on device)" in err, err
    assert "the 2 games before it are in the log" in err, err
    assert len(calls) == 3  # writing stopped at the failure; the other games were still played
    assert len(log.read_text().splitlines()) == 2
