"""Cábula's ``resample_hidden``: a world the seat cannot tell from the real game, over its whole past.

How (docs/games/cabula.md, "Resampling"): the true game is replayed from its ``start`` while the
engine logs every card movement (``CabulaState._log``). From the seat's point of view every card
that is out of its sight (in another hand or in the deck) is a *token*: a start card of another
hand or of the deck, a card of a rebuilt deck, a card of the seat's own taken by another player, a
star a cauldron sent back to a hand. A token keeps its identity while it moves unseen (drawn by
another player). Which token leaves a hand is the world's own choice (``_build``): any token of
the hand for a card the seat did not see leave, one that can be that card for one it saw; a
choice a later sighting contradicts is undone. The seat learns a token's
type when it leaves unseen parts in plain view (played, discarded, a curse drawn, drawn or taken
by the seat) or when the seat looks at the hand holding it (two crystal balls): that type is
*fixed*. The other tokens are *free*; each belongs to a group whose contents are public (the
cards the seat never saw at the start; the discard pile each rebuilt deck was made of).

A world is a new type for every free token: each group's unfixed cards dealt at random to its
free tokens, curses only to tokens that never sat in a hand (hands never hold curses; everything
else the seat saw is a fixed type or public). The world's past varies as well as its present.
The world is then *replayed* from
its own start: the start's other hands and deck come from the tokens; the outcomes of the past
chance events (each rebuilt deck's order, each card a single crystal ball took) are written into
the start's ``chance`` script, which the engine uses before its generator; a card another player
chose after two crystal balls is rewritten in the history. The replay proves the world
consistent: every past action is legal there and the seat saw the same thing at every step. The
world's generator is fresh from ``rng``, so its future is not the real one.

A hand-rigged start where the seat already knew something (cards in another hand, a rebuilt deck)
keeps that start's split between the other hands (together) and the deck.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

import numpy as np

from kabenvs.core.game import copy_plain, world_start
from kabenvs.core.patience import is_hurried, resample_budget, resample_tries
from kabenvs.games.cabula import generations as GEN
from kabenvs.games.cabula.cards import CURSES, IS_CURSE, NUM_TYPES
from kabenvs.games.cabula.choice_solver import solve_choices

if TYPE_CHECKING:
    from kabenvs.games.cabula.rules import CabulaState


def _counts(cards) -> list[int]:
    out = [0] * NUM_TYPES
    for c in cards:
        out[c] += 1
    return out


class _Tokens:
    """The seat's unseen cards (see the module docstring)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.true: list[int] = []  # the real type (only to follow the real game)
        self.group: list[int | None] = []
        self.fixed: list[int | None] = []
        self.handable: list[bool] = []  # sat in a hand at some point: never a curse
        self.groups: list[list[int]] = []  # public contents of each group
        self.left: list[list[int]] = []  # per group, its cards no fixed token of it is yet
        self.nfree: list[int] = []  # per group, its tokens not yet fixed
        self.last_fail: int | None = None


    def kind(self, t: int) -> tuple:
        """What makes tokens of one hand interchangeable from here on: the type fixed (or none),
        the group, and whether it sat in a hand."""
        return (self.fixed[t], self.group[t], self.handable[t])
    def count_left(self) -> None:
        """``left`` from scratch: each group's cards less its fixed tokens."""
        self.left = [g[:] for g in self.groups]
        self.nfree = [sum(g) for g in self.groups]
        for t, g in enumerate(self.group):
            if g is not None and self.fixed[t] is not None:
                self.left[g][self.fixed[t]] -= 1
                self.nfree[g] -= 1

    def chance_of(self, t: int, c: int) -> float:
        """How likely free token ``t`` is a ``c`` by its group's counts alone (1 for a fixed ``c``)."""
        f = self.fixed[t]
        if f is not None:
            return 1.0 if f == c else 0.0
        g = self.group[t]
        if g is None:
            return 1.0
        return self.left[g][c] / max(self.nfree[g], 1)

    def can_be(self, t: int, c: int) -> bool:
        f = self.fixed[t]
        if f is not None:
            return f == c
        g = self.group[t]
        return g is None or self.left[g][c] > 0

    def fix(self, t: int, c: int) -> bool:
        """Token ``t`` is now known to be ``c``; False if its group has no ``c`` left for it."""
        f = self.fixed[t]
        if f is not None:
            return f == c
        g = self.group[t]
        if g is not None:
            if self.left[g][c] <= 0:
                self.last_fail = g  # which group ran out (where to look for the cause)
                return False
            self.left[g][c] -= 1
            self.nfree[g] -= 1
        self.fixed[t] = c
        return True

    def new(self, c: int, group: int | None, fixed: int | None = None, handable: bool = False) -> int:
        self.true.append(c)
        self.group.append(group)
        self.fixed.append(fixed)
        self.handable.append(handable)
        return len(self.true) - 1

    def assign(self) -> list[int] | None:
        """A type for every token: fixed ones keep theirs, each group's rest dealt at random;
        None when the fixed ones leave a group's cards impossible to deal (a world given up)."""
        types = [c if f is None else f for c, f in zip(self.true, self.fixed)]
        free_of: list[list[int]] = [[] for _ in self.groups]
        left = [g[:] for g in self.groups]
        for t, g in enumerate(self.group):
            if g is None:
                continue
            if self.fixed[t] is None:
                free_of[g].append(t)
            else:
                left[g][self.fixed[t]] -= 1
        for g, free in enumerate(free_of):
            if not self._deal(types, free, left[g]):
                return None  # following the truth always can be dealt
        return types

    def _deal(self, types: list[int], free: list[int], rest: list[int]) -> bool:
        """Deal the cards ``rest`` (a count per type) to the tokens ``free`` at random into
        ``types``, curses only to tokens that never sat in a hand; False when they do not fit."""
        rng = self.rng
        curses = [c for c in CURSES for _ in range(rest[c])]
        others = [c for c in range(NUM_TYPES) if not IS_CURSE[c] for _ in range(rest[c])]
        may_curse = [t for t in free if not self.handable[t]]
        if min(rest) < 0 or len(free) != len(curses) + len(others) or len(may_curse) < len(curses):
            return False
        may_curse = [may_curse[i] for i in rng.permutation(len(may_curse))]
        cursed = set(may_curse[: len(curses)])
        for t, c in zip(may_curse, curses):
            types[t] = c
        plain = [t for t in free if t not in cursed]
        for t, i in zip(plain, rng.permutation(len(others))):
            types[t] = others[i]
        return True

    def assign_holding(self, places: list[list[int]], need: list[dict[int, int] | None],
                       nodes: int = 5000) -> list[int] | None:
        """Like ``assign``, but each place ``places[i]`` (the tokens of a hand or of the deck) with
        ``need[i]`` set ends up holding exactly ``need[i][c]`` cards of each type ``c`` named there
        (the other types, and the places with no need, as they fall); None when the fixed tokens
        and the groups' contents allow no such deal (or ``nodes`` steps of the search found none).

        A small search: the named types of each group are split between the places its free
        tokens sit in, so that each named place gets its count; the group's other cards are then
        dealt at random to its remaining free tokens, curses only to tokens that never sat in a
        hand (which are in the deck)."""
        named = sorted({c for w in need if w for c in w})
        where = {t: i for i, ts in enumerate(places) for t in ts}
        short = [dict(w) if w else None for w in need]  # what each named place still needs
        for i, ts in enumerate(places):
            for t in ts:
                f = self.fixed[t]
                if f is not None and short[i] is not None and f in short[i]:
                    short[i][f] -= 1
        if any(v < 0 for w in short if w for v in w.values()):
            return None
        left = [g[:] for g in self.groups]
        cells: dict[tuple[int, int], list[int]] = {}  # (place, group) -> its free tokens
        for t, g in enumerate(self.group):
            if g is None:
                continue
            if self.fixed[t] is not None:
                left[g][self.fixed[t]] -= 1
            elif t in where:
                cells.setdefault((where[t], g), []).append(t)
            else:
                return None  # a free token in no place: not a state this deal knows
        if any(min(x) < 0 for x in left):
            return None
        rng = self.rng
        room = {k: len(v) for k, v in cells.items()}
        # quick necessary conditions first: most deals that cannot fit fail here, not in the search
        for i, w in enumerate(short):
            if not w:
                continue
            if sum(w.values()) > sum(r for (i2, _), r in room.items() if i2 == i):
                return None
            for c, k in w.items():
                if k > sum(min(r, left[g][c]) for (i2, g), r in room.items() if i2 == i):
                    return None
        # how many tokens of each cell may take a curse (never sat in a hand)
        cursable = {k: sum(not self.handable[t] for t in v) for k, v in cells.items()}
        slots = [(g, c) for g in range(len(self.groups)) for c in named if left[g][c]]
        split: dict[tuple[int, int, int], int] = {}  # (place, group, type) -> named cards placed
        budget = [nodes]

        def supply_after(k: int, c: int) -> int:
            return sum(left[g][c2] for g, c2 in slots[k:] if c2 == c)

        def place(k: int) -> bool:
            budget[0] -= 1
            if budget[0] < 0:
                return False
            for i, w in enumerate(short):  # a named place must keep room for all it still lacks
                if w and sum(w.values()) > sum(r for (i2, _), r in room.items() if i2 == i):
                    return False
            if k == len(slots):
                return all(v == 0 for w in short if w for v in w.values())
            g, c = slots[k]
            homes = [i for i in range(len(places)) if (i, g) in cells]
            homes = [homes[j] for j in rng.permutation(len(homes))]
            if IS_CURSE[c]:
                homes = [i for i in homes if cursable[(i, g)]]

            def spread(j: int, rest: int) -> bool:
                if j == len(homes):
                    if rest:
                        return False
                    # every named place must still be able to get what it lacks of c
                    if any(w and w.get(c, 0) > supply_after(k + 1, c) for w in short):
                        return False
                    return place(k + 1)
                i = homes[j]
                cap = min(rest, room[(i, g)], cursable[(i, g)] if IS_CURSE[c] else rest)
                if short[i] is not None and c in short[i]:
                    cap = min(cap, short[i][c])
                amounts = list(range(cap + 1))
                for a in [amounts[x] for x in rng.permutation(len(amounts))]:
                    if budget[0] < 0:
                        return False
                    room[(i, g)] -= a
                    if IS_CURSE[c]:
                        cursable[(i, g)] -= a
                    if short[i] is not None and c in short[i]:
                        short[i][c] -= a
                    split[(i, g, c)] = a
                    if spread(j + 1, rest - a):
                        return True
                    room[(i, g)] += a
                    if IS_CURSE[c]:
                        cursable[(i, g)] += a
                    if short[i] is not None and c in short[i]:
                        short[i][c] += a
                    split.pop((i, g, c), None)
                return False

            return spread(0, left[g][c])

        if not place(0):
            return None
        types = [c if f is None else f for c, f in zip(self.true, self.fixed)]
        for g in range(len(self.groups)):
            rest = left[g][:]
            free = []
            for (i, g2), ts in cells.items():
                if g2 != g:
                    continue
                # named cards first to the tokens that sat in a hand, keeping the others for curses
                ts = sorted(ts, key=lambda t: (not self.handable[t], rng.random()))
                for c in named:
                    a = split.get((i, g, c), 0)
                    if IS_CURSE[c]:
                        takers = [t for t in reversed(ts) if not self.handable[t]][:a]
                    else:
                        takers = ts[:a]
                    for t in takers:
                        types[t] = c
                        ts.remove(t)
                    rest[c] -= a
                free += ts
            if not self._deal(types, free, rest):
                return None
        return types


