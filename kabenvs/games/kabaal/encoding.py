"""Kabaal observation: one seat's information state as a flat float32 vector.

Seat-relative: in every per-player block index 0 is the observing seat, 1 the next seat
clockwise (the player it passes cards to), and so on. Everything here is either public or the
observing seat's own knowledge; the hidden cards of other hands and the undealt cards never
enter (the shared kit checks this with ``resample_hidden``).
"""

from __future__ import annotations

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


def build_layout(n: int) -> ObservationLayout:
    C, A = NUM_CARDS, NUM_AREAS
    lay = ObservationLayout()
    lay.add("to_move", n, "one-hot, seat-relative (0 = me): who decides now")
    lay.add("phase", len(PHASES), f"one-hot decision being asked: {', '.join(PHASES)}")
    lay.add("my_hidden_hand", C, "my hand cards that are not face up "
            "(card id = colour*8 + value-1; 32-35 = 5+, 6+, 7+, 666)")
    lay.add("my_passing", C, "cards I chose to pass left this round; after the exchange those still unplayed")
    lay.add("my_received", C, "cards I received from my right neighbour this round")
    lay.add("face_up", (n, C), "every player's face-up cards (seat-relative)")
    lay.add("hand_size", n, "cards in each player's hand including face-up ones / 8 (seat-relative)")
    lay.add("trick", (n, C), "the current trick: the card each seat played to it (seat-relative)")
    lay.add("trick_leader", n, "one-hot: who opened the current trick (seat-relative); "
            "order follows clockwise")
    lay.add("played_round", (n, C), "every card each seat played this round, current trick included "
            "(seat-relative)")
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
    lay.add("move_target", A, "one-hot: the area card a cultist is being moved to (empty supply)")
    lay.add("flip_line", A, "the line of the ritual whose performer turns one card face down (Dagon)")
    lay.add("round", 1, "round number / round limit")
    return lay


class Encoder:
    """Offsets of a layout, computed once per game so encoding is plain index arithmetic."""

    def __init__(self, lay: ObservationLayout, n: int, max_rounds: int) -> None:
        self.lay = lay
        self.n = n
        self.max_rounds = max_rounds
        o = lay.offset
        self.to_move, self.phase = o("to_move"), o("phase")
        self.hidden, self.passing, self.received = o("my_hidden_hand"), o("my_passing"), o("my_received")
        self.face_up, self.hand_size = o("face_up"), o("hand_size")
        self.trick, self.leader, self.played = o("trick"), o("trick_leader"), o("played_round")
        self.tricks_played, self.board, self.face_down = o("tricks_played"), o("board"), o("face_down")
        self.supply, self.altar, self.tricks_won = o("supply"), o("altar"), o("tricks_won")
        self.amulet, self.actor, self.pusher = o("amulet"), o("actor"), o("pusher")
        self.colours_used, self.pity = o("colours_used"), o("pity")
        self.push_cultist, self.push_from = o("push_cultist"), o("push_from")
        self.move_target, self.flip_line, self.round = o("move_target"), o("flip_line"), o("round")
        self.phase_index = {p: i for i, p in enumerate(PHASES)}
        self.rel = [[(p - me) % n for p in range(n)] for me in range(n)]
        # board_table[me][mask]: seat-relative indices of the cults whose bits are in mask
        self.board_table = [
            [[(p - me) % n for p in range(n) if mask >> p & 1] for mask in range(1 << n)] for me in range(n)
        ]

    def encode(self, s: "KabaalState", me: int) -> np.ndarray:
        n = self.n
        C = NUM_CARDS
        buf = np.zeros(self.lay.size, dtype=np.float32)
        # indices set to 1.0 in one vectorised store at the end
        rel = self.rel[me]  # absolute seat -> seat-relative index
        ones: list[int] = [self.amulet + rel[s.amulet]]
        add = ones.append
        if s.current_player is not None:
            add(self.to_move + rel[s.current_player])
            add(self.phase + self.phase_index[s.phase])
        o = self.hidden
        ones += [o + k for k in s.hands[me]]
        played_all: list[int] = []
        scalars = [0.0] * (4 * n)
        for p in range(n):
            r = rel[p]
            o = self.face_up + r * C
            ones += [o + k for k in s.faceup[p]]
            o = self.played + r * C
            ones += [o + k for k in s.played[p]]
            played_all += s.played[p]
            scalars[r] = len(s.hands[p]) + len(s.faceup[p]) + len(s.passing[p])
            scalars[n + r] = s.supply[p]
            scalars[2 * n + r] = s.altar[p]
            scalars[3 * n + r] = s.tricks_won[p]
        buf[self.hand_size:self.hand_size + n] = scalars[:n]
        buf[self.supply:self.supply + n] = scalars[n:2 * n]
        buf[self.altar:self.altar + n] = scalars[2 * n:3 * n]
        buf[self.tricks_won:self.tricks_won + n] = scalars[3 * n:]
        o = self.passing
        if s.passing[me]:
            ones += [o + k for k in s.passing[me]]
        elif s.passed[me]:
            ones += [o + k for k in s.passed[me] if k not in played_all]
        o = self.received
        ones += [o + k for k in s.received[me]]
        if s.trick_seats:
            o = self.trick
            ones += [o + rel[seat] * C + k for seat, k in zip(s.trick_seats, s.trick_cards)]
            add(self.leader + rel[s.trick_seats[0]])
        o = self.board
        table = self.board_table[me]
        for a, mask in enumerate(s.board):
            if mask:
                ones += [o + a * n + r for r in table[mask]]
        if any(s.face_down):
            ones += [self.face_down + a for a, d in enumerate(s.face_down) if d]
        if s.actor is not None:
            add(self.actor + rel[s.actor])
        if s.pusher is not None:
            add(self.pusher + rel[s.pusher])
        if s.place_colours:
            ones += [self.colours_used + c for c in s.place_colours]
        if s.context == "pity":
            add(self.pity)
        if s.push_queue and s.phase == "push":
            a, q = s.push_queue[0]
            add(self.push_cultist + rel[q])
            add(self.push_from + a)
        if s.move_target is not None:
            add(self.move_target + s.move_target)
        if s.flip_queue and s.phase == "flip_down":
            ones += [self.flip_line + a for a in s.flip_queue[0][1]]
        buf[ones] = 1.0
        # scale the counts written above
        buf[self.hand_size:self.hand_size + n] *= 1.0 / 8.0
        buf[self.supply:self.supply + n] *= 1.0 / CULTISTS_PER_PLAYER
        buf[self.altar:self.altar + n] *= 1.0 / 3.0
        buf[self.tricks_won:self.tricks_won + n] *= 1.0 / TRICKS_PER_ROUND
        buf[self.tricks_played] = s.tricks_played / TRICKS_PER_ROUND
        buf[self.round] = s.round / self.max_rounds
        return buf
