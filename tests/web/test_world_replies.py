"""What the server sends a seat is the same in every world that seat cannot tell from the real one.

The kit checks each piece a reply is built from (table view, narration, action names) against
resampled worlds; this checks the reply itself, as ``Manager.seat_view`` puts it together (the
events since any point, the legal moves, whether a single choice is asked and the note saying so),
over full games: a world of the seat is replayed through a ``LiveGame`` of its own and must give the
seat the very same JSON."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from kabenvs.agents.base import Decision
from kabenvs.web.live import ONLY_CHOICE, LiveGame, Manager
from kabenvs.web.store import Store

CASES = [
    ("kabaleo_v0", ["human", "human", "human"]),
    ("barakka_v0", ["human", "human"]),
    ("kabaal_v0", ["human", "human", "human"]),
    ("cabula_v0", ["human", "human"]),
    ("cabula_v0", ["human", "random", "human", "random"]),
    ("alakazum_v0", ["human", "human"]),
    ("alakazum_v0", ["random", "human", "random"]),  # a lone human: single choices taken unasked
]

POINTS = {3, 10, 25, 50, 90, 140, 200, 280, 380, 500}


def _world_live(live: LiveGame, world) -> LiveGame:
    """The game the server would hold had ``world`` been the real one: replayed from the world's
    own start through ``LiveGame.apply`` (which narrates and decides single choices as live play
    does); moves before that start are common to both and keep the real game's events."""
    replay = world.replay_start()
    done = len(replay.history)
    row = dataclasses.replace(live.row, actions=list(live.row.actions[:done]), status="playing")
    other = LiveGame(row, live.game, live.seats, replay)
    other.events = list(live.events[:done])
    for a in world.replay_actions():
        p = other.state.current_player
        other.apply(a, auto=other.seats[p].agent is None and other.only_choice_taken())
    return other


def _step(manager: Manager, live: LiveGame, rnd: random.Random) -> None:
    agent = live.agent_to_move()
    if agent is None:  # a human decides
        seat = live.state.current_player
        manager.human_move(live, seat, rnd.choice(live.state.legal_actions()), live.moves)
    else:  # what the server's agent driver does, without its pace
        action = live.state.legal_actions()[0] if agent is ONLY_CHOICE else agent.act(Decision(live.state.current_player, live.state))
        live.apply(action, auto=agent is ONLY_CHOICE)


@pytest.mark.parametrize("env_id,seats", CASES, ids=lambda c: c if isinstance(c, str) else f"{len(c)}p")
def test_every_seat_gets_the_same_reply_in_each_world_it_cannot_tell_apart(tmp_path, env_id, seats):
    manager = Manager(Store(tmp_path / "games.sqlite"), pace=0)
    live = manager.create({"env_id": env_id, "seats": seats, "seed": 11})
    rnd = random.Random(5)
    rng = np.random.default_rng(7)
    humans = [i for i, s in enumerate(seats) if s == "human"]
    compared = 0
    while True:
        over = live.state.current_player is None
        # points over the whole game, the late game and the last move included
        if over or live.moves in POINTS:
            for seat in humans:
                world = live.state.resample_hidden(seat, rng)
                other = _world_live(live, world)
                since = rnd.randrange(live.moves + 1)
                for start in (0, since):
                    mine, theirs = manager.seat_view(live, seat, start), manager.seat_view(other, seat, start)
                    assert theirs == mine, (
                        f"move {live.moves}: player {seat} would get another reply in a world it cannot "
                        f"tell from the real game: {_first_difference(mine, theirs)}")
                    compared += 1
        if over:
            break
        _step(manager, live, rnd)
    assert live.row.status in ("finished", "truncated")
    assert compared >= 2 * 3 * len(humans)


def _first_difference(a, b, path="reply"):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if a.get(k) != b.get(k):
                return _first_difference(a.get(k), b.get(k), f"{path}[{k!r}]")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
    return f"{path}: {a!r} here, {b!r} there"
