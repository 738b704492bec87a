"""The shared test kit of DESIGN.md, run over every registered env id and its test configs.

A new game gets all of this by registering; nothing here names a game.
"""

from __future__ import annotations

import importlib
import json
import math
import random
import warnings
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import kabenvs
from kabenvs.agents import Decision, RandomAgent
from kabenvs.core.errors import ConfigError, IllegalActionError
from kabenvs.core.recall import probe_recall, seat_view
from kabenvs.core.registry import env_ids, game_class

from .kit import (
    KIT_GAMES, build, cases, full_games, kit_seed, observationally_equal_groups, random_playout, sample_states,
    same_world, state_data, worlds_distribution_gap,
)

ROOT = Path(__file__).resolve().parents[2]


def make_env(case, **kw):
    eid, cfg = case
    return kabenvs.make(eid, **cfg, **kw)


@cases
def test_pettingzoo_api(case):
    with warnings.catch_warnings():  # PettingZoo warns about Dict observations: by design
        warnings.simplefilter("ignore")
        api_test(make_env(case), num_cycles=300)


@cases
def test_pettingzoo_seed(case):
    seed_test(lambda: make_env(case), num_cycles=300)


@cases
def test_random_games_invariants(case):
    """Thousands of random games (over all configs): conservation, masks, bounds, returns."""
    game = build(case)
    rnd = random.Random(kit_seed(7))
    n = game.num_players
    lengths = []

    def check(state, legal):
        assert legal, f"no legal action while player {state.current_player} must decide"
        assert all(0 <= a < game.num_actions for a in legal)
        mask = state.legal_mask()
        assert mask.dtype == np.int8 and mask.sum() == len(legal)
        problems = state.invariants()
        assert not problems, problems

    for g in range(KIT_GAMES):
        state = game.new_state(np.random.default_rng(kit_seed(g)))
        steps = random_playout(state, rnd, game.max_decisions() + 1, check)
        lengths.append(steps)
        assert state.current_player is None, (
            f"game {g} did not end within its declared bound of {game.max_decisions()} decisions"
        )
        assert state.legal_actions() == [] and state.legal_mask().sum() == 0
        assert not state.invariants(), state.invariants()
        ret = state.returns()
        assert len(ret) == n and all(isinstance(r, float) and math.isfinite(r) for r in ret)
        if not state.truncated:
            winners = state.winners()
            assert winners and set(winners) <= set(range(n))
        json.dumps(state.final_info())  # plain JSON for infos and logs
    assert max(lengths) <= game.max_decisions()


