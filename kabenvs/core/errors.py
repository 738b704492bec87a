"""The two errors a user of kabenvs meets.

Both are ``ValueError`` subclasses so that code written against generic Gymnasium/PettingZoo
environments (which raise ``ValueError`` for bad input) keeps working.
"""

from __future__ import annotations

import builtins
import reprlib
from itertools import islice
from typing import Any

BRIEF_LIMIT = 80  # characters of a value an error message shows: a 50 MB value is not echoed back


class _BoundedRepr(reprlib.Repr):
    """``repr`` that stops walking lists, tuples, dicts and sets once ``limit`` characters are sure.

    A full ``repr`` of shared nested lists (a 1 KB YAML alias bomb) is exponentially long, so it is
    never built. The limits are wide enough that a value whose ``repr`` fits in ``limit`` characters
    comes out exactly as ``repr`` writes it; a longer one comes out with an exact first ``limit``
    characters, all ``brief`` shows. Other values (strings, numbers, objects) use their own ``repr``:
    its cost grows with the value itself, which the caller already holds, not with sharing.
    """

    def __init__(self, limit: int):
        super().__init__()
        # Each element or bracket written spends at least one character of the budget, so the
        # budget runs out before any of these limits elides something (which would go unnoticed).
        for name in ("maxlevel", "maxtuple", "maxlist", "maxdict", "maxset", "maxfrozenset"):
            setattr(self, name, limit + 2)
        self.left = limit + 1  # characters still to write before the value is known to be too long
        self.cut = False  # whether something was left out (then the full length is unknown)
        self.open: set[int] = set()  # containers being written: a self-containing one shows [...]

    def repr1(self, x, level):
        if self.left <= 0:
            self.cut = True
            return self.fillvalue
        kind = type(x)
        if kind not in (list, tuple, dict, set, frozenset):
            shown = builtins.repr(x)
            self.left -= len(shown)
            return shown
        if id(x) in self.open:  # as repr writes a container that contains itself
            return {list: "[...]", tuple: "(...)"}.get(kind, "{...}")
        self.left -= 1  # the opening bracket
        self.open.add(id(x))
        try:
            return super().repr1(x, level)
        finally:
            self.open.discard(id(x))

    # reprlib sorts dicts and sets; repr keeps their own order.
    def repr_dict(self, x, level):
        if not x:
            return "{}"
        pieces = [f"{self.repr1(k, level - 1)}: {self.repr1(v, level - 1)}"
                  for k, v in islice(x.items(), self.maxdict)]
        return "{" + ", ".join(pieces + [self.fillvalue] * (len(x) > self.maxdict)) + "}"

    def repr_set(self, x, level):
        return self._repr_iterable(x, level, "{", "}", self.maxset) if x else "set()"

    def repr_frozenset(self, x, level):
        return self._repr_iterable(x, level, "frozenset({", "})", self.maxfrozenset) if x else "frozenset()"


def brief(value: Any, limit: int = BRIEF_LIMIT) -> str:
    """``repr(value)`` cut to ``limit`` characters, for echoing untrusted input in a one-line error.

    Errors name the value that was wrong, but the value may be a pasted megabyte, an integer of
    thousands of digits (whose ``repr`` itself raises past Python's 4300-digit limit) or a few
    shared lists whose ``repr`` would take gigabytes: ``_BoundedRepr`` writes little more than
    ``limit`` characters of those."""
    writer = _BoundedRepr(limit)
    try:
        shown = writer.repr(value)
    except (ValueError, RecursionError):  # an int beyond the digit limit; a deeply nested object
        shown = f"<{type(value).__name__} too large to show>"
    if len(shown) <= limit:
        return shown
    size = f"over {limit}" if writer.cut else len(shown)
    return f"{shown[:limit - 3]}... ({size} characters)"


class KabenvsError(Exception):
    """Base class of every error kabenvs raises on purpose."""


class ConfigError(KabenvsError, ValueError):
    """A bad env id, option or option value. The message names what was wrong and what is allowed."""


class IllegalActionError(KabenvsError, ValueError):
    """An action that is not legal now. Raised before anything changes, so the state is untouched."""

    def __init__(self, action, decision: str, legal: list[str], label: str | None = None):
        self.action = action
        self.decision = decision
        self.legal = legal
        shown = ", ".join(legal[:40]) + (f", ... ({len(legal)} in all)" if len(legal) > 40 else "")
        super().__init__(
            f"illegal action {brief(action)}{f' ({label})' if label else ''} for the decision {decision!r}; legal choices: {shown or 'none'}"
        )
