"""A one-ply greedy Kabaleo bot.

It knows only what its seat knows: its own colour, the public board and stocks. For every legal
placement it looks at the board that would result and scores it for its own colour by the
rulebook's own order of tie-breaks (spots, then covered stacks, then tallest stack), minus how
strong the strongest other colour would be. It never has to guess the others' colours, and it
prefers to spend pieces of other colours first, keeping its own for the end, when a covering
move can no longer be answered.
"""

from __future__ import annotations

import numpy as np

from kabenvs.agents.base import Decision


class HeuristicAgent:
    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, decision: Decision) -> int:
        state = decision.state
        game = state.game
        me = state.targets[decision.player]  # the bot's own colour: its seat knows it
        legal = state.legal_actions()
        if legal == [game.pass_id]:
            return legal[0]
        nc = game.num_colours
        tops = [stack[-1] for stack in state.spots]
        counts = [0] * nc
        for t in tops:
            counts[t] += 1
        pieces_left = sum(state.stock[decision.player])
        best, best_value = [], -1e9
        # A placement turns one spot from colour `old` to `new`, so the counts afterwards (my
        # count, the strongest other colour's) depend on that pair only: worked out once per pair
        # (at most colours^2 of them, against up to ~100 placements; the per-placement copy and
        # max were 250 us of every move of this bot in training's opponent share)
        after_pair: dict[int, tuple[int, int]] = {}
        for a in legal:
            c, s = divmod(a, game.num_spots)
            stack = state.spots[s]
            old = stack[-1]
            new = stack[-2] if (len(stack) > 1 and old == c) else c
            pair = after_pair.get(old * nc + new)
            if pair is None:
                after = counts[:]
                after[old] -= 1
                after[new] += 1
                pair = after_pair[old * nc + new] = (after[me], max(after[k] for k in range(nc) if k != me))
            mine, others = pair
            value = 10.0 * (mine - others) + 2.0 * mine
            height = len(stack) - 1 + (-1 if new != c else 1)
            if new == me and height > 0:
                value += 1.0 + 0.1 * height  # covered stacks and tall stacks break ties
            if c == me and pieces_left > 3:
                value -= 0.5  # keep own-colour pieces for late, unanswerable moves
            if value > best_value + 1e-9:
                best, best_value = [a], value
            elif abs(value - best_value) <= 1e-9:
                best.append(a)
        return best[int(self.rng.integers(len(best)))]