# How worlds are built, in order of preference, and the tries each gets (a try is one pass over
# the logged events with backtracking, not a replay of the game): "free" follows nothing of the
# real game the seat did not see; "exact" has a SAT solver find the choices (``choice_solver``:
# complete, so it finds a world wherever the search gave up, at more cost; it too follows
# nothing the seat did not see) and replays them; "seen" also picks, for a card it saw leave a hand, the real
# token first (which of that hand's cards of one kind, its old or its freshly drawn ones, it was:
# only odds); "truth" follows the real game in every choice, which always works. Counted over
# the kit's games in tests/games/cabula (how often each mode is reached). Eight free tries: a
# failing try is cheap and restarts beat a larger budget (core.patience); over every 25th
# position of 40 random games (three draws each) 8 tries instead of 3 left 37 of 801 worlds
# marked at 6 players instead of 67 (7.2 -> 8.6 ms a draw), 9 of 453 at 3 instead of 21 and 2 of
# 447 at 2 instead of 3 (the same cost).
MODES = (("free", 8), ("exact", 1), ("seen", 2), ("truth", 1))
# Event passes a try may make in all, times the number of logged events, before it gives up.
BUDGET = 3
MODE_COUNTS: dict[str, int] = {}  # worlds built per mode in this process (read by the tests)


