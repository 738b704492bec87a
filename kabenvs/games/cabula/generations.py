"""What a seat can work out by putting hands together: the cards hidden from it, by *generation*.

The knowledge rows (knowledge.py) are kept hand by hand. But the cards a seat ``v`` cannot see
came in batches whose contents it knows: at the start, every card not in its hand (the
*start* generation); at each rebuild, the discard pile the new deck was made of. Each hidden card
(in another hand or in the deck) belongs to the generation it was hidden in, and ``v`` can count
what each generation still hides: a card seen leaving a hand that can only hold cards of one
generation of that type is one fewer of that generation. That count is what lets a seat conclude,
say, that of the cards hidden at the start only a double star is left, and that the one hand still
holding cards from that time holds it (docs/games/cabula.md, "What is summarised", item 8), which
no row about a single hand says. (The observation holds the counts; ``implied`` works out the
certain cards they give, for the text view.)

Per viewer ``v`` (``state.gen_free[v]``, a list of *slots*, each ``lo`` then ``hi``, one count per
card type): slot 0 holds the cards in other hands whose type ``v`` saw (taken from ``v``, returned
by a cauldron, seen with two crystal balls): not hidden in type, but of no generation any more,
which a card seen leaving may also have been; slots 1.. the generations, oldest first, the last
being the current deck's. Each slot's true
count of a type lies between its ``lo`` and ``hi``. ``state.gen_where[v * n + p]`` is a bit mask:
slot ``k`` is set when ``p``'s hand may hold a card of slot ``k``.

Events (all seen by ``v``; nothing here reads what ``v`` did not see, so a resampled world replays
the same rows):

- a card of type ``x`` seen leaving ``p``'s hand (played, discarded, taken by ``v``): it is of a
  slot ``p`` may hold with ``hi[x] > 0``. One such slot: that slot's ``x`` is one fewer (exact).
  Several: each one's ``lo`` drops by one (it may have been that one), ``hi`` stays;
- ``v`` draws a card, or anyone draws a curse (shown): one fewer of the current generation (the
  deck only holds its cards); another player draws unseen: its hand may hold the current
  generation;
- a card taken between two other players unseen: the taker may hold whatever the victim may;
- a card seen going into ``p``'s hand: slot 0 gains it, ``p`` may hold slot 0;
- ``v`` looks at ``p``'s hand: each card leaves its slot as a card seen leaving would, and joins
  slot 0; the hand may hold slot 0 only (so the generations it held before are no longer its:
  what lets ``v`` conclude where the rest of a generation is);
- the deck rebuilt: a new generation, the pile. More than ``SLOTS`` generations: the two oldest
  merge (their counts add, and a hand that may hold either may hold the merged one: sound; a
  third rebuilt deck comes in 13% of random 2-player games and 41% at 6 players);
- a hand that is empty holds no slot.

Every update is exact or a sound weakening (a lower ``lo``, a mask bit that stays), so the true
split always lies within the bounds (``problems`` checks what can be checked without knowing
which card of a type left).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kabenvs.games.cabula.cards import DOUBLE, HAND_TYPES, IS_CURSE, NUM_TYPES, STAR

if TYPE_CHECKING:
    from kabenvs.games.cabula.rules import CabulaState

SLOTS = 3  # generations kept apart; the oldest two merge beyond this
T = NUM_TYPES
SEEN = 1  # mask bit of slot 0: the cards in other hands whose type the viewer saw


def start(composition: list[int], hands: list[list[int]], discard: list[int],
          display: list[list[int]]) -> tuple[list, list]:
    """``gen_free`` and ``gen_where`` where nothing happened yet but the table: one generation per
    viewer, the cards it cannot see; every other non-empty hand may hold it."""
    n = len(hands)
    out = discard[:]
    for d in display:
        out[STAR] += d[0]
        out[DOUBLE] += d[1]
    free = []
    for v in range(n):
        hidden = [composition[c] - out[c] - hands[v][c] for c in range(T)]
        free.append([[0] * (2 * T), hidden + hidden])
    where = [0 if v == p or not any(hands[p]) else 2 for v in range(n) for p in range(n)]
    return free, where


def _attribute(slots: list, mask: int, x: int) -> None:
    """A card ``x`` seen leaving a hand that may hold the slots in ``mask``: every slot it may have
    come from (one the hand may hold, that may still hide an ``x``) has one ``x`` fewer at least;
    when only one could, exactly one fewer."""
    tx = T + x
    first = None
    several = False
    k = 0
    while mask:  # (a bit walk: this runs for every viewer at every card played)
        if mask & 1:
            slot = slots[k]
            if slot[tx]:
                if first is None:
                    first = slot
                else:
                    several = True
                    if slot[x]:
                        slot[x] -= 1
        mask >>= 1
        k += 1
    if first is not None:
        if first[x]:
            first[x] -= 1
        if not several:
            first[tx] -= 1


def seen_leave(s: "CabulaState", p: int, x: int, k: int, size_after: int) -> None:
    """Everyone saw ``k`` cards ``x`` leave ``p``'s hand."""
    n = s.num_players
    where = s.gen_where
    for v in range(n):
        if v != p:
            i = v * n + p
            slots = s.gen_free[v]
            for j in range(k):
                _attribute(slots, where[i], x)
            if not size_after:
                where[i] = 0


