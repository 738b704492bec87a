"""A heuristic Kabaal bot: wins tricks that place well, builds lines, breaks the others' lines.

It reads only what its seat may know: its own hand, face-up cards, cards played this round, the
current trick and the board (the shared kit checks this by asking it again in resampled worlds).

* Board value: every window of three consecutive area cards in a row or column scores by how many
  of a cult's cultists stand in it (0, 1, 3, 40 for a complete line); my value minus 0.7 times
  the best opponent's.
* Playing: for each playable card, the chance it takes the trick (certain or impossible when it
  is the last card; otherwise from the unseen and visible cards that could still beat it) times
  what the best placements from the resulting trick would add to the board value, minus a small
  cost for spending a strong card.
* Placing, moving, pushing, Dagon flips: the choice with the best board value afterwards.
* Passing and face-up replacements: give away / reveal the weakest cards.
"""

from __future__ import annotations

import functools

import numpy as np

from kabenvs.agents.base import Decision
from kabenvs.games.kabaal.board import NUM_AREAS
from kabenvs.games.kabaal.cards import AREA, CARD_666, COLOUR, NO_COLOUR, NUM_CARDS, RANK
from kabenvs.games.kabaal.rules import KabaalState

WINDOW_SCORE = (0.0, 1.0, 3.0, 40.0)
OPPONENT_WEIGHT = 0.7


class HeuristicAgent:
    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)  # kept for the Agent protocol; choices are deterministic

    # -- board value --------------------------------------------------------------------------

    def _value(self, state: KabaalState, board: list[int], face_down: list[int], me: int) -> float:
        pots = [0.0] * state.num_players
        _add_windows(pots, state.game.geometry.triples, board, face_down, 1.0)
        return _score(pots, me)

    def _value_after(self, state: KabaalState, pots: list[float], board: list[int], face_down: list[int],
                     areas: tuple[int, ...], me: int) -> float:
        """``_value`` of ``board``/``face_down``, which differ from the state's only in ``areas``,
        from the state's own window sums ``pots``: only the windows through those areas are
        counted again. The sums are of small whole numbers (0, 1, 3, 40), exact in floats in any
        order, so this is the same number as ``_value`` (it was 40% of the bot's time)."""
        windows = _windows_through(state.game.geometry, areas)
        pots = pots[:]
        _add_windows(pots, windows, state.board, state.face_down, -1.0)
        _add_windows(pots, windows, board, face_down, 1.0)
        return _score(pots, me)

    def _pots(self, state: KabaalState) -> list[float]:
        pots = [0.0] * state.num_players
        _add_windows(pots, state.game.geometry.triples, state.board, state.face_down, 1.0)
        return pots

    def _place_gain(self, state: KabaalState, a: int, me: int, base: float, pots: list[float]) -> float:
        board = state.board[:]
        board[a] = 1 << me  # whoever stood there is pushed away (ignored)
        return self._value_after(state, pots, board, state.face_down, (a,), me) - base

    # -- decisions ----------------------------------------------------------------------------------
    def act(self, decision: Decision) -> int:
        state: KabaalState = decision.state
        me = decision.player
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        g = state.game
        phase = state.phase
        lowest = g.config.lowest_wins
        if phase == "pass":
            return min(legal, key=lambda a: (self._keep_value(a - g.pass_base, lowest), a))
        if phase == "face_up":
            return min(legal, key=lambda a: (self._keep_value(a - g.face_up_base, lowest), a))
        if phase == "play":
            return self._play(state, me, legal)
        return self._best_board_choice(state, me, legal)

    @staticmethod
    def _keep_value(k: int, lowest: bool) -> float:
        """How much a card is worth keeping: its trick strength, plus a bit for colourless cards
        (playable on any lead)."""
        if k == CARD_666:
            return 100.0
        strength = 18 - RANK[k] if lowest else RANK[k]
        return strength + (6.0 if COLOUR[k] == NO_COLOUR else 0.0)

    def _best_board_choice(self, state: KabaalState, me: int, legal: list[int]) -> int:
        g = state.game
        best, best_score = legal[0], -1e18
        pots = self._pots(state)
        base = _score(pots, me)
        value_after = self._value_after
        for a in legal:
            kind = g.kind_of[a]
            board = state.board[:]
            down = state.face_down
            if kind == "place":
                area = a - g.place_base
                board[area] = 1 << state.actor  # whoever stood there is pushed away (ignored)
                score = value_after(state, pots, board, down, (area,), me)
            elif kind == "stop":
                score = base
            elif kind == "move_from":
                src = a - g.move_base
                board[src] &= ~(1 << me)
                board[state.move_target] = 1 << me
                score = value_after(state, pots, board, down, (src, state.move_target), me)
            elif kind == "push":
                q, area = divmod(a - g.push_base, NUM_AREAS)
                board[area] |= 1 << q
                score = value_after(state, pots, board, down, (area,), me)
            elif kind == "flip_up":
                area = a - g.flip_up_base
                down = down[:]
                down[area] = 0
                score = value_after(state, pots, board, down, (area,), me) + 0.1
            elif kind == "flip_down":
                area = a - g.flip_down_base
                down = down[:]
                down[area] = 1
                board[area] = 0
                score = value_after(state, pots, board, down, (area,), me)
            else:
                score = 0.0
            if score > best_score + 1e-9:
                best, best_score = a, score
        return best

    # -- playing cards ------------------------------------------------------------------------------
    def _play(self, state: KabaalState, me: int, legal: list[int]) -> int:
        from kabenvs.games.kabaal.rules import trick_winner

        g = state.game
        n = state.num_players
        lowest = g.config.lowest_wins
        trick_cards, trick_seats = state.trick_cards, state.trick_seats
        still_to_play = [(me + i) % n for i in range(1, n - len(trick_cards))]
        # Cards I cannot see: the deck minus my hand, every face-up and every played card.
        seen = set(state.hands[me]) | set(state.faceup[me])
        for p in range(n):
            seen.update(state.faceup[p])
            seen.update(state.played[p])
        unseen = [k for k in g.deck if k not in seen]
        visible_later = [k for p in still_to_play for k in state.faceup[p]]
        pots = self._pots(state)
        base = _score(pots, me)
        gains: dict[int, float] = {}

        def gain_of(area: int) -> float:
            if area not in gains:
                gains[area] = 0.0 if state.face_down[area] else self._place_gain(state, area, me, base, pots)
            return gains[area]

        best, best_score = legal[0], -1e18
        for a in legal:
            k = a - g.play_base
            cards = trick_cards + [k]
            seats = trick_seats + [me]
            if trick_winner(cards, seats, lowest) != me:
                p_win = 0.0
            elif not still_to_play:
                p_win = 1.0
            else:
                led = COLOUR[cards[0]]
                beats = _beaters(k, led, lowest)
                p_unseen = sum(1 for x in unseen if x in beats) / max(1, len(unseen))
                p_win = (1.0 - p_unseen) ** (2 * len(still_to_play))
                p_win *= 0.25 ** sum(1 for x in visible_later if x in beats)
            score = -0.05 * self._keep_value(k, lowest)
            if p_win > 0:
                per_colour: dict[int, float] = {}
                for x in cards:
                    c = COLOUR[x]
                    if c != NO_COLOUR:
                        per_colour[c] = max(per_colour.get(c, -1e9), gain_of(AREA[x]))
                top = sorted(per_colour.values(), reverse=True)
                placed = (top[0] if top else 0.0) + sum(v for v in top[1:2] if v > 0)
                score += p_win * (1.0 + placed)
            if score > best_score + 1e-9:
                best, best_score = a, score
        return best


