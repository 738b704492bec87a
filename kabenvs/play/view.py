"""What one seat may be told about a move and what followed: the game contract's
``action_name_for`` and ``narrate``, and the end of a game as tables.

An action name can carry hidden information (``discard red 7`` face down, a secret bid). Each
game names a move as each seat saw it (``State.action_name_for``), the one definition the env's
infos, terminal play, game logs and replays share; the shared kit checks it against the
information state (moves that leave a seat's observation identical must read identically).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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
    # viewer seat (None: all-seeing) -> what followed the move by rule, as that seat saw it
    # (``State.narrate`` without its first line, the move itself)
    events: dict[int | None, list[str]] = field(default_factory=dict)
    auto: bool = False  # a human's only legal choice, taken without asking

    def label_for(self, viewer: int | None) -> str:
        if viewer is None:
            return self.name
        return self.seen.get(viewer, self.name)

    def events_for(self, viewer: int | None) -> list[str]:
        return self.events.get(viewer, [])


def tell(move: Move, before: State, after: State, viewers: list[int | None]) -> None:
    """Record in ``move`` what each of ``viewers`` was told followed it (``after.narrate``)."""
    for v in viewers:
        move.events[v] = after.narrate(before, move.action, v)[1:]


# -- tables (score breakdowns, final facts) ---------------------------------------------------
def format_table(headers: list[str], rows: list[list[Any]], indent: str = "  ") -> list[str]:
    """Columns aligned under their headers, numbers to the right."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    numeric = [bool(rows) and all(_is_number(row[i]) for row in rows) for i in range(len(headers))]

    def line(values):
        out = [v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)]
        return (indent + "  ".join(out)).rstrip()

    return [line(headers), indent + "  ".join("-" * w for w in widths)] + [line(r) for r in cells]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list):
        return ", ".join(_cell(v) for v in value)
    return str(value)


def _showable(value: Any) -> bool:
    """A value a table cell shows as it is: a number, a word, or a list of words. Anything else
    (nested records, lists of numbers, which are ids) is left to the game's narration."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _title(key: str) -> str:
    return key.replace("_", " ")


def _column(headers: list[str], columns: list[list], key: str, values: list) -> None:
    """Add a per-player column, unless it repeats one (a score given twice) or is empty."""
    if _title(key) in headers or all(v is None for v in values):
        return
    headers.append(_title(key))
    columns.append(values)


def final_tables(state: State, names: list[str]) -> list[str]:
    """The end of a game as tables from its public ``final_info``: one row per player (``names``)
    with the score, the return and every per-player fact; facts per colour or per kind as a
    table of their own; single facts as lines. No raw dicts, no ids."""
    n = state.num_players
    info = state.final_info()
    headers, columns = ["player"], [list(names)]
    scores = state.scores()
    if scores is not None:
        headers.append("score")
        columns.append(list(scores))
    headers.append("return")
    columns.append([f"{r:+g}" for r in state.returns()])
    extra: list[str] = []
    for key, value in info.items():
        if key in ("winners", "scores"):
            continue
        if isinstance(value, list) and len(value) == n and all(_showable(v) for v in value):
            _column(headers, columns, key, value)
        elif isinstance(value, list) and len(value) == n and all(isinstance(v, dict) for v in value):
            fields = [k for k in value[0] if all(_showable(v.get(k)) for v in value)]
            for k in fields:
                _column(headers, columns, k, [v.get(k) for v in value])
        elif isinstance(value, dict) and value and all(
                _showable(v) and not isinstance(v, list) for v in value.values()):
            extra.append(f"{_title(key)}:")
            extra.extend(format_table(list(value), [list(value.values())], indent="    "))
        elif _showable(value) and not isinstance(value, list):
            extra.append(f"{_title(key)}: {_cell(value)}")
    rows = [[col[p] for col in columns] for p in range(n)]
    return format_table(headers, rows) + extra


def make_move(before: State, action: int, viewers: list[int]) -> Move:
    """A ``Move`` for ``action`` taken in ``before``, with the labels of the seats in ``viewers``."""
    name = before.action_name(action)
    seen = {}
    for v in viewers:
        label = seen_name(before, action, v)
        if label != name:
            seen[v] = label
    return Move(step=len(before.history), player=before.current_player, action=action, name=name, seen=seen)
