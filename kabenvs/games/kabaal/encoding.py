"""Kabaal observation: one seat's information state as a flat float32 vector.

Seat-relative: in every per-player block index 0 is the observing seat, 1 the next seat
clockwise (the player it passes cards to), and so on. Everything here is either public or the
observing seat's own knowledge; the hidden cards of other hands and the undealt cards never
enter (the shared kit checks this with ``resample_hidden``). Within a round nothing is summarised
(tricks, passes and board moves are kept in order); earlier rounds are left out because a round
starts from a position with nothing hidden, all of whose public pieces are shown (see
docs/games/kabaal.md, "What is summarised").
"""

from __future__ import annotations

from itertools import compress
from operator import ne
from typing import TYPE_CHECKING

import numpy as np

from kabenvs.core.observation import ObservationLayout
from kabenvs.games.kabaal.board import CULTISTS_PER_PLAYER, NUM_AREAS
from kabenvs.games.kabaal.cards import NUM_CARDS

if TYPE_CHECKING:
    from kabenvs.games.kabaal.rules import KabaalState

# The decision being asked, in the order of the ``phase`` one-hot block.
PHASES: tuple[str, ...] = ("pass", "play", "face_up", "place", "move", "push", "flip_down")
TRICKS_PER_ROUND = 6
NUM_COLOURS = 4
TRICK_VALUE = tuple((t + 1) / TRICKS_PER_ROUND for t in range(TRICKS_PER_ROUND))  # trick t's value
# Board moves, in the order of the ``board_moves_kind`` one-hot; "return" is a pushed cultist
# with no free adjacent card going back to its supply (the engine's doing).
MOVE_KINDS: tuple[str, ...] = ("place", "move", "push", "return", "flip_up", "flip_down", "stop")
MOVE_KIND = {k: i for i, k in enumerate(MOVE_KINDS)}
PITY_PART = TRICKS_PER_ROUND  # the part of the round a board move belongs to: tricks 0-5, then pity
PART_VALUE = tuple((t + 1) / (PITY_PART + 1) for t in range(PITY_PART + 1))
MAX_RITUALS_PER_CULT_AND_ROUND = 4
AREA_IDS = range(NUM_AREAS)


def max_board_moves(n: int, dagon: bool) -> int:
    """The most board moves one round can hold (the ``board_moves_*`` rows), from the rules:

    * each of the 6 tricks: at most 2 placement decisions (place, move, Dagon flip-up, or a stop
      declining the second), each lifting at most n cultists (one per cult on that card, the
      placer's own included), each then pushed or returned: 2 + 2n;
    * pity: at most n - 1 players won no trick (someone won each of the 6), each places or
      declines once, lifting at most n: (n - 1)(1 + n);
    * Dagon: each ritual turns one card face down and pushes or returns the other cults' cultists
      on it (the performer's are gone): at most n. A cult performs at most 2 rituals in one
      ritual step (6 cultists form at most 2 lines of 3) and none again in that trick (its
      cultists left the board, and Dagon pushes move only cultists on the board); a round goes on
      only while every altar holds at most 2, so a cult performs at most 2 + 2 = 4 rituals in a
      round: 4n rituals, 4n * n moves.
    """
    bound = TRICKS_PER_ROUND * (2 + 2 * n) + (n - 1) * (1 + n)
    if dagon:
        bound += MAX_RITUALS_PER_CULT_AND_ROUND * n * n
    return bound


