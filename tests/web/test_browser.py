"""Real-browser tests: whole games by clicking, two humans' privacy, reload, server restart.

Each game is played by a human seat (this test, clicking) against the game's heuristic bot, with
2 players and the games' default options (no shortened games: the longest, Kabaal, takes about 75
human decisions). Set ``KABENVS_SCREENSHOTS=docs/img`` to refresh the screenshots in docs/play.md.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from kabenvs.records import game_of, replay_states
from kabenvs.web.live import narrate, table_view
from tests.web.helpers import TablePage, api, play_to_end, token_of

GAMES = ["kabaleo_v0", "barakka_v0", "cabula_v0", "alakazum_v0", "kabaal_v0"]
GAME_BUDGET_S = 300  # per game; about 5-25 s on an idle 2-core machine


def _screenshot_dir(tmp_path: Path) -> Path:
    target = os.environ.get("KABENVS_SCREENSHOTS")
    path = Path(target) if target else tmp_path / "img"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _screenshot(page, path: Path) -> None:
    """A small PNG of the page: 1100x760 pixels, reduced to a 64-colour palette where Pillow is
    installed (it comes with matplotlib, in the train extra)."""
    page.screenshot(path=str(path))
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as img:
        small = img.convert("RGB").quantize(colors=64)
    small.save(path, optimize=True)


def _start_from_lobby(page: TablePage, base: str, env_id: str, seats: list[str]) -> dict[int, str]:
    p = page.page
    p.goto(base + "/")
    p.wait_for_function("document.body.dataset.ready === '1'")
    p.select_option("#game", env_id)
    p.select_option("#players", str(len(seats)))
    for i, spec in enumerate(seats):
        p.select_option(f"#seat-{i}", spec)
    p.click("#start")
    p.wait_for_selector("#result:not([hidden])")
    links = {}
    for a in p.locator("a.seat-link").all():
        links[int(a.get_attribute("data-seat"))] = a.get_attribute("href")
    return links


@pytest.mark.parametrize("env_id", GAMES)
def test_a_whole_game_by_clicking_against_the_heuristic_bot(browser, server, tmp_path, env_id):
    context = browser.new_context(viewport={"width": 1100, "height": 760})
    page = TablePage(context)
    links = _start_from_lobby(page, server.url, env_id, ["human", "heuristic"])
    assert list(links) == [0]
    page.goto(server.url + links[0])
    shots = _screenshot_dir(tmp_path)

    def on_turn(n: int) -> None:
        if n == 4:
            _screenshot(page.page, shots / f"{env_id.split('_v')[0]}.png")
        if n == 6 and env_id == "kabaleo_v0":  # a closed or reloaded tab rejoins with its link
            page.page.reload()
            page.page.wait_for_function("document.body.dataset.move !== undefined")
            page.wait_turn_or_end()

    played = play_to_end(page, GAME_BUDGET_S, on_turn)
    assert played > 0
    # the human clicked things on the table (not only the moves list), and every move that names
    # a thing could have been played by clicking it: its thing was drawn
    assert page.clicks["target"] >= min(5, played // 3), page.clicks
    assert page.untargeted == [], sorted(set(page.untargeted))
    assert page.status in ("finished", "truncated")
    assert page.page.locator("#result").is_visible()
    assert page.page.locator("#events li").count() > played  # the bot's moves are narrated too
    assert page.errors == []
    # the finished game exports to a game log that replays
    href = page.page.locator("a.record-link").get_attribute("href")
    status, record = api(server.url, href)
    assert status == 200
    states = list(replay_states(record))
    assert states[-1].is_terminal()
    context.close()


def test_two_humans_never_receive_each_others_hidden_cards(browser, server):
    env_id = "cabula_v0"  # hands of cards hidden from the other player
    status, made = api(server.url, "/api/games", {"env_id": env_id, "seats": ["human", "human"], "seed": 7})
    assert status == 200, made
    pages = {}
    for seat in (0, 1):
        pages[seat] = TablePage(browser.new_context())
        pages[seat].goto(server.url + made["links"][str(seat)])
    # each page may open only its own seat: the other seat's view is refused
    for seat, other in ((0, 1), (1, 0)):
        s, reply = api(server.url, f"/api/games/{made['id']}/view?seat={other}",
                       token=token_of(made["links"][str(seat)]))
        assert s == 403 and "error" in reply
    step = 0
    while True:
        movers = [s for s in (0, 1) if pages[s].body("myTurn") == "1"]
        if pages[0].status not in ("playing", "") or step > 400:
            break
        if not movers:
            pages[0].page.wait_for_timeout(100)
            continue
        pages[movers[0]].play_one(step)
        step += 1
    assert pages[0].status == "finished"
    pages[1].page.wait_for_function("document.body.dataset.status === 'finished'")
    status, record = api(server.url, f"/api/games/{made['id']}/record")
    states = list(replay_states(record))
    game = game_of(record)
    rng = np.random.default_rng(0)
    for seat, page in pages.items():
        assert page.errors == []
        views = [p["data"] for p in page.payloads() if "/view?" in p["url"] and "view" in p["data"]]
        assert len(views) > 10
        expected = {}  # move -> the seat's view there (pages poll: many replies per move)
        for reply in views:
            assert reply["seat"] == seat
            state = states[reply["move"]]
            if reply["move"] not in expected:
                mine = json.loads(json.dumps(table_view(state, seat)))
                # the seat's view is the same in any world consistent with what the seat knows
                world = state.resample_hidden(seat, rng) if not state.is_terminal() else state
                assert mine == json.loads(json.dumps(table_view(world, seat)))
                expected[reply["move"]] = mine
            # every reply held exactly the seat's own view of that position, nothing more
            assert reply["view"] == expected[reply["move"]]
            other = reply["view"]["players"][1 - seat]
            known = sum(c["count"] for c in other["known_hand"])
            assert other["hand"] is None and other["hand_size"] >= known
            # the moves list only when the seat decides; events only as the seat saw them
            # (a seat's only legal move is taken without asking unless another human plays)
            assert not reply["legal"] or state.current_player == seat
            assert bool(reply["legal"]) or state.current_player != seat or len(state.legal_actions()) == 1
            for ev in reply["events"]:
                before, after = states[ev["step"]], states[ev["step"] + 1]
                action = record["actions"][ev["step"]]["action"]
                assert ev["lines"] == narrate(after, before, action, before.current_player, seat)
        assert game.num_players == 2


def test_restart_the_server_mid_game_and_continue(browser, server):
    page = TablePage(browser.new_context(), allow_network_errors=True)
    status, made = api(server.url, "/api/games", {"env_id": "kabaleo_v0", "seats": ["human", "heuristic"]})
    assert status == 200, made
    page.goto(server.url + made["links"]["0"])
    for n in range(3):
        assert page.wait_turn_or_end()
        page.play_one(n)
    move_before = page.move
    server.stop()
    page.page.wait_for_function("document.getElementById('error').textContent.includes('unreachable')")
    server.start()
    page.page.wait_for_function("document.getElementById('error').textContent === ''")  # back again
    assert page.move >= move_before
    played = play_to_end(page, GAME_BUDGET_S)
    assert played > 0 and page.status == "finished"
    assert page.errors == []


def test_hot_seat_hides_the_table_between_humans(browser, server):
    status, made = api(server.url, "/api/games", {"env_id": "kabaleo_v0", "seats": ["human", "human"],
                                                  "hot_seat": True})
    assert status == 200, made
    page = TablePage(browser.new_context())
    page.goto(server.url + made["hot_seat_link"])
    covers = 0
    for step in range(200):
        p = page.page
        p.wait_for_function("document.body.dataset.covered === '1' || "
                            "document.body.dataset.myTurn === '1' || "
                            "document.body.dataset.status === 'finished'")
        if page.status == "finished" and page.body("covered") != "1":
            break
        if page.body("covered") == "1":
            covers += 1
            assert p.locator("#table").inner_text() == "" and not p.locator("#main").is_visible()
            p.click("#cover-go")
            p.wait_for_function("document.body.dataset.myTurn === '1'")
            continue
        page.play_one(step)
    assert page.status == "finished"
    assert covers >= 4
    assert page.errors == []
    # the one screen asked for one seat's view at a time, and each view held that seat's secret only
    seen_seats = set()
    for reply in (x["data"] for x in page.payloads() if "/view?" in x["url"] and "view" in x["data"]):
        seen_seats.add(reply["seat"])
        if not reply["view"]["terminal"]:
            secrets_shown = [c is not None for c in reply["view"]["secret_colours"]]
            assert secrets_shown == [q == reply["seat"] for q in range(2)], reply["view"]["secret_colours"]
    assert seen_seats == {0, 1}


@pytest.mark.slow  # the study's logic is tested without a browser in test_study.py
def test_a_participant_plays_a_study_series_and_the_results_page_shows_it(browser, tmp_path):
    from tests.web.conftest import ServerProcess, free_port

    study = tmp_path / "study.yaml"
    study.write_text("study: pilot\ngame: kabaleo_v0\nplayers: 2\nagents: [heuristic, random]\n"
                     "games_per_participant: 2\nseed: 5\n")
    srv = ServerProcess(tmp_path / "data", free_port(), extra=["--study", str(study)])
    srv.data_dir.mkdir()
    srv.start()
    try:
        page = TablePage(browser.new_context())
        p = page.page
        p.goto(srv.url + "/study/pilot")
        p.fill("#name", "ann")
        p.click("#join-go")
        for game in range(2):
            p.wait_for_selector("a.play-link:not([hidden])")
            p.click("a.play-link")
            p.wait_for_function("document.body.dataset.move !== undefined")
            assert play_to_end(page, GAME_BUDGET_S) > 0
            p.click("a.study-link")  # back to the series: the next game is ready
            p.wait_for_function("document.body.dataset.ready === '1'")
        p.wait_for_function("document.getElementById('progress').textContent.includes('complete')")
        p.goto(srv.url + "/study/pilot/results")
        p.wait_for_function("document.body.dataset.ready === '1'")
        text = p.locator("#agents").inner_text()
        assert "heuristic" in text and "random" in text
        assert "human:" in p.locator("#ratings").inner_text()
        assert page.errors == []
    finally:
        srv.stop()


def _lobby(browser, server, env_id: str):
    """A fresh page on the lobby with ``env_id`` chosen."""
    page = TablePage(browser.new_context())
    page.page.goto(server.url + "/")
    page.page.wait_for_function("document.body.dataset.ready === '1'")
    page.page.select_option("#game", env_id)
    return page, page.page


def test_the_lobby_seats_the_search_bot_with_its_settings_and_shows_errors(browser, server):
    page, p = _lobby(browser, server, "kabaleo_v0")
    p.select_option("#seat-1", "search")
    p.fill("#seat-1-search", "sims=nope")
    p.click("#start")
    p.wait_for_function("document.getElementById('error').textContent !== ''")
    assert "seat 1" in p.locator("#error").inner_text()
    p.fill("#seat-1-search", "sims=16")
    p.click("#start")
    p.wait_for_selector("#result:not([hidden])")
    page.goto(server.url + p.locator("a.seat-link").first.get_attribute("href"))
    assert page.page.locator("#seats").inner_text().count("search") == 1
    assert page.errors == [e for e in page.errors if "400" in e]  # only the refused start


def test_the_lobby_offers_the_shipped_agent_only_where_one_ships(browser, server):
    from kabenvs.zoo import shipped

    env_id, players = shipped()[0].env_id, shipped()[0].num_players
    page, p = _lobby(browser, server, env_id)
    p.select_option("#players", str(players))
    assert "zoo" in p.locator("#seat-1 option").all_inner_texts()
    p.select_option("#seat-1", "zoo")
    p.click("#start")
    p.wait_for_selector("#result:not([hidden])")
    page.goto(server.url + p.locator("a.seat-link").first.get_attribute("href"))
    assert f"{env_id}-{players}p" in page.page.locator("#seats").inner_text()  # the shipped agent sits there
    none_at = [n for n in range(1, 7) if not any(a.env_id == env_id and a.num_players == n for a in shipped())]
    page, p = _lobby(browser, server, env_id)
    counts = p.locator("#players option").all_inner_texts()
    missing = next((str(n) for n in none_at if str(n) in counts), None)
    if missing is not None:  # a player count of this game with no shipped agent: not offered
        p.select_option("#players", missing)
        assert "zoo" not in p.locator("#seat-1 option").all_inner_texts()


@pytest.mark.parametrize("env_id", ["alakazum_v0", "kabaal_v0"])
def test_a_thing_whose_name_holds_a_plus_is_played_by_one_click(browser, server, env_id):
    """A key is never split: Alakazum!'s "Die potion +1" and Kabaal's "5+" are one thing each, and
    clicking one plays its move (a key split at "+" matched nothing and left only the list)."""
    import random

    status, made = api(server.url, "/api/games", {"env_id": env_id, "seats": ["human", "random"], "seed": 3})
    assert status == 200, made
    token = token_of(made["links"]["0"])
    rnd = random.Random(0)
    wanted = None
    for _ in range(3000):
        status, reply = api(server.url, f"/api/games/{made['id']}/view?seat=0", token=token)
        assert reply["game"]["status"] == "playing", "no move of a thing named with '+' came up"
        if not reply["legal"]:
            continue
        targets = reply["view"]["targets"] or {}
        keys = [targets.get(str(m["id"])) for m in reply["legal"]]
        unique = [m for m, k in zip(reply["legal"], keys)
                  if isinstance(k, str) and "+" in k and keys.count(k) == 1]
        if unique:
            wanted = unique[0]
            break
        move = rnd.choice(reply["legal"])
        api(server.url, f"/api/games/{made['id']}/move", {"seat": 0, "action": move["id"], "move": reply["move"]},
            token=token)
    assert wanted is not None
    page = TablePage(browser.new_context())
    page.goto(server.url + made["links"]["0"])
    page.wait_turn_or_end()
    before = page.move
    key = targets[str(wanted["id"])]
    page.page.locator(f'#table .target[data-key="{key}"]').first.click()
    page.page.wait_for_function(f"Number(document.body.dataset.move) > {before}")
    lines = page.page.locator("#events li").all_inner_texts()
    assert f"player 0: {wanted['name']}" in lines, (wanted, lines[-5:])
    assert page.errors == []


def test_the_lobby_sets_a_variant_with_a_checkbox_and_a_value_in_a_field(browser, server):
    page, p = _lobby(browser, server, "barakka_v0")
    assert p.locator("#opt-el_karim").get_attribute("type") == "checkbox"
    p.check("#opt-el_karim")
    p.fill("#opt-memory", "table")
    p.click("#start")
    p.wait_for_selector("#result:not([hidden])")
    link = p.locator("a.seat-link").first.get_attribute("href")
    status, reply = api(server.url, f"/api/games/{link.split('/g/')[1].split('#')[0]}/view?seat=0",
                        token=token_of(link))
    assert status == 200, reply
    assert reply["game"]["config"]["el_karim"] is True and reply["game"]["config"]["memory"] == "table"
    assert page.errors == []
