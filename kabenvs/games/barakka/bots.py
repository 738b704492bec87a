"""A heuristic Barakka bot that reads only its seat's observation vector (never the state's truth).

It values a card for one of its sequences by what that seat knows of the sequence: a number it
lacks (the 1 most), a first joker (much more under El-Samra) are good; a duplicate number or a
second joker ruins the sequence; El Portugues cards are only worth it on a long sequence. It
draws a discard pile's top when that card is clearly good for it, else the deck; it plays a good
card and discards a bad one onto the pile whose top helps the opponent most (covering it). With
El-Karim it plays only onto a face-down card it knows to be of the same colour and otherwise
starts a new sequence.

With ``memory="table"`` the observation shows only tops, so the bot remembers the cards it played
itself (as a person would), position by position; a memory that no longer matches the sizes the
table shows (a new game, a reused agent, a decision it made that was not applied) is dropped.
A fresh bot has no memory and decides from the observation alone.
"""

from __future__ import annotations

import numpy as np

from kabenvs.agents.base import Decision
from kabenvs.games.barakka.data import JOKER, MAX_SEQUENCE, RANKS

DRAW_THRESHOLD = 2.0  # a pile card at least this good beats a blind draw from the deck


class HeuristicAgent:
    name = "barakka-heuristic"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self._mine: dict[int, list[int]] = {}  # position -> cards I played there (table memory)

    def act(self, decision: Decision) -> int:
        state = decision.state
        g = state.game
        legal = decision.legal_actions
        obs = decision.observation
        view = g.layout.split(obs if g.perfect else obs.copy())  # _recall writes into the copy
        if not g.perfect:
            self._recall(g, view)
        phase = int(np.argmax(view["decision"]))  # draw, play, drop, solo_play
        if phase == 0:
            return self._draw(g, view, legal)
        held = [int(np.argmax(row)) for row in view["held"] if row.any()]
        if phase == 2:  # solo: discard the worse of the two cards
            gains = [self._best_play(g, view, x)[0] for x in held]
            return g.drop_ids[0] if gains[0] <= gains[1] else g.drop_ids[1]
        card = held[0]
        gain, pos = self._best_play(g, view, card)
        if pos is not None and gain > 0 and g.play_ids[pos] in legal:
            if not g.perfect:
                self._mine.setdefault(pos, []).append(card)
            return g.play_ids[pos]
        return self._discard(g, view)

    def _recall(self, g, view) -> None:
        """Write the remembered cards of my own sequences into the view (table memory)."""
        sizes = np.rint(view["seq_size"][0] * MAX_SEQUENCE).astype(int)
        for pos in list(self._mine):
            if len(self._mine[pos]) != sizes[pos]:
                del self._mine[pos]
        for pos, cards in self._mine.items():
            row = np.zeros(g.num_types, dtype=np.float32)
            for x in cards:
                row[x] += 1
            view["seq"][0, pos] = row
            if g.karim:
                view["seq_bottom"][0, pos] = 0
                view["seq_bottom"][0, pos, cards[0]] = 1

    # -- decisions ------------------------------------------------------------------------------
    def _draw(self, g, view, legal: list[int]) -> int:
        best, choice = DRAW_THRESHOLD, g.draw_deck_id
        for i, a in enumerate(g.draw_pile_ids):
            if a not in legal:
                continue
            top = view["pile_top"][i, 0]
            if not top.any():
                continue
            gain = self._best_play(g, view, int(np.argmax(top)))[0]
            if gain >= best:
                best, choice = gain, a
        return choice

    def _discard(self, g, view) -> int:
        if len(g.discard_ids) == 1:
            return g.discard_ids[0]
        scores = []
        for i in range(len(g.discard_ids)):
            top = view["pile_top"][i, 0]
            if not top.any():
                scores.append(-99.0)
                continue
            scores.append(self._best_play(g, view, int(np.argmax(top)), row=1)[0])
        best = max(scores)
        options = [g.discard_ids[i] for i, s in enumerate(scores) if s == best]
        return options[int(self.rng.integers(len(options)))] if len(options) > 1 else options[0]

    # -- valuation ------------------------------------------------------------------------------
    def _best_play(self, g, view, card: int, row: int = 0) -> tuple[float, int | None]:
        """(gain, position) of the best place for ``card`` in the sequences of seat-row ``row``."""
        c = card // RANKS
        sizes = np.rint(view["seq_size"][row] * MAX_SEQUENCE).astype(int)
        if not g.karim:
            return self._gain(g, view, card, row, c, sizes[c]), c
        tops = view["seq_top"][row]
        bottoms = view["seq_bottom"][row]
        started = int((sizes > 0).sum())
        for k in range(started):
            if sizes[k] >= 2 and tops[k].any() and int(np.argmax(tops[k])) // RANKS == c:
                return self._gain(g, view, card, row, k, sizes[k]), k
        for k in range(started):
            if sizes[k] == 1 and bottoms[k].any() and int(np.argmax(bottoms[k])) // RANKS == c:
                return self._gain(g, view, card, row, k, 1), k
        if started < len(sizes):
            return self._gain(g, view, card, row, started, 0), started
        return -99.0, None

    def _gain(self, g, view, card: int, row: int, pos: int, size: int) -> float:
        if size >= MAX_SEQUENCE:
            return -99.0
        c, r = divmod(card, RANKS)
        known = view["seq"][row, pos]
        colour_cards = known[c * RANKS:(c + 1) * RANKS]
        if known.sum() > colour_cards.sum():
            return -1.0  # the sequence already holds another colour: it scores 0 anyway
        deck_left = float(view["deck_size"].sum())
        if r == JOKER:
            if colour_cards[JOKER] > 0:
                return -5.0
            return 6.0 if g.config.el_samra else 3.0
        if colour_cards[r] > 0:
            return -5.0
        if c == g.port:
            return 3.0 if size + 1 >= 4 else -1.0
        gain = 2.0 + (1.0 if r == 1 else 0.0)
        if size == 0 and r > 2 and deck_left < 0.1:
            gain = 0.5  # too late to start from the middle
        return gain
