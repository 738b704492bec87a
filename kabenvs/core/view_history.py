"""A seat's exact information state as a key: a running digest of everything the seat has read.

The observation vector is the seat's information state, but a game may name a summary in it
(``State.recall_gap``, on its docs page): two histories the seat tells apart whose observations
are equal. Some consumers need the exact information state as a key instead, with no summary at
all: OpenSpiel's tabular algorithms and its ISMCTS bot index their tables by the
information-state string, and two histories sharing one would be merged there.

A seat can tell two histories apart exactly when some step gave it different *views*
(``kabenvs.core.recall.seat_view``: the move as it saw it, what followed as it saw it, its
observation afterwards; the shared kit checks these channels for leaks, so they hold nothing the
seat may not know). So the key is a digest of the seat's first observation followed by its view of
every move since the game's recorded ``start``: equal for histories the seat cannot tell apart,
different (up to a 128-bit hash collision) for any two it can.

``ViewHistory`` keeps one running digest per seat, only for the seats someone asked about: a
seat's digest is built the first time by replaying the game from its start (``State.replay_start``
and ``State.replay_actions``, which also replay a resampled world to itself), then extended move by
move (``extend``, with a clone taken just before the move, which ``narrate`` needs).
"""

from __future__ import annotations

import hashlib

from kabenvs.core.game import State
from kabenvs.core.recall import seat_view


def _new_digest(state: State, seat: int):
    h = hashlib.blake2b(digest_size=16)
    h.update(state.observation(seat).tobytes())
    return h


def _add_view(h, before: State, after: State, action: int, seat: int) -> None:
    name, narration, observation = seat_view(before, after, action, seat)
    h.update(repr((name, narration)).encode())  # repr quotes and separates: no two views read alike
    h.update(observation)  # one fixed length per game


def replayed_digest(state: State, seat: int):
    """``seat``'s running digest of ``state``, built by replaying the game from its start (from the
    state itself when it has no recorded start: a position restored from an older save)."""
    if state.start is None:
        return _new_digest(state, seat)
    cur = state.replay_start()
    h = _new_digest(cur, seat)
    for action in state.replay_actions():
        before = cur.clone()
        cur.apply(action)
        _add_view(h, before, cur, action, seat)
    return h


class ViewHistory:
    """Running digests of what each seat has read in one game (see the module docstring)."""

    def __init__(self, digests: dict | None = None) -> None:
        self._digests = dict(digests or {})  # seat -> hashlib object

    def key(self, state: State, seat: int) -> str:
        """``seat``'s information state in ``state`` as 32 hex digits."""
        h = self._digests.get(seat)
        if h is None:
            h = self._digests[seat] = replayed_digest(state, seat)
        return h.hexdigest()

    @property
    def tracking(self) -> bool:
        """Whether any seat's digest is kept (``extend`` then needs the state before each move)."""
        return bool(self._digests)

    def extend(self, before: State, after: State, action: int) -> None:
        """Add ``action`` (applied to ``before``, giving ``after``) to every kept digest."""
        for seat, h in self._digests.items():
            _add_view(h, before, after, action, seat)

    def copy(self, seats=None) -> "ViewHistory":
        """An independent copy (of the given seats' digests only, when ``seats`` is given)."""
        return ViewHistory({s: h.copy() for s, h in self._digests.items() if seats is None or s in seats})

    def __deepcopy__(self, memo) -> "ViewHistory":
        return self.copy()

    def __reduce__(self):
        # hash objects do not pickle; a pickled copy starts empty and replays when asked
        return (ViewHistory, ())


__all__ = ["ViewHistory", "replayed_digest"]
