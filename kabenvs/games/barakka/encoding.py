"""Observation of one seat: the layout (index table in docs/games/barakka.md) and the encoder.

Cards are encoded by type ``colour * 6 + rank`` (rank 0 = joker): identical cards cannot be told
apart, so a type is all a player can know. Two memory modes (config ``memory``):

* ``"perfect"`` (default): the seat's information state with perfect recall: every card it ever
  saw, in every place that can still matter: every card of both players' sequences (El-Karim's
  face-down cards are shown before they are placed), every discard pile in its full order
  (``pile_order``; with counts and the top three one-hot as easier features), the opponent's card
  in hand when it came from a pile, solo: which deck the kept card came from (``kept_from``).
  Hidden: the deck order (and the solo split of the decks), the card the opponent just drew from
  the deck. Not kept: the order of past moves and of the cards inside a sequence; no rule reads
  either (a sequence scores as a set, El-Karim's first card has its own block), and the opponent
  holds no hidden card between its turns that they could hint at.
* ``"table"``: a documented forgetful variant, only what lies visible now: each sequence's
  face-up top card and its size, each discard pile's top card and size, the decks' sizes, one's
  own card(s) in hand. For agents that keep their own memory (as the rulebook asks of people).

Per-player blocks are seat-relative: row 0 is always "me". The board blocks are cached per seat
and updated by each move (``BoardCache``): the observation is on every AEC step's path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from kabenvs.core.observation import ObservationLayout
from kabenvs.games.barakka.data import MAX_SEQUENCE

if TYPE_CHECKING:
    from kabenvs.games.barakka.rules import BarakkaGame, BarakkaState

SOLO_KEPT = 2  # the solo game's two decks
PILE_DEPTH = 3  # perfect memory: the order of the top three cards of each pile, one-hot
PHASE_INDEX = {"draw": 0, "play": 1, "drop": 2, "solo_play": 3}


def build_layout(game: "BarakkaGame") -> ObservationLayout:
    n, S, T = game.num_players, game.num_colours, game.num_types
    P, D, H = game.num_piles, game.num_decks, game.num_held
    lay = ObservationLayout()
    lay.add("to_move", n, "one-hot, seat-relative (0 = me): who decides now")
    lay.add("decision", 4, "one-hot decision asked now: draw, play/discard, solo drop, solo play/discard")
    lay.add("held", (H, T), "my card(s) in hand, one-hot type (solo: slot 0 = deck 1's card, 1 = deck 2's)")
    if game.solo:  # dropping deck 1's or deck 2's copy of one card type are different choices
        lay.add("kept_from", SOLO_KEPT, "solo play/discard: the deck (1, 2) the kept card came from, one-hot")
    if not game.solo:
        lay.add("held_source", 3, "where the card in hand of the player to move came from: deck, pile 1, pile 2")
        lay.add("opp_held", T, "the opponent's card in hand when known (drawn from a pile; perfect memory only)")
    lay.add("seq", (n, S, T), "known cards of each sequence: count per type (table memory: the face-up top only)")
    lay.add("seq_size", (n, S), "cards in each sequence / 5 (position = colour; El-Karim: start order)")
    lay.add("seq_top", (n, S, T), "face-up top card of each sequence, one-hot")
    if game.karim:
        lay.add("seq_bottom", (n, S, T), "El-Karim: the face-down first card of each sequence (table memory: only the "
                "one the opponent has just shown and placed, at my next decision)")
    lay.add("pile_top", (P, PILE_DEPTH, T), "top cards of each discard pile, depth 0 = top (table memory: top only)")
    lay.add("pile_count", (P, T), "all cards of each discard pile, count per type (perfect memory only)")
    if not game.solo:  # the solo pile is out of the game: its order can never matter
        lay.add("pile_order", (P, game.num_cards),
                "each discard pile bottom first: (type + 1) / types of its j-th card, 0 = none (perfect memory only)")
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
    # Derived from the blocks above (nothing new is revealed): whether a card would repeat a type
    # a sequence already shows. A duplicate ruins a sequence, and a small net learns this AND of
    # "card in hand" x "cards in that sequence" slowly from a win/loss reward alone.
    lay.add("held_dup", H, "derived: known copies of my held card's type in my sequences")
    lay.add("pile_dup", (P, n), "derived: known copies of each pile's top-card type in each player's sequences")
    lay.add("turn", 1, "turns played / turn cap (solo: / turns of the game)")
    game.pile_code = ((np.arange(T) + 1) / T).astype(np.float32)  # pile_order's value of each type
    game.pile_code_list = game.pile_code.tolist()  # the same float32 values, for item writes
    game._off = {name: lay.offset(name) for name in lay.blocks()}
    game.unseen_slice = lay["unseen"]
    game.seq_size_slice = lay["seq_size"]
    return lay


def encode(state: "BarakkaState", player: int) -> np.ndarray:
    """The seat's cached board (kept up to date move by move, see ``BoardCache``) plus the few
    entries that change every decision: whose turn, the decision, the card(s) in hand, the decks,
    the turn counter."""
    g = state.game
    board = state._board
    if board is None:
        board = state._board = BoardCache(state)
    buf = board.vecs[player].copy()
    # every write below is of one item: through a memoryview it costs about half of one on the
    # numpy array (no numpy scalar is made); float32 either way, and the values are the same
    mv = memoryview(buf)
    off = g._off
    T = g.num_types
    unseen = off["unseen"]
    cp = state.current_player
    if cp is not None:
        mv[off["to_move"] + (cp - player) % g.num_players] = 1.0
        mv[off["decision"] + PHASE_INDEX[state.phase]] = 1.0
    o = off["held"]
    held = state.held[player]
    for j, x in enumerate(held):
        mv[o + j * T + x] = 1.0
        mv[unseen + x] -= 1.0
    if g.solo and state.phase == "solo_play":
        mv[off["kept_from"] + state.held_src] = 1.0
    if not g.solo and cp is not None and state.phase == "play":
        mv[off["held_source"] + state.held_src + 1] = 1.0
        if cp != player and g.perfect and state.held_src >= 0:
            x = state.held[cp][0]
            mv[off["opp_held"] + x] = 1.0
            mv[unseen + x] -= 1.0
    if g.karim and not g.perfect and not g.solo and cp == player and state.phase == "draw":
        _write_just_shown(state, player, mv)
    o = off["deck_size"]
    for i, deck in enumerate(state.decks):
        mv[o + i] = len(deck) / g.num_cards
    mv[off["turn"]] = state.turn / g.turn_limit
    dups = board.per_type[player]
    if dups is None:  # the sequences changed since this seat's last observation
        per_type = seq_per_type(g, board.vecs[player])
        # as Python lists: my row by type, and each type's column (every seat row)
        dups = board.per_type[player] = (per_type[0].tolist(), per_type.T.tolist())
    _write_dups(g, mv, held, state.piles, dups)
    return buf


def _write_just_shown(state: "BarakkaState", player: int, buf) -> None:
    """Table memory, El-Karim: the card the opponent has just shown and placed face down (its
    last move started a sequence), in ``seq_bottom`` and out of ``unseen``, at the seat's first
    decision after it (the draw). The rules show it to the opponent; the table then hides it, so
    an agent keeping its own memory sees it this once (perfect memory keeps it for good)."""
    if not state.history:
        return
    g = state.game
    a = state.history[-1]
    if g.kind_of_id[a] != "play":
        return
    q = 1 - player  # the opponent moved last: a play or discard ends a turn (2 players)
    k = g.index_of_id[a]
    st = state.seqs[q][k]
    if len(st) != 1:
        return  # played onto a sequence already started: face up, the table shows it
    card = st[0]
    off = g._off
    row = ((q - player) % g.num_players) * g.num_colours + k
    buf[off["seq_bottom"] + row * g.num_types + card] = 1.0
    buf[off["unseen"] + card] -= 1.0


def seq_per_type(g, vec: np.ndarray) -> np.ndarray:
    """(seat row, type): the known copies of each type in each player's sequences, summed from
    the seq block of a seat's board vector (so table memory sees only tops here too)."""
    n, S, T = g.num_players, g.num_colours, g.num_types
    o = g._off["seq"]
    return vec[o: o + n * S * T].reshape(n, S, T).sum(axis=1)


