"""Checks of an Alakazum! state's fields (a save is untrusted input; see State.validate).

``check_fields`` looks at every field's type and range and at where every card lies (each card
of the game exactly once across all zones); ``invariants`` (also run after every step of the
kit's random games) adds the rules' own conditions. Each problem is a string naming the field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kabenvs.games.alakazum.cards import CULTURES, SPELLS

if TYPE_CHECKING:
    from kabenvs.games.alakazum.rules import AlakazumState

STAGES = ("setup", "explore", "action", "alakazum")
COMBAT_KEYS = {"t", "a", "d", "target", "fighter", "helper", "dh", "ab", "db", "pots", "table", "passes",
               "win", "roll", "resist"}


def _int(v: Any) -> bool:
    return type(v) is int


class _Checker:
    def __init__(self, state: "AlakazumState") -> None:
        self.s = state
        self.n = state.num_players
        self.num_cards = len(state.game.cs.cards)
        self.problems: list[str] = []

    def fail(self, msg: str) -> None:
        self.problems.append(msg)

    def int_in(self, name: str, v: Any, low: int, high: int) -> bool:
        if not _int(v):
            self.fail(f"{name}: {v!r} must be an integer")
            return False
        if not low <= v <= high:
            self.fail(f"{name}: {v} must be between {low} and {high}")
            return False
        return True

    def seat(self, name: str, v: Any) -> bool:
        return self.int_in(name, v, 0, self.n - 1)

    def card(self, name: str, v: Any) -> bool:
        return self.int_in(name, v, 0, self.num_cards - 1)

    def char(self, name: str, v: Any) -> bool:
        if self.card(name, v) and not self.s.game.cs.is_char[v]:
            self.fail(f"{name}: card {v} is not a character")
            return False
        return True

    def bool(self, name: str, v: Any) -> bool:
        if type(v) is not bool:
            self.fail(f"{name}: {v!r} must be true or false")
            return False
        return True

    def list_of(self, name: str, v: Any, item, length: int | None = None) -> bool:
        if not isinstance(v, list):
            self.fail(f"{name}: {type(v).__name__} must be a list")
            return False
        if length is not None and len(v) != length:
            self.fail(f"{name}: {len(v)} entries, must be {length} (one per player)"
                      if length == self.n else f"{name}: {len(v)} entries, must be {length}")
            return False
        return all([item(f"{name}[{i}]", x) for i, x in enumerate(v)])

    def cards(self, name: str, v: Any, length: int | None = None) -> bool:
        return self.list_of(name, v, self.card, length)


def check_fields(state: "AlakazumState") -> list[str]:
    ch = _Checker(state)
    s, n, g = state, ch.n, state.game
    cs = g.cs
    ok = True
    # per-player lists first: a save of another player count fails here, naming the list
    ok &= ch.list_of("exchanges", s.exchanges, lambda k, v: ch.int_in(k, v, 0, len(cs.cards)), n)
    ok &= ch.list_of("hands", s.hands, lambda k, v: ch.cards(k, v), n)
    if not ok:
        return ch.problems
    ok &= ch.int_in("turn", s.turn, 0, g.config.max_turns)
    ok &= ch.seat("turn_player", s.turn_player)
    ok &= ch.seat("first_player", s.first_player)
    if s.stage not in STAGES:
        ch.fail(f"stage: {s.stage!r} must be one of {', '.join(STAGES)}")
    ok &= ch.int_in("explore_left", s.explore_left, 0, cs.num_chars)
    ok &= ch.int_in("actions_left", s.actions_left, 0, 3)
    ok &= ch.bool("in_dejavu", s.in_dejavu)
    ok &= ch.bool("over", s.over)
    ok &= ch.list_of("winners_list", s.winners_list, ch.seat)
    ok &= ch.list_of("teams", s.teams, lambda k, v: ch.list_of(k, v, ch.char), n)
    ok &= ch.list_of("known", s.known, lambda k, v: ch.list_of(k, v, lambda k2, v2: ch.cards(k2, v2), n), n)
    ok &= ch.list_of("level", s.level, lambda k, v: ch.int_in(k, v, 0, 2), len(cs.cards))
    ok &= ch.list_of("broom", s.broom, lambda k, v: ch.int_in(k, v, -1, len(cs.cards) - 1), len(cs.cards))
    for name in ("graveyard", "display"):
        ok &= ch.list_of(name, getattr(s, name), ch.char)
    for name in ("boxed", "market", "forest", "fm", "fm_order", "staged", "finals"):
        ok &= ch.cards(name, getattr(s, name))
    ok &= ch.int_in("fm_keep", s.fm_keep, -1, len(cs.cards) - 1)
    ok &= ch.list_of("fm_knew", s.fm_knew, ch.seat)
    ok &= ch.list_of("shuffles", s.shuffles, lambda k, v: v is None or _order(ch, k, v))
    ok &= ch.list_of("rolls", s.rolls, lambda k, v: ch.int_in(k, v, 1, 6))
    ok &= ch.list_of("forest_known", s.forest_known, lambda k, v: ch.int_in(k, v, 0, 5), n)
    from kabenvs.games.alakazum.rules import MAX_PLAYS

    ok &= ch.list_of("groups", s.groups,
                     lambda k, v: ch.list_of(k, v, lambda k2, v2: _groups(ch, k2, v2), n), n)
    ok &= ch.list_of("joint", s.joint,
                     lambda k, v: ch.list_of(k, v, lambda k2, v2: _joint(ch, k2, v2), n), n)
    ok &= ch.list_of("capped", s.capped, lambda k, v: ch.list_of(k, v, lambda k2, v2: ch.list_of(
        k2, v2, lambda k3, v3: ch.int_in(k3, v3, 0, len(CULTURES))), n), n)
    ok &= ch.list_of("forest_sets", s.forest_sets, lambda k, v: _forest_set(ch, k, v), n)
    rows = n if n >= 3 else 0  # the public rows: kept with three players or more
    ok &= ch.list_of("public_known", s.public_known, lambda k, v: ch.cards(k, v), rows)
    ok &= ch.list_of("public_groups", s.public_groups, lambda k, v: _groups(ch, k, v), rows)
    ok &= ch.list_of("public_joint", s.public_joint, lambda k, v: _joint(ch, k, v), rows)
    ok &= ch.list_of("public_capped", s.public_capped, lambda k, v: ch.list_of(
        k, v, lambda k2, v2: ch.int_in(k2, v2, 0, len(CULTURES))), rows)
    ok &= ch.list_of("plays", s.plays, lambda k, v: _check_play(ch, k, v, True))
    if isinstance(s.plays, list) and len(s.plays) > MAX_PLAYS:
        ch.fail(f"plays: {len(s.plays)} plays, at most {MAX_PLAYS} in one turn")
    ok &= ch.list_of("santa", s.santa, lambda k, v: _santa_link(ch, k, v))
    nfin = len(g.finals_in_play)
    ok &= ch.list_of("revealed", s.revealed, ch.bool, nfin)
    ok &= ch.list_of("seen", s.seen, lambda k, v: ch.list_of(k, v, ch.bool, nfin), n)
    most = 2 * g.config.max_turns + 2  # at most two actions a turn (Deja Vu)
    ok &= ch.list_of("looks", s.looks, lambda k, v: ch.list_of(k, v, lambda k2, v2: ch.int_in(k2, v2, 0, most), nfin), n)
    if ok:
        for q in range(n):
            for i in range(nfin):
                if bool(s.looks[q][i]) != s.seen[q][i]:
                    ch.fail(f"looks[{q}][{i}]: {s.looks[q][i]} looks, but seen[{q}][{i}] is {str(s.seen[q][i]).lower()}")
    if not ok or ch.problems:
        return ch.problems
    _check_combat(ch)
    _check_pending(ch)
    if ch.problems:
        return ch.problems
    return check_zones(s)


def _check_combat(ch: _Checker) -> None:
    cb = ch.s.combat
    if cb is None:
        return
    if not isinstance(cb, dict) or set(cb) != COMBAT_KEYS:
        ch.fail(f"combat: must be null or a mapping with keys {', '.join(sorted(COMBAT_KEYS))}")
        return
    if cb["t"] not in ("forest", "player"):
        ch.fail(f"combat.t: {cb['t']!r} must be 'forest' or 'player'")
    ch.seat("combat.a", cb["a"])
    if cb["t"] == "player":
        ch.seat("combat.d", cb["d"])
    elif cb["d"] != -1:
        ch.fail("combat.d: a forest combat has no defender (-1)")
    for key in ("target", "fighter", "helper", "dh"):
        if cb[key] != -1:
            ch.char(f"combat.{key}", cb[key])
    for key in ("ab", "db"):
        ch.int_in(f"combat.{key}", cb[key], 0, 60)
    ch.int_in("combat.passes", cb["passes"], 0, 2)
    ch.int_in("combat.win", cb["win"], -1, 1)
    ch.int_in("combat.roll", cb["roll"], 0, 6)
    ch.int_in("combat.resist", cb["resist"], 0, 12)
    cs = ch.s.game.cs
    potion = ("combat_potion", "die_potion", "double_potion", "steal_potion")

    def entry(name, e, steal_ok):
        if not (isinstance(e, list) and len(e) == 3):
            ch.fail(f"{name}: must be [card, side or value, mode]")
            return False
        if ch.card(f"{name}[0]", e[0]) and (cs.effect[e[0]] not in potion
                                            or (not steal_ok and cs.effect[e[0]] == "steal_potion")):
            ch.fail(f"{name}[0]: card {e[0]} is not a potion that can lie there")
        ch.int_in(f"{name}[1]", e[1], 0, 10)
        ch.int_in(f"{name}[2]", e[2], 0, 1)
        return True

    ch.list_of("combat.table", cb["table"], lambda k, e: entry(k, e, True))
    ch.list_of("combat.pots", cb["pots"], lambda k, side: ch.list_of(k, side, lambda k2, e: entry(k2, e, False)), 2)


PENDING_KEYS = {
    "rest": lambda ch, k, v: ch.list_of(k, v, ch.seat),
    "options": lambda ch, k, v: ch.s.pending["k"] == "halloween_choice" or ch.list_of(k, v, ch.char),
    "left": lambda ch, k, v: ch.int_in(k, v, 1, 60),
    "to": lambda ch, k, v: ch.seat(k, v),
    "roll": lambda ch, k, v: ch.int_in(k, v, 1, 6),
    "s": lambda ch, k, v: ch.int_in(k, v, 0, len(SPELLS) - 1),
    "rem": lambda ch, k, v: ch.int_in(k, v, 1, 4),
    "actor": lambda ch, k, v: ch.seat(k, v),
    "card": lambda ch, k, v: ch.card(k, v),
    "cul": lambda ch, k, v: ch.int_in(k, v, 0, len(CULTURES) - 1),
    "pts": lambda ch, k, v: ch.int_in(k, v, 0, 1000),
    "mine": lambda ch, k, v: ch.char(k, v),
    "ann": lambda ch, k, v: _check_play(ch, k, v, False),
}


def _check_pending(ch: _Checker) -> None:
    from kabenvs.games.alakazum.rules import DECISIONS, PICK

    s = ch.s
    pend = s.pending
    if pend is None:
        if not s.over:
            ch.fail("pending: null while the game is not over (a decision must be pending)")
        elif s.current_player is not None:
            ch.fail("current_player: must be null once the game is over")
        return
    if s.over:
        ch.fail("pending: a decision is pending although the game is over")
        return
    if not isinstance(pend, dict) or pend.get("k") not in DECISIONS or "p" not in pend:
        ch.fail("pending: must be a mapping with a decision kind 'k' (rules.DECISIONS) and a seat 'p'")
        return
    if not ch.seat("pending.p", pend["p"]):
        return
    if pend["p"] != s.current_player:
        ch.fail(f"current_player: {s.current_player!r} is not the seat asked by pending ({pend['p']})")
    for key, v in pend.items():
        if key in ("k", "p"):
            continue
        check = PENDING_KEYS.get(key)
        if check is None:
            ch.fail(f"pending.{key}: not a field of a pending decision")
        else:
            check(ch, f"pending.{key}", v)
    rest = pend.get("rest")
    if isinstance(rest, list):
        order = [pend["p"], *rest]
        if len(set(order)) != len(order):
            ch.fail(f"pending.rest: the seats still to decide {order} repeat a seat")
        elif pend["k"] == PICK and sorted(order) != [q for q in range(s.num_players) if not s.teams[q]]:
            ch.fail(f"pending.rest: the seats still to pick a character {order} must be exactly those without one")
    if pend["k"] == "halloween_choice" and not (
            isinstance(pend.get("options"), list) and pend["options"] and set(pend["options"]) <= {0, 1}):
        ch.fail("pending.options: Halloween's options are 0 (give) and/or 1 (lose a character)")


PLAY_KEYS = {"a", "card", "cul", "target", "def", "s", "pts", "cancelled", "by"}


def _check_play(ch: _Checker, name: str, v: Any, with_cancelled: bool) -> bool:
    from kabenvs.games.alakazum.rules import ANNOUNCED

    if not isinstance(v, dict) or v.get("a") not in ANNOUNCED or not set(v) <= PLAY_KEYS:
        ch.fail(f"{name}: must be a mapping naming a play 'a' ({', '.join(ANNOUNCED)}) and its details")
        return False
    if ("cancelled" in v) != with_cancelled:
        ch.fail(f"{name}: 'cancelled' {'missing' if with_cancelled else 'is not a field here'}")
        return False
    for key, x in v.items():
        if key == "cancelled":
            ch.bool(f"{name}.cancelled", x)
        elif key == "target":
            ch.char(f"{name}.target", x)
        elif key == "def" or key == "by":
            ch.seat(f"{name}.def", x)
        elif key != "a":
            PENDING_KEYS[key](ch, f"{name}.{key}", x)
    return True


def _santa_link(ch: _Checker, name: str, v: Any) -> bool:
    """santa[i]: [holder, roll], a seat and a die value."""
    if not isinstance(v, list) or len(v) != 2:
        ch.fail(f"{name}: must be [holder seat, roll]")
        return False
    return ch.seat(f"{name}[0]", v[0]) & ch.int_in(f"{name}[1]", v[1], 1, 6)


def santa_chain_problems(state: "AlakazumState") -> list[str]:
    """The die travels only on a roll of 3+, to another player, and a 3+ is always the last roll
    while its holder is asked whom to pass the die to (rules note 10)."""
    from kabenvs.games.alakazum.rules import SANTA_EXPLODES_BELOW, SANTA_PASS

    chain = state.santa
    for i in range(1, len(chain)):
        if chain[i - 1][1] >= SANTA_EXPLODES_BELOW and chain[i][0] == chain[i - 1][0]:
            return [f"santa[{i}]: player {chain[i][0]} passed Santa Claus' die to themselves"]
    pend = state.pending
    passing = pend is not None and pend["k"] == SANTA_PASS
    last_passes = bool(chain) and chain[-1][1] >= SANTA_EXPLODES_BELOW
    if passing != last_passes or (passing and chain[-1] != [pend["p"], pend.get("roll")]):
        return ["santa: the last roll must be the 3+ of the player asked to pass Santa Claus' die, "
                "and only then a 3+"]
    return []


def _joint(ch: _Checker, name: str, v: Any) -> bool:
    """joint[o][h]: [] or [cards U, J] with 1 <= J <= len(U)."""
    if v == []:
        return True
    if not (isinstance(v, list) and len(v) == 2):
        ch.fail(f"{name}: must be [] or [cards, J]")
        return False
    if not ch.cards(f"{name}[0]", v[0]):
        return False
    if not v[0]:
        ch.fail(f"{name}[0]: a joint count holds at least one card")
        return False
    return ch.int_in(f"{name}[1]", v[1], 1, len(v[0]))


def _groups(ch: _Checker, name: str, v: Any) -> bool:
    """groups[o][h]: at most MAX_GROUPS entries [cards, r, n0] with 0 <= r < len(cards)."""
    from kabenvs.games.alakazum.rules import MAX_GROUPS

    if not isinstance(v, list) or len(v) > MAX_GROUPS:
        ch.fail(f"{name}: must be a list of at most {MAX_GROUPS} groups")
        return False
    ok = True
    for i, g in enumerate(v):
        if not (isinstance(g, list) and len(g) == 3):
            ch.fail(f"{name}[{i}]: must be [cards, r, hand size]")
            ok = False
            continue
        if ch.cards(f"{name}[{i}][0]", g[0]) and not g[0]:
            ch.fail(f"{name}[{i}][0]: a group holds at least one card")
            ok = False
        ok &= ch.int_in(f"{name}[{i}][1]", g[1], 0, max(0, len(g[0]) - 1) if isinstance(g[0], list) else 0)
        ok &= ch.int_in(f"{name}[{i}][2]", g[2], 1, ch.num_cards)
    return ok


def _order(ch: _Checker, name: str, v: Any) -> bool:
    """shuffles[i]: a scripted reshuffle, the order of the deck's cards (a permutation of 0..n-1)."""
    if not isinstance(v, list) or sorted(x for x in v if _int(x)) != list(range(len(v))):
        ch.fail(f"{name}: a reshuffle order must be a list of the numbers 0 to n-1 in some order, or null")
        return False
    return True


