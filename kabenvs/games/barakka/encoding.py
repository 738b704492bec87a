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
    return lay


def encode(state: "BarakkaState", player: int) -> np.ndarray:
    g = state.game
    off = g._off
    lay = g.layout
    n, S, T = g.num_players, g.num_colours, g.num_types
    perfect = g.config.memory == "perfect"
    karim = g.karim
    buf = np.zeros(lay.size, dtype=np.float32)
    cp = state.current_player
    if cp is not None:
        buf[off["to_move"] + (cp - player) % n] = 1.0
        buf[off["decision"] + PHASE_INDEX[state.phase]] = 1.0
    o = off["held"]
    for j, x in enumerate(state.held[player]):
        buf[o + j * T + x] = 1.0
    if not g.solo and cp is not None and state.phase == "play":
        buf[off["held_source"] + state.held_src + 1] = 1.0
        if cp != player and perfect and state.held_src >= 0:
            buf[off["opp_held"] + state.held[cp][0]] = 1.0
    seq0, size0, top0 = off["seq"], off["seq_size"], off["seq_top"]
    bot0 = off.get("seq_bottom", 0)
    for q in range(n):
        r = (q - player) % n
        for k, st in enumerate(state.seqs[q]):
            m = len(st)
            if not m:
                if karim:
                    break
                continue
            row = r * S + k
            buf[size0 + row] = m / MAX_SEQUENCE
            base = row * T
            top_up = not (karim and m == 1)
            if top_up:
                buf[top0 + base + st[-1]] = 1.0
            if perfect:
                for x in st:
                    buf[seq0 + base + x] += 1.0
                if karim:
                    buf[bot0 + base + st[0]] = 1.0
            elif top_up:
                buf[seq0 + base + st[-1]] = 1.0
    pt0, pc0, ps0 = off["pile_top"], off["pile_count"], off["pile_size"]
    total = len(g.full_deck)
    depth = PILE_DEPTH if perfect else 1
    for i, pile in enumerate(state.piles):
        m = len(pile)
        buf[ps0 + i] = m / total
        o = pt0 + i * PILE_DEPTH * T
        for d in range(min(depth, m)):
            buf[o + d * T + pile[-1 - d]] = 1.0
        if perfect and m:
            buf[pc0 + i * T: pc0 + (i + 1) * T] = np.bincount(pile, minlength=T)
    for i, deck in enumerate(state.decks):
        buf[off["deck_size"] + i] = len(deck) / total
    # unseen = every card of the game minus what this observation shows
    known = lay.view(buf, "seq").reshape(-1, T).sum(0) + lay.view(buf, "held").sum(0)
    if perfect:
        known += lay.view(buf, "pile_count").sum(0)
        if not g.solo:
            known += buf[off["opp_held"]: off["opp_held"] + T]
    else:
        known += lay.view(buf, "pile_top")[:, 0, :].sum(0)
    buf[off["unseen"]: off["unseen"] + T] = g.total_counts - known
    t0 = off["tiles"]
    for q in range(n):
        r = (q - player) % n
        buf[t0 + r * S: t0 + (r + 1) * S] = state.tiles[q]
    buf[off["tile_supply"]: off["tile_supply"] + S] = state.tile_supply
    if g.sadid:
        o = off["sadid_order"]
        for j, c in enumerate(state.sadid_stack):
            buf[o + j * 5 + c] = 1.0
        o = off["sadid_missed"]
        for q in range(n):
            r = (q - player) % n
            buf[o + r * 5: o + (r + 1) * 5] = state.sadid_missed[q]
    if g.port >= 0:
        buf[off["token"] + (n if state.token < 0 else (state.token - player) % n)] = 1.0
    if karim:
        buf[off["rose"] + (n if state.rose < 0 else (state.rose - player) % n)] = 1.0
    limit = g.solo_turns if g.solo else g.config.max_turns
    buf[off["turn"]] = state.turn / limit
    return buf
