from __future__ import annotations

import numpy as np

from kabenvs.agents.base import Decision


class RandomAgent:
    """Uniform over the legal actions, with its own seeded generator (never the global one)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, decision: Decision) -> int:
        legal = decision.legal_actions
        if not legal:
            raise ValueError(f"no legal action for player {decision.player}: {decision.state.decision()}")
        return legal[int(self.rng.integers(len(legal)))]
