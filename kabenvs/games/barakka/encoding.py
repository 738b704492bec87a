"""Observation of one seat: the layout (index table in docs/games/barakka.md) and the encoder.

Cards are encoded by type ``colour * 6 + rank`` (rank 0 = joker): identical cards cannot be told
apart, so a type is all a player can know. Two memory modes (config ``memory``):

* ``"perfect"`` (default): the information state of a player who remembers everything shown face
  up: every card of both players' sequences (El-Karim's face-down cards are shown before they are
  placed), every card of the discard piles with the order of the top three, the opponent's card
  in hand when it came from a pile. Hidden: the deck order (and the solo split of the decks).
* ``"table"``: only what lies visible now: each sequence's face-up top card and its size, each
  discard pile's top card and size, the decks' sizes, one's own card(s) in hand.

Per-player blocks are seat-relative: row 0 is always "me".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from kabenvs.core.observation import ObservationLayout
from kabenvs.games.barakka.data import MAX_SEQUENCE, RANKS

if TYPE_CHECKING:
    from kabenvs.games.barakka.rules import BarakkaGame, BarakkaState

PILE_DEPTH = 3  # perfect memory: the order of the top three cards of each pile, one-hot
PHASE_INDEX = {"draw": 0, "play": 1, "drop": 2, "solo_play": 3}


def build_layout(game: "BarakkaGame") -> ObservationLayout:
    n, S, T = game.num_players, game.num_colours, game.num_types
    P, D, H = game.num_piles, game.num_decks, game.num_held
    lay = ObservationLayout()
    lay.add("to_move", n, "one-hot, seat-relative (0 = me): who decides now")
    lay.add("decision", 4, "one-hot decision asked now: draw, play/discard, solo drop, solo play/discard")
    lay.add("held", (H, T), "my card(s) in hand, one-hot type (solo: slot 0 = deck 1's card, 1 = deck 2's)")
    if not game.solo:
        lay.add("held_source", 3, "where the card in hand of the player to move came from: deck, pile 1, pile 2")
        lay.add("opp_held", T, "the opponent's card in hand when known (drawn from a pile; perfect memory only)")
    lay.add("seq", (n, S, T), "known cards of each sequence: count per type (table memory: the face-up top only)")
    lay.add("seq_size", (n, S), "cards in each sequence / 5 (position = colour; El-Karim: start order)")
    lay.add("seq_top", (n, S, T), "face-up top card of each sequence, one-hot")
    if game.karim:
        lay.add("seq_bottom", (n, S, T), "El-Karim: the face-down first card of each sequence (perfect memory only)")
    lay.add("pile_top", (P, PILE_DEPTH, T), "top cards of each discard pile, depth 0 = top (table memory: top only)")
    lay.add("pile_count", (P, T), "all cards of each discard pile, count per type (perfect memory only)")
    lay.add("pile_size", P, "cards in each discard pile / cards in the game")
    lay.add("deck_size", D, "cards left in the deck(s) / cards in the game")
    lay.add("unseen", T, "cards of each type I cannot see or remember (deck, hidden cards), count")
    lay.add("tiles", (n, S), "Barakka tiles held per colour (El-Basr: tiles received)")
    lay.add("tile_supply", S, "tiles of each colour still in the supply")
    if game.sadid:
        lay.add("sadid_order", (5, 5), "Sadid Al-Aziz: colour of the k-th tile of the stack (0 = top), one-hot")
        lay.add("sadid_missed", (n, 5), "Sadid Al-Aziz: colours whose tile a player can no longer take")
    if game.port >= 0:
        lay.add("token", n + 1, "El Portugues token holder, seat-relative; last = supply")
    if game.karim:
        lay.add("rose", n + 1, "Desert Rose holder, seat-relative; last = supply")
    lay.add("turn", 1, "turns played / turn cap (solo: / turns of the game)")
    game._off = {name: lay.offset(name) for name in lay.blocks()}
    game.unseen_slice = lay["unseen"]
    game.seq_size_slice = lay["seq_size"]
    return lay


def encode(state: "BarakkaState", player: int) -> np.ndarray:
    """One pass collects the index of every 1 (and of every card, for counts) and every card this
    seat knows; two ``bincount`` calls then build the vector. Element-wise numpy writes and
    list-to-array slice assignments cost far more than list appends, and this runs every step."""
    g = state.game
    off = g._off
    n, S, T = g.num_players, g.num_colours, g.num_types
    perfect = g.perfect
    karim = g.karim
    ones: list[int] = []
    add = ones.append
    seen: list[int] = list(state.held[player])  # card types this observation shows
    cp = state.current_player
    if cp is not None:
        add(off["to_move"] + (cp - player) % n)
        add(off["decision"] + PHASE_INDEX[state.phase])
    o = off["held"]
    for j, x in enumerate(seen):
        add(o + j * T + x)
    if not g.solo and cp is not None and state.phase == "play":
        add(off["held_source"] + state.held_src + 1)
        if cp != player and perfect and state.held_src >= 0:
            x = state.held[cp][0]
            add(off["opp_held"] + x)
            seen.append(x)
    seq0, top0 = off["seq"], off["seq_top"]
    bot0 = off.get("seq_bottom", 0)
    sizes: list[tuple[int, int]] = []  # (row, cards) of each started sequence
    for q in range(n):
        r = (q - player) % n
        for k, st in enumerate(state.seqs[q]):
            m = len(st)
            if not m:
                if karim:
                    break
                continue
            row = r * S + k
            sizes.append((row, m))
            base = row * T
            top_up = not (karim and m == 1)
            if top_up:
                add(top0 + base + st[-1])
            if perfect:
                o = seq0 + base
                ones.extend([o + x for x in st])
                seen.extend(st)
                if karim:
                    add(bot0 + base + st[0])
            elif top_up:
                add(seq0 + base + st[-1])
                seen.append(st[-1])
    pt0, pc0 = off["pile_top"], off["pile_count"]
    for i, pile in enumerate(state.piles):
        if not pile:
            continue
        o = pt0 + i * PILE_DEPTH * T
        if perfect:
            for d in range(min(PILE_DEPTH, len(pile))):
                add(o + d * T + pile[-1 - d])
            o = pc0 + i * T
            ones.extend([o + x for x in pile])
            seen.extend(pile)
        else:
            add(o + pile[-1])
            seen.append(pile[-1])
    o = off["tiles"]
    for q in range(n):
        r = (q - player) % n
        for c, t in enumerate(state.tiles[q]):
            if t:
                ones.extend([o + r * S + c] * t)
    o = off["tile_supply"]
    for c, t in enumerate(state.tile_supply):
        if t:
            ones.extend([o + c] * t)
    if g.sadid:
        o = off["sadid_order"]
        for j, c in enumerate(state.sadid_stack):
            add(o + j * 5 + c)
        o = off["sadid_missed"]
        for q in range(n):
            r = (q - player) % n
            for c, t in enumerate(state.sadid_missed[q]):
                if t:
                    add(o + r * 5 + c)
    if g.port >= 0:
        add(off["token"] + (n if state.token < 0 else (state.token - player) % n))
    if karim:
        add(off["rose"] + (n if state.rose < 0 else (state.rose - player) % n))
    o = off["unseen"]
    ones.extend([o + x for x in seen])  # counted here, turned into "unseen" below
    o = off["seq_size"]
    for row, m in sizes:
        ones.extend([o + row] * m)  # scaled to m / 5 below
    buf = np.bincount(np.array(ones, dtype=np.intp), minlength=g.layout.size).astype(np.float32)
    unseen = buf[g.unseen_slice]
    np.subtract(g.total_counts, unseen, out=unseen)  # every card of the game minus those shown
    buf[g.seq_size_slice] *= 1.0 / MAX_SEQUENCE
    total = g.num_cards
    o = off["pile_size"]
    for i, pile in enumerate(state.piles):
        buf[o + i] = len(pile) / total
    o = off["deck_size"]
    for i, deck in enumerate(state.decks):
        buf[o + i] = len(deck) / total
    buf[off["turn"]] = state.turn / g.turn_limit
    return buf
