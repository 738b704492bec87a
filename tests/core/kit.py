"""Helpers of the shared test kit: every registered game, every config it lists."""

from __future__ import annotations

import json
import os
import random
from collections import Counter

import numpy as np
import pytest

from kabenvs.core.game import Game, State
from kabenvs.core.patience import patient
from kabenvs.core.registry import env_ids, game_class

# Games per config in the default run; `KIT_GAMES=5000 pytest -m slow` style runs scale it up.
KIT_GAMES = int(os.environ.get("KIT_GAMES", "300"))
# Shifts every seed of the kit's random games: `KIT_SEED=1 pytest tests/core/test_kit.py` plays
# other games than the default run (0), to look for what the default seeds never meet.
KIT_SEED = int(os.environ.get("KIT_SEED", "0"))


def kit_seed(seed: int) -> int:
    """``seed`` shifted by KIT_SEED (unchanged in the default run)."""
    return seed + 1_000_003 * KIT_SEED


def all_cases() -> list[tuple[str, dict]]:
    return [(eid, cfg) for eid in env_ids() for cfg in game_class(eid).test_configs]


def case_id(case) -> str:
    eid, cfg = case
    return eid + "[" + ",".join(f"{k}={v}" for k, v in sorted(cfg.items())) + "]"


CASES = all_cases()
cases = pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])


def build(case) -> Game:
    eid, cfg = case
    return game_class(eid)(**cfg)


def state_data(state: State) -> dict:
    """The state's fields without the generator and history (for 'did hidden info change')."""
    d = json.loads(state.to_json())["state"]
    d.pop("history", None)
    return d


def random_playout(state: State, rnd: random.Random, limit: int, check=None) -> int:
    steps = 0
    while state.current_player is not None and steps < limit:
        legal = state.legal_actions()
        if check is not None:
            check(state, legal)
        state.apply(rnd.choice(legal))
        steps += 1
    return steps


def sample_states(game: Game, n_games: int, seed: int, per_game: int = 4) -> list[State]:
    """States at random depths of random games (including some terminal ones)."""
    seed = kit_seed(seed)
    rnd = random.Random(seed)
    out = []
    for g in range(n_games):
        state = game.new_state(np.random.default_rng(seed * 1000 + g))
        trajectory = [state.clone()]
        while state.current_player is not None and len(trajectory) < game.max_decisions():
            state.apply(rnd.choice(state.legal_actions()))
            trajectory.append(state.clone())
        picks = sorted(rnd.sample(range(len(trajectory)), min(per_game, len(trajectory))))
        out.extend(trajectory[i] for i in picks)
    return out


# A full-length game can run to thousands of decisions (Barakka, Cábula, Alakazum!); the kit plays
# up to KIT_GAMES games per config but stops starting new ones past this many decisions in all.
KIT_STEPS = int(os.environ.get("KIT_STEPS", "60000"))


def full_games(game: Game, seed: int, n_games: int, min_games: int = 3):
    """Random full-length games: yields (trajectory of states before each move, actions, end).

    Stops after ``n_games`` or once ``KIT_STEPS`` decisions were played (at least ``min_games``)."""
    seed = kit_seed(seed)
    rnd = random.Random(seed)
    steps = 0
    for g in range(n_games):
        if g >= min_games and steps >= KIT_STEPS:
            return
        state = game.new_state(np.random.default_rng(seed * 1000 + g))
        before, actions = [], []
        while state.current_player is not None and len(actions) <= game.max_decisions():
            before.append(state.clone())
            a = rnd.choice(state.legal_actions())
            actions.append(a)
            state.apply(a)
        steps += len(actions)
        yield before, actions, state


def usable_world(state, seat: int, rng_at):
    """A world of ``state`` for ``seat`` as a consumer gets one: a world marked
    ``followed_truth`` (a resampler whose search budget ran out kept the real hidden choices;
    ``kabenvs.core.patience``) is never walked by the search bot nor handed out by the OpenSpiel
    bridge, which draw again, patiently, instead; so do the kit's checks of what worlds hold.
    ``rng_at(retry)``: the generator of the first draw (0) and of each patient one."""
    world = state.resample_hidden(seat, rng_at(0))
    retry = 0
    while world.followed_truth:
        retry += 1
        assert retry <= 3, "three patient draws in a row kept the real hidden choices"
        with patient():
            world = state.resample_hidden(seat, rng_at(retry))
    return world


