"""Perfect recall, measured: does a seat's observation keep apart histories the seat can tell apart?

A seat's *view* of a move is what the game contract lets it read about that move, on the three
channels the shared kit checks for leaks: the move as the seat saw it (``action_name_for``), what
followed by rule as the seat saw it (``narrate``) and its observation afterwards. Two histories are
*distinguishable* to a seat once some step gave it different views. The observation is documented
as the seat's information state with perfect recall, so two distinguishable histories should never
give the seat the same observation again; when they do, the observation has *merged* them.

The probe looks for merges the way they arise in play: at a random position of a random game it
applies two different legal moves to clones, then plays the same random continuation on both (a
move legal in both at each step, while the same seat decides in both), and at every step compares
each seat's observations of the two branches, for the seats that could tell the branches apart at
some earlier step. A merge where every seat's observation of the two branches and the position
(``State.position_key``: by default the all-seeing render, every hand and the board) are also the
same is *pure history*: no one can tell the two positions apart any more, though the branches
still differ in what the seat saw happen. A merge where another seat still tells them apart means
the seat has forgotten a difference that still exists in the game (another hand, the deck): that
can matter for play. The game may name the summary that explains it (``State.recall_gap``, on its
docs page too); the shared kit fails on any merge of that kind the game does not name.

A merge the game does not name can still be one where the seat's possible worlds are alike and
only their odds differ: the two branches hold the items the seat cannot place (``hidden_zones``)
split differently, after histories that leave both splits possible (an unseen card moved, drawn
or taken, a different card in each branch). ``same_possible_worlds`` tests that with the game's
``world_holding``, which looks for a world of the seat's whole history (not of what its
observation kept) holding the items as the other branch does; the world found is checked here
by replaying it to the seat's own views of every step. With ``odds_tries`` set, such a merge
counts as *odds only* when that succeeds both ways and everything else that differs is pure
history or named. Each branch's split is then proven possible after the other's history; a split
no try met stays unexplained, which proves nothing either way (a builder's search may be
randomised and budgeted, as Cábula's is; docs/testing.md, "Built, not drawn").

``python scripts/recall_probe.py`` runs it for every game at its smallest and largest player
count and prints the counts; ``tests/core/test_recall.py`` checks that the probe finds a merge
planted in a game's observation.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from collections import Counter
from typing import Any

from kabenvs.core.game import Game, State


def seat_view(before: State, after: State, action: int, seat: int) -> tuple:
    """What ``seat`` learns from ``action`` (applied to ``before``, giving ``after``)."""
    return (before.action_name_for(action, seat), tuple(after.narrate(before, action, seat)),
            after.observation(seat).tobytes())


def _everyone_alike(a: State, b: State) -> bool:
    """No one can tell the two positions apart: every seat's observation is the same, and so is
    the position (``State.position_key``: the all-seeing render by default, which shows every
    hand and the board whatever the observations keep, so an observation that forgot something
    for every seat at once is not taken for history)."""
    if a.position_key() != b.position_key():
        return False
    return all(a.observation(v).tobytes() == b.observation(v).tobytes() for v in range(a.num_players))


@dataclasses.dataclass
class Merge:
    """One seat's observations of two distinguishable branches became equal."""

    seat: int
    steps_after_branch: int
    pure_history: bool
    decision: str
    moves: tuple[str, str]
    gap: str | None = None  # the game's named summary that explains it (State.recall_gap)
    detail: str = ""  # for an unexplained merge: what differs (fields, and hidden items moved)

    def __str__(self) -> str:
        kind = "pure history" if self.pure_history else "positions differ"
        if self.gap == ODDS_ONLY:
            kind += f" ({self.gap})"
        elif self.gap:
            kind += f" (named summary: {self.gap})"
        elif self.detail:
            kind += f" ({self.detail})"
        return (f"seat {self.seat}, {self.steps_after_branch} steps after {self.moves[0]!r} / {self.moves[1]!r} "
                f"at {self.decision!r}: {kind}")