def logged_events(state: "CabulaState") -> tuple["CabulaState", int, list]:
    """The real game replayed from its start with every card movement logged: (the start
    replayed, the index of its first own step, [(step, [events])]); a ``look`` event carries the
    looked-at hand as it was. Kept on the state (a cache, dropped by ``_reset_caches``): a search
    resamples one position many times."""
    memo = state._resample_events
    if memo is not None and memo[0] == len(state.history):
        return memo[1]
    truth = state.replay_start()
    start_view = truth.clone()
    begin = len(truth.history)
    steps = []
    for step in range(begin, len(state.history)):
        truth._log = []
        truth.apply(state.history[step])
        events = []
        for ev in truth._log:
            if ev[0] == "look":
                ev = ev + (truth.hands[ev[2]][:],)
            events.append(ev)
        steps.append((step, events))
    state._resample_events = (len(state.history), (start_view, begin, steps))
    return start_view, begin, steps


def resample(state: "CabulaState", me: int, rng: np.random.Generator) -> "CabulaState":
    n = state.num_players
    if state.start is None:
        raise ValueError("resample_hidden needs the game's start (a state restored from an older save)")
    truth, begin, steps = logged_events(state)
    built = None
    for mode, tries in MODES:  # more tries, each with a larger budget, when patient (core.patience)
        if mode == "exact" and is_hurried():
            continue  # the caller walks another world in a marked one's place (core.patience)
        for _ in range(resample_tries(tries) if mode in ("free", "seen") else tries):
            if mode == "exact":
                plan = solve_choices(truth, steps, me, n, rng)
                built = None if plan is None else _build(truth, steps, me, n, rng, mode, plan=plan)
            else:
                built = _build(truth, steps, me, n, rng, mode)
            if built is not None:
                break
        if built is not None:
            break
    MODE_COUNTS[mode] = MODE_COUNTS.get(mode, 0) + 1
    world = _world(state, me, rng, begin, built)
    # "seen" and "truth" worlds follow the real game in part or in full (which card of a kind
    # left, or every choice): a search walks an earlier unmarked world instead (search.tree.Worlds)
    world._followed_truth = mode not in ("free", "exact")
    return world


