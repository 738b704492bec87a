"""Alakazum!'s table as one seat sees it, as plain JSON data for drawing (``State.table_view``).

The schema is documented in docs/play.md ("Table views", Alakazum!). Everything is named, never
numbered by internal card id: identical copies of a hand card are interchangeable, and a world
resampled for the seat may hold a different copy (or, for a hidden card, a different card)
where the real game holds this one; names never differ between such worlds. Hidden from the
seat: other hands (their size and the cards the seat saw go in), the forest deck (its size and
the top cards the seat put back with Forest Magic), final enemies it has not seen, and another
caster's Forest Magic cards (only how many are out).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kabenvs.games.alakazum.cards import CULTURES, DIE, LEVELS, MULTI, SPELL_COST, SPELLS

if TYPE_CHECKING:
    from kabenvs.games.alakazum.rules import AlakazumState

ALAKAZUM_THRESHOLD = 8  # rules.ALAKAZUM_THRESHOLD (not imported: rules imports nothing from here)
TRAIT_NAMES = {"": None, "VM": "very magical", "VM2": "very magical (2)", "TH": "thrifty", "SO": "sociable"}


def _character(s: "AlakazumState", c: int) -> dict[str, Any]:
    card = s.game.cs.cards[c]
    lv = s.level[c]
    return {
        "name": card.name,
        "key": f"character:{card.name}",
        "culture": "multicolour" if card.culture == MULTI else CULTURES[card.culture],
        "level": LEVELS[lv],
        "combat": "die" if card.combat[lv] == DIE else card.combat[lv],
        "resistance": card.resistance[lv],
        "culture_points": card.points[lv],
        "trait": TRAIT_NAMES.get(card.trait, card.trait),
        "broom": s.broom[c] >= 0,
    }


def _chars(s: "AlakazumState", cards) -> list[dict]:
    return [_character(s, c) for c in cards]


def _names(s: "AlakazumState", cards) -> list[str]:
    return [s.game.cs.cards[c].name for c in cards]


def _player(s: "AlakazumState", q: int, seat: int | None) -> dict[str, Any]:
    cs = s.game.cs
    team_points = {CULTURES[k]: s._culture_points(q, k, False) for k in range(len(CULTURES))}
    out: dict[str, Any] = {
        "seat": q,
        "team": _chars(s, s.teams[q]),
        "culture_points": team_points,
        "magic_energy": s._energy(q),
        "hand_size": len(s.hands[q]),
        "hand": None,
        "known_hand": None,
    }
    if seat is None or seat == q:
        out["hand"] = sorted(_names(s, s.hands[q]))
        # the points an Alakazum would count now: culture objects and amulets in the hand added
        out["alakazum_points"] = {CULTURES[k]: s._culture_points(q, k) for k in range(len(CULTURES))}
    else:
        out["known_hand"] = sorted(cs.cards[c].name for c in s.known[seat][q])
    return out


def _combat(s: "AlakazumState") -> dict[str, Any] | None:
    cb = s.combat
    if cb is None:
        return None
    cs = s.game.cs

    def char(c):
        return _character(s, c) if c >= 0 else None

    def total(side):
        return (cb["ab"] if side == 0 else cb["db"]) + sum(v for _, v, m in cb["pots"][side] if m == 0)

    rolled = cb["win"] >= 0 and cb["t"] in ("forest", "player") and cb["roll"] > 0
    win = cb["win"]
    return {
        "kind": cb["t"],
        "attacker": cb["a"],
        "defender": cb["d"] if cb["d"] >= 0 else None,
        "fighter": char(cb["fighter"]),
        "helper": char(cb["helper"]),
        "target": char(cb["target"]),
        "defender_helper": char(cb["dh"]),
        "attacker_base": cb["ab"],
        "defender_base": cb["db"],
        "attacker_total": total(0),
        "defender_total": total(1),
        "potions": [{"card": cs.cards[c].name, "by": cb["a"] if side == 0 else cb["d"],
                     "on": "die" if mode else "combat"} for c, side, mode in cb["table"]],
        "winner": None if win < 0 else (cb["a"] if win == 0 else (cb["d"] if cb["d"] >= 0 else "forest")),
        "roll": cb["roll"] if rolled else None,
        "die_total": (cb["roll"] + sum(v for _, v, m in cb["pots"][win] if m == 1)) if rolled else None,
        "resistance": cb["resist"] if rolled else None,
    }


def _play(s: "AlakazumState", lp: dict[str, Any]) -> dict[str, Any]:
    cs = s.game.cs
    return {
        "by": s.turn_player,
        "play": lp["a"],
        "card": cs.cards[lp["card"]].name if "card" in lp else None,
        "culture": CULTURES[lp["cul"]] if "cul" in lp else None,
        "target": cs.cards[lp["target"]].name if "target" in lp else None,
        "defender": lp.get("def"),
        "spell": SPELLS[lp["s"]] if "s" in lp else None,
        "points": lp.get("pts"),
        "cancelled": lp["cancelled"],
        "cancelled_by": lp.get("by"),
    }


def _announced(s: "AlakazumState") -> dict[str, Any] | None:
    """The turn's last announced play (the one a voodoo window is about), or None."""
    if not s.plays:
        return None
    pend = s.pending
    return {**_play(s, s.plays[-1]),
            "voodoo_window_open": pend is not None and pend["k"] == "voodoo_window"}


