"""Patient resampling: a resampler's search budget, raised where a usable world must come back.

Two resamplers look for a world by backtracking over the hidden choices of the game so far, with
a budget (Cábula's and Alakazum!'s: docs/games/cabula.md and alakazum.md, "Resampling"). When
the budget runs out they return a world that keeps the real hidden choices, marked
``_followed_truth``: consistent with the seat's history, but it would tell a search which card
went where. The search bot never walks such a world (``search.tree.Worlds`` copies an earlier
one, or skips the simulation), and OpenSpiel's ``resample_from_infostate`` (which must return a
state) goes through the same ``Worlds``. When a decision's first draws all come back marked and
there is no earlier world to copy, ``Worlds`` asks once more inside ``patient()``. There a resampler
makes ``PATIENT_TRIES`` times as many tries (each a backtracking search in a new random order)
with ``PATIENT_BUDGET`` times the budget each: the real choices are then only one candidate among
the others, tried in their random turn. Restarts beat a larger budget for these searches, whose
running times are heavy-tailed: at 14 positions where the usual Alakazum! draw fell back in 16 of
42 draws (78 ms a draw), patient draws fell back in none of 42 (172 ms a draw), where 64x the
budget in one try still fell back in 2 of 42 (416 ms); in Cábula, none of 24 patient draws fell
back where 5 of 24 usual ones did (51 ms against 31 ms a draw: a failing try is cheap).

The other way round, ``hurried()``: a resampler called inside it skips a slow complete search it
would otherwise make before falling back (Cábula's SAT solver, up to a second late in long
6-player games), and marks the world as before. ``Worlds`` draws hurried once it holds an earlier
world to walk in a marked one's place: a search at such a position would otherwise spend most of
its time solving.

The budget is not lifted altogether: backtracking over many hidden choices can take exponential
time in a contrived position, and a program that hangs is worse than a marked world (still
consistent, and counted where it is handed out).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

PATIENT_TRIES = 16
PATIENT_BUDGET = 4

_PATIENT: contextvars.ContextVar[bool] = contextvars.ContextVar("kabenvs_patient_resampling", default=False)
_HURRIED: contextvars.ContextVar[bool] = contextvars.ContextVar("kabenvs_hurried_resampling", default=False)


@contextlib.contextmanager
def _setting(var: contextvars.ContextVar[bool], on: bool) -> Iterator[None]:
    token = var.set(on)
    try:
        yield
    finally:
        var.reset(token)


def patient(on: bool = True) -> contextlib.AbstractContextManager[None]:
    """Resamplers called inside this block try ``PATIENT_TRIES`` times as often, each try with
    ``PATIENT_BUDGET`` times the budget (``on=False``: the usual budget again inside it, for a
    draw whose fallback would tell nothing)."""
    return _setting(_PATIENT, on)


def is_patient() -> bool:
    return _PATIENT.get()


def hurried(on: bool = True) -> contextlib.AbstractContextManager[None]:
    """Resamplers called inside this block skip their slow complete search and fall back marked
    where their usual tries fail (for a consumer that has another world to walk instead)."""
    return _setting(_HURRIED, on)


def is_hurried() -> bool:
    return _HURRIED.get()


def resample_budget(base: int) -> int:
    """A resampler's budget for one try: ``base``, or ``PATIENT_BUDGET`` times it inside
    ``patient()``."""
    return base * PATIENT_BUDGET if _PATIENT.get() else base


def resample_tries(base: int) -> int:
    """How many tries a resampler makes before it falls back: ``base``, or ``PATIENT_TRIES``
    times it inside ``patient()``."""
    return base * PATIENT_TRIES if _PATIENT.get() else base
