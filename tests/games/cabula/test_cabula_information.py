"""Cábula's information state: what each seat reads of a move, and what it remembers."""

from __future__ import annotations

import numpy as np
import pytest

from tests.games.cabula.cabula_helpers import ID, act, rig


def names_for(state, name):
    """``name`` (a legal move now) as each seat reads it, then the state after it."""
    legal = {state.action_name(a): a for a in state.legal_actions()}
    a = legal[name]
    seen = [state.action_name_for(a, q) for q in range(state.num_players)]
    return seen, state.action_name_for(a, None)


def test_a_card_taken_with_two_crystal_balls_reads_hidden_to_the_uninvolved():
    s = rig(3, hands=[{"crystal_ball": 2}, {"star": 1, "magic_wand": 1}, {}])
    act(s, "play 2 crystal balls")
    act(s, "target the player 1 seat clockwise")
    seen, full = names_for(s, "take a magic wand")
    assert full == "take a magic wand"
    assert seen == ["take a magic wand", "take a magic wand", "take a card (hidden)"]
    # the uninvolved seat cannot tell the two choices apart, and reads them the same
    after = []
    for name in ("take a magic wand", "take a star"):
        w = s.clone()
        act(w, name)
        after.append(w.observation(2))
    np.testing.assert_array_equal(*after)


def test_an_attack_that_does_nothing_is_still_remembered_with_its_victim():
    """A prank on a player without stars changes nothing on the table, but everyone saw whom it
    targeted: the two histories give different observations to every seat."""
    base = rig(3, hands=[{"cyclops": 2}, {}, {}])
    act(base, "play 2 cyclopes")
    obs = []
    for target in ("target the player 1 seat clockwise", "target the player 2 seats clockwise"):
        w = base.clone()
        act(w, target)
        obs.append([w.observation(q) for q in range(3)])
        parts = w.game.layout.split(w.observation(0))
        assert parts["last_attack_card"][ID["cyclops"]] == 1 and parts["last_attack_count"][1] == 1
        assert parts["last_attacker"][0] == 1
    for q in range(3):
        assert not np.array_equal(obs[0][q], obs[1][q])


def test_a_turned_curse_says_who_turned_it():
    s = rig(3, hands=[{"magic_wand": 2}, {}, {"magic_wand": 1}], display=[(1, 0), (1, 0), (1, 0)],
            top=["skull"], draw_first=True)
    parts = s.game.layout.split(s.observation(0))
    assert not parts["curse_turned_by"].any()  # drawn from the deck: nobody turned it
    act(s, "cancel and turn the curse with 2 magic wands")
    act(s, "target the player 2 seats clockwise")
    assert s.current_player == 2
    for q in range(3):
        parts = s.game.layout.split(s.observation(q))
        rel = (0 - q) % 3
        assert parts["curse_turned_by"][rel] == 1 and parts["curse_turned_by"].sum() == 1
        assert parts["last_attacker"][rel] == 1 and parts["last_victim"][(2 - q) % 3] == 1
        assert parts["last_attack_card"][ID["skull"]] == 1


def assert_world_replays(state, p, world):
    """The kit's replay check for one rigged or played game (every past step, seat ``p``)."""
    past = state.replay_start()
    replay = world.replay_start()
    assert replay.history == past.history
    for a_true, a in zip(state.replay_actions(), world.replay_actions()):
        assert replay.current_player == past.current_player
        np.testing.assert_array_equal(replay.observation(p), past.observation(p))
        assert replay.is_legal(a)
        replay.apply(a)
        past.apply(a_true)
    np.testing.assert_array_equal(replay.observation(p), state.observation(p))
    assert replay.to_json() != "" and replay._data().keys() == world._data().keys()
    assert all(replay._data()[k] == world._data()[k] for k in world._data() if k != "start")
    assert world.chance == [] and not world.invariants()