def moved(s: "CabulaState", victim: int, taker: int, x: int, size_after: int) -> None:
    """A crystal ball moved a card ``x`` from ``victim`` to ``taker``: the taker saw it leave, the
    victim saw it go in, the others saw a card of the victim's go to the taker."""
    n = s.num_players
    where = s.gen_where
    for v in range(n):
        if v == taker:
            _attribute(s.gen_free[v], where[v * n + victim], x)
        elif v == victim:
            s.gen_free[v][0][x] += 1
            s.gen_free[v][0][T + x] += 1
            where[v * n + taker] |= SEEN
        else:
            where[v * n + taker] |= where[v * n + victim]
        if v != victim and not size_after:
            where[v * n + victim] = 0


def drew(s: "CabulaState", p: int, c: int) -> None:
    """``p`` drew ``c`` from the deck (before a rebuild its emptying causes)."""
    n = s.num_players
    if IS_CURSE[c]:  # shown to everyone
        for v in range(n):
            cur = s.gen_free[v][-1]
            cur[T + c] -= 1
            if cur[c]:
                cur[c] -= 1
        return
    cur = s.gen_free[p][-1]
    cur[T + c] -= 1
    if cur[c]:
        cur[c] -= 1
    bit = 1 << (len(s.gen_free[p]) - 1)  # every viewer has as many slots
    where = s.gen_where
    for i in range(p, n * n, n):
        if i != p * n + p:
            where[i] |= bit


def looked(s: "CabulaState", v: int, p: int, hand: list[int]) -> None:
    """``v`` looked at ``p``'s whole hand (two crystal balls): every card there is now one whose
    type ``v`` saw, whatever batch it came from: each leaves its slot (as a card seen leaving
    would) and joins slot 0; the hand may hold slot 0 only, until it gains more."""
    slots = s.gen_free[v]
    i = v * s.num_players + p
    mask = s.gen_where[i]
    seen = slots[0]
    for x in HAND_TYPES:
        k = hand[x]
        if k:
            for _ in range(k):
                _attribute(slots, mask, x)
            seen[x] += k
            seen[T + x] += k
    s.gen_where[i] = SEEN if any(hand) else 0


def gained(s: "CabulaState", p: int, c: int, k: int) -> None:
    """Everyone saw ``k`` cards ``c`` go into ``p``'s hand (a cauldron)."""
    n = s.num_players
    for v in range(n):
        if v != p:
            seen = s.gen_free[v][0]
            seen[c] += k
            seen[T + c] += k
            s.gen_where[v * n + p] |= SEEN


