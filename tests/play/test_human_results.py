"""The agents-against-humans summary on a small hand-made log with known answers."""

from __future__ import annotations

import json

import pytest

from kabenvs.agents.arena import wilson_interval
from kabenvs.records import RecordError
from training.human_results import main, summarize

HUMAN = {"kind": "human", "name": "ann"}
HUMAN2 = {"kind": "human", "name": "bob"}
M1 = {"kind": "model", "name": "ppo.zip", "model_path": "/m/ppo.zip", "model_hash": "aaaa1111bbbb2222"}
# the same weights logged with the full SHA-256 (as PolicyAgent reports it) count as the same agent
M1_FULL = dict(M1, model_hash="aaaa1111bbbb2222" + "c" * 48)
HEUR = {"kind": "heuristic", "name": "heuristic"}
RAND = {"kind": "random", "name": "random"}


def _rec(seats, winners, returns, scores=None, finished=True, players=None, env_id="kabaleo_v0"):
    n = players or len(seats)
    return {
        "env_id": env_id, "config": {"num_players": n}, "seed": 0, "seats": seats, "actions": [],
        "result": {"finished": finished, "truncated": False, "winners": winners, "returns": returns,
                   "scores": scores, "final_info": None},
    }


@pytest.fixture
def logs(tmp_path):
    first = [
        _rec([HUMAN, M1], [0], [1.0, -1.0], [5.0, 3.0]),  # the human wins
        _rec([M1_FULL, HUMAN], [0], [1.0, -1.0], [6.0, 2.0]),  # the model wins (other seat)
        _rec([HUMAN, M1], [0, 1], [0.0, 0.0], [4.0, 4.0]),  # shared: half a win each
        _rec([HUMAN, M1], [], [0.0, 0.0], None, finished=False),  # abandoned: no result
        _rec([RAND, HEUR], [1], [-1.0, 1.0]),  # no human: ignored
    ]
    second = [
        _rec([HUMAN, HEUR, HEUR], [2], [-1.0, -1.0, 1.0], [1.0, 2.0, 5.0]),  # one heuristic seat wins
        _rec([HUMAN, HUMAN2, RAND], [0], [1.0, -1.0, -1.0], [5.0, 1.0, 2.0]),  # hot seat, ann wins
    ]
    paths = []
    for i, recs in enumerate((first, second)):
        path = tmp_path / f"log{i}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in recs))
        paths.append(path)
    return paths


def _row(rows, env_id, n, agent):
    [row] = [r for r in rows if (r["env_id"], r["num_players"], r["agent"]) == (env_id, n, agent)]
    return row


def test_summary_numbers(logs):
    data = json.loads(summarize(logs, as_json=True))
    assert data["games"] == 7 and data["games_with_humans"] == 6
    rows = data["rows"]
    assert len(rows) == 3  # the model (2p), the heuristic (3p), random (3p); the bot-only game is out

    m = _row(rows, "kabaleo_v0", 2, "model:aaaa1111bbbb2222")
    assert m["games"] == 3 and m["unfinished"] == 1
    assert m["agent_wins"] == pytest.approx(1.5) and m["agent_win_rate"] == pytest.approx(0.5)
    assert m["agent_win_rate_ci95"] == pytest.approx(list(wilson_interval(1.5, 3)), abs=1e-6)
    assert m["human_win_rate"] == pytest.approx(0.5)
    assert m["human_mean_return"] == pytest.approx(0.0)
    assert m["human_mean_score"] == pytest.approx((5 + 2 + 4) / 3)
    assert m["label"] == "ppo.zip #aaaa1111bbbb"

    h = _row(rows, "kabaleo_v0", 3, "heuristic")  # two seats, one won: mean of its seats
    assert h["games"] == 1 and h["agent_win_rate"] == pytest.approx(0.5)
    assert h["human_win_rate"] == 0.0 and h["human_mean_return"] == -1.0 and h["human_mean_score"] == 1.0

    r = _row(rows, "kabaleo_v0", 3, "random")  # two humans: their mean
    assert r["games"] == 1 and r["agent_win_rate"] == 0.0
    assert r["human_win_rate"] == pytest.approx(0.5) and r["human_mean_return"] == 0.0
    assert r["human_mean_score"] == pytest.approx(3.0)


def test_summary_table_and_command(logs, capsys):
    text = summarize([str(p) for p in logs])
    assert "7 games in 2 log(s), 6 with at least one human" in text
    line = next(l for l in text.splitlines() if "ppo.zip" in l)
    lo, hi = wilson_interval(1.5, 3)
    assert "kabaleo_v0 2p" in line and "0.500" in line and f"[{lo:.3f}, {hi:.3f}]" in line
    assert summarize(logs[1]).count("kabaleo_v0 3p") == 2  # a single path works too
    assert main([str(logs[0]), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 5


def test_summary_of_a_malformed_log_names_file_and_line(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(_rec([HUMAN, M1], [0], [1.0, -1.0])) + "\nnot json\n")
    with pytest.raises(RecordError, match=rf"{path}, line 2"):
        summarize([path])
    assert main([str(path)]) == 2
    assert f"{path}, line 2" in capsys.readouterr().err
