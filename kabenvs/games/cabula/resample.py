"""Cábula's ``resample_hidden``: a world the seat cannot tell from the real game, over its whole past.

How (docs/games/cabula.md, "Resampling"): the true game is replayed from its ``start`` while the
engine logs every card movement (``CabulaState._log``). From the seat's point of view every card
that is out of its sight (in another hand or in the deck) is a *token*: a start card of another
hand or of the deck, a card of a rebuilt deck, a card of the seat's own taken by another player, a
star a cauldron sent back to a hand. A token keeps its identity while it moves unseen (drawn by
another player, taken with a crystal ball between two other players). The seat learns a token's
type when it leaves unseen parts in plain view (played, discarded, a curse drawn, drawn or taken
by the seat) or when the seat looks at the hand holding it (two crystal balls): that type is
*fixed*. The other tokens are *free*; each belongs to a group whose contents are public (the
cards the seat never saw at the start; the discard pile each rebuilt deck was made of).

A world is a new type for every free token: each group's unfixed cards dealt at random to its
free tokens, curses only to tokens that never sat in a hand (hands never hold curses; everything
else the seat saw is a fixed type or public). Which token of a type a hand plays is picked at
random too, so the world's past varies as well as its present. The world is then *replayed* from
its own start: the start's other hands and deck come from the tokens; the outcomes of the past
chance events (each rebuilt deck's order, each card a single crystal ball took) are written into
the start's ``chance`` script, which the engine uses before its generator; a card another player
chose after two crystal balls is rewritten in the history. The replay proves the world
consistent: every past action is legal there and the seat saw the same thing at every step. The
world's generator is fresh from ``rng``, so its future is not the real one.

A hand-rigged start where the seat already knew something (cards in another hand, a rebuilt deck)
keeps that start's split between the other hands (together) and the deck.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

import numpy as np

from kabenvs.games.cabula.cards import CURSES, IS_CURSE, NUM_TYPES

if TYPE_CHECKING:
    from kabenvs.games.cabula.rules import CabulaState


def _counts(cards) -> list[int]:
    out = [0] * NUM_TYPES
    for c in cards:
        out[c] += 1
    return out


class _Tokens:
    """The seat's unseen cards (see the module docstring)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.true: list[int] = []  # the real type (only to follow the real game)
        self.group: list[int | None] = []
        self.fixed: list[int | None] = []
        self.handable: list[bool] = []  # sat in a hand at some point: never a curse
        self.groups: list[list[int]] = []  # public contents of each group

    def new(self, c: int, group: int | None, fixed: int | None = None, handable: bool = False) -> int:
        self.true.append(c)
        self.group.append(group)
        self.fixed.append(fixed)
        self.handable.append(handable)
        return len(self.true) - 1

    def pick(self, held: list[int]) -> int:
        """A random token of one type from a hand (tokens of a type in a hand are interchangeable)."""
        return held.pop(int(self.rng.integers(len(held))))

    def assign(self) -> list[int]:
        """A type for every token: fixed ones keep theirs, each group's rest dealt at random."""
        types = [c if f is None else f for c, f in zip(self.true, self.fixed)]
        free_of: list[list[int]] = [[] for _ in self.groups]
        left = [g[:] for g in self.groups]
        for t, g in enumerate(self.group):
            if g is None:
                continue
            if self.fixed[t] is None:
                free_of[g].append(t)
            else:
                left[g][self.fixed[t]] -= 1
        rng = self.rng
        for g, free in enumerate(free_of):
            rest = left[g]
            curses = [c for c in CURSES for _ in range(rest[c])]
            others = [c for c in range(NUM_TYPES) if not IS_CURSE[c] for _ in range(rest[c])]
            may_curse = [t for t in free if not self.handable[t]]
            if min(rest) < 0 or len(free) != len(curses) + len(others) or len(may_curse) < len(curses):
                raise AssertionError(f"resample: group {g} cannot be dealt")  # the truth always can
            may_curse = [may_curse[i] for i in rng.permutation(len(may_curse))]
            cursed = set(may_curse[: len(curses)])
            for t, c in zip(may_curse, curses):
                types[t] = c
            plain = [t for t in free if t not in cursed]
            for t, i in zip(plain, rng.permutation(len(others))):
                types[t] = others[i]
        return types


