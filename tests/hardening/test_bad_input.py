"""The reported crashes, one by one: each bad input is one line naming the problem, exit status 2."""

from __future__ import annotations

import copy
import importlib.util
import io
import json
from pathlib import Path

import numpy as np
import pytest

from kabenvs.agents.base import Decision
from kabenvs.agents.human import Console, HumanAgent
from kabenvs.core.errors import KabenvsError
from kabenvs.core.registry import make_game
from kabenvs.play.cli import main as play_main
from kabenvs.records import RecordError, make_record
from training.config import TrainingConfigError, load_config, parse_yaml

ROOT = Path(__file__).resolve().parents[2]


def _script(name: str):
    spec = importlib.util.spec_from_file_location(f"{name}_script", ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def record():
    game = make_game("kabaal_v0", num_players=2)
    state = game.new_state(np.random.default_rng(5))
    rng = np.random.default_rng(1)
    for _ in range(30):
        state.apply(int(rng.choice(state.legal_actions())))
    return make_record(state, [{"kind": "human", "name": "ann"}, {"kind": "random"}], 5)


def _set(record, path, value):
    rec = copy.deepcopy(record)
    node = rec
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return rec


CASES = {
    "action out of range": ((("actions", 3, "action"), 10**6), "actions[3].action=1000000 is out of range"),
    "action not an int": ((("actions", 3, "action"), "7"), "actions[3].action='7' is not allowed"),
    "action a float": ((("actions", 3, "action"), 7.0), "actions[3].action=7.0 is not allowed"),
    "seed not an int": ((("seed",), "5"), "seed='5' is not allowed; it must be an integer >= 0"),
    "version not an int": ((("version",), "1"), "version='1' is not allowed"),
    "config a list": ((("config",), [1, 2]), "config=[1, 2] is not allowed"),
    "seats as strings": ((("seats",), ["human", "random"]), "seats[0]='human' is not allowed"),
    "player out of range": ((("actions", 0, "player"), 7), "actions[0].player=7 is not allowed"),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_malformed_log_is_one_line_and_exit_2(record, tmp_path, case):
    (path_in_record, value), expected = CASES[case]
    log = tmp_path / "games.jsonl"
    log.write_text(json.dumps(_set(record, path_in_record, value)) + "\n")
    err = io.StringIO()
    assert play_main(["--replay", str(log)], io.StringIO(""), io.StringIO(), err) == 2
    assert len(err.getvalue().splitlines()) == 1 and expected in err.getvalue(), err.getvalue()


def test_deeply_nested_json_and_a_cut_off_line(record, tmp_path):
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 200_000 + "]" * 200_000 + "\n")
    cut = tmp_path / "cut.jsonl"
    cut.write_text(json.dumps(record) + "\n" + json.dumps(record)[:100])
    for log, expected in ((deep, "nested too deeply"), (cut, "line 2: the last record is cut off")):
        err = io.StringIO()
        assert play_main(["--replay", str(log)], io.StringIO(""), io.StringIO(), err) == 2
        assert expected in err.getvalue() and len(err.getvalue().splitlines()) == 1


def test_record_error_is_a_kabenvs_error_and_evaluate_reports_it(record, tmp_path, capsys):
    assert issubclass(RecordError, KabenvsError)
    log = tmp_path / "games.jsonl"
    log.write_text(json.dumps(_set(record, ("seats",), ["human", "random"])) + "\n")
    assert _script("evaluate").main(["--human-log", str(log)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "seats[0]" in err


def test_an_answer_of_thousands_of_digits_or_a_huge_line_is_asked_again():
    game = make_game("kabaal_v0", num_players=2)
    state = game.new_state(np.random.default_rng(0))
    text = "9" * 4300 + "\n" + "x" * 5_000_000 + "\n" + "1\n"
    out = io.StringIO()
    action = HumanAgent(Console(io.StringIO(text), out)).act(Decision(state.current_player, state))
    assert action == state.legal_actions()[0]
    transcript = out.getvalue()
    assert transcript.count("That answer is too long") == 2
    assert len(transcript) < 20_000  # neither answer echoed whole


def test_config_files_non_utf8_and_duplicated_keys(tmp_path):
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes("game:\n  env_id: kabaal_v0  # caf\xe9\n".encode("latin-1"))
    with pytest.raises(TrainingConfigError, match=r"not UTF-8 text \(byte 0xe9"):
        load_config(bad)
    dup = tmp_path / "dup.yaml"
    dup.write_text("game:\n  env_id: kabaal_v0\nalgorithm:\n  n_envs: 4\n  seed: 1\n  n_envs: 8\n")
    with pytest.raises(TrainingConfigError, match=r"duplicated key 'n_envs' \(lines 4 and 6\)"):
        load_config(dup)
    # "<<: *defaults" may be overridden by design: not a duplicate
    merged = parse_yaml("a: &d {x: 1, y: 1}\nb:\n  <<: *d\n  x: 2\n", "merge.yaml")
    assert merged["b"] == {"x": 2, "y": 1}


def test_evaluate_option_that_is_not_yaml(capsys):
    code = _script("evaluate").main(["heuristic", "random", "--game", "kabaleo_v0", "--option", "mode=["])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1 and "--option 'mode=['" in err and "not valid YAML" in err


def test_evaluate_bad_argument_is_one_line(capsys):
    with pytest.raises(SystemExit) as exit_:
        _script("evaluate").main(["heuristic", "--deals", "many"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and len(err.splitlines()) == 1 and "--deals" in err


# -- found by trying every command with hostile input (issue #14 audit) ------------------------------
HUGE = "9" * 5000  # past Python's 4300-digit limit: int() and repr() of it raise ValueError
MEGA = "x" * 1_000_000
BIG = 10**5000


def _one_line(err: str) -> bool:
    return len(err.splitlines()) == 1 and "Traceback" not in err


def test_a_number_of_thousands_of_digits_in_a_game_log(record, tmp_path, capsys):
    text = json.dumps(record)
    for field in ('"seed": 5', '"version": 1'):
        assert field in text, field
    for field in ('"seed": 5', '"version": 1'):
        log = tmp_path / "big.jsonl"
        log.write_text(text.replace(field, field.split(":")[0] + ": " + HUGE) + "\n")
        err = io.StringIO()
        assert play_main(["--replay", str(log)], io.StringIO(""), io.StringIO(), err) == 2
        assert _one_line(err.getvalue()) and "more than 4300 digits" in err.getvalue(), err.getvalue()
        assert _script("evaluate").main(["--human-log", str(log)]) == 2
        err = capsys.readouterr().err
        assert _one_line(err) and "more than 4300 digits" in err, err


def test_a_huge_value_in_a_game_log_is_echoed_as_a_short_prefix(record, tmp_path):
    for path_in_record, value in ((("env_id",), MEGA), (("actions", 0, "action"), int("9" * 3000)),
                                  (("config",), {MEGA: 1})):
        log = tmp_path / "long.jsonl"
        log.write_text(json.dumps(_set(record, path_in_record, value)) + "\n")
        err = io.StringIO()
        assert play_main(["--replay", str(log)], io.StringIO(""), io.StringIO(), err) == 2
        assert _one_line(err.getvalue()) and len(err.getvalue()) < 1000, err.getvalue()[:300]


def test_a_number_of_thousands_of_digits_in_a_config_or_an_option(tmp_path, capsys):
    cfg = tmp_path / "big.yaml"
    cfg.write_text(f"game:\n  env_id: kabaal_v0\n  num_players: {HUGE}\n")
    with pytest.raises(TrainingConfigError, match="more than 4300 digits"):
        load_config(cfg)
    with pytest.raises(TrainingConfigError, match="more than 4300 digits") as err:
        load_config(ROOT / "configs" / "quickstart.yaml", [f"game.num_players={HUGE}"])
    assert len(str(err.value)) < 300
    with pytest.raises(TrainingConfigError) as err:
        load_config(ROOT / "configs" / "quickstart.yaml", [f"game.env_id={MEGA}"])
    assert "game.env_id='xxx" in str(err.value) and len(str(err.value)) < 600
    # (kabenvs export reads its --option values with the same function)
    code = _script("evaluate").main(["heuristic", "random", "--game", "kabaleo_v0", "--option", f"mode={HUGE}"])
    err = capsys.readouterr().err
    assert code == 2 and _one_line(err) and "more than 4300 digits" in err and len(err) < 300, err


def test_evaluate_refuses_a_log_that_is_a_folder_before_playing(tmp_path, capsys):
    code = _script("evaluate").main(["random", "random", "--game", "kabaleo_v0", "--deals", "1",
                                     "--log", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and _one_line(err) and "is a folder" in err, err


def test_train_into_an_output_folder_that_cannot_be_made(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    code = _script("train").main([str(ROOT / "configs" / "quickstart.yaml"), "--set", f"output.dir={blocker}"])
    err = capsys.readouterr().err
    assert code == 2 and _one_line(err) and "cannot create the run folder" in err, err


@pytest.mark.parametrize("argv", [
    ["train"], ["train", "c.yaml", "--bogus"], ["benchmark", "--seconds", "abc"], ["serve", "--port", "abc"],
    ["benchmark", "--seconds", "-1"], ["benchmark", "--seconds", "nan"], ["benchmark", "--env", "nope"],
    ["serve", "--pace", "-1"], ["evaluate", "random", "--deals", "many"], ["export", "--bogus"],
    ["play", "--bogus"], ["nosuch"], ["benchmark", "--search", "--search-seconds", "0"],
    ["benchmark", "--env", "kabaleo_v0", "--search", "--search-spec", "search:sims=-3"],
    ["evaluate", "random", "random", "--game", "kabaal_v0", "--seed", "-5"],
    ["evaluate", "random", "random", "--seed", "five"], ["play", "kabaal_v0", "--seed", "-1"],
    ["zoo", "add", "model", "--command", "c", "--seed", "-1"], ["serve", "--port", "70000"],
])
def test_every_kabenvs_command_says_a_bad_command_line_in_one_line(argv, capsys):
    from kabenvs.cli import main

    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    err = capsys.readouterr().err
    assert code == 2 and _one_line(err), err


@pytest.mark.parametrize("script", ["soak", "search_benchmark", "demo", "recall_probe"])
def test_every_scripts_seed_is_checked_before_anything_runs(script, capsys):
    """A negative seed reached numpy's generators as a traceback (evaluate, search_benchmark, demo,
    zoo add); every --seed now goes through one argparse type (kabenvs.commands.seed_arg)."""
    try:
        code = _script(script).main(["--seed", "-3"])
    except SystemExit as exit_:
        code = exit_.code
    err = capsys.readouterr().err
    assert code == 2 and _one_line(err) and "-3 is negative; a seed is an integer >= 0" in err, err


@pytest.mark.parametrize("value, says", [("0", "0 is below 1"), ("soon", "'soon' is not an integer")])
def test_the_recall_probes_horizon_is_checked_before_anything_runs(value, says, capsys):
    try:
        code = _script("recall_probe").main(["--horizon", value])
    except SystemExit as exit_:
        code = exit_.code
    err = capsys.readouterr().err
    assert code == 2 and _one_line(err) and says in err and "number of steps >= 1" in err, err


@pytest.mark.parametrize("script, argv, says", [
    # recall_probe: an env id or a player count the game lacks reached make_game as a traceback,
    # after the rows before it had run; a count below its least was taken as it came
    ("recall_probe", ["--env", "nope"], "--env 'nope' is not a registered env id; known:"),
    ("recall_probe", ["--env", "kabaal_v0", "--players", "5"], "--players 5: kabaal_v0 is played by [2, 3, 4] players"),
    ("recall_probe", ["--env", "cabula_v0", "kabaal_v0", "--players", "6"], "--players 6: kabaal_v0 is played by"),
    ("recall_probe", ["--games", "0"], "0 is below 1; --games is a whole number >= 1"),
    ("recall_probe", ["--positions", "-2"], "-2 is below 1; --positions"),
    ("recall_probe", ["--odds-tries", "-1"], "-1 is below 0; --odds-tries"),
    ("recall_probe", ["--examples", "many"], "'many' is not an integer; --examples"),
    # search_benchmark: each reached the search or the statistics as a traceback (--deals 0: a
    # division by zero) or, a negative budget, was taken as it came
    ("search_benchmark", ["--env", "nope"], "--env 'nope' is not a registered env id; known:"),
    ("search_benchmark", ["--seconds", "-1"], "--seconds -1.0: give a number of seconds in (0, 86400]"),
    ("search_benchmark", ["--seconds", "nan"], "--seconds nan: give a number of seconds in (0, 86400]"),
    ("search_benchmark", ["--versus", "heuristic", "--deals", "0"], "--deals 0: play at least 1 deal"),
    ("search_benchmark", ["--versus", "heuristic", "--budget", "-5"], "--budget -5.0: give a number of seconds > 0"),
    ("search_benchmark", ["--spec", "search:sims=-1"],
     "--spec 'search:sims=-1': search option sims=-1 must be an integer >= 1"),
])
def test_the_scripts_tables_counts_and_options_are_checked_before_anything_runs(script, argv, says, capsys):
    try:
        code = _script(script).main(argv)
    except SystemExit as exit_:
        code = exit_.code
    out, err = capsys.readouterr()
    assert code == 2 and _one_line(err) and says in err and not out, err


def test_kabenvs_serve_is_available(monkeypatch, tmp_path, capsys, uvicorn_in_process):
    uvicorn = uvicorn_in_process

    from kabenvs.cli import main

    calls = []

    def run(self, sockets=None):  # the server is handed the socket the command bound
        calls.append((self.config.port, sockets[0].getsockname()))
        sockets[0].close()

    monkeypatch.setattr(uvicorn.Server, "run", run)
    import socket

    with socket.socket() as probe:  # a free port (the command binds it for real)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert main(["serve", "--port", str(port), "--data", str(tmp_path / "d")]) == 0
    assert calls == [(port, ("127.0.0.1", port))] and f"http://127.0.0.1:{port}/" in capsys.readouterr().out
    study = tmp_path / "study.yaml"
    study.write_bytes(b"name: \xff\n")
    assert main(["serve", "--study", str(study), "--data", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err
    assert _one_line(err) and "not UTF-8" in err, err


@pytest.mark.parametrize("action", [True, False, BIG, -BIG, MEGA, 2**63, float("nan")],
                         ids=["True", "False", "5000 digits", "-5000 digits", "a megabyte", "2**63", "nan"])
def test_env_step_refuses_any_non_action_in_a_short_message(action):
    import kabenvs
    from kabenvs.core.errors import IllegalActionError

    env = kabenvs.make("kabaleo_v0")
    env.reset(seed=1)
    before = env.unwrapped.state.to_json()
    with pytest.raises(IllegalActionError) as err:
        env.step(action)
    assert len(str(err.value)) < 2000 and "\n" not in str(err.value)
    assert env.unwrapped.state.to_json() == before


@pytest.mark.parametrize("env_id", ["alakazum_v0", "barakka_v0", "cabula_v0", "kabaal_v0", "kabaleo_v0"])
def test_a_save_with_a_huge_value_in_any_field_is_one_short_config_error(env_id):
    """Through the API a save may be a dict, so it can hold what JSON text cannot: an int whose
    repr raises ValueError. Every field, the config and the generator state are tried."""
    from kabenvs.core.errors import ConfigError
    from kabenvs.core.game import State

    state = make_game(env_id).new_state(np.random.default_rng(0))
    for _ in range(10):
        state.apply(int(state.legal_actions()[0]))
    doc = json.loads(state.to_json())
    doc["state"]["start"] = None
    for where in [("state", f) for f in doc["state"]] + [("config", "num_players"), ("rng",), ("env_id",)]:
        for value in (BIG, MEGA, {MEGA: BIG}):
            bad = copy.deepcopy(doc)
            node = bad
            for key in where[:-1]:
                node = node[key]
            node[where[-1]] = value
            with pytest.raises(ConfigError) as err:
                State.from_json(bad)
            assert len(str(err.value)) < 1500 and "\n" not in str(err.value), (where, str(err.value)[:200])


# -- scripts/obs_fingerprint.py: a digest file that is not one --record wrote --------------------
@pytest.mark.parametrize("content, says", [
    ("{bad", "cannot be read as JSON"),
    ("[1, 2]", "not a file --record wrote"),
    ('{"kabaleo_v0 {}": 3}', "not a file --record wrote"),
])
def test_fingerprint_check_refuses_a_bad_digest_file_before_playing(tmp_path, content, says):
    fp = _script("obs_fingerprint")
    path = tmp_path / "digests.json"
    path.write_text(content)
    with pytest.raises(SystemExit) as exc:
        fp.main(["--check", str(path), "--env", "kabaleo_v0"])
    assert says in str(exc.value) and "\n" not in str(exc.value)


def test_fingerprint_check_fails_on_a_config_it_never_recorded(tmp_path, capsys):
    fp = _script("obs_fingerprint")
    path = tmp_path / "digests.json"
    assert fp.main(["--record", str(path), "--env", "kabaleo_v0", "--games", "1"]) == 0
    recorded = json.loads(path.read_text())
    assert fp.main(["--check", str(path), "--env", "kabaleo_v0", "--games", "1"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("all alike")
    dropped = min(recorded)
    path.write_text(json.dumps({k: v for k, v in recorded.items() if k != dropped}))
    assert fp.main(["--check", str(path), "--env", "kabaleo_v0", "--games", "1"]) == 1
    assert f"not recorded: {dropped}" in capsys.readouterr().out
    path.write_text(json.dumps({**recorded, dropped: "0" * 64}))
    assert fp.main(["--check", str(path), "--env", "kabaleo_v0", "--games", "1"]) == 1
    assert f"DIFFERS: {dropped}" in capsys.readouterr().out


# -- scripts/step_instructions.py: the fixed games it counts, and bad arguments ---------------------
def test_step_instructions_plays_the_same_fixed_games_every_time():
    si = _script("step_instructions")
    import kabenvs

    first = si.fixed_games(kabenvs.make("kabaleo_v0", num_players=2), 3)
    again = si.fixed_games(kabenvs.make("kabaleo_v0", num_players=2), 3)
    assert first == again and 3 * 10 < first < 3 * 100  # a Kabaleo game has tens of decisions
    assert si.fixed_games(kabenvs.make("kabaleo_v0", num_players=2), 4) > first


@pytest.mark.parametrize("args, says", [
    (["--env", "nope_v0"], "unknown env id"),
    (["--env", "kabaal_v0", "--players", "7"], "allows [2, 3, 4]"),
    (["--env", "kabaal_v0", "--tree", "/"], "holds no kabenvs package"),
])
def test_step_instructions_refuses_bad_arguments_in_one_line(args, says, capsys, monkeypatch):
    si = _script("step_instructions")
    monkeypatch.setattr(si.shutil, "which", lambda name: "/usr/bin/valgrind")  # checked before it
    assert si.main(args) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and "\n" not in err


# -- the Python API: a seat or a seed that is none is one ConfigError, never another seat's world ---
@pytest.mark.parametrize("env_id", ["alakazum_v0", "barakka_v0", "cabula_v0", "kabaal_v0", "kabaleo_v0"])
def test_every_seat_view_refuses_a_seat_that_is_not_one(env_id):
    """``resample_hidden``, ``render``, ``table_view``, ``narrate`` and ``hidden_zones`` take a seat
    (None: the all-seeing view, where allowed). Before, a seat past the table or -1 gave an
    IndexError in some games and, in others, a view for a seat that is none: Barakka's
    ``render(2)`` and ``render(-1)`` at 2 players were the all-seeing view (every hand and the
    deck's order), ``resample_hidden(-1)`` a world drawn for the last seat."""
    import random

    game = make_game(env_id)
    state = game.new_state(3)
    rnd = random.Random(0)
    for _ in range(15):
        before, action = state.clone(), rnd.choice(state.legal_actions())
        state.apply(action)
    n = state.num_players
    views = {
        "resample_hidden": lambda q: state.resample_hidden(q, 1),
        "render": state.render,
        "table_view": state.table_view,
        "narrate": lambda q: state.narrate(before, action, q),
        "hidden_zones": state.hidden_zones,
    }
    for what, view in views.items():
        for seat in (n, -1, True, 1.0, "0"):
            with pytest.raises(KabenvsError, match=rf"{what}: .* is not a seat of this {n}-player game; seats are 0 to {n - 1}"):
                view(seat)
        assert view(np.int64(n - 1)) is not None  # a numpy integer is a seat
    assert state.render(None) != state.render(0)  # None is still the all-seeing view
    with pytest.raises(KabenvsError, match="resample_hidden: None is not a seat"):
        state.resample_hidden(None)
    with pytest.raises(KabenvsError, match="seed -3 must be an integer >= 0"):
        state.resample_hidden(0, -3)
    world = state.resample_hidden(np.int64(n - 1), 1)
    assert world.observation(n - 1).tobytes() == state.observation(n - 1).tobytes()


def test_env_reset_and_observe_name_a_bad_seed_options_or_agent():
    import kabenvs

    env = kabenvs.make("kabaal_v0")
    for seed in (-1, "a", True, 1.5):
        with pytest.raises(KabenvsError, match="must be an integer >= 0, a numpy Generator or None"):
            env.reset(seed=seed)
    with pytest.raises(KabenvsError, match="options must be a dict"):
        env.reset(options=[1])
    with pytest.raises(KabenvsError, match="seed -1 must be an integer >= 0"):
        make_game("kabaal_v0").new_state(-1)
    env.reset(seed=np.int64(4))
    first = env.observe("player_0")["observation"].tobytes()
    env.reset(seed=4)
    assert env.observe("player_0")["observation"].tobytes() == first  # the same deal as an int seed
    with pytest.raises(KabenvsError, match=r"observe\('player_9'\): no such agent; agents: \['player_0'"):
        env.observe("player_9")
