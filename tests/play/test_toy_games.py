"""The command line on shapes of game the registered games may not have yet: a solo game, an
out-of-turn reaction and a secret move (toy games registered for the test only)."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import pytest

from kabenvs.core import registry
from kabenvs.core.actions import ActionCatalog
from kabenvs.core.config import GameConfig
from kabenvs.core.game import Game, State
from kabenvs.core.observation import ObservationLayout
from kabenvs.records import read_records, replay_states
from tests.play.helpers import run_cli
from tests.play.test_no_leak import _SecretGame


@dataclasses.dataclass(frozen=True)
class _SoloConfig(GameConfig):
    num_players: int = 1
    rounds: int = 3
    PLAYER_COUNTS: ClassVar[tuple[int, ...]] = (1,)

    def validate(self) -> None:
        super().validate()
        self.check_int("rounds", 1, 10)


class _SoloGame(Game):
    """One player draws a hidden die each round and keeps it or rerolls once; score = sum."""

    name = "solo"
    env_id = "solo_v0"
    Config = _SoloConfig

    def build_catalog(self) -> ActionCatalog:
        cat = ActionCatalog()
        cat.add("keep", name="keep")
        cat.add("reroll", name="reroll")
        return cat

    def build_layout(self) -> ObservationLayout:
        lay = ObservationLayout()
        lay.add("die", 6, "current die")
        return lay

    def new_state(self, rng=None):
        s = _SoloState(self, rng)
        s.round, s.total, s.die, s.current_player = 0, 0, int(s.rng.integers(1, 7)), 0
        return s

    def max_decisions(self) -> int:
        return self.config.rounds


class _SoloState(State):
    def _legal_actions(self):
        return [0, 1]

    def _apply(self, action):
        if action == 1:
            self.die = int(self.rng.integers(1, 7))
        self.total += self.die
        self.round += 1
        if self.round == self.game.config.rounds:
            self.current_player = None
        else:
            self.die = int(self.rng.integers(1, 7))

    def observation(self, player):
        buf = self.game.layout.zeros()
        buf[self.die - 1] = 1
        return buf

    def winners(self):
        return [0] if self.total >= 3 * self.game.config.rounds else []

    def scores(self):
        return [float(self.total)]

    def render(self, player=None):
        return f"round {self.round + 1}, die {self.die}, total {self.total}"


_SoloGame.State = _SoloState


@dataclasses.dataclass(frozen=True)
class _ReactConfig(GameConfig):
    num_players: int = 3
    PLAYER_COUNTS: ClassVar[tuple[int, ...]] = (3,)


class _ReactGame(Game):
    """Seats play in turn 0, 1, 2, 0, ...; after each play, the seat two places on may 'block'
    out of turn (a reaction) before the next seat plays. Six plays end the game."""

    name = "react"
    env_id = "react_v0"
    Config = _ReactConfig
    has_hidden_information = False

    def build_catalog(self) -> ActionCatalog:
        cat = ActionCatalog()
        cat.add("play", [(k,) for k in range(3)], name="play {}")
        cat.add("block", name="block")
        cat.add("let", name="let it pass")
        return cat

    def build_layout(self) -> ObservationLayout:
        lay = ObservationLayout()
        lay.add("points", 3, "points per seat")
        return lay

    def new_state(self, rng=None):
        s = _ReactState(self, rng)
        s.points, s.turn, s.plays, s.reacting, s.current_player = [0, 0, 0], 0, 0, None, 0
        return s

    def max_decisions(self) -> int:
        return 12


class _ReactState(State):
    def _legal_actions(self):
        return [3, 4] if self.reacting is not None else [0, 1, 2]

    def _apply(self, action):
        if self.reacting is None:
            self.points[self.turn] += action
            self.plays += 1
            self.reacting = (self.turn + 2) % 3
            self.current_player = self.reacting
            return
        if action == 3:
            self.points[(self.reacting + 1) % 3] -= 1  # block the seat that just played
        self.reacting = None
        self.turn = (self.turn + 1) % 3
        self.current_player = None if self.plays == 6 else self.turn

    def observation(self, player):
        return self.game.layout.zeros() + 0

    def winners(self):
        best = max(self.points)
        return [p for p in range(3) if self.points[p] == best]

    def scores(self):
        return [float(p) for p in self.points]

    def decision(self):
        if self.current_player is None:
            return "game over"
        if self.reacting is not None:
            victim = (self.reacting + 1) % 3
            return f"player {self.current_player}: block player {victim}'s play or let it pass"
        return f"player {self.current_player}: play 0, 1 or 2"

    def render(self, player=None):
        return f"points {self.points}"


_ReactGame.State = _ReactState


@pytest.fixture
def toy_games(monkeypatch):
    games = registry._discover()
    for cls in (_SoloGame, _ReactGame, _SecretGame):
        monkeypatch.setitem(games, cls.env_id, cls)


def test_solo_game(toy_games, tmp_path):
    log = tmp_path / "solo.jsonl"
    rc, out, err = run_cli(["solo_v0", "rounds=4", "--seed", "2", "--log", str(log)], "keep\nr\nfoo\n1\n2\n")
    assert rc == 0, err
    assert "Pass the screen" not in out and "No choice starts with 'foo'" in out
    # the scores as a table: a header, a rule, one row per player
    table = out.split("Scores:\n", 1)[1].splitlines()
    assert table[0].split() == ["player", "score", "return"]
    assert set(table[1].split()) <= {"-" * k for k in range(3, 30)}
    assert table[2].split()[:4] == ["player", "0", "(human)", "14"]
    [record] = read_records(log)
    assert record["config"] == {"num_players": 1, "rounds": 4}
    assert [a["name"] for a in record["actions"]] == ["keep", "reroll", "keep", "reroll"]
    assert list(replay_states(record))[-1].scores() == record["result"]["scores"]
    rc, _, err = run_cli(["solo_v0", "--players", "2"])
    assert rc == 2 and "num_players=2 is not allowed" in err


def test_out_of_turn_reactions_follow_current_player(toy_games, tmp_path):
    """Seat 2 human, others random: the human is asked both on its turn and out of turn."""
    log = tmp_path / "react.jsonl"
    answers = "\n".join(["block", "play 2", "let", "x", "2"]) + "\n"
    argv = ["react_v0", "--seat", "random", "random", "human", "--seed", "1", "--log", str(log)]
    rc, out, err = run_cli(argv, answers)
    assert rc == 0, err
    assert "block player" in out and "play 0, 1 or 2" in out
    [record] = read_records(log)
    players = [a["player"] for a in record["actions"]]
    assert players == [0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1]  # reactions out of turn
    human = [a["name"] for a in record["actions"] if a["player"] == 2]
    assert human == ["block", "play 2", "let it pass", "play 1"]  # react, play, react, play


def test_secret_move_through_the_command_line(toy_games, tmp_path):
    log = tmp_path / "secret.jsonl"
    rc, out, _ = run_cli(["secret_v0", "--seat", "random", "human", "--seed", "0", "--log", str(log)], "1\n")
    assert rc == 0
    [record] = read_records(log)
    picked = record["actions"][0]["name"]
    before, end = out.split("=== Game over", 1)
    assert "pick (hidden from you)" in before and picked not in before
    rc, out, _ = run_cli(["--replay", str(log), "--view", "1"])
    steps = out.split("Everything revealed:")[0]
    assert "step 1: player 0 (random): pick (hidden from you)" in steps and picked not in steps
    rc, out, _ = run_cli(["--replay", str(log), "--view", "0"])
    assert f"step 1: player 0 (you) (random): {picked}" in out
