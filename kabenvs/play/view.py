"""What one seat may be told about another seat's move: the game contract's ``action_name_for``.

An action name can carry hidden information (``discard red 7`` face down, a secret bid). Each
game names a move as each seat saw it (``State.action_name_for``), the one definition the env's
infos, terminal play, game logs and replays share; the shared kit checks it against the
information state (moves that leave a seat's observation identical must read identically).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kabenvs.core.game import State


def seen_name(before: State, action: int, viewer: int | None) -> str:
    """The name of ``action`` (about to be taken in ``before``) as ``viewer`` may know it.

    ``viewer`` None is the all-seeing view (replays with ``--view all``, the final log)."""
    return before.action_name_for(action, viewer)


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
    for v in viewers:
        label = seen_name(before, action, v)
        if label != name:
            seen[v] = label
    return Move(step=len(before.history), player=before.current_player, action=action, name=name, seen=seen)
