"""kabenvs.interop.openspiel: every game as an OpenSpiel game (needs the ``openspiel`` extra).

* a walk of OpenSpiel's API over whole random games, at each game's smallest and largest player
  count: the seat to move, legality, tensors, strings, clones and returns agree with kabenvs;
* ``pyspiel.random_sim_test`` (OpenSpiel's own checks; slow: about 3 minutes for all games);
* OpenSpiel's ``evaluate_bots`` plays random bots to the end;
* OpenSpiel's ISMCTS bot plays every game through ``resample_from_infostate`` (its own assertion
  that a sampled world has the real information state is part of each search).
"""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import kabenvs  # noqa: E402
from kabenvs.core.errors import ConfigError  # noqa: E402
from kabenvs.core.registry import game_class  # noqa: E402
from kabenvs.interop.openspiel import load_game, register_all  # noqa: E402

TABLES = [(e, n) for e in kabenvs.ENV_IDS
          for n in sorted({min(game_class(e).Config.PLAYER_COUNTS), max(game_class(e).Config.PLAYER_COUNTS)})]


@pytest.mark.parametrize("env_id, players", TABLES)
def test_a_walk_of_openspiels_api_agrees_with_kabenvs(env_id, players):
    game = load_game(env_id, num_players=players, rng_seed=3)
    kgame = game.kabenvs_game
    assert game.num_players() == players and game.num_distinct_actions() == kgame.num_actions
    assert game.information_state_tensor_shape() == game.observation_tensor_shape() == [kgame.observation_size]
    kind = game.get_type()
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert (kind.utility == pyspiel.GameType.Utility.ZERO_SUM) == (players == 2)
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal():
        ks = state.kabenvs_state
        p = state.current_player()
        assert p == ks.current_player and not state.is_chance_node()
        assert state.legal_actions() == sorted(ks.legal_actions()) == state.legal_actions(p)
        assert all(state.legal_actions(q) == [] for q in range(players) if q != p)
        other = (p + 1) % players
        for seat in {p, other}:
            assert np.array_equal(np.asarray(state.information_state_tensor(seat)), ks.observation(seat))
            assert np.array_equal(np.asarray(state.observation_tensor(seat)), ks.observation(seat))
            assert state.observation_string(seat) == ks.render(seat)
            assert state.information_state_string(seat).startswith(ks.render(seat))
        action = int(rng.choice(state.legal_actions()))
        assert state.action_to_string(p, action) == kgame.catalog.name(action)
        if steps % 25 == 0:  # a clone is independent of its original
            copy = state.clone()
            copy.apply_action(action)
            assert state.kabenvs_state.history != copy.kabenvs_state.history
        state.apply_action(action)
        steps += 1
        assert steps <= game.max_game_length()
    assert state.returns() == [float(r) for r in state.kabenvs_state.returns()]
    assert state.rewards() == state.returns()


def test_the_information_state_string_tells_apart_what_the_render_may_not():
    game = load_game("kabaleo_v0", rng_seed=0)
    state = game.new_initial_state()
    p = state.current_player()
    text = state.information_state_string(p)
    assert text.splitlines()[-1].startswith("information state ")
    state.apply_action(state.legal_actions()[0])
    assert state.information_state_string(p) != text


def _branches(game, rs, positions):
    """Pairs of OpenSpiel states: two different moves at random positions of random games, then
    the same random moves on both, as the kit's perfect-recall probe plays them."""
    for _ in range(positions):
        state = game.new_initial_state()
        for _ in range(int(rs.integers(0, 120))):
            if state.is_terminal():
                break
            state.apply_action(int(rs.choice(state.legal_actions())))
        if state.is_terminal() or len(state.legal_actions()) < 2:
            continue
        for seat in range(game.num_players()):
            state.information_state_string(seat)  # from here on the digests are extended move by move
        a, b = rs.choice(state.legal_actions(), 2, replace=False)
        A, B = state.clone(), state.clone()
        A.apply_action(int(a))
        B.apply_action(int(b))
        yield state, A, B
        for _ in range(40):
            if A.is_terminal() or A.current_player() != B.current_player():
                break
            common = sorted(set(A.legal_actions()) & set(B.legal_actions()))
            if not common:
                break
            c = int(rs.choice(common))
            A.apply_action(c)
            B.apply_action(c)
            yield None, A, B


@pytest.mark.parametrize("env_id, players, merges", [("kabaal_v0", 2, True), ("alakazum_v0", 2, True),
                                                     ("cabula_v0", 3, False)])