def rebuilt(s: "CabulaState", pile: list[int]) -> None:
    """A new deck from the discard pile ``pile`` (counts): a new generation for every viewer."""
    n = s.num_players
    merge = len(s.gen_free[0]) - 1 >= SLOTS
    for v in range(n):
        slots = s.gen_free[v]
        if merge:  # slots 1 and 2 (the oldest generations) become one
            a, b = slots[1], slots[2]
            slots[1:3] = [[x + y for x, y in zip(a, b)]]
        slots.append(pile + pile)
    if merge:
        where = s.gen_where
        for i, m in enumerate(where):
            # bit 1 | bit 2 -> bit 1; bits 3.. move down by one
            where[i] = (m & 1) | (2 if m & 6 else 0) | ((m >> 1) & ~3)


def implied(s: "CabulaState", v: int, p: int) -> list[int]:
    """Cards ``v`` can be sure ``p``'s hand holds by counting (per type): a slot that is not the
    deck's (the cards seen going into hands, or a generation whose deck ran out) hides its cards
    in hands only, so when ``p``'s is the only other hand that may hold it, ``p`` holds at least
    that slot's least of each type. (Read by the text view; the observation holds the counts.)"""
    n = s.num_players
    slots = s.gen_free[v]
    where = s.gen_where
    out = [0] * T
    for k in range(len(slots) - 1):  # every slot but the current deck's
        bit = 1 << k
        if where[v * n + p] & bit and not any(where[v * n + q] & bit for q in range(n) if q != p):
            out = [a + b for a, b in zip(out, slots[k][:T])]
    return out


def problems(s: "CabulaState") -> list[str]:
    """What can be checked without knowing which card of a type left: every viewer has as many
    slots (at most ``SLOTS`` generations), ``lo <= hi``; the deck holds no more of a type than
    the current generation may hide; all slots' ``lo`` together are no more than the cards of that
    type hidden from the viewer, and all their ``hi`` together no fewer; a hand that holds cards
    may hold some slot, an empty one none, and it holds no more of a type than the slots it may
    hold may hide together."""
    n = s.num_players
    out: list[str] = []
    free, where = s.gen_free, s.gen_where
    if len(free) != n or len({len(slots) for slots in free}) != 1 or not 2 <= len(free[0]) <= SLOTS + 1:
        return [f"gen_free: one list of 2..{SLOTS + 1} slots per player, as many for each"]
    deck = [0] * T
    for c in s.deck:
        deck[c] += 1
    for v in range(n):
        slots = free[v]
        hidden = deck[:]
        for p in range(n):
            if p != v:
                hidden = [a + b for a, b in zip(hidden, s.hands[p])]
        for k, slot in enumerate(slots):
            if any(slot[c] > slot[T + c] for c in range(T)):
                out.append(f"gen_free[{v}][{k}]: a lower bound above its upper bound: {slot}")
        cur = slots[-1]
        if any(deck[c] > cur[T + c] for c in range(T)):
            out.append(f"gen_free[{v}]: the deck {deck} holds more than the current generation may {cur[T:]}")
        for c in range(T):
            lo = sum(slot[c] for slot in slots)
            hi = sum(slot[T + c] for slot in slots)
            if lo > hidden[c] or hi < hidden[c]:
                out.append(f"gen_free[{v}]: {hidden[c]} cards of type {c} hidden from player {v}, outside the "
                           f"generations' bounds {lo}..{hi}")
        for p in range(n):
            m = where[v * n + p]
            hand = s.hands[p]
            if p == v and m:
                out.append(f"gen_where[{v * n + p}]: player {v} places its own hand")
            elif p != v and bool(m) != bool(any(hand)) or m >> len(slots):
                out.append(f"gen_where[{v * n + p}]: mask {m} for player {p}'s hand {hand}")
            elif p != v:
                # every card of the hand is of a slot the hand may hold, which may still hide it
                room = [sum(slot[T + c] for k, slot in enumerate(slots) if m >> k & 1) for c in range(T)]
                if any(h > r for h, r in zip(hand, room)):
                    out.append(f"gen_where[{v * n + p}]: player {p}'s hand {hand} does not fit the slots "
                               f"player {v} lets it hold (at most {room})")
    return out
