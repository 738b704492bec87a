"""The human's screen shows only what that seat may know."""

from __future__ import annotations

import io

import numpy as np
import pytest

from kabenvs.agents import Decision, RandomAgent
from kabenvs.agents.human import Console
from kabenvs.core.actions import ActionCatalog
from kabenvs.core.config import GameConfig
from kabenvs.core.game import Game, State
from kabenvs.core.observation import ObservationLayout
from kabenvs.core.registry import game_class
from kabenvs.games.kabaleo import COLOURS
from kabenvs.play.session import PlaySession, Seat
from kabenvs.play.view import make_move, seen_name
from tests.core.kit import sample_states
from tests.play.helpers import ALL_CONFIG_IDS, ALL_CONFIGS


def _play_transcript(state: State, human: int, seed: int) -> str:
    game = state.game
    seats = [Seat("human") if p == human else Seat("random", RandomAgent(seed + p))
             for p in range(game.num_players)]
    out = io.StringIO()
    console = Console(io.StringIO("1\n" * 200), out)
    PlaySession(game, state, seats, console).run()
    return out.getvalue()


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_kabaleo_other_secret_colours_never_on_the_human_screen(num_players):
    """Rigged deal: the same game with the other seats' secret colours changed must give the
    human the very same screens until the end, and the colours show up only in the final reveal."""
    game = game_class("kabaleo_v0")(num_players=num_players)
    human = 1
    state = game.new_state(np.random.default_rng(7))
    rigged = state.clone()
    mine = state.targets[human]
    others = [p for p in range(num_players) if p != human]
    free = [c for c in range(game.num_colours) if c not in state.targets]
    # rotate the other seats' colours and bring in a colour nobody held
    new_colours = [state.targets[p] for p in others[1:]] + [free[0]]
    for p, c in zip(others, new_colours):
        rigged.targets[p] = c
    rigged.touch()
    assert rigged.targets != state.targets and rigged.targets[human] == mine

    real_text = _play_transcript(state, human, seed=100)
    rigged_text = _play_transcript(rigged, human, seed=100)
    real_before, real_end = real_text.split("=== Game over", 1)
    rigged_before, rigged_end = rigged_text.split("=== Game over", 1)
    assert real_before == rigged_before  # nothing on the screen depended on the hidden colours
    assert real_end != rigged_end  # ... and the end does reveal them, so the check can fail
    assert "targets:" not in real_before and "secret colour" in real_before
    for p in others:
        assert f"p{p}={COLOURS[state.targets[p]]}" not in real_before
        assert f"you are player {p}" not in real_before
    assert set(real_before.split("your secret colour: ")[1:]) and all(
        chunk.startswith(COLOURS[mine]) for chunk in real_before.split("your secret colour: ")[1:]
    )
    assert f"targets: " in real_end
    for p in others:
        assert f"p{p}={COLOURS[state.targets[p]]}" in real_end


@pytest.mark.parametrize("case", ALL_CONFIGS, ids=ALL_CONFIG_IDS)
def test_screen_is_the_same_in_every_world_the_seat_cannot_tell_apart(case):
    """Every game: the decision screen (render, decision, choices) of the deciding seat, and every
    seat's render, do not change when everything hidden from that seat is re-dealt (before the end:
    a finished game's screen reveals everything)."""
    env_id, config = case
    game = game_class(env_id)(**config)
    rng = np.random.default_rng(0)
    checked = 0
    for state in sample_states(game, n_games=6, seed=3, per_game=5):
        if state.current_player is None:
            continue
        checked += 1
        for seat in range(game.num_players):
            world = state.resample_hidden(seat, rng)
            assert world.render(seat) == state.render(seat), f"{env_id}: render({seat}) shows hidden info"
        p = state.current_player
        seats = [Seat("human")] * game.num_players
        screens = []
        for s in (state, state.resample_hidden(p, rng)):
            session = PlaySession(game, s, seats, Console(io.StringIO(), io.StringIO()))
            names = [s.action_name(a) for a in s.legal_actions()]
            screens.append((session.screen(Decision(p, s)), names))
        assert screens[0] == screens[1]
    assert checked >= 6


