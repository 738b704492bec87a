"""Scoring of one sequence and of a player's whole table (rulebook "Scoring" and "Bonus Points").

A sequence is a list of cards ``colour * 6 + rank`` (rank 0 = joker). The score of a clean
sequence depends only on which numbers it holds and whether it holds a joker, so every case is
precomputed once per scoring table (``_RUN_SCORES``); the joker takes the value that is best for
its owner, and only a joker inside the unbroken run 1..k is "scored" and earns its bonus.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kabenvs.games.barakka.data import (
    BASE_TABLE,
    BASR_TABLE,
    JOKER,
    LONE_JOKER_POINTS,
    MAX_SEQUENCE,
    PORTUGUES_TABLE,
    RANKS,
)

TABLES: dict[str, tuple[int, ...]] = {"base": BASE_TABLE, "basr": BASR_TABLE, "portugues": PORTUGUES_TABLE}


def run_length(numbers_mask: int) -> int:
    """Length k of the unbroken run 1..k in a set of numbers (bit r-1 set = number r present)."""
    k = 0
    while k < MAX_SEQUENCE and numbers_mask >> k & 1:
        k += 1
    return k


def _clean_score(table: tuple[int, ...], mask: int, joker: bool) -> tuple[int, int, int]:
    """(table points, joker bonus, run length) of a sequence without any flaw."""
    if not joker:
        run = run_length(mask)
        return table[run], 0, run
    if mask == 0:  # "1 single Joker card": it stands for the 1
        return LONE_JOKER_POINTS, 1, 1
    best = None
    for v in range(1, MAX_SEQUENCE + 1):
        if mask >> (v - 1) & 1:
            continue
        run = run_length(mask | 1 << (v - 1))
        bonus = v if v <= run else 0  # a joker beyond the run is not scored
        cand = (table[run] + bonus, table[run], bonus, run)
        if best is None or cand > best:
            best = cand
    if best is None:  # five numbers and a joker: six cards, never reached in play
        return table[MAX_SEQUENCE], 0, MAX_SEQUENCE
    return best[1], best[2], best[3]


_RUN_SCORES: dict[str, list[list[tuple[int, int, int]]]] = {
    name: [[_clean_score(table, mask, bool(j)) for j in (0, 1)] for mask in range(32)]
    for name, table in TABLES.items()
}


@dataclass
class SequenceScore:
    colour: int
    cards: list[int]
    points: int = 0  # from the scoring table
    joker_bonus: int = 0
    run: int = 0  # length of the unbroken run 1..k the sequence is scored up to
    flaw: str | None = None  # why the whole sequence is discarded, or None

    @property
    def total(self) -> int:
        return self.points + self.joker_bonus

    @property
    def flawless_complete(self) -> bool:
        """Keeps its Barakka tile: every number 1-5 (a joker may stand in) and no flaw."""
        return self.flaw is None and self.run == MAX_SEQUENCE


def score_sequence(
    cards: list[int], table: str, samra: bool = False, needs_joker: bool = True, colour: int | None = None
) -> SequenceScore:
    """Score one sequence. ``colour`` is the colour it is judged as (its top card's by default);
    ``samra`` applies El-Samra (no joker -> 0) unless ``needs_joker`` is False (El Portugues has
    no joker, see rules decision 9)."""
    if colour is None:
        colour = cards[-1] // RANKS
    res = SequenceScore(colour=colour, cards=list(cards))
    mask = 0
    jokers = 0
    for card in cards:
        if card // RANKS != colour:
            res.flaw = "cards of different colours"
            return res
        r = card % RANKS
        if r == JOKER:
            jokers += 1
            if jokers > 1:
                res.flaw = "more than one joker"
                return res
        else:
            bit = 1 << (r - 1)
            if mask & bit:
                res.flaw = f"number {r} twice"
                return res
            mask |= bit
    if samra and needs_joker and not jokers:
        res.flaw = "no joker (El-Samra)"
        return res
    res.points, res.joker_bonus, res.run = _RUN_SCORES[table][mask][jokers]
    return res


@dataclass
class PlayerScore:
    sequences: list[SequenceScore] = field(default_factory=list)
    tiles: int = 0  # tiles kept (base, El-Basr, El Portugues token, Desert Rose)
    rose: str | None = None  # "kept", "lost" or None
    rose_penalty: int = 0

    @property
    def sequence_points(self) -> int:
        return sum(s.total for s in self.sequences)

    @property
    def tile_bonus(self) -> int:
        return self.tiles * self.tiles

    @property
    def total(self) -> int:
        return self.sequence_points + self.tile_bonus + self.rose_penalty
