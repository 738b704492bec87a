"""Cábula's information state: the observation vector and ``resample_hidden``.

Both read the same things: the seat's own hand, the public table (displays, hand sizes, discard
pile, deck size, the pending decision) and the seat's certain knowledge kept by the rules engine
(``known_cards(me, other)``: cards it is sure another hand holds; ``groups``: cards of which some
surely remain there, and ``groups2``, a second such group kept at some unseen losses; ``fresh``:
its cards drawn from the rebuilt deck; ``deck_floor``/``deck_cap``: what it is sure the deck holds
at least / at most; knowledge.py). ``resample_hidden`` lives in resample.py.
"""

from __future__ import annotations

from itertools import compress
from typing import TYPE_CHECKING

import numpy as np

from kabenvs.core.observation import copy_rotated
from kabenvs.games.cabula.cards import ATTACK_KINDS, NUM_TYPES
from kabenvs.games.cabula.generations import SLOTS as GEN_SLOTS

if TYPE_CHECKING:
    from kabenvs.games.cabula.rules import CabulaState

_DECISION_INDEX = {"main": 0, "target": 1, "respond": 2, "redirect": 3, "star": 4, "necro": 5, "take": 6}
_REASON_INDEX = {"witch": 0, "prank": 1, "rob": 2, "chaos_lose": 3, "chaos_give": 4, "cauldron": 5}
_TYPES = range(NUM_TYPES)


def _write_counts(mv: memoryview, base: int, counts: list[int], values: list[list[float]]) -> None:
    """One count per card type, ``values[c][counts[c]]`` (the count scaled: the game's
    ``scaled_counts`` or ``fifth_counts``) at ``base + c``; zeros are left as they are (the
    vector starts zeroed). The nonzero types are picked in C (compress): most of the 14 counts of
    a hand, the discard pile or the deck's bounds are 0, and a Python loop testing each cost more
    than the stores."""
    for c in compress(_TYPES, counts):
        mv[base + c] = values[c][counts[c]]


def _write_rows(mv: memoryview, rows: list, me: int, shift: int, base: int, width: int,
                count: int | None) -> bool:
    """Knowledge rows, one per seat ``p`` (None: nothing known), written at the seat-relative row
    ``(p - me) % n - shift`` of a block ``width`` wide: each entry / 5, then (``count`` given) the
    group's "surely remain" count. One writer for my rows about the other hands (shift 0, row 0
    unused) and for the shadow rows about mine (shift 1: other players only). True when it wrote
    a row."""
    n = len(rows)
    if rows.count(None) == n:  # the usual case, skipped at C speed
        return False
    for p, row in enumerate(rows):
        if row is not None:
            r = (p - me) % n - shift
            b = base + r * width
            for c in range(width):
                k = row[c]
                if k:
                    mv[b + c] = k * 0.2
            if count is not None:
                mv[count + r] = row[NUM_TYPES + 1] * 0.2
    return True


