"""Cábula's information state: the observation vector and ``resample_hidden``.

Both read the same things: the seat's own hand, the public table (displays, hand sizes, discard
pile, deck size, the pending decision) and the seat's certain knowledge kept by the rules engine
(``known_cards(me, other)``: cards it is sure another hand holds; ``groups``: cards of which some
surely remain there, and ``groups2``, a second such group kept at some unseen losses; ``fresh``:
its cards drawn from the rebuilt deck; ``deck_floor``/``deck_cap``: what it is sure the deck holds
at least / at most; knowledge.py). ``resample_hidden`` lives in resample.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from kabenvs.games.cabula.cards import ATTACK_KINDS, NUM_TYPES

if TYPE_CHECKING:
    from kabenvs.games.cabula.rules import CabulaState

_DECISION_INDEX = {"main": 0, "target": 1, "respond": 2, "redirect": 3, "star": 4, "necro": 5, "take": 6}
_REASON_INDEX = {"witch": 0, "prank": 1, "rob": 2, "chaos_lose": 3, "chaos_give": 4, "cauldron": 5}


def _encode_shadow(state: CabulaState, me: int, put_i, put_v) -> None:
    """What each other player ``j`` knows of my hand, as far as I can tell: the shadow rows
    ``j * n + me`` (knowledge.py), in the row of the player ``k`` seats clockwise at ``k - 1``;
    and, after a rebuild, my part of their ``deck_cap``: my draws from the rebuilt deck (once, for
    all of them) less what each found was fresh, and everyone's number of draws."""
    n = state.num_players
    o = state.game.obs_offsets
    T = NUM_TYPES
    # Each table's rows about my hand (row j: player j's), skipped at C speed when all empty.
    for rows, block, width, count in (
        (state.shadow_known[me::n], "their_known", T, None),
        (state.shadow_groups[me::n], "their_maybe", T + 1, "their_maybe_count"),
        (state.shadow_groups2[me::n], "their_maybe2", T, "their_maybe2_count"),
        (state.shadow_spent[me::n], "their_spent", T, None),
    ):
        if rows.count(None) == n:
            continue
        for j, row in enumerate(rows):
            if row is not None:
                r = (j - me) % n - 1
                base = o[block] + r * width
                for c, k in enumerate(row[:width]):
                    if k:
                        put_i(base + c)
                        put_v(k * 0.2)
                if count is not None:
                    put_i(o[count] + r)
                    put_v(row[T + 1] * 0.2)
    if not state.deck_cap_known:
        return  # fresh cards and draws from a rebuilt deck need one
    fresh = state.shadow_fresh[me::n]
    if any(fresh):
        base = o["their_fresh"]
        for j, f in enumerate(fresh):
            if f:
                put_i(base + (j - me) % n - 1)
                put_v(f * 0.2)
    base = o["my_rebuilt_draws"]
    for c, k in enumerate(state.rebuilt_drawn[me]):
        if k:
            put_i(base + c)
            put_v(k * 0.2)
    base = o["rebuilt_draws"]
    inv_total = 1.0 / state.game.total_cards
    for q, row in enumerate(state.rebuilt_drawn):
        k = sum(row)
        if k:
            put_i(base + (q - me) % n)
            put_v(k * inv_total)


