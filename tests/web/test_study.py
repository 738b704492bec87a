"""Human studies: the study config, the participants' series, the results and their exports."""

from __future__ import annotations

import io
import json
import time
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("yaml")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from kabenvs.web.app import create_app
from kabenvs.web.study import StudyConfigError, load_study, validate_study

ROOT = Path(__file__).resolve().parents[2]
GOOD = {"study": "pilot", "game": "kabaleo_v0", "players": 2, "agents": ["heuristic", "random"],
        "games_per_participant": 4, "seed": 50}


def test_the_shipped_example_study_is_valid():
    study = load_study(ROOT / "configs" / "studies" / "kabaleo_pilot.yaml")
    assert study.game == "kabaleo_v0" and study.agents == ("heuristic", "random")


@pytest.mark.parametrize("change, words", [
    ({"gmae": "x"}, "did you mean 'game'"),
    ({"game": "kabaleo"}, "game='kabaleo' is not allowed"),
    ({"players": 7}, "players=7"),
    ({"players": True}, "players=True"),
    ({"agents": []}, "non-empty list"),
    ({"agents": ["human"]}, "'human' is not one"),
    ({"games_per_participant": 0}, "from 1 to 1000"),
    ({"seat_rotation": "yes"}, "true or false"),
    ({"seed": -1}, "seed=-1"),
    ({"study": "a b"}, "letters, digits"),
    ({"options": {"mode": "nope"}}, "options:"),
    ({"options": {"num_players": 3}}, "options="),
])
def test_a_bad_study_config_is_one_line_naming_the_key(change, words):
    with pytest.raises(StudyConfigError) as err:
        validate_study({**GOOD, **change}, "s.yaml")
    assert words in str(err.value) and str(err.value).startswith("s.yaml: ") and "\n" not in str(err.value)