def _score(pots: list[float], me: int) -> float:
    """The board value from every seat's window sum: mine less 0.7 times the best other's."""
    others = max((pots[q] for q in range(len(pots)) if q != me), default=0.0)
    return pots[me] - OPPONENT_WEIGHT * others


def _add_windows(pots: list[float], windows, board: list[int], face_down: list[int], sign: float) -> None:
    """Add (sign 1) or take away (sign -1) what ``windows`` score for each seat on this board:
    a window with a face-down card scores nothing; else each seat scores by its cultists in it."""
    n = len(pots)
    for a, b, c in windows:
        if face_down[a] or face_down[b] or face_down[c]:
            continue
        ma, mb, mc = board[a], board[b], board[c]
        if not (ma | mb | mc):
            continue
        for q in range(n):
            cnt = (ma >> q & 1) + (mb >> q & 1) + (mc >> q & 1)
            if cnt:
                pots[q] += sign * WINDOW_SCORE[cnt]


_WINDOWS_THROUGH: dict[tuple, tuple] = {}


def _windows_through(geometry, areas: tuple[int, ...]) -> tuple:
    """The windows (triples) of ``geometry`` that hold any of ``areas``, each once, in the order of
    ``geometry.triples``; memoised (a few boards and at most 16 x 16 area pairs)."""
    key = (geometry.triples, areas)
    found = _WINDOWS_THROUGH.get(key)
    if found is None:
        found = _WINDOWS_THROUGH[key] = tuple(t for t in geometry.triples if any(a in t for a in areas))
    return found


@functools.lru_cache(maxsize=None)
def _beaters(k: int, led: int, lowest: bool) -> frozenset[int]:
    """Cards that would beat ``k`` in a trick led with colour ``led`` (eligible and better);
    memoised (a pure function of a few small ints: 2 x 19 x 6 x 2 calls at most)."""
    if k == CARD_666:
        return frozenset()
    out = {CARD_666}
    r = RANK[k]
    for x in range(NUM_CARDS):
        if x == CARD_666 or x == k:
            continue
        c = COLOUR[x]
        if c != led and c != NO_COLOUR:
            continue
        if (RANK[x] < r) if lowest else (RANK[x] > r):
            out.add(x)
    return frozenset(out)
