"""`kabenvs serve` and the games database on bad input: one line naming what was wrong, exit status
2, nothing written; one damaged game row does not keep the other games from resuming."""

from __future__ import annotations

import socket
import sqlite3
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
pytest.importorskip("uvicorn")
with warnings.catch_warnings():  # Starlette suggests another HTTP client package; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from kabenvs.commands.serve import listen, main
from kabenvs.core.errors import ConfigError
from kabenvs.web.app import create_app
from kabenvs.web.store import Store


@pytest.fixture(autouse=True)
def no_server(monkeypatch, uvicorn_in_process):
    """A refused command never gets to serving: reaching it fails the test (instead of serving
    until the test run is killed)."""
    uvicorn = uvicorn_in_process

    def refuse(self, sockets=None):
        raise AssertionError("the server was started")

    monkeypatch.setattr(uvicorn.Server, "run", refuse)


def serve(argv, capsys) -> tuple[int, str]:
    """Run the command; its exit status and the one line it wrote to stderr."""
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse-level errors
        rc = exc.code
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return rc, err


@pytest.mark.parametrize("port", ["-1", "0", "65536", "99999"])
def test_a_port_out_of_range_is_refused(tmp_path, capsys, port):
    rc, err = serve(["--port", port, "--data", str(tmp_path / "d")], capsys)
    assert rc == 2 and f"--port={port}" in err and "1 to 65535" in err
    assert not (tmp_path / "d").exists()  # refused before anything was made


def test_a_port_in_use_is_named_and_no_banner_is_printed(tmp_path, capsys):
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    port = busy.getsockname()[1]
    try:
        rc, err = serve(["--port", str(port), "--data", str(tmp_path / "d")], capsys)
    finally:
        busy.close()
    assert rc == 2 and f"cannot listen on 127.0.0.1:{port}" in err and "choose another --port" in err


@pytest.mark.parametrize("host", ["nosuchhost.invalid", "999.1.1.1"])
def test_a_host_that_is_no_address_here_is_named(tmp_path, capsys, host):
    rc, err = serve(["--host", host, "--port", "8000", "--data", str(tmp_path / "d")], capsys)
    assert rc == 2 and f"cannot listen on {host}:8000" in err and "--host must be" in err


def test_a_models_folder_that_is_not_there_is_refused(tmp_path, capsys):
    rc, err = serve(["--models", str(tmp_path / "nope"), "--data", str(tmp_path / "d")], capsys)
    assert rc == 2 and "--models" in err and "is not a folder" in err


def test_a_data_path_that_is_a_file_is_refused(tmp_path, capsys):
    (tmp_path / "f").write_text("x")
    rc, err = serve(["--data", str(tmp_path / "f")], capsys)
    assert rc == 2 and "--data" in err and "is a file" in err


def test_a_data_folder_holding_no_database_is_refused_and_left_alone(tmp_path, capsys):
    folder = tmp_path / "d"
    folder.mkdir()
    junk = b"not a database, some notes of the user's " * 10
    (folder / "games.sqlite3").write_bytes(junk)
    rc, err = serve(["--data", str(folder), "--port", "8000"], capsys)
    assert rc == 2 and "games database" in err and "not a database" in err
    assert (folder / "games.sqlite3").read_bytes() == junk  # never overwritten


def test_another_programs_database_is_refused_before_anything_is_written(tmp_path):
    path = tmp_path / "games.sqlite3"
    db = sqlite3.connect(str(path))
    db.execute("CREATE TABLE games (name TEXT, score INTEGER)")
    db.execute("INSERT INTO games VALUES ('chess', 3)")
    db.commit()
    db.close()
    with pytest.raises(ConfigError, match=r"not a kabenvs games database: its table games has columns \['name', 'score'\]"):
        Store(path)
    db = sqlite3.connect(str(path))
    assert db.execute("SELECT * FROM games").fetchall() == [("chess", 3)]
    assert db.execute("SELECT name FROM sqlite_master WHERE name='participants'").fetchall() == []
    db.close()


def test_a_folder_that_cannot_be_made_is_one_config_error(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(ConfigError, match="cannot use its folder"):
        Store(tmp_path / "f" / "sub" / "games.sqlite3")


def test_listen_binds_the_socket_the_server_is_handed(tmp_path):
    sock = listen("127.0.0.1", 0)
    try:
        assert sock.getsockname()[0] == "127.0.0.1" and sock.getsockname()[1] > 0
    finally:
        sock.close()


@pytest.mark.parametrize("damage, reason", [
    ("UPDATE games SET actions='[1,2,' WHERE id=?", "column actions is not valid JSON"),
    ("UPDATE games SET config='[]' WHERE id=?", "column config holds a list, not a dict"),
    ("UPDATE games SET actions='[1, \"x\"]' WHERE id=?", "column actions must hold a list of integers"),
])
def test_a_damaged_game_row_does_not_stop_the_others_from_resuming(tmp_path, damage, reason):
    data = tmp_path / "data"
    with TestClient(create_app(data, None, pace=10.0)) as c:
        ids = []
        for seed in (1, 2):
            r = c.post("/api/games", json={"env_id": "kabaal_v0", "seats": ["human", "random"], "seed": seed})
            assert r.status_code == 200, r.text
            ids.append(r.json()["id"])
    db = sqlite3.connect(str(data / "games.sqlite3"))
    db.execute(damage, (ids[0],))
    db.commit()
    db.close()
    with TestClient(create_app(data, None, pace=10.0)) as c:
        manager = c.app.state.manager
        assert ids[1] in manager.games and ids[0] not in manager.games  # the sound game resumed
        r = c.get(f"/api/games/{ids[0]}/view?seat=0", headers={"X-Token": "x"})
        assert r.status_code == 500 and reason in r.json()["error"] and ids[0] in r.json()["error"]


def test_a_stored_move_that_no_longer_replays_names_no_hidden_card(tmp_path, capsys):
    """An illegal stored move's error lists the legal moves (the mover's hand); the page that
    opens the game, seen by anyone with its id, gets only the kind of error, the log the rest."""
    data = tmp_path / "data"
    with TestClient(create_app(data, None, pace=10.0)) as c:
        r = c.post("/api/games", json={"env_id": "kabaal_v0", "seats": ["human", "human"], "seed": 3})
        gid = r.json()["id"]
    db = sqlite3.connect(str(data / "games.sqlite3"))
    db.execute("UPDATE games SET actions='[204]' WHERE id=?", (gid,))  # not a passing move
    db.commit()
    db.close()
    with TestClient(create_app(data, None, pace=10.0)) as c:
        r = c.get(f"/api/games/{gid}/view?seat=1", headers={"X-Token": "x"})
    error = r.json()["error"]
    assert r.status_code == 500 and "does not replay (IllegalActionError" in error
    assert "pass red" not in error and "legal choices" not in error  # no move names, so no card of any hand
    assert "legal choices" in capsys.readouterr().err  # the operator still gets the details
