"""The opponent pool of self-play: which agent plays each non-learner seat of a game.

Kinds, mixed by configured weights: ``self`` (the current policy, updated in place as it
learns), ``snapshots`` (frozen copies of the policy taken every N learner steps, one drawn
uniformly), ``random`` (``RandomAgent``'s rule, vectorised), ``heuristic`` (the game's bot) and
``search`` (the search bot, ``kabenvs.agents.search``, as ``search_spec`` names it; one agent,
built with the pool, answers every search seat: it keeps nothing between moves but its
generator). Each opponent seat of each game draws its opponent when the game is dealt.

An opponent is named by a key: ``"self"``, ``"snap:<step>"``, ``"random"``, ``"heuristic"``,
``"search"``; the
vectorised env groups pending decisions by key so a policy answers all of its decisions across
the games in one forward pass.
"""

from __future__ import annotations

import copy
import warnings
from collections import OrderedDict

import numpy as np

KINDS = ("self", "snapshots", "random", "heuristic", "search")
BOT_KINDS = ("random", "heuristic", "search")  # opponents that are no network of the pool
DEFAULT_SEARCH_SPEC = "search:sims=20"


def heuristic_available(env_id: str) -> tuple[bool, str]:
    """Whether the game has a heuristic bot yet (a game may ship without ``bots.py`` for a while)."""
    try:
        from kabenvs.agents import heuristic_agent

        heuristic_agent(env_id, seed=0)
        return True, ""
    except (ImportError, AttributeError) as exc:
        return False, f"{env_id} has no heuristic bot ({type(exc).__name__}: {exc})"


class OpponentPool:
    def __init__(
        self,
        env_id: str,
        weights: dict[str, float],
        max_snapshots: int = 10,
        rng: np.random.Generator | None = None,
        warn: bool = True,
        search_spec: str = DEFAULT_SEARCH_SPEC,
        game=None,
    ) -> None:
        """``game`` (the ``Game`` trained on) is what a ``search_spec`` with ``model=`` is checked
        against; without it the env id's default game stands in."""
        self.env_id = env_id
        self.rng = rng if rng is not None else np.random.default_rng()
        self.max_snapshots = max_snapshots
        self.current = None  # the learner's policy (set once the model exists)
        self.snapshots: OrderedDict[str, object] = OrderedDict()
        w = {k: float(weights.get(k, 0.0)) for k in KINDS}
        self.notes: list[str] = []
        if w["heuristic"] > 0:
            ok, why = heuristic_available(env_id)
            if not ok:
                self.notes.append(f"opponent pool: {why}; its weight {w['heuristic']} goes to 'random'")
                w["random"] += w["heuristic"]
                w["heuristic"] = 0.0
        if sum(w.values()) <= 0:
            raise ValueError(f"opponent weights {weights} are all zero")
        self.weights = w
        self.search_spec = search_spec
        self.search_agent = None
        if w["search"] > 0:
            from kabenvs.agents.search import search_agent_from_spec

            self.search_agent = search_agent_from_spec(search_spec, game if game is not None else env_id,
                                                       seed=int(self.rng.integers(2**31)))
        self._kinds = [k for k in KINDS if w[k] > 0]
        p = np.array([w[k] for k in self._kinds])
        self._probs = p / p.sum()
        if warn:
            for note in self.notes:
                warnings.warn(note, stacklevel=2)

    # -- policies ---------------------------------------------------------------------------------
    def set_current(self, policy) -> None:
        self.current = policy

    def add_snapshot(self, step: int, policy=None, state_dict=None) -> str:
        """Freeze a copy of the current policy (or load ``state_dict`` into one)."""
        if self.current is None:
            raise RuntimeError("set_current(policy) before taking snapshots")
        snap = _frozen_copy(self.current)
        if state_dict is not None:
            snap.load_state_dict(state_dict)
        elif policy is not None:
            snap.load_state_dict(policy.state_dict())
        key = f"snap:{int(step)}"
        self.snapshots[key] = snap
        while len(self.snapshots) > self.max_snapshots:
            self.snapshots.popitem(last=False)
        return key

    def policy(self, key: str):
        if key == "self":
            return self.current
        return self.snapshots[key]

    # -- drawing ------------------------------------------------------------------------------------
    def sample(self) -> str:
        """One opponent key. ``snapshots`` before the first snapshot falls back to ``self``."""
        kind = self._kinds[int(self.rng.choice(len(self._kinds), p=self._probs))]
        if kind == "snapshots":
            if not self.snapshots:
                return "self"
            keys = list(self.snapshots)
            return keys[int(self.rng.integers(len(keys)))]
        return kind

    @property
    def uses_policy(self) -> bool:
        return self.weights["self"] > 0 or self.weights["snapshots"] > 0

    @property
    def uses_heuristic(self) -> bool:
        return self.weights["heuristic"] > 0

    def reseed_search(self, seed: int) -> None:
        """A fresh generator for the search opponent (the env's ``reset`` with a seed)."""
        if self.search_agent is not None:
            self.search_agent.rng = np.random.default_rng(seed)


def _frozen_copy(policy):
    """A copy of an SB3 policy without its optimizer, gradients off, in eval mode."""
    optimizer = getattr(policy, "optimizer", None)
    # The last distribution the policy built is left on it; after a gradient update it holds
    # tensors of the autograd graph, which cannot be deep-copied (and a snapshot never needs it).
    last = getattr(getattr(policy, "action_dist", None), "distribution", None)
    memo = {id(last): None} if last is not None else {}
    try:
        policy.optimizer = None  # not worth copying: snapshots never train
        snap = copy.deepcopy(policy, memo)
    finally:
        policy.optimizer = optimizer
    for param in snap.parameters():
        param.requires_grad_(False)
    snap.set_training_mode(False)
    return snap
