"""Kabaleo's events as a seat sees them (``State.narrate``): every move is public, the colours are
secret until the end. A placement may cancel (two pieces leave the game) and the end reveals every
target, counts the spots and says which tie-break decided."""

from __future__ import annotations

from kabenvs.core.game import move_line, player_name
from kabenvs.games.kabaleo.rules import COLOURS

TIE_BREAKS = (
    ("spots", "spots showing the colour"),
    ("stacks", "covered stacks showing the colour (first tie-break)"),
    ("tallest", "the tallest stack showing the colour (second tie-break)"),
)


def narrate(before, after, action: int, seat: int | None) -> list[str]:
    events = [move_line(before, action, seat)]
    p = before.current_player
    if action != before.game.pass_id:
        c, s = divmod(action, before.game.num_spots)
        if len(after.spots[s]) < len(before.spots[s]):
            shown = COLOURS[after.spots[s][-1]]
            kind = "base" if len(after.spots[s]) == 1 else "piece"
            events.append(f"cancellation on spot {s}: the two {COLOURS[c]} pieces leave the game; "
                          f"spot {s} shows its {shown} {kind} again")
        if not any(after.stock[p]):
            events.append(f"{player_name(p)} has placed every piece")
    else:
        events.append(f"{player_name(p)} had no legal placement (a forced pass; the pieces stay)")
    if after.current_player is not None:
        skipped = _skipped(after, p)
        if skipped:
            events.append(", ".join(player_name(q) for q in skipped) + " (no pieces left): skipped")
    else:
        events.extend(ending(after))
    return events


def _skipped(after, p: int) -> list[int]:
    n, q, out = after.num_players, (p + 1) % after.num_players, []
    while q != after.current_player and len(out) < n:
        out.append(q)
        q = (q + 1) % n
    return out


def ending(state) -> list[str]:
    """The reveal, the count and who won, naming the tie-break that decided (rules notes 1-2)."""
    n = state.num_players
    counts = state.colour_counts()
    lines = ["game over; the secret colours: "
             + ", ".join(f"{player_name(p)} {COLOURS[state.targets[p]]}" for p in range(n))]
    tied = list(range(n))
    for key, what in TIE_BREAKS:
        values = {p: counts[key][state.targets[p]] for p in tied}
        lines.append(f"{what}: " + ", ".join(f"{player_name(p)} {v}" for p, v in values.items()))
        best = max(values.values())
        tied = [p for p in tied if values[p] == best]
        if len(tied) == 1:
            if key != "spots":
                lines.append(f"the tie was decided by {what}")
            lines.append(f"{player_name(tied[0])} wins")
            return lines
    lines.append(" and ".join(player_name(p) for p in tied)
                 + " share the victory (still tied after every tie-break)")
    return lines