def test_resampled_worlds_replay_a_two_ball_take_between_other_players():
    s = rig(3, hands=[{}, {"crystal_ball": 2}, {"star": 1, "dragon": 2, "magic_wand": 1}], turn=1)
    act(s, "play 2 crystal balls")
    act(s, "target the player 1 seat clockwise")
    act(s, "take a magic wand")
    rng = np.random.default_rng(3)
    taken = set()
    for _ in range(30):
        w = s.resample_hidden(0, rng)
        assert_world_replays(s, 0, w)
        taken.add(w.history[-1] if w.history[-1] != s.history[-1] else None)
    assert len(taken) > 1  # the card player 1 chose is not the real one in every world
    for p in (1, 2):  # taker and victim saw the card: it is the same in all their worlds
        w = s.resample_hidden(p, rng)
        assert_world_replays(s, p, w)
        assert w.action_name(w.history[-1]) == "take a magic wand"


def test_resampled_worlds_do_not_copy_a_rebuilt_deck_order():
    """After the deck is rebuilt from the pile (public contents, hidden order), a world draws its
    own order: the real future is not in it."""
    s = rig(2, hands=[{"parchment": 1}, {}], top=["kraken"], deck_rest=False)
    act(s, "play +2 parchment")
    while s.current_player == 0 and s.stack[-1]["k"] != "main":
        act(s, sorted(a for a in (s.action_name(x) for x in s.legal_actions()))[0])
    assert s.deck_cap_known
    rng = np.random.default_rng(5)
    orders = set()
    for _ in range(10):
        w = s.resample_hidden(0, rng)
        assert_world_replays(s, 0, w)
        orders.add(tuple(w.deck))
    assert len(orders) > 1
    unseen = [s.deck.count(c) + s.hands[1][c] for c in range(14)]
    assert [w.deck.count(c) + w.hands[1][c] for c in range(14)] == unseen


def test_resampled_worlds_replay_long_six_player_games_for_every_seat():
    import random

    from kabenvs.games.cabula import CabulaGame

    game = CabulaGame(num_players=6, max_turns=300)
    rng = np.random.default_rng(11)
    for seed in range(3):
        s = game.new_state(seed)
        r = random.Random(seed)
        while s.current_player is not None:
            s.apply(r.choice(s.legal_actions()))
        for p in range(6):
            assert_world_replays(s, p, s.resample_hidden(p, rng))


def test_clone_copies_the_knowledge_rows():
    s = rig(3, hands=[{"crystal_ball": 2}, {"star": 1, "dragon": 2}, {}])
    act(s, "play 2 crystal balls")
    act(s, "target the player 1 seat clockwise")  # player 0 now knows player 1's hand
    before = s.to_json()
    c = s.clone()
    assert c.known_cards(0, 1) == s.known_cards(0, 1) and any(c.known_cards(0, 1))
    c.known[0 * 3 + 1][ID["dragon"]] = 0
    c.deck_floor[0][2] += 5
    c.deck_cap[1][0] += 5
    c.hands[1][ID["star"]] += 1
    c.display[2][0] += 1
    c.stack[-1]["v"] = 2
    assert s.to_json() == before  # the original is untouched


def test_a_game_played_through_the_env_to_its_turn_cap_is_truncated_with_zero_rewards():
    import kabenvs

    env = kabenvs.make("cabula_v0", num_players=3, max_turns=6)
    env.reset(seed=8)
    finals = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            finals[agent] = (term, trunc, env._cumulative_rewards[agent], info)
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        env.step(0 if 0 in legal else legal[0])  # always pass: nobody wins before the cap
    state = env.unwrapped.state
    assert state.truncated and state.turn_count == 6 and state.winners() == []
    assert sorted(finals) == ["player_0", "player_1", "player_2"]
    for term, trunc, total, info in finals.values():
        assert trunc and not term and total == 0.0
        assert info["truncated"] is True and "truncated_by" not in info  # the game's cap, not max_steps


def test_a_play_whose_card_is_reshuffled_at_once_is_not_mistaken_for_a_pass():
    """The deck's last card is drawn by a single monster: the pile (with the monster) becomes the
    deck at once. The table can then look as after a pass; the last main decision tells them apart."""
    base = rig(2, hands=[{"minotaur": 1}, {}], top=["minotaur"])
    obs = []
    for move in ("pass", "play minotaur"):
        w = base.clone()
        act(w, move)
        obs.append(w.observation(1))
        parts = w.game.layout.split(w.observation(1))
        assert parts["last_player"][1] == 1  # player 0, seen from player 1
        assert parts["last_play_card"][14 if move == "pass" else ID["minotaur"]] == 1
    assert not np.array_equal(*obs)


