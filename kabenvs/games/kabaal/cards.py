"""The 36 artifact cards as small integer ids with precomputed tables.

Card id ``c * 8 + (v - 1)`` is the colour card of colour ``c`` (see ``board.CARD_COLOURS``) and
value ``v`` (1-8); ids 32-35 are the colourless cards "5+", "6+", "7+", "666".

Trick strength is an integer ``RANK``: a colour card of value v ranks 2v, "5+" ranks 11 (between
5 and 6), "6+" 13, "7+" 15; "666" is handled apart because it always wins (also when the lowest
card wins).
"""

from __future__ import annotations

from kabenvs.games.kabaal.board import CARD_COLOURS, COLOURLESS, VALUES_PER_COLOUR, area_of

NUM_CARDS = len(CARD_COLOURS) * VALUES_PER_COLOUR + len(COLOURLESS)  # 36
CARD_666 = NUM_CARDS - 1
NO_COLOUR = -1

COLOUR: tuple[int, ...] = tuple(
    [c for c in range(len(CARD_COLOURS)) for _ in range(VALUES_PER_COLOUR)] + [NO_COLOUR] * len(COLOURLESS)
)
VALUE: tuple[int, ...] = tuple(
    [v for _ in CARD_COLOURS for v in range(1, VALUES_PER_COLOUR + 1)] + [0] * len(COLOURLESS)
)
RANK: tuple[int, ...] = tuple(
    [2 * v for _ in CARD_COLOURS for v in range(1, VALUES_PER_COLOUR + 1)] + [11, 13, 15, 100]
)
# The area card a colour card places on (None for colourless cards).
AREA: tuple[int | None, ...] = tuple(
    area_of(COLOUR[k], VALUE[k]) if COLOUR[k] != NO_COLOUR else None for k in range(NUM_CARDS)
)
CARD_NAMES: tuple[str, ...] = tuple(
    [f"{colour} {v}" for colour in CARD_COLOURS for v in range(1, VALUES_PER_COLOUR + 1)] + list(COLOURLESS)
)
CARD_INDEX: dict[str, int] = {name: k for k, name in enumerate(CARD_NAMES)}


def card(name: str) -> int:
    """The id of a card by name ("purple 7", "5+", "666")."""
    try:
        return CARD_INDEX[name]
    except KeyError:
        raise KeyError(f"no card named {name!r}; cards are {list(CARD_NAMES)}") from None


def deck_for(num_players: int) -> list[int]:
    """The artifact deck: with 2 players "666" and every even colour card stay in the box."""
    if num_players == 2:
        return [
            k for k in range(NUM_CARDS) if k != CARD_666 and (COLOUR[k] == NO_COLOUR or VALUE[k] % 2 == 1)
        ]
    return list(range(NUM_CARDS))
