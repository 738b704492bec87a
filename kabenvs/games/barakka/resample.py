"""``resample_hidden``: a world one seat cannot tell from the real one (OpenSpiel's ResampleFromInfostate).

Every card the seat does not know is gathered and dealt again at random into the same places,
keeping what the seat does know about them:

* perfect memory: the unknown cards are the deck(s) (solo: also the split between the two
  decks and the card returned to the box) and the opponent's card in hand drawn from the deck;
* table memory: also every covered card of every sequence and discard pile, the El-Karim
  face-down cards and the opponent's card in hand. A covered card of a sequence keeps the colour
  the table shows for it (base game: the sequence's colour; El-Karim: the face-up cards' colour,
  the face-down card may be any). With El-Karim the Desert Rose and El Portugues token holders
  constrain the face-down cards (the holder must have the cards that gave them), so those are
  drawn by rejection, falling back on the real face-down cards (always consistent) after a few
  tries; every other hidden card is still re-dealt around them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from kabenvs.games.barakka.data import RANKS

if TYPE_CHECKING:
    from kabenvs.games.barakka.rules import BarakkaState

TRIES = 30


def resample(state: "BarakkaState", player: int, rng: np.random.Generator) -> "BarakkaState":
    g = state.game
    new = state.clone()
    new.rng = np.random.default_rng(rng.integers(0, 2**63))
    cp = state.current_player
    perfect = g.config.memory == "perfect"
    free: list[tuple[list, int]] = []  # (container, index) of cards of any colour
    bottoms: list[tuple[list, int]] = []  # El-Karim face-down cards under table memory (any colour)
    fixed: dict[int, list[tuple[list, int]]] = {}  # colour -> places a card of that colour must fill
    for deck in new.decks:
        free += [(deck, j) for j in range(len(deck))]
    free += [(new.removed, j) for j in range(len(new.removed))]
    if not g.solo and cp is not None and cp != player and new.phase == "play":
        if not perfect or new.held_src < 0:
            free.append((new.held[cp], 0))
    if not perfect:
        for pile in new.piles:
            free += [(pile, j) for j in range(len(pile) - 1)]
        for seqs in new.seqs:
            for k, st in enumerate(seqs):
                m = len(st)
                if not m:
                    continue
                if g.karim:
                    bottoms.append((st, 0))
                    if m >= 2:
                        fixed.setdefault(st[-1] // RANKS, []).extend((st, j) for j in range(1, m - 1))
                else:
                    fixed.setdefault(k, []).extend((st, j) for j in range(m - 1))
    if not bottoms:
        _deal(rng, fixed, free)
        return new
    # The Rose and the token constrain only the face-down cards (every other card in a sequence has
    # the colour the table shows): draw them by rejection, else keep the real ones (always
    # consistent) and re-deal everything else around them.
    slots = bottoms + free + [place for places in fixed.values() for place in places]
    real = [lst[j] for lst, j in slots]
    for _ in range(TRIES):
        _deal(rng, fixed, bottoms + free)
        if _consistent(new):
            return new
    for (lst, j), x in zip(slots, real):
        lst[j] = x
    _deal(rng, fixed, free)
    return new


def _deal(rng: np.random.Generator, fixed: dict[int, list[tuple[list, int]]], free: list[tuple[list, int]]) -> None:
    """Re-deal the cards now in ``fixed`` and ``free`` at random: first each colour's fixed places
    from that colour's cards, then the rest anywhere in ``free``."""
    by_colour: dict[int, list[int]] = {}
    for lst, j in free:
        by_colour.setdefault(lst[j] // RANKS, []).append(lst[j])
    for places in fixed.values():
        for lst, j in places:
            by_colour.setdefault(lst[j] // RANKS, []).append(lst[j])
    rest: list[int] = []
    for c, group in by_colour.items():
        group = [group[i] for i in rng.permutation(len(group))]
        places = fixed.get(c, [])
        for (lst, j), x in zip(places, group):
            lst[j] = x
        rest += group[len(places):]
    order = rng.permutation(len(rest))
    for (lst, j), i in zip(free, order):
        lst[j] = rest[i]


def _consistent(state: "BarakkaState") -> bool:
    """El-Karim facts the table shows about face-down cards: the Desert Rose and the token."""
    g = state.game
    base = range(5)
    for q in range(state.num_players):
        bottoms = {st[0] // RANKS for st in state.seqs[q] if st}
        covers = all(c in bottoms for c in base)
        if state.rose == q and not covers:
            return False
        if state.rose < 0 and covers:
            return False
        if g.port >= 0:
            has_port = any(x // RANKS == g.port for st in state.seqs[q] for x in st)
            if state.token == q and not has_port:
                return False
            if state.token < 0 and has_port:
                return False
    return True