def test_worlds_vary_which_seen_card_left_a_hand_unseen():
    """Player 0 looks at player 2's hand (two crystal balls), then player 1 takes one of its cards
    at random with one ball, which player 0 does not see. Player 0 knows "two of cauldron, dragon,
    kraken" and nothing of which went, so its worlds must give each of the three as the one that
    left (a resampler that follows the real card would always leave the same two)."""
    s = rig(3, hands=[{"crystal_ball": 2}, {"crystal_ball": 1},
                      {"dragon": 1, "kraken": 1, "magic_wand": 1, "cauldron": 1}], turn=0)
    act(s, "play 2 crystal balls")
    act(s, "target the player 2 seats clockwise")
    act(s, "take a magic wand")
    act(s, "play crystal ball")
    act(s, "target the player 1 seat clockwise")
    seen = [ID["cauldron"], ID["dragon"], ID["kraken"]]
    assert sum(s.hands[2][c] for c in seen) == 2
    rng = np.random.default_rng(11)
    missing = set()
    for _ in range(40):
        w = s.resample_hidden(0, rng)
        assert_world_replays(s, 0, w)
        held = [c for c in seen if w.hands[2][c]]
        assert len(held) >= 2
        if len(held) == 2:
            missing.update(set(seen) - set(held))
    assert missing == set(seen)


def test_most_worlds_follow_nothing_the_seat_did_not_see():
    """The resampler falls back to the real game's choices only when its own choices keep
    running into later sightings: over full random games that stays rare (docs/games/cabula.md,
    "Resampling", gives the counts of a larger run)."""
    import random

    from kabenvs.games.cabula import resample as RS

    RS.MODE_COUNTS.clear()
    for n, seed in ((3, 1), (6, 2)):
        s = rig(n)
        s = s.game.new_state(seed)
        rnd = random.Random(seed)
        while s.current_player is not None:
            s.apply(rnd.choice(s.legal_actions()))
            if len(s.history) % 40 == 0:
                for p in range(n):
                    s.resample_hidden(p, np.random.default_rng(len(s.history) + p))
    total = sum(RS.MODE_COUNTS.values())
    assert total >= 20
    assert RS.MODE_COUNTS.get("free", 0) >= 0.8 * total, RS.MODE_COUNTS


def test_the_same_generator_gives_the_same_world_whatever_the_truth():
    """A world drawn the usual way (mode "free") is a function of what the seat knows and of the
    generator: resampling the real game and resampling one of its worlds with the same generator
    give the same world, so a seeded search bot plays the same on both (the resampler before
    this change drew in an order that followed the real hands)."""
    import random

    from kabenvs.games.cabula import resample as RS

    game = rig(3).game
    compared = 0
    for seed in range(4):
        s = game.new_state(seed)
        rnd = random.Random(seed)
        while s.current_player is not None:
            s.apply(rnd.choice(s.legal_actions()))
            if len(s.history) % 30:
                continue
            p = s.current_player
            other = s.resample_hidden(p, np.random.default_rng(1))
            RS.MODE_COUNTS.clear()
            a = s.resample_hidden(p, np.random.default_rng(7))
            b = other.resample_hidden(p, np.random.default_rng(7))
            if set(RS.MODE_COUNTS) - {"free", "exact"}:
                continue  # a fallback follows the real game by design
            compared += 1
            assert a.hands == b.hands and a.deck == b.deck, f"step {len(s.history)}"
    assert compared >= 10


def test_a_world_that_follows_the_real_game_for_lack_of_budget_is_marked(monkeypatch):
    """Built the usual way a world is unmarked; the two fallbacks (the real token first for a card
    the seat saw leave, then every choice as in the real game, each forced here) mark it
    (``_followed_truth``), so a search walks another in its place."""
    import random

    from kabenvs.games.cabula import CabulaGame, resample

    s = CabulaGame(num_players=3).new_state(4)
    r = random.Random(4)
    for _ in range(40):
        s.apply(r.choice(s.legal_actions()))
    assert not s.resample_hidden(0, np.random.default_rng(1))._followed_truth
    for mode in ("seen", "truth"):
        monkeypatch.setattr(resample, "MODES", ((mode, 1),) if mode == "truth" else ((mode, 3), ("truth", 1)))
        world = s.resample_hidden(0, np.random.default_rng(1))
        assert world._followed_truth, mode
        assert_world_replays(s, 0, world)