@dataclasses.dataclass
class RecallReport:
    branches: int = 0
    comparisons: int = 0  # (seat, step) pairs where the seat could tell the branches apart
    merges: int = 0
    pure_history: int = 0
    explained: int = 0  # merges of positions that differ, explained by the game's recall_gap
    odds_only: int = 0  # of the rest, those same_possible_worlds found alike (with odds_tries)
    examples: list[Merge] = dataclasses.field(default_factory=list)
    gaps: dict[str, int] = dataclasses.field(default_factory=dict)

    @property
    def state_merges(self) -> int:
        return self.merges - self.pure_history

    @property
    def unexplained(self) -> int:
        """Merges of positions another seat still tells apart, with no summary the game names
        (and, where the probe checked them, not found to differ in odds only)."""
        return self.state_merges - self.explained - self.odds_only

    def _add(self, seat: int, step: int, a: State, b: State, before: State, moves, max_examples: int,
             odds_tries: int = 0, keep: list | None = None) -> None:
        pure = _everyone_alike(a, b)
        gap = None if pure else a.recall_gap(b, seat)
        self.merges += 1
        self.pure_history += pure
        if gap:
            self.explained += 1
            self.gaps[gap] = self.gaps.get(gap, 0) + 1
        elif not pure and odds_tries and same_possible_worlds(a, b, seat, odds_tries):
            self.odds_only += 1
            gap = ODDS_ONLY
        merge = Merge(seat, step, pure, before.decision(), moves, gap,
                      "" if pure or gap else _what_differs(a, b, seat))
        if keep is not None and not pure and not gap:
            keep.append((merge, a.clone(), b.clone()))
        # unexplained merges first among the examples: they are what a reader must see
        if len(self.examples) < max_examples:
            self.examples.append(merge)
        elif not pure and not gap:
            for k, m in enumerate(self.examples):
                if m.pure_history or m.gap:
                    self.examples[k] = merge
                    break

    def as_dict(self) -> dict[str, Any]:
        return {"branches": self.branches, "comparisons": self.comparisons, "merges": self.merges,
                "pure_history": self.pure_history, "state_merges": self.state_merges,
                "explained": self.explained, "odds_only": self.odds_only, "unexplained": self.unexplained,
                "gaps": dict(self.gaps),
                "examples": [str(m) for m in self.examples]}


ODDS_ONLY = "the same possible worlds, other odds (each split shown possible after the other history)"


def _placements(state: State, seat: int) -> dict[str, Counter] | None:
    zones = state.hidden_zones(seat)
    if zones is None:
        return None
    try:
        return {name: Counter(items) for name, items in zones.items()}
    except TypeError:  # items that cannot be counted (unhashable): no such check
        return None


def _what_differs(a: State, b: State, seat: int) -> str:
    """The saved fields that differ and, per hidden zone, the items one branch holds there and the
    other does not (what a reader of an unexplained merge looks at first)."""
    text = "differs in " + (", ".join(sorted(a.differing_fields(b))) or "no saved field")
    za, zb = _placements(a, seat), _placements(b, seat)
    if za is not None and zb is not None and za.keys() == zb.keys():
        moved = [f"{z}: {dict(za[z] - zb[z])} / {dict(zb[z] - za[z])}" for z in za if za[z] != zb[z]]
        if moved:
            text += "; hidden items, this branch / the other: " + "; ".join(moved)
    return text


def rest_of_difference_named(a: State, b: State, seat: int) -> bool:
    """Whether, with the game's ``PLACEMENT_FIELDS`` of ``b`` set to ``a``'s (where the hidden items
    lie), nothing else differs, or what does is pure history (no seat's observation and not the
    position tells it apart: e.g. which copy of one card type lies in a public pile, where copies
    are alike in every rule), or the game names it (``recall_gap``)."""
    rest = _with_fields(b, a, type(a).PLACEMENT_FIELDS)
    return not rest.differing_fields(a) or _everyone_alike(rest, a) or bool(a.recall_gap(rest, seat))


def _with_fields(state: State, source: State, names) -> State:
    """A clone of ``state`` holding ``source``'s values of the saved fields ``names``."""
    out = state.clone()
    for name in names:
        setattr(out, name, copy.deepcopy(getattr(source, name)))
    out._reset_caches()
    return out


def same_possible_worlds(a: State, b: State, seat: int, tries: int, seed: int = 0) -> bool:
    """Whether each of ``a`` and ``b`` holds ``seat``'s hidden items where the seat, after the
    other's history, cannot rule them out, although the two split them differently: the same items
    hidden from it in both (``hidden_zones``), and a world exists after ``a``'s history whose
    zones hold the items that differ where ``b`` has them (their counts in the zones where the two
    differ; the other zones hold them alike), and one after ``b``'s history holding them as ``a``
    does. Each world comes from the game's ``world_holding`` (``tries`` attempts) and is checked
    here, not taken on trust: its zones are counted, and replaying it from its own start gives the
    seat the same view of every step as the branch it was drawn for (``view_history``'s digest),
    so the seat's whole history allows it. Everything else that differs must be pure history or
    named by the game (``recall_gap``, asked with the game's ``PLACEMENT_FIELDS`` of ``b`` set to
    ``a``'s). False where any of that fails, or the game has no placement fields."""
    fields = type(a).PLACEMENT_FIELDS
    za, zb = _placements(a, seat), _placements(b, seat)
    if not fields or za is None or zb is None or za.keys() != zb.keys():
        return False
    if sum(za.values(), Counter()) != sum(zb.values(), Counter()):
        return False  # not the same hidden items: something the seat could count differs
    differ = sorted({x for z in za for x in (za[z] - zb[z]) + (zb[z] - za[z])}, key=repr)
    if not differ:
        return False  # the hidden split is the same: the difference lies elsewhere
    if not rest_of_difference_named(a, b, seat):
        return False
    # only the zones where the two differ: the rest hold those items alike in both, and asking a
    # world to match them too would make a match too rare to meet (hundreds of splits at 5 players)
    names = sorted(z for z in za if any(za[z][x] != zb[z][x] for x in differ))

    def pattern(zones: dict[str, Counter]) -> tuple:
        return tuple(zones[z][x] for z in names for x in differ)

    import numpy as np

    from kabenvs.core.view_history import replayed_digest

    rng = np.random.default_rng(seed)
    for source, zones in ((a, zb), (b, za)):
        want = {z: {x: zones[z][x] for x in differ} for z in names}
        world = source.world_holding(seat, want, rng, tries)
        if world is None:
            return False
        placed = _placements(world, seat)
        if placed is None or placed.keys() != za.keys() or pattern(placed) != pattern(zones):
            return False
        if replayed_digest(world, seat).digest() != replayed_digest(source, seat).digest():
            return False
    return True


