"""HumanAgent: a person at a terminal choosing one decision at a time.

It works for every game through the contract: the legal actions and their readable names are the
choices; the screen above them comes from ``State.render(seat)`` (or from a richer screen builder
that ``kabenvs.play`` passes in). The person answers with a choice's number or an unambiguous
start of its name; anything else gets a message and the same question again, so a typo never
becomes a move. ``quit`` (or the end of input) raises ``QuitGame`` for the caller to end cleanly.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from kabenvs.agents.base import Decision

HELP = """\
Answer with the number of a choice, or with the start of its name (any case) as long as only
one choice starts that way; a name typed in full always picks that choice.
Commands:  ?  or help   this help and the choices again
           show         the screen again
           log          the moves of this game so far (as your seat saw them)
           quit         end the game now (it is logged as abandoned)"""


MAX_ANSWER = 1000  # characters of an answer that are read; the rest of a longer line is skipped
ECHO_LIMIT = 60  # characters of an answer shown back in a transcript or a message


def shorten(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` cut to ``limit`` characters (with a note of how much was cut)."""
    if len(text) <= limit:
        return text
    size = f"over {MAX_ANSWER}" if len(text) > MAX_ANSWER else str(len(text))  # longer lines are cut when read
    return f"{text[:limit]}... ({size} characters)"


class QuitGame(Exception):
    """The person ended the game (``quit``) or input ended (``eof``)."""

    def __init__(self, reason: str, player: int | None = None) -> None:
        self.reason = reason
        self.player = player
        super().__init__(f"game ended by {reason}")


class Console:
    """Text in and out. Streams are injectable so tests drive whole games with scripted input."""

    def __init__(self, input: TextIO | None = None, output: TextIO | None = None) -> None:
        self.input = input if input is not None else sys.stdin
        self.output = output if output is not None else sys.stdout
        self._bad_reads = 0

    def write(self, text: str = "") -> None:
        self.output.write(text + "\n")
        self.output.flush()

    def ask(self, prompt: str) -> str | None:
        """One line of input without its newline; None at the end of input."""
        self.output.write(prompt)
        self.output.flush()
        try:
            line = self._read_line()
        except UnicodeDecodeError:
            # undecodable bytes: answered like an unknown name and asked again, unless the
            # stream keeps failing (then it is as good as ended)
            self._bad_reads += 1
            if self._bad_reads >= 3:
                self.output.write("\n")
                return None
            return "\ufffd"
        self._bad_reads = 0
        if not line:
            self.output.write("\n")
            return None
        answer = line.rstrip("\r\n")
        if not _isatty(self.input):  # a transcript reads better with the scripted answer in it
            self.output.write(shorten(answer) + "\n")
        return answer

    def _read_line(self) -> str:
        """One line, but never more than ``MAX_ANSWER + 1`` characters of it: the rest of an
        overlong line is read and dropped (a pasted 50 MB line costs no memory and no echo)."""
        try:
            line = self.input.readline(MAX_ANSWER + 1)
        except TypeError:  # a stream-like object whose readline takes no size
            line = self.input.readline()
            return line if len(line) <= MAX_ANSWER else line[:MAX_ANSWER + 1]
        if len(line) > MAX_ANSWER and not line.endswith("\n"):
            while True:
                rest = self.input.readline(1 << 16)
                if not rest or rest.endswith("\n"):
                    break
        return line

    def clear(self) -> None:
        """Hide the previous screen before the next person looks (hot-seat play)."""
        if _isatty(self.output):
            # 3J clears the scrollback too: scrolling up must not show the last hand
            self.output.write("\033[H\033[2J\033[3J")
        else:
            self.output.write("\n" + "=" * 72 + "\n")
        self.output.flush()


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def match_choice(answer: str, names: Sequence[str]) -> tuple[int | None, str | None]:
    """(index of the chosen name, None) or (None, a message saying what was wrong)."""
    text = " ".join(answer.split())
    n = len(names)
    if not text:
        return None, f"Please enter a choice: a number from 1 to {n}, or the start of a name (? for help)."
    if len(text) > MAX_ANSWER:
        return None, f"That answer is too long: enter a number from 1 to {n} or the start of a name (? for help)."
    digits = text.lstrip("+-")
    if digits.isascii() and digits.isdigit() and len(text) - len(digits) <= 1:
        # compared as text first: int() of thousands of digits is refused by Python itself
        k = int(text) if len(digits.lstrip("0")) <= 9 else None
        if k is not None and 1 <= k <= n:
            return k - 1, None
        return None, f"There is no choice {shorten(text)}: enter a number from 1 to {n} (? for help)."
    low = text.lower()
    folded = [" ".join(name.split()).lower() for name in names]
    exact = [i for i, name in enumerate(folded) if name == low]
    if len(exact) == 1:
        return exact[0], None
    hits = [i for i, name in enumerate(folded) if name.startswith(low)]
    if len(hits) == 1:
        return hits[0], None
    if not hits:
        return None, (f"No choice starts with {shorten(text)!r}: enter a number from 1 to {n} "
                      "or the start of a name (? for help).")
    shown = ", ".join(f"{i + 1}) {names[i]}" for i in hits[:6])
    more = f", ... ({len(hits)} in all)" if len(hits) > 6 else ""
    return None, (f"{shorten(text)!r} is ambiguous, it starts {len(hits)} choices: {shown}{more}. "
                  "Type more or a number.")


def format_choices(names: Sequence[str], width: int = 100) -> str:
    """Numbered choices, in columns when they are many and short."""
    items = [f"{i + 1:>3}) {name}" for i, name in enumerate(names)]
    if not items:
        return "  (no choices)"
    col = max(len(s) for s in items) + 3
    per_row = max(1, min(4, width // col)) if len(items) > 8 else 1
    rows = []
    nrows = -(-len(items) // per_row)
    for r in range(nrows):
        cells = [items[r + c * nrows] for c in range(per_row) if r + c * nrows < len(items)]
        rows.append("".join(cell.ljust(col) for cell in cells).rstrip())
    return "\n".join(rows)


class HumanAgent:
    """An ``Agent`` whose choices come from a person at a console."""

    name = "human"

    def __init__(
        self,
        console: Console | None = None,
        screen: Callable[[Decision], str] | None = None,
        history: Callable[[int], str] | None = None,
    ) -> None:
        self.console = console if console is not None else Console()
        self.screen = screen if screen is not None else default_screen
        self.history = history

    def act(self, decision: Decision) -> int:
        state = decision.state
        legal = list(state.legal_actions())
        names = [state.action_name(a) for a in legal]
        con = self.console
        screen = self.screen(decision)
        con.write(screen)
        con.write(format_choices(names))
        prompt = f"player {decision.player}, your choice (1-{len(names)}, ? for help): "
        while True:
            answer = con.ask(prompt)
            if answer is None:
                raise QuitGame("eof", decision.player)
            command = answer.strip().lower()
            if command in ("?", "help"):
                con.write(HELP)
                con.write(format_choices(names))
                continue
            if command == "show":
                con.write(screen)
                con.write(format_choices(names))
                continue
            if command == "log":
                con.write(self.history(decision.player) if self.history else "(no move log in this game)")
                continue
            if command in ("quit", "exit"):
                raise QuitGame("quit", decision.player)
            index, problem = match_choice(answer, names)
            if problem is not None:
                con.write(problem)
                continue
            con.write(f"You chose: {names[index]}")
            return legal[index]


def default_screen(decision: Decision) -> str:
    state = decision.state
    return f"{state.render(decision.player)}\n\nDecision: {state.decision()}"