def _finals(s: "AlakazumState", seat: int | None) -> list[dict[str, Any]]:
    values = dict(s.game.finals_in_play)
    out = []
    for i, f in enumerate(s.finals):
        known = s.revealed[i] or seat is None or s.seen[seat][i]
        out.append({
            "position": i,
            "key": f"final:{i}",
            "revealed": s.revealed[i],
            "name": s.game.cs.cards[f].name if known else None,
            "culture_points": values[f] if known else None,
            "seen_by": [q for q in range(s.num_players) if s.seen[q][i]],
        })
    return out


def _forest(s: "AlakazumState", seat: int | None) -> dict[str, Any]:
    n = len(s.forest) if seat is None else s.forest_known[seat]
    pend = s.pending
    caster = pend["p"] if pend is not None and (s.fm or s.fm_keep >= 0) else None
    out: dict[str, Any] = {
        "size": len(s.forest),
        "known_top": _names(s, s.forest[len(s.forest) - n:][::-1]) if n else [],
        "forest_magic_out": len(s.fm) + len(s.fm_order) + (s.fm_keep >= 0),
        "forest_magic": None,
    }
    if caster is not None and (seat is None or seat == caster):
        out["forest_magic"] = {
            "to_place": sorted(_names(s, s.fm)),
            "placed": _names(s, s.fm_order),
            "kept": s.game.cs.cards[s.fm_keep].name if s.fm_keep >= 0 else None,
        }
    return out


def _pending(s: "AlakazumState") -> dict[str, Any] | None:
    pend = s.pending
    if pend is None:
        return None
    cs = s.game.cs
    out: dict[str, Any] = {"kind": pend["k"], "player": pend["p"]}
    for key, value in pend.items():
        if key in ("k", "p"):
            continue
        if key == "ann":
            out["announced"] = value["a"]
        elif key == "s":
            out["spell"] = SPELLS[value]
        elif key == "cul":
            out["culture"] = CULTURES[value]
        elif key in ("mine", "card"):
            out[key] = cs.cards[value].name
        elif key == "options" and pend["k"] != "halloween_choice":
            out["options"] = _names(s, value)
        elif key in ("rest", "options", "actor", "left", "to", "roll", "rem", "pts"):
            out[key] = value
    return out


def _targets(s: "AlakazumState", seat: int) -> dict[str, str]:
    """Legal action id (as text: JSON keys) -> the key of the thing on the table it plays."""
    p = s.current_player
    g = s.game
    cs = g.cs
    out = {}
    for a in s.legal_actions():
        kind, move = g.kind_of[a], g.move_of[a]
        if kind == "character":
            key = f"character:{cs.cards[cs.characters[move[0]]].name}"
        elif kind in ("market", "food", "potion", "hat", "give"):
            key = f"hand:{cs.ht_name[move[0]]}"
        elif kind == "broom":
            key = "hand:" + next(cs.cards[c].name for c in s.hands[p] if cs.effect[c] == "broom")
        elif kind == "voodoo":
            key = "hand:" + next(cs.cards[c].name for c in s.hands[p] if cs.effect[c] == "voodoo")
        elif kind == "take":
            key = f"market:{cs.ht_name[move[0]]}"
        elif kind == "final":
            key = f"final:{move[0]}"
        elif kind == "recipient":
            key = f"player:{(p + move[0]) % s.num_players}"
        elif kind == "forest":
            key = f"forest_magic:{cs.class_name(move[0])}"
        elif kind == "magic":
            key = f"spell:{SPELLS[move[0]]}"  # the spell on the magic scroll
        elif kind == "alakazum":
            key = f"culture:{p}:{CULTURES[move[0]]}"  # the culture's points on the seat's own row
        else:
            continue
        out[str(a)] = key
    return out


def table_view(s: "AlakazumState", seat: int | None) -> dict[str, Any]:
    """``State.table_view``'s own keys for Alakazum! (the common ones come from the base class)."""
    return {
        "truncated": s.truncated,
        "turn": s.turn,
        "turn_player": s.turn_player,
        "stage": s.stage,
        "actions_left": s.actions_left,
        "in_deja_vu": s.in_dejavu,
        "alakazum_threshold": ALAKAZUM_THRESHOLD,
        "spells": [{"name": name, "cost": cost, "key": f"spell:{name}"} for name, cost in zip(SPELLS, SPELL_COST)],
        "players": [_player(s, q, seat) for q in range(s.num_players)],
        "market": _names(s, s.market[::-1]),
        "forest": _forest(s, seat),
        "graveyard": _chars(s, s.graveyard),
        "display": _chars(s, s.display),
        "box": sorted(_names(s, s.boxed)),
        "finals": _finals(s, seat),
        "combat": _combat(s),
        "announced": _announced(s),
        "plays": [_play(s, lp) for lp in s.plays],  # every play announced this turn, in order
        "hats_paid": _names(s, s.staged),
        "pending": _pending(s),
        # click targets only for the seat deciding now (never for the all-seeing view)
        "targets": _targets(s, seat) if seat is not None and seat == s.current_player else None,
    }