def build_layout(n: int, num_actions: int, max_moves: int) -> ObservationLayout:
    C, A, T, M = NUM_CARDS, NUM_AREAS, TRICKS_PER_ROUND, max_moves
    lay = ObservationLayout()
    lay.add("to_move", n, "one-hot, seat-relative (0 = me): who decides now")
    lay.add("phase", len(PHASES), f"one-hot decision being asked: {', '.join(PHASES)}")
    lay.add("my_hidden_hand", C, "my hand cards that are not face up "
            "(card id = colour*8 + value-1; 32-35 = 5+, 6+, 7+, 666)")
    lay.add("my_passing", C, "cards I chose to pass left this round; after the exchange those still unplayed")
    lay.add("passes_chosen", n, "cards each player has chosen to pass this round / 2, before the "
            "exchange (which card is secret; seat-relative)")
    lay.add("received", (n, C), "the cards each player received this round (its first face-up cards: "
            "public after the exchange; seat-relative)")
    lay.add("face_up", (n, C), "every player's face-up cards now (seat-relative)")
    lay.add("revealed", (n, C), "cards each player turned face up to replace a played face-up card: "
            "(trick + 1) / 6 of the trick it was turned in (seat-relative)")
    lay.add("hand_size", n, "cards in each player's hand including face-up ones / 8 (seat-relative)")
    lay.add("trick", (n, C), "the current trick: the card each seat played to it (seat-relative)")
    lay.add("trick_leader", n, "one-hot: who opened the current trick (seat-relative); "
            "order follows clockwise")
    lay.add("played_round", (n, C), "every card each seat played this round, current trick included: "
            "(trick + 1) / 6 of the trick it was played to (seat-relative)")
    lay.add("trick_leaders", (T, n), "one-hot per trick of this round: who led it (seat-relative); "
            "the others follow clockwise")
    lay.add("trick_winners", (T, n), "one-hot per completed trick of this round: who won it (seat-relative)")
    lay.add("forced_plays", (T, n), "1 where a seat's card in that trick was its only legal card "
            "(the engine played it; public since the seat was never asked)")
    lay.add("voids", (n, NUM_COLOURS + 1), "1 where a seat showed this round that it holds no card of "
            "that colour (did not follow a coloured lead; last column: colourless, after a colourless lead)")
    lay.add("tricks_played", 1, "tricks completed this round / 6")
    lay.add("board", (A, n), "cultists of each cult on each area card "
            "(area id = colour*4 + pair; seat-relative)")
    lay.add("face_down", A, "area cards turned face down (Dagon option)")
    lay.add("supply", n, "cultists in each supply / 6 (seat-relative)")
    lay.add("altar", n, "rituals performed (cultists on the altar) / 3 (seat-relative)")
    lay.add("tricks_won", n, "tricks won this round / 6 (seat-relative)")
    lay.add("amulet", n, "one-hot: the amulet holder (seat-relative)")
    lay.add("actor", n, "one-hot: who places cultists now (trick winner or pity cultist); 0 when nobody")
    lay.add("pusher", n, "one-hot: who pushes in the current placement; 0 when nobody")
    lay.add("colours_used", NUM_COLOURS, "card colours already used for a placement in this trick")
    lay.add("pity", 1, "1 while pity cultists are placed (end of round)")
    lay.add("push_cultist", n, "one-hot: the cult of the cultist being pushed (seat-relative)")
    lay.add("push_from", A, "one-hot: the area card it is pushed from")
    lay.add("to_push", (A, n), "cultists lifted off each area card by a placement (or a Dagon flip) "
            "and still to be pushed from it, the one being pushed included (seat-relative)")
    lay.add("move_target", A, "one-hot: the area card a cultist is being moved to (empty supply)")
    lay.add("flip_line", A, "the line of the ritual whose performer turns one card face down (Dagon)")
    lay.add("flips_pending", (n, A), "Dagon: the lines of every ritual whose card is still to be "
            "turned, by performer (seat-relative), the current one included")
    lay.add("round_start_board", (A, n), "the board when this round was dealt: cultists of each cult on "
            "each area card (seat-relative)")
    lay.add("round_start_face_down", A, "area cards face down when this round was dealt (Dagon)")
    lay.add("board_moves_who", (M, n), "every board move of this round in order, row i = the i-th "
            "(rows after the last are 0): one-hot, who decided it (placer, pusher or Dagon performer; "
            "seat-relative)")
    lay.add("board_moves_kind", (M, len(MOVE_KINDS)), f"one-hot kind: {', '.join(MOVE_KINDS)} "
            "(return: a pushed cultist with no free adjacent card goes back to its supply)")
    lay.add("board_moves_cult", (M, n), "one-hot: the cult of the cultist placed, moved, pushed or "
            "returned (seat-relative); 0 for flips and stops")
    lay.add("board_moves_from", (M, A), "one-hot: the area card a moved, pushed or returned cultist left")
    lay.add("board_moves_to", (M, A), "one-hot: the area card placed on, moved or pushed to, or flipped")
    lay.add("board_moves_forced", M, "1 where the engine took the move (its only legal choice, or a return)")
    lay.add("board_moves_part", M, "(trick + 1) / 7 of the trick the move belongs to; 1 for the pity "
            "cultists (0: no move in this row)")
    lay.add("last_move", num_actions, "one-hot: the last decision a player was asked and took (action id); "
            "empty when it was another player's secret pass")
    lay.add("last_mover", n, "one-hot: who took that decision (seat-relative)")
    lay.add("round", 1, "round number / round limit")
    return lay