def _encode_knowledge(state: CabulaState, me: int, buf: np.ndarray, mv: memoryview) -> None:
    """What I know of each other hand (rows ``me * n + p``, knowledge.py), then what the others
    know of mine (``_encode_shadow``), through the one row writer; then the fresh counts and the
    draws from a rebuilt deck.

    The rows of the knowledge tables change far less often than the fresh counts and the
    rebuilt-deck draws: my rows (``known``, ``groups``, ``groups2``) and the shadow rows about my
    hand are memoised per seat, each on its own (``state._known_memo``, ``state._shadow_memo``:
    the span ``game.known_span`` / ``game.shadow_span`` of the vector, or False when it is all
    zero; each changes without the other most of the time). The rules drop a seat's memo
    whenever they change one of its rows (``CabulaState._rows_changed``) and ``_reset_caches``
    drops them whole. Their_fresh, inside the shadow span, is written after the copy (the memo
    holds zeros there)."""
    n = state.num_players
    o = state.game.obs_offsets
    T = NUM_TYPES
    memo = state._known_memo
    seg = memo.get(me)
    if seg is None:
        mine = slice(me * n, me * n + n)
        # The second groups never hold unknown cards: their rows have one column fewer.
        wrote = _write_rows(mv, state.known[mine], me, 0, o["known_hands"], T, None)
        wrote |= _write_rows(mv, state.groups[mine], me, 0, o["maybe_hands"], T + 1, o["maybe_count"])
        wrote |= _write_rows(mv, state.groups2[mine], me, 0, o["maybe2_hands"], T, o["maybe2_count"])
        lo, hi = state.game.known_span
        memo[me] = buf[lo:hi].copy() if wrote else False
    elif seg is not False:
        lo, hi = state.game.known_span
        buf[lo:hi] = seg
    memo = state._shadow_memo
    seg = memo.get(me)
    if seg is None:
        lo, hi = state.game.shadow_span
        memo[me] = buf[lo:hi].copy() if _encode_shadow(state, me, mv) else False
    elif seg is not False:
        lo, hi = state.game.shadow_span
        buf[lo:hi] = seg
    row0 = me * n
    fresh = state.fresh
    if any(fresh):
        fr = o["fresh"]
        for p in range(n):
            if fresh[row0 + p]:
                mv[fr + (p - me) % n] = fresh[row0 + p] * 0.2
    _encode_generations(state, me, mv)
    if state.deck_cap_known:  # fresh cards and draws from a rebuilt deck need one
        _encode_rebuilt(state, me, mv)
    if state.public_fresh:  # three players or more
        _encode_public(state, me, buf)


def _encode_generations(state: CabulaState, me: int, mv: memoryview) -> None:
    """The cards hidden from me by generation (generations.py): each slot's least and most of
    every type, the cards seen going into a hand first, then the generations newest first (the
    current deck's at row 1); per other hand, seat-relative, which rows it may hold; how many
    generations are kept. Written at every observation (a card played anywhere changes the
    counts, a draw the masks). Plain index loops: with the static types of encoding.pxd they
    compile to C loops (compress, faster in pure Python, is a Python iterator there)."""
    o = state.game.obs_offsets
    inv = state.game.inv_comp_twice  # inv_comp_list twice: the lo half, then the hi half
    slots = state.gen_free[me]
    last = len(slots) - 1
    base = o["gen_free"]
    T2 = 2 * NUM_TYPES
    for k in range(last + 1):
        slot = slots[k]
        b = base + (0 if k == 0 else last - k + 1) * T2
        for c in range(T2):
            v = slot[c]
            if v:
                mv[b + c] = v * inv[c]
    n = state.num_players
    wb = o["gen_where"]
    where = state.gen_where
    for p in range(n):
        m = where[me * n + p]
        if m:
            b = wb + ((p - me) % n) * (GEN_SLOTS + 1)
            for k in range(last + 1):
                if m >> k & 1:
                    mv[b + (0 if k == 0 else last - k + 1)] = 1.0
    mv[o["gen_count"]] = last / GEN_SLOTS


def _public_row(row: np.ndarray, kn, g, g2, f: int) -> None:
    """One hand's public row (layout block ``public_hands``), each entry / 5: the certain cards
    (14), the group (14 types, unknown cards, count: ``g`` as kept), the second group's types (14)
    and count (it never holds unknown cards), the fresh count (the rules also set this last entry
    in place at a draw)."""
    row[:] = 0.0
    T = NUM_TYPES
    mv = memoryview(row)
    for base, counts in ((0, kn), (T, g), (2 * T + 2, g2)):
        if counts is None:
            continue
        for c in range(T):
            k = counts[c]
            if k:
                mv[base + c] = k * 0.2
        if base == T:
            mv[base + T] = counts[T] * 0.2  # unknown cards
            mv[base + T + 1] = counts[T + 1] * 0.2
        elif base:
            mv[base + T] = counts[T + 1] * 0.2
    if f:
        mv[3 * T + 3] = f * 0.2