def world_holding(state: "CabulaState", me: int, want: dict, rng: np.random.Generator,
                  tries: int) -> "CabulaState | None":
    """A world as ``resample`` builds (mode "free"), whose hidden zones (``_hidden_zones``) hold
    each named type in each named zone as often as ``want`` says (zone name -> {type: count});
    None when ``tries`` searches and then the SAT solver (``choice_solver``, within its conflicts)
    found none. Rather than drawing
    worlds until one fits (hundreds of splits at five players), the search itself deals to fit:
    the last deal meets the counts where the fixed cards allow, and when it cannot, the choices of
    which card left a hand are undone in turn, as for a sighting that contradicts them."""
    if state.start is None:
        return None
    n = state.num_players
    others = [q for q in range(n) if q != me]
    names = [f"hand of player {q}" for q in others] + ["deck"]  # (_hidden_zones; State checked want)
    floors = [state.known_cards(me, q) for q in others] + [state.deck_floor[me]]
    need = [None if z not in want else {c: k + floor[c] for c, k in want[z].items()}
            for z, floor in zip(names, floors)]
    truth, begin, steps = logged_events(state)
    for _ in range(tries):
        built = _build(truth, steps, me, n, rng, "free", need, budget_scale=4)
        if built is not None:
            return _world(state, me, rng, begin, built)
    # then the solver, which finds such a world wherever there is one (within its conflicts)
    plan = solve_choices(truth, steps, me, n, rng, need=need)
    built = None if plan is None else _build(truth, steps, me, n, rng, "exact", need, plan=plan)
    return None if built is None else _world(state, me, rng, begin, built)


def _world(state: "CabulaState", me: int, rng: np.random.Generator, begin: int, built) -> "CabulaState":
    """The world ``_build``'s tokens describe: its start, chance script and history, replayed."""
    g = state.game
    n = state.num_players
    tok, types, start_hands, start_deck, script, chosen = built
    # -- the world's start, script and history -----------------------------------------------------
    actions = state.history[:]
    fields = copy_plain(state.start["state"])  # a pickle round trip: a fraction of deepcopy's cost
    others = [q for q in range(n) if q != me]
    for q in others:
        fields["hands"][q] = _counts(types[t] for t in start_hands[q])
    fields["deck"] = [types[t] for t in start_deck]
    fields["chance"] = [[types[t] for t in x] if kind == "deck" else types[x] for kind, x in script]
    _clamp_others_knowledge(fields, me, n, g.composition)
    for step, t in chosen:
        actions[step] = g.take_ids[types[t]]
    proto = state.__class__.__new__(state.__class__)
    proto.game = g
    proto.start = world_start(fields, rng)
    world = proto.replay_start()
    for a in actions[begin:]:
        world.apply(a)
    # (the world keeps the generator its replay from its own fresh start ended with, so that
    # replaying the world gives the world, also after moves in it: core.view_history replays it)
    return world


def start_tokens(truth: "CabulaState", steps: list, me: int, n: int, rng: np.random.Generator):
    """What every pass over the logged events starts from (``_build``, ``choice_solver``): the
    tokens of the start's other hands and deck, the events one by one (a card count of an "out"
    spread into single cards) and, per deck, the cards the seat will see drawn from it (fixed
    in the start's deck here). The tokens are made in an order that depends only on what the
    seat knows."""
    g = truth.game
    tok = _Tokens(rng)
    others = [q for q in range(n) if q != me]
    hand_tok: list[list[int]] = [[] for _ in range(n)]
    start_hands: list[list[int]] = [[] for _ in range(n)]

    # -- the start's unseen cards ---------------------------------------------------------------
    pool = g.composition[:]
    for c in range(NUM_TYPES):
        pool[c] -= truth.hands[me][c] + truth.discard[c]
    for d in truth.display:
        pool[0] -= d[0]
        pool[1] -= d[1]
    knew = any(truth.known[me * n + q] is not None or truth.groups[me * n + q] is not None
               or truth.groups2[me * n + q] is not None for q in others)
    knew = knew or truth.deck_cap_known or any(
        truth.deck_floor[me][c] != (pool[c] if IS_CURSE[c] else 0) for c in range(NUM_TYPES))
    if knew:  # a rigged start the seat already knew things about: hands and deck kept apart
        held = [0] * NUM_TYPES
        for q in others:
            held = [a + b for a, b in zip(held, truth.hands[q])]
        tok.groups = [held, _counts(truth.deck)]
        hand_group, deck_group = 0, 1
    else:
        tok.groups = [pool]
        hand_group = deck_group = 0
    for q in others:
        seen = truth.known_cards(me, q)
        # The known cards first, then the unknown ones: the order of a hand's tokens (which the
        # random choices below run over) then depends only on what the seat knows, so in mode
        # "free" the same generator gives the same world whatever the real hands are.
        free = []
        for c in range(NUM_TYPES):
            for i in range(truth.hands[q][c]):
                if i < seen[c]:
                    t = tok.new(c, hand_group, c, True)
                    hand_tok[q].append(t)
                    start_hands[q].append(t)
                else:
                    free.append(c)
        for c in free:
            t = tok.new(c, hand_group, None, True)
            hand_tok[q].append(t)
            start_hands[q].append(t)
    deck_tok = [tok.new(c, deck_group) for c in truth.deck]

    flat = []
    for step, events in steps:
        for ev in events:
            if ev[0] == "out":
                flat.extend((step, ("out", ev[1], ev[2], 1)) for _ in range(ev[3]))
            else:
                flat.append((step, ev))
    # The cards of each deck (the start's, then each rebuilt one) that the seat will see drawn
    # (its own draws, and curses anyone draws) are known from the start of the pass: the deck's
    # order is no choice, so those types are fixed when the deck is made. A choice that would use
    # up a type such a draw needs is then refused at once rather than found out many events later.
    will_see = _seen_draws(len(deck_tok), flat, me)
    for pos, c in will_see[0].items():
        tok.fixed[deck_tok[pos]] = c
    return tok, hand_tok, start_hands, deck_tok, flat, will_see


