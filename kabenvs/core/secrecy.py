"""Whether a seat's only legal choice is a secret from the other humans at the table.

Taking a seat's only legal move at once, without asking, shows everyone watching that it had no
other. When some other human could not know that (in a world that human cannot tell from this
one, the seat has several moves), the front end asks anyway. Terminal play and the browser both
decide it here.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from kabenvs.core.game import State

# worlds sampled per other human
SECRET_PROBES = 8


def only_choice_is_secret(state: State, viewers: Iterable[int], probes: int = SECRET_PROBES) -> bool:
    """Whether one of ``viewers`` (the other humans) could not know that the seat to move has one
    legal choice: in some world that viewer cannot tell from this one (``resample_hidden``,
    ``probes`` per viewer) the seat has several. Unsure means secret: a position that cannot be
    resampled, or a world the resampler marks as following the real hidden choices (its budget
    ran out: such a world shows the truth, and the truth has one choice), keeps the secret."""
    viewers = list(viewers)
    if not viewers or not state.game.has_hidden_information:
        return False
    rng = np.random.default_rng(len(state.history))
    for q in viewers:
        for _ in range(probes):
            try:
                world = state.resample_hidden(q, rng)
            except Exception:  # noqa: BLE001 (a game or position that cannot be resampled)
                return True
            if getattr(world, "_followed_truth", False) or len(world.legal_actions()) != 1:
                return True
    return False


__all__ = ["SECRET_PROBES", "only_choice_is_secret"]