def _encode_public(state: CabulaState, me: int, buf: np.ndarray) -> None:
    """What everyone knows of each hand (the public rows, knowledge.py), seat-relative with my
    hand at row 0. Every seat reads the same rows, only rotated: they are encoded once per state
    in absolute order (``state._public_enc``: a row is re-encoded when the rules mark its hand in
    ``state._public_dirty``, and a draw sets its fresh entry in place), and each observation
    copies them in two slices. The public view of the rebuilt deck is encoded once too
    (``state._public_cap_enc``, None when it changed)."""
    g = state.game
    enc = state._public_enc
    if enc is None:
        n = state.num_players
        enc = state._public_enc = np.zeros((n, g.public_width), dtype=np.float32)
        state._public_flat = enc.reshape(-1)
        state._public_dirty = set(range(n))
    dirty = state._public_dirty
    if dirty:
        kn, gr, gr2, fr = state.public_known, state.public_groups, state.public_groups2, state.public_fresh
        for p in dirty:
            _public_row(enc[p], kn[p], gr[p], gr2[p], fr[p])
        dirty.clear()
    copy_rotated(buf, g.public_lo, state._public_flat, g.public_width, me)  # my row first
    if state.deck_cap_known:
        cap = state._public_cap_enc
        if cap is None:
            inv = g.inv_comp_list  # the same values as deck_cap's (a double, then float32)
            cap = state._public_cap_enc = np.array([k * inv[c] for c, k in enumerate(state.public_cap)],
                                                   dtype=np.float32)
        base = g.obs_offsets["public_deck_cap"]
        buf[base:base + NUM_TYPES] = cap


def _encode_shadow(state: CabulaState, me: int, mv: memoryview) -> bool:
    """What each other player ``j`` knows of my hand, as far as I can tell: the shadow rows
    ``j * n + me`` (knowledge.py), in the row of the player ``k`` seats clockwise at ``k - 1``,
    and what each found was fresh when it left my hand (``their_spent``). True when it wrote a
    row."""
    n = state.num_players
    o = state.game.obs_offsets
    T = NUM_TYPES
    theirs = slice(me, n * n, n)
    wrote = _write_rows(mv, state.shadow_known[theirs], me, 1, o["their_known"], T, None)
    wrote |= _write_rows(mv, state.shadow_groups[theirs], me, 1, o["their_maybe"], T + 1,
                         o["their_maybe_count"])
    wrote |= _write_rows(mv, state.shadow_groups2[theirs], me, 1, o["their_maybe2"], T,
                         o["their_maybe2_count"])
    wrote |= _write_rows(mv, state.shadow_spent[theirs], me, 1, o["their_spent"], T, None)
    return wrote


def _encode_rebuilt(state: CabulaState, me: int, mv: memoryview) -> None:
    """After a rebuild: the fresh cards each other player counts in my hand, my part of their
    ``deck_cap``: my draws from the rebuilt deck (once, for all of them; less ``their_spent``),
    and everyone's number of draws."""
    n = state.num_players
    o = state.game.obs_offsets
    fresh = state.shadow_fresh[me:n * n:n]
    if any(fresh):
        base = o["their_fresh"]
        for j, f in enumerate(fresh):
            if f:
                mv[base + (j - me) % n - 1] = f * 0.2
    _write_counts(mv, o["my_rebuilt_draws"], state.rebuilt_drawn[me], state.game.fifth_counts)
    base = o["rebuilt_draws"]
    inv_total = 1.0 / state.game.total_cards
    totals = state._rebuilt_totals  # sum(row) of each rebuilt_drawn row, kept by the rules
    if totals is None:
        totals = state._rebuilt_totals = [sum(row) for row in state.rebuilt_drawn]
    for q, k in enumerate(totals):
        if k:
            mv[base + (q - me) % n] = k * inv_total