def _build(truth: "CabulaState", steps: list, me: int, n: int, rng: np.random.Generator, mode: str,
           need: list | None = None, budget_scale: int = 1, plan: tuple | None = None):
    """One pass over the logged events placing the seat's unseen cards as tokens (module
    docstring). A card that left a hand unseen is any token of that hand, at random, not the real
    one: the seat cannot tell which it was, so neither may its worlds (``mode``: see ``MODES``). A later sighting needs a token that can be what
    was seen; when none can, or the groups cannot be dealt at the end, the pass returns None.
    ``need``: per other hand (in seat order) and then the deck, None or the count of each named
    type that place must hold at the end (``world_holding``); a deal that cannot meet it is a
    contradiction like any other, undone by going back to the latest choice. ``plan``: (flat
    event index -> token, token -> type) from ``choice_solver``: every choice takes the planned
    token and a looked-at hand's free tokens their planned types (mode "exact")."""
    tok, hand_tok, start_hands, deck_tok, flat, will_see = start_tokens(truth, steps, me, n, rng)
    start_deck = deck_tok[:]
    others = [q for q in range(n) if q != me]
    # -- follow the real game ----------------------------------------------------------------------
    # Each card that leaves another hand (seen or not) is a choice of token; a choice that a later
    # sighting contradicts is undone (conflict-directed backjumping over the choices, with a budget).
    first_rebuilt = len(tok.groups)  # the group of the first rebuilt deck
    script: list = []  # ("deck", tokens) or ("take", token), in the order the events happened
    chosen: list[tuple[int, int]] = []  # (history index, token) of cards picked after two balls
    budget = resample_budget(int(BUDGET * len(flat)) + 500) * budget_scale
    trail: list[_Choice] = []  # the choice points, in event order

    def snapshot():
        return (tok.true[:], tok.group[:], tok.fixed[:], tok.handable[:], tok.groups[:],
                [h[:] for h in hand_tok], deck_tok[:], len(script), len(chosen), [x[:] for x in tok.left], tok.nfree[:])

    def restore(snap) -> None:
        nonlocal deck_tok
        tok.true, tok.group, tok.fixed, tok.handable, tok.groups = (
            snap[0][:], snap[1][:], snap[2][:], snap[3][:], snap[4][:])
        for q in range(n):
            hand_tok[q] = snap[5][q][:]
        deck_tok = snap[6][:]
        del script[snap[7]:]
        del chosen[snap[8]:]
        tok.left = [x[:] for x in snap[9]]
        tok.nfree = snap[10][:]

    def options(ev) -> list[int] | None:
        """The tokens a leaving card may be (None: the event needs no choice)."""
        kind = ev[0]
        if kind == "move" and ev[1] != me:
            v, c, seen = ev[1], ev[3], ev[2] == me
        elif kind == "out" and ev[1] != me:
            v, c, seen = ev[1], ev[2], True
        else:
            return None
        held = hand_tok[v]
        if mode == "truth":
            return [next(t for t in held if tok.true[t] == c)]
        out, kinds, alike = [], {}, []
        for t in held:
            if seen and not tok.can_be(t, c):
                continue
            key = tok.kind(t)
            if key not in kinds:  # tokens alike in all these are interchangeable from here on
                kinds[key] = len(out)
                out.append(t)
                alike.append(1)
            else:
                alike[kinds[key]] += 1
        if len(out) < 2:
            return out
        # Each kind of token in the order of a draw weighted (one token of each kind stands for all
        # of them). A card the seat did not see leave: by the kind's share of the hand's tokens, a
        # kind of four four times as likely as a kind of one (drawing the kinds alike made a card
        # the seat had seen go in half the worlds where a random take from five cards takes it in
        # a fifth). A seen card: by how likely each is that card (a token known to be it, then free
        # ones by their group's counts), so the first try is usually one that later sightings
        # agree with; the rest stay choices to go back to. (Weighing a seen card's kinds by their
        # sizes too made two 2-player positions of 30 games 20 times as slow, 0.23 s a draw, and is
        # no nearer the seat's odds: a free token taken as the card makes one more such card than
        # the group's counts give, so the known copy is the better first guess.)
        if seen:
            w = np.array([tok.chance_of(t, c) for t in out])
        else:
            w = np.array(alike, dtype=float)
        keys = rng.random(len(out)) ** (1.0 / (w + 1e-12))  # a weighted order without replacement
        order = [out[k] for k in np.argsort(-keys)]
        if mode == "seen":
            real = next((t for t in held if tok.true[t] == c and tok.can_be(t, c)), None)
            if real is not None:
                order = [real] + [t for t in order if tok.kind(t) != tok.kind(real)]
        return order

    def play(step: int, ev, t: int | None) -> bool:
        """Apply one logged event, with token ``t`` for a leaving card; False on a contradiction."""
        nonlocal deck_tok
        kind = ev[0]
        if kind == "draw":
            q, c = ev[1], ev[2]
            d = deck_tok.pop()
            if q == me or IS_CURSE[c]:
                if not tok.fix(d, c):
                    return False
            else:
                tok.handable[d] = True
                hand_tok[q].append(d)
        elif kind == "shuffle":
            tok.groups.append(_counts(ev[1]))
            tok.left.append(_counts(ev[1]))
            tok.nfree.append(len(ev[1]))
            grp = len(tok.groups) - 1
            deck_tok = [tok.new(c, grp) for c in ev[1]]
            script.append(("deck", deck_tok[:]))
            for pos, c in will_see[grp - first_rebuilt + 1].items():
                if not tok.fix(deck_tok[pos], c):
                    return False
        elif kind == "move":
            v, a, c, picked = ev[1], ev[2], ev[3], ev[4]
            if v == me:
                t = tok.new(c, None, c, True)
            else:
                hand_tok[v].remove(t)
            if a == me:
                if not tok.fix(t, c):
                    return False
            else:
                hand_tok[a].append(t)
            if picked:
                chosen.append((step, t))
            else:
                script.append(("take", t))
        elif kind == "out":
            if ev[1] != me:
                hand_tok[ev[1]].remove(t)
                return tok.fix(t, ev[2])
        elif kind == "in":
            v, c, k = ev[1], ev[2], ev[3]
            if v != me:
                for _ in range(k):
                    hand_tok[v].append(tok.new(c, None, c, True))
        elif ev[1] == me:  # "look": the seat saw the whole hand
            planned = None if plan is None else {t: plan[1][role.get(t, t)] for t in hand_tok[ev[2]]}
            return _fix_looked(tok, hand_tok[ev[2]], ev[3], mode, planned)
        return True

    role: dict[int, int] = {}  # mode "exact": token -> the solver's token whose part it plays

    def planned(i: int, ev) -> int:
        """The solver's choice at event ``i``, or a token alike to it at random (the same type or
        none, group and past in a hand, in the same hand): such tokens are interchangeable from
        here on, so they swap parts, and the solver's order of alike cards does not stay."""
        s = plan[0][i]
        held = hand_tok[ev[1]]
        r = next(t for t in held if role.get(t, t) == s)
        key = tok.kind(r)
        alike = [t for t in held if tok.kind(t) == key]
        t = alike[int(rng.integers(len(alike)))]
        if t != r:
            role[t], role[r] = s, role.get(t, t)
        return t

    # The choices on the trail by the hand a card left or went into, and by what they used up
    # (each list in event order, so the trail's last choice is last in each of its lists).
    of_hand: list[list[_Choice]] = [[] for _ in range(n)]
    of_used: dict[tuple[int, int], list[_Choice]] = {}

    def choose(entry: _Choice, t: int, step: int, ev) -> bool:
        g, was_free = tok.group[t], tok.fixed[t] is None
        ok = play(step, ev, t)
        # what this choice used up of a group: a free token of it fixed to a type here
        entry.used = (g, tok.fixed[t]) if ok and was_free and g is not None and tok.fixed[t] is not None else None
        return ok

    def push(entry: _Choice) -> None:
        trail.append(entry)
        of_hand[entry.victim].append(entry)
        if entry.taker is not None and entry.taker != entry.victim:
            of_hand[entry.taker].append(entry)
        if entry.used is not None:
            of_used.setdefault(entry.used, []).append(entry)

    def unuse(entry: _Choice) -> None:
        if entry.used is not None:
            of_used[entry.used].pop()
            entry.used = None

    def pop() -> _Choice:
        entry = trail.pop()
        of_hand[entry.victim].pop()
        if entry.taker is not None and entry.taker != entry.victim:
            of_hand[entry.taker].pop()
        unuse(entry)
        return entry

    def causes(v: int, wanted, groups) -> set[int]:
        """The choices on the trail that decided which tokens sit in hand ``v`` (a token taken out
        of it, or moved into it, and then the earlier choices of the hand it came from), and those
        that used up one of the types ``wanted`` in one of ``groups``."""
        out: set[int] = set()
        before = {v: len(flat)}  # hand -> the event before which its choices count
        work = [v]
        while work:
            h = work.pop()
            end = before[h]
            for e in of_hand[h]:
                if e.i >= end:
                    break
                out.add(e.i)
                if e.taker == h and e.victim != h and before.get(e.victim, -1) < e.i:
                    before[e.victim] = e.i  # a card moved in: which one, the giver's choices decided
                    work.append(e.victim)
        for g in groups:
            for c in wanted:
                out.update(e.i for e in of_used.get((g, c), ()))
        return out

    def conflict(ev) -> set[int]:
        """The choices (their event indices) that a contradiction at ``ev`` can come from: those
        that decided which tokens sit in the hand it is about, and those that used up, in the
        groups of that hand's free tokens, a type it needed (``causes``). Anything else (the
        final deal): every choice, latest first. (A draw the seat sees cannot contradict: its
        card was fixed when its deck was made, ``_seen_draws``.)"""
        failed, tok.last_fail = tok.last_fail, None
        kind = None if ev is None else ev[0]
        if kind not in ("out", "move", "look"):
            if ev is None and named_hands:
                # the deal could not hold what ``need`` asks: first the choices of which card left
                # (or went into) a hand it names, since those decide which cards that hand kept
                near = {e.i for e in trail if e.victim in named_hands or e.taker in named_hands}
                if near:
                    return near
            return {e.i for e in trail}
        if kind == "look":
            v, wanted = ev[2], [c for c in range(NUM_TYPES) if ev[3][c]]
        else:
            v, wanted = ev[1], [ev[2] if kind == "out" else ev[3]]
        groups = {tok.group[t] for t in hand_tok[v] if tok.fixed[t] is None}
        if failed is not None:
            groups.add(failed)
        return causes(v, wanted, groups)

    def forced_by(entry: _Choice) -> set[int]:
        """The earlier choices that can have left ``entry``'s hand one token to take (the trail
        ends just before it): those that decided which tokens the hand held, and, for a card
        the seat saw, those that used up that type in the groups of the hand's free tokens then."""
        ev = flat[entry.i][1]
        c = ev[2] if ev[0] == "out" else (ev[3] if ev[2] == me else None)
        return causes(entry.victim, () if c is None else (c,), entry.groups)

    named_hands = set() if need is None else {q for q, w in zip(others, need) if w}
    tok.count_left()
    i = 0
    pending: tuple[_Choice, int] | None = None  # a choice to retry with its next token
    while True:
        budget -= 1
        if budget < 0:
            return None
        at = None
        if pending is not None:
            entry, t = pending
            pending = None
            i = entry.i
            step, at = flat[i]
            ok = choose(entry, t, step, at)
            if entry.used is not None:
                of_used.setdefault(entry.used, []).append(entry)
        elif i == len(flat):
            if need is None:
                types = tok.assign()
            else:
                types = tok.assign_holding([hand_tok[q] for q in others] + [deck_tok], need)
            if types is not None:
                return tok, types, start_hands, start_deck, script, chosen
            ok = False
        else:
            step, at = flat[i]
            cand = options(at)
            if plan is not None and cand is not None:
                cand = [planned(i, at)]
            if cand is None:
                ok = play(step, at, None)
            elif not cand:
                ok = False
            else:
                # (a card with one token it can be is kept too: which token that is follows from
                # earlier choices, which a contradiction it leads to must be able to reach)
                entry = _Choice(i, at, cand[1:], snapshot() if len(cand) > 1 else None)
                if len(cand) == 1:
                    entry.groups = {tok.group[t] for t in hand_tok[entry.victim] if tok.fixed[t] is None}
                ok = choose(entry, cand[0], step, at)
                push(entry)
        if ok:
            i += 1
            continue
        # A contradiction: conflict-directed backjumping. Go back to the latest choice among its
        # possible causes and try that choice's next token; a choice with none left passes the
        # causes on (its own, gathered from every failure that came back to it, and these) to the
        # latest of them. Jumping only to causes, and remembering them, keeps a late failure from
        # retrying every unrelated choice in between (a 6-player game's late positions ran out of
        # budget that way: docs/games/cabula.md, "Resampling").
        conf = conflict(at)
        while True:
            if not conf:
                return None
            k = max(conf)
            while trail[-1].i > k:
                pop()
            entry = trail[-1]
            conf.discard(k)
            if entry.snap is None:  # it had one token to take: the causes of that go on
                pop()
                conf |= forced_by(entry)
                continue
            entry.conf |= conf
            if entry.rest:
                break
            conf = set(entry.conf)
            pop()
        unuse(entry)
        restore(entry.snap)
        pending = (entry, entry.rest.pop(0))


