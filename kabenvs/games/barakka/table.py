"""Barakka's table for drawing (``State.table_view``); the schema is in docs/play.md. What a seat
sees follows ``render``: under ``memory="table"`` covered cards show as None (a back), under
perfect memory every card a player saw is shown; a card drawn from the deck only to its drawer."""

from __future__ import annotations


def table_view(state, seat: int | None) -> dict:
    g = state.game
    names = g.card_names
    perfect = g.perfect
    n = state.num_players
    piles = []
    for pile in state.piles:
        if seat is None or perfect:
            piles.append({"cards": [names[x] for x in pile], "covered": 0})
        else:
            piles.append({"cards": [names[pile[-1]]] if pile else [], "covered": max(len(pile) - 1, 0)})
    players = []
    for p in range(n):
        sequences = []
        for st in state.seqs[p]:
            if not st:
                continue
            cards = []
            for j, x in enumerate(st):
                down = g.karim and j == 0
                visible = seat is None or perfect or (j == len(st) - 1 and not down)
                cards.append(names[x] if visible else None)
            sequences.append({"cards": cards, "first_face_down": g.karim})
        sees_held = seat is None or seat == p or (perfect and state.held_src >= 0)
        players.append({
            "sequences": sequences,
            "tiles": {g.colours[c]: t for c, t in enumerate(state.tiles[p]) if t},
            "holds": [names[x] for x in state.held[p]] if sees_held else None,
            "holds_count": len(state.held[p]),
        })
    view = {
        "colours": list(g.colours),
        "decks": [len(d) for d in state.decks],
        "piles": piles,
        "players": players,
        "turn": state.turn,
        "phase": state.phase if state.current_player is not None else "over",
        "sadid_stack": [g.colours[c] for c in state.sadid_stack] if g.sadid else None,
        "el_portugues_token": (None if state.token < 0 else state.token) if g.port >= 0 else None,
        "desert_rose": (None if state.rose < 0 else state.rose) if g.karim else None,
    }
    if seat is not None and seat == state.current_player:
        view["targets"] = {str(a): _target(g, a) for a in state.legal_actions()}
    return view


def _target(g, a: int) -> str:
    kind, i = g.kind_of_id[a], g.index_of_id[a]
    if kind == "draw":
        return "deck" if i < 0 else f"pile:{i + 1}"
    if kind == "drop":
        return f"held:{i + 1}"
    if kind == "play":
        return f"sequence:{i + 1}" if g.karim else f"sequence:{g.colours[i]}"
    return f"pile:{i + 1}"
