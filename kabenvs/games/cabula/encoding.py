"""Cábula's information state: the observation vector and ``resample_hidden``.

Both read the same things: the seat's own hand, the public table (displays, hand sizes, discard
pile, deck size, the pending decision) and the seat's certain knowledge kept by the rules engine
(``known[me][other]``: cards it is sure another hand holds; ``deck_floor``/``deck_cap``: what it is
sure the deck holds at least / at most). ``resample`` re-deals everything else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from kabenvs.games.cabula.cards import HAND_TYPES, IS_CURSE, NUM_TYPES

if TYPE_CHECKING:
    from kabenvs.games.cabula.rules import CabulaState

_DECISION_INDEX = {"main": 0, "target": 1, "respond": 2, "redirect": 3, "star": 4, "necro": 5, "take": 6}
_REASON_INDEX = {"witch": 0, "prank": 1, "rob": 2, "chaos_lose": 3, "chaos_give": 4, "cauldron": 5}


def encode(state: "CabulaState", me: int) -> np.ndarray:
    # Filled as a Python list and converted once: far cheaper than many small numpy writes.
    g = state.game
    o = g.obs_offsets
    n = state.num_players
    T = NUM_TYPES
    buf = [0.0] * g.layout.size
    inv = g.inv_comp_list
    hands = state.hands
    i = o["my_hand"]
    for c, k in enumerate(hands[me]):
        if k:
            buf[i + c] = k * 0.2
    hs, dp, st, kh = o["hand_size"], o["displayed"], o["star_total"], o["known_hands"]
    known = state.known[me]
    for p in range(n):
        r = (p - me) % n
        buf[hs + r] = sum(hands[p]) * 0.1
        d = state.display[p]
        buf[dp + 2 * r] = d[0] * 0.2
        buf[dp + 2 * r + 1] = d[1] * 0.2
        buf[st + r] = (d[0] + 2 * d[1]) * 0.2
        if p != me:
            base = kh + r * T
            for c, k in enumerate(known[p]):
                if k:
                    buf[base + c] = k * 0.2
    i = o["discard"]
    for c, k in enumerate(state.discard):
        if k:
            buf[i + c] = k * inv[c]
    buf[o["deck_size"]] = len(state.deck) / g.total_cards
    i = o["deck_floor"]
    for c, k in enumerate(state.deck_floor[me]):
        if k:
            buf[i + c] = k * inv[c]
    if state.deck_cap_known:
        i = o["deck_cap"]
        for c, k in enumerate(state.deck_cap[me]):
            if k:
                buf[i + c] = k * inv[c]
        buf[o["deck_cap_known"]] = 1.0
    buf[o["turn"] + (state.turn - me) % n] = 1.0
    buf[o["turns"]] = state.turn_count / g.config.max_turns
    pending = 0
    for f in state.stack:
        k = f["k"]
        if k == "draw":
            pending += f["n"]
        elif k == "necro":
            buf[o["necromancy"] + (f["p"] - me) % n] = 1.0
    buf[o["pending_draws"]] = pending / 6.0
    cp = state.current_player
    if cp is not None:
        buf[o["to_move"] + (cp - me) % n] = 1.0
        f = state.stack[-1]
        k = f["k"]
        if k == "curse":
            k = f["stage"]
            buf[o["context_card"] + f["c"]] = 1.0
        elif k == "target":
            buf[o["context_card"] + f["card"]] = 1.0
            buf[o["context_count"] + f["cnt"] - 1] = 1.0
        elif k == "star":
            buf[o["star_reason"] + _REASON_INDEX[f["why"]]] = 1.0
            buf[o["context_player"] + (f["v"] - me) % n] = 1.0
        elif k == "take":
            buf[o["context_player"] + (f["v"] - me) % n] = 1.0
        buf[o["decision"] + _DECISION_INDEX[k]] = 1.0
    return np.array(buf, dtype=np.float32)


def resample(state: "CabulaState", me: int, rng: np.random.Generator) -> "CabulaState":
    """A state ``me`` cannot tell from ``state``: other hands and the deck re-dealt.

    Constraints kept (all of ``me``'s knowledge): hand sizes, no curse in any hand (so every unseen
    curse is in the deck), the cards ``me`` knows each hand holds, the deck's certain floor and,
    after a reshuffle, its cap. Floors are placed first; the deck's remaining cards are drawn from
    the unseen cards its cap still allows; whatever is left fills the other hands.
    """
    g = state.game
    n = state.num_players
    new = state.clone()
    unseen = g.composition[:]
    for c in range(NUM_TYPES):
        unseen[c] -= state.hands[me][c] + state.discard[c]
    for d in state.display:
        unseen[0] -= d[0]
        unseen[1] -= d[1]
    floor = state.deck_floor[me]
    rest = unseen[:]
    hands = [None] * n
    for p in range(n):
        if p == me:
            continue
        hands[p] = state.known[me][p][:]
        for c in range(NUM_TYPES):
            rest[c] -= hands[p][c]
    deck_counts = [0] * NUM_TYPES
    for c in range(NUM_TYPES):
        deck_counts[c] = rest[c] if IS_CURSE[c] else floor[c]
        rest[c] -= deck_counts[c]
    extra = len(state.deck) - sum(deck_counts)
    eligible = []
    for c in HAND_TYPES:
        k = rest[c]
        if state.deck_cap_known:
            k = min(k, state.deck_cap[me][c] - floor[c])
        eligible += [c] * k
    assert extra <= len(eligible), "resample: the deck's constraints cannot be met"
    picked = [eligible[i] for i in rng.permutation(len(eligible))[:extra]]
    for c in picked:
        deck_counts[c] += 1
        rest[c] -= 1
    leftover = [c for c in range(NUM_TYPES) for _ in range(rest[c])]
    leftover = [leftover[i] for i in rng.permutation(len(leftover))]
    for p in range(n):
        if p == me:
            continue
        need = sum(state.hands[p]) - sum(hands[p])
        for c in leftover[:need]:
            hands[p][c] += 1
        leftover = leftover[need:]
        new.hands[p] = hands[p]
    assert not leftover, "resample: unseen cards left over"
    deck = [c for c in range(NUM_TYPES) for _ in range(deck_counts[c])]
    new.deck = [deck[i] for i in rng.permutation(len(deck))]
    # Other seats' knowledge is hidden from `me`; keep it true in the new world (clamped).
    for v in range(n):
        if v == me:
            continue
        for p in range(n):
            kn = new.known[v][p]
            hand = new.hands[p]
            for c in range(NUM_TYPES):
                if kn[c] > hand[c]:
                    kn[c] = hand[c]
        fl = new.deck_floor[v]
        cap = new.deck_cap[v]
        for c in range(NUM_TYPES):
            if fl[c] > deck_counts[c]:
                fl[c] = deck_counts[c]
            if state.deck_cap_known and cap[c] < deck_counts[c]:
                cap[c] = deck_counts[c]
    new.rng = np.random.default_rng(rng.integers(0, 2**63))
    new._reset_caches()
    return new