class _Choice:
    """A point of ``_build``'s search: which token left a hand at event ``i``."""

    __slots__ = ("i", "victim", "taker", "rest", "snap", "used", "conf", "groups")

    def __init__(self, i: int, ev, rest: list[int], snap) -> None:
        self.i = i
        self.victim = ev[1]  # the hand the card left
        self.taker = ev[2] if ev[0] == "move" else None  # the hand it went into (a move)
        self.rest = rest  # the tokens still to try
        self.snap = snap  # the search's state before the choice
        self.used: tuple[int, int] | None = None  # (group, type) the choice fixed a free token to
        self.conf: set[int] = set()  # earlier choices that failures coming back here blamed
        self.groups: set[int] = set()  # one token to take: the groups of the hand's free ones then


def _seen_draws(start_size: int, flat: list, me: int) -> list[dict[int, int]]:
    """Per deck (the start's, then each rebuilt one in turn): position -> type of each card the
    seat sees drawn from it (its own draws and every curse). Draws take the deck's last card."""
    decks: list[dict[int, int]] = [{}]
    size = start_size
    for _, ev in flat:
        if ev[0] == "shuffle":
            decks.append({})
            size = len(ev[1])
        elif ev[0] == "draw":
            size -= 1
            if ev[1] == me or IS_CURSE[ev[2]]:
                decks[-1][size] = ev[2]
    return decks


