"""Terminal play tells a human nothing the seat may not know, found by an audit of the screens:
a deal seed the player did not choose (``new_state(seed)`` is the whole deal) is shown only after
the game, and a failing agent's error (an illegal move's text lists its legal moves, its hidden
cards) reaches a human's screen only as who failed and the kind of error; the log keeps it all."""

from __future__ import annotations

import io
import json

import pytest

from kabenvs.play import cli
from kabenvs.play.session import Seat
from tests.play.helpers import run_cli


def test_a_seed_the_player_did_not_choose_is_shown_only_after_the_game():
    rc, out, _ = run_cli(["kabaleo_v0", "--seat", "human", "random"], "1\n" * 200)
    assert rc == 0
    first, _, rest = out.partition("\n")
    assert "deal seed" not in first and "a random deal (its seed is shown at the end)" in first
    game_over = out.index("=== Game over")
    assert "deal seed" not in out[:game_over] and "(deal seed " in out[game_over:]
    rc, out, _ = run_cli(["kabaleo_v0", "--seat", "human", "random", "--seed", "5"], "1\n" * 200)
    assert rc == 0 and out.partition("\n")[0].endswith("deal seed 5")  # chosen: known anyway
    rc, out, _ = run_cli(["kabaleo_v0", "--seat", "random", "random"])  # no human: nothing to hide
    assert rc == 0 and "deal seed " in out.partition("\n")[0]


class _Broken:
    """An agent with a bug: an action id that does not exist."""

    name = "broken"

    def act(self, decision):
        return 10**6


@pytest.mark.parametrize("env_id", ["cabula_v0", "kabaal_v0"])
def test_a_failing_agents_error_shows_a_human_only_who_failed(env_id, monkeypatch, tmp_path):
    real = cli.build_seat

    def build_seat(spec, index, game, seed, names, trust_pickle=False):
        if index == 1:
            return Seat("heuristic", _Broken(), name="broken")
        return real(spec, index, game, seed, names, trust_pickle)

    monkeypatch.setattr(cli, "build_seat", build_seat)
    log = tmp_path / "g.jsonl"
    rc, out, _ = run_cli([env_id, "--seat", "human", "random", "--seed", "3", "--log", str(log)], "1\n" * 60)
    assert rc == 1
    line = next(x for x in out.splitlines() if "the game stopped" in x)
    assert line == (f"play.py: the game stopped: player 1 (broken) failed (IllegalActionError); "
                    f"the details are in the game log {log}")
    assert "legal choices" not in out.split("the game stopped")[1]
    record = json.loads(log.read_text().splitlines()[0])
    assert "legal choices" in record["meta"]["error"]  # the log (all-seeing) keeps the whole text
    # with no human at the screen the whole text is shown (a developer debugging the agent)
    rc, out, _ = run_cli([env_id, "--seat", "random", "random", "--seed", "3"])
    assert rc == 1 and "legal choices" in next(x for x in out.splitlines() if "the game stopped" in x)
