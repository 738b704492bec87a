"""Kabaal's table for drawing (``State.table_view``); the schema is in docs/play.md. A seat sees
its own hand and its own pass choices; the others' only as counts."""

from __future__ import annotations

from kabenvs.games.kabaal.board import AREA_CARDS, CULT_COLOURS, NUM_AREAS
from kabenvs.games.kabaal.cards import CARD_NAMES
from kabenvs.games.kabaal.encoding import TRICKS_PER_ROUND


def table_view(state, seat: int | None) -> dict:
    g = state.game
    n = state.num_players
    geometry = g.geometry
    players = []
    for p in range(n):
        own = seat is None or seat == p
        players.append({
            "cult": CULT_COLOURS[p],
            "supply": state.supply[p],
            "altar": state.altar[p],
            "tricks_won": state.tricks_won[p],
            "amulet": p == state.amulet,
            "face_up": [CARD_NAMES[k] for k in state.faceup[p]],
            "hand": [CARD_NAMES[k] for k in state.hands[p]] if own else None,
            "passing": [CARD_NAMES[k] for k in state.passing[p]] if own else None,
            "hand_size": len(state.hands[p]) + len(state.passing[p]),
        })
    view = {
        "grid": [[AREA_CARDS[a] if a is not None else None for a in row] for row in geometry.grid],
        "areas": {AREA_CARDS[a]: {"cultists": [q for q in range(n) if state.board[a] >> q & 1],
                                  "face_down": bool(state.face_down[a])} for a in range(NUM_AREAS)},
        "players": players,
        "round": state.round,
        "trick_number": min(state.tricks_played + 1, TRICKS_PER_ROUND),
        "phase": state.phase,
        "trick": [{"player": p, "card": CARD_NAMES[k]} for p, k in zip(state.trick_seats, state.trick_cards)],
        "pushing": ({"cultist_of": state.push_queue[0][1], "from": AREA_CARDS[state.push_queue[0][0]]}
                    if state.phase == "push" else None),
        "rituals_to_win": 3,
    }
    if seat is not None and seat == state.current_player:
        view["targets"] = {str(a): key for a in state.legal_actions() if (key := _target(state, a))}
    return view


def _target(state, a: int) -> str | None:
    g = state.game
    kind = g.kind_of[a]
    if kind in ("pass_card", "face_up"):
        return f"card:hand:{CARD_NAMES[a - g.catalog.range(kind).start]}"
    if kind == "play":
        k = a - g.play_base
        where = "face_up" if k in state.faceup[state.current_player] else "hand"
        return f"card:{where}:{CARD_NAMES[k]}"
    if kind == "push":
        return f"area:{AREA_CARDS[(a - g.push_base) % NUM_AREAS]}"
    if kind in ("place", "flip_up", "move_from", "flip_down"):
        return f"area:{AREA_CARDS[a - g.catalog.range(kind).start]}"
    return None  # "place no more cultists": a button, not a thing on the table
