"""ObservationLayout: named segments of a flat observation vector.

Every game declares its observation as a list of named blocks; encoding code writes through
the block names (``buf[layout["my_colour"]] = ...``) and the docs' index table is generated from
the same declaration, so the two cannot drift apart.
"""

from __future__ import annotations

import numpy as np


class ObservationLayout:
    def __init__(self) -> None:
        self._blocks: list[tuple[str, slice, tuple[int, ...], str]] = []
        self._slices: dict[str, slice] = {}
        self._shapes: dict[str, tuple[int, ...]] = {}
        self.size = 0

    def add(self, name: str, shape: int | tuple[int, ...], describe: str) -> slice:
        if name in self._slices:
            raise ValueError(f"observation block {name!r} declared twice")
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        n = int(np.prod(shape)) if shape else 1
        s = slice(self.size, self.size + n)
        self.size += n
        self._blocks.append((name, s, shape, describe))
        self._slices[name] = s
        self._shapes[name] = shape
        return s

    def __getitem__(self, name: str) -> slice:
        return self._slices[name]

    def offset(self, name: str) -> int:
        return self._slices[name].start

    def shape(self, name: str) -> tuple[int, ...]:
        return self._shapes[name]

    def view(self, buf: np.ndarray, name: str) -> np.ndarray:
        """A writable view of block ``name`` in its declared shape."""
        return buf[self._slices[name]].reshape(self._shapes[name])

    def zeros(self) -> np.ndarray:
        return np.zeros(self.size, dtype=np.float32)

    def blocks(self) -> list[str]:
        return [b[0] for b in self._blocks]

    def split(self, vec: np.ndarray) -> dict[str, np.ndarray]:
        """The vector cut back into named blocks (for debugging and tests)."""
        return {name: vec[s].reshape(shape) for name, s, shape, _ in self._blocks}

    def table(self) -> str:
        rows = ["| indices | block | shape | meaning |", "|---|---|---|---|"]
        for name, s, shape, describe in self._blocks:
            span = f"{s.start}" if s.stop - s.start == 1 else f"{s.start}-{s.stop - 1}"
            rows.append(f"| {span} | `{name}` | {shape} | {describe} |")
        return "\n".join(rows)


def copy_rotated(buf: np.ndarray, lo: int, rows: np.ndarray, width: int, seat: int) -> None:
    """Write ``rows`` (one row of ``width`` floats per seat in absolute order, flattened) into
    ``buf`` from ``lo`` on, seat-relative: ``seat``'s row first, then the next seats in order, in
    two slice copies. For blocks every seat reads alike but rotated (what everyone knows of each
    hand, in Cábula): a game encodes them once per state instead of once per observation."""
    hi = lo + len(rows)
    cut = seat * width
    if cut:
        buf[lo:hi - cut] = rows[cut:]
        buf[hi - cut:hi] = rows[:cut]
    else:
        buf[lo:hi] = rows
