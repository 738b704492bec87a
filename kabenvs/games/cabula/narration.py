"""Cábula's seat-view of events: what one decision caused, in words, as one seat saw it.

``narrate(before, after, action, seat)`` is ``State.narrate`` for this game (docs/play.md, "Table
views"). How it knows what happened: the decision is applied again to a clone of ``before`` in
which a few engine steps are wrapped so that each records what it did (every card drawn, a
deck rebuilt, a curse taking effect or turned with two wands, a star lost, given or returned, a
card taken with a crystal ball, a hand looked at, a turn begun, the win). The clone carries the
same generator state, so it replays exactly what the real game did (checked: its history must
end where the real one does; otherwise only the move line is given). The records are then
worded for the reader: a drawn card by name to its drawer only ("player 1 draws a card" to the
others; curses are shown to everyone), a card taken with a crystal ball by name to the taker and
the victim only. Players are named absolutely ("player 2").

Nothing here is on the hot path: front ends call it once per move and seat.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from kabenvs.core.game import move_line, player_name
from kabenvs.games.cabula.cards import BALL, CAULDRON, IS_CURSE, NECRO, PLURAL, SINGULAR, SKULL, WITCH

if TYPE_CHECKING:
    from kabenvs.games.cabula.rules import CabulaState

STAR_NAMES = ("star", "double star")


def _a(name: str) -> str:
    return ("an " if name[0] in "aeiouAEIOU" else "a ") + name


def _stars(display: list[int]) -> str:
    """Displayed stars in words: "2 stars and 1 double star"."""
    parts = [f"{k} {STAR_NAMES[i]}{'s' if k != 1 else ''}" for i, k in enumerate(display) if k]
    return " and ".join(parts) or "no star"


def _counts(cards: list[int]) -> str:
    parts = [f"{k} {SINGULAR[c] if k == 1 else PLURAL[c]}" for c, k in enumerate(cards) if k]
    return ", ".join(parts) or "no card"


# ----------------------------------------------------------------------------- tracing
def _trace(before: "CabulaState", action: int) -> tuple["CabulaState", list[tuple]]:
    sim = before.clone()
    events: list[tuple] = []
    ev = events.append
    s = sim

    def wrap(name: str, pre: Callable | None = None, post: Callable | None = None) -> None:
        orig = getattr(sim, name, None)
        if orig is None:  # an engine step renamed: its events are just not told
            return

        def call(*args):
            info = pre(*args) if pre else None
            out = orig(*args)
            if post:
                post(out, info, *args)
            return out

        setattr(sim, name, call)  # an underscore attribute of a throwaway clone

    # before the turn's own events (the delayed double-star win comes at its start)
    wrap("_start_turn", pre=lambda p: ev(("turn", p, s.turn_count + 1,
                                          s.turn_count >= s.game.config.max_turns)))
    # a deck that runs out is rebuilt inside the draw, after the card is taken: tell the draw first
    wrap("_draw", pre=lambda p: (len(events), bool(s.deck)),
         post=lambda c, at, p: events.insert(at[0], ("draw", p, c)) if at[1] else ev(("draw", p, c)))
    wrap("_reshuffle", pre=lambda: ev(("reshuffle", sum(s.discard))))
    # the curse frame a wand answer pops is the top of the stack when the decision is made
    wrap("_curse_hits", pre=lambda p, c: ev(("curse", p, c, list(s.display[p]), before.stack[-1].get("by"))))
    wrap("_turn_curse", pre=lambda f, by, t: ev(("turned", by, t, f["c"])))
    wrap("_star_chosen", pre=lambda f, st: ev(("star", f["why"], f["v"], f["a"], st)))
    wrap("_win", pre=lambda p: ev(("win", p, s.total(p))))
    wrap("_move_hidden_card", pre=lambda v, t, c, chosen: ev(("move", v, t, c, chosen)))
    wrap("_targeted_effect", pre=lambda a, card, cnt, v: ev(("effect", a, card, cnt, v, list(s.display[v]),
                                                             list(s.hands[v]))))
    sim.apply(action)
    return sim, events


# ----------------------------------------------------------------------------- wording
def _star_line(why: str, v: int, a: int, st: int) -> str:
    star = STAR_NAMES[st]
    pv, pa = player_name(v), player_name(a)
    if why == "witch":
        return f"{pv} loses {_a(star)} to the Thieving Witch"
    if why == "prank":
        return f"{pv} gives up {_a(star)} (prank by {pa})"
    if why == "rob":
        return f"{pv} gives {_a(star)} to {pa} (robbery)"
    if why == "chaos_lose":
        return f"{pa} makes {pv} lose {_a(star)} (chaos)"
    if why == "chaos_give":
        return f"{pa} takes {_a(star)} from {pv} (chaos)"
    return f"{pv} takes {_a(star)} back into their hand (cauldron by {pa})"


def _event_lines(e: tuple, seat: int | None, n: int) -> list[str]:
    kind = e[0]
    if kind == "turn":
        _, p, count, truncated = e
        if truncated:
            return ["the game ends at the turn limit without a winner"]
        return [f"turn {count}: {player_name(p)}'s turn"]
    if kind == "draw":
        _, p, c = e
        if c is None:
            return [f"{player_name(p)} cannot draw: the deck and the discard pile are empty"]
        if IS_CURSE[c]:
            return [f"{player_name(p)} draws the curse {SINGULAR[c]} (shown to everyone)"]
        if seat is None or seat == p:
            return [f"{player_name(p)} draws {_a(SINGULAR[c])}"]
        return [f"{player_name(p)} draws a card"]
    if kind == "reshuffle":
        return [f"the deck ran out: the discard pile ({e[1]} cards) is shuffled into a new deck"]
    if kind == "curse":
        _, p, c, display, by = e
        sent = f" (sent by {player_name(by)})" if by is not None else ""
        if c == SKULL:
            lost = display[0] + display[1]
            tail = (f": {player_name(p)} loses every displayed star ({_stars(display)})" if lost
                    else f": {player_name(p)} has no displayed star to lose")
            return [f"the Skull{sent} hits {player_name(p)}{tail}"]
        if c == WITCH:
            tail = "" if display[0] + display[1] else f": {player_name(p)} has no displayed star to lose"
            return [f"the Thieving Witch{sent} hits {player_name(p)}{tail}"]
        if c == NECRO:
            return [f"Necromancy{sent} hits {player_name(p)}: they discard or draw until they hold five "
                    "cards"]
        return []
    if kind == "turned":
        _, by, t, c = e
        return [f"{player_name(by)} turns the {SINGULAR[c]} on {player_name(t)} with two magic wands"]
    if kind == "star":
        _, why, v, a, st = e
        return [_star_line(why, v, a, st)]
    if kind == "win":
        _, p, total = e
        return [f"game over: {player_name(p)} wins with {total} stars"]
    if kind == "move":
        _, v, t, c, chosen = e
        how = "" if chosen else " at random"
        if seat is None or seat in (v, t):
            return [f"{player_name(t)} takes {_a(SINGULAR[c])}{how} from {player_name(v)}'s hand"]
        return [f"{player_name(t)} takes a card{how} from {player_name(v)}'s hand (hidden)"]
    if kind == "effect":
        return _effect_lines(e, seat, n)
    return []


def _effect_lines(e: tuple, seat: int | None, n: int) -> list[str]:
    _, a, card, cnt, v, display, hand = e
    out = []
    if n == 2:  # the victim is implied (no target decision): say who it is
        what = SINGULAR[card] if cnt == 1 else f"{cnt} {PLURAL[card]}"
        out.append(f"{player_name(a)} plays the {what} on {player_name(v)}")
    if card == BALL:
        if not any(hand):
            out.append(f"{player_name(v)}'s hand is empty: nothing to take")
        elif cnt == 2:
            seen = f": {_counts(hand)}" if seat is None or seat in (a, v) else ""
            out.append(f"{player_name(a)} looks at {player_name(v)}'s hand{seen}")
    elif not display[0] + display[1]:
        out.append(f"{player_name(v)} displays no star: nothing happens")
    elif card == CAULDRON and cnt == 2:
        out.append(f"{player_name(v)} takes every displayed star back into their hand ({_stars(display)})")
    return out


def _move(before: "CabulaState", action: int, seat: int | None) -> str:
    line = move_line(before, action, seat)
    g = before.game
    if g.kind_of[action] == "target":  # seat-relative in the catalog: say who it is
        line += f" ({player_name((before.current_player + g.move_of[action][0]) % before.num_players)})"
    return line


def _window_lines(s: "CabulaState") -> list[str]:
    """A wand window now open: whoever the pending curse hits is asked (wands or not)."""
    if s.current_player is None or not s.stack:
        return []
    f = s.stack[-1]
    if f["k"] != "curse" or f["stage"] != "respond":
        return []
    by = f"{player_name(f['by'])}'s " if f["by"] is not None else "the "
    return [f"{player_name(f['p'])} may answer {by}{SINGULAR[f['c']]} with magic wands"]


def narrate(before: "CabulaState", state: "CabulaState", action: int, seat: int | None) -> list[str]:
    """``State.narrate``: ``state`` is ``before`` after ``action``; the lines ``seat`` may read."""
    lines = [_move(before, action, seat)]
    sim, events = _trace(before, action)
    if sim.history != state.history:  # not the decision that led here: say only the move
        return lines
    for e in events:
        lines += _event_lines(e, seat, state.num_players)
    return lines + _window_lines(state)

