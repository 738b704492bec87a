"""What each seat knows about the other hands and the rebuilt deck, and how every event updates it.

The rules engine keeps, for every viewer ``v`` and every other player ``p`` (row ``i = v * n + p``):

- ``known[i]``: ``K``, cards ``v`` is sure ``p`` holds, per type (None: nothing).
- ``groups[i]``: one *group* ``(M, r)`` (None: none): a multiset ``M`` of cards ``v`` once placed in
  ``p``'s hand, per type plus ``M[WILD]`` unknown cards, of which ``r`` are surely still there. What
  it claims (the invariant checks it): ``p``'s hand less ``K`` holds at least ``r - M[WILD]`` cards of
  ``M``'s types, and ``r <= hand size - |K|``. The unknown cards are kept (they change no certainty)
  because they carry the order of events: "saw A, B, C, then a card left, then one was drawn" and
  "saw A, B, C, then one was drawn, then a card left" give ``({A, B, C}, 2)`` and
  ``({A, B, C, ?}, 3)``, and the odds of what the hand holds differ.
- ``groups2[i]``: a second group ``(M2, r2)`` in the same row format, never with unknown cards:
  ``p``'s hand less ``K`` holds at least ``r2`` cards of ``M2``. It is made by an unseen loss from a
  hand where ``v`` holds both ``K`` (two cards or more) and a group: the merged group alone would
  forget that at most one of ``K`` went, so ``(K, |K| - 1)`` is kept next to it.
- ``fresh[i]``: how many of ``p``'s cards outside ``K`` and the group ``v`` knows were drawn, unseen,
  from the current rebuilt deck. ``deck_cap[v]`` (the rebuilt deck's cards less those ``v`` saw
  leave it) minus the deck is exactly the set of cards drawn from it unseen; a card ``p`` then plays
  that can only be one of its fresh cards is one of them, and leaves ``deck_cap`` too.

Every rule below only reads what ``v`` saw, so a resampled world replays the same knowledge. Each
rule is exact or a stated, sound weakening (docs/games/cabula.md, "What is summarised").

The *shadow* (``shadow_known``, ``shadow_groups``, ``shadow_groups2``, ``shadow_fresh``) holds at
row ``v * n + p`` what ``p`` can work out of ``v``'s row about ``p``'s own hand: the rules below run
on it too (a ``Table`` argument says which), fed by the same events, all of which ``p`` sees. Only
``deck_ran_out`` differs: ``v``'s ``deck_cap`` there includes third players' draws, which ``p``
never saw; the shadow's group holds ``p``'s own part of it and counts the rest as unknown cards
(``CabulaState._shadow_cap_of``; docs item 5).

The *public* rows (``public_known``, ``public_groups``, ``public_groups2``, ``public_fresh``, row ``p``
= hand ``p``, and ``public_cap``) are what a viewer who saw only the events everyone sees knows of
each hand: the same rules, fed a card leaving in plain view (``seen_leave``), a card leaving unseen
(``unseen_leave``, a crystal ball: even for the players involved, the others saw it unseen), stars
a cauldron returned (``plain_gain``) and draws from a rebuilt deck (a fresh card). Every player
can follow them, and they are the part of what a player ``j`` knows of a third hand ``k`` that
rests on events I saw as well; kept with three players or more (docs item 5).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kabenvs.games.cabula.cards import IS_CURSE, NUM_TYPES

if TYPE_CHECKING:
    from kabenvs.games.cabula.rules import CabulaState

WILD = NUM_TYPES  # group row: the count of unknown cards in M
R = NUM_TYPES + 1  # group row: how many of M are surely still there
GROUP_LEN = NUM_TYPES + 2

# One knowledge table: (known, groups, groups2, fresh), four lists with one row per (viewer, hand),
# row i = viewer * n + hand. The real table is the state's fields of those names; the *shadow*
# table (the state's shadow_known, shadow_groups, shadow_groups2, shadow_fresh) holds at row i the
# hand owner's reconstruction of real row i, made by the same rules from the events the owner saw.
Table = tuple


def _normalise(t: Table, i: int) -> None:
    """A group that claims nothing goes; one whose cards all surely remain becomes certain (and the
    second group, a claim about the hand less ``K``, drops what ``K`` gained)."""
    known, groups, groups2 = t[0], t[1], t[2]
    g = groups[i]
    r = g[R]
    size = sum(g[:R])
    if r <= 0 or not any(g[:WILD]):
        groups[i] = None
    elif r >= size:
        kn = known[i]
        if kn is None:
            kn = known[i] = [0] * NUM_TYPES
        for c in range(NUM_TYPES):
            kn[c] += g[c]
        groups[i] = None
        g2 = groups2[i]
        if g2 is not None:
            # "the hand less K holds r2 of M2"; K gains A: the hand less K + A holds r2 - o of M2 - o,
            # o = the overlap of A and M2 (per type, min(A, M2))
            for c in range(NUM_TYPES):
                o = min(g[c], g2[c])
                g2[c] -= o
                g2[R] -= o
            _normalise2(t, i)


def _normalise2(t: Table, i: int) -> None:
    """A second group that claims nothing goes. (It never becomes certain: it starts at
    ``(K, |K| - 1)`` and no event raises ``r2`` less ``M2``'s size.)"""
    g2 = t[2][i]
    if g2[R] <= 0 or not any(g2[:WILD]):
        t[2][i] = None


def seen_leave(t: Table, i: int, x: int, size_before: int) -> bool:
    """The viewer of row ``i`` saw one card of type ``x`` leave the hand (played, discarded, or
    taken by the viewer). True when that card can only have been a fresh one: it came from the
    rebuilt deck, and the caller takes it out of the viewer's ``deck_cap`` (or the shadow's cap)."""
    known, groups, groups2, fresh = t
    kn = known[i]
    g = groups[i]
    f = fresh[i]
    if kn is None and g is None and groups2[i] is None:
        # Only fresh cards (the usual row after a rebuild): the general case below, shortened.
        if f:
            fresh[i] = f - 1
            return f == size_before  # every card of the hand was a fresh one
        return False
    if kn is not None and kn[x]:
        # Exact: the card may also have been a group or a fresh one, but cards of one type are
        # interchangeable, so "K less x" describes every case.
        kn[x] -= 1
        if not any(kn):
            known[i] = None
        return False
    outside = size_before - (sum(kn) if kn is not None else 0) - (g[R] if g is not None else 0)
    surely_fresh = f and outside == f and (g is None or not (g[x] or g[WILD]))
    g2 = groups2[i]
    if g2 is not None and g2[x]:  # the same rule for the second group: (M2 - x, r2 - 1)
        g2[x] -= 1
        g2[R] -= 1
        _normalise2(t, i)
    if g is not None:
        if g[x]:  # (M, r) -> (M - x, r - 1): every hand afterwards holds r - 1 of M - x
            g[x] -= 1
            g[R] -= 1
        elif g[WILD] and outside == 0:  # only an unknown card of the group can have been it
            g[WILD] -= 1
            g[R] -= 1
        _normalise(t, i)
    if f:
        fresh[i] = f - 1  # it may have been a fresh card: one fewer is sure
        return bool(surely_fresh)  # if it was one, it came from the rebuilt deck
    return False


def leave_changes_rows(t: Table, i: int, x: int, size_before: int, k: int = 1) -> bool:
    """Whether ``k`` calls ``seen_leave(t, i, x, size_before - j)`` (j = 0 .. k - 1) can change row
    ``i`` of the table's ``known``, ``groups`` or ``groups2`` (its fresh count aside). The
    observation's memoised rows (encoding.py) are dropped on True. Each only loses ``x`` cards, so
    ``K`` or ``M2`` change only if they hold one; the group changes if it holds one, or if only its
    unknown cards can have been the card (nothing outside ``K`` and the group, which happens at
    the j-th card when ``outside == j``), or if ``_normalise`` would change it (a group that is
    not in normal form: only a hand-edited one)."""
    kn = t[0][i]
    if kn is not None and kn[x]:
        return True
    g2 = t[2][i]
    if g2 is not None and g2[x]:
        return True
    g = t[1][i]
    if g is None:
        return False
    if g[x]:
        return True
    r = g[R]
    if g[WILD] and size_before - (sum(kn) if kn is not None else 0) - r < k:
        return True
    return r <= 0 or r >= sum(g[:R]) or not any(g[:WILD])


def unseen_leave(t: Table, i: int, size_before: int) -> None:
    """A card the viewer of row ``i`` did not see left the hand (a crystal ball between two other
    players): all that the viewer placed there, plus the cards it never saw, form one group with
    one survivor fewer. With both ``K`` (two cards or more) and a group, ``(K, |K| - 1)`` becomes
    the second group (at most one of ``K`` went); a second group already there loses one
    survivor, or gives way to it."""
    known, groups, groups2, fresh = t
    kn = known[i]
    g = groups[i]
    fresh[i] = 0
    g2 = groups2[i]
    if g2 is not None:  # hand less K held r2 of M2, so the hand did; it lost one card
        g2[R] -= 1
        _normalise2(t, i)
    if kn is None and g is None:
        return
    row = (kn[:] if kn is not None else [0] * NUM_TYPES) + [0, 0]
    k_size = sum(kn) if kn is not None else 0
    if g is not None and k_size >= 2:
        groups2[i] = kn[:] + [0, k_size - 1]
    r = 0
    if g is not None:
        for c in range(R):
            row[c] += g[c]
        r = g[R]
    outside = size_before - k_size - r
    row[WILD] += outside
    row[R] = k_size + r + outside - 1
    known[i] = None
    groups[i] = row
    _normalise(t, i)


def plain_gain(t: Table, i: int, c: int, k: int = 1) -> None:
    """The viewer of row ``i`` saw ``k`` cards of type ``c`` go into the hand."""
    known = t[0]
    kn = known[i]
    if kn is None:
        kn = known[i] = [0] * NUM_TYPES
    kn[c] += k


def look(t: Table, i: int, hand: list[int]) -> None:
    """The viewer of row ``i`` sees the whole hand (two crystal balls): everything is certain now."""
    t[0][i] = hand[:] if any(hand) else None
    t[1][i] = None
    t[2][i] = None
    t[3][i] = 0


def unseen_draw(fresh: list[int], n: int, p: int) -> None:
    """``p`` drew a non-curse card from a rebuilt deck: a fresh card to every other seat (in a
    table's ``fresh`` column: the only one a draw changes)."""
    for i in range(p, n * n, n):
        if i != p * n + p:
            fresh[i] += 1


def deck_ran_out(t: Table, cap_of) -> None:
    """The rebuilt deck is empty (it is about to be rebuilt again): the cards drawn from it unseen
    by the viewer of row ``i`` are ``cap_of(i)`` (per type, then unknown cards), so the hand's
    fresh cards become a group ``(cap_of(i), fresh)`` when it has none (with one already there,
    this tie is dropped). For the real rows that is the viewer's ``deck_cap``; for the shadow, the
    part of it the hand's owner can work out (``CabulaState._shadow_cap_of``)."""
    fresh, groups = t[3], t[1]
    for i, f in enumerate(fresh):
        if not f:
            continue
        fresh[i] = 0
        if groups[i] is None:
            groups[i] = cap_of(i, f) + [f]
            _normalise(t, i)


def public_fields(n: int) -> tuple[list, list, list, list, list]:
    """The public rows at a start where nothing happened yet: ``public_known``, ``public_groups``,
    ``public_groups2``, ``public_fresh`` (one row per hand) and ``public_cap``; empty lists with two
    players (there is no third hand, so they are not kept)."""
    if n < 3:
        return [], [], [], [], []
    return [None] * n, [None] * n, [None] * n, [0] * n, [0] * NUM_TYPES


def refloor(s: "CabulaState", v: int) -> None:
    """After a rebuild, the floor follows from the cap: the cards drawn unseen (cap less deck) were
    never curses (a curse is shown), so they lower every other type by at most their number."""
    cap = s.deck_cap[v]
    u = sum(cap) - len(s.deck)
    s.deck_floor[v] = [k if IS_CURSE[c] else max(0, k - u) for c, k in enumerate(cap)]


def _claims(t: Table, name: str, i: int, who: str, p: int, hand: list[int], rebuilt: bool,
            out: list[str]) -> None:
    """Row ``i`` of table ``t`` (``name``: "" for the real table, "shadow_" for the shadow,
    "public_" for the public rows; ``who``: whose knowledge it is, for the messages) makes only
    true claims about ``p``'s hand: its groups hold, its fresh cards fit (and need a rebuilt
    deck)."""
    known, groups, groups2, fresh = t
    g = groups[i]
    g2 = groups2[i]
    f = fresh[i]
    kn = known[i] or [0] * NUM_TYPES
    rest = sum(hand) - sum(kn)  # cards of p's hand v has no certain claim on
    if g is not None:
        r = g[R]
        held = sum(min(hand[c] - kn[c], g[c]) for c in range(NUM_TYPES))
        if not 1 <= r < sum(g[:R]) or r > rest or held < r - g[WILD] or not any(g[:WILD]):
            out.append(f"{name}groups[{i}]: {who}'s group {g} does not hold for player {p}'s "
                       f"hand {hand}")
        rest -= r
    if g2 is not None:
        r2 = g2[R]
        held2 = sum(min(hand[c] - kn[c], g2[c]) for c in range(NUM_TYPES))
        if not 1 <= r2 < sum(g2[:R]) or g2[WILD] or held2 < r2:
            out.append(f"{name}groups2[{i}]: {who}'s second group {g2} does not hold for player "
                       f"{p}'s hand {hand}")
    if f and (f > rest or not rebuilt):
        out.append(f"{name}fresh[{i}]: {f} fresh cards, but only {rest} unplaced cards in player "
                   f"{p}'s hand")


def problems(s: "CabulaState") -> list[str]:
    """What must hold between the knowledge and the hands (called by ``invariants``)."""
    n = s.num_players
    out: list[str] = []
    deck_size = len(s.deck)
    t = (s.known, s.groups, s.groups2, s.fresh)
    for v in range(n):
        owed = 0
        for p in range(n):
            i = v * n + p
            if v == p:
                if s.groups[i] is not None or s.groups2[i] is not None or s.fresh[i]:
                    out.append(f"groups/fresh[{i}]: player {v} has a group about their own hand")
                continue
            _claims(t, "", i, f"player {v}", p, s.hands[p], s.deck_cap_known, out)
            owed += s.fresh[i]
        if s.deck_cap_known and owed > sum(s.deck_cap[v]) - deck_size:
            out.append(f"fresh: player {v} counts {owed} cards drawn from the rebuilt deck, more than "
                       "it lost")
    return out


def shadow_problems(s: CabulaState) -> list[str]:
    """What must hold for the shadow table (called by ``invariants``): its rows make only true
    claims about the owner's hand; its certain cards are among the real row's and its fresh count
    at most the real one (it is the real row's rules on the part of the viewer's sightings the
    owner shares: it never knows more); with two players it *is* the real row, and the owner's
    part of the viewer's ``deck_cap`` is all of it less the deck. No viewer lost sight of more
    cards of the rebuilt deck than the other players drew from it."""
    n = s.num_players
    out: list[str] = []
    shadow = (s.shadow_known, s.shadow_groups, s.shadow_groups2, s.shadow_fresh)
    rebuilt = s.deck_cap_known
    drawn = [sum(row) for row in s.rebuilt_drawn]
    if not rebuilt and (any(drawn) or s.shadow_spent.count(None) != n * n):
        out.append("rebuilt_drawn/shadow_spent: cards drawn from a rebuilt deck, but the deck was never rebuilt")
    deck = None
    for v in range(n):
        if rebuilt and sum(s.deck_cap[v]) - len(s.deck) > sum(drawn) - drawn[v]:
            out.append(f"rebuilt_drawn: player {v} lost sight of more cards of the rebuilt deck than "
                       f"the others drew ({drawn})")
        for p in range(n):
            i = v * n + p
            kn, spent = s.shadow_known[i], s.shadow_spent[i]
            if v == p:
                if (kn is not None or s.shadow_groups[i] is not None or s.shadow_groups2[i] is not None
                        or s.shadow_fresh[i] or spent is not None):
                    out.append(f"shadow_*[{i}]: player {p} shadows its own knowledge of its own hand")
                continue
            hand = s.hands[p]
            if kn is not None and (not any(kn) or any(k > h for k, h in zip(kn, hand))):
                out.append(f"shadow_known[{i}]: claims cards player {p} does not hold (or an empty row)")
            _claims(shadow, "shadow_", i, f"player {v}", p, hand, rebuilt, out)
            cap = s.shadow_cap(i)
            if min(cap) < 0 or sum(cap) < s.shadow_fresh[i]:
                out.append(f"shadow_spent[{i}]: player {p}'s part of player {v}'s deck_cap, {cap}, is "
                           f"negative or smaller than its fresh cards ({s.shadow_fresh[i]})")
            real = s.known[i] or [0] * NUM_TYPES
            if kn is not None and any(k > r for k, r in zip(kn, real)):
                out.append(f"shadow_known[{i}]: player {p} credits player {v} with certain cards it "
                           f"does not know ({kn} against {real})")
            if s.shadow_fresh[i] > s.fresh[i]:
                out.append(f"shadow_fresh[{i}]: more fresh cards than player {v} knows of")
            if n == 2:
                if (s.shadow_known[i], s.shadow_groups[i], s.shadow_groups2[i], s.shadow_fresh[i]) != (
                        s.known[i], s.groups[i], s.groups2[i], s.fresh[i]):
                    out.append(f"shadow_*[{i}]: with two players the shadow is the real row")
                if rebuilt:
                    if deck is None:
                        deck = [0] * NUM_TYPES
                        for c in s.deck:
                            deck[c] += 1
                    if [d + m for d, m in zip(deck, cap)] != s.deck_cap[v]:
                        out.append(f"shadow_spent[{i}]: with two players, player {p}'s part of "
                                   f"deck_cap[{v}] is all of it less the deck")
    return out


def public_problems(s: CabulaState) -> list[str]:
    """What must hold for the public rows (called by ``invariants``): none with two players; with
    more, their claims are true, their certain cards are among every other player's (each saw the
    events they rest on) and held, and the fresh cards they count were drawn from the rebuilt
    deck less what everyone saw leave it."""
    n = s.num_players
    fields = (s.public_known, s.public_groups, s.public_groups2, s.public_fresh)
    if n < 3:
        if any(fields) or s.public_cap:
            return ["public_*: kept only with three players or more (empty lists with two)"]
        return []
    out: list[str] = []
    if any(len(f) != n for f in fields) or len(s.public_cap) != NUM_TYPES:
        return [f"public_*: one row per player ({n}), and public_cap one count per card type"]
    rebuilt = s.deck_cap_known
    if not rebuilt and any(s.public_cap):
        out.append("public_cap: cards of a rebuilt deck, but the deck was never rebuilt")
    owed = 0
    for p in range(n):
        hand = s.hands[p]
        kn = s.public_known[p]
        if kn is not None:
            if not any(kn) or any(k > h for k, h in zip(kn, hand)):
                out.append(f"public_known[{p}]: claims cards player {p} does not hold (or an empty row)")
            for v in range(n):
                real = s.known[v * n + p] or [0] * NUM_TYPES
                if v != p and any(k > r for k, r in zip(kn, real)):
                    out.append(f"public_known[{p}]: more certain cards than player {v} knows of "
                               f"({kn} against {real})")
        _claims(fields, "public_", p, "everyone", p, hand, rebuilt, out)
        owed += s.public_fresh[p]
    if rebuilt and owed > sum(s.public_cap) - len(s.deck):
        out.append(f"public_fresh: {owed} cards counted as drawn from the rebuilt deck, more than it lost "
                   "to everyone's sight")
    return out
