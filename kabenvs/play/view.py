"""What one seat may be told about another seat's move, decided through the game contract only.

An action name can carry hidden information (``discard red 7`` face down, a secret bid). The
contract has no "public name", but it has the information state: ``observation(viewer)`` is
everything the viewer has seen and may remember. So the viewer may be told the name of the move
exactly when no other legal move of the same decision, with a different name, would have left the
viewer with the same observation. Otherwise the screen says only what the observation pins down:
the decision kind when all the moves the viewer cannot tell apart share it, else nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kabenvs.core.game import State


def seen_name(before: State, action: int, viewer: int | None, _after: dict | None = None) -> str:
    """The name of ``action`` (about to be taken in ``before``) as ``viewer`` may know it.

    ``viewer`` None is the all-seeing view (replays with ``--view all``, the final log).
    ``_after`` caches the states after each legal action when several viewers ask.
    """
    name = before.action_name(action)
    mover = before.current_player
    if viewer is None or viewer == mover or not before.game.has_hidden_information:
        return name
    legal = before.legal_actions()
    if len(legal) <= 1:
        return name
    after = _after if _after is not None else {}

    def observed(a: int) -> np.ndarray:
        if a not in after:
            state = before.clone()
            state.apply(a)
            after[a] = state
        return after[a].observation(viewer)

    mine = observed(action)
    twins = [
        a for a in legal
        if a != action and before.action_name(a) != name and np.array_equal(observed(a), mine)
    ]
    if not twins:
        return name
    catalog = before.game.catalog
    kind = catalog.kind(action)
    if all(catalog.kind(a) == kind for a in twins):
        return f"{kind} (hidden from you)"
    return "a choice hidden from you"


@dataclass
class Move:
    """One action of a game, with what each watching seat was told about it."""

    step: int
    player: int
    action: int
    name: str
    seen: dict[int, str] = field(default_factory=dict)  # viewer seat -> label, where it differs

    def label_for(self, viewer: int | None) -> str:
        if viewer is None:
            return self.name
        return self.seen.get(viewer, self.name)


def make_move(before: State, action: int, viewers: list[int]) -> Move:
    """A ``Move`` for ``action`` taken in ``before``, with the labels of the seats in ``viewers``."""
    name = before.action_name(action)
    seen = {}
    after: dict = {}
    for v in viewers:
        label = seen_name(before, action, v, after)
        if label != name:
            seen[v] = label
    return Move(step=len(before.history), player=before.current_player, action=action, name=name, seen=seen)