def test_the_information_state_string_is_exact_where_the_observation_merges_histories(env_id, players, merges):
    # Two branches a seat has told apart (some step gave it different views) must keep different
    # information-state strings for good, also when the observation (pure history: a Kabaal
    # round that is over, an Alakazum! combat that is over) or the game's named summary (Cábula,
    # met about once in 40 random games: not required here) makes them look alike again; two
    # branches it cannot tell apart must share the string.
    from kabenvs.core.recall import seat_view

    game = load_game(env_id, num_players=players, rng_seed=11)
    rs = np.random.default_rng(5)
    merged_observations = 0
    apart = None
    prev = None
    for root, A, B in _branches(game, rs, 60):
        if root is not None:
            apart = [False] * players
            prev = (root.kabenvs_state, root.kabenvs_state)
        ka, kb = A.kabenvs_state, B.kabenvs_state
        for v in range(players):
            if not apart[v]:
                apart[v] = seat_view(prev[0], ka, ka.history[-1], v) != seat_view(prev[1], kb, kb.history[-1], v)
            same_string = A.information_state_string(v) == B.information_state_string(v)
            assert same_string != apart[v], (v, ka.history[-5:], kb.history[-5:])
            merged_observations += apart[v] and np.array_equal(ka.observation(v), kb.observation(v))
        prev = (ka.clone(), kb.clone())
    assert merged_observations > 0 or not merges  # the case the string exists for was met


@pytest.mark.parametrize("env_id", kabenvs.ENV_IDS)
def test_the_information_state_string_extended_move_by_move_equals_a_replay(env_id):
    game = load_game(env_id, rng_seed=6)
    rs = np.random.default_rng(1)
    state = game.new_initial_state()
    n = game.num_players()
    keys = [state.information_state_string(v) for v in range(n)]
    for step in range(150):
        if state.is_terminal():
            break
        copy = state.clone()
        state.apply_action(int(rs.choice(state.legal_actions())))
        assert [copy.information_state_string(v) for v in range(n)] == keys  # a clone is independent
        keys = [state.information_state_string(v) for v in range(n)]
    fresh = type(state)(game, state.kabenvs_state.clone())  # digests built by replaying from the deal
    assert [fresh.information_state_string(v) for v in range(n)] == keys
    p = state.current_player() if not state.is_terminal() else 0
    fresh = type(state)(game, state.kabenvs_state.clone())  # no digest yet: resampling builds p's
    for source in (state, fresh):
        world = source.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert world.information_state_string(p) == keys[p]
        q = (p + 1) % n  # another seat's digest is built from the world's own start, then extended
        before = world.information_state_string(q)
        assert world.information_state_string(q) == before
        if not world.is_terminal():
            world.apply_action(world.legal_actions()[0])
            assert world.information_state_string(q) != before


def test_options_and_seeds():
    a = load_game("kabaleo_v0", num_players=3, mode="equitable", rng_seed=5)
    b = load_game("kabaleo_v0", num_players=3, mode="equitable", rng_seed=5)
    assert a.kabenvs_game.config.mode == "equitable"
    deals = [g.new_initial_state().kabenvs_state.to_json() for g in (a, b)]
    assert deals[0] == deals[1]  # the same rng_seed deals the same sequence of games
    assert a.new_initial_state().kabenvs_state.to_json() != deals[0]
    with pytest.raises(ConfigError, match="unknown option"):
        load_game("kabaleo_v0", colour="red")
    names = register_all()
    assert pyspiel.load_game("kabenvs_cabula_v0(num_players=4)").num_players() == 4
    assert set(names) <= set(pyspiel.registered_names())


@pytest.mark.parametrize("env_id", kabenvs.ENV_IDS)
def test_evaluate_bots_plays_random_bots_to_the_end(env_id):
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    game = load_game(env_id, rng_seed=1)
    bots = [pyspiel.make_uniform_random_bot(p, 10 + p) for p in range(game.num_players())]
    state = game.new_initial_state()
    returns = evaluate_bots(state, bots, np.random.RandomState(0))
    assert state.is_terminal() and list(returns) == state.returns()


@pytest.mark.parametrize("env_id", kabenvs.ENV_IDS)
def test_ismcts_plays_through_resampled_worlds(env_id):
    from open_spiel.python.algorithms import ismcts, mcts

    game = load_game(env_id, rng_seed=2)
    rs = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, max_simulations=8, random_state=rs)
    state = game.new_initial_state()
    searched = 0
    while not state.is_terminal() and searched < 3:
        legal = state.legal_actions()
        if state.current_player() == 0:
            action = bot.step(state)  # asserts every sampled world has the real information state
            searched += len(legal) > 1
        else:
            action = int(rs.choice(legal))
        assert action in legal
        state.apply_action(action)
    assert searched == 3


def test_resampled_worlds_keep_the_seats_view_and_draw_a_fresh_future():
    game = load_game("cabula_v0", num_players=3, rng_seed=4)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(10):
        state.apply_action(int(rng.choice(state.legal_actions())))
    p = state.current_player()
    worlds = [state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0)) for _ in range(6)]
    for world in worlds:
        assert world.information_state_string(p) == state.information_state_string(p)
        assert world.legal_actions() == state.legal_actions()
    hidden = {w.kabenvs_state.to_json() for w in worlds}
    assert len(hidden) > 1  # the hidden cards really are resampled


def _cabula_ten_moves_in():
    """A 3-player Cábula game through OpenSpiel, ten random moves in; and the generator."""
    game = load_game("cabula_v0", num_players=3, rng_seed=4)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(10):
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state, rng