def _forest_set(ch: _Checker, name: str, v: Any) -> bool:
    """forest_sets[o]: [w, sure, some, r], w top cards (at most 6, or the whole deck after a
    reshuffle: the deck check in ``invariants`` holds it to the deck), r <= len(some)."""
    if not (isinstance(v, list) and len(v) == 4):
        ch.fail(f"{name}: must be [top cards, sure cards, some cards, r]")
        return False
    ok = ch.int_in(f"{name}[0]", v[0], 0, ch.num_cards) & ch.cards(f"{name}[1]", v[1]) & ch.cards(f"{name}[2]", v[2])
    if not ok:
        return False
    ok &= ch.int_in(f"{name}[3]", v[3], 0, len(v[2]))
    if ok and len(v[1]) + v[3] > v[0]:
        ch.fail(f"{name}: {len(v[1])} sure cards and {v[3]} more in only {v[0]} top cards")
        ok = False
    if ok and not v[0] and (v[1] or v[2]):
        ch.fail(f"{name}: cards known among 0 top cards")
        ok = False
    return ok


def card_places(state: "AlakazumState") -> list[tuple[str, int]]:
    """(field, card) for every card lying somewhere (shared by check_fields and invariants)."""
    out = []
    for name in ("forest", "market", "graveyard", "boxed", "display", "fm", "fm_order", "finals", "staged"):
        out += [(name, c) for c in getattr(state, name)]
    if state.fm_keep >= 0:
        out.append(("fm_keep", state.fm_keep))
    for p, h in enumerate(state.hands):
        out += [(f"hands[{p}]", c) for c in h]
    for p, t in enumerate(state.teams):
        out += [(f"teams[{p}]", c) for c in t]
    out += [(f"broom[{c}]", b) for c, b in enumerate(state.broom) if b >= 0]
    cb = state.combat
    if cb is not None:
        out += [("combat.table", e[0]) for e in cb["table"]]
        if cb["t"] == "forest" and cb["target"] >= 0:
            out.append(("combat.target", cb["target"]))
    return out


def check_zones(state: "AlakazumState") -> list[str]:
    """Each card of the game exactly once across all zones."""
    g = state.game
    cs = g.cs
    where: dict[int, str] = {}
    problems = []
    for name, c in card_places(state):
        if c not in g.in_play_set:
            problems.append(f"{name}: card {c} ({cs.cards[c].name}) is not in play in a {g.num_players}-player game")
        elif c in where:
            problems.append(f"{name}: card {c} ({cs.cards[c].name}) is also in {where[c]} (each card lies in one place)")
        else:
            where[c] = name
    missing = [c for c in g.in_play if c not in where]
    if missing:
        problems.append(f"cards: {len(missing)} card(s) lie nowhere, e.g. card {missing[0]} ({cs.cards[missing[0]].name})")
    return problems