def _write_dups(g, buf, held, piles, dups: tuple[list, list]) -> None:
    """The derived ``held_dup``/``pile_dup`` blocks, read from ``seq_per_type`` of this seat
    (``dups``: its row 0 by type, and its column of each type). ``buf``: the observation or a
    memoryview of it."""
    off = g._off
    n = g.num_players
    mine, columns = dups
    o = off["held_dup"]
    for j, x in enumerate(held):
        buf[o + j] = mine[x]
    o = off["pile_dup"]
    for i, pile in enumerate(piles):
        if pile:
            row = o + i * n
            for r, copies in enumerate(columns[pile[-1]]):
                buf[row + r] = copies


class BoardCache:
    """Per seat, the observation's board blocks (sequences, piles, tiles, tokens, and "unseen" as
    every card minus those the board shows), updated by the rules after each move through
    ``play``/``pile_push``/``pile_pop``/``misc``, which touch only the entries that move changed.
    Rebuilt from scratch after a restore, a clone or ``touch`` (the kit compares the two)."""

    def __init__(self, state: "BarakkaState") -> None:
        self.state = state
        self.vecs = [build_board(state, p) for p in range(state.game.num_players)]
        # the per-move updates write single items: through memoryviews they cost about half
        self.views = [memoryview(v) for v in self.vecs]
        # per seat, seq_per_type of its vector, summed on the first observation after a card
        # went onto a sequence (``play``): the sum every observation cost ~2 us of ~13 a step
        self.per_type: list[tuple[list, list] | None] = [None] * state.game.num_players
        # The board is public, so "unseen" (every card less those the board shows) and the pile
        # counts are the same in every seat's vector: kept here as Python numbers, so that an
        # update writes the new value into each vector instead of a read-add-write per seat.
        g = state.game
        self.unseen = self.vecs[0][g.unseen_slice].tolist()
        if g.perfect:
            o = g._off["pile_count"]
            self.pile_counts = self.vecs[0][o:o + g.num_piles * g.num_types].reshape(g.num_piles, -1).tolist()

    def play(self, q: int, k: int, card: int) -> None:
        """``card`` went onto player q's sequence k (it was in hand: no board entry had it)."""
        state = self.state
        g = state.game
        off = g._off
        n, S, T = g.num_players, g.num_colours, g.num_types
        st = state.seqs[q][k]
        m = len(st)
        karim = g.karim
        face_down = karim and m == 1
        # the previous face-up top, now covered (none if the sequence was empty or one face-down card)
        old_top = st[-2] if m >= 2 and not (karim and m == 2) else -1
        seq0, top0, size0, unseen = off["seq"], off["seq_top"], off["seq_size"], off["unseen"]
        self.per_type = [None] * n
        counts = self.unseen
        if g.perfect:
            copies = st.count(card)  # the seq block counts every card of the sequence by type
            counts[card] -= 1.0
        else:  # the table shows only the face-up top
            if old_top >= 0:
                counts[old_top] += 1.0
            if not face_down:
                counts[card] -= 1.0
        for p, buf in enumerate(self.views):
            row = ((q - p) % n) * S + k
            base = row * T
            buf[size0 + row] = m / MAX_SEQUENCE
            if old_top >= 0:
                buf[top0 + base + old_top] = 0.0
            if not face_down:
                buf[top0 + base + card] = 1.0
            if g.perfect:
                buf[seq0 + base + card] = copies
                buf[unseen + card] = counts[card]
                if face_down:
                    buf[off["seq_bottom"] + base + card] = 1.0
            else:
                if old_top >= 0:
                    buf[seq0 + base + old_top] = 0.0
                    buf[unseen + old_top] = counts[old_top]
                if not face_down:
                    buf[seq0 + base + card] = 1.0
                    buf[unseen + card] = counts[card]

    def pile_push(self, i: int, card: int) -> None:
        self._pile(i, card, +1)

    def pile_pop(self, i: int, card: int) -> None:
        self._pile(i, card, -1)

    def _pile(self, i: int, card: int, sign: int) -> None:
        """Pile i gained (+1) or lost (-1) ``card`` on top; the list already shows the change."""
        state = self.state
        g = state.game
        off = g._off
        T = g.num_types
        pile = state.piles[i]
        o = off["pile_top"] + i * PILE_DEPTH * T
        unseen = off["unseen"]
        depth = PILE_DEPTH if g.perfect else 1
        # the top cards before and after, top first (only the top few: a pile holds up to ~90)
        if sign > 0:
            old_tops = pile[-1 - depth:-1][::-1]
        else:
            old_tops = [card] + (pile[max(0, len(pile) - depth + 1):][::-1] if depth > 1 else [])
        new_tops = pile[-depth:][::-1]
        clear = [o + d * T + x for d, x in enumerate(old_tops)]
        ones = [o + d * T + x for d, x in enumerate(new_tops)]
        size = len(pile) / g.num_cards
        counts = self.unseen
        if g.perfect:
            self.pile_counts[i][card] += sign
            pile_count = self.pile_counts[i][card]
            counts[card] -= sign
        else:  # known: the top only
            if old_tops:
                counts[old_tops[0]] += 1.0
            if pile:
                counts[pile[-1]] -= 1.0
        code = g.pile_code_list[card] if sign > 0 else 0.0
        for buf in self.views:
            for k in clear:
                buf[k] = 0.0
            for k in ones:
                buf[k] = 1.0
            buf[off["pile_size"] + i] = size
            if g.perfect:
                buf[off["pile_count"] + i * T + card] = pile_count
                buf[unseen + card] = counts[card]
                if not g.solo:  # the j-th card from the bottom: only the changed end moves
                    j = len(pile) - 1 if sign > 0 else len(pile)
                    buf[off["pile_order"] + i * g.num_cards + j] = code
            else:
                if old_tops:
                    buf[unseen + old_tops[0]] = counts[old_tops[0]]
                if pile:
                    buf[unseen + pile[-1]] = counts[pile[-1]]

    def misc(self) -> None:
        """Tiles, Sadid stack, token, Rose changed (rare: fifth cards, El Portugues, the Rose)."""
        state = self.state
        for p, buf in enumerate(self.vecs):
            _write_misc(state, p, buf)


