"""Cábula's table as one seat sees it, as plain JSON data for drawing (``State.table_view``).

The schema is documented in docs/play.md ("Table views", Cábula). Cards are named by their type
key ("star", "magic_wand"; copies of a type are identical) with a readable name. Hidden from the
seat: the other hands (their size and the cards the seat knows for sure are there: seen with two
crystal balls, returned by a cauldron, taken from the seat) and the deck (its size, the cards the
seat knows for sure are in it and, after a rebuild, the most of each it can hold).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kabenvs.games.cabula.cards import KEYS, SINGULAR

if TYPE_CHECKING:
    from kabenvs.games.cabula.rules import CabulaState

STAR_KINDS = ("single", "double")
REASONS = {  # a pending star choice: why a star moves
    "witch": "Thieving Witch: the victim loses a star",
    "prank": "prank (2 monsters): the victim gives up a star",
    "rob": "robbery (3 monsters): the victim gives a star to the attacker",
    "chaos_lose": "chaos (4 monsters): the attacker picks the star the victim loses",
    "chaos_give": "chaos (4 monsters): the attacker picks the star the victim gives them",
    "cauldron": "cauldron: the victim takes a star back into their hand",
}


def _cards(counts: list[int]) -> list[dict[str, Any]]:
    """A count vector as a list of {card, name, count} (types held only), in card-type order."""
    return [{"card": KEYS[c], "name": SINGULAR[c], "count": k} for c, k in enumerate(counts) if k]


def _player(s: "CabulaState", q: int, seat: int | None) -> dict[str, Any]:
    d = s.display[q]
    mine = seat is None or seat == q
    return {
        "seat": q,
        "stars": d[0],
        "double_stars": d[1],
        "total": s.total(q),
        "hand_size": s.hand_size(q),
        "hand": _cards(s.hands[q]) if mine else None,
        "known_hand": None if mine else _cards(s.known_cards(seat, q)),
    }


def _pending(s: "CabulaState") -> dict[str, Any] | None:
    """The decision now asked, with what it is about (all public)."""
    if s.current_player is None or not s.stack:
        return None
    f = s.stack[-1]
    k = f["k"]
    out: dict[str, Any] = {"kind": k, "player": s.current_player}
    if k == "target":
        out.update(card=KEYS[f["card"]], count=f["cnt"])
    elif k == "curse":
        out.update(curse=KEYS[f["c"]], stage="wand window" if f["stage"] == "respond" else "turn the curse",
                   sent_by=f["by"])
    elif k == "star":
        out.update(victim=f["v"], attacker=f["a"], reason=f["why"], why=REASONS[f["why"]])
    elif k == "take":
        out.update(victim=f["v"])
    elif k == "necro":
        out.update(discard_to=5)
    return out


def _targets(s: "CabulaState") -> dict[str, str]:
    """Legal action id (as text: JSON keys) -> the key of the thing on the table it plays."""
    g = s.game
    p = s.current_player
    f = s.stack[-1]
    out = {}
    for a in s.legal_actions():
        kind, move = g.kind_of[a], g.move_of[a]
        if kind in ("play", "discard"):
            key = f"card:hand:{KEYS[move[0]]}"
        elif kind == "target":
            key = f"player:{(p + move[0]) % s.num_players}"
        elif kind == "wand" and move[0] > 0:
            key = "card:hand:magic_wand"
        elif kind == "star":
            key = f"star:{f['v']}:{STAR_KINDS[move[0]]}"
        elif kind == "take":
            key = f"card:player:{f['v']}:{KEYS[move[0]]}"
        else:
            continue
        out[str(a)] = key
    return out


def table_view(s: "CabulaState", seat: int | None) -> dict[str, Any]:
    """``State.table_view``'s own keys for Cábula (the common ones come from the base class)."""
    deck_known = None
    if seat is not None:
        deck_known = {
            "at_least": _cards(s.deck_floor[seat]),
            "at_most": _cards(s.deck_cap[seat]) if s.deck_cap_known else None,
        }
    draws = sum(f["n"] for f in s.stack if f["k"] == "draw") if s.current_player is not None else 0
    lp, la = s.last_play, s.last_attack
    return {
        "truncated": s.truncated,
        "winner": s.winner,
        "turn": s.turn_count,
        "turn_player": s.turn,
        "max_turns": s.game.config.max_turns,
        "stars_to_win": 5,
        "card_names": {KEYS[c]: SINGULAR[c] for c in range(len(KEYS))},  # type key -> readable name
        "players": [_player(s, q, seat) for q in range(s.num_players)],
        "discard": _cards(s.discard),
        "discard_size": sum(s.discard),
        "deck_size": len(s.deck),
        "deck_known": deck_known,
        "pending": _pending(s),
        "pending_draws": draws,
        "necromancy": sorted({f["p"] for f in s.stack if f["k"] == "necro"}) if s.current_player is not None
        else [],
        "last_play": None if lp is None else {
            "player": lp[0], "card": None if lp[1] < 0 else KEYS[lp[1]], "count": lp[2], "pass": lp[1] < 0},
        "last_attack": None if la is None else {
            "card": KEYS[la[0]], "count": la[1], "attacker": la[2], "victim": la[3]},
        # click targets only for the seat deciding now (never for the all-seeing view)
        "targets": _targets(s) if seat is not None and seat == s.current_player else None,
    }