def resample(state: "CabulaState", me: int, rng: np.random.Generator) -> "CabulaState":
    g = state.game
    n = state.num_players
    if state.start is None:
        raise ValueError("resample_hidden needs the game's start (a state restored from an older save)")
    tok = _Tokens(rng)
    truth = state.replay_start()
    begin = len(truth.history)
    others = [q for q in range(n) if q != me]
    hand_tok: list[list[list[int]] | None] = [None] * n
    start_hands: list[list[int]] = [[] for _ in range(n)]

    # -- the start's unseen cards ---------------------------------------------------------------
    pool = g.composition[:]
    for c in range(NUM_TYPES):
        pool[c] -= truth.hands[me][c] + truth.discard[c]
    for d in truth.display:
        pool[0] -= d[0]
        pool[1] -= d[1]
    knew = any(truth.known[me * n + q] is not None or truth.groups[me * n + q] is not None
               or truth.groups2[me * n + q] is not None for q in others)
    knew = knew or truth.deck_cap_known or any(
        truth.deck_floor[me][c] != (pool[c] if IS_CURSE[c] else 0) for c in range(NUM_TYPES))
    if knew:  # a rigged start the seat already knew things about: hands and deck kept apart
        held = [0] * NUM_TYPES
        for q in others:
            held = [a + b for a, b in zip(held, truth.hands[q])]
        tok.groups = [held, _counts(truth.deck)]
        hand_group, deck_group = 0, 1
    else:
        tok.groups = [pool]
        hand_group = deck_group = 0
    for q in others:
        hand_tok[q] = [[] for _ in range(NUM_TYPES)]
        seen = truth.known_cards(me, q)
        for c in range(NUM_TYPES):
            for i in range(truth.hands[q][c]):
                t = tok.new(c, hand_group, c if i < seen[c] else None, True)
                hand_tok[q][c].append(t)
                start_hands[q].append(t)
    deck_tok = [tok.new(c, deck_group) for c in truth.deck]
    start_deck = deck_tok[:]

    # -- follow the real game ----------------------------------------------------------------------
    script: list = []  # ("deck", tokens) or ("take", token), in the order the events happened
    chosen: list[tuple[int, int]] = []  # (history index, token) of cards picked after two balls
    actions = state.history[:]
    for step in range(begin, len(actions)):
        truth._log = []
        truth.apply(actions[step])
        for ev in truth._log:
            kind = ev[0]
            if kind == "draw":
                q, c = ev[1], ev[2]
                t = deck_tok.pop()
                if q == me or IS_CURSE[c]:
                    tok.fixed[t] = c
                else:
                    tok.handable[t] = True
                    hand_tok[q][c].append(t)
            elif kind == "shuffle":
                tok.groups.append(_counts(ev[1]))
                grp = len(tok.groups) - 1
                deck_tok = [tok.new(c, grp) for c in ev[1]]
                script.append(("deck", deck_tok[:]))
            elif kind == "move":
                v, a, c, picked = ev[1], ev[2], ev[3], ev[4]
                t = tok.new(c, None, c, True) if v == me else tok.pick(hand_tok[v][c])
                if a == me:
                    tok.fixed[t] = c
                else:
                    hand_tok[a][c].append(t)
                if picked:
                    chosen.append((step, t))
                else:
                    script.append(("take", t))
            elif kind == "out":
                q, c, k = ev[1], ev[2], ev[3]
                if q != me:
                    for _ in range(k):
                        tok.fixed[tok.pick(hand_tok[q][c])] = c
            elif kind == "in":
                v, c, k = ev[1], ev[2], ev[3]
                if v != me:
                    for _ in range(k):
                        hand_tok[v][c].append(tok.new(c, None, c, True))
            elif ev[1] == me:  # "look": the seat saw the whole hand
                for c, held_tokens in enumerate(hand_tok[ev[2]]):
                    for t in held_tokens:
                        tok.fixed[t] = c

    # -- the world's start, script and history -----------------------------------------------------
    types = tok.assign()
    fields = copy.deepcopy(state.start["state"])
    for q in others:
        fields["hands"][q] = _counts(types[t] for t in start_hands[q])
    fields["deck"] = [types[t] for t in start_deck]
    fields["chance"] = [[types[t] for t in x] if kind == "deck" else types[x] for kind, x in script]
    _clamp_others_knowledge(fields, me, n)
    for step, t in chosen:
        actions[step] = g.take_ids[types[t]]
    fresh = np.random.default_rng(rng.integers(0, 2**63))
    proto = state.__class__.__new__(state.__class__)
    proto.game = g
    proto.start = {"state": fields, "rng": fresh.bit_generator.state}
    world = proto.replay_start()
    for a in actions[begin:]:
        world.apply(a)
    world.rng = np.random.default_rng(rng.integers(0, 2**63))
    return world


def _clamp_others_knowledge(fields: dict, me: int, n: int) -> None:
    """Other seats' knowledge at a (rigged) start is hidden from ``me``: keep it true there."""
    hands = fields["hands"]
    deck = _counts(fields["deck"])
    known = fields["known"]
    for i, kn in enumerate(known):
        v, p = divmod(i, n)
        if v == me:
            continue
        fields["groups"][i] = None  # dropping a claim keeps it sound in any world
        fields["groups2"][i] = None
        fields["fresh"][i] = 0
        if kn is None:
            continue
        row = [min(k, h) for k, h in zip(kn, hands[p])]
        known[i] = row if any(row) else None
    for v in range(n):
        if v == me:
            continue
        fields["deck_floor"][v] = [min(f, d) for f, d in zip(fields["deck_floor"][v], deck)]
        if fields["deck_cap_known"]:
            fields["deck_cap"][v] = [max(c, d) for c, d in zip(fields["deck_cap"][v], deck)]
