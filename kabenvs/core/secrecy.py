"""Whether a seat's only legal choice must still be asked, to keep a secret from the other humans.

Taking a seat's only legal move at once, without asking, shows everyone watching that it had no
other. Whether that tells another human something depends on what that human knows; and if the
front end decided by looking (sampling the worlds another human cannot tell apart, as it once
did), the decision itself would depend on hidden facts: the seat being asked or not would tell it
something about the others' hands (whether they hold the last wands), and a sample that missed
the worlds where the seat had a choice would tell the others it had none (measured on the old
sampling: wrong in 4 of 11 Cábula and 34 of 96 Alakazum! cases at 3 players). A decision that
reveals nothing may depend only on what every human at the table knows, and the game contract
has no "public information only" view to decide it exactly. So the rule is the safe one: with
another human at the table, in a game with hidden information, a question with one answer is
asked like any other (and the screen says why). A lone human (agents watch no screen) and games
without hidden information keep the shortcut. Terminal play and the browser both decide it here.
"""

from __future__ import annotations

from collections.abc import Iterable

from kabenvs.core.game import State


def only_choice_is_secret(state: State, viewers: Iterable[int]) -> bool:
    """Whether the seat to move must be asked its only legal choice: some other human
    (``viewers``) is at the table and the game has hidden information. Depends on nothing hidden
    (see the module docstring), so neither the seat nor the others learn anything from it."""
    return bool(list(viewers)) and bool(state.game.has_hidden_information)


__all__ = ["only_choice_is_secret"]
