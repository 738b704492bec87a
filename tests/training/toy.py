"""A tiny game with out-of-turn decisions, for testing the self-play view through the contract.

Players take turns picking a number 0-2 (``pick``). After each pick, the player *before* the
picker (out of turn) answers ``accept`` or ``double``: ``double`` doubles that pick. After
``rounds`` picks per player the largest total wins. Each seat's observation holds its absolute
seat (so a test can tell whose view it got), its own total, whether it is asked to react, and
the pick under reaction. A one-player config is a solo game: the player wins with total >= 4.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np

from kabenvs.core.actions import ActionCatalog
from kabenvs.core.config import GameConfig
from kabenvs.core.game import Game, State, as_generator
from kabenvs.core.observation import ObservationLayout


@dataclasses.dataclass(frozen=True)
class ToyConfig(GameConfig):
    num_players: int = 2
    rounds: int = 2
    PLAYER_COUNTS: ClassVar[tuple[int, ...]] = (1, 2, 3)


class ToyGame(Game):
    name = "toy"
    env_id = "toy_v0"
    Config = ToyConfig
    has_hidden_information = False

    def build_catalog(self) -> ActionCatalog:
        cat = ActionCatalog()
        cat.add("pick", [(k,) for k in range(3)], name="pick {0}")
        cat.add("accept", name="accept")
        cat.add("double", name="double")
        return cat

    def build_layout(self) -> ObservationLayout:
        lay = ObservationLayout()
        lay.add("seat", 3, "absolute seat (test only)")
        lay.add("total", 1, "my total / 10")
        lay.add("reacting", 1, "1 when I am asked to react")
        lay.add("pick", 3, "the pick under reaction")
        return lay

    def new_state(self, rng=None) -> "ToyState":
        s = ToyState(self, as_generator(rng))
        n = self.num_players
        s.totals = [0] * n
        s.picks_left = [self.config.rounds] * n
        s.turn = int(s.rng.integers(n))
        s.current_player = s.turn
        s.reacting = None  # the pick awaiting a reaction
        s.actors = []  # (player, action) of every decision, for tests
        return s

    def max_decisions(self) -> int:
        return 2 * self.num_players * self.config.rounds


class ToyState(State):
    def _legal_actions(self) -> list[int]:
        if self.reacting is not None:
            return [3, 4]
        return [0, 1, 2]

    def _apply(self, action: int) -> None:
        n = self.num_players
        p = self.current_player
        self.actors.append([p, action])
        if self.reacting is None:
            self.totals[p] += action
            self.picks_left[p] -= 1
            self.reacting = action
            if n > 1:
                self.current_player = (p - 1) % n  # the previous player reacts, out of turn
                return
            self.reacting = None  # solo: nobody to react
        else:
            if action == 4:  # double the picker's pick
                self.totals[self.turn] += self.reacting
            self.reacting = None
        self.turn = (self.turn + 1) % n
        self.current_player = None if all(k == 0 for k in self.picks_left) else self.turn

    def observation(self, player: int) -> np.ndarray:
        lay = self.game.layout
        v = lay.zeros()
        v[lay["seat"]][player] = 1
        v[lay["total"]] = self.totals[player] / 10
        if self.reacting is not None and self.current_player == player:
            v[lay["reacting"]] = 1
            v[lay["pick"]][self.reacting] = 1
        return v

    def winners(self) -> list[int]:
        if self.num_players == 1:
            return [0] if self.totals[0] >= 4 else []
        best = max(self.totals)
        return [p for p, t in enumerate(self.totals) if t == best]

    def returns(self) -> list[float]:
        if self.num_players == 1:
            if self.current_player is not None:
                return [0.0]
            return [1.0 if self.totals[0] >= 4 else -1.0]
        return super().returns()

    def render(self, player=None) -> str:
        return f"totals {self.totals}"

    def resample_hidden(self, player, rng=None):
        return self.clone()
