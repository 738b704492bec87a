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
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kabenvs.games.cabula.cards import IS_CURSE, NUM_TYPES

if TYPE_CHECKING:
    from kabenvs.games.cabula.rules import CabulaState

WILD = NUM_TYPES  # group row: the count of unknown cards in M
R = NUM_TYPES + 1  # group row: how many of M are surely still there
GROUP_LEN = NUM_TYPES + 2


def _normalise(s: "CabulaState", i: int) -> None:
    """A group that claims nothing goes; one whose cards all surely remain becomes certain (and the
    second group, a claim about the hand less ``K``, drops what ``K`` gained)."""
    g = s.groups[i]
    r = g[R]
    size = sum(g[:R])
    if r <= 0 or not any(g[:WILD]):
        s.groups[i] = None
    elif r >= size:
        kn = s.known[i]
        if kn is None:
            kn = s.known[i] = [0] * NUM_TYPES
        for c in range(NUM_TYPES):
            kn[c] += g[c]
        s.groups[i] = None
        g2 = s.groups2[i]
        if g2 is not None:
            # "the hand less K holds r2 of M2"; K gains A: the hand less K + A holds r2 - o of M2 - o,
            # o = the overlap of A and M2 (per type, min(A, M2))
            for c in range(NUM_TYPES):
                o = min(g[c], g2[c])
                g2[c] -= o
                g2[R] -= o
            _normalise2(s, i)


def _normalise2(s: "CabulaState", i: int) -> None:
    """A second group that claims nothing goes. (It never becomes certain: it starts at
    ``(K, |K| - 1)`` and no event raises ``r2`` less ``M2``'s size.)"""
    g2 = s.groups2[i]
    if g2[R] <= 0 or not any(g2[:WILD]):
        s.groups2[i] = None


def seen_leave(s: "CabulaState", v: int, p: int, x: int, size_before: int) -> None:
    """``v`` saw one card of type ``x`` leave ``p``'s hand (played, discarded, or taken by ``v``)."""
    i = v * s.num_players + p
    kn = s.known[i]
    if kn is not None and kn[x]:
        # Exact: the card may also have been a group or a fresh one, but cards of one type are
        # interchangeable, so "K less x" describes every case.
        kn[x] -= 1
        if not any(kn):
            s.known[i] = None
        return
    g = s.groups[i]
    f = s.fresh[i]
    outside = size_before - (sum(kn) if kn is not None else 0) - (g[R] if g is not None else 0)
    surely_fresh = f and outside == f and (g is None or not (g[x] or g[WILD]))
    g2 = s.groups2[i]
    if g2 is not None and g2[x]:  # the same rule for the second group: (M2 - x, r2 - 1)
        g2[x] -= 1
        g2[R] -= 1
        _normalise2(s, i)
    if g is not None:
        if g[x]:  # (M, r) -> (M - x, r - 1): every hand afterwards holds r - 1 of M - x
            g[x] -= 1
            g[R] -= 1
        elif g[WILD] and outside == 0:  # only an unknown card of the group can have been it
            g[WILD] -= 1
            g[R] -= 1
        _normalise(s, i)
    if f:
        s.fresh[i] = f - 1  # it may have been a fresh card: one fewer is sure
        if surely_fresh:  # it was one: it came from the rebuilt deck
            s.deck_cap[v][x] -= 1
            refloor(s, v)


def unseen_leave(s: "CabulaState", v: int, p: int, size_before: int) -> None:
    """A card ``v`` did not see left ``p``'s hand (a crystal ball between two other players): all
    that ``v`` placed there, plus the cards it never saw, form one group with one survivor fewer.
    With both ``K`` (two cards or more) and a group, ``(K, |K| - 1)`` becomes the second group (at
    most one of ``K`` went); a second group already there loses one survivor, or gives way to it."""
    i = v * s.num_players + p
    kn = s.known[i]
    g = s.groups[i]
    s.fresh[i] = 0
    g2 = s.groups2[i]
    if g2 is not None:  # hand less K held r2 of M2, so the hand did; it lost one card
        g2[R] -= 1
        _normalise2(s, i)
    if kn is None and g is None:
        return
    row = (kn[:] if kn is not None else [0] * NUM_TYPES) + [0, 0]
    k_size = sum(kn) if kn is not None else 0
    if g is not None and k_size >= 2:
        s.groups2[i] = kn[:] + [0, k_size - 1]
    r = 0
    if g is not None:
        for c in range(R):
            row[c] += g[c]
        r = g[R]
    outside = size_before - k_size - r
    row[WILD] += outside
    row[R] = k_size + r + outside - 1
    s.known[i] = None
    s.groups[i] = row
    _normalise(s, i)


