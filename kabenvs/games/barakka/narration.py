"""Barakka's events as a seat sees them (``State.narrate``).

A card drawn from the deck is seen by its drawer only; every other card is seen by both players
when it moves: taken from a discard pile, played (El-Karim's first card of a sequence is shown to
the opponent before it goes face down: told to both, also under ``memory="table"``, where the
observation later forgets it, as a player at the table would), discarded, or the pile refill.
Tiles, the El Portugues token and the Desert Rose change hands in the open. The end tells each
player's score as a breakdown and who won."""

from __future__ import annotations

from kabenvs.core.game import move_line, player_name
from kabenvs.games.barakka.data import RANKS


def narrate(before, after, action: int, seat: int | None) -> list[str]:
    g = before.game
    names = g.card_names
    events = [move_line(before, action, seat)]
    p = before.current_player
    kind, i = g.kind_of_id[action], g.index_of_id[action]
    sees_own = seat is None or seat == p
    if kind == "draw":
        card = names[after.held[p][0]]
        if i < 0:
            events.append(f"{player_name(p)} draws {card}" if sees_own
                          else f"{player_name(p)} draws a card from the deck (hidden)")
        else:
            events.append(f"{player_name(p)} takes {card} from discard pile {i + 1}")
            if len(after.piles[i]) == 1 and len(before.piles[i]) == 1:
                events.append(f"discard pile {i + 1} is refilled from the deck: {names[after.piles[i][-1]]}")
    elif kind == "drop":
        events.append(f"{player_name(p)} discards {names[before.held[p][i]]} (out of the game) "
                      f"and keeps {names[before.held[p][1 - i]]}")
    elif kind == "play":
        card = before.held[p][0]
        stack = after.seqs[p][i]
        if g.karim and len(stack) == 1:
            shown = "" if g.solo else " (shown to the opponent first)"
            events.append(f"{player_name(p)} starts sequence {i + 1} face down with {names[card]}{shown}")
        else:
            where = f"sequence {i + 1}" if g.karim else f"the {g.colours[card // RANKS]} sequence"
            events.append(f"{player_name(p)} plays {names[card]} into {where} ({len(stack)} card(s))")
    elif kind == "discard":
        card = names[before.held[p][0]]
        events.append(f"{player_name(p)} discards {card}" + ("" if g.solo else f" onto pile {i + 1}"))
    events.extend(_tiles(before, after))
    if after.current_player is None:
        events.extend(ending(after))
    elif g.solo and after.phase == "drop" and before.phase != "drop":
        a, b = (names[x] for x in after.held[0])
        events.append(f"{player_name(0)} draws {a} from deck 1 and {b} from deck 2")
    return events


def _tiles(before, after) -> list[str]:
    g = before.game
    out = []
    for q in range(after.num_players):
        for c, (was, now) in enumerate(zip(before.tiles[q], after.tiles[q])):
            if now > was:
                out.append(f"{player_name(q)} takes the {g.colours[c]} tile")
            elif now < was:
                out.append(f"{player_name(q)} loses the {g.colours[c]} tile")
        for c, (was, now) in enumerate(zip(before.sadid_missed[q], after.sadid_missed[q])):
            if now and not was:
                out.append(f"{player_name(q)} finished {g.colours[c]} out of the Sadid order: "
                           f"never that tile")
    gone = [c for c in before.sadid_stack if c not in after.sadid_stack]
    for c in gone:
        if not any(after.tiles[q][c] for q in range(after.num_players)):
            out.append(f"the {g.colours[c]} Sadid tile is discarded")
    if after.token != before.token:
        out.append(f"{player_name(after.token)} takes the El Portugues token")
    if after.rose != before.rose:
        out.append(f"{player_name(after.rose)} takes the Desert Rose")
    return out


def score_lines(state) -> list[str]:
    """Each player's score as a breakdown: sequences (with their flaws), tiles, the Desert Rose."""
    g = state.game
    out = []
    for p in range(state.num_players):
        ps = state.player_score(p)
        parts = []
        for s in ps.sequences:
            what = f"{g.colours[s.colour]} {s.total}"
            parts.append(what + (f" ({s.flaw})" if s.flaw else f" (run 1-{s.run})" if s.run else ""))
        rose = ""
        if ps.rose:
            rose = f", Desert Rose {ps.rose}" + (f" {ps.rose_penalty}" if ps.rose_penalty else "")
        out.append(f"{player_name(p)}: {ps.total} points: sequences {ps.sequence_points} "
                   f"({', '.join(parts) or 'none'}), {ps.tiles} tile(s) {ps.tile_bonus}{rose}")
    return out


def ending(state) -> list[str]:
    if state.truncated:
        return [f"game over: the turn limit ({state.game.config.max_turns}) was reached, no result"]
    lines = ["game over: every card is revealed"] + score_lines(state)
    if state.num_players == 1:
        return lines
    won = state.winners()
    lines.append(f"{player_name(won[0])} wins" if len(won) == 1
                 else " and ".join(player_name(p) for p in won) + " share the victory (equal scores)")
    return lines