def encode(state: "CabulaState", me: int) -> np.ndarray:
    # Only the non-zero entries are collected, then written with one fancy-index assignment:
    # far cheaper than many small numpy writes or converting a full Python list.
    g = state.game
    o = g.obs_offsets
    n = state.num_players
    T = NUM_TYPES
    idx: list[int] = []
    val: list[float] = []
    put_i = idx.append
    put_v = val.append
    inv = g.inv_comp_list
    hands = state.hands
    i = o["my_hand"]
    for c, k in enumerate(hands[me]):
        if k:
            put_i(i + c)
            put_v(k * 0.2)
    hs, dp, st, kh = o["hand_size"], o["displayed"], o["star_total"], o["known_hands"]
    known = state.known
    row0 = me * n
    for p in range(n):
        r = (p - me) % n
        size = sum(hands[p])
        if size:
            put_i(hs + r)
            put_v(size * 0.1)
        d0, d1 = state.display[p]
        if d0 or d1:
            idx += (dp + 2 * r, dp + 2 * r + 1, st + r)
            val += (d0 * 0.2, d1 * 0.2, (d0 + 2 * d1) * 0.2)
        kn = known[row0 + p]
        if kn is not None:  # never for p == me
            base = kh + r * T
            for c, k in enumerate(kn):
                if k:
                    put_i(base + c)
                    put_v(k * 0.2)
    # Groups and fresh cards are rarer: a scan of the whole table (C speed) skips them at once.
    # The second groups never hold unknown cards: their rows have one column fewer.
    for groups, hands_block, count_block, width in (
        (state.groups, "maybe_hands", "maybe_count", T + 1),
        (state.groups2, "maybe2_hands", "maybe2_count", T),
    ):
        if groups.count(None) == n * n:
            continue
        mh, mc = o[hands_block], o[count_block]
        for p in range(n):
            grp = groups[row0 + p]
            if grp is not None:
                r = (p - me) % n
                base = mh + r * width
                for c in range(width):
                    if grp[c]:
                        put_i(base + c)
                        put_v(grp[c] * 0.2)
                put_i(mc + r)
                put_v(grp[T + 1] * 0.2)
    fresh = state.fresh
    if any(fresh):
        fr = o["fresh"]
        for p in range(n):
            if fresh[row0 + p]:
                put_i(fr + (p - me) % n)
                put_v(fresh[row0 + p] * 0.2)
    _encode_shadow(state, me, put_i, put_v)
    am, amo, nk = o["attack_made"], o["attack_made_on"], len(ATTACK_KINDS)
    for p, made in enumerate(state.attacks):
        if made is not None:
            r = (p - me) % n
            idx += (am + r * nk + made[0], amo + r * n + (made[1] - me) % n)
            val += (1.0, 1.0)
    for block, counts in (("discard", state.discard), ("deck_floor", state.deck_floor[me])):
        i = o[block]
        for c, k in enumerate(counts):
            if k:
                put_i(i + c)
                put_v(k * inv[c])
    if state.deck_cap_known:
        i = o["deck_cap"]
        for c, k in enumerate(state.deck_cap[me]):
            if k:
                put_i(i + c)
                put_v(k * inv[c])
        put_i(o["deck_cap_known"])
        put_v(1.0)
    idx += (o["deck_size"], o["turn"] + (state.turn - me) % n, o["turns"])
    val += (len(state.deck) / g.total_cards, 1.0, state.turn_count / g.config.max_turns)
    la = state.last_attack
    if la is not None:
        idx += (o["last_attack_card"] + la[0], o["last_attack_count"] + la[1] - 1,
                o["last_attacker"] + (la[2] - me) % n, o["last_victim"] + (la[3] - me) % n)
        val += (1.0, 1.0, 1.0, 1.0)
    lp = state.last_play
    if lp is not None:
        idx += (o["last_play_card"] + (lp[1] if lp[1] >= 0 else T), o["last_play_count"] + lp[2] - 1,
                o["last_player"] + (lp[0] - me) % n)
        val += (1.0, 1.0, 1.0)
    pending = 0
    for f in state.stack:
        k = f["k"]
        if k == "draw":
            pending += f["n"]
        elif k == "necro":
            put_i(o["necromancy"] + (f["p"] - me) % n)
            put_v(1.0)
    if pending:
        put_i(o["pending_draws"])
        put_v(pending / 6.0)
    cp = state.current_player
    if cp is not None:
        put_i(o["to_move"] + (cp - me) % n)
        put_v(1.0)
        f = state.stack[-1]
        k = f["k"]
        if k == "curse":
            k = f["stage"]
            put_i(o["context_card"] + f["c"])
            put_v(1.0)
            if f["by"] is not None:
                put_i(o["curse_turned_by"] + (f["by"] - me) % n)
                put_v(1.0)
        elif k == "target":
            idx += (o["context_card"] + f["card"], o["context_count"] + f["cnt"] - 1)
            val += (1.0, 1.0)
        elif k == "star":
            idx += (o["star_reason"] + _REASON_INDEX[f["why"]], o["context_player"] + (f["v"] - me) % n)
            val += (1.0, 1.0)
        elif k == "take":
            put_i(o["context_player"] + (f["v"] - me) % n)
            put_v(1.0)
        put_i(o["decision"] + _DECISION_INDEX[k])
        put_v(1.0)
    buf = np.zeros(g.layout.size, dtype=np.float32)
    buf[idx] = val
    return buf