# -- a truth with a hidden hand card and a deck card swapped is another truth (issue 13) ---------
@pytest.mark.parametrize("modes", ["usual", "exact"])
def test_a_swapped_truth_gives_the_same_worlds_as_the_truth(modes, monkeypatch):
    """Cábula claims the same world per generator on states a seat cannot tell apart. Checked here
    against a swapped truth (the kit's ``swapped_truth``: a card of another player's starting hand
    and a deck card of another type exchanged), for every seat, not only the one to move, at 30,
    60 and 90% of a random 3-player game (marked worlds aside). A world the resampler drew keeps
    its pins, so this catches what the kit's check of the claim cannot. (Over 2-, 3- and 6-player
    games, 9 games in all, 420 such pairs were alike and none differed.) ``exact``: every world
    from the solver (``choice_solver``), which must read nothing the seat did not see either."""
    import random

    from kabenvs.games.cabula import CabulaGame
    from kabenvs.games.cabula import resample as RS
    from tests.core.kit import assert_same_worlds_as_a_swapped_truth

    if modes == "exact":
        monkeypatch.setattr(RS, "MODES", (("exact", 1), ("truth", 1)))

    state = CabulaGame(num_players=3).new_state(1)
    rnd = random.Random(1)
    states = []
    while state.current_player is not None:
        state.apply(rnd.choice(state.legal_actions()))
        states.append(state.clone())

    def swap(fields, rng):
        # the swap may hit the seat's own hand: the replay's check of its observation refuses it
        q = int(rng.integers(len(fields["hands"])))
        kinds = [t for t, c in enumerate(fields["hands"][q]) if c]
        x, i = int(rng.choice(kinds)), int(rng.integers(len(fields["deck"])))
        y = fields["deck"][i]
        if x == y:
            return False
        fields["hands"][q][x] -= 1
        fields["hands"][q][y] += 1
        fields["deck"][i] = x
        return True

    compared = sum(assert_same_worlds_as_a_swapped_truth(states[int(len(states) * f)], swap) for f in (0.3, 0.6, 0.9))
    assert compared >= 30


def _saved(name: str):
    import json
    from pathlib import Path

    from kabenvs.games.cabula.rules import CabulaGame

    case = json.loads((Path(__file__).parent / "data" / name).read_text())
    state = CabulaGame(num_players=case["state"]["config"]["num_players"]).state_from_json(case["state"])
    return state, case["seat"]


def _free_tries(state, seat: int, tries: int, seed: int) -> list:
    """Worlds found by ``tries`` usual ("free") tries of the resampler's search."""
    from kabenvs.games.cabula import resample as RS

    truth, _, steps = RS.logged_events(state)
    rng = np.random.default_rng(seed)
    found = [RS._build(truth, steps, seat, state.num_players, rng, "free") for _ in range(tries)]
    return [b for b in found if b is not None]


def test_a_late_six_player_position_finds_worlds_without_following_the_truth():
    """Step 456 of a 474-decision 6-player game (the shared kit, ``KIT_SEED=19``): eight rebuilt
    decks, and crystal balls, parchments and double stars played from every one. Going back
    to the latest choice of the same hand or group, a free try found a world in none of 100;
    going back only to the causes of a contradiction (conflict-directed backjumping), and
    fixing the cards the seat will see drawn when their deck is made, about one try in ten does
    (docs/games/cabula.md, "Resampling"; 13 of 200 since unseen losses weigh each kind of token
    by its number, 16 of 200 before)."""
    state, seat = _saved("late_6p_kit_seed19.json")
    assert len(state.history) == 456 and state.num_players == 6
    assert len(_free_tries(state, seat, 80, seed=5)) >= 2
    world = state.resample_hidden(seat, np.random.default_rng(5))
    assert not world.followed_truth
    assert_world_replays(state, seat, world)


