"""The two errors a user of kabenvs meets.

Both are ``ValueError`` subclasses so that code written against generic Gymnasium/PettingZoo
environments (which raise ``ValueError`` for bad input) keeps working.
"""

from __future__ import annotations

from typing import Any

BRIEF_LIMIT = 80  # characters of a value an error message shows: a 50 MB value is not echoed back


def brief(value: Any, limit: int = BRIEF_LIMIT) -> str:
    """``repr(value)`` cut to ``limit`` characters, for echoing untrusted input in a one-line error.

    Errors name the value that was wrong, but the value may be a pasted megabyte or an integer of
    thousands of digits (whose ``repr`` itself raises past Python's 4300-digit limit)."""
    try:
        shown = repr(value)
    except (ValueError, RecursionError):  # an int beyond the digit limit; a self-containing list
        shown = f"<{type(value).__name__} too large to show>"
    return shown if len(shown) <= limit else f"{shown[:limit - 3]}... ({len(shown)} characters)"


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