def plain_gain(s: "CabulaState", v: int, p: int, c: int, k: int = 1) -> None:
    """``v`` saw ``k`` cards of type ``c`` go into ``p``'s hand."""
    i = v * s.num_players + p
    kn = s.known[i]
    if kn is None:
        kn = s.known[i] = [0] * NUM_TYPES
    kn[c] += k


def look(s: "CabulaState", v: int, p: int) -> None:
    """``v`` sees ``p``'s whole hand (two crystal balls): everything is certain now."""
    i = v * s.num_players + p
    hand = s.hands[p]
    s.known[i] = hand[:] if any(hand) else None
    s.groups[i] = None
    s.groups2[i] = None
    s.fresh[i] = 0


def unseen_draw(s: "CabulaState", p: int) -> None:
    """``p`` drew a non-curse card from a rebuilt deck: a fresh card to every other seat."""
    n = s.num_players
    for i in range(p, n * n, n):
        if i != p * n + p:
            s.fresh[i] += 1


def deck_ran_out(s: "CabulaState") -> None:
    """The rebuilt deck is empty (it is about to be rebuilt again): the cards drawn from it unseen
    are the whole of ``deck_cap``, so ``p``'s fresh cards become a group ``(deck_cap, fresh)`` on
    ``p``'s hand when it has none (with one already there, this tie is dropped)."""
    n = s.num_players
    fresh = s.fresh
    for i, f in enumerate(fresh):
        if not f:
            continue
        fresh[i] = 0
        if s.groups[i] is None:
            s.groups[i] = s.deck_cap[i // n][:] + [0, f]
            _normalise(s, i)


def refloor(s: "CabulaState", v: int) -> None:
    """After a rebuild, the floor follows from the cap: the cards drawn unseen (cap less deck) were
    never curses (a curse is shown), so they lower every other type by at most their number."""
    cap = s.deck_cap[v]
    u = sum(cap) - len(s.deck)
    s.deck_floor[v] = [k if IS_CURSE[c] else max(0, k - u) for c, k in enumerate(cap)]


def problems(s: "CabulaState") -> list[str]:
    """What must hold between the knowledge and the hands (called by ``invariants``)."""
    n = s.num_players
    out = []
    deck_size = len(s.deck)
    for v in range(n):
        owed = 0
        for p in range(n):
            i = v * n + p
            g = s.groups[i]
            g2 = s.groups2[i]
            f = s.fresh[i]
            if v == p:
                if g is not None or g2 is not None or f:
                    out.append(f"groups/fresh[{i}]: player {v} has a group about their own hand")
                continue
            hand = s.hands[p]
            kn = s.known[i] or [0] * NUM_TYPES
            rest = sum(hand) - sum(kn)  # cards of p's hand v has no certain claim on
            if g is not None:
                r = g[R]
                held = sum(min(hand[c] - kn[c], g[c]) for c in range(NUM_TYPES))
                if not 1 <= r < sum(g[:R]) or r > rest or held < r - g[WILD] or not any(g[:WILD]):
                    out.append(f"groups[{i}]: player {v}'s group {g} does not hold for player {p}'s "
                               f"hand {hand}")
                rest -= r
            if g2 is not None:
                r2 = g2[R]
                held2 = sum(min(hand[c] - kn[c], g2[c]) for c in range(NUM_TYPES))
                if not 1 <= r2 < sum(g2[:R]) or g2[WILD] or held2 < r2:
                    out.append(f"groups2[{i}]: player {v}'s second group {g2} does not hold for player "
                               f"{p}'s hand {hand}")
            if f and (f > rest or not s.deck_cap_known):
                out.append(f"fresh[{i}]: {f} fresh cards, but only {rest} unplaced cards in player "
                           f"{p}'s hand")
            owed += f
        if s.deck_cap_known and owed > sum(s.deck_cap[v]) - deck_size:
            out.append(f"fresh: player {v} counts {owed} cards drawn from the rebuilt deck, more than "
                       "it lost")
    return out