def _write_misc(state: "BarakkaState", player: int, buf: np.ndarray) -> None:
    g = state.game
    off = g._off
    n, S = g.num_players, g.num_colours
    o = off["tiles"]
    for q in range(n):
        r = (q - player) % n
        buf[o + r * S: o + (r + 1) * S] = state.tiles[q]
    o = off["tile_supply"]
    buf[o: o + S] = state.tile_supply
    if g.sadid:
        o = off["sadid_order"]
        buf[o: o + 25] = 0.0
        for j, c in enumerate(state.sadid_stack):
            buf[o + j * 5 + c] = 1.0
        o = off["sadid_missed"]
        for q in range(n):
            r = (q - player) % n
            buf[o + r * 5: o + (r + 1) * 5] = state.sadid_missed[q]
    if g.port >= 0:
        o = off["token"]
        buf[o: o + n + 1] = 0.0
        buf[o + (n if state.token < 0 else (state.token - player) % n)] = 1.0
    if g.karim:
        o = off["rose"]
        buf[o: o + n + 1] = 0.0
        buf[o + (n if state.rose < 0 else (state.rose - player) % n)] = 1.0


def build_board(state: "BarakkaState", player: int) -> np.ndarray:
    """The board blocks of one seat from scratch: one pass collects the index of every 1 (and of
    every card, for counts), one ``bincount`` builds the vector."""
    g = state.game
    off = g._off
    n, S, T = g.num_players, g.num_colours, g.num_types
    perfect = g.perfect
    karim = g.karim
    ones: list[int] = []
    add = ones.append
    seen: list[int] = []  # card types the board shows
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
    o = off["unseen"]
    ones.extend([o + x for x in seen])  # counted here, turned into "unseen" below
    o = off["seq_size"]
    for row, m in sizes:
        ones.extend([o + row] * m)  # scaled to m / 5 below
    buf = np.bincount(np.array(ones, dtype=np.intp), minlength=g.layout.size).astype(np.float32)
    unseen = buf[g.unseen_slice]
    np.subtract(g.total_counts, unseen, out=unseen)  # every card of the game minus those shown
    buf[g.seq_size_slice] *= 1.0 / MAX_SEQUENCE
    o = off["pile_size"]
    for i, pile in enumerate(state.piles):
        buf[o + i] = len(pile) / g.num_cards
    if perfect and not g.solo:
        o = off["pile_order"]
        for i, pile in enumerate(state.piles):
            start = o + i * g.num_cards
            buf[start: start + len(pile)] = g.pile_code[pile]
    _write_misc(state, player, buf)
    return buf