def test_a_looked_at_hand_is_dealt_what_its_tokens_decks_can_hold():
    """Seat 0 looked (two crystal balls) at a hand holding cards from the start and from a
    rebuilt deck; the seen cards must go to those cards so that each deck keeps its contents.
    A plain shuffle of them often could not (3 free tries of 40 found a world); a deal that
    fits each token's deck always can."""
    state, seat = _saved("look_after_rebuild_2p.json")
    assert len(_free_tries(state, seat, 20, seed=1)) == 20


def test_a_look_deals_each_token_a_type_its_deck_still_has():
    from kabenvs.games.cabula import resample as RS
    from kabenvs.games.cabula.cards import BALL, STAR

    for seed in range(20):
        tok = RS._Tokens(np.random.default_rng(seed))
        tok.groups = [[0] * len(ID), [0] * len(ID)]
        tok.groups[0][STAR] = 1  # the start held one star (still hidden), a rebuilt deck one ball
        tok.groups[1][BALL] = 1
        tok.count_left()
        held = [tok.new(BALL, 1, None, True), tok.new(STAR, 0, None, True)]
        tok.count_left()
        seen = [0] * len(ID)
        seen[STAR] = seen[BALL] = 1
        assert RS._fix_looked(tok, held, seen, "free")
        assert tok.fixed == [BALL, STAR]


# -- the solver: a world wherever the search gives up (issue 13) ----------------------------------
def test_a_random_take_takes_a_card_the_seat_saw_as_often_as_any_other(monkeypatch):
    """Player 1 takes player 0's dragon with a crystal ball (seat 0 sees it), and player 2 then
    takes one of player 1's five cards at random, unseen by seat 0. The dragon went with chance
    one in five, plus the chance that one of the unseen cards player 2 got (the one taken, the
    one it drew) is one of the four other dragons: about 0.29 (65 plain cards unseen). Drawing
    the hand's *kinds* of token alike (the seen dragon, the unseen rest) gave it half the worlds
    (0.615 over 400 draws); the search and the solver must both weigh a kind by its tokens."""
    from kabenvs.games.cabula import resample as RS

    plain = {"crystal_ball": 1, "kraken": 1, "minotaur": 1, "cauldron": 1, "parchment": 1}
    s = rig(3, hands=[{"star": 1, "dragon": 1}, plain, {"crystal_ball": 1}], turn=1)
    for move in ("play crystal ball", "target the player 2 seats clockwise",
                 "play crystal ball", "target the player 2 seats clockwise"):
        act(s, move)
    assert s.hands[0][ID["dragon"]] == 0 and s.hands[1][ID["dragon"]] == 1  # the real take: another card
    for modes in ((("free", 8), ("truth", 1)), (("exact", 1), ("truth", 1))):
        monkeypatch.setattr(RS, "MODES", modes)
        RS.MODE_COUNTS.clear()
        draws = 300
        went = sum(s.resample_hidden(0, np.random.default_rng(i)).hands[2][ID["dragon"]] > 0
                   for i in range(draws))
        assert RS.MODE_COUNTS == {modes[0][0]: draws}
        assert abs(went / draws - 0.29) < 0.09, (modes[0][0], went / draws)


def test_the_solver_finds_a_world_wherever_the_search_gives_up():
    """At the late 6-player position above, most free tries give up; the SAT solver
    (``choice_solver``) finds the choices every time, and the replayed world shows the seat
    exactly what it saw. Its worlds vary with the generator, and the resampler reaches for it
    before following the real game, so no world there is marked."""
    from kabenvs.games.cabula import choice_solver as CS
    from kabenvs.games.cabula import resample as RS

    state, seat = _saved("late_6p_kit_seed19.json")
    truth, begin, steps = RS.logged_events(state)
    hands = set()
    for seed in range(4):
        rng = np.random.default_rng(seed)
        plan = CS.solve_choices(truth, steps, seat, 6, rng)
        assert plan is not None
        built = RS._build(truth, steps, seat, 6, rng, "exact", plan=plan)
        assert built is not None
        world = RS._world(state, seat, rng, begin, built)
        assert_world_replays(state, seat, world)
        hands.add(str(world.hands))
    assert len(hands) == 4
    RS.MODE_COUNTS.clear()
    for seed in range(10):
        assert not state.resample_hidden(seat, np.random.default_rng(seed)).followed_truth
    assert set(RS.MODE_COUNTS) == {"free", "exact"}, RS.MODE_COUNTS


