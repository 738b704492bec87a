"""ActionCatalog: the flat ``Discrete`` action space as a union of decision kinds.

A game declares each decision kind once, with the moves it can take and how to name them;
the catalog hands out contiguous ids. Nothing else in a game computes offsets by hand, and the
docs' action table is generated from the same object.

A *move* is a tuple of plain values (ints, strings); a kind with no parameters has the single
move ``()``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from kabenvs.core.errors import ConfigError, brief


class ActionCatalog:
    def __init__(self) -> None:
        self._kinds: list[str] = []
        self._ranges: dict[str, range] = {}
        self._describe: dict[str, str] = {}
        self._moves: list[tuple] = []  # id -> move
        self._kind_of: list[str] = []  # id -> kind
        self._names: list[str] = []  # id -> readable name
        self._ids: dict[tuple[str, tuple], int] = {}

    def add(
        self,
        kind: str,
        moves: Iterable[Sequence[Any]] = ((),),
        name: Callable[..., str] | str | None = None,
        describe: str = "",
    ) -> range:
        """Declare a decision kind. ``name(*move)`` (or a format string) gives readable names."""
        if kind in self._ranges:
            raise ValueError(f"decision kind {kind!r} declared twice")
        start = len(self._moves)
        for move in moves:
            move = tuple(move)
            if callable(name):
                label = name(*move)
            elif isinstance(name, str):
                label = name.format(*move)
            else:
                label = " ".join([kind, *map(str, move)])
            key = (kind, move)
            if key in self._ids:
                raise ValueError(f"move {move!r} of kind {kind!r} declared twice")
            self._ids[key] = len(self._moves)
            self._moves.append(move)
            self._kind_of.append(kind)
            self._names.append(label)
        self._kinds.append(kind)
        self._ranges[kind] = range(start, len(self._moves))
        self._describe[kind] = describe
        return self._ranges[kind]

    def __len__(self) -> int:
        return len(self._moves)

    @property
    def size(self) -> int:
        return len(self._moves)

    @property
    def kinds(self) -> list[str]:
        return list(self._kinds)

    def range(self, kind: str) -> range:
        return self._ranges[kind]

    def id(self, kind: str, *move) -> int:
        """The id of ``kind`` with ``move``; a ``KeyError`` naming both if there is none."""
        try:
            return self._ids[(kind, tuple(move))]
        except KeyError:
            raise KeyError(f"no action {kind} {move!r} in this catalog") from None

    def decode(self, action: int) -> tuple[str, tuple]:
        return self._kind_of[action], self._moves[action]

    def kind(self, action: int) -> str:
        return self._kind_of[action]

    def move(self, action: int) -> tuple:
        return self._moves[action]

    def name(self, action: int) -> str:
        # a negative id would index from the end: another action's name, silently
        if 0 <= action < len(self._names):
            return self._names[action]
        raise ConfigError(f"action id {brief(action)} does not exist; ids are 0 to {len(self._names) - 1}")

    def names(self) -> list[str]:
        return list(self._names)

    def lookup_name(self, label: str) -> int:
        """The id whose readable name is ``label`` (exactly)."""
        for i, n in enumerate(self._names):
            if n == label:
                return i
        raise KeyError(f"no action named {label!r}")

    def table(self) -> str:
        """Markdown table of id ranges per decision kind, for the docs pages."""
        rows = ["| ids | decision kind | count | example | meaning |", "|---|---|---|---|---|"]
        for kind in self._kinds:
            r = self._ranges[kind]
            if len(r) == 0:
                continue
            span = f"{r.start}" if len(r) == 1 else f"{r.start}-{r.stop - 1}"
            rows.append(
                f"| {span} | `{kind}` | {len(r)} | `{self._names[r.start]}` | {self._describe[kind]} |"
            )
        return "\n".join(rows)
