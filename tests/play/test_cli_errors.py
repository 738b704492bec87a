"""Bad command lines: one clear line on stderr, exit status 2, nothing played."""

from __future__ import annotations

import json

import pytest

from kabenvs.records import append_record, make_record
from tests.play.helpers import run_cli


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["no_such_game_v0"], "unknown game 'no_such_game_v0'; known games: "),
        ([], "name the game to play"),
        (["kabaleo_v0", "mode=nonsense"], "mode='nonsense' is not allowed"),
        (["kabaleo_v0", "colour=red"], "unknown option(s) ['colour']"),
        (["kabaleo_v0", "mode"], "game option 'mode' must look like key=value"),
        (["kabaleo_v0", "--players", "9"], "num_players=9 is not allowed"),
        (["kabaleo_v0", "--players", "2", "num_players=3"], "--players 2 contradicts num_players=3"),
        (["kabaleo_v0", "--players", "2", "--seat", "human", "random", "random"], "--seat names 3 seats"),
        (["kabaleo_v0", "--players", "2", "--opponents", "random", "random"],
         "2 opponent(s) given but only 1"),
        (["kabaleo_v0", "--opponents", "no/such/model.zip"],
         "neither human, heuristic, random, search, zoo nor an existing model"),
        (["kabaleo_v0", "--players", "two"], "invalid int value: 'two'"),
        (["kabaleo_v0", "--bogus"], "unrecognized arguments: --bogus"),
        (["kabaleo_v0", "--names", "ann", "bob"], "--names gives 2 names for 1 human seat(s)"),
        (["kabaleo_v0", "--seed", "-4"], "-4 is negative; a seed is an integer >= 0"),
        (["--replay", "/no/such/log.jsonl"], "no such game log"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(argv, needle):
    rc, out, err = run_cli(argv, "1\n" * 5)
    assert rc == 2
    assert err.count("\n") == 1 and err.startswith("play.py: error: "), err
    assert needle in err
    assert "Game over" not in out


def test_short_game_name_is_accepted():
    rc, out, err = run_cli(["kabaleo", "--opponents", "random", "--seed", "2"], "quit\n")
    assert rc == 0 and "kabaleo_v0" in out


def test_model_file_that_does_not_load_exits_2(tmp_path):
    """A file that is no model: the policy loader's message (or its absence) in one line, exit 2."""
    bad = tmp_path / "broken.zip"
    bad.write_bytes(b"not a zip")
    rc, out, err = run_cli(["kabaleo_v0", "--opponents", str(bad)], "quit\n")
    assert rc == 2
    assert err.count("\n") == 1 and "cannot load trained model" in err and "broken.zip" in err


def test_heuristic_opponent_missing_or_playing():
    """Each game's heuristic bot plays when it exists; a game without one gets a clear line."""
    from kabenvs.agents import heuristic_agent

    try:
        heuristic_agent("kabaleo_v0", 0)
    except ImportError:
        rc, out, err = run_cli(["kabaleo_v0", "--opponents", "heuristic"], "quit\n")
        assert rc == 2 and "has no heuristic bot" in err and err.count("\n") == 1
    else:
        rc, out, err = run_cli(["kabaleo_v0", "--opponents", "heuristic", "--seed", "1"], "1\n" * 80)
        assert rc == 0 and "=== Game over" in out


def _log_with(tmp_path, lines: list[str]):
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_replay_errors(tmp_path):
    from kabenvs.agents import RandomAgent, play_game
    from kabenvs.core.registry import make_game
    import numpy as np

    game = make_game("kabaleo_v0", num_players=2)
    path = tmp_path / "games.jsonl"
    for seed in (1, 2):
        state = play_game(game.new_state(np.random.default_rng(seed)), [RandomAgent(0), RandomAgent(1)])
        append_record(path, make_record(state, [{"kind": "random"}, {"kind": "random"}], seed))
    rc, _, err = run_cli(["--replay", str(path)])
    assert rc == 2 and "holds 2 games; choose one with --game-index" in err
    rc, _, err = run_cli(["--replay", str(path), "--game-index", "2"])
    assert rc == 2 and "--game-index 2: " in err and "holds 2 games" in err
    rc, _, err = run_cli(["--replay", str(path), "--game-index", "0", "--view", "5"])
    assert rc == 2 and "seats 0..1" in err
    rc, _, err = run_cli(["--replay", str(path), "--game-index", "0", "--view", "me"])
    assert rc == 2 and "--view 'me'" in err
    rc, out, _ = run_cli(["--replay", str(path), "--list"])
    assert rc == 0 and out.count("kabaleo_v0") == 2
    broken = _log_with(tmp_path, [path.read_text().splitlines()[0], "{not json"])
    rc, _, err = run_cli(["--replay", str(broken), "--game-index", "0"])
    assert rc == 2 and f"{broken}, line 2: not a JSON game record" in err
    # a log whose actions were edited no longer replays: said plainly, exit 1
    record = json.loads(path.read_text().splitlines()[0])
    record["actions"][3]["action"] = record["actions"][2]["action"]
    tampered = _log_with(tmp_path, [json.dumps(record)])
    rc, out, _ = run_cli(["--replay", str(tampered)])
    assert rc == 1 and "does not replay" in out and "Traceback" not in out


class _InterruptAfter:
    """An input stream that answers some lines, then behaves like Ctrl-C."""

    def __init__(self, lines: list[str]):
        self.lines = list(lines)

    def readline(self) -> str:
        if self.lines:
            return self.lines.pop(0) + "\n"
        raise KeyboardInterrupt

    def isatty(self) -> bool:
        return False


def test_ctrl_c_ends_cleanly_and_logs_the_game(tmp_path):
    import io

    from kabenvs.play.cli import main
    from kabenvs.records import read_records

    log = tmp_path / "g.jsonl"
    out, err = io.StringIO(), io.StringIO()
    rc = main(["kabaleo_v0", "--opponents", "random", "--seed", "3", "--log", str(log)],
              input=_InterruptAfter(["1", "2"]), output=out, errors=err)
    assert rc == 130
    assert "Interrupted (Ctrl-C): game abandoned" in out.getvalue() and "Traceback" not in out.getvalue()
    [record] = read_records(log)
    assert record["meta"]["ended"] == "interrupted" and not record["result"]["finished"]


def test_a_log_under_a_file_is_refused_before_the_game(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    argv = ["kabaleo_v0", "--opponents", "random", "--log", str(blocker / "g.jsonl")]
    rc, out, err = run_cli(argv, "quit\n")
    # refused before the game is dealt (once it was found only after the game, which was lost)
    assert rc == 2 and "is a file, not a folder" in err and out == "" and "Traceback" not in out + err


def test_undecodable_input_is_asked_again_never_a_traceback():
    import io

    from kabenvs.play.cli import main

    class Garbled:
        def __init__(self, failures: int, then: list[str]):
            self.failures, self.then = failures, list(then)

        def readline(self):
            if self.failures:
                self.failures -= 1
                raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
            return self.then.pop(0) + "\n" if self.then else ""

        def isatty(self):
            return False

    out = io.StringIO()
    rc = main(["kabaleo_v0", "--opponents", "random", "--seed", "1"], input=Garbled(1, ["quit"]), output=out)
    assert rc == 0 and "No choice starts with" in out.getvalue() and "quit: game abandoned" in out.getvalue()
    out = io.StringIO()
    rc = main(["kabaleo_v0", "--opponents", "random", "--seed", "1"], input=Garbled(10**6, []), output=out)
    assert rc == 0 and "Input ended" in out.getvalue()