def test_exact_worlds_replay_and_depend_only_on_what_the_seat_knows(monkeypatch):
    """Every world from the solver, over random 2-, 3- and 6-player games (every 20th step, the
    seat after the one to move) and the saved position with a look after a rebuilt deck: each
    replays to what the seat saw at every step, and a world of it gives the same world with the
    same generator (the formula reads only what the seat saw)."""
    import random

    from kabenvs.games.cabula import CabulaGame
    from kabenvs.games.cabula import resample as RS

    monkeypatch.setattr(RS, "MODES", (("exact", 1), ("truth", 1)))
    positions = [_saved("look_after_rebuild_2p.json")]
    for n, seed in ((2, 3), (2, 8), (3, 4), (3, 9), (6, 5), (6, 10)):
        s = CabulaGame(num_players=n).new_state(seed)
        rnd = random.Random(seed)
        while s.current_player is not None:
            s.apply(rnd.choice(s.legal_actions()))
            if len(s.history) % 20 == 0 and s.current_player is not None:
                positions.append((s.clone(), (s.current_player + 1) % n))
    RS.MODE_COUNTS.clear()
    for state, seat in positions:
        world = state.resample_hidden(seat, np.random.default_rng(1))
        assert_world_replays(state, seat, world)
        again = world.resample_hidden(seat, np.random.default_rng(7))
        first = state.resample_hidden(seat, np.random.default_rng(7))
        assert again.hands == first.hands and again.deck == first.deck
    assert RS.MODE_COUNTS == {"exact": 3 * len(positions)} and len(positions) >= 30


def test_a_solver_that_runs_out_of_conflicts_falls_back_marked(monkeypatch):
    """With no conflicts to spend the solver gives up at the late position, and the world then
    follows the real game as before, marked, so a search walks another."""
    from kabenvs.games.cabula import choice_solver as CS
    from kabenvs.games.cabula import resample as RS

    state, seat = _saved("late_6p_kit_seed19.json")
    monkeypatch.setattr(RS, "MODES", (("exact", 1), ("truth", 1)))
    monkeypatch.setattr(CS, "CONFLICTS", 1)
    RS.MODE_COUNTS.clear()
    world = state.resample_hidden(seat, np.random.default_rng(0))
    assert RS.MODE_COUNTS == {"truth": 1} and world.followed_truth
    assert_world_replays(state, seat, world)


def test_world_holding_asks_the_solver_where_its_tries_find_none(monkeypatch):
    """``world_holding`` (the recall probes' builder) goes on to the solver where its own tries
    give up. With every free try failing (forced here), at the late 6-player position, the solver
    alone builds a world holding the real game's split of two hands and replaying to the seat's
    views; and it finds none holding more cyclopes in a hand than the hidden zones hold."""
    from kabenvs.core.view_history import replayed_digest
    from kabenvs.games.cabula import resample as RS

    build = RS._build
    monkeypatch.setattr(RS, "_build", lambda *a, **k: None if a[5] == "free" else build(*a, **k))
    state, seat = _saved("late_6p_kit_seed19.json")
    zones = state.hidden_zones(seat)
    names = [z for z in zones if z.startswith("hand")][:2]
    want = {z: {c: zones[z].count(c) for c in set(zones[z])} for z in names}
    world = state.world_holding(seat, want, np.random.default_rng(0), 1)
    assert world is not None and not world.followed_truth
    got = world.hidden_zones(seat)
    assert all(got[z].count(c) == k for z, items in want.items() for c, k in items.items())
    assert replayed_digest(world, seat).digest() == replayed_digest(state, seat).digest()
    cyclops = ID["cyclops"]
    hidden = sum(z.count(cyclops) for z in zones.values())
    assert state.world_holding(seat, {names[0]: {cyclops: hidden + 1}}, np.random.default_rng(0), 1) is None
