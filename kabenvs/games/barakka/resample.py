"""``resample_hidden``: a world one seat cannot tell from the real one, with a past that replays.

Every move of Barakka is public (draw from the deck or pile i, play into a sequence, discard onto
pile i, solo: drop deck d's card); only the identities of some cards are hidden. So a world keeps
the real history's action ids and differs only in its deal: the order of the deck(s) at the
game's ``start`` (solo: also the card returned to the box). The method:

1. Replay the real game from its start and follow every card that leaves the deck ("slot" =
   its position in the start deck): which ones the seat ever saw. A card is seen when the seat
   draws it, when it is discarded or refills a pile (face up), when it is played face up, and
   when it is shown before going face down (El-Karim: the opponent is shown it, rules; under
   ``memory="table"`` too, whose observation shows it at the seat's next decision). The seat
   never sees: the deck still undrawn and the card the opponent now holds after drawing it from
   the deck.
2. Deal the cards of the unseen slots at random into those slots (uniformly: nothing the seat
   saw depends on which unseen card lies where).
3. Replay the real actions from the rewritten start: the world, whose ``start`` is the rewritten
   deal and whose history is the real one. The replay is the proof of consistency (the shared kit
   checks every past observation of the seat in it, and every move's name and narration).

A hand-rigged start (``touch``) counts as seen except for its deck(s) and box: a covered card
placed by hand stays where it was put (a world with less resampled is still consistent).
The world's generator is fresh from the caller's ``rng`` (Barakka draws no chance after the deal).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from kabenvs.core.game import copy_plain, world_start

if TYPE_CHECKING:
    from kabenvs.games.barakka.rules import BarakkaState

# A slot is a place in the start: ("deck", i, position) or ("removed", 0, position).
Slot = tuple


class Walk:
    """What the seat saw of the deal, from one replay of the real game (see the module doc)."""

    def __init__(self, state: "BarakkaState", player: int) -> None:
        g = state.game
        self.start = state.start["state"]
        s = state.replay_start()
        self.actions = actions = state.replay_actions()
        held_slot: list[Slot | None] = [None] * g.num_players  # opponent's card drawn from the deck
        for a in actions:
            kind = g.kind_of_id[a]
            q = s.current_player
            lens = [len(d) for d in s.decks]
            s.apply(a)
            if kind == "draw" and g.index_of_id[a] < 0 and q != player:
                held_slot[q] = ("deck", 0, lens[0] - 1)
            if kind in ("play", "discard"):
                held_slot[q] = None  # played or discarded face up, or shown before going face down
        over = state.current_player is None
        hidden: list[Slot] = []
        for i, deck in enumerate(state.decks):
            hidden += [("deck", i, j) for j in range(len(deck))]
        hidden += [("removed", 0, j) for j in range(len(state.removed))]
        for q, slot in enumerate(held_slot):
            if slot is not None and not over:
                hidden.append(slot)
        self.hidden = hidden
        self.held_slot = held_slot

    def card_at(self, slot: Slot) -> int:
        where, i, j = slot
        start = self.start
        return start["decks"][i][j] if where == "deck" else start["removed"][j]


def resample(state: "BarakkaState", player: int, rng: np.random.Generator) -> "BarakkaState":
    g = state.game
    if state.start is None:  # an older save without its start: the present position becomes it
        state = state.clone()
        state.mark_start()
    walk = Walk(state, player)
    deal = _deal(walk, rng)
    fields = copy_plain(state.start["state"])  # a pickle round trip: a fraction of deepcopy's cost
    for (where, i, j), x in deal.items():
        if where == "deck":
            fields["decks"][i][j] = x
        else:
            fields["removed"][j] = x
    holder = state.clone()
    # a fresh start generator (no chance is drawn after the deal, so the replay needs none): the
    # real one, stepped back, would give the real deal
    holder.start = world_start(fields, rng)
    world = holder.replay_start()
    for a in walk.actions:
        world.apply(a)
    # the world keeps the generator its replay ended with (the fresh start's): replaying the world
    # from its start then gives the world, generator included, also after moves in it
    return world


def _deal(walk: Walk, rng: np.random.Generator) -> dict[Slot, int]:
    slots = walk.hidden
    # sorted: the same generator deals the same world whatever the truth (the slots' order is
    # public; the cards in them, read from the real deal, are not)
    cards = sorted(walk.card_at(slot) for slot in slots)
    return {slot: cards[i] for slot, i in zip(slots, rng.permutation(len(slots)))}


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
    return zones