def _fix_looked(tok: _Tokens, held: list[int], hand: list[int], mode: str,
                planned: dict[int, int] | None = None) -> bool:
    """The seat looked at a hand holding the cards ``hand`` (per type): its tokens become those
    cards, fixed ones keeping their type and the free ones taking the rest at random (in mode
    "seen", their real cards when those fit; in mode "exact", the types ``planned``). False when the fixed
    ones do not fit the hand."""
    if planned is not None:
        return all(tok.fix(t, planned[t]) for t in held)
    if mode == "truth" or (mode == "seen" and _counts(tok.true[t] for t in held) == hand
                           and all(tok.can_be(t, tok.true[t]) for t in held)):
        return all(tok.fix(t, tok.true[t]) for t in held)
    rest = hand[:]
    free = []
    for t in held:
        c = tok.fixed[t]
        if c is None:
            free.append(t)
        elif rest[c] > 0:
            rest[c] -= 1
        else:
            return False
    if sum(rest) != len(free):
        return False
    # The rest dealt to the free tokens at random, each a type its group still has. A small
    # search, since a plain shuffle can give a token of a rebuilt deck a type that deck did not
    # hold while another deal fits (2- and 3-player worlds fell back to the real game on that).
    rng = tok.rng
    order = [free[i] for i in rng.permutation(len(free))]
    taken: dict[tuple[int, int], int] = {}  # (group, type) -> given out in this deal
    dealt: list[int] = []
    nodes = [2000]

    def deal(k: int) -> bool:
        nodes[0] -= 1
        if k == len(order):
            return True
        if nodes[0] < 0:
            return False
        g = tok.group[order[k]]
        cards = [c for c in range(NUM_TYPES) for _ in range(rest[c])]
        tried = set()
        for i in rng.permutation(len(cards)):  # a type with the odds of a shuffle of the rest
            c = cards[i]
            if c in tried or (g is not None and tok.left[g][c] - taken.get((g, c), 0) <= 0):
                continue
            tried.add(c)
            rest[c] -= 1
            taken[(g, c)] = taken.get((g, c), 0) + 1
            dealt.append(c)
            if deal(k + 1):
                return True
            dealt.pop()
            taken[(g, c)] -= 1
            rest[c] += 1
        return False

    if not deal(0):
        return False
    return all(tok.fix(t, c) for t, c in zip(order, dealt))