def _random_positions(game: Game, rnd: random.Random, n_games: int, per_game: int, seed: int) -> list[State]:
    import numpy as np

    positions = []
    limit = game.max_decisions()
    for g in range(n_games):
        state = game.new_state(np.random.default_rng(seed + g))
        seen = []
        k = 0
        while state.current_player is not None and k < limit:
            seen.append(state.clone())
            state.apply(rnd.choice(state.legal_actions()))
            k += 1
        positions += rnd.sample(seen, min(per_game, len(seen)))
    return positions


def same_moves(A: State, B: State, rnd: random.Random, horizon: int):
    """Play the same random moves on two branches, in place, for up to ``horizon`` steps: a move
    legal in both at each step, while the same seat decides in both. Yields ``(step, A0, B0,
    move)`` after each, with clones of the branches just before it (what ``seat_view`` needs)."""
    for step in range(1, horizon + 1):
        if A.current_player is None or A.current_player != B.current_player:
            return
        common = sorted(set(A.legal_actions()) & set(B.legal_actions()))
        if not common:
            return
        c = rnd.choice(common)
        A0, B0 = A.clone(), B.clone()
        A.apply(c)
        B.apply(c)
        yield step, A0, B0, c


def probe_recall(game: Game, seed: int = 0, n_games: int = 4, positions_per_game: int = 20,
                 pairs_per_position: int = 2, horizon: int | None = None, max_examples: int = 10,
                 odds_tries: int = 0, keep_unexplained: list | None = None) -> RecallReport:
    """Branch random positions of ``n_games`` full random games two ways and follow both with the
    same random moves for up to ``horizon`` steps (None, the default: until the game ends; see
    the module's docstring). ``odds_tries``: attempts each way to test a merge the game does not
    name for "the same possible worlds, other odds" (``same_possible_worlds``); 0, the default,
    tests none. ``keep_unexplained``: a list to append ``(Merge, branch a, branch b)`` to for
    each unexplained merge (clones of the two states at the merge), for a closer look."""
    rnd = random.Random(seed)
    if horizon is None:
        horizon = game.max_decisions()
    report = RecallReport()
    n = game.num_players
    for before in _random_positions(game, rnd, n_games, positions_per_game, seed):
        legal = before.legal_actions()
        if len(legal) < 2:
            continue
        for _ in range(pairs_per_position):
            a, b = rnd.sample(legal, 2)
            A, B = before.clone(), before.clone()
            A.apply(a)
            B.apply(b)
            report.branches += 1
            moves = (before.action_name(a), before.action_name(b))
            merged = [False] * n  # one merge counted per seat and branch pair
            apart = [False] * n
            for v in range(n):
                view_a, view_b = seat_view(before, A, a, v), seat_view(before, B, b, v)
                apart[v] = view_a != view_b
                if apart[v] and view_a[2] == view_b[2]:  # told apart, yet the observation is the same
                    merged[v] = True
                    report.comparisons += 1
                    report._add(v, 0, A, B, before, moves, max_examples, odds_tries, keep_unexplained)
            for step, A0, B0, c in same_moves(A, B, rnd, horizon):
                for v in range(n):
                    view_a, view_b = seat_view(A0, A, c, v), seat_view(B0, B, c, v)
                    if not apart[v]:
                        apart[v] = view_a != view_b
                        continue
                    report.comparisons += 1
                    if merged[v] or view_a[2] != view_b[2]:
                        continue
                    merged[v] = True
                    report._add(v, step, A, B, before, moves, max_examples, odds_tries, keep_unexplained)
    return report


__all__ = ["ODDS_ONLY", "Merge", "RecallReport", "probe_recall", "rest_of_difference_named", "same_moves",
           "same_possible_worlds", "seat_view"]