def encode(state: CabulaState, me: int) -> np.ndarray:
    g = state.game
    o = g.obs_offsets
    n = state.num_players
    T = NUM_TYPES
    # Every entry is one item written through a memoryview of the zeroed vector: no index and
    # value lists to build, no fancy store (at 6 players 23% less time than the lists plus one
    # `buf[idx] = val`). Same float32 values: both round the Python double to float32 once, and a
    # later write to the same index wins in both.
    buf = np.zeros(g.layout.size, dtype=np.float32)
    mv = memoryview(buf)
    hands = state.hands
    _write_counts(mv, o["my_hand"], hands[me], g.fifth_counts)
    hs, dp, st = o["hand_size"], o["displayed"], o["star_total"]
    sizes = state._hand_sizes  # sum(hands[p]) of each player, kept by the rules
    if sizes is None:
        sizes = state._hand_sizes = [sum(hand) for hand in hands]
    for p in range(n):
        r = (p - me) % n
        size = sizes[p]
        if size:
            mv[hs + r] = size * 0.1
        d0, d1 = state.display[p]
        if d0 or d1:
            mv[dp + 2 * r] = d0 * 0.2
            mv[dp + 2 * r + 1] = d1 * 0.2
            mv[st + r] = (d0 + 2 * d1) * 0.2
    _encode_knowledge(state, me, buf, mv)
    am, amo, nk = o["attack_made"], o["attack_made_on"], len(ATTACK_KINDS)
    for p, made in enumerate(state.attacks):
        if made is not None:
            r = (p - me) % n
            mv[am + r * nk + made[0]] = 1.0
            mv[amo + r * n + (made[1] - me) % n] = 1.0
    scaled = g.scaled_counts
    _write_counts(mv, o["discard"], state.discard, scaled)
    _write_counts(mv, o["deck_floor"], state.deck_floor[me], scaled)
    if state.deck_cap_known:
        _write_counts(mv, o["deck_cap"], state.deck_cap[me], scaled)
        mv[o["deck_cap_known"]] = 1.0
    mv[o["deck_size"]] = len(state.deck) / g.total_cards
    mv[o["turn"] + (state.turn - me) % n] = 1.0
    mv[o["turns"]] = state.turn_count / g.config.max_turns
    la = state.last_attack
    if la is not None:
        mv[o["last_attack_card"] + la[0]] = 1.0
        mv[o["last_attack_count"] + la[1] - 1] = 1.0
        mv[o["last_attacker"] + (la[2] - me) % n] = 1.0
        mv[o["last_victim"] + (la[3] - me) % n] = 1.0
    lp = state.last_play
    if lp is not None:
        mv[o["last_play_card"] + (lp[1] if lp[1] >= 0 else T)] = 1.0
        mv[o["last_play_count"] + lp[2] - 1] = 1.0
        mv[o["last_player"] + (lp[0] - me) % n] = 1.0
    pending = 0
    for f in state.stack:
        k = f["k"]
        if k == "draw":
            pending += f["n"]
        elif k == "necro":
            mv[o["necromancy"] + (f["p"] - me) % n] = 1.0
    if pending:
        mv[o["pending_draws"]] = pending / 6.0
    cp = state.current_player
    if cp is not None:
        mv[o["to_move"] + (cp - me) % n] = 1.0
        f = state.stack[-1]
        k = f["k"]
        if k == "curse":
            k = f["stage"]
            mv[o["context_card"] + f["c"]] = 1.0
            if f["by"] is not None:
                mv[o["curse_turned_by"] + (f["by"] - me) % n] = 1.0
        elif k == "target":
            mv[o["context_card"] + f["card"]] = 1.0
            mv[o["context_count"] + f["cnt"] - 1] = 1.0
        elif k == "star":
            mv[o["star_reason"] + _REASON_INDEX[f["why"]]] = 1.0
            mv[o["context_player"] + (f["v"] - me) % n] = 1.0
        elif k == "take":
            mv[o["context_player"] + (f["v"] - me) % n] = 1.0
        mv[o["decision"] + _DECISION_INDEX[k]] = 1.0
    return buf