def worlds_distribution_gap(state, seat: int, other, draws: int, items=None) -> tuple[float, tuple]:
    """The largest two-sample z statistic, over every (hidden zone, item), of how many copies of
    the item the zone holds in ``draws`` worlds resampled from ``state`` and from ``other`` (a
    world of it, which the seat cannot tell from it): the same distribution gives |z| of a few.
    For a game that does not claim ``worlds_depend_only_on_information`` (docs/adding_a_game.md):
    its worlds must at least follow one distribution on states the seat cannot tell apart.
    ``items(world)`` may count other (place, item) pairs than the game's ``hidden_zones``.

    Only the worlds a consumer uses are compared (``usable_world``)."""
    if items is None:
        def items(world):
            return ((z, x) for z, xs in world.hidden_zones(seat).items() for x in xs)
    counts = []
    for source, offset in ((state, 0), (other, 10**6)):
        rows = []
        for i in range(draws):
            world = usable_world(source, seat, lambda retry, i=i: np.random.default_rng(
                offset + i if retry == 0 else (offset + i, retry)))
            rows.append(Counter(items(world)))
        counts.append(rows)
    worst = (0.0, ())
    for key in set().union(*(row for rows in counts for row in rows)):
        a, b = (np.array([row[key] for row in rows], dtype=float) for rows in counts)
        se = np.sqrt(a.var(ddof=1) / draws + b.var(ddof=1) / draws)
        z = abs(a.mean() - b.mean()) / se if se else (0.0 if a.mean() == b.mean() else np.inf)
        worst = max(worst, (z, key))
    return worst


def swapped_truth(state, seat: int, rng, swap, rewrite=None, tries: int = 60):
    """A state ``seat`` cannot tell from ``state``, built by hand rather than by the resampler.

    ``swap(fields, rng)`` edits a copy of the real start's fields, exchanging two things the seat
    never saw (two cards of other hands, a hand card and a deck card, two secret colours), and
    returns False when the pair it drew does not apply. The history is then replayed from the
    edited start with every move checked (legal there, and the seat's observation the same as in
    the real game at every step); ``rewrite(world, k, action)``, where a game's hidden choices
    name what the swap moved, gives the move to replay instead (``k`` counts the moves since the
    start, as ``State.replay_actions`` lists them). None when no swap in ``tries``
    fits.

    Why by hand: a world the resampler drew keeps whatever the resampler pins where it really is,
    so comparing its worlds with the truth's cannot show a pin; a swapped truth can (the worlds of
    one must follow the truth's distribution, or, where a game claims
    ``worlds_depend_only_on_information``, be the very same worlds for the same generator)."""
    import copy

    truth = [state.replay_start()]
    begin = len(truth[0].history)
    for a in state.history[begin:]:
        truth.append(truth[-1].clone())
        truth[-1].apply(a)
    for _ in range(tries):
        fields = copy.deepcopy(state.start["state"])
        if swap(fields, rng) is False or fields == state.start["state"]:
            continue
        proto = state.__class__.__new__(state.__class__)
        proto.game = state.game
        proto.start = {"state": fields, "rng": state.start["rng"]}
        try:
            world = proto.replay_start()
            if world.observation(seat).tobytes() != truth[0].observation(seat).tobytes():
                continue
            for k, a in enumerate(state.history[begin:]):
                world.apply(rewrite(world, k, a) if rewrite else a)
                if world.observation(seat).tobytes() != truth[k + 1].observation(seat).tobytes():
                    raise ValueError("the seat would see something else")
        except Exception:  # noqa: BLE001 (an illegal move, or one the swap leaves nothing for)
            continue
        return world
    return None


def assert_same_worlds_as_a_swapped_truth(state, swap, draws: int = 4, rewrite=None) -> int:
    """For a game that claims ``worlds_depend_only_on_information``: at ``state``, for every seat,
    worlds drawn from the truth and from a swapped truth (``swapped_truth``) with the same
    generators are the same (marked worlds aside). Returns how many pairs were compared."""
    compared = 0
    for p in range(state.game.num_players):
        other = swapped_truth(state, p, np.random.default_rng(p), swap, rewrite)
        assert other is not None, f"no swap fits for player {p}: the test needs another position"
        for t in range(draws):
            same = same_world(state, other, p, t)
            assert same is not False, f"player {p}: the worlds depend on more than it knows"
            compared += same is True
    return compared


def same_world(state, other, seat: int, seed: int) -> bool | None:
    """Whether the worlds drawn for ``seat`` from ``state`` and from ``other`` with generators of
    one ``seed`` are the same; None when either is marked ``followed_truth`` (compared aside)."""
    a = state.resample_hidden(seat, np.random.default_rng(seed))
    b = other.resample_hidden(seat, np.random.default_rng(seed))
    if a.followed_truth or b.followed_truth:
        return None
    return a.to_json() == b.to_json()


def observationally_equal_groups(before: State, viewer: int, legal: list[int]) -> list[list[int]]:
    """The legal moves of ``before`` grouped by the observation ``viewer`` has after each: moves in
    one group are ones the viewer cannot tell apart (the generic definition of a hidden move)."""
    groups: dict[bytes, list[int]] = {}
    for a in legal:
        after = before.clone()
        after.apply(a)
        groups.setdefault(after.observation(viewer).tobytes(), []).append(a)
    return list(groups.values())