def test_a_world_that_followed_the_truth_is_not_handed_to_openspiel():
    # The resampler gives up every other call and keeps the real hidden choices (marked, as
    # Cábula's and Alakazum!'s do when their budget runs out): OpenSpiel gets a usual world every
    # time (a fresh draw, or a copy of one drawn earlier for this position), never a marked one.
    state, rng = _cabula_ten_moves_in()
    ks = state.kabenvs_state
    real, marked, calls = ks.resample_hidden, [], [0]

    def giving_up(player, rng=None):
        calls[0] += 1
        world = real(player, rng)
        if calls[0] % 2 == 0:
            world._followed_truth = True
            marked.append(world)
        return world

    ks.resample_hidden = giving_up
    p = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    handed = [state.resample_from_infostate(p, sampler) for _ in range(12)]
    assert len(marked) >= 5 and state.worlds_followed_truth == 0
    assert not any(w.kabenvs_state is m for w in handed for m in marked)
    assert all(w.information_state_string(p) == state.information_state_string(p) for w in handed)
    ks.resample_hidden = lambda player, rng=None: marked[0]  # every draw gives up: the last resort
    assert state.resample_from_infostate(p, sampler) is not None
    assert state.worlds_followed_truth == 0  # the position's earlier usual worlds are copied instead
    state.apply_action(int(rng.choice(state.legal_actions())))
    q = state.current_player()
    ks.resample_hidden = lambda player, rng=None: marked[0]
    assert state.resample_from_infostate(q, sampler).kabenvs_state is marked[0]
    assert state.worlds_followed_truth == 1  # a new position with nothing drawn before: counted
    assert state.patient_draws == 1  # after a patient draw that gave up too


def test_a_position_whose_usual_draws_all_give_up_gets_a_patient_draw():
    # A resampler that gives up unless it is patient (kabenvs.core.patience): at a position with
    # nothing drawn before, the patient draw is the usual world OpenSpiel gets, and later draws
    # there copy it.
    from kabenvs.core.patience import is_patient

    state, rng = _cabula_ten_moves_in()
    ks = state.kabenvs_state
    real, patient_worlds = ks.resample_hidden, []

    def impatient_gives_up(player, rng=None):
        world = real(player, rng)
        if is_patient():
            patient_worlds.append(world)
        else:
            world._followed_truth = True
        return world

    ks.resample_hidden = impatient_gives_up
    p = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    world = state.resample_from_infostate(p, sampler)
    assert world.kabenvs_state is patient_worlds[0] and not world.kabenvs_state._followed_truth
    assert (state.patient_draws, state.worlds_followed_truth) == (1, 0)
    again = state.resample_from_infostate(p, sampler)  # the kept patient world is copied now
    assert not again.kabenvs_state._followed_truth and state.patient_draws == 1
    assert again.information_state_string(p) == state.information_state_string(p)


@pytest.mark.slow
@pytest.mark.parametrize("env_id, players", TABLES)
def test_openspiels_random_sim_test(env_id, players):
    game = load_game(env_id, num_players=players, rng_seed=0)
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_states_serialise_as_kabenvs_json_and_the_pickle_form_is_refused(tmp_path):
    """OpenSpiel's own form for Python states is a pickle of their attributes, unpickled when read:
    text that runs code (an audit made deserialize_state create a file). The adapter writes and
    reads kabenvs' JSON save instead, and refuses the pickle form before reading it."""
    import base64
    import os
    import pickle

    from kabenvs.core.errors import ConfigError

    game = load_game("kabaleo_v0", num_players=2, rng_seed=0)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(5):
        state.apply_action(int(rng.choice(state.legal_actions())))
    text = state.serialize()
    back = game.deserialize_state(text)
    assert text.startswith("kabenvs-state-json=") and "\n" not in text
    assert back.information_state_string(0) == state.information_state_string(0)
    while not state.is_terminal():  # the same future, chance included
        a = state.legal_actions()[0]
        state.apply_action(a)
        back.apply_action(a)
        assert str(back) == str(state)
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    evil = "history=\nmove_number=0\n__dict__=" + base64.b64encode(pickle.dumps(Payload())).decode()
    with pytest.raises(ConfigError, match="pickle form"):
        game.deserialize_state(evil)
    assert not marker.exists()
    with pytest.raises(ConfigError):
        game.deserialize_state("kabenvs-state-json={not json")


def test_seats_and_action_ids_are_checked_not_read_loosely():
    """resample_from_infostate read 1.7 as seat 1 and '2' as seat 2; action_to_string(p, -1) named
    the last action (a negative index into the catalog)."""
    from kabenvs.core.errors import ConfigError

    state = load_game("cabula_v0", num_players=3, rng_seed=0).new_initial_state()
    for seat in (1.7, "2", -1, 3):
        with pytest.raises(ConfigError, match="seat"):
            state.resample_from_infostate(seat, None)
    for action in (-1, -2, 10**6):
        with pytest.raises(ConfigError, match="does not exist"):
            state.action_to_string(0, action)
    assert state.resample_from_infostate(np.int64(1), None).current_player() == state.current_player()
