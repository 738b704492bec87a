"""What a browser may send the server and what the server tells it back, found by an audit of the
web API: garbage gets a one-line 400/403 (never a bare 500), a search seat cannot name a file on
the server nor ask for unbounded work, a token that is not ASCII matches nothing, and a deal seed
the server drew is not handed to the player."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

import kabenvs
from kabenvs.core.registry import game_class
from kabenvs.web.app import create_app


def _client(tmp_path):
    return TestClient(create_app(tmp_path / "d", None, pace=0.0))


def _new(c, seats=("human", "random"), **body):
    return c.post("/api/games", json={"env_id": "kabaleo_v0", "seats": list(seats), **body})


def _zoo_path() -> str:
    """A safe model that exists on the server's disk (the shipped Kabaleo agent)."""
    path = Path(kabenvs.__file__).parent / "zoo" / "agents" / "kabaleo_v0-2p"
    assert path.with_suffix(".safetensors").is_file()
    return str(path)


@pytest.mark.parametrize("spec", [
    "search:model={p},sims=2", "search:model ={p},sims=2", "search: model = {p} ,sims=2",
    "search:sims=2,model={p}",
])
def test_a_search_seat_cannot_name_a_model_file_on_the_server(tmp_path, spec):
    with _client(tmp_path) as c:
        r = _new(c, ("human", spec.format(p=_zoo_path())))
    assert r.status_code == 400 and "model= is not offered over the web" in r.json()["error"]


@pytest.mark.parametrize("spec, words", [
    ("search:sims=99999999999999999999999", "at most sims=5000"),
    ("search:sims=5001", "at most sims=5000"),
    ("search:time=60", "at most time=5"),
    ("search:algo=pimc,worlds=1000", "at most worlds=64"),
    ("search:bogus=1", "unknown search option"),
])
def test_a_browsers_search_seat_is_bounded_and_checked_when_the_game_is_made(tmp_path, spec, words):
    with _client(tmp_path) as c:
        r = _new(c, ("human", spec))
        assert r.status_code == 400 and words in r.json()["error"] and r.json()["error"].startswith("seat 1: ")
        assert _new(c, ("human", "search:sims=8")).status_code == 200  # within bounds: served


def test_garbage_in_the_view_and_move_requests_is_a_one_line_400_or_403(tmp_path):
    with _client(tmp_path) as c:
        made = _new(c).json()
        gid, tok = made["id"], made["links"]["0"].split("token=")[1]
        for since in ("²", "-1", "1.5", "9" * 40):
            r = c.get(f"/api/games/{gid}/view?seat=0&since={since}", headers={"X-Token": tok})
            assert r.status_code == 400 and "since=" in r.json()["error"], since
        for seat in ("1.9", "0_0", "²", "-1", " 0"):
            r = c.get(f"/api/games/{gid}/view?seat={seat}", headers={"X-Token": tok})
            assert r.status_code == 400 and "seat number" in r.json()["error"], seat
        for seat in (1.9, "0_0", [0], True):
            r = c.post(f"/api/games/{gid}/move", headers={"X-Token": tok}, json={"seat": seat, "action": 0, "move": 0})
            assert r.status_code == 400, seat
        # a token that is not ASCII (compare_digest raised TypeError on it: a bare 500) matches nothing
        r = c.get(f"/api/games/{gid}/view?seat=0", headers={"X-Token": "jeton-\u00e9t\u00e9".encode("latin-1")})
        assert r.status_code == 403 and "error" in r.json()
        assert c.get(f"/api/games/{gid}/view?seat=0", headers={"X-Token": tok}).status_code == 200


def test_hot_seat_is_json_true_or_false_only(tmp_path):
    with _client(tmp_path) as c:
        r = _new(c, ("human", "human"), hot_seat="false")  # bool("false") once switched it on
        assert r.status_code == 400 and "hot_seat=" in r.json()["error"]
        assert "hot_seat_link" not in _new(c, ("human", "human"), hot_seat=False).json()
        assert "hot_seat_link" in _new(c, ("human", "human"), hot_seat=True).json()


def test_a_deal_seed_the_server_drew_is_not_given_to_the_player(tmp_path):
    with _client(tmp_path) as c:
        made = _new(c).json()
        assert "seed" not in made  # new_state(seed) would be the whole deal, the others' colours
        live = c.app.state.manager.games[made["id"]]
        again = game_class("kabaleo_v0")(num_players=2).new_state(np.random.default_rng(live.row.seed))
        assert again.targets == live.state.targets  # (what the seed would have given away)
        assert _new(c, seed=7).json()["seed"] == 7  # one the player chose: told back


def test_the_study_operator_key_outlives_a_restart_and_differs_per_study(tmp_path):
    from kabenvs.web.study import validate_study

    base = {"game": "kabaleo_v0", "players": 2, "agents": ["random"], "games_per_participant": 1}
    studies = [validate_study({**base, "study": n}) for n in ("a", "b")]
    keys = []
    for _ in range(2):
        with TestClient(create_app(tmp_path / "d", None, pace=0.0, studies=studies)) as c:
            keys.append([c.app.state.manager.study_key(s.name) for s in studies])
    assert keys[0] == keys[1] and keys[0][0] != keys[0][1] and all(len(k) >= 16 for k in keys[0])


def test_a_long_value_in_a_request_is_not_echoed_whole(tmp_path):
    """Found by tests/web/test_web_properties.py: an unknown game named by a long JSON value came
    back whole in the error (any size the body limit allows)."""
    long = "x" * 5000
    with _client(tmp_path) as c:
        gid = _new(c).json()["id"]
        replies = [
            c.post("/api/games", json={"env_id": [long, {"k": long}], "seats": ["human"]}),
            c.post("/api/games", json={"env_id": "kabaleo_v0", "seats": ["human", long[:199]]}),
            c.get(f"/api/games/{long}/view?seat=0"),
            c.get(f"/api/games/{gid}/view?seat=0&since={long}"),
            c.get(f"/api/studies/{long}/results"),
        ]
    for r in replies:
        assert 400 <= r.status_code < 500 and len(r.json()["error"]) < 250, r.json()["error"][:300]


def test_a_huge_number_in_a_move_is_not_echoed_whole(tmp_path):
    """A JSON number of a thousand digits (json reads integers of up to 4,300) as the action, the
    move counter or the seat came back whole in the error (1,000+ characters); a search spec's
    option within the 200-character spec limit, nearly so."""
    huge = 10**1000
    with _client(tmp_path) as c:
        made = _new(c, seats=("human", "human"), seed=1).json()
        gid, token = made["id"], made["links"]["0"].split("token=")[1]
        move = c.get(f"/api/games/{gid}/view?seat=0", headers={"X-Token": token}).json()["move"]
        replies = [
            c.post(f"/api/games/{gid}/move", json={"seat": 0, "action": huge, "move": move}, headers={"X-Token": token}),
            c.post(f"/api/games/{gid}/move", json={"seat": 0, "action": -huge, "move": move}, headers={"X-Token": token}),
            c.post(f"/api/games/{gid}/move", json={"seat": 0, "action": 0, "move": huge}, headers={"X-Token": token}),
            c.post(f"/api/games/{gid}/move", json={"seat": huge, "action": 0, "move": move}, headers={"X-Token": token}),
            _new(c, seats=("human", "search:sims=" + "9" * 185)),
        ]
    for r in replies:
        assert 400 <= r.status_code < 500 and len(r.json()["error"]) < 250, r.json()["error"][:300]
