"""Helpers for rigged Kabaal states (imported by the test modules next to this file)."""

from __future__ import annotations

from kabenvs.games.kabaal import KabaalGame, KabaalState
from kabenvs.games.kabaal.board import AREA_INDEX
from kabenvs.games.kabaal.cards import card

RED, BLUE, BLACK = 0, 1, 2  # seats; cultist colours follow board.CULT_COLOURS


def cards(*names: str) -> list[int]:
    return sorted(card(n) for n in names)


def area(name: str) -> int:
    return AREA_INDEX[name]


def act(state: KabaalState, name: str, player: int | None = None) -> None:
    """Apply the action with this readable name; it must be legal (and asked of ``player``)."""
    a = state.game.catalog.lookup_name(name)
    if player is not None:
        assert state.current_player == player, (name, state.decision())
    assert state.is_legal(a), f"{name!r} is not legal now: {state.decision()}; legal: {legal_names(state)}"
    state.apply(a)


def legal_names(state: KabaalState) -> list[str]:
    return [state.action_name(a) for a in state.legal_actions()]


def fresh(game: KabaalGame | None = None, **config) -> KabaalState:
    game = game or KabaalGame(**config)
    return game.new_state(0)


def rig_pass_phase(state: KabaalState, hands: dict[int, list[int]], amulet: int) -> None:
    """A round just dealt: these 8-card hands, the amulet holder chooses first."""
    dealt = [k for h in hands.values() for k in h]
    state.amulet = amulet
    state.hands = [sorted(hands[p]) for p in range(state.num_players)]
    state.undealt = sorted(k for k in state.game.deck if k not in dealt)
    state.passing = [[] for _ in range(state.num_players)]
    state.phase = "pass"
    state.current_player = amulet
    state.touch()


def rig_play_phase(
    state: KabaalState, holdings: dict[int, tuple[list[int], list[int]]], leader: int, amulet: int | None = None
) -> None:
    """A round after the exchange: (hidden hand, face-up cards) per seat; ``leader`` opens trick 1."""
    n = state.num_players
    held = [k for hidden, up in holdings.values() for k in hidden + up]
    assert len(held) == len(set(held)), "a card is held twice"
    state.hands = [sorted(holdings[p][0]) for p in range(n)]
    state.faceup = [sorted(holdings[p][1]) for p in range(n)]
    state.received = [f[:] for f in state.faceup]
    state.passed = [state.faceup[(p + 1) % n][:] for p in range(n)]
    state.passing = [[] for _ in range(n)]
    state.played = [[] for _ in range(n)]
    state.undealt = sorted(k for k in state.game.deck if k not in held)
    state.amulet = leader if amulet is None else amulet
    state.tricks_played = 0
    state.tricks_won = [0] * n
    state.trick_cards, state.trick_seats = [], []
    state.phase = "play"
    state.context = "trick"
    state.current_player = leader
    state.touch()


def set_board(state: KabaalState, cultists: dict[int, list[str]], altar: list[int] | None = None) -> None:
    """Cultists per seat (area names); supplies follow from the altars."""
    n = state.num_players
    state.board = [0] * 16
    state.altar = list(altar) if altar is not None else [0] * n
    for p, names in cultists.items():
        for name in names:
            state.board[area(name)] |= 1 << p
    state.supply = [6 - state.altar[p] - len(cultists.get(p, [])) for p in range(n)]
    # the rigged board is this round's starting board (the observation shows it)
    state.round_start.update(board=state.board[:], supply=state.supply[:], altar=state.altar[:])
    state.touch()


def cultists_of(state: KabaalState, p: int) -> list[str]:
    from kabenvs.games.kabaal.board import AREA_CARDS

    return sorted(AREA_CARDS[a] for a in range(16) if state.board[a] >> p & 1)


def deal(state: KabaalState, spec: dict[int, tuple[list[str], list[str]]], leader: int, amulet: int | None = None) -> None:
    """Rig a round after the exchange: per seat (cards it must hold, card colours it must lack).

    The rest of each 8-card holding is filled with the first free colour cards of other colours;
    the last two cards of each holding are its face-up cards, so the named cards stay hidden."""
    from kabenvs.games.kabaal.board import CARD_COLOURS
    from kabenvs.games.kabaal.cards import COLOUR, NO_COLOUR

    taken = {card(name) for must, _ in spec.values() for name in must}
    holdings = {}
    for seat in range(state.num_players):
        must, void = spec.get(seat, ([], []))
        void_ids = {CARD_COLOURS.index(c) for c in void}
        hand = [card(name) for name in must]
        for k in state.game.deck:
            if len(hand) == 8:
                break
            if k in taken or COLOUR[k] == NO_COLOUR or COLOUR[k] in void_ids:
                continue
            hand.append(k)
            taken.add(k)
        assert len(hand) == 8, f"cannot fill seat {seat}"
        holdings[seat] = (hand[:6], hand[6:])
    rig_play_phase(state, holdings, leader, amulet)


def play(state: KabaalState, seat: int, name: str) -> None:
    """Seat plays ``name``, or already did because it was the only legal card."""
    k = card(name)
    if state.played[seat] and state.played[seat][-1] == k:
        return
    act(state, f"play {name}", seat)


def stop_placing(state: KabaalState) -> None:
    """Decline the optional second placement if it is offered (pushes come after it, rules note 3)."""
    if state.phase == "place" and "place no more cultists" in legal_names(state):
        act(state, "place no more cultists")
