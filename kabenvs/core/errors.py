"""The two errors a user of kabenvs meets.

Both are ``ValueError`` subclasses so that code written against generic Gymnasium/PettingZoo
environments (which raise ``ValueError`` for bad input) keeps working.
"""

from __future__ import annotations


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
            f"illegal action {action!r}{f' ({label})' if label else ''} for the decision {decision!r}; legal choices: {shown or 'none'}"
        )
