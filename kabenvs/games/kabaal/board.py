"""Kabaal components as data: card colours, area cards and area-card layouts.

Everything a user who owns the printed components might want to correct lives here as plain
data (see docs/games/kabaal.md, "Component values"):

* ``CARD_COLOURS`` (found: red, blue, yellow, purple) and the colourless cards;
* ``AREA_CARDS``: four per colour holding the value pairs 1/2, 3/4, 5/6, 7/8;
* ``LAYOUTS``: named layouts. Only Baal's is offered by name; its printed arrangement is not
  public, so ``BAAL`` is the project default that satisfies every constraint of the rulebook's
  worked example (the printed component list). Any other rectangular grid with holes can be passed as the
  ``layout`` option;
* ``CULT_COLOURS``: the players' cultist colours, one per seat (names only; they are unrelated to
  the card colours).

``BoardGeometry`` turns a layout into the tables the rules use on the hot path (neighbours of
each area card, the rows and columns to scan for lines).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kabenvs.core.errors import brief

CARD_COLOURS: tuple[str, ...] = ("red", "blue", "yellow", "purple")
VALUES_PER_COLOUR = 8
# Colourless cards, in rank order; "666" always wins a trick.
COLOURLESS: tuple[str, ...] = ("5+", "6+", "7+", "666")
CULTISTS_PER_PLAYER = 6
CULT_COLOURS: tuple[str, ...] = ("red", "blue", "black", "white")
PAIRS: tuple[tuple[int, int], ...] = ((1, 2), (3, 4), (5, 6), (7, 8))

# Area card index a = colour * 4 + pair; its name is "<colour> <low>/<high>".
AREA_CARDS: tuple[str, ...] = tuple(
    f"{colour} {lo}/{hi}" for colour in CARD_COLOURS for lo, hi in PAIRS
)
NUM_AREAS = len(AREA_CARDS)
AREA_INDEX: dict[str, int] = {name: a for a, name in enumerate(AREA_CARDS)}

# The default Baal layout (project default; the printed one is unknown), row by row.
BAAL: tuple[tuple[str | None, ...], ...] = (
    ("red 5/6", "yellow 3/4", "purple 1/2", "blue 7/8"),
    ("blue 1/2", "red 7/8", "yellow 7/8", "purple 3/4"),
    ("purple 7/8", "purple 5/6", "red 3/4", "yellow 5/6"),
    ("yellow 1/2", "blue 3/4", "blue 5/6", "red 1/2"),
)

# An example of an own arrangement ("come up with your own arrangements"): a 5x5 grid with nine
# holes. Used by the test configs and the docs; not a demon card.
CROSS_WITH_HOLES: tuple[tuple[str | None, ...], ...] = (
    (None, "red 1/2", "blue 1/2", "yellow 1/2", None),
    ("purple 1/2", "red 3/4", None, "blue 3/4", "yellow 3/4"),
    ("purple 3/4", None, "red 5/6", None, "blue 5/6"),
    ("yellow 5/6", "purple 5/6", None, "red 7/8", "blue 7/8"),
    (None, "yellow 7/8", "purple 7/8", None, None),
)

LAYOUTS: dict[str, tuple[tuple[str | None, ...], ...]] = {"baal": BAAL}

HOLE_MARKS = (None, "", ".", "-")


def area_of(colour: int, value: int) -> int:
    """The area card holding colour card ``value`` (1-8) of ``colour``."""
    return colour * 4 + (value - 1) // 2


def parse_layout(layout) -> tuple[tuple[str | None, ...], ...]:
    """A layout name or grid -> a rectangular grid of area names / None; ValueError says why not.

    A grid is a sequence of rows; each cell is an area card name ("blue 3/4", also "blue 4/3") or
    a hole (None, "", "." or "-"). Every one of the 16 area cards must appear exactly once.
    """
    if isinstance(layout, str):
        if layout in LAYOUTS:
            return LAYOUTS[layout]
        raise ValueError(
            f"layout={brief(layout)} is not a known layout; use one of {sorted(LAYOUTS)} or a grid "
            "(a list of rows of area card names such as 'blue 3/4', holes as null or '.')"
        )
    if not isinstance(layout, Sequence) or not layout:
        raise ValueError(f"layout={brief(layout)} must be a layout name or a non-empty list of rows")
    rows: list[tuple[str | None, ...]] = []
    width = None
    seen: dict[str, tuple[int, int]] = {}
    for r, row in enumerate(layout):
        if isinstance(row, str) or not isinstance(row, Sequence):
            raise ValueError(f"layout row {r} = {brief(row)} must be a list of cells")
        if width is None:
            width = len(row)
        if len(row) != width or width == 0:
            raise ValueError(
                f"layout must be rectangular: row {r} has {len(row)} cells, row 0 has {width}; "
                "fill gaps with holes (null or '.')"
            )
        cells: list[str | None] = []
        for c, cell in enumerate(row):
            if cell in HOLE_MARKS:
                cells.append(None)
                continue
            name = _normalise_area_name(cell)
            if name is None:
                raise ValueError(
                    f"layout cell ({r}, {c}) = {brief(cell)} is neither an area card nor a hole; area "
                    f"cards are {list(AREA_CARDS)}, holes are null, '', '.' or '-'"
                )
            if name in seen:
                raise ValueError(
                    f"area card {name!r} appears twice in the layout, at {seen[name]} and {(r, c)}"
                )
            seen[name] = (r, c)
            cells.append(name)
        rows.append(tuple(cells))
    missing = [a for a in AREA_CARDS if a not in seen]
    if missing:
        raise ValueError(f"layout lacks area card(s) {missing}; each of the 16 must appear exactly once")
    return tuple(rows)


def _normalise_area_name(cell) -> str | None:
    if not isinstance(cell, str):
        return None
    parts = cell.strip().lower().split()
    if len(parts) != 2 or parts[0] not in CARD_COLOURS:
        return None
    try:
        lo, hi = sorted(int(x) for x in parts[1].split("/"))
    except ValueError:
        return None
    name = f"{parts[0]} {lo}/{hi}"
    return name if name in AREA_INDEX else None


@dataclass(frozen=True)
class BoardGeometry:
    """Precomputed tables of one layout, indexed by area card (0-15, see ``AREA_CARDS``)."""

    grid: tuple[tuple[int | None, ...], ...]  # area index per cell, None = hole
    position: tuple[tuple[int, int], ...]  # (row, col) per area
    neighbours: tuple[tuple[int, ...], ...]  # orthogonally adjacent areas per area
    lines: tuple[tuple[int, ...], ...]  # every row and column as runs of areas between holes
    triples: tuple[tuple[int, int, int], ...]  # every 3 consecutive areas of a line (fast line test)

    @classmethod
    def build(cls, layout) -> "BoardGeometry":
        rows = parse_layout(layout)
        grid = tuple(tuple(None if c is None else AREA_INDEX[c] for c in row) for row in rows)
        h, w = len(grid), len(grid[0])
        position = [(0, 0)] * NUM_AREAS
        for r in range(h):
            for c in range(w):
                if grid[r][c] is not None:
                    position[grid[r][c]] = (r, c)
        neighbours = []
        for a in range(NUM_AREAS):
            r, c = position[a]
            near = []
            for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
                rr, cc = r + dr, c + dc
                if 0 <= rr < h and 0 <= cc < w and grid[rr][cc] is not None:
                    near.append(grid[rr][cc])
            neighbours.append(tuple(near))
        # Lines: maximal runs of cells without holes, in every row and column, of length >= 3
        # (shorter runs can never hold a line of three cultists).
        lines: list[tuple[int, ...]] = []
        sequences = [list(row) for row in grid] + [[grid[r][c] for r in range(h)] for c in range(w)]
        for seq in sequences:
            run: list[int] = []
            for cell in seq + [None]:
                if cell is None:
                    if len(run) >= 3:
                        lines.append(tuple(run))
                    run = []
                else:
                    run.append(cell)
        triples = tuple(line[i:i + 3] for line in lines for i in range(len(line) - 2))
        return cls(grid=grid, position=tuple(position), neighbours=tuple(neighbours), lines=tuple(lines),
                   triples=triples)