@cases
def test_env_masks_only_for_deciding_agent(case):
    env = make_env(case)
    game = env.game
    rnd = random.Random(kit_seed(3))
    for episode in range(20):
        env.reset(seed=kit_seed(episode))
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            assert obs["observation"].shape == (game.observation_size,)
            assert obs["observation"].dtype == np.float32 and np.isfinite(obs["observation"]).all()
            for other in env.agents:
                mask = env.observe(other)["action_mask"]
                deciding = other == agent and not (term or trunc)
                assert (mask.sum() > 0) == deciding, (other, agent, term, trunc)
            if term or trunc:
                env.step(None)
                continue
            env.step(rnd.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        assert env.agents == []


@cases
def test_json_round_trip_and_clone_same_future(case):
    game = build(case)
    for state in sample_states(game, 15, seed=11):
        text = state.to_json()
        restored = game.state_from_json(text)
        assert restored.to_json() == text
        clone = state.clone()
        assert clone.to_json() == text
        rnd = random.Random(5)
        while state.current_player is not None:
            a = rnd.choice(state.legal_actions())
            for s in (state, restored, clone):
                s.apply(a)
            assert state.to_json() == restored.to_json() == clone.to_json()
            np.testing.assert_array_equal(
                state.observation(state.current_player or 0), restored.observation(state.current_player or 0)
            )


@cases
def test_cached_observations_and_masks_are_what_a_fresh_copy_computes(case):
    """Games keep caches and memos between observations for speed (per-seat vectors, memoised
    rows, kept masks), which every rules write must keep right or drop; a clone starts without
    any. At every step of whole random games, the observations handed out equal a fresh clone's:
    in the first game every seat is asked every step (a memo missed by a write shows at the next
    step), in the others only the seat to move, as the AEC loop asks (a stale memo shows when
    that seat is next asked); the mask too, and editing a returned mask changes nothing kept."""
    game = build(case)
    rnd = random.Random(kit_seed(3))
    for g in range(3):
        state = game.new_state(np.random.default_rng(kit_seed(4000 + g)))
        steps = 0
        while state.current_player is not None and steps <= game.max_decisions():
            fresh = state.clone()
            seats = range(game.num_players) if g == 0 else (state.current_player,)
            for seat in seats:
                np.testing.assert_array_equal(
                    state.observation(seat), fresh.observation(seat),
                    err_msg=f"game {g}, step {steps}: seat {seat}'s observation differs from a fresh copy's")
            mask = state.legal_mask()
            np.testing.assert_array_equal(mask, fresh.legal_mask(),
                                          err_msg=f"game {g}, step {steps}: the mask differs from a fresh copy's")
            mask[:] = 1 - mask  # the caller's copy: the kept mask (the game keeps one per legal set) is untouched
            np.testing.assert_array_equal(state.legal_mask(), fresh.legal_mask(),
                                          err_msg=f"game {g}, step {steps}: editing a returned mask changed the next")
            state.apply(rnd.choice(state.legal_actions()))
            steps += 1


@cases
def test_deepcopy_and_pickle_give_clones(case):
    """``copy.deepcopy`` and a pickle round trip of a state whose caches are filled (observations
    of every seat asked) give an independent state with the same observations and future: what
    OpenSpiel's ``clone()`` and multiprocessing rely on."""
    import copy
    import pickle

    game = build(case)
    for state in sample_states(game, n_games=2, seed=71, per_game=3):
        before = [state.observation(p).tobytes() for p in range(game.num_players)]
        for twin in (copy.deepcopy(state), pickle.loads(pickle.dumps(state))):
            assert [twin.observation(p).tobytes() for p in range(game.num_players)] == before
            assert state_data(twin) == state_data(state)
            if twin.current_player is not None:
                assert twin.legal_actions() == state.legal_actions()
                twin.apply(twin.legal_actions()[0])
                assert len(state.history) == len(twin.history) - 1  # independent of the original


@cases
def test_reset_from_saved_state(case):
    env = make_env(case)
    game = env.game
    state = sample_states(game, 1, seed=2, per_game=1)[0]
    env.reset(options={"state": state.to_json()})
    assert env.unwrapped.state.to_json() == state.to_json()
    if state.current_player is not None:
        assert env.agent_selection == f"player_{state.current_player}"


@cases
def test_illegal_action_raises_and_changes_nothing(case):
    game = build(case)
    env = make_env(case)
    for state in sample_states(game, 10, seed=13):
        if state.current_player is None:
            with pytest.raises(IllegalActionError):
                state.apply(0)
            continue
        before = state.to_json()
        illegal = np.flatnonzero(state.legal_mask() == 0).tolist()
        bad = [game.num_actions, -1, 2**40, 1.5, "x", None] + illegal[:3]
        for a in bad:
            with pytest.raises(IllegalActionError) as err:
                state.apply(a)
            assert state.decision() in str(err.value) and "legal choices" in str(err.value)
            assert state.to_json() == before
        # through the env as well
        env.reset(options={"state": before})
        for a in bad:
            if a is None:
                continue
            with pytest.raises(IllegalActionError):
                env.step(a)
            assert env.unwrapped.state.to_json() == before


@cases
def test_no_leak_under_resample_hidden(case):
    """What a seat observes (and may do) is the same in every world it cannot tell apart."""
    game = build(case)
    rng = np.random.default_rng(17)
    changed = checked = 0
    for state in sample_states(game, 25, seed=19):
        for p in range(game.num_players):
            for k in range(2):
                world = state.resample_hidden(p, rng)
                checked += 1
                np.testing.assert_array_equal(world.observation(p), state.observation(p))
                assert world.render(p) == state.render(p), "render(player) shows what the seat cannot know"
                assert world.current_player == state.current_player
                if state.current_player == p:
                    np.testing.assert_array_equal(world.legal_mask(), state.legal_mask())
                assert not world.invariants(), world.invariants()
                if state_data(world) != state_data(state):
                    changed += 1
                # a resampled world is a real game: it plays on to a legal end (the first of the
                # two: the playouts were most of this test's time, 6 minutes at Alakazum! 5p)
                if k == 0:
                    random_playout(world.clone(), random.Random(1), game.max_decisions())
    if game.has_hidden_information:
        assert changed > 0, "resample_hidden never changed any hidden information"


@cases
def test_moves_read_to_each_seat_as_it_saw_them(case):
    """Moves that leave a seat's observation identical read identically to that seat
    (``action_name_for``): infos, terminal play, logs and replays can tell it no more."""
    game = build(case)
    rnd = random.Random(41)
    checked = 0
    for before_states, actions, _ in full_games(game, seed=43, n_games=4, min_games=2):
        picks = rnd.sample(range(len(before_states)), min(60, len(before_states)))
        for i in picks:
            before = before_states[i]
            legal = before.legal_actions()
            if len(legal) > 30:
                legal = sorted(set(rnd.sample(legal, 30)) | {actions[i]})
            for viewer in range(game.num_players):
                assert before.action_name_for(actions[i], None) == before.action_name(actions[i])
                if viewer == before.current_player:
                    assert before.action_name_for(actions[i], viewer) == before.action_name(actions[i])
                for group in observationally_equal_groups(before, viewer, legal):
                    names = {before.action_name_for(a, viewer) for a in group}
                    checked += 1
                    assert len(names) == 1, (
                        f"player {viewer} cannot tell these moves apart by its observation but they read "
                        f"differently to it: {sorted(names)} ({before.decision()})"
                    )
    assert checked


@cases
def test_table_view_is_json_and_the_same_in_every_world_the_seat_cannot_tell_apart(case):
    """``table_view(p)``: the common keys, plain JSON, and no more than ``p`` knows: the same in
    every world ``resample_hidden(p)`` gives (what a browser is sent is only the seat's)."""
    game = build(case)
    rng = np.random.default_rng(23)
    common = {"game", "num_players", "seat", "current_player", "decision", "terminal", "winners",
              "scores", "text"}
    for state in sample_states(game, 12, seed=29, per_game=3):
        for p in [None, *range(game.num_players)]:
            view = state.table_view(p)
            assert common <= set(view), sorted(common - set(view))
            assert view["game"] == game.env_id and view["seat"] == p
            assert view["current_player"] == state.current_player and view["terminal"] == state.is_terminal()
            text = json.dumps(view, sort_keys=True, allow_nan=False)
            assert json.loads(text) == view, "table_view must be plain JSON (string keys, no tuples)"
            targets = view.get("targets")
            if targets is not None:
                assert p == state.current_player, "only the deciding seat gets click targets"
                assert set(targets) <= {str(a) for a in state.legal_actions()}, "targets name legal moves"
                # one thing's key, or the keys of the things clicked in turn (never split: names may
                # hold any character, "Die potion +1", "5+")
                assert all((isinstance(k, str) and k) or (isinstance(k, list) and k and
                           all(isinstance(x, str) and x for x in k)) for k in targets.values())
            if p is None:
                continue
            for _ in range(2):
                world = state.resample_hidden(p, rng)
                assert json.dumps(world.table_view(p), sort_keys=True) == text, (
                    f"table_view({p}) shows what the seat cannot know")


@cases
def test_moves_narrate_to_each_seat_as_it_saw_them(case):
    """``narrate``: moves that leave a seat's observation identical narrate identically to it;
    the first event is the move as the seat saw it, by the absolute name of the mover."""
    game = build(case)
    rnd = random.Random(47)
    checked = 0
    for before_states, actions, _ in full_games(game, seed=53, n_games=3, min_games=2):
        picks = rnd.sample(range(len(before_states)), min(40, len(before_states)))
        for i in picks:
            before = before_states[i]
            legal = before.legal_actions()
            if len(legal) > 20:
                legal = sorted(set(rnd.sample(legal, 20)) | {actions[i]})
            afters = {}
            for a in legal:
                afters[a] = before.clone()
                afters[a].apply(a)
            for viewer in range(game.num_players):
                for group in observationally_equal_groups(before, viewer, legal):
                    tales = {tuple(afters[a].narrate(before, a, viewer)) for a in group}
                    checked += 1
                    assert len(tales) == 1, (
                        f"player {viewer} cannot tell these moves apart by its observation but they "
                        f"narrate differently to it: {sorted(tales)} ({before.decision()})")
                    (tale,) = tales
                    assert tale and all(isinstance(e, str) and e for e in tale)
                    assert tale[0].startswith(f"player {before.current_player}: ")
    assert checked


@cases
def test_full_games_narrate_for_every_seat_and_for_all(case):
    """Every move of full random games narrates (a non-empty list of text lines) to every seat and
    to the all-seeing view, and the table view is drawable at every step."""
    game = build(case)
    steps = 0
    for before_states, actions, end in full_games(game, seed=59, n_games=3, min_games=1):
        afters = before_states[1:] + [end]
        for before, action, after in zip(before_states, actions, afters):
            steps += 1
            for seat in [None, *range(game.num_players)]:
                tale = after.narrate(before, action, seat)
                assert isinstance(tale, list) and tale and all(isinstance(e, str) and e for e in tale)
                assert "{" not in " ".join(tale), f"a raw dict in the narration: {tale}"
        for seat in [None, *range(game.num_players)]:
            view = end.table_view(seat)
            assert view["terminal"] and isinstance(view["winners"], list)
    assert steps


@cases
def test_env_infos_are_each_seats_view_of_the_move(case):
    """Every key of every agent's info at every step: the move as that seat saw it, who moved,
    and at the end the public result; nothing else."""
    env = make_env(case)
    rnd = random.Random(kit_seed(5))
    for episode in range(3):
        env.reset(seed=kit_seed(100 + episode))
        before = None
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if before is not None:
                state = env.unwrapped.state
                for a in env.agents:
                    i = int(a.split("_")[1])
                    got = env.infos[a]
                    assert got["last_action"] == before.action_name_for(action, i)
                    assert got["last_player"] == before.current_player
                    extra = set(got) - {"last_action", "last_player", "truncated_by"}
                    if extra:
                        assert state.current_player is None or got.get("truncated_by"), (a, sorted(extra))
                        final = state.final_info()
                        assert {k: got[k] for k in extra} == {k: final[k] for k in extra}
            if term or trunc:
                before = None
                env.step(None)
                continue
            before = env.unwrapped.state.clone()
            action = rnd.choice(np.flatnonzero(obs["action_mask"]).tolist())
            env.step(action)


@cases
def test_observations_never_merge_histories_whose_positions_differ(case):
    """Perfect recall, measured (kabenvs/core/recall.py): two branches of random positions, then
    the same random moves on both. Once a seat could tell the branches apart (by the move's name,
    its narration or its observation), its observations of them may become equal again only when
    every seat's are (the difference left is past choices no player's view holds any more, which
    each game's docs page accounts for); never while another seat still sees a difference, which
    would mean the seat forgot something that is still true of the game, unless the game names
    the summary that explains it (``State.recall_gap``, on its docs page too) or each branch's
    hidden split is shown possible after the other's history (odds only: ``same_possible_worlds``).
    Each branch pair is followed to the game's end: Cábula's rebuilt decks make merges 40 to 400
    steps after the branch."""
    game = build(case)
    report = probe_recall(game, seed=kit_seed(61), n_games=2, positions_per_game=12, pairs_per_position=2,
                          odds_tries=20)
    assert report.comparisons, "no branches that a seat could tell apart: the probe checked nothing"
    assert report.unexplained == 0, (
        f"{report.unexplained} merges of positions another seat still tells apart, with no summary the "
        f"game names (State.recall_gap), e.g. {[str(m) for m in report.examples if not (m.pure_history or m.gap)][:3]}")


@cases
def test_resampled_world_replays_the_seats_whole_history(case):
    """A resampled world is one the seat's whole past is consistent with: replayed from that
    world's own start, every past action is legal there, the same seat is asked at every step,
    and the seat sees exactly the observations it saw, and now the same seat is asked (the seat to
    move with the same legal moves: its mask); the replay ends in the world itself. Every
    move of the world's history is also named and narrated to the seat as in the real game (the
    infos' and the logs' channels)."""
    game = build(case)
    if not game.has_hidden_information:
        pytest.skip("no hidden information")
    rnd = random.Random(53)
    rng = np.random.default_rng(59)
    checked = 0
    for before_states, actions, end in full_games(game, seed=61, n_games=6, min_games=2):
        trajectory = before_states + [end]
        real_tales: dict[tuple[int, int], tuple] = {}
        # points spread over the whole game, the late game included
        points = sorted({len(trajectory) - 1, len(trajectory) // 2, *rnd.sample(range(len(trajectory)), 2)})
        for t in points:
            state = trajectory[t]
            for p in range(game.num_players):
                world = state.resample_hidden(p, rng)
                replay = world.replay_start()
                done = len(replay.history)
                assert world.history[:done] == replay.history
                for i, a in enumerate(world.history[done:], start=done):
                    past = trajectory[i]
                    assert replay.current_player == past.current_player, f"step {i}: another seat asked"
                    np.testing.assert_array_equal(
                        replay.observation(p), past.observation(p),
                        err_msg=f"step {i}: player {p} would have seen something else in this world")
                    assert replay.is_legal(a), f"step {i}: {replay.action_name(a)} is not legal in this world"
                    # every move is named and narrated to the seat as in the real game (the infos'
                    # and the logs' channels)
                    told, real = replay.action_name_for(a, p), past.action_name_for(actions[i], p)
                    assert told == real, f"step {i}: player {p} would have been told {told!r} in this world, not {real!r}"
                    before = replay.clone()
                    replay.apply(a)
                    if (i, p) not in real_tales:  # the real game's narration, once per step and seat
                        real_tales[i, p] = seat_view(past, trajectory[i + 1], actions[i], p)[1]
                    told, real = seat_view(before, replay, a, p)[1], real_tales[i, p]
                    assert told == real, f"step {i}: player {p} would have been told {told} in this world, not {real}"
                np.testing.assert_array_equal(replay.observation(p), state.observation(p))
                # the decision now is the seat's to read too: the same seat is asked, and the seat
                # to move sees the same legal moves (its mask) as in the real game
                assert world.current_player == state.current_player, "another seat is asked now in this world"
                if p == state.current_player:
                    assert world.legal_actions() == state.legal_actions(), "the seat would have other legal moves"
                mine = {k: v for k, v in state_data(world).items() if k != "start"}
                theirs = {k: v for k, v in state_data(replay).items() if k != "start"}
                assert mine == theirs, "the replay does not end in the resampled world"
                checked += 1
    assert checked


@cases
def test_a_world_replays_to_itself_also_after_moves_in_it(case):
    """A resampled world, and the same world after moves played in it (what a search or
    OpenSpiel's ISMCTS does), replayed from its own start gives that world again, its generator
    included. A seat's information-state key is built by that replay (core.view_history): Cábula
    and Alakazum! once gave their worlds a fresh generator after the replay, so the replay then
    drew other chance, met illegal moves or silently keyed another history."""
    game = build(case)
    if not game.has_hidden_information:
        pytest.skip("no hidden information")
    rnd = random.Random(97)
    checked = 0
    for before_states, _actions, end in full_games(game, seed=89, n_games=3, min_games=1):
        trajectory = before_states + [end]
        for t in sorted(rnd.sample(range(len(trajectory)), min(4, len(trajectory)))):
            state = trajectory[t]
            p = rnd.randrange(game.num_players)
            world = state.resample_hidden(p, np.random.default_rng(t))
            for moves in (0, 40):
                for _ in range(moves):
                    if world.current_player is None:
                        break
                    world.apply(rnd.choice(world.legal_actions()))
                if world.start is None:
                    continue
                replay = world.replay_start()
                for a in world.replay_actions():
                    replay.apply(a)
                assert state_data(replay) == state_data(world), f"after {moves} moves: the replay is elsewhere"
                assert replay.rng.bit_generator.state == world.rng.bit_generator.state, \
                    f"after {moves} moves: the replay's generator is not the world's (its future differs)"
                checked += 1
    assert checked


@cases
def test_a_world_never_carries_the_real_generator(case):
    """A resampled world holds nothing of the real game's generator: neither as its own ``rng``
    (the real future) nor in its ``start`` (a generator state can be stepped back to the real
    deal, and replayed forward to the real future), nor at the end of a replay from that start.
    Its past chance, where it has any, is a record in its start instead."""
    game = build(case)
    if not game.has_hidden_information:
        pytest.skip("no hidden information")
    before_states, _actions, _end = next(full_games(game, seed=101, n_games=1, min_games=1))
    for state in before_states[:: max(1, len(before_states) // 6)]:
        p = state.current_player
        world = state.resample_hidden(p, np.random.default_rng(5))
        real = {json.dumps(state.rng.bit_generator.state, sort_keys=True)}
        if state.start is not None:
            real.add(json.dumps(state.start["rng"], sort_keys=True))
        assert json.dumps(world.rng.bit_generator.state, sort_keys=True) not in real
        if world.start is not None:
            assert json.dumps(world.start["rng"], sort_keys=True) not in real
            replay = world.replay_start()
            for a in world.replay_actions():
                replay.apply(a)
            assert json.dumps(replay.rng.bit_generator.state, sort_keys=True) not in real


@cases
def test_the_same_generator_deals_the_same_world_on_states_the_seat_cannot_tell_apart(case):
    """Where a game claims it (``Game.worlds_depend_only_on_information``): the real state and a
    world of it, resampled for the same seat with the same generator, give the same world (marked
    worlds aside), over whole games, for every seat (not only the one to move). Then a seeded
    search's move depends only on what the seat knows (docs/search.md)."""
    game = build(case)
    if not game.has_hidden_information or not game.worlds_depend_only_on_information:
        pytest.skip("the game does not claim it")
    rnd = random.Random(79)
    compared = 0
    for before_states, _actions, end in full_games(game, seed=83, n_games=2, min_games=1):
        trajectory = before_states + [end]
        for t in sorted(rnd.sample(range(len(trajectory)), min(8, len(trajectory)))):
            state = trajectory[t]
            for p in range(game.num_players):  # every seat, the ones waiting too
                other = state.resample_hidden(p, np.random.default_rng(1000 + t))
                same = same_world(state, other, p, t)
                assert same is not False, f"step {t}: player {p}'s world depends on more than it knows"
                compared += same is True
    assert compared


@cases
def test_worlds_of_a_world_are_drawn_like_worlds_of_the_truth(case):
    """Where a game does not claim ``worlds_depend_only_on_information``, its worlds must at least
    follow one distribution on states the seat cannot tell apart: drawn from the real state and
    from a world of it, how many copies of each item each hidden zone holds must agree (a
    two-sample z per zone and item, ``worlds_distribution_gap``), at positions spread over a
    full-length game (the position where the first two Alakazum! leaks showed was a third of the
    way into a 3-player game), for the seat to move and for one that waits."""
    game = build(case)
    if not game.has_hidden_information or game.worlds_depend_only_on_information:
        pytest.skip("the game claims the same world per generator, which the kit checks instead")
    before_states, _actions, _end = next(full_games(game, seed=89, n_games=1, min_games=1))
    n = game.num_players
    for i, fraction in enumerate((0.2, 0.35, 0.5, 0.65, 0.8, 0.95)):
        state = before_states[int(len(before_states) * fraction)]
        # the seat to move and one that is not (in turn): a seat waiting while another decides
        # is where Alakazum!'s Forest Magic cards were left out of a seat's hidden zones
        for p in sorted({state.current_player, (state.current_player + 1 + i % max(1, n - 1)) % n}):
            other = state.resample_hidden(p, np.random.default_rng(97))
            z, key = worlds_distribution_gap(state, p, other, 40)
            assert z < 6, f"{fraction:.0%} into the game, player {p}: {key}: z = {z:.1f}"


@cases
def test_hidden_items_are_exchangeable_under_resampling(case):
    """Everything hidden from a seat is exchangeable: over many resamples, items hidden in one
    hidden zone (another hand, the undealt cards, a deck) sometimes end up in another."""
    game = build(case)
    states = [s for s in sample_states(game, 20, seed=67) if s.current_player is not None]
    if not game.has_hidden_information or not states or states[0].hidden_zones(0) is None:
        pytest.skip("the game declares no hidden zones")
    rng = np.random.default_rng(71)
    left: dict[str, int] = {}
    chances: dict[str, int] = {}
    from collections import Counter

    for state in states:
        for p in range(game.num_players):
            zones = state.hidden_zones(p)
            busy = [z for z, items in zones.items() if items]
            if len(busy) < 2:
                continue
            for k in range(8):
                # Once every zone here has been seen to give items away a few times, more draws at
                # this position cannot change the verdict (they took Alakazum! at 5 players 13
                # minutes of the default run): one world still checks that the items are kept.
                if k and all(left.get(z, 0) >= 3 for z in busy):
                    break
                world = state.resample_hidden(p, rng)
                wz = world.hidden_zones(p)
                assert sorted(x for z in zones.values() for x in z) == sorted(x for z in wz.values() for x in z)
                for z in busy:
                    chances[z] = chances.get(z, 0) + 1
                    if Counter(zones[z]) - Counter(wz.get(z, [])):
                        left[z] = left.get(z, 0) + 1
    never = sorted(z for z in chances if not left.get(z))
    assert not never, f"items hidden in {never} never moved to another hidden zone over {chances} resamples"


@cases
def test_resampled_worlds_cover_what_the_seat_cannot_rule_out(case):
    """``resample_hidden(p)`` draws from everything ``p`` cannot rule out, not from worlds that
    secretly follow the truth. Where a seat's move reads the same to ``p`` as another of its legal
    moves (a card given or taken face down), the world after the other move is one ``p`` cannot
    tell from the real one; so whatever that other move would have left in a hidden zone must
    turn up there in some resampled world, at least where the worlds show that zone with only a
    few contents (so a miss is not bad luck). A sampler that picks the hidden card by the real
    one (the world always gives away what really went) fails here, though every world it draws
    is consistent.

    Only the worlds a consumer uses are looked at: a world marked ``followed_truth`` (the
    resampler's budget ran out and it kept the real hidden choices) is never walked by the search
    bot, which draws again patiently or skips the simulation (``usable_world``). Such worlds
    used to count here, so a position where every usual draw fell back failed this check
    (``KIT_SEED=5``: a 5-player Alakazum! gift at step 390, 60 of 60 draws marked), though no
    consumer walks them. Drawing those again patiently (seconds a world at such positions) would
    cost minutes a run, so a position with too few unmarked worlds is counted instead, and a
    resampler that leaves most positions without one fails."""
    game = build(case)
    if not game.has_hidden_information:
        pytest.skip("no hidden information")
    first = game.new_state(0)
    if first.hidden_zones(0) is None:
        pytest.skip("the game declares no hidden zones")
    rnd = random.Random(83)
    rng = np.random.default_rng(89)
    probe, worlds_per_check, budget = 5, 60, 2500  # resamples: a quick look first, then a close one

    def contents(zones: dict, z: str) -> tuple:
        return tuple(sorted(map(repr, zones.get(z, []))))

    def draw(after, viewer: int, k: int) -> tuple[dict[str, set], int]:
        """What each zone held in the unmarked worlds of ``k`` draws, and how many there were."""
        seen: dict[str, set] = {}
        usable = 0
        for _ in range(k):
            world = after.resample_hidden(viewer, rng)
            if world.followed_truth:
                continue
            usable += 1
            wz = world.hidden_zones(viewer)
            for z in wz:
                seen.setdefault(z, set()).add(contents(wz, z))
        return seen, usable

    checked = probed = without_worlds = 0
    for before_states, actions, _ in full_games(game, seed=97, n_games=12, min_games=4):
        for i, before in enumerate(before_states):
            if probed * probe >= budget:
                break
            legal = before.legal_actions()
            if len(legal) < 2:
                continue
            if len(legal) > 30:
                legal = sorted(set(rnd.sample(legal, 30)) | {actions[i]})
            for viewer in range(game.num_players):
                if viewer == before.current_player:
                    continue
                for group in observationally_equal_groups(before, viewer, legal):
                    if len(group) < 2:
                        continue
                    real = actions[i] if actions[i] in group else group[0]
                    after = before.clone()
                    after.apply(real)
                    zones = after.hidden_zones(viewer)
                    others = []
                    for b in group:
                        alt = before.clone()
                        alt.apply(b)
                        alt_zones = alt.hidden_zones(viewer)
                        differ = [z for z in alt_zones if contents(alt_zones, z) != contents(zones, z)]
                        if differ:
                            others.append((b, alt_zones, differ))
                    if not others:
                        continue
                    probed += 1
                    seen, usable = draw(after, viewer, probe)
                    if not usable:
                        without_worlds += 1
                        break
                    if not any(len(seen.get(z, ())) <= 2 for _, _, differ in others for z in differ):
                        break  # those zones vary freely in the worlds: nothing to check closely here
                    seen, usable = draw(after, viewer, worlds_per_check)
                    if usable < worlds_per_check // 3:  # too few for a miss to mean anything
                        without_worlds += 1
                        break
                    checked += 1
                    for b, alt_zones, differ in others:
                        for z in differ:
                            if len(seen.get(z, ())) <= 3:
                                assert contents(alt_zones, z) in seen[z], (
                                    f"step {i}: player {viewer} cannot tell {before.action_name(real)!r} "
                                    f"from {before.action_name(b)!r} ({before.decision()}), yet in "
                                    f"{usable} resampled worlds {z} always held one of "
                                    f"{sorted(seen[z])}, never what the other move leaves there: "
                                    f"{contents(alt_zones, z)}")
                    break  # one group per decision and viewer is enough
    if probed == 0:
        pytest.skip("no move in these games reads the same to a seat as another move")
    assert without_worlds <= probed // 4, (
        f"at {without_worlds} of {probed} positions the resampler's usual draws nearly all kept the "
        "real hidden choices (marked followed_truth): too few worlds to check")


@cases
def test_same_seed_same_trajectory_despite_global_rngs(case):
    def run(disturb: bool):
        env = make_env(case)
        env.reset(seed=1234)
        rnd = random.Random(99)
        trace = []
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward))
            if disturb:
                random.seed(random.random())
                np.random.seed(int(np.random.randint(1 << 30)))
                np.random.random(7)
            env.step(None if term or trunc else rnd.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        return trace

    assert run(False) == run(True)


@cases
def test_heuristic_bot_reads_only_its_information(case):
    eid, _ = case
    game = build(case)
    try:
        bots = importlib.import_module(f"kabenvs.games.{game.name}.bots")
    except ModuleNotFoundError:
        pytest.skip("no heuristic bot yet")
    rng = np.random.default_rng(23)
    for state in sample_states(game, 10, seed=29):
        p = state.current_player
        if p is None:
            continue
        for _ in range(2):
            world = state.resample_hidden(p, rng)
            a = bots.HeuristicAgent(seed=5).act(Decision(p, state))
            b = bots.HeuristicAgent(seed=5).act(Decision(p, world))
            assert a == b, f"the bot's choice depends on information player {p} does not have"
            assert state.is_legal(a)


@cases
def test_docs_page_carries_current_tables(case):
    eid, cfg = case
    game_cls = game_class(eid)
    if cfg != game_cls.test_configs[0]:
        pytest.skip("tables are documented for the first (default) test config")
    page = ROOT / "docs" / "games" / f"{game_cls.name}.md"
    assert page.exists(), f"missing docs page {page}"
    text = page.read_text()
    game = build(case)
    assert game.layout.table() in text, "observation index table in the docs is out of date"
    assert game.catalog.table() in text, "action table in the docs is out of date"


@cases
def test_render_views(case):
    game = build(case)
    state = sample_states(game, 1, seed=31, per_game=1)[0]
    assert isinstance(state.render(), str) and state.render()
    for p in range(game.num_players):
        assert isinstance(state.render(p), str)
    env = make_env(case, render_mode="ansi")
    env.reset(seed=0)
    assert isinstance(env.render(), str)


def test_every_game_registered_and_versioned():
    assert kabenvs.ENV_IDS == env_ids() and "kabaleo_v0" in kabenvs.ENV_IDS
    for eid in kabenvs.ENV_IDS:
        module = getattr(kabenvs, eid)
        env = module.env()
        assert isinstance(env, kabenvs.GameEnv)
        assert isinstance(module.raw_env(), kabenvs.GameEnv)
    from kabenvs import kabaleo_v0  # PettingZoo-style import

    assert kabaleo_v0.env(num_players=3).num_agents == 3


def test_bad_env_id_and_options_name_what_is_allowed():
    with pytest.raises(ConfigError, match="known env ids"):
        kabenvs.make("kabaleo_v9")
    for eid in kabenvs.ENV_IDS:
        with pytest.raises(ConfigError, match="allowed options"):
            kabenvs.make(eid, no_such_option=1)
        with pytest.raises(ConfigError, match="num_players"):
            kabenvs.make(eid, num_players=99)
    with pytest.raises(ConfigError, match="render_mode"):
        kabenvs.make("kabaleo_v0", render_mode="3d")
    assert issubclass(ConfigError, ValueError) and issubclass(IllegalActionError, ValueError)


def test_random_agent_uses_own_generator_and_mask():
    game = build(("kabaleo_v0", {}))
    state = game.new_state(0)
    a = [RandomAgent(seed=1).act(Decision(state.current_player, state)) for _ in range(3)]
    np.random.seed(0)
    random.seed(0)
    b = [RandomAgent(seed=1).act(Decision(state.current_player, state)) for _ in range(3)]
    assert a == b and all(state.is_legal(x) for x in a)


def test_import_does_not_pull_torch():
    import subprocess
    import sys

    code = "import sys, kabenvs, kabenvs.agents; assert 'torch' not in sys.modules, 'torch imported'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