def _clamp_others_knowledge(fields: dict, me: int, n: int, composition: list[int]) -> None:
    """Other seats' knowledge at a (rigged) start is hidden from ``me``: keep it true there. (So is
    a rigged start's public knowledge of the other hands, which a dealt start never has.)"""
    hands = fields["hands"]
    deck = _counts(fields["deck"])
    known = fields["known"]
    for i, kn in enumerate(known):
        v, p = divmod(i, n)
        if p == me or v == me:
            # My hand is the same in the world, so the others' rows about it stay true; my own rows
            # are kept by the world (the seat's knowledge), and the other player's shadow of them
            # becomes a copy of them (true there, and as much as p can know).
            if v == me and p != me:
                for name in ("known", "groups", "groups2", "fresh"):
                    fields["shadow_" + name][i] = copy.deepcopy(fields[name][i])
                if n > 2:  # p's part of my deck_cap: all its draws (with two players, as it was)
                    fields["shadow_spent"][i] = None
            continue
        # a third player's shadow of this row is about a hand that may differ in the world
        fields["shadow_known"][i] = fields["shadow_groups"][i] = fields["shadow_groups2"][i] = None
        fields["shadow_fresh"][i] = 0
        fields["shadow_spent"][i] = None
        fields["groups"][i] = None  # dropping a claim keeps it sound in any world
        fields["groups2"][i] = None
        fields["fresh"][i] = 0
        if kn is None:
            continue
        row = [min(k, h) for k, h in zip(kn, hands[p])]
        known[i] = row if any(row) else None
    if fields["public_fresh"]:  # three players or more: the public rows about the other hands
        for p in range(n):
            if p == me:
                continue
            fields["public_groups"][p] = fields["public_groups2"][p] = None
            fields["public_fresh"][p] = 0
            kn = fields["public_known"][p]
            if kn is not None:
                row = [min(k, h) for k, h in zip(kn, hands[p])]
                fields["public_known"][p] = row if any(row) else None
        if fields["deck_cap_known"]:
            fields["public_cap"] = [max(c, d) for c, d in zip(fields["public_cap"], deck)]
    # The others' generations start from the cards each cannot see, which the world's hands
    # change: they take the world's own start values (mine stay: my hand is the same there).
    free, where = GEN.start(composition, hands, fields["discard"], fields["display"])
    slots = len(fields["gen_free"][me])
    for v in range(n):
        if v != me:
            # a rigged start after a rebuild has more slots: the cards hidden then, as the newest
            fields["gen_free"][v] = [[0] * (2 * NUM_TYPES) for _ in range(slots - 2)] + free[v]
            for p in range(n):
                fields["gen_where"][v * n + p] = where[v * n + p] << (slots - 2)
    for v in range(n):
        if v == me:
            continue
        fields["deck_floor"][v] = [min(f, d) for f, d in zip(fields["deck_floor"][v], deck)]
        if fields["deck_cap_known"]:
            fields["deck_cap"][v] = [max(c, d) for c, d in zip(fields["deck_cap"][v], deck)]
