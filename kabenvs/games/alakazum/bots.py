"""A heuristic Alakazum! player.

It reads only what its seat may know: its own hand, the public table (teams, levels, brooms,
graveyard, market, the current combat), revealed final enemies and the ones it saw by
Clairvoyance. The shared kit checks this by asking it again in resampled worlds.

Plan: grow the culture it is strongest in (chars + objects), feed and train it, fight the forest
with its best fighter and spend potions only where they flip a result, cancel rivals' Alakazums
and attacks on it with voodoo, and conjure as soon as the odds against the enemies it cannot rule
out are fair.
"""

from __future__ import annotations

import numpy as np

from kabenvs.agents.base import Decision
from kabenvs.games.alakazum.cards import CULTURES, DIE, MULTI
from kabenvs.games.alakazum import rules as R

DIE_MEAN = 3.5
CARD_VALUE = {
    "culture_object": 6, "amulet": 6, "voodoo": 7, "broom": 5, "food": 4, "steal_potion": 4,
    "combat_potion": 3, "die_potion": 2, "double_potion": 3, "hat": 2,
}


class HeuristicAgent:
    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    # ------------------------------------------------------------------ helpers
    def act(self, decision: Decision) -> int:
        st = decision.state
        p = decision.player
        legal = decision.legal_actions
        if len(legal) == 1:
            return legal[0]
        self.st, self.p, self.g, self.cs = st, p, st.game, st.game.cs
        self._main = None  # my main culture, worked out once per decision (_main_culture)
        self.cat = st.game.catalog
        k = st.pending["k"]
        choice = getattr(self, "_" + k, None)
        a = choice(legal) if choice is not None else None
        return a if a is not None and a in legal else legal[0]

    def _kind(self, a: int) -> str:
        return self.g.kind_of[a]

    def _move(self, a: int) -> tuple:
        return self.g.move_of[a]

    def _char_of(self, a: int) -> int:
        return self.cs.characters[self._move(a)[0]]

    def _combat(self, c: int, level: int | None = None) -> float:
        v = self.cs.cards[c].combat[self.st.level[c] if level is None else level]
        return DIE_MEAN if v == DIE else v

    def _culture_totals(self, p: int, with_hand: bool) -> list[int]:
        if with_hand:  # the rules' one pass over team and hand for all five cultures
            return self.st._all_culture_points(p)
        return [self.st._culture_points(p, c, False) for c in range(len(CULTURES))]

    def _main_culture(self) -> int:
        # asked once per candidate move by the card and character values: the state does not
        # change during a decision, so it is worked out once (five passes over team and hand
        # per candidate were a third of this bot's time)
        if self._main is None:
            totals = self._culture_totals(self.p, True)
            self._main = int(max(range(len(totals)), key=lambda c: (totals[c], -c)))
        return self._main

    def _char_value(self, c: int) -> float:
        card = self.cs.cards[c]
        main = self._main_culture()
        pts = card.points[self.st.level[c]]
        v = pts * (2 if card.culture in (main, MULTI) else 0.7) + 0.5 * self._combat(c)
        return v + (1.0 if card.trait else 0.0)

    def _card_value(self, t: int) -> float:
        cs = self.cs
        e = cs.ht_effect[t]
        v = CARD_VALUE.get(e, 1) + (cs.ht_value[t] if e in ("combat_potion", "die_potion", "hat") else 0)
        main = self._main_culture()
        if e == "culture_object" and cs.ht_culture[t] != main:
            v = 2
        if e == "food" and main not in cs.ht_cultures[t]:
            v = 1
        return v

    def _pick_char(self, legal, key, best=True):
        chars = [a for a in legal if self._kind(a) == "character"]
        if not chars:
            return None
        return (max if best else min)(chars, key=lambda a: (key(self._char_of(a)), -a))

    # ------------------------------------------------------------------ setup and phase 2
    def _pick_initial_character(self, legal):
        return self._pick_char(legal, lambda c: self._combat(c, 0) + self.cs.cards[c].points[0]
                               + (1 if self.cs.cards[c].trait else 0))

    def _choose_action(self, legal):
        st, cs, p = self.st, self.cs, self.p
        by_kind: dict[str, list[int]] = {}
        for a in legal:
            by_kind.setdefault(self._kind(a), []).append(a)
        main = self._main_culture()
        # b. food for the main culture when it raises somebody
        for a in by_kind.get("food", []):
            t, cul = self._move(a)
            gain = sum(cs.cards[c].points[2] - cs.cards[c].points[st.level[c]]
                       for c in st.teams[p] if cs.cards[c].culture == cul)
            if cul == main and gain > 0:
                return a
        magic = {self._move(a)[0]: a for a in by_kind.get("magic", [])}
        if R.WITCH in magic and st.market:
            return magic[R.WITCH]
        if R.REVIVE in magic and any(cs.cards[c].culture in (main, MULTI) for c in st.graveyard):
            return magic[R.REVIVE]
        # c. a fight we are likely to win against a character worth having
        if "fight" in by_kind and len(st.teams[p]) >= 1:
            mine = max(self._combat(c) for c in st.teams[p])
            pots = sum(cs.value[c] for c in st.hands[p] if cs.effect[c] in ("combat_potion", "double_potion"))
            targets = [c for c in st._attack_targets(p)
                       if st.broom[c] < 0 and mine + pots > self._combat(c) + 1]
            if targets and any(cs.cards[c].culture in (main, MULTI) for c in targets):
                return by_kind["fight"][0]
        if "broom" in by_kind and len(st.teams[p]) >= 2:
            return by_kind["broom"][0]
        if R.TRAINING in magic:
            return magic[R.TRAINING]
        if R.CLAIRVOYANCE in magic and max(self._culture_totals(p, True)) >= 7 and any(
                not st.revealed[i] and not st.seen[p][i] for i in range(len(st.finals))):
            return magic[R.CLAIRVOYANCE]
        # a. the market when the top of the pile is worth more than the card shown
        best, best_gain = None, 0.5
        top = st.market[::-1]
        for a in by_kind.get("market", []):
            t = self._move(a)[0]
            rep = cs.hand_types[t]
            n = cs.take_back[rep]
            gain = sum(self._card_value(cs.htype[c]) for c in top[:n]) - self._card_value(t)
            if gain > best_gain:
                best, best_gain = a, gain
        if best is not None:
            return best
        if R.FOREST_MAGIC in magic:
            return magic[R.FOREST_MAGIC]
        return self.g.pass_id

    def _choose_rival_character(self, legal):
        main = self._main_culture()
        cs = self.cs
        # a broomed character can be fought but never taken: worth nothing as a target
        return self._pick_char(legal, lambda c: (self.st.broom[c] < 0) * (
            (3 if cs.cards[c].culture in (main, MULTI) else 1) - 0.5 * self._combat(c)))

    def _voodoo_window(self, legal):
        pend = self.st.pending
        ann = pend["ann"]
        cancel = self.cat.id("voodoo")
        if cancel not in legal:
            return self.g.pass_id
        if ann["a"] == "alakazum":
            return cancel
        if ann["a"] == "fight" and ann["def"] == self.p:
            return cancel
        return self.g.pass_id

    # ------------------------------------------------------------------ combat
    def _choose_fighter(self, legal):
        return self._pick_char(legal, lambda c: self._combat(c) - 0.1 * self._char_value(c))

    def _choose_sociable_helper(self, legal):
        return self._pick_char(legal, self._combat) or self.g.pass_id

    def _defender_sociable_helper(self, legal):
        return self._pick_char(legal, self._combat) or self.g.pass_id

    def _potions(self, legal, mode):
        out = []
        for a in legal:
            if self._kind(a) == "potion":
                t, m = self._move(a)
                e = self.cs.ht_effect[t]
                if e != "steal_potion" and m == mode:
                    out.append((self.cs.ht_value[t], a))
        return sorted(out, reverse=True)

    def _forest_combat_potions(self, legal):
        st = self.st
        cb = st.combat
        need = cb["db"] + 1 - st._combat_total(0)
        if need <= 0:
            return self.g.pass_id
        pots = self._potions(legal, 0)
        if sum(v for v, _ in pots) >= need:
            return pots[0][1]
        return self.g.pass_id

    def _die_needed(self, side):
        cb = self.st.combat
        return cb["resist"] + 1 - self.st._die_total(side)

    def _forest_die_potions(self, legal):
        need = self._die_needed(0)
        pots = self._potions(legal, 1)
        if need > 0 and sum(v for v, _ in pots) >= need:
            return pots[0][1]
        return self.g.pass_id

    def _potion_bidding(self, legal):
        st = self.st
        cb = st.combat
        side = st._side(self.p)
        mine, theirs = st._combat_total(side), st._combat_total(1 - side)
        need = (theirs + 1 - mine) if side == 0 else (theirs - mine)
        if need <= 0:
            return self.g.pass_id
        steal = [a for a in legal if self._kind(a) == "potion"
                 and self.cs.ht_effect[self._move(a)[0]] == "steal_potion"]
        pots = self._potions(legal, 0)
        if steal and cb["pots"][1 - side] and cb["pots"][1 - side][-1][1] >= need:
            return steal[0]
        if sum(v for v, _ in pots) >= need:
            return pots[0][1]
        if steal:
            return steal[0]
        return self.g.pass_id

    def _die_potions(self, legal):
        side = self.st._side(self.p)
        need = self._die_needed(side)
        pots = self._potions(legal, 1)
        if need > 0 and sum(v for v, _ in pots) >= need:
            return pots[0][1]
        return self.g.pass_id

    def _steal_reply(self, legal):
        steal = [a for a in legal if self._kind(a) == "potion"]
        win = self.st.combat["win"]
        if steal and self._die_needed(win) <= 0:
            return steal[0]
        return self.g.pass_id

    # ------------------------------------------------------------------ magic
    def _pay_spell(self, legal):
        rem = self.st.pending["rem"]
        hats = sorted((self.cs.ht_value[self._move(a)[0]], a) for a in legal)
        enough = [h for h in hats if h[0] >= rem]
        return (enough[0] if enough else hats[-1])[1]

    def _unlucky_witch_take(self, legal):
        return max(legal, key=lambda a: (self._card_value(self._move(a)[0]), -a))

    def _training_target(self, legal):
        cs = self.cs
        return self._pick_char(legal, lambda c: cs.cards[c].points[min(2, self.st.level[c] + 1)]
                               - cs.cards[c].points[self.st.level[c]] + 0.1 * self._char_value(c))

    def _clairvoyance_target(self, legal):
        unseen = [a for a in legal if not self.st.seen[self.p][self._move(a)[0]]]
        return (unseen or legal)[0]

    def _forest_magic_keep(self, legal):
        cs = self.cs
        best, score = None, -1e9
        for a in legal:
            k = self._move(a)[0]
            if k < cs.num_chars:
                c = cs.characters[k]
                mine = max(self._combat(x) for x in self.st.teams[self.p])
                s = (self._char_value(c) if mine > self._combat(c, 0) else -5)
            elif k < cs.num_chars + 3:
                s = -10
            else:
                s = self._card_value(k - cs.num_chars - 3)
            if s > score:
                best, score = a, s
        return best

    def _forest_magic_order(self, legal):
        return legal[0]

    def _levitation_mine(self, legal):
        return self._pick_char(legal, self._char_value, best=False)

    def _levitation_target(self, legal):
        return self._pick_char(legal, self._char_value)

    def _revive_target(self, legal):
        return self._pick_char(legal, self._char_value)

    def _broom_target(self, legal):
        return self._pick_char(legal, self._char_value)

    # ------------------------------------------------------------------ traps
    def _leader(self, candidates):
        return max(candidates, key=lambda q: (max(self._culture_totals(q, False)), -q))

    def _give_recipient(self, legal):
        n = self.st.num_players
        # give to whoever is furthest from an Alakazum
        return min(legal, key=lambda a: (max(self._culture_totals((self.p + self._move(a)[0]) % n, False)), a))

    def _give_card(self, legal):
        return min(legal, key=lambda a: (self._card_value(self._move(a)[0]), a))

    def _halloween_choice(self, legal):
        st = self.st
        lose = [a for a in legal if self._move(a)[0] == 1]
        losable = st._losable(self.p)
        if lose and losable and min(self._char_value(c) for c in losable) < 1.5:
            return lose[0]
        give = [a for a in legal if self._move(a)[0] == 0]
        return (give or legal)[0]

    def _lose_character(self, legal):
        return self._pick_char(legal, self._char_value, best=False)

    def _alakazum_lose_character(self, legal):
        return self._pick_char(legal, self._char_value, best=False)

    def _santa_pass_die(self, legal):
        n = self.st.num_players
        targets = {(self.p + self._move(a)[0]) % n: a for a in legal}
        exposed = [q for q in targets if self.st._losable(q)] or list(targets)
        return targets[self._leader(exposed)]

    # ------------------------------------------------------------------ phase 3
    def _enemy_values(self):
        """Values of the unrevealed positions: known ones by position, the rest as a pool."""
        st = self.st
        values = dict(self.g.finals_in_play)
        known, pool = {}, [values[f] for i, f in enumerate(st.finals) if not st.revealed[i]]
        for i, f in enumerate(st.finals):
            if not st.revealed[i] and st.seen[self.p][i]:
                known[i] = values[f]
                pool.remove(values[f])
        return known, pool

    def _alakazum_phase(self, legal):
        options = [a for a in legal if self._kind(a) == "alakazum"]
        if not options:
            return self.g.pass_id
        known, pool = self._enemy_values()
        best, best_p = None, 0.0
        for a in options:
            pts = self.st._culture_points(self.p, self._move(a)[0])
            if any(pts > v for v in known.values()):
                return a
            if pool:
                prob = sum(1 for v in pool if pts > v) / len(pool)
                if prob > best_p:
                    best, best_p = a, prob
        if best is not None and best_p >= 0.3:
            return best
        return self.g.pass_id

    def _choose_final_enemy(self, legal):
        pts = self.st.pending["pts"]
        known, pool = self._enemy_values()
        for a in legal:
            i = self._move(a)[0]
            if i in known and pts > known[i]:
                return a
        unknown = [a for a in legal if self._move(a)[0] not in known]
        return (unknown or legal)[0]
