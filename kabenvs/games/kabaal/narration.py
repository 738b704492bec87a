"""Kabaal's events as a seat sees them (``State.narrate``).

The engine takes every decision with one legal choice itself (rules note 12) and runs pushes with
no destination, rituals, the pass exchange and new rounds by rule: none of them is a decision, so
none is in the history. To tell them, the move is replayed on a copy of the state before it with
the rule steps observed (the copy's own methods wrapped), and each step is told as it happens.
Everything told is public: forced moves are named with ``action_name_for`` (a pass stays hidden
to the others), the passed cards are received face up, the board and the altars are open."""

from __future__ import annotations

from kabenvs.core.game import move_line, player_name
from kabenvs.games.kabaal.board import AREA_CARDS, CULT_COLOURS, NUM_AREAS
from kabenvs.games.kabaal.cards import CARD_NAMES, VALUE
from kabenvs.games.kabaal.rules import ritual_lines, trick_winner


def cultist(q: int) -> str:
    return f"{player_name(q)}'s {CULT_COLOURS[q]} cultist"


def narrate(before, after, action: int, seat: int | None) -> list[str]:
    events = [move_line(before, action, seat)]
    sim = before.clone()
    _observe(sim, events)
    sim.history.append(action)
    sim.last_move = [sim.current_player, action]
    sim._dispatch(action)
    # the engine's _settle: a decision with one legal choice is taken by rule (rules note 12)
    while sim.current_player is not None:
        legal = sim._legal_actions()
        if len(legal) != 1:
            break
        events.append(f"{player_name(sim.current_player)} (the only legal choice): "
                      f"{sim.action_name_for(legal[0], seat)}")
        sim._dispatch(legal[0], forced=True)
    return events


def _observe(sim, events: list[str]) -> None:
    """Wrap the rule steps of ``sim`` (a throwaway copy) so that each tells what it does."""
    cls = type(sim)
    n = sim.num_players

    def choose_pass(k):
        cls._choose_pass(sim, k)
        if sim.phase != "pass":  # everyone chose: the exchange happened
            for p in range(n):
                to = (p + 1) % n
                cards = ", ".join(CARD_NAMES[c] for c in sim.passed[p])
                events.append(f"{player_name(p)} passes {cards} to {player_name(to)} (kept face up)")

    def next_in_trick():
        if len(sim.trick_cards) == n:
            cards, seats = sim.trick_cards, sim.trick_seats
            w = trick_winner(cards, seats, sim.game.config.lowest_wins)
            events.append(f"{player_name(w)} wins trick {sim.tricks_played + 1} with "
                          f"{CARD_NAMES[cards[seats.index(w)]]}")
            ones = [s for s, k in zip(seats, cards) if VALUE[k] == 1]
            if ones and ones[0] != w:
                events.append(f"{player_name(ones[0])} played the first 1 and pushes")
        cls._next_in_trick(sim)

    def next_push():
        for a, q in sim.push_queue:
            if sim._destinations(a, q):
                break
            events.append(f"{cultist(q)} from {AREA_CARDS[a]} has no free neighbour: back to the supply")
        cls._next_push(sim)

    def rituals():
        lines_of = ritual_lines(sim.board, sim.game.geometry, n)
        start = sim.actor if sim.actor is not None else sim.amulet
        for i in range(n):
            q = (start + i) % n
            for line in lines_of[q]:
                cards = ", ".join(AREA_CARDS[a] for a in line)
                events.append(f"ritual: {player_name(q)}'s {CULT_COLOURS[q]} cult in a line on {cards}")
            if lines_of[q]:
                done = sim.altar[q] + len(lines_of[q])
                events.append(f"all of {player_name(q)}'s cultists leave the board; "
                              f"{player_name(q)} now has {done} ritual(s) on the altar")
        cls._rituals(sim)

    def next_pity():
        if sim.context != "pity" and sim.pity_queue:
            who = ", ".join(player_name(p) for p in sim.pity_queue)
            events.append(f"end of round {sim.round}: no trick for {who}: each may place a pity cultist")
        cls._next_pity(sim)

    def start_round():
        cls._start_round(sim)
        events.append(f"round {sim.round}: {player_name(sim.amulet)} holds the amulet; "
                      f"8 cards dealt to each player")

    def end_game():
        cls._end_game(sim)
        if sim.truncated:
            events.append(f"game over: the round limit ({sim.game.config.max_rounds}) was reached, no result")
            return
        won = [p for p in range(n) if sim.altar[p] >= 3]
        rituals_text = ", ".join(f"{player_name(p)} {sim.altar[p]}" for p in range(n))
        events.append(f"game over (rituals: {rituals_text})")
        if len(won) == 1:
            events.append(f"{player_name(won[0])} wins")
        else:
            events.append(" and ".join(player_name(p) for p in won) + " share the victory")

    sim._choose_pass = choose_pass
    sim._next_in_trick = next_in_trick
    sim._next_push = next_push
    sim._rituals = rituals
    sim._next_pity = next_pity
    sim._start_round = start_round
    sim._end_game = end_game


assert NUM_AREAS == len(AREA_CARDS)
