"""The web server without a browser (Starlette's test client): storage, resumption, secrecy, bad input."""

from __future__ import annotations

import io
import json
import sqlite3
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
with warnings.catch_warnings():  # Starlette suggests another HTTP client package; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from kabenvs.core.registry import env_ids, game_class
from kabenvs.records import append_record, replay_states
from kabenvs.web.app import create_app
from kabenvs.web.live import model_names


def token(link: str) -> str:
    return link.split("token=")[1]


@pytest.fixture
def data(tmp_path):
    return tmp_path / "data"


def client(data, pace=0.0, models=None):
    return TestClient(create_app(data, models, pace=pace))


def new_game(c, env_id="kabaleo_v0", seats=("human", "heuristic"), **extra):
    r = c.post("/api/games", json={"env_id": env_id, "seats": list(seats), **extra})
    assert r.status_code == 200, r.text
    return r.json()


def view(c, gid, seat, tok, since=0):
    return c.get(f"/api/games/{gid}/view?seat={seat}&since={since}", headers={"X-Token": tok})


def wait_for(c, gid, seat, tok, predicate, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = view(c, gid, seat, tok).json()
        if predicate(v):
            return v
        time.sleep(0.01)
    raise AssertionError("timed out waiting for the game")


def my_turn_or_over(v):
    return bool(v["legal"]) or v["game"]["status"] != "playing"


def play(c, gid, seat, tok, v, index=0):
    m = v["legal"][index % len(v["legal"])]
    r = c.post(f"/api/games/{gid}/move", json={"seat": seat, "action": m["id"], "move": v["move"]},
               headers={"X-Token": tok})
    assert r.status_code == 200, r.text
    return r.json()


def test_the_lobby_catalog_lists_every_game_and_never_file_options(data):
    with client(data) as c:
        cat = c.get("/api/catalog").json()
    assert [g["env_id"] for g in cat["games"]] == env_ids()
    for g in cat["games"]:
        names = [o["name"] for o in g["options"]]
        assert "num_players" not in names and "cards" not in names
        assert g["player_counts"] == list(game_class(g["env_id"]).Config.PLAYER_COUNTS)
    assert c.get("/").status_code == 200 and "lobby.js" in c.get("/").text


@pytest.mark.parametrize("env_id", env_ids())
def test_a_whole_game_over_the_api_is_stored_after_every_move_and_exports_to_a_log(data, tmp_path, env_id):
    with client(data) as c:
        made = new_game(c, env_id)
        gid, tok = made["id"], token(made["links"]["0"])
        db = sqlite3.connect(str(data / "games.sqlite3"))
        n = 0
        while True:
            v = wait_for(c, gid, 0, tok, my_turn_or_over)
            if v["game"]["status"] != "playing":
                break
            play(c, gid, 0, tok, v, n)
            n += 1
            stored = json.loads(db.execute("SELECT actions FROM games WHERE id=?", (gid,)).fetchone()[0])
            assert len(stored) >= v["move"] + 1  # written before the reply
        record = c.get(f"/api/games/{gid}/record").json()
    assert record["result"]["finished"] and record["seats"][0]["kind"] == "human"
    states = list(replay_states(record))
    assert states[-1].is_terminal()
    log = tmp_path / "web.jsonl"
    append_record(log, record)
    from kabenvs.play.cli import main

    out = io.StringIO()
    assert main(["--replay", str(log), "--game-index", "0"], input=io.StringIO(""), output=out) == 0
    assert "Game over" in out.getvalue() or "game over" in out.getvalue().lower()


def test_a_restarted_server_resumes_games_in_progress_exactly(data):
    with client(data, pace=10.0) as c:  # the bot waits: the game stays at the human's move
        made = new_game(c, "cabula_v0", ("human", "human"), seed=11)
        gid = made["id"]
        toks = {s: token(made["links"][str(s)]) for s in (0, 1)}
        for step in range(8):
            views = {s: view(c, gid, s, toks[s]).json() for s in (0, 1)}
            mover = next(s for s in (0, 1) if views[s]["legal"])
            play(c, gid, mover, toks[mover], views[mover], step)
        before = c.app.state.manager.games[gid].state.to_json()
        events_before = view(c, gid, 0, toks[0]).json()["events"]
    with client(data) as c2:
        live = c2.app.state.manager.games[gid]
        assert live.state.to_json() == before
        assert view(c2, gid, 0, toks[0]).json()["events"] == events_before
        views = {s: view(c2, gid, s, toks[s]).json() for s in (0, 1)}
        mover = next(s for s in (0, 1) if views[s]["legal"])
        play(c2, gid, mover, toks[mover], views[mover])


def test_agents_move_at_the_pace_and_resume_after_a_restart(data):
    with client(data, pace=0.0) as c:
        made = new_game(c, "kabaleo_v0", ("heuristic", "random"))
        gid, watch = made["id"], token(made["watch"])
        v = wait_for(c, gid, "all", watch, lambda v: v["game"]["status"] != "playing")
        assert v["game"]["status"] == "finished" and v["view"]["winners"] is not None
        assert v["seat"] is None and len(v["events"]) == v["move"]
    with client(data, pace=0.5) as c:
        made = new_game(c, "kabaleo_v0", ("heuristic", "random"))
        t0 = time.monotonic()
        v = wait_for(c, made["id"], "all", token(made["watch"]), lambda v: v["move"] >= 2)
        assert time.monotonic() - t0 >= 0.9  # one move per 0.5 s: a viewer can follow


def test_a_seat_sees_only_its_own_view_and_narration(data):
    with client(data, pace=10.0) as c:
        made = new_game(c, "cabula_v0", ("human", "human"), seed=3)
        gid = made["id"]
        toks = {s: token(made["links"][str(s)]) for s in (0, 1)}
        live = c.app.state.manager.games[gid]
        for step in range(12):
            views = {s: view(c, gid, s, toks[s]).json() for s in (0, 1)}
            for s in (0, 1):
                with live.lock:
                    expect = json.loads(json.dumps(live.state.table_view(s)))
                    world = live.state.resample_hidden(s, np.random.default_rng(step))
                assert views[s]["view"] == expect == json.loads(json.dumps(world.table_view(s)))
                other = views[1 - s]["view"]["players"][s]
                assert other["hand"] is None  # the other seat never receives this hand
            mover = next(s for s in (0, 1) if views[s]["legal"])
            play(c, gid, mover, toks[mover], views[mover], step)
        # the narration a seat receives is narrate(..., seat): draws by the other read as hidden
        lines0 = [line for e in view(c, gid, 0, toks[0]).json()["events"] for line in e["lines"]]
        lines1 = [line for e in view(c, gid, 1, toks[1]).json()["events"] for line in e["lines"]]
        assert lines0 != lines1
        assert (any("player 1 draws a card" in x for x in lines0)
                or any("player 0 draws a card" in x for x in lines1))


def test_links_open_only_their_own_seat(data):
    with client(data) as c:
        made = new_game(c, "kabaleo_v0", ("human", "human", "heuristic"))
        gid = made["id"]
        t0, t1 = token(made["links"]["0"]), token(made["links"]["1"])
        assert view(c, gid, 0, t0).status_code == 200
        for seat, tok in ((1, t0), (0, t1), (0, ""), (0, "x" * 30), (2, t0)):
            r = view(c, gid, seat, tok)
            assert r.status_code == 403 and set(r.json()) == {"error"}
        r = view(c, gid, "all", token(made["watch"]))  # humans play: no all-seeing view yet
        assert r.status_code == 403
        r = c.post(f"/api/games/{gid}/move", json={"seat": 1, "action": 0, "move": 0},
                   headers={"X-Token": t0})
        assert r.status_code == 403


def test_hot_seat_link_opens_every_human_seat_and_no_bot_seat(data):
    with client(data) as c:
        made = new_game(c, "kabaleo_v0", ("human", "human", "heuristic"), hot_seat=True)
        hot = token(made["hot_seat_link"])
        assert view(c, made["id"], 0, hot).status_code == 200
        assert view(c, made["id"], 1, hot).status_code == 200
        assert view(c, made["id"], 2, hot).status_code == 403
        plain = new_game(c, "kabaleo_v0", ("human", "human"))
        assert "hot_seat_link" not in plain


def test_bad_input_is_refused_with_one_line_and_the_server_keeps_running(data, tmp_path):
    (tmp_path / "models").mkdir()
    with client(data, models=tmp_path / "models") as c:
        made = new_game(c)
        gid, tok = made["id"], token(made["links"]["0"])
        v = wait_for(c, gid, 0, tok, my_turn_or_over)
        move = f"/api/games/{gid}/move"
        h = {"X-Token": tok}

        def new(*seats, **extra):
            return c.post("/api/games", json={"env_id": "kabaleo_v0", "seats": list(seats), **extra})

        cases = [
            (c.post(move, content=b"{not json", headers=h), 400, "malformed JSON"),
            (c.post(move, content=b"[1, 2]", headers=h), 400, "JSON object"),
            (c.post(move, content=b'{"seat": 0}' + b" " * 70000, headers=h), 413, "too large"),
            (c.post(move, json={"seat": 0, "action": 10**6, "move": v["move"]}, headers=h), 400,
             "illegal move"),
            (c.post(move, json={"seat": 0, "action": True, "move": v["move"]}, headers=h), 400,
             "illegal move"),
            (c.post(move, json={"seat": 0, "action": v["legal"][0]["id"], "move": v["move"] - 1}, headers=h),
             409, "stale move"),
            (c.post(move, json={"seat": 0, "action": v["legal"][0]["id"]}, headers=h), 400, "move counter"),
            (c.post(move, json={"seat": "x", "action": 0, "move": 0}, headers=h), 400, "seat"),
            (c.post(move, json={"seat": 7, "action": 0, "move": 0}, headers=h), 400, "does not exist"),
            (c.get("/api/games/nosuchgame/view?seat=0"), 404, "unknown game id"),
            (c.get(f"/api/games/{gid}/view?seat=0&since=-3", headers=h), 400, "since"),
            (c.post("/api/games", json={"env_id": "chess_v9", "seats": ["human"]}), 404, "unknown game"),
            (new("human", "wizard"), 400, "unknown seat"),
            (new("human", "model:../x"), 400, "no model"),
            (new("human", "search:model=/etc/x"), 400,
             "model="),
            (c.post("/api/games", json={"env_id": "alakazum_v0", "seats": ["human", "random"],
                                        "options": {"cards": "/etc/passwd"}}), 400, "cannot be set"),
            (c.post("/api/games", json={"env_id": "kabaleo_v0", "seats": ["human"] * 9}), 400, "bad options"),
            (c.post("/api/games", json={"env_id": "kabaleo_v0", "seats": ["human", "random"],
                                        "options": {"mode": "nope"}}), 400, "bad options"),
            (new("human", "random", seed=-1), 400,
             "seed"),
            (c.get(f"/api/games/{gid}/record"), 409, "finished"),
            (c.get("/api/nothing"), 404, "no such page"),
        ]
        for r, status, words in cases:
            assert r.status_code == status, (r.status_code, r.text)
            body = r.json()
            assert set(body) == {"error"} and words in body["error"] and "\n" not in body["error"]
        # after all that the game goes on
        play(c, gid, 0, tok, view(c, gid, 0, tok).json())


def test_a_failing_agent_stops_its_game_only(data, monkeypatch):
    from kabenvs.agents.random_agent import RandomAgent

    def broken(self, decision):
        raise RuntimeError("boom")

    with client(data) as c:
        monkeypatch.setattr(RandomAgent, "act", broken)
        made = new_game(c, "kabaleo_v0", ("random", "random"))
        v = wait_for(c, made["id"], "all", token(made["watch"]), lambda v: v["game"]["status"] != "playing")
        assert v["game"]["status"] == "error" and "RuntimeError" in v["game"]["error"]
        assert "boom" not in v["game"]["error"]  # details stay in the server's log
        monkeypatch.undo()
        other = new_game(c, "kabaleo_v0", ("heuristic", "heuristic"))
        v = wait_for(c, other["id"], "all", token(other["watch"]), lambda v: v["game"]["status"] != "playing")
        assert v["game"]["status"] == "finished"


def test_models_are_offered_only_from_the_models_folder_in_the_safe_format(tmp_path):
    folder = tmp_path / "models"
    folder.mkdir()
    for name in ("good.safetensors", "good.json", "lonely.safetensors", "pickle.zip", "other.json"):
        (folder / name).write_bytes(b"")
    assert model_names(folder) == ["good"]
    assert model_names(None) == [] and model_names(tmp_path / "missing") == []


def test_serve_prints_its_address_and_warns_off_localhost(monkeypatch, capsys, tmp_path, uvicorn_in_process):
    import importlib.util
    import socket

    uvicorn = uvicorn_in_process

    calls = []

    def run(self, sockets=None):  # serve nothing: record what the server was handed
        calls.append((self.config.host, self.config.port, sockets[0].getsockname()[:2]))
        sockets[0].close()

    monkeypatch.setattr(uvicorn.Server, "run", run)
    script = Path(__file__).resolve().parents[2] / "scripts" / "serve.py"
    spec = importlib.util.spec_from_file_location("serve", script)
    serve = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(serve)
    ports = []
    for _ in range(2):  # free ports: the command binds them for real
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            ports.append(probe.getsockname()[1])
    assert serve.main(["--port", str(ports[0]), "--data", str(tmp_path / "d")]) == 0
    out = capsys.readouterr().out
    assert f"http://127.0.0.1:{ports[0]}/" in out and "WARNING" not in out
    assert serve.main(["--host", "0.0.0.0", "--port", str(ports[1]), "--data", str(tmp_path / "d")]) == 0
    out = capsys.readouterr().out
    assert "WARNING" in out and f"http://0.0.0.0:{ports[1]}/" in out
    assert calls == [("127.0.0.1", ports[0], ("127.0.0.1", ports[0])), ("0.0.0.0", ports[1], ("0.0.0.0", ports[1]))]


def test_a_model_from_the_models_folder_and_the_search_bot_take_seats(tmp_path):
    pytest.importorskip("sb3_contrib")
    from kabenvs.agents.policy import save_model
    from kabenvs.core.registry import make_game
    from training.build import make_env, make_model, make_pool
    from training.config import validate

    cfg = validate({"game": {"env_id": "kabaleo_v0", "num_players": 2},
                    "algorithm": {"n_envs": 2, "n_steps": 8, "batch_size": 16},
                    "self_play": {"opponents": {"random": 1.0}}})
    game = make_game("kabaleo_v0", num_players=2)
    env = make_env(cfg, game, make_pool(cfg, game, warn=False))
    models = tmp_path / "models"
    save_model(make_model(cfg, env), models / "tiny.zip", game)
    with client(tmp_path / "data", models=models) as c:
        assert c.get("/api/catalog").json()["models"] == ["tiny"]
        made = new_game(c, "kabaleo_v0", ("model:tiny", "search:sims=8"))
        v = wait_for(c, made["id"], "all", token(made["watch"]), lambda v: v["game"]["status"] != "playing",
                     timeout=60)
        assert v["game"]["status"] == "finished", v["game"]["error"]
        record = c.get(f"/api/games/{made['id']}/record").json()
    assert record["seats"][0]["kind"] == "model" and len(record["seats"][0]["model_hash"]) == 64
    assert record["seats"][1]["kind"] == "search"


def test_a_humans_only_legal_move_is_taken_unless_asking_keeps_a_secret(data):
    from kabenvs.web.live import ONLY_CHOICE_TAKEN

    with client(data) as c:  # Alakazum!: "pass" is often the only answer to a window
        made = new_game(c, "alakazum_v0", ("human", "heuristic"), seed=4)
        gid, tok = made["id"], token(made["links"]["0"])
        live = c.app.state.manager.games[gid]
        asked_single = 0
        while True:
            v = wait_for(c, gid, 0, tok, my_turn_or_over)
            if v["game"]["status"] != "playing":
                break
            assert len(v["legal"]) > 1 or "note" in v  # one answer: only asked to keep a secret
            asked_single += len(v["legal"]) == 1
            play(c, gid, 0, tok, v)
        lines = [x for e in view(c, gid, 0, tok).json()["events"] for x in e["lines"]]
        assert asked_single == 0  # no other human: nothing to hide, never asked
        assert any(x == ONLY_CHOICE_TAKEN for x in lines)
        assert not any(x == ONLY_CHOICE_TAKEN for e in live.events for x in e["lines"][1])
    with client(data) as c2:  # the notes come back with a restarted server's replay
        relines = [x for e in view(c2, gid, 0, tok).json()["events"] for x in e["lines"]]
        assert relines == lines
