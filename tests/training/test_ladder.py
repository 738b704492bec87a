"""The ladder (``kabenvs evaluate --ladder``): every group of distinct competitors on the same deals,
one OpenSkill rating each over the whole tournament, head-to-head records kept."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("openskill")

from kabenvs.commands.evaluate import main as evaluate_main
from kabenvs.core.errors import ConfigError
from kabenvs.core.registry import make_game
from training.evaluation import baseline
from training.ladder import ladder


def test_every_pair_plays_the_same_deals_and_the_ratings_rank_them():
    game = make_game("kabaleo_v0", num_players=2)
    comps = [baseline("random", game.env_id), baseline("heuristic", game.env_id),
             baseline("search:sims=4", game.env_id, game=game)]
    seen = []
    report = ladder(game, comps, deals=4, seed=3, on_game=lambda s, seats, d: seen.append((tuple(seats), d)))
    assert [m["names"] for m in report.matches] == [["random", "heuristic"], ["random", "search:sims=4"],
                                                    ["heuristic", "search:sims=4"]]
    assert report.games == [16, 16, 16] and len(seen) == 24
    for pair in ((0, 1), (0, 2), (1, 2)):  # each pair: 4 deals x 2 seatings, on the same deals
        assert sorted(d for seats, d in seen if set(seats) == set(pair)) == sorted(d for seats, d in seen
                                                                                   if set(seats) == {0, 1})
    for m in report.matches:
        assert m["win_rates"][0] + m["win_rates"][1] == pytest.approx(1.0)  # shared wins count half
    rows = report.rows()
    assert rows[0]["name"] == "heuristic" and rows[-1]["name"] == "random"  # heuristic beats random in Kabaleo
    assert [r["openskill"]["ordinal"] for r in rows] == sorted((r["openskill"]["ordinal"] for r in rows), reverse=True)
    ms = {r["name"]: r["cpu_ms_per_move"] for r in rows}
    assert all(v is not None and v > 0 for v in ms.values())
    assert ms["search:sims=4"] > ms["random"]  # the search thinks; random only picks
    table = report.table()
    assert "head to head" in table and "heuristic" in table.splitlines()[2]


def test_a_three_player_ladder_plays_every_group_of_three():
    game = make_game("kabaleo_v0", num_players=3)
    comps = [baseline(k, game.env_id, name=n, game=game) for k, n in
             (("random", "r1"), ("random", "r2"), ("heuristic", "h"), ("search:sims=2", "s"))]
    report = ladder(game, comps, deals=1, seed=0)
    assert len(report.matches) == 4 and report.games == [9, 9, 9, 9]  # each in 3 groups of 3 seatings
    assert "head to head" not in report.table()


def test_a_ladder_refuses_too_few_or_repeated_competitors():
    game = make_game("kabaleo_v0", num_players=3)
    with pytest.raises(ConfigError, match="needs at least 3 competitors, given 2"):
        ladder(game, [baseline("random", game.env_id), baseline("heuristic", game.env_id)], deals=1)
    with pytest.raises(ConfigError, match="distinct competitors"):
        ladder(game, [baseline("random", game.env_id)] * 3, deals=1)


@pytest.mark.parametrize("argv, words", [
    (["--ladder", "random", "random", "--game", "kabaleo_v0"], "--ladder needs distinct SEATs"),
    (["--ladder", "random", "heuristic", "--game", "kabaleo_v0", "--workers", "2"], "drop --workers"),
    (["--ladder", "random", "heuristic", "--game", "kabaleo_v0", "--players", "3"], "needs at least 3 competitors"),
])
def test_the_ladder_command_refuses_bad_input_in_one_line(argv, words, capsys):
    assert evaluate_main(argv + ["--deals", "1"]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.splitlines()) == 1


def test_the_ladder_command_prints_json_and_logs_every_game(tmp_path, capsys):
    log = tmp_path / "games.jsonl"
    assert evaluate_main(["--ladder", "random", "heuristic", "--game", "cabula_v0", "--deals", "2", "--json",
                          "--log", str(log)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in out["ladder"]] == ["heuristic", "random"] and out["even"] == 0.5
    assert len(log.read_text().splitlines()) == 4
