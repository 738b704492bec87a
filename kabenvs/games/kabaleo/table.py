"""Kabaleo's table for drawing (``State.table_view``); the schema is in docs/play.md."""

from __future__ import annotations

from kabenvs.games.kabaleo.rules import COLOURS


def table_view(state, seat: int | None) -> dict:
    g = state.game
    n, nc = state.num_players, g.num_colours
    over = state.current_player is None
    counts = state.colour_counts()["spots"]
    view = {
        "colours": list(COLOURS[:nc]),
        "spots": [{"base": COLOURS[st[0]], "pieces": [COLOURS[c] for c in st[1:]], "top": COLOURS[st[-1]],
                   "last_move": s == state.last_spot} for s, st in enumerate(state.spots)],
        "stock": [{COLOURS[c]: k for c, k in enumerate(state.stock[p])} for p in range(n)],
        # a seat knows its own colour; all are revealed at the end (the box's never)
        "secret_colours": [COLOURS[state.targets[p]] if over or seat is None or seat == p else None
                           for p in range(n)],
        "spots_per_colour": {COLOURS[c]: counts[c] for c in range(nc)},
        "removed": {COLOURS[c]: state.removed[c] for c in range(nc)},
    }
    if seat is not None and seat == state.current_player:
        targets = {}
        for a in state.legal_actions():
            if a == g.pass_id:
                continue
            c, s = divmod(a, g.num_spots)
            targets[str(a)] = [f"stock:{COLOURS[c]}", f"spot:{s}"]  # two clicks: colour, spot
        view["targets"] = targets
    return view
