"""Terminal play with the seat views: what happened since a seat's last decision is the narration
(forced moves, tricks, rituals), the end reads as tables and says which tie-break decided, no raw
dicts or ids reach the screen, and a human is asked a question with one answer only when another
human is at the screen (the screen then says why)."""

from __future__ import annotations

import dataclasses
import io
from typing import ClassVar

import numpy as np
import pytest

from kabenvs.agents import RandomAgent
from kabenvs.agents.human import Console
from kabenvs.core.actions import ActionCatalog
from kabenvs.core.config import GameConfig
from kabenvs.core.game import Game, State
from kabenvs.core.observation import ObservationLayout
from kabenvs.core.registry import game_class
from kabenvs.play.session import ONLY_CHOICE_ASKED, PlaySession, Seat
from kabenvs.play.view import format_table
from tests.play.helpers import run_cli


# -- a toy game: player 1's options depend on a secret card (or on player 0's public move) --------
@dataclasses.dataclass(frozen=True)
class _ChoiceConfig(GameConfig):
    num_players: int = 2
    # "card": player 1 has one option when its secret card is 0; "public": when player 0 stays
    by: str = "card"
    PLAYER_COUNTS: ClassVar[tuple[int, ...]] = (2,)


class _ChoiceGame(Game):
    name = "choice"
    env_id = "choice_v0"
    Config = _ChoiceConfig

    def build_catalog(self) -> ActionCatalog:
        cat = ActionCatalog()
        for name in ("go", "stay", "fold", "call"):
            cat.add(name, name=name)
        return cat

    def build_layout(self) -> ObservationLayout:
        lay = ObservationLayout()
        lay.add("card", 3, "my card (player 1 only)")
        lay.add("moves", 4, "moves made")
        return lay

    def new_state(self, rng=None):
        s = _ChoiceState(self, rng)
        s.card, s.moves, s.current_player = int(s.rng.integers(3)), [], 0
        s.mark_start()
        return s

    def max_decisions(self) -> int:
        return 2


class _ChoiceState(State):
    def _legal_actions(self):
        if self.current_player == 0:
            return [0, 1]
        forced = self.card == 0 if self.game.config.by == "card" else self.moves == [1]
        return [2] if forced else [2, 3]

    def _apply(self, action):
        self.moves.append(action)
        self.current_player = 1 if self.current_player == 0 else None

    def observation(self, player):
        buf = self.game.layout.zeros()
        if player == 1:
            buf[self.card] = 1
        for a in self.moves:
            buf[3 + a] = 1
        return buf

    def winners(self):
        return [1] if self.moves[-1] == 3 else [0]

    def render(self, player=None):
        return f"card={self.card if player in (None, 1) else '?'} moves={len(self.moves)}"

    def resample_hidden(self, player, rng=None):
        world = self.clone()
        if player != 1:
            world.card = int(np.random.default_rng(rng).integers(3))
        return world


_ChoiceGame.State = _ChoiceState


def _play(by: str, card: int, humans: list[int], answers: str, seed: int = 0) -> str:
    game = _ChoiceGame(by=by)
    state = game.new_state(seed)
    state.card = card
    state.touch()
    seats = [Seat("human") if p in humans else Seat("random", RandomAgent(seed)) for p in range(2)]
    out = io.StringIO()
    PlaySession(game, state, seats, Console(io.StringIO(answers), out)).run()
    return out.getvalue()


def test_a_lone_human_is_not_asked_a_question_with_one_answer():
    text = _play("card", card=0, humans=[1], answers="")
    assert "player 1, your choice" not in text
    assert "player 1 (human): fold (the only legal choice, taken without asking)" in text
    # with two answers possible it is asked
    text = _play("card", card=2, humans=[1], answers="call\n")
    assert "player 1, your choice (1-2" in text


def test_on_a_shared_screen_a_secret_only_choice_is_asked_anyway_and_the_screen_says_why():
    text = _play("card", card=0, humans=[0, 1], answers="\ngo\n\n1\n")
    assert "player 1, your choice (1-1" in text
    assert ONLY_CHOICE_ASKED in text
    # the question is the same as with several answers (but for the reason): nothing to tell apart
    assert "Pass the screen to player 1" in text


def test_on_a_shared_screen_a_publicly_forced_only_choice_is_asked_too():
    """Asked although player 0 could tell (its own public move forced it): the rule looks at
    nothing hidden (kabenvs.core.secrecy), so being asked never depends on a hidden fact."""
    text = _play("public", card=2, humans=[0, 1], answers="\nstay\n\n1\n")
    assert "player 1, your choice (1-1" in text and ONLY_CHOICE_ASKED in text
    assert "taken without asking" not in text