# -- a toy game with a secret move: the other seat is told only that a choice was made ----------
class _SecretConfig(GameConfig):
    pass


class _SecretGame(Game):
    """Player 0 secretly picks 0-2, then player 1 guesses it (public)."""

    name = "secret"
    env_id = "secret_v0"
    Config = _SecretConfig

    def build_catalog(self) -> ActionCatalog:
        cat = ActionCatalog()
        cat.add("pick", [(k,) for k in range(3)], name="pick {}")
        cat.add("guess", [(k,) for k in range(3)], name="guess {}")
        return cat

    def build_layout(self) -> ObservationLayout:
        lay = ObservationLayout()
        lay.add("picked", 1, "whether player 0 has picked")
        lay.add("my_pick", 3, "player 0's pick, seen by player 0 only")
        lay.add("guess", 3, "the public guess")
        return lay

    def new_state(self, rng=None) -> "_SecretState":
        s = _SecretState(self, rng)
        s.pick, s.guess, s.current_player = None, None, 0
        return s

    def max_decisions(self) -> int:
        return 2


class _SecretState(State):
    def _legal_actions(self):
        r = self.game.catalog.range("pick" if self.current_player == 0 else "guess")
        return list(r)

    def _apply(self, action):
        kind, (k,) = self.game.catalog.decode(action)
        if kind == "pick":
            self.pick, self.current_player = k, 1
        else:
            self.guess, self.current_player = k, None

    def action_name_for(self, action, seat):
        if self.game.catalog.kind(action) == "pick" and seat not in (None, 0):
            return "pick (hidden from you)"
        return self.action_name(action)

    def observation(self, player):
        buf = self.game.layout.zeros()
        buf[0] = self.pick is not None
        if player == 0 and self.pick is not None:
            buf[1 + self.pick] = 1
        if self.guess is not None:
            buf[4 + self.guess] = 1
        return buf

    def winners(self):
        return [1] if self.guess == self.pick else [0]

    def render(self, player=None):
        shown = self.pick if player in (None, 0) else "?"
        return f"pick={shown} guess={self.guess}"


_SecretGame.State = _SecretState


def test_secret_move_is_hidden_from_the_other_seat_but_public_moves_are_named():
    game = _SecretGame()
    state = game.new_state(0)
    pick2 = game.catalog.id("pick", 2)
    assert seen_name(state, pick2, viewer=1) == "pick (hidden from you)"
    assert seen_name(state, pick2, viewer=0) == "pick 2"
    assert seen_name(state, pick2, viewer=None) == "pick 2"
    move = make_move(state, pick2, viewers=[1])
    assert move.label_for(1) == "pick (hidden from you)" and move.label_for(None) == "pick 2"
    state.apply(pick2)
    guess = game.catalog.id("guess", 1)
    assert seen_name(state, guess, viewer=0) == "guess 1"


def test_secret_move_never_on_the_guessers_screen():
    """Through a whole session: the human guesser sees that a pick was made, never which."""
    game = _SecretGame()

    class PickTwo:
        name = "pick-two"

        def act(self, decision):
            return game.catalog.id("pick", 2)

    out = io.StringIO()
    seats = [Seat("heuristic", PickTwo(), name="pick-two"), Seat("human")]
    outcome = PlaySession(game, game.new_state(0), seats, Console(io.StringIO("log\n3\n"), out)).run()
    before, end = out.getvalue().split("=== Game over", 1)
    assert "pick (hidden from you)" in before and "pick 2" not in before
    assert "pick=?" in before
    assert "pick=2" in end  # revealed at the end
    assert outcome.ended == "finished" and outcome.state.winners() == [1]