def test_bad_yaml_and_duplicate_keys_are_refused(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("study: a\nstudy: b\n")
    with pytest.raises(StudyConfigError, match="duplicate|twice|already"):
        load_study(path)
    with pytest.raises(StudyConfigError, match="does not exist"):
        load_study(tmp_path / "missing.yaml")


def test_the_schedule_pairs_deals_across_agents_and_rotates_seats():
    study = validate_study(GOOD)
    plans = [study.schedule(0, i) for i in range(4)]
    assert [p["agent"] for p in plans] == ["heuristic", "random", "heuristic", "random"]
    # no participant plays a deal twice (the second time they would know its hidden cards) ...
    assert [p["seed"] for p in plans] == [50, 51, 52, 53]
    assert [p["human_seat"] for p in plans] == [0, 0, 1, 1]
    assert [study.schedule(1, i)["agent"] for i in range(2)] == ["random", "heuristic"]  # order turns
    # ... and game i is the same deal in the same seat for every participant, which meets every
    # agent across participants (paired comparisons)
    for i in range(4):
        plays = [study.schedule(j, i) for j in range(2)]
        assert {p["seed"] for p in plays} == {50 + i} and len({p["human_seat"] for p in plays}) == 1
        assert {p["agent"] for p in plays} == {"heuristic", "random"}
    unpaired = validate_study({**GOOD, "deal_pairing": False, "seat_rotation": False})
    seeds = {unpaired.schedule(j, i)["seed"] for j in range(3) for i in range(4)}
    assert len(seeds) == 12 and {unpaired.schedule(0, i)["human_seat"] for i in range(4)} == {0}


def test_participants_play_their_series_and_the_results_count_them(tmp_path):
    study = validate_study({**GOOD, "games_per_participant": 2})
    with TestClient(create_app(tmp_path / "d", None, pace=0.0, studies=[study])) as c:
        assert c.get("/study/pilot").status_code == 200
        assert c.post("/api/studies/nope/join", json={}).status_code == 404
        joined = [c.post("/api/studies/pilot/join", json={"name": n}).json() for n in ("ann", "")]
        assert joined[1]["label"] == "participant 1"
        for part in joined:
            pid, tok = part["participant"], part["link"].split("token=")[1]
            url = f"/api/studies/pilot/me?participant={pid}"
            assert c.get(url, headers={"X-Token": "wrong"}).status_code == 403
            while True:
                me = c.get(url, headers={"X-Token": tok}).json()
                if me["done"]:
                    break
                link = me["current"]["link"]
                gid, frag = link[3:].split("#")
                seat, gtok = frag.split("&")[0].split("=")[1], frag.split("token=")[1]
                while True:
                    v = c.get(f"/api/games/{gid}/view?seat={seat}", headers={"X-Token": gtok}).json()
                    if v["game"]["status"] != "playing":
                        break
                    if v["legal"]:
                        c.post(f"/api/games/{gid}/move", headers={"X-Token": gtok},
                               json={"seat": int(seat), "action": v["legal"][-1]["id"], "move": v["move"]})
                    else:
                        time.sleep(0.005)
            assert [g["status"] for g in me["games"]] == ["finished", "finished"]
        summary = c.get("/api/studies/pilot/results").json()
        csv_text = c.get("/api/studies/pilot/results.csv").text
        # the game log holds the finished deals, which other participants have still to play:
        # the operator's key only (printed by kabenvs serve); the open results leave the seed out
        assert c.get("/api/studies/pilot/games.jsonl").status_code == 403
        assert c.get("/api/studies/pilot/games.jsonl", headers={"X-Token": "wrong"}).status_code == 403
        assert c.get("/api/studies/pilot/games.jsonl", headers={"X-Token": "clé".encode("latin-1")}).status_code == 403
        key = c.app.state.manager.study_key("pilot")
        log_text = c.get("/api/studies/pilot/games.jsonl", headers={"X-Token": key}).text
        assert c.get(f"/api/studies/pilot/games.jsonl?key={key}").text == log_text
        assert c.get("/study/pilot/results").status_code == 200
    assert summary["participants"] == 2 and summary["games"] == 4 and summary["finished"] == 4
    assert "seed" not in summary["study"] and "seed" not in json.dumps(summary) and "seed" not in csv_text
    rows = {r["agent"]: r for r in summary["agents"]}
    assert set(rows) == {"heuristic", "random"} and all(r["games"] == 2 for r in rows.values())
    for r in rows.values():
        lo, hi = r["agent_win_rate_ci95"]
        assert 0 <= lo <= r["agent_win_rate"] <= hi <= 1
    assert csv_text.splitlines()[0].startswith("env_id,num_players,agent")
    assert len(csv_text.splitlines()) == 3
    ids = {p["id"] for p in summary["ratings"]["players"]}
    assert {"heuristic", "random"} <= ids and sum(i.startswith("human:") for i in ids) == 2
    # the same games, as a game log, read by scripts/evaluate.py --human-log
    log = tmp_path / "study.jsonl"
    log.write_text(log_text)
    assert len(log_text.splitlines()) == 4
    from training.human_results import summarize

    table = json.loads(summarize([str(log)], as_json=True))
    assert {row["agent"] for row in table["rows"]} == {"heuristic", "random"}
    assert table["rows"] == summary["agents"]  # the results page and evaluate.py agree
    import runpy
    import sys
    from contextlib import redirect_stdout

    out = io.StringIO()
    argv = sys.argv
    try:
        sys.argv = ["evaluate.py", "--human-log", str(log)]
        with redirect_stdout(out), pytest.raises(SystemExit) as done:
            runpy.run_path(str(ROOT / "scripts" / "evaluate.py"), run_name="__main__")
    finally:
        sys.argv = argv
    assert done.value.code in (0, None) and "heuristic" in out.getvalue()


def test_a_browser_cannot_make_study_games(tmp_path):
    study = validate_study(GOOD)
    with TestClient(create_app(tmp_path / "d", None, pace=0.0, studies=[study])) as c:
        r = c.post("/api/games", json={"env_id": "kabaleo_v0", "seats": ["human", "random"],
                                       "_study": {"study": "pilot", "participant": "x", "index": 0,
                                                  "human_seat": 0, "label": "evil"}})
        assert r.status_code == 200
        assert c.get("/api/studies/pilot/results").json()["games"] == 0
        assert c.app.state.manager.games[r.json()["id"]].row.options.get("study") is None


def test_a_long_value_in_a_study_config_is_not_echoed_whole():
    """Found when the property tests' values gained numbers of a thousand digits: every refusal of
    a study config echoed the value whole (a 1,000-digit players count, a 5,000-character name)."""
    good = {"study": "pilot", "game": "kabaleo_v0", "agents": ["heuristic"], "games_per_participant": 4}
    for bad in ({"study": "x" * 5000}, {"players": 10**1000}, {"agents": ["y" * 5000] * 3 + ["human"]},
                {"games_per_participant": -(10**1000)}, {"seed": 10**1000}, {"z" * 5000: 1}):
        with pytest.raises(StudyConfigError) as info:
            validate_study({**good, **bad}, "s.yaml")
        text = str(info.value)
        assert "\n" not in text and len(text) < 300, text[:400]
