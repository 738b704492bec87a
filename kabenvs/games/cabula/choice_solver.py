"""Which card left each hand, solved exactly: the resampler's last resort before the real game.

The resampler (``resample._build``) finds a world by a randomised search over the choices of which
token left a hand, undoing a choice a later sighting contradicts. Late in long 6-player games that
search gives up most tries (docs/games/cabula.md, "Resampling"): a type played from many hands
over many rebuilt decks shows the cost of a choice only hundreds of events later. Those positions
have worlds; this module finds one every time with a SAT solver (PySAT), from the same events and
tokens and from nothing the seat did not see, and hands ``_build`` the choices to replay.

The formula, over one pass of the events (``resample.start_tokens``):

* ``x[i, t]``: at choice event ``i`` (a card leaving another hand), token ``t`` left. Exactly one
  of the tokens that may be in that hand then; for a card the seat saw, only tokens that can be
  that type, and the one that left is that type.
* Presence: a literal per token and hand, true while the token is in the hand. A draw or a card
  put in view puts it there for sure; a token that may have left becomes ``present and not x``;
  a card taken unseen into another hand is there exactly when it was the one taken. A token can
  leave only while present.
* ``y[t, c]``: free token ``t`` is a ``c``, for the tokens a sighting or a look names. Exactly
  one type each, never a curse for a token that sat in a hand; each group (the cards the seat
  never saw at the start; each rebuilt deck's pile) holds no more of a type than its public
  count, fixed tokens included, and leaves the tokens no sighting names room for its curses.
* The seat's look at a hand: for each type, the present tokens of that type number exactly what
  it saw.
* Alike cards leave oldest first (``leave``): a choice among cards no sighting tells apart is
  then made once, not once per order of them; ``_build`` swaps alike cards back at random.

The solver starts from a guessed world (each choice drawn as the search draws it, without going
back), so it keeps what of the guess fits and its worlds vary with the generator; they are not an
exact draw from the seat's odds (neither is the search's backtracking). The types of tokens no
sighting names are dealt afterwards by ``_build`` at random, as in every world.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from pysat.solvers import Solver

from kabenvs.games.cabula.cards import IS_CURSE, NUM_TYPES

if TYPE_CHECKING:
    from kabenvs.games.cabula.rules import CabulaState

# Conflicts the solver may meet before it gives up (the resampler then falls back as before): at
# the 39 positions of random 6-player games where every free try gave up (up to step 675), it
# needed 0-11,000 (0.1-0.7 s); this bounds a draw at a few seconds.
CONFLICTS = 50_000


class _Formula:
    """Clauses and native cardinality constraints (Minicard) over numbered variables."""

    def __init__(self) -> None:
        self.top = 1
        self.clauses: list[list[int]] = [[1]]  # variable 1 is true: the constant TRUE
        self.atmost: list[tuple[list[int], int]] = []
        self.defs: list[tuple[int, bool, int, int]] = []  # (z, "and" or not ("or"), a, b), in order

    def var(self) -> int:
        self.top += 1
        return self.top

    def exactly(self, lits: list[int], k: int) -> bool:
        """Exactly ``k`` of ``lits`` true; False when that cannot be."""
        if k < 0 or k > len(lits):
            return False
        if k == 0:
            self.clauses.extend([-v] for v in lits)
        elif k == len(lits):
            self.clauses.extend([v] for v in lits)
        else:
            self.atmost.append((lits, k))
            self.atmost.append(([-v for v in lits], len(lits) - k))
            if k == 1:
                self.clauses.append(list(lits))
        return True

    def both(self, a: int, b: int) -> int:
        """A literal true exactly when ``a`` and ``b`` are."""
        if a == 1:
            return b
        if b == 1:
            return a
        z = self.var()
        self.clauses += [[-z, a], [-z, b], [z, -a, -b]]
        self.defs.append((z, True, a, b))
        return z

    def either(self, a: int, b: int) -> int:
        """A literal true exactly when ``a`` or ``b`` is."""
        z = self.var()
        self.clauses += [[-z, a, b], [z, -a], [z, -b]]
        self.defs.append((z, False, a, b))
        return z

    def phases(self, true: set[int]) -> list[int]:
        """Every variable's literal in the assignment where the variables ``true`` are true, the
        other free ones false, and each defined one what its definition gives. (A solver left to
        its default phase for a defined variable, false, takes that as a decision: "this card is
        no longer in the hand" then forced the choice the guess had not made.)"""
        value = [False] * (self.top + 1)
        value[1] = True
        for v in true:
            value[v] = True

        def val(lit: int) -> bool:
            return value[lit] if lit > 0 else not value[-lit]

        for z, conj, a, b in self.defs:
            value[z] = (val(a) and val(b)) if conj else (val(a) or val(b))
        return [v if value[v] else -v for v in range(2, self.top + 1)]


def solve_choices(truth: "CabulaState", steps: list, me: int, n: int, rng: np.random.Generator,
                  conflicts: int | None = None, need: list | None = None
                  ) -> tuple[dict[int, int], dict[int, int]] | None:
    """(event index -> the token that left there, token -> its type) for a world consistent
    with everything seat ``me`` saw, or None when the solver met ``conflicts`` (default
    ``CONFLICTS``) conflicts first, or the events admit no world (a real game's always do, unless
    ``need`` asks for more). ``need``: as ``resample._build`` takes it, per other hand in seat
    order and then the deck, None or the count of each named type that place holds at the end."""
    built = formula(truth, steps, me, n, rng, need)
    if built is None:
        return None
    f, choices, y, fixed, phases = built
    with Solver(name="minicard", bootstrap_with=f.clauses) as solver:
        for lits, k in f.atmost:
            solver.add_atmost(lits, k)
        solver.set_phases(f.phases(set(phases)))
        solver.conf_budget(CONFLICTS if conflicts is None else conflicts)
        if not solver.solve_limited():
            return None
        true = {v for v in solver.get_model() if v > 0}
    picked = {i: next(t for t, xt in x.items() if xt == 1 or xt in true) for i, x in choices.items()}
    types = {t: c for t, c in enumerate(fixed) if c is not None}
    types.update((t, c) for (t, c), v in y.items() if v in true)
    return picked, types


def formula(truth: "CabulaState", steps: list, me: int, n: int, rng: np.random.Generator,
            need: list | None = None):
    """The formula of the module docstring: (the formula, event index -> {token: x literal},
    (token, type) -> y literal, each token's fixed type or None, the solver's first phases), or
    None when the events already contradict the public counts."""
    from kabenvs.games.cabula.resample import start_tokens  # (resample imports this module)

    tok, hand_tok, _, deck, flat, will_see = start_tokens(truth, steps, me, n, rng)
    groups = [g[:] for g in tok.groups]
    group, fixed, handable = tok.group[:], tok.fixed[:], tok.handable[:]
    f = _Formula()
    TRUE = 1
    present: list[dict[int, int]] = [{} for _ in range(n)]  # hand -> {token: literal}
    # per hand, (group, looks at the hand before) -> its free tokens that came in for sure, oldest
    # first (see ``leave``)
    queue: list[dict[tuple[int, int], list[int]]] = [{} for _ in range(n)]
    looks = [0] * n
    size = [len(h) for h in hand_tok]  # cards in each hand (public)
    for q in range(n):
        if q != me:
            present[q] = dict.fromkeys(hand_tok[q], TRUE)
            for t in hand_tok[q]:
                if fixed[t] is None:
                    queue[q].setdefault((group[t], 0), []).append(t)
    y: dict[tuple[int, int], int] = {}
    choices: dict[int, dict[int, int]] = {}  # event index -> {token: x literal}
    # A guessed world, the solver's first phases: each choice drawn as the resampler's search
    # draws it (a seen card by the odds that each token is that card, by its group's counts),
    # without going back. The solver keeps what of it fits, so its worlds lean the way the
    # search's do rather than the way a plain random start would.
    guess_here = [set(present[q]) for q in range(n)]
    guess_type: dict[int, int] = {}
    guess_left = [g[:] for g in groups]
    for t, c in enumerate(fixed):
        if c is not None and group[t] is not None:
            guess_left[group[t]][c] -= 1
    phases: list[int] = []

    def new_token(c: int | None, g: int | None) -> int:
        group.append(g)
        fixed.append(c if g is None else None)
        handable.append(g is None)
        return len(group) - 1

    def odds(t: int, c: int | None) -> float:
        """How likely guessed token ``t`` is a ``c`` (``resample._Tokens.chance_of``)."""
        known = fixed[t] if fixed[t] is not None else guess_type.get(t)
        if c is None:
            return 1.0
        if known is not None:
            return 1.0 if known == c else 0.0
        left = guess_left[group[t]]
        return max(left[c], 0) / max(sum(left), 1)

    def guess(v: int, c: int | None, x: dict[int, int], into: int | None) -> None:
        kinds: dict[tuple, list[int]] = {}  # alike guessed tokens, weighed as the search weighs them
        for t in x:
            if t in guess_here[v]:
                kinds.setdefault((fixed[t], guess_type.get(t), group[t]), []).append(t)
        here = list(kinds.values())
        w = np.array([odds(ts[0], c) if c is not None else len(ts) for ts in here], dtype=float)
        if here and w.sum() > 0:
            ts = here[int(rng.choice(len(here), p=w / w.sum()))]
            t = ts[int(rng.integers(len(ts)))]
            line = next((ln for ln in queue[v].values() if t in ln), None)
            if line is not None:  # the oldest alike one, as the solver's order of alike cards asks
                t = next(u for u in line if u in ts)
        else:  # the guess went astray: any token the formula allows
            here = list(x)
            t = here[int(rng.integers(len(here)))]
        guess_here[v].discard(t)
        if into is not None:
            guess_here[into].add(t)
        if c is not None and fixed[t] is None and t not in guess_type:
            guess_type[t] = c
            guess_left[group[t]][c] -= 1
        if x[t] != TRUE:
            phases.append(x[t])

    def is_type(t: int, c: int) -> int:
        """The literal "token ``t`` is a ``c``" (TRUE or -TRUE for a fixed token)."""
        if fixed[t] is not None:
            return TRUE if fixed[t] == c else -TRUE
        if not groups[group[t]][c]:
            return -TRUE
        if (t, c) not in y:
            y[(t, c)] = f.var()
        return y[(t, c)]

    def may_be(t: int, c: int) -> bool:
        return fixed[t] == c if fixed[t] is not None else groups[group[t]][c] > 0

    def guess_look(v: int, hand: list[int]) -> None:
        """The guessed hand shown: its guessed-free tokens take the rest of what the seat saw."""
        rest = hand[:]
        free = []
        for t in guess_here[v]:
            known = fixed[t] if fixed[t] is not None else guess_type.get(t)
            if known is None:
                free.append(t)
            else:
                rest[known] -= 1
        cards = [c for c in range(NUM_TYPES) for _ in range(max(rest[c], 0))]
        cards = [cards[k] for k in rng.permutation(len(cards))]
        for t in sorted(free):  # each a card of the rest that its group still has, where one is left
            c = next((c for c in cards if guess_left[group[t]][c] > 0), None)
            if c is not None:
                cards.remove(c)
                guess_type[t] = c
                guess_left[group[t]][c] -= 1

    def holds(held: dict[int, int], c: int, k: int) -> bool:
        """Of the tokens ``held`` (token -> its presence literal) exactly ``k`` are there and ``c``s."""
        lits, sure = [], 0
        for t, here in held.items():
            lit = f.both(here, is_type(t, c)) if is_type(t, c) != -TRUE else -TRUE
            if lit == TRUE:
                sure += 1
            elif lit != -TRUE:
                lits.append(lit)
        return f.exactly(lits, k - sure)

    def prune(v: int) -> bool:
        """Drop the tokens of hand ``v`` that are gone in every world the formula allows: the
        cards of one line present are its latest arrivals (the older leave first, ``leave``),
        and no more of them than the hand holds. (Kept, they made every later choice of the hand
        one among all the cards it ever held.) False if one of them must still be there."""
        held = present[v]
        for line in queue[v].values():
            alive = [t for t in line if t in held]
            for t in alive[:max(len(alive) - size[v], 0)]:
                if held[t] == TRUE:
                    return False
                f.clauses.append([-held[t]])
                del held[t]
            line[:] = alive[max(len(alive) - size[v], 0):]
        return True

    def leave(i: int, v: int, c: int | None, into: int | None) -> bool:
        """Choice event ``i``: a card (seen as ``c``, or unseen) left hand ``v`` (into hand ``into``)."""
        if not prune(v):
            return False
        size[v] -= 1
        if into is not None:
            size[into] += 1
        held = present[v]
        cand = [t for t in held if c is None or may_be(t, c)]
        if not cand:
            return False
        if len(cand) == 1 and held[cand[0]] == TRUE:
            x = {cand[0]: TRUE}  # no choice: the one token left for sure
        else:
            x = {t: f.var() for t in cand}
            f.exactly(list(x.values()), 1)
        choices[i] = x
        guess(v, c, x, into)
        # Of two alike free cards (one group, both there since they came in for sure, and no look
        # at the hand between their arrivals) the older leaves first: any world becomes such a
        # world by swapping which of the two was which (their types too; the look is what could
        # tell them apart), and without this the solver searched every such swap (a second
        # instead of a fifth late in 6-player games). ``_build`` swaps them back at random.
        for line in queue[v].values():
            older = None
            for t in line:
                if t not in held:
                    continue
                if older is not None and x.get(t, TRUE) != TRUE:
                    f.clauses.append([-x[t], -held[older]])
                older = t
        for t, xt in x.items():
            if xt != TRUE:
                if held[t] != TRUE:
                    f.clauses.append([-xt, held[t]])  # it left only if it was there
                if c is not None:
                    f.clauses.append([-xt, is_type(t, c)])
            elif c is not None:
                f.clauses.append([is_type(t, c)])
            # still here: it was, and did not leave now
            if xt == TRUE:
                del held[t]
            elif held[t] == TRUE:
                held[t] = -xt
            else:
                held[t] = f.both(held[t], -xt)
            if into is not None:
                there = present[into].get(t)
                present[into][t] = xt if there is None else f.either(there, xt)
                if there is not None:  # back where it was: no longer a plain arrival
                    for line in queue[into].values():
                        if t in line:
                            line.remove(t)
        return True

    first_rebuilt = len(groups)
    for i, (_, ev) in enumerate(flat):
        kind = ev[0]
        if kind == "draw":
            q, c = ev[1], ev[2]
            d = deck.pop()
            if q != me and not IS_CURSE[c]:
                handable[d] = True
                present[q][d] = TRUE
                size[q] += 1
                guess_here[q].add(d)
                if fixed[d] is None:
                    queue[q].setdefault((group[d], looks[q]), []).append(d)
        elif kind == "shuffle":
            groups.append([0] * NUM_TYPES)
            for c in ev[1]:
                groups[-1][c] += 1
            g = len(groups) - 1
            deck = [new_token(None, g) for _ in ev[1]]
            guess_left.append(groups[-1][:])
            for pos, c in will_see[g - first_rebuilt + 1].items():
                fixed[deck[pos]] = c
                guess_left[g][c] -= 1
        elif kind == "move":
            v, a, c = ev[1], ev[2], ev[3]
            if v == me:
                t = new_token(c, None)
                present[a][t] = TRUE
                size[a] += 1
                guess_here[a].add(t)
            elif not leave(i, v, c if a == me else None, None if a == me else a):
                return None
        elif kind == "out":
            if ev[1] != me and not leave(i, ev[1], ev[2], None):
                return None
        elif kind == "in":
            if ev[1] != me:
                for _ in range(ev[3]):
                    t = new_token(ev[2], None)
                    present[ev[1]][t] = TRUE
                    size[ev[1]] += 1
                    guess_here[ev[1]].add(t)
        elif ev[1] == me:  # "look": the seat saw the whole hand
            looks[ev[2]] += 1
            guess_look(ev[2], ev[3])
            if not prune(ev[2]) or sum(ev[3]) != size[ev[2]]:
                return None
            if not all(holds(present[ev[2]], c, ev[3][c]) for c in range(NUM_TYPES)):
                return None
    if need is not None:  # what each named place must hold at the end (``world_holding``)
        places = [present[q] for q in range(n) if q != me] + [dict.fromkeys(deck, TRUE)]
        for q in range(n):
            if q != me and not prune(q):
                return None
        if not all(holds(held, c, k) for held, want in zip(places, need) if want for c, k in want.items()):
            return None

    # -- the types: one each, curses only where no hand ever held the token, each group's counts --
    # A free token no sighting or look named is interchangeable with every other such token of its
    # group, and the formula leaves it out (its type is dealt afterwards, as in every world): its
    # group then needs at most its count of each type among the named tokens, and the unnamed
    # tokens that may take a curse (never in a hand) room for the curses the named ones leave.
    # (Naming them all made the solver search their symmetric deals: seconds instead of tenths.)
    named = {t for t, _ in y}
    members: list[list[int]] = [[] for _ in groups]
    for t, g in enumerate(group):
        if g is not None:
            members[g].append(t)
    for g, ts in enumerate(members):
        left = groups[g][:]
        for t in ts:
            if fixed[t] is not None:
                left[fixed[t]] -= 1
        if min(left) < 0:
            return None
        free = [t for t in ts if fixed[t] is None and t in named]
        cursable = sum(1 for t in ts if fixed[t] is None and t not in named and not handable[t])
        for t in free:
            lits = []
            for c in range(NUM_TYPES):
                if not groups[g][c]:
                    continue
                lit = is_type(t, c)
                if IS_CURSE[c] and handable[t]:
                    f.clauses.append([-lit])
                else:
                    lits.append(lit)
            if not f.exactly(lits, 1):
                return None
        curse_lits = []
        for c in range(NUM_TYPES):
            if groups[g][c]:
                lits = [is_type(t, c) for t in free]
                f.atmost.append((lits, left[c]))
                if IS_CURSE[c]:
                    curse_lits += lits
        unplaced = sum(left[c] for c in range(NUM_TYPES) if IS_CURSE[c]) - cursable
        if unplaced > len(curse_lits):
            return None
        if unplaced > 0:  # at least that many curses among the named tokens
            f.atmost.append(([-v for v in curse_lits], len(curse_lits) - unplaced))
        # the guessed types, and a random deal of the rest of the group's cards to the rest
        cards = [c for c in range(NUM_TYPES) for _ in range(max(guess_left[g][c], 0))]
        rest = [t for t in free if (t, guess_type.get(t)) not in y]
        phases.extend(y[(t, guess_type[t])] for t in free if (t, guess_type.get(t)) in y)
        for t, k in zip(rest, rng.permutation(len(cards))):
            phases.append(y[(t, cards[k])])

    return f, choices, y, fixed, phases
