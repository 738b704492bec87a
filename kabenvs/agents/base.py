"""The Agent protocol: anything that picks an action for one seat.

An agent is handed a ``Decision``: the seat, its observation vector and mask (what a learned
policy uses), and the live ``State``. Agents that read the state (heuristic bots, search) must
read only what their seat may know; the shared test kit checks every registered bot by asking
it again on ``state.resample_hidden(seat)`` and expecting the same answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from kabenvs.core.game import State


@dataclass
class Decision:
    player: int
    state: State
    _observation: np.ndarray | None = None
    _mask: np.ndarray | None = None

    @property
    def observation(self) -> np.ndarray:
        if self._observation is None:
            self._observation = self.state.observation(self.player)
        return self._observation

    @property
    def action_mask(self) -> np.ndarray:
        if self._mask is None:
            self._mask = self.state.legal_mask()
        return self._mask

    @property
    def legal_actions(self) -> list[int]:
        return self.state.legal_actions()


@runtime_checkable
class Agent(Protocol):
    name: str

    def act(self, decision: Decision) -> int: ...


def play_game(state: State, agents: list[Agent], max_steps: int | None = None) -> State:
    """Play ``state`` to the end with one agent per seat (in place); returns the state."""
    limit = max_steps if max_steps is not None else state.game.max_decisions()
    steps = 0
    while state.current_player is not None and steps < limit:
        p = state.current_player
        state.apply(agents[p].act(Decision(p, state)))
        steps += 1
    return state