class Encoder:
    """Offsets of a layout, computed once per game so encoding is plain index arithmetic."""

    def __init__(self, lay: ObservationLayout, n: int, max_rounds: int, pass_ids: range) -> None:
        self.lay = lay
        self.n = n
        self.max_rounds = max_rounds
        self.pass_ids = pass_ids
        o = lay.offset
        self.to_move, self.phase = o("to_move"), o("phase")
        self.hidden, self.passing = o("my_hidden_hand"), o("my_passing")
        self.passes_chosen, self.received = o("passes_chosen"), o("received")
        self.face_up, self.revealed, self.hand_size = o("face_up"), o("revealed"), o("hand_size")
        self.trick, self.leader, self.played = o("trick"), o("trick_leader"), o("played_round")
        self.leaders, self.winners, self.forced = o("trick_leaders"), o("trick_winners"), o("forced_plays")
        self.voids = o("voids")
        self.tricks_played, self.board, self.face_down = o("tricks_played"), o("board"), o("face_down")
        self.supply, self.altar, self.tricks_won = o("supply"), o("altar"), o("tricks_won")
        self.amulet, self.actor, self.pusher = o("amulet"), o("actor"), o("pusher")
        self.colours_used, self.pity = o("colours_used"), o("pity")
        self.push_cultist, self.push_from, self.to_push = o("push_cultist"), o("push_from"), o("to_push")
        self.move_target, self.flip_line, self.flips_pending = o("move_target"), o("flip_line"), o("flips_pending")
        self.last_move, self.last_mover, self.round = o("last_move"), o("last_mover"), o("round")
        self.start_board, self.start_down = o("round_start_board"), o("round_start_face_down")
        self.mv_who, self.mv_kind = o("board_moves_who"), o("board_moves_kind")
        self.mv_cult = o("board_moves_cult")
        self.mv_from, self.mv_to = o("board_moves_from"), o("board_moves_to")
        self.mv_forced, self.mv_part = o("board_moves_forced"), o("board_moves_part")
        self.phase_index = {p: i for i, p in enumerate(PHASES)}
        self.rel = [[(p - me) % n for p in range(n)] for me in range(n)]
        # board_table[me][mask]: seat-relative indices of the cults whose bits are in mask
        self.board_table = [
            [[(p - me) % n for p in range(n) if mask >> p & 1] for mask in range(1 << n)] for me in range(n)
        ]
        # void_table[mask]: the columns of the voids block set in a voids bitmask
        self.void_table = [[c for c in range(NUM_COLOURS + 1) if mask >> c & 1] for mask in range(32)]
        # Two sections are kept per seat between calls (_SeatMemo), each a contiguous run of blocks
        # copied in with one slice assignment: the board (board, face_down), which only board
        # moves change, and the round's start board and board moves (round_start_board ..
        # board_moves_part), set once a round and then only extended by the moves appended.
        # The round's record of cards (played_round, forced_plays, revealed, trick_winners) is
        # kept there too, extended by the entries appended (_round_record).
        names = [b for b in lay.blocks()]
        for first, last in (("board", "face_down"), ("round_start_board", "board_moves_part")):
            run = names[names.index(first):names.index(last) + 1]
            assert all(lay[a].stop == lay.offset(b) for a, b in zip(run, run[1:]))
        self.board_run = slice(self.board, lay["face_down"].stop)
        # encode's per-seat counts (hand size, supply, altar, tricks won, passes chosen) and their scales
        counts = ((self.hand_size, 1.0 / 8.0), (self.supply, 1.0 / CULTISTS_PER_PLAYER), (self.altar, 1.0 / 3.0),
                  (self.tricks_won, 1.0 / TRICKS_PER_ROUND), (self.passes_chosen, 0.5))
        # v * scale for each count v as the float32 block holds it (float32(v) * float32(scale)),
        # so that encode writes the counts with its other fractional entries, in one store
        self.count_values = [(np.arange(256, dtype=np.float32) * np.float32(scale)).tolist() for _, scale in counts]
        self.log_run = slice(self.start_board, lay["board_moves_part"].stop)
        self.record_blocks = [lay[b] for b in ("played_round", "forced_plays", "revealed", "trick_winners")]

    def encode(self, s: "KabaalState", me: int) -> np.ndarray:
        n = self.n
        C = NUM_CARDS
        V = NUM_COLOURS + 1
        rel = self.rel[me]  # absolute seat -> seat-relative index
        table = self.board_table[me]
        memo = s._enc_memo.get(me)
        if memo is None:
            memo = s._enc_memo[me] = _SeatMemo(self)
        board, face_down = s.board, s.face_down
        if memo.board != board or memo.face_down != face_down:
            self._update_board(memo, board, face_down, table)
        self._log_vector(s, memo, table, rel)
        self._round_record(s, memo, rel)
        # a copy of the memo's vector: its board, log and record sections as kept, zeros elsewhere
        # (one pass over the memory instead of zeros and section copies)
        buf = memo.full.copy()
        # Every entry is one item written through a memoryview (as Cábula's encoder): no index
        # and value lists, no fancy store at the end. The entries below go to distinct blocks, so
        # the order of the writes does not matter.
        mv = memoryview(buf)
        mv[self.amulet + rel[s.amulet]] = 1.0
        if s.current_player is not None:
            mv[self.to_move + rel[s.current_player]] = 1.0
            mv[self.phase + self.phase_index[s.phase]] = 1.0
        # (plain loops, not list comprehensions: in Python 3.11 each comprehension builds a
        # function and a frame, ~130 ns, more than the 0-8 entries most of these lists hold)
        o = self.hidden
        for k in s.hands[me]:
            mv[o + k] = 1.0
        size_of, supply_of, altar_of, won_of, passes_of = self.count_values
        for p in range(n):
            r = rel[p]
            # the five per-seat counts (hand size, supply, altar, tricks won, passes chosen)
            passing = len(s.passing[p])
            mv[self.hand_size + r] = size_of[len(s.hands[p]) + len(s.faceup[p]) + passing]
            mv[self.supply + r] = supply_of[s.supply[p]]
            mv[self.altar + r] = altar_of[s.altar[p]]
            mv[self.tricks_won + r] = won_of[s.tricks_won[p]]
            mv[self.passes_chosen + r] = passes_of[passing]
            o = self.face_up + r * C
            for k in s.faceup[p]:
                mv[o + k] = 1.0
            o = self.received + r * C
            for k in s.received[p]:
                mv[o + k] = 1.0
            if s.voids[p]:
                o = self.voids + r * V
                for c in self.void_table[s.voids[p]]:
                    mv[o + c] = 1.0
        o = self.passing
        if s.passing[me]:
            for k in s.passing[me]:
                mv[o + k] = 1.0
        elif s.passed[me]:
            played_all: list[int] = []
            for cards in s.played:
                played_all += cards
            for k in s.passed[me]:
                if k not in played_all:
                    mv[o + k] = 1.0
        winners = s.trick_winners
        # trick t is led by the amulet holder (t = 0) or by the winner of trick t - 1
        led = len(winners) + (1 if 0 < len(s.trick_seats) < n else 0)
        if led:
            o = self.leaders
            mv[o + rel[s.amulet]] = 1.0
            for t in range(1, led):
                mv[o + t * n + rel[winners[t - 1]]] = 1.0
        if s.trick_seats:
            o = self.trick
            for seat, k in zip(s.trick_seats, s.trick_cards):
                mv[o + rel[seat] * C + k] = 1.0
            mv[self.leader + rel[s.trick_seats[0]]] = 1.0
        if s.actor is not None:
            mv[self.actor + rel[s.actor]] = 1.0
        if s.pusher is not None:
            mv[self.pusher + rel[s.pusher]] = 1.0
        for c in s.place_colours:
            mv[self.colours_used + c] = 1.0
        if s.context == "pity":
            mv[self.pity] = 1.0
        if s.push_queue:
            o = self.to_push
            for a, q in s.push_queue:
                mv[o + a * n + rel[q]] = 1.0
            if s.phase == "push":
                a, q = s.push_queue[0]
                mv[self.push_cultist + rel[q]] = 1.0
                mv[self.push_from + a] = 1.0
        if s.move_target is not None:
            mv[self.move_target + s.move_target] = 1.0
        if s.flip_queue:
            o = self.flips_pending
            for q, line in s.flip_queue:
                for a in line:
                    mv[o + rel[q] * NUM_AREAS + a] = 1.0
            if s.phase == "flip_down":
                for a in s.flip_queue[0][1]:
                    mv[self.flip_line + a] = 1.0
        if s.last_move:
            mover, action = s.last_move
            mv[self.last_mover + rel[mover]] = 1.0
            if mover == me or action not in self.pass_ids:
                mv[self.last_move + action] = 1.0
        mv[self.tricks_played] = s.tricks_played / TRICKS_PER_ROUND
        mv[self.round] = s.round / self.max_rounds
        return buf

    def _update_board(self, memo: _SeatMemo, board: list[int], face_down: list[int], table) -> None:
        """Rewrite the memo's board section where the board changed since this seat's last
        observation: the area cards whose cults differ, the face-down flags that differ (a
        placement changes one to three cards of 16; rebuilding all 16 cost more than the rest)."""
        vec = memo.board_mv
        n = self.n
        old = memo.board
        # the changed areas, found in C (compress over map(ne)): a Python loop comparing all 16
        # cards cost more than rewriting the one to three that changed
        for a in compress(AREA_IDS, map(ne, old, board)):
            row = a * n
            for r in table[old[a]]:
                vec[row + r] = 0.0
            for r in table[board[a]]:
                vec[row + r] = 1.0
        if memo.face_down != face_down:
            down = self.face_down - self.board
            for a, d in enumerate(face_down):
                vec[down + a] = 1.0 if d else 0.0
        memo.board = board[:]
        memo.face_down = face_down[:]

    def _round_record(self, s: "KabaalState", memo: "_SeatMemo", rel: list[int]) -> None:
        """The played_round, forced_plays, revealed and trick_winners blocks for this seat, kept in
        ``memo``: within a round the rules only append to played, forced, revealed and
        trick_winners (a new round replaces the lists; an edit by hand calls touch(), which drops
        the memo), so only the entries appended since this seat's last observation are written.
        (Rewriting the whole record each time cost about a tenth of an observation.)"""
        played = s.played
        if memo.record_key is not played:  # a new round, or a new memo
            memo.record_key = played
            for block in self.record_blocks:
                memo.full[block] = 0.0
            memo.played_rows = [0] * self.n
            memo.revealed_rows = [0] * self.n
            memo.winner_rows = 0
        mv = memo.full_mv
        n, C = self.n, NUM_CARDS
        for p in range(n):
            cards = played[p]
            done = memo.played_rows[p]
            if len(cards) > done:
                r = rel[p]
                o = self.played + r * C
                forced = s.forced[p]  # one entry per card played
                for t in range(done, len(cards)):
                    mv[o + cards[t]] = TRICK_VALUE[t]
                    if forced[t]:
                        mv[self.forced + t * n + r] = 1.0
                memo.played_rows[p] = len(cards)
            revealed = s.revealed[p]
            done = memo.revealed_rows[p]
            if len(revealed) > done:
                o = self.revealed + rel[p] * C
                for k, t in revealed[done:]:
                    mv[o + k] = TRICK_VALUE[t]
                memo.revealed_rows[p] = len(revealed)
        winners = s.trick_winners
        done = memo.winner_rows
        if len(winners) > done:
            o = self.winners
            for t in range(done, len(winners)):
                mv[o + t * n + rel[winners[t]]] = 1.0
            memo.winner_rows = len(winners)

    def _board_indices(self, board, face_down, table, o: int, down: int) -> list[int]:
        """Indices (from ``o``) set to 1 for a board and its face-down cards; ``down``: the
        face-down block's offset from the board block's."""
        n = self.n
        ones = [o + down + a for a, d in enumerate(face_down) if d] if any(face_down) else []
        for a, mask in enumerate(board):
            if mask:
                ones += [o + a * n + r for r in table[mask]]
        return ones

    def _log_vector(self, s: "KabaalState", memo: "_SeatMemo", table, rel) -> None:
        """The round_start_* and board_moves_* blocks for this seat, kept in ``memo``: rebuilt when
        the round's start changed (a new round) or the log is not the one extended so far, else
        only the moves appended since the last call are written."""
        rs = s.round_start
        log = s.board_log
        vec = memo.log_mv  # scalar stores through a memoryview: cheaper than numpy's __setitem__
        done = memo.log_rows
        # identity checks: a new round replaces round_start and board_log, the rules only append
        # to the log, and an edit by hand calls touch(), which drops the memo
        if (memo.log_key is not rs or memo.log is not log or len(log) < done
                or (done and log[done - 1] is not memo.log_last)):
            memo.log_key, memo.log, memo.log_rows, done = rs, log, 0, 0
            memo.log_vec[:] = 0.0
            memo.log_vec[self._board_indices(rs["board"], rs["face_down"], table, 0, self.start_down - self.start_board)] = 1.0
        if len(log) > done:
            n, A, K = self.n, NUM_AREAS, len(MOVE_KINDS)
            base = self.start_board
            who, kind, cult = self.mv_who - base, self.mv_kind - base, self.mv_cult - base
            src, dst = self.mv_from - base, self.mv_to - base
            forced_at, part_at = self.mv_forced - base, self.mv_part - base
            for i in range(done, len(log)):
                p, k, q, a, b, forced, part = log[i]
                vec[who + i * n + rel[p]] = 1.0
                vec[kind + i * K + k] = 1.0
                if q >= 0:
                    vec[cult + i * n + rel[q]] = 1.0
                if a >= 0:
                    vec[src + i * A + a] = 1.0
                if b >= 0:
                    vec[dst + i * A + b] = 1.0
                if forced:
                    vec[forced_at + i] = 1.0
                vec[part_at + i] = PART_VALUE[part]
            memo.log_rows = len(log)
            memo.log_last = log[-1]


