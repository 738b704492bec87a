"""A heuristic Cábula bot: win when it can, stop the leader, build stars, draw, steal, keep wands.

It reads only what its seat may know: its own hand, the public table (displays, hand sizes,
discard pile, the pending decision) and its own certain knowledge of other hands
(``state.known_cards(me, other)``). It never looks at other hands or the deck.
"""

from __future__ import annotations

import numpy as np

from kabenvs.agents.base import Decision
from kabenvs.games.cabula.cards import (
    BALL, BOOK, CAULDRON, DOUBLE, MONSTERS, NECRO, PARCHMENT, SKULL, STAR, WAND, WIN_STARS, WITCH,
)

# Necromancy discards, cheapest first (a monster kind held once is the least useful card).
_KEEP_VALUE = {
    CAULDRON: 2, BALL: 3, BOOK: 4, PARCHMENT: 5, WAND: 8, STAR: 9, DOUBLE: 10,
}
# Two crystal balls: what to take, best first.
_TAKE_ORDER = (DOUBLE, STAR, WAND, PARCHMENT, BOOK, CAULDRON, BALL) + MONSTERS


class HeuristicAgent:
    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)  # unused: the bot is deterministic

    # -- helpers ----------------------------------------------------------------------------------
    @staticmethod
    def _total(state, p: int) -> int:
        d = state.display[p]
        return d[0] + 2 * d[1]

    def _opponents_by_threat(self, state, me: int) -> list[int]:
        """Other seats, most stars first; ties: bigger hand, then the nearest clockwise."""
        n = state.num_players
        others = [(me + k) % n for k in range(1, n)]
        return sorted(
            others,
            key=lambda p: (-self._total(state, p), -sum(state.hands[p]), (p - me) % n),
        )

    def act(self, decision: Decision) -> int:
        state = decision.state
        me = decision.player
        g = state.game
        f = state.stack[-1]
        k = f["k"]
        if k == "main":
            return self._main(state, me)
        if k == "target":
            return g.target_ids[self._target(state, me, f["card"], f["cnt"])]
        if k == "curse":
            if f["stage"] == "redirect":
                return g.target_ids[self._redirect(state, me, f["c"])]
            return g.wand_ids[self._wands(state, me, f["c"])]
        if k == "star":
            return g.star_ids[self._star(f)]
        if k == "necro":
            hand = state.hands[me]
            held = [c for c in range(len(hand)) if hand[c]]
            return g.discard_ids[min(held, key=lambda c: (self._keep_value(hand, c), c))]
        # take (two crystal balls): the victim's hand is known to us now
        hand = state.known_cards(me, f["v"])
        for c in _TAKE_ORDER:
            if hand[c]:
                return g.take_ids[c]
        return decision.legal_actions[0]

    @staticmethod
    def _keep_value(hand: list[int], c: int) -> int:
        if c in MONSTERS:
            return hand[c]  # a lone monster is worth least, a set more
        return _KEEP_VALUE[c]

    # -- the main decision ------------------------------------------------------------------------
    def _main(self, state, me: int) -> int:
        g = state.game
        hand = state.hands[me]
        mine = self._total(state, me)
        play = g.play_ids
        threats = self._opponents_by_threat(state, me)
        leader = threats[0]
        lead = self._total(state, leader)
        ld = state.display[leader]

        if hand[STAR] and mine + 1 >= WIN_STARS:
            return play[(STAR, 1)]
        best_rob = max(
            (p for p in threats if any(state.display[p])),
            key=lambda p: (self._rob_gain(state, p), self._total(state, p)),
            default=None,
        )
        for m in MONSTERS:  # a robbery or chaos that wins at once
            if best_rob is not None:
                if hand[m] >= 4 and mine + self._chaos_gain(state, best_rob) >= WIN_STARS:
                    return play[(m, 4)]
                if hand[m] >= 3 and mine + self._rob_gain(state, best_rob) >= WIN_STARS:
                    return play[(m, 3)]
        if lead >= 3 and lead >= mine:  # stop the leader (five or more: they win next turn)
            for m in MONSTERS:
                if hand[m] >= 4:
                    return play[(m, 4)]
            for m in MONSTERS:
                if hand[m] >= 3:
                    return play[(m, 3)]
            if hand[CAULDRON] >= 2 and lead >= 4:
                return play[(CAULDRON, 2)]
            for m in MONSTERS:
                if hand[m] == 2:
                    return play[(m, 2)]
            if hand[CAULDRON] and (lead >= 4 or ld[1]):
                return play[(CAULDRON, 1)]
        if hand[DOUBLE]:
            return play[(DOUBLE, 1)]
        if hand[STAR]:
            return play[(STAR, 1)]
        if best_rob is not None:
            for m in MONSTERS:
                if hand[m] >= 4:
                    return play[(m, 4)]
                if hand[m] >= 3:
                    return play[(m, 3)]
        if hand[PARCHMENT] >= 2:
            return play[(PARCHMENT, 2)]
        if hand[BOOK] >= 2 and state.game.config.spell_book_pairs:
            return play[(BOOK, 2)]
        if hand[BOOK]:
            return play[(BOOK, 1)]
        if hand[PARCHMENT]:
            return play[(PARCHMENT, 1)]
        if hand[BALL] and any(sum(state.hands[p]) for p in threats):
            return play[(BALL, 2)] if hand[BALL] >= 2 else play[(BALL, 1)]
        if lead >= 2:
            for m in MONSTERS:
                if hand[m] == 2:
                    return play[(m, 2)]
        for m in MONSTERS:
            if hand[m] == 1:
                return play[(m, 1)]
        return g.pass_id

    def _rob_gain(self, state, p: int) -> int:
        d = state.display[p]  # the victim picks: a single star if they have one
        return 1 if d[0] else (2 if d[1] else 0)

    def _chaos_gain(self, state, p: int) -> int:
        d = state.display[p]  # we pick: lose their single, take their double
        if d[0] + d[1] < 2:
            return 0
        return 2 if d[1] else 1

    # -- out-of-turn and follow-up decisions -----------------------------------------------------
    def _relative(self, state, me: int, p: int) -> int:
        return (p - me) % state.num_players

    def _target(self, state, me: int, card: int, cnt: int) -> int:
        threats = self._opponents_by_threat(state, me)
        if card == BALL:
            n = state.num_players
            known = {p: state.known_cards(me, p) for p in threats}
            best = max(
                threats,
                key=lambda p: (known[p][DOUBLE] + known[p][STAR], sum(state.hands[p]), -((p - me) % n)),
            )
            return self._relative(state, me, best)
        if card in MONSTERS and cnt >= 3:
            gain = self._chaos_gain if cnt == 4 else self._rob_gain
            best = max(threats, key=lambda p: (gain(state, p), self._total(state, p)))
            return self._relative(state, me, best)
        return self._relative(state, me, threats[0])

    def _hurts(self, state, me: int, curse: int) -> bool:
        if curse == NECRO:
            return sum(state.hands[me]) > 5 + 1  # after one wand the hand would still shrink
        return self._total(state, me) > 0

    def _wands(self, state, me: int, curse: int) -> int:
        wands = state.hands[me][WAND]
        if not wands:
            return 0
        threats = self._opponents_by_threat(state, me)
        lead = self._total(state, threats[0])
        if wands >= 2 and curse in (WITCH, SKULL) and lead >= 2:
            return 2  # turn it on the leader
        if self._hurts(state, me, curse):
            return 1
        return 0

    def _redirect(self, state, me: int, curse: int) -> int:
        threats = self._opponents_by_threat(state, me)
        if curse == NECRO:
            big = max(threats, key=lambda p: sum(state.hands[p]))
            if sum(state.hands[big]) > 5:
                return self._relative(state, me, big)
        return self._relative(state, me, threats[0])

    @staticmethod
    def _star(f: dict) -> int:
        why = f["why"]
        if why == "chaos_give":
            return 1  # steal the double star
        if why == "chaos_lose":
            return 0  # the single is lost, the double is stolen next
        return 0  # as the victim: lose, give or return the single star, keep the double