def test_whether_a_human_is_asked_never_depends_on_a_hidden_fact():
    """With another human at the table, whether the seat's single answer is asked must be the same
    in every world either human cannot tell apart from the real one (here: whatever player 1's
    secret card, and whatever made the choice single). Sampling the viewer's worlds failed this:
    the verdict followed the cards the sample happened to meet."""
    from kabenvs.core.secrecy import only_choice_is_secret

    for by in ("card", "public"):
        game = _ChoiceGame(by=by)
        for card in range(3):
            state = game.new_state(0)
            state.card = card
            state.touch()
            state.apply(1 if by == "public" else 0)
            if len(state.legal_actions()) != 1:
                continue
            assert only_choice_is_secret(state, [0])  # another human: asked
            assert not only_choice_is_secret(state, [])  # alone: taken without asking
            for seed in range(5):
                for seat in (0, 1):
                    world = state.resample_hidden(seat, np.random.default_rng(seed))
                    assert only_choice_is_secret(world, [0]) and not only_choice_is_secret(world, [])


# -- the real games ---------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", ["kabaleo_v0", "barakka_v0", "kabaal_v0"])
def test_screens_carry_the_narration_and_no_raw_dicts(env_id):
    rc, out, err = run_cli([env_id, "--seed", "5"], "1\n" * 3000)
    assert rc == 0, err
    assert "{" not in out and "}" not in out, "a raw dict on the screen"
    assert "=== Game over" in out and "Scores:" in out and "How it ended:" in out
    if env_id == "kabaal_v0":
        assert " wins trick " in out and "(the only legal choice): " in out
    if env_id == "barakka_v0":
        assert "points: sequences " in out  # the score breakdown of the narration
    # players are named absolutely: never "seats to the left" or "next player"
    assert "seat(s) to the" not in out


def test_the_end_says_which_tie_break_decided():
    from kabenvs.games.kabaleo.rules import COLOURS

    O, G, B, P = (COLOURS.index(c) for c in ("orange", "green", "blue", "pink"))
    game = game_class("kabaleo_v0")(num_players=2)
    s = game.new_state(0)
    # orange (player 1) and green (player 0) end on 4 spots each; orange tops more covered stacks
    board = ([[O]] * 2 + [[B]] + [[B, O]] + [[G]] * 3 + [[P, G]] + [[O, B]] * 2 + [[G, P]]
             + [[B]] * 2 + [[P]] * 3)
    s.spots = [list(x) for x in board]
    s.stock = [[0, 0, 0, 0], [1, 0, 0, 0]]
    s.targets = [G, O]
    s.current_player = 1
    s.last_spot = None
    s.touch()
    out = io.StringIO()
    seats = [Seat("random", RandomAgent(0)), Seat("human")]
    PlaySession(game, s, seats, Console(io.StringIO("place orange on spot 2\n"), out)).run()
    text = out.getvalue()
    assert "the tie was decided by covered stacks showing the colour (first tie-break)" in text
    assert "Result: player 1 (human) wins." in text


def test_tables_align_numbers_right_and_words_left():
    lines = format_table(["player", "score"], [["player 0", 7], ["player 10", 12]])
    assert lines == ["  player     score", "  ---------  -----", "  player 0       7", "  player 10     12"]


def test_final_tables_show_per_player_facts_as_columns_and_leave_ids_out():
    from kabenvs.play.view import final_tables

    class _Done:
        num_players = 2

        def final_info(self):
            return {"winners": [1], "scores": [3.0, 5.0], "rituals": [1, 3],
                    "players": [{"score": 3, "tiles": 0, "rose": None, "cards": [4, 17]},
                                {"score": 5, "tiles": 2, "rose": None, "cards": [2]}],
                    "spots_per_colour": {"red": 2, "blue": 4}, "rounds": 7, "truncated": False,
                    "hands": [[1, 2], [3]]}

        def scores(self):
            return [3.0, 5.0]

        def returns(self):
            return [-1.0, 1.0]

    lines = final_tables(_Done(), ["player 0", "player 1"])
    assert lines[0].split() == ["player", "score", "return", "rituals", "tiles"]
    assert lines[2].split() == ["player", "0", "3", "-1", "1", "0"]
    assert lines[3].split() == ["player", "1", "5", "+1", "3", "2"]
    text = "\n".join(lines)
    assert "spots per colour:" in text and "rounds: 7" in text and "truncated: no" in text
    assert "[" not in text and "{" not in text and "17" not in text  # card ids and raw lists stay out
