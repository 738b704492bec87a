"""Whole games through the real command line with scripted input, for every registered game."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kabenvs.core.registry import game_class
from kabenvs.records import read_records, replay_states
from tests.play.helpers import (
    BAD_NUMBER, GAME_CASES, GAME_IDS, NO_SUCH, ambiguous_prefix, answer_lines, first_decision_names,
    option_args, run_cli,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("case", GAME_CASES, ids=GAME_IDS)
def test_all_humans_hot_seat_with_bad_input(case, tmp_path):
    """Every seat human (so the first decision is a human's at the deal): bad answers first."""
    env_id, config = case
    game = game_class(env_id)(**config)
    n = game.num_players
    seed = 11
    names = first_decision_names(game, seed)
    lines = [""] if n >= 2 else []  # "pass the screen to player k": Enter
    bad = ["", "0", BAD_NUMBER, NO_SUCH, "?", "log", "show"]
    amb = ambiguous_prefix(names)
    if amb is not None:
        bad.append(amb)
    lines += bad + answer_lines(game)
    log = tmp_path / "games.jsonl"
    argv = [env_id, "--players", str(n), "--seat", *["human"] * n, "--seed", str(seed), "--log", str(log),
            *option_args(config)]
    rc, out, err = run_cli(argv, "\n".join(lines) + "\n")
    assert rc == 0, err
    assert err == ""
    assert "Traceback" not in out
    assert "Please enter a choice" in out
    assert f"There is no choice 0" in out and f"There is no choice {BAD_NUMBER}" in out
    assert "No choice starts with" in out
    assert "Commands:" in out  # the help
    if amb is not None:
        assert f"{amb!r} is ambiguous" in out
    if n >= 2:
        assert "Pass the screen to player" in out
    assert "=== Game over" in out
    assert "Everything revealed:" in out
    [record] = read_records(log)
    assert record["env_id"] == env_id and record["seed"] == seed
    assert [s["kind"] for s in record["seats"]] == ["human"] * n
    # every human decision answered '1' after the bad answers: the first legal choice each time
    states = list(replay_states(record))
    for state, act in zip(states, record["actions"]):
        assert act["action"] == state.legal_actions()[0]
        assert act["player"] == state.current_player


@pytest.mark.parametrize("case", GAME_CASES, ids=GAME_IDS)
def test_human_against_random_logs_and_replays(case, tmp_path):
    env_id, config = case
    game = game_class(env_id)(**config)
    n = game.num_players
    log = tmp_path / "games.jsonl"
    argv = [env_id, "--players", str(n), "--opponents", "random", "--seed", "3", "--log", str(log),
            *option_args(config)]
    rc, out, err = run_cli(argv, "\n".join(answer_lines(game)) + "\n")
    assert rc == 0, err
    assert "Traceback" not in out and "=== Game over" in out
    [record] = read_records(log)
    assert [s["kind"] for s in record["seats"]] == ["human"] + ["random"] * (n - 1)
    final = list(replay_states(record))[-1]
    assert final.history == [a["action"] for a in record["actions"]]
    # the replay command shows every step and confirms the game
    rc, out, err = run_cli(["--replay", str(log), "--game-index", "0", "--view", "all"])
    assert rc == 0, err
    assert "Replay matches the log" in out
    for step, act in enumerate(record["actions"]):
        assert f"--- step {step + 1}: player {act['player']} " in out
    if n >= 2:
        rc, out, err = run_cli(["--replay", str(log), "--game-index", "-1", "--view", str(n - 1)])
        assert rc == 0 and "Replay matches the log" in out


@pytest.mark.parametrize("case", GAME_CASES, ids=GAME_IDS)
def test_eof_and_quit_end_cleanly(case, tmp_path):
    env_id, config = case
    game = game_class(env_id)(**config)
    n = game.num_players
    log = tmp_path / "games.jsonl"
    base = [env_id, "--players", str(n), "--seed", "5", "--log", str(log), *option_args(config)]
    if n >= 2:
        base += ["--opponents", "random"]
    rc, out, err = run_cli(base, "")  # input ends at the first question
    assert rc == 0 and err == "" and "Traceback" not in out
    assert "Input ended" in out and "game abandoned" in out
    rc, out, err = run_cli(base, "quit\n")
    assert rc == 0 and err == "" and "Traceback" not in out
    assert "quit: game abandoned" in out and "Everything revealed:" in out
    records = read_records(log)
    assert [r["meta"]["ended"] for r in records] == ["eof", "quit"]
    assert all(not r["result"]["finished"] and r["result"]["winners"] == [] for r in records)
    for r in records:  # an abandoned game still replays
        list(replay_states(r))


def test_kabaleo_answers_by_name_prefix(tmp_path):
    """2-player kabaleo, both human: answer the first decision by an unambiguous name prefix."""
    game = game_class("kabaleo_v0")(num_players=2)
    names = first_decision_names(game, 21)
    target = names[-1]
    # the shortest prefix of the last choice that no other choice starts with
    prefix = next(target[:k] for k in range(1, len(target) + 1)
                  if sum(n.lower().startswith(target[:k].lower()) for n in names) == 1)
    log = tmp_path / "g.jsonl"
    text = "\n".join(["", prefix.upper(), "quit"]) + "\n"
    rc, out, _ = run_cli(["kabaleo_v0", "--seat", "human", "human", "--seed", "21", "--log", str(log)], text)
    assert rc == 0
    assert f"You chose: {target}" in out
    [record] = read_records(log)
    assert record["actions"][0]["name"] == target


def test_exact_name_beats_longer_names():
    from kabenvs.agents.human import match_choice

    names = ["place blue on spot 1", "place blue on spot 10", "place blue on spot 11", "pass"]
    assert match_choice("place blue on spot 1", names) == (0, None)
    assert match_choice("  PLACE   blue on spot 10 ", names) == (1, None)
    assert match_choice("pa", names) == (3, None)
    idx, msg = match_choice("place blue on spot 1 ", names)
    assert idx == 0
    idx, msg = match_choice("place", names)
    assert idx is None and "ambiguous" in msg and "3 choices" in msg
    assert match_choice("4", names) == (3, None)
    assert match_choice("5", names)[0] is None
    assert match_choice("-1", names)[0] is None


def test_pass_screen_between_two_humans_hides_the_other_hand():
    """Hot seat: a clear + pause comes before each change of human; the pause waits for input."""
    rc, out, _ = run_cli(["kabaleo_v0", "--seat", "human", "human", "--seed", "4"], "\n1\n\n1\nquit\n")
    assert rc == 0
    parts = out.split("Pass the screen to player")
    assert len(parts) >= 3  # two screen changes before the quit
    # each human's screen sits between two pauses and names only that seat's secret colour
    for chunk in parts[1:-1]:
        seat = int(chunk.split()[0])
        assert f"you are player {seat}; your secret colour" in chunk
        assert f"you are player {1 - seat}" not in chunk


def test_script_runs_as_a_program(tmp_path):
    """The real entry point, in a subprocess: a game, then a bad argument (one line, exit 2)."""
    script = ROOT / "scripts" / "play.py"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, str(script), "kabaleo_v0", "--opponents", "random", "--seed", "1"],
                          input="\n".join(["1"] * 60) + "\n", capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "=== Game over" in proc.stdout and "Traceback" not in proc.stderr
    proc = subprocess.run([sys.executable, str(script), "no_such_game_v9"], capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "unknown game 'no_such_game_v9'" in proc.stderr
