"""Alakazum!'s seat-view of events: what one decision caused, in words, as one seat saw it.

``narrate(state, before, action, seat)`` is ``State.narrate`` for this game (see docs/play.md,
"Table views"). How it knows what happened: the decision is applied again to a clone of
``before`` in which a few engine steps are wrapped so that each one records what it did (a card
drawn from the forest, a die roll and what it was for, a trap, a combat's start and end, a
character sent to the graveyard, a market visit, a spell, an Alakazum). The clone carries the same
generator state as ``before``, so it replays exactly what the real game did (checked: its history
must end where the real one does; otherwise only the move line is given). The records are then
worded for the reader: cards and characters by name, never by id, and a card's name only where
the reader saw it (a forest draw, a card given away and another caster's Forest Magic cards read
as hidden to the others). Players are named absolutely ("player 2").

Nothing here is on the hot path: front ends call it once per move and seat.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Callable

from kabenvs.core.game import move_line, player_name
from kabenvs.games.alakazum.cards import CULTURES, DIE, LEVELS, MULTI, SPELLS

if TYPE_CHECKING:
    from kabenvs.games.alakazum.rules import AlakazumState


# ----------------------------------------------------------------------------- tracing
class _Trace:
    """Records engine steps of a clone while a decision is applied to it."""

    def __init__(self, sim: "AlakazumState") -> None:
        self.sim = sim
        self.events: list[tuple] = []
        self.depth: dict[str, int] = {}
        self.last_roll = 0

    def inside(self, name: str) -> bool:
        return self.depth.get(name, 0) > 0

    def wrap(self, name: str, pre: Callable | None = None, post: Callable | None = None) -> None:
        orig = getattr(self.sim, name, None)
        if orig is None:  # an engine step renamed: its events are just not told
            return

        def call(*args):
            info = pre(*args) if pre else None
            self.depth[name] = self.depth.get(name, 0) + 1
            try:
                out = orig(*args)
            finally:
                self.depth[name] -= 1
            if post:
                post(out, info, *args)
            return out

        setattr(self.sim, name, call)  # an underscore attribute of a throwaway clone


def _trace(before: "AlakazumState", action: int) -> tuple["AlakazumState", list[tuple]]:
    sim = before.clone()
    if "_roll" in before.__dict__:  # a test's scripted die (never cloned): not replayable here
        raise LookupError("scripted dice")
    t = _Trace(sim)
    ev = t.events.append
    s = sim

    def cb_copy():
        return copy.deepcopy(s.combat)

    t.wrap("_start_turn", pre=lambda p: (list(s.market), s.turn),
           post=lambda _, info, p: ev(("turn", p, info[0][len(s.market):][::-1], info[1])))
    t.wrap("_draw_forest", post=lambda card, _, p: ev(("forest_draw", p, card)))
    t.wrap("_trap", pre=lambda p, card: ev(("trap", p, card, len(s.hands[p]))))
    t.wrap("_start_forest_combat", pre=lambda p, card: ev(("forest_fight", p, card)))
    t.wrap("_start_player_combat",
           pre=lambda p, q, target: ev(("player_fight", p, q, target, s.level[target])))

    def combat_value(value, _, card):
        if s.game.cs.cards[card].combat[s.level[card]] == DIE:
            ev(("die_combat", card, value))

    t.wrap("_combat_value", post=combat_value)
    t.wrap("_roll_bases", post=lambda *_: ev(("bases", cb_copy())))

    def rolled(value, _):
        t.last_roll = value
        if not t.inside("_combat_value") and not t.inside("_santa_roll") and s.combat is not None:
            ev(("hypnosis_roll", value, cb_copy(), list(s.level)))

    t.wrap("_roll", post=rolled)
    t.wrap("_santa_roll", post=lambda _, __, q: ev(("santa", q, t.last_roll, s.pending)))
    t.wrap("_return_to_forest", pre=lambda card: ev(("forest_lost", cb_copy())) if s.combat else None)
    t.wrap("_to_graveyard", pre=lambda card, owner: ev(("grave", card, owner)))
    t.wrap("_end_forest_combat", pre=lambda ok: ev(("end_forest", ok, cb_copy())))
    t.wrap("_end_player_combat", pre=lambda ok: ev(("end_player", ok, cb_copy(), [list(x) for x in s.teams])))

    def potion(out, pots, p, move):
        if out:  # a steal: the rival's last potion on the table came back to p's hand
            ev(("steal", p, pots[-1][0]))

    t.wrap("_play_potion", pre=lambda p, move: copy.deepcopy(s.combat["pots"][1 - s._side(p)]), post=potion)
    t.wrap("_announce", post=lambda _, __, p, ann: ev(("announce", p, ann, s.pending)))
    t.wrap("_resolve", pre=lambda p, ann: (list(s.market), list(s.level)),
           post=lambda _, info, p, ann: ev(("resolve", p, ann, info[0], info[1])))
    t.wrap("_cast", post=lambda _, __, p, sp: ev(("cast", p, sp, list(s.fm))))
    t.wrap("_reveal", pre=lambda p, cards: ev(("reveal", p, list(cards), before.pending["k"])))
    sim.apply(action)
    return sim, t.events


# ----------------------------------------------------------------------------- wording
def _char(s: "AlakazumState", c: int, level: int | None = None) -> str:
    return f"{s.game.cs.cards[c].name} [{LEVELS[s.level[c] if level is None else level]}]"


def _stats(s: "AlakazumState", c: int) -> str:
    card = s.game.cs.cards[c]
    lv = s.level[c]
    combat = "die" if card.combat[lv] == DIE else card.combat[lv]
    cul = "multicolour" if card.culture == MULTI else CULTURES[card.culture]
    return (f"{card.name} ({cul}, level {LEVELS[lv]}: combat {combat}, resistance {card.resistance[lv]}, "
            f"culture {card.points[lv]})")


def _card_names(s: "AlakazumState", cards) -> list[str]:
    return [s.game.cs.cards[c].name for c in cards]


def _names(s: "AlakazumState", cards) -> str:
    return ", ".join(_card_names(s, cards)) or "nothing"


def _sees_all(seat: int | None, p: int) -> bool:
    return seat is None or seat == p


def _totals(s: "AlakazumState", cb: dict) -> tuple[int, int]:
    a = cb["ab"] + sum(v for _, v, m in cb["pots"][0] if m == 0)
    d = cb["db"] + sum(v for _, v, m in cb["pots"][1] if m == 0)
    return a, d


def _event_lines(s: "AlakazumState", e: tuple, seat: int | None, old_levels: list[int]) -> list[str]:
    """``old_levels``: the levels before the decision (a combat's levels until its winner rises)."""
    cs = s.game.cs
    name = lambda c: cs.cards[c].name  # noqa: E731
    kind = e[0]
    if kind == "turn":
        _, p, thrifty, turn = e
        out = [f"turn {turn + 1}: player {p}'s turn"]
        if thrifty:
            out.append(f"player {p}'s thrifty characters take {_names(s, thrifty)} from the market")
        return out
    if kind == "forest_draw":
        _, p, card = e
        if not cs.is_hand[card]:
            return []  # the character or trap is told by its own event
        if _sees_all(seat, p):
            return [f"player {p} finds {name(card)} in the forest"]
        return [f"player {p} finds a hand card in the forest (hidden)"]
    if kind == "trap":
        _, p, card, h = e
        line = f"player {p} falls into a trap: {name(card)}"
        eff = cs.effect[card]
        if eff == "black_friday":
            line += f" (gives {h // 2} of {h} hand cards away)" if h >= 2 else \
                " (no effect: 1 or no hand card)"
        return [line]
    if kind == "forest_fight":
        _, p, card = e
        return [f"{_stats(s, card)} appears in the forest: player {p} must fight it"]
    if kind == "player_fight":
        _, p, q, target, level = e
        return [f"player {p} attacks player {q}'s {_char(s, target, level)}"]
    if kind == "die_combat":
        _, card, value = e
        return [f"{name(card)} rolls the die for its combat points: {value}"]
    if kind == "bases":
        cb = e[1]
        side_a = _char(s, cb["fighter"]) + (f" helped by {name(cb['helper'])}" if cb["helper"] >= 0 else "")
        side_d = _char(s, cb["target"]) + (f" helped by {name(cb['dh'])}" if cb["dh"] >= 0 else "")
        points = "combat point" if cb["ab"] == 1 else "combat points"
        return [f"combat: {side_a}: {cb['ab']} {points}, against {side_d}: {cb['db']}"]
    if kind == "hypnosis_roll":
        _, roll, cb, levels = e
        a, d = _totals(s, cb)
        if cb["win"] == 0:
            win, lose, roller = cb["fighter"], cb["target"], cb["a"]
        else:
            win, lose, roller = cb["target"], cb["fighter"], cb["d"]
        res = cs.cards[lose].resistance[levels[lose]]
        if cb["win"] == 0:
            score = f"{a} against {d}"
        else:
            score = f"{d} against {a}" + (", a tie goes to the defender" if a == d else "")
        rise = (f"rises to level {LEVELS[levels[win]]}" if levels[win] > old_levels[win]
                else "stays at level C, the highest")
        return [f"{name(win)} wins the combat ({score}) and {rise}",
                f"player {roller} rolls {roll} to hypnotise {name(lose)} (resistance {res})"]
    if kind == "santa":
        _, q, roll, pend = e
        if roll < 3:
            tail = "the present explodes" + (": a character of theirs goes to the graveyard" if pend else
                                             ", but they have no character to lose")
        else:
            tail = "the present does not explode: they pass the die to another player"
        return [f"player {q} rolls {roll} for Santa Claus' Present: {tail}"]
    if kind == "forest_lost":
        cb = e[1]
        if cb is None or cb["t"] != "forest" or cb["target"] < 0:
            return []
        a, d = _totals(s, cb)
        return [f"{name(cb['target'])} wins the combat ({d} against {a}) and goes back into the forest deck, "
                "which is shuffled"]
    if kind == "grave":
        _, card, owner = e
        return [f"player {owner}'s {name(card)} goes to the graveyard (back to level A)"]
    if kind == "end_forest":
        _, ok, cb = e
        tot = cb["roll"] + sum(v for _, v, m in cb["pots"][0] if m == 1)
        if ok:
            return [f"player {cb['a']} hypnotises {name(cb['target'])} (die {tot} against resistance "
                    f"{cb['resist']}): it joins their team at level A"]
        return [f"the hypnosis fails (die {tot} against resistance {cb['resist']}): {name(cb['target'])} "
                "goes to the graveyard"]
    if kind == "end_player":
        _, ok, cb, teams = e
        side = cb["win"]
        tot = cb["roll"] + sum(v for _, v, m in cb["pots"][side] if m == 1)
        if side == 0:
            char, loser, winner = cb["target"], cb["d"], cb["a"]
        else:
            char, loser, winner = cb["fighter"], cb["a"], cb["d"]
        if not ok:
            return [f"the hypnosis fails (die {tot} against resistance {cb['resist']}): {name(char)} stays "
                    f"with player {loser}"]
        if len(teams[loser]) >= 2 and s.broom[char] < 0:
            return [f"player {winner} hypnotises player {loser}'s {name(char)} (die {tot} against resistance "
                    f"{cb['resist']}): it joins their team at its level"]
        why = "it rides a broom" if s.broom[char] >= 0 else f"it is player {loser}'s only character"
        return [f"the die ({tot}) beats the resistance, but {name(char)} cannot be taken: {why}"]
    if kind == "steal":
        _, p, card = e
        return [f"player {p} steals {name(card)} from the combat table into their hand"]
    if kind == "announce":
        _, p, ann, pend = e
        if pend is not None and pend.get("k") == "voodoo_window":
            return [f"player {p} announces {_announcement(s, ann)}: the others may cancel it with a "
                    "voodoo doll"]
        return []
    if kind == "resolve":
        return _resolved(s, e)
    if kind == "cast":
        _, p, sp, fm = e
        if SPELLS[sp] == "Deja Vu":
            return [f"player {p} casts Deja Vu: two more actions this turn"]
        if SPELLS[sp] == "Forest Magic":
            if _sees_all(seat, p):
                return [f"player {p} takes the top {len(fm)} forest cards: {_names(s, fm)}"]
            return [f"player {p} takes the top {len(fm)} forest cards (hidden)"]
        return [f"player {p} casts {SPELLS[sp]}"]
    if kind == "reveal":  # an Alakazum's objects (a market card or food is named by the move)
        _, p, cards, k = e
        # by name, not in the hand's order: which place a card holds in a hand follows how it got
        # there, which the others need not have seen (the shared kit met the two orders read apart)
        if not cards or k != "alakazum_phase":
            return []
        return [f"player {p} shows {', '.join(sorted(_card_names(s, cards)))}"]
    return []


def _announcement(s: "AlakazumState", ann: dict) -> str:
    name = s.game.cs.cards
    a = ann["a"]
    if a == "market":
        return f"a market visit showing {name[ann['card']].name}"
    if a == "food":
        return f"{name[ann['card']].name} for the {CULTURES[ann['cul']]} characters"
    if a == "broom":
        return "a broom"
    if a == "fight":
        return f"an attack on player {ann['def']}'s {name[ann['target']].name}"
    if a == "magic":
        return f"the spell {SPELLS[ann['s']]}"
    return f"an Alakazum with {CULTURES[ann['cul']]} ({ann['pts']} culture points)"


def _resolved(s: "AlakazumState", e: tuple) -> list[str]:
    _, p, ann, market, levels = e
    cs = s.game.cs
    a = ann["a"]
    if a == "market":
        card = ann["card"]
        k = min(cs.take_back[card], len(market))
        taken = market[len(market) - k:][::-1]
        return [f"player {p} takes {_names(s, taken)} from the market and puts {cs.cards[card].name} on top"]
    if a == "food":
        up = [c for c in s.teams[p] if cs.cards[c].culture == ann["cul"]]
        if not up:
            return [f"player {p} has no {CULTURES[ann['cul']]} character: the food is spent for nothing"]
        return [f"player {p}'s {CULTURES[ann['cul']]} characters rise to level C: {_names(s, up)}"]
    return []


def _move_line(before: "AlakazumState", action: int, seat: int | None) -> str:
    line = move_line(before, action, seat)
    g = before.game
    if g.kind_of[action] == "recipient":  # seat-relative in the catalog: say who it is
        line += f" ({player_name((before.current_player + g.move_of[action][0]) % before.num_players)})"
    return line


def _decision_lines(s: "AlakazumState", before: "AlakazumState", action: int, seat: int | None) -> list[str]:
    """What the decision itself did that no wrapped step tells (it depends on the decision kind)."""
    cs = s.game.cs
    pend = before.pending
    k = pend["k"]
    p = pend["p"]
    kind = s.game.kind_of[action]
    move = s.game.move_of[action]
    out = []
    if k == "pick_initial_character" and not s.display and len(before.display) > 1:
        left = [c for c in before.display if c != cs.characters[move[0]]]
        out.append(f"nobody chose {_names(s, left)}: they go to the forest graveyard")
    elif k == "voodoo_window" and kind == "voodoo":
        out.append(f"player {p} cancels player {pend['actor']}'s {_announcement(s, pend['ann'])} with a "
                   "voodoo doll (the doll goes back to the box)")
    elif k == "training_target":
        c = cs.characters[move[0]]
        out.append(f"{cs.cards[c].name} rises to level {LEVELS[s.level[c]]}")
    elif k == "clairvoyance_target":
        f = before.finals[move[0]]
        if _sees_all(seat, p):
            value = dict(s.game.finals_in_play)[f]
            out.append(f"player {p} looks at final enemy card {move[0]}: {cs.cards[f].name} "
                       f"({value} culture points)")
        else:
            out.append(f"player {p} looks at final enemy card {move[0]} (hidden)")
    elif k == "levitation_target":
        mine, target = pend["mine"], cs.characters[move[0]]
        where = ("the graveyard" if target in before.graveyard else
                 f"player {next(q for q in range(s.num_players) if target in before.teams[q])}'s team")
        out.append(f"player {p} swaps {cs.cards[mine].name} with {cs.cards[target].name} from {where}")
    elif k == "revive_target":
        out.append(f"{cs.cards[cs.characters[move[0]]].name} joins player {p}'s team at level A")
    elif k == "broom_target":
        name = cs.cards[cs.characters[move[0]]].name
        out.append(f"{name} of player {p} rides a broom for the rest of the game")
    elif k == "give_card":
        to = pend["to"]
        if seat is None or seat in (p, to):
            out.append(f"player {p} gives {cs.ht_name[move[0]]} to player {to}")
        else:
            out.append(f"player {p} gives a card to player {to} (hidden)")
    elif k in ("forest_magic_keep", "forest_magic_order") and not s.fm and before.fm:
        back = len(before.fm_order) + len(before.fm) - (1 if k == "forest_magic_keep" else 0)
        if back:
            out.append(f"player {p} puts {back} cards back on top of the forest deck"
                       + ("" if _sees_all(seat, p) else " (in an order hidden from you)"))
    elif k == "choose_final_enemy":
        i = move[0]
        f = before.finals[i]
        value = dict(s.game.finals_in_play)[f]
        pts = pend["pts"]
        if pts > value:
            out.append(f"final enemy card {i} is {cs.cards[f].name} ({value} culture points): player {p}'s "
                       f"{pts} {CULTURES[pend['cul']]} points beat it")
        else:
            out.append(f"final enemy card {i} is {cs.cards[f].name} ({value} culture points): player {p}'s "
                       f"{pts} {CULTURES[pend['cul']]} points do not beat it; it stays face up")
    elif k in ("potion_bidding", "forest_combat_potions") and kind == "potion" and s.combat is not None:
        a, d = _totals(s, s.combat)
        out.append(f"combat points now {a} (player {s.combat['a']}) against {d}")
    elif k in ("die_potions", "forest_die_potions", "steal_reply") and kind == "potion":
        cb = s.combat
        if cb is not None:
            side = cb["win"]
            tot = cb["roll"] + sum(v for _, v, m in cb["pots"][side] if m == 1)
            out.append(f"die now {tot} against resistance {cb['resist']}")
    return out


def _end_lines(s: "AlakazumState") -> list[str]:
    if s.truncated:
        return ["the game ends at the turn limit without a winner"]
    w = s.winners()
    if len(w) == s.num_players and s.num_players > 1 and all(s.revealed):
        return ["every final enemy resisted: the game ends, a shared result"]
    if len(w) == 1:
        return [f"game over: player {w[0]} wins with an Alakazum"]
    return ["game over"]


def narrate(before: "AlakazumState", state: "AlakazumState", action: int, seat: int | None) -> list[str]:
    """``State.narrate``: ``state`` is ``before`` after ``action``; the lines ``seat`` may read."""
    lines = [_move_line(before, action, seat)]
    try:
        sim, events = _trace(before, action)
    except LookupError:
        return lines
    if sim.history != state.history:  # not the decision that led here: say only the move
        return lines
    lines += _decision_lines(state, before, action, seat)
    for e in events:
        lines += _event_lines(sim, e, seat, before.level)
    if state.current_player is None and before.current_player is not None:
        lines += _end_lines(state)
    return lines
