"""``resample_hidden``: a world one seat cannot tell from the real one, with a past that replays.

Every move of Barakka is public (draw from the deck or pile i, play into a sequence, discard onto
pile i, solo: drop deck d's card); only the identities of some cards are hidden. So a world keeps
the real history's action ids and differs only in its deal: the order of the deck(s) at the
game's ``start`` (solo: also the card returned to the box). The method:

1. Replay the real game from its start and follow every card that leaves the deck ("slot" =
   its position in the start deck): which ones the seat ever saw. A card is seen when the seat
   draws it, when it is discarded or refills a pile (face up), when it is played face up, and
   under perfect memory also when it is shown before going face down (El-Karim). The seat never
   sees: the deck still undrawn, the card the opponent now holds after drawing it from the deck,
   and under ``memory="table"`` with El-Karim the opponent's face-down cards drawn from the deck
   (never shown to the observation). At the end of the game every sequence is revealed, so the
   face-down cards are hidden only while the game runs.
2. Deal the cards of the unseen slots at random into those slots. The only thing a hidden
   face-down card can change that the seat observes are the El Portugues token (it moves to whoever
   plays an El Portugues card), the Desert Rose (taken when a player's first cards cover the
   five base colours) and the legality of starting a sequence (a card of a colour its owner shows
   face up must go onto that sequence, decision 8): the deal must reproduce all three at every
   step. A uniform deal is tried first
   (exact rejection sampling); if it keeps failing, the real deal is kept and each face-down slot
   is swapped with a random unseen slot where the swap keeps both consistent.
3. Replay the real actions from the rewritten start: the world, whose ``start`` is the rewritten
   deal and whose history is the real one. The replay is the proof of consistency (the shared kit
   checks every past observation of the seat in it).

A hand-rigged start (``touch``) counts as seen except for its deck(s) and box: a covered card
placed by hand stays where it was put (a world with less resampled is still consistent).
The world's generator is fresh from the caller's ``rng`` (Barakka draws no chance after the deal).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

import numpy as np

from kabenvs.games.barakka.data import RANKS

if TYPE_CHECKING:
    from kabenvs.games.barakka.rules import BarakkaState

TRIES = 20
NB = 5

# A slot is a place in the start: ("deck", i, position) or ("removed", 0, position).
Slot = tuple


class Walk:
    """What the seat saw of the deal, from one replay of the real game (see the module doc)."""

    def __init__(self, state: "BarakkaState", player: int) -> None:
        g = state.game
        self.start = state.start["state"]
        origin = state.replay_start()
        self.actions = actions = state.replay_actions()
        table_karim = g.karim and not g.perfect and not g.solo
        self.port = g.port
        # slot -> (owner, step) of the opponent's face-down cards the seat never saw
        self.facedown: dict[Slot, tuple[int, int]] = {}
        # per player: the colours of its first cards at the start, then its sequence starts in
        # order as (position, hidden slot or None, card, whether the Rose was checked, taken)
        self.first_colours = [{st[0] // RANKS for st in seqs if st} for seqs in origin.seqs]
        self.starts: list[list[tuple]] = [[] for _ in range(g.num_players)]
        self.shown: dict[Slot, set[int]] = {}  # colours a hidden face-down card cannot have
        self.token_steps: list[tuple[Slot, int, int, int]] = []  # (slot, owner, before, after)
        held_slot: list[Slot | None] = [None] * g.num_players  # opponent's card drawn from the deck
        s = origin
        for t, a in enumerate(actions):
            kind = g.kind_of_id[a]
            q = s.current_player
            lens = [len(d) for d in s.decks]
            k = g.index_of_id[a]
            starting = kind == "play" and g.karim and not s.seqs[q][k]
            rose_before, token_before = s.rose, s.token
            card = s.held[q][0] if kind == "play" else None
            s.apply(a)
            if kind == "draw" and g.index_of_id[a] < 0 and q != player:
                held_slot[q] = ("deck", 0, lens[0] - 1)
            if kind in ("play", "discard"):
                slot = held_slot[q]
                held_slot[q] = None
                if starting:
                    hidden = slot is not None and table_karim
                    if hidden:
                        self.facedown[slot] = (q, t)
                        # a card of a colour q shows face up must go onto that sequence (decision 8)
                        self.shown[slot] = {st[-1] // RANKS for st in s.seqs[q] if len(st) >= 2}
                        if token_before != q:
                            self.token_steps.append((slot, q, token_before, s.token))
                    self.starts[q].append((k, slot if hidden else None, card, rose_before < 0, s.rose == q))
        over = state.current_player is None
        hidden: list[Slot] = []
        for i, deck in enumerate(state.decks):
            hidden += [("deck", i, j) for j in range(len(deck))]
        hidden += [("removed", 0, j) for j in range(len(state.removed))]
        for q, slot in enumerate(held_slot):
            if slot is not None and not over:
                hidden.append(slot)
        if over:  # the reveal: every sequence is shown, nothing face down stays hidden
            self.facedown, self.shown, self.token_steps = {}, {}, []
            self.starts = [[(k, None, *rest) for k, _, *rest in starts] for starts in self.starts]
        self.hidden = hidden + list(self.facedown)
        self.held_slot = held_slot

    def card_at(self, slot: Slot) -> int:
        where, i, j = slot
        start = self.start
        return start["decks"][i][j] if where == "deck" else start["removed"][j]

    def consistent(self, deal: dict[Slot, int]) -> bool:
        """The face-down cards in ``deal`` keep what the seat saw: the legality of each start,
        the token's and the Rose's moves."""
        for slot, shown in self.shown.items():
            if deal[slot] // RANKS in shown:
                return False
        for slot, q, before, after in self.token_steps:
            is_port = deal[slot] // RANKS == self.port
            if is_port != (after == q):
                return False
        for q, starts in enumerate(self.starts):
            colours = set(self.first_colours[q])
            for _, slot, card, check, taken in starts:
                colours.add((deal[slot] if slot is not None else card) // RANKS)
                if check and all(c in colours for c in range(NB)) != taken:
                    return False
        return True


def resample(state: "BarakkaState", player: int, rng: np.random.Generator) -> "BarakkaState":
    g = state.game
    if state.start is None:  # an older save without its start: the present position becomes it
        state = state.clone()
        state.mark_start()
    walk = Walk(state, player)
    deal = _deal(walk, rng)
    fields = copy.deepcopy(state.start["state"])
    for (where, i, j), x in deal.items():
        if where == "deck":
            fields["decks"][i][j] = x
        else:
            fields["removed"][j] = x
    holder = state.clone()
    holder.start = {"state": fields, "rng": state.start["rng"]}
    world = holder.replay_start()
    for a in walk.actions:
        world.apply(a)
    world.rng = np.random.default_rng(rng.integers(0, 2**63))
    return world


def _deal(walk: Walk, rng: np.random.Generator) -> dict[Slot, int]:
    slots = walk.hidden
    real = {slot: walk.card_at(slot) for slot in slots}
    cards = list(real.values())
    if not walk.facedown:
        return {slot: cards[i] for slot, i in zip(slots, rng.permutation(len(slots)))}
    for _ in range(TRIES):
        deal = {slot: cards[i] for slot, i in zip(slots, rng.permutation(len(slots)))}
        if walk.consistent(deal):
            return deal
    # The real deal is consistent: shuffle the unconstrained slots, then move each face-down card
    # by a swap that keeps the token and the Rose as they were.
    free = [slot for slot in slots if slot not in walk.facedown]
    deal = dict(real)
    for slot, i in zip(free, rng.permutation(len(free))):
        deal[slot] = real[free[i]]
    for f in walk.facedown:
        other = slots[int(rng.integers(len(slots)))]
        deal[f], deal[other] = deal[other], deal[f]
        if not walk.consistent(deal):
            deal[f], deal[other] = deal[other], deal[f]
    return deal


def hidden_zones(state: "BarakkaState", player: int) -> dict[str, list]:
    """The cards hidden from ``player`` now, by zone (what ``resample`` deals again)."""
    g = state.game
    if state.start is None:
        state = state.clone()
        state.mark_start()
    walk = Walk(state, player)
    zones: dict[str, list] = {}
    for i, deck in enumerate(state.decks):
        zones["deck" if not g.solo else f"deck {i + 1}"] = list(deck)
    if g.solo:
        zones["box"] = list(state.removed)
    if state.current_player is not None:
        for q, slot in enumerate(walk.held_slot):
            if slot is not None:
                zones[f"hand of player {q}"] = list(state.held[q])
        for q, starts in enumerate(walk.starts):
            down = [state.seqs[q][k][0] for k, slot, *_ in starts if slot is not None]
            if down:
                zones[f"face-down cards of player {q}"] = down
    return zones
