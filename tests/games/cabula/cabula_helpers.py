"""Rigged Cábula positions for the rules tests."""

from __future__ import annotations

from kabenvs.games.cabula import CabulaGame
from kabenvs.games.cabula.cards import CURSES, NUM_TYPES, KEYS, WAND

ID = {key: c for c, key in enumerate(KEYS)}


def counts(spec: dict[str, int] | None) -> list[int]:
    out = [0] * NUM_TYPES
    for key, k in (spec or {}).items():
        out[ID[key]] += k
    return out


def rig(
    num_players: int = 2,
    hands: list[dict[str, int]] | None = None,
    display: list[tuple[int, int]] | None = None,
    top: list[str] = (),
    discard: dict[str, int] | None = None,
    turn: int = 0,
    draw_first: bool = False,
    deck_rest: bool = True,
    **config,
):
    """A state where ``turn`` is about to play (or to draw first with ``draw_first``).

    ``top`` lists the next cards of the deck in draw order; the rest of the deck (all cards not
    placed elsewhere) lies below them, without curses on top of the rest so that it never
    interferes, unless ``deck_rest`` is False (then the rest goes to the discard pile).
    """
    game = CabulaGame(num_players=num_players, **config)
    s = game.new_state(0)
    n = num_players
    hands = [counts(h) for h in (hands or [{}] * n)]
    display = [list(d) for d in (display or [(0, 0)] * n)]
    disc = counts(discard)
    top_ids = [ID[k] for k in top]
    rest = game.composition[:]
    for h in hands:
        for c in range(NUM_TYPES):
            rest[c] -= h[c]
    for d in display:
        rest[0] -= d[0]
        rest[1] -= d[1]
    for c in range(NUM_TYPES):
        rest[c] -= disc[c]
    for c in top_ids:
        rest[c] -= 1
    assert min(rest) >= 0, f"rigged position uses more cards than exist: {rest}"
    # Curses deepest, so the rest of the deck does not fire curses in the tests.
    rest_cards = [c for c in CURSES for _ in range(rest[c])]
    rest_cards += [c for c in range(NUM_TYPES) if c not in CURSES and c != WAND for _ in range(rest[c])]
    rest_cards += [WAND] * rest[WAND]
    if not deck_rest:
        for c in rest_cards:
            disc[c] += 1
        rest_cards = []
    s.hands = hands
    s.display = display
    s.discard = disc
    s.deck = rest_cards + top_ids[::-1]  # the top of the deck is the end of the list
    s.known = [None] * (n * n)
    floor = [0] * NUM_TYPES
    for c in s.deck:
        if c in CURSES:
            floor[c] += 1
    s.deck_floor = [floor[:] for _ in range(n)]
    s.deck_cap = [[0] * NUM_TYPES for _ in range(n)]
    s.deck_cap_known = False
    s.turn = turn
    s.turn_count = 1
    s.winner = None
    s.truncated = False
    s.history = []
    s.stack = [{"k": "end"}, {"k": "main", "p": turn}]
    if draw_first:
        s.stack.append({"k": "draw", "p": turn, "n": 1})
    s.current_player = turn
    s.touch()
    s._advance()
    s.touch()
    assert not s.invariants(), s.invariants()
    return s


def act(state, name: str) -> None:
    """Apply the legal action with this readable name (fails clearly if it is not legal)."""
    legal = {state.action_name(a): a for a in state.legal_actions()}
    assert name in legal, f"{name!r} not legal now ({state.decision()}); legal: {sorted(legal)}"
    state.apply(legal[name])
    assert not state.invariants(), state.invariants()


def legal_names(state) -> set[str]:
    return {state.action_name(a) for a in state.legal_actions()}