class _SeatMemo:
    """One seat's slow-changing observation sections (see Encoder.__init__), kept on the state as
    ``_enc_memo[seat]`` and dropped with its other caches (clones, restores, resampled worlds
    start without one). Its vectors are copied into each observation, never handed out."""

    __slots__ = ("board", "face_down", "full", "full_mv", "board_mv", "log_key", "log", "log_rows", "log_last",
                 "log_vec", "log_mv", "record_key", "played_rows", "revealed_rows", "winner_rows")

    def __init__(self, enc: Encoder) -> None:
        # A whole observation vector holding only the kept sections (board_mv and log_vec are
        # views into it; the round's record is written through full_mv): each observation starts
        # as a copy of it.
        self.full = np.zeros(enc.lay.size, dtype=np.float32)
        self.full_mv = memoryview(self.full)
        # the board and face-down flags the section shows (an empty board: all zeros)
        self.board = [0] * NUM_AREAS
        self.face_down = [0] * NUM_AREAS
        self.board_mv = memoryview(self.full[enc.board_run])  # scalar stores: see _update_board
        self.log_key = None
        self.log = None
        self.log_rows = 0
        self.log_last = None
        self.log_vec = self.full[enc.log_run]
        self.log_mv = memoryview(self.log_vec)
        # the round's record of cards (Encoder._round_record): the entries written so far
        self.record_key = None  # the round's ``played`` list (a new round replaces it)
        self.played_rows = [0] * enc.n
        self.revealed_rows = [0] * enc.n
        self.winner_rows = 0
