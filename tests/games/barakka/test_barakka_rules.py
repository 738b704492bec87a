"""Barakka turn structure, variants and promos on rigged deals."""

from __future__ import annotations

import numpy as np
import pytest

import kabenvs
from kabenvs.core.errors import ConfigError, IllegalActionError
from kabenvs.games.barakka import BarakkaGame


def rig(**cfg):
    """A two-player state with empty sequences, player 0 to draw."""
    game = BarakkaGame(**cfg)
    s = game.new_state(0)
    s.seqs = [[[] for _ in range(game.num_colours)] for _ in range(2)]
    s.tiles = [[0] * game.num_colours for _ in range(2)]
    s.current_player = 0
    s.phase = "draw"
    s.touch()
    return game, s


def do(s, name: str) -> None:
    s.apply(s.game.catalog.lookup_name(name))


def conserve(s) -> None:
    """Put the cards a rigged test took out of thin air back in balance (for invariants)."""
    g = s.game
    pool = list(g.full_deck)
    placed = []
    for pile in s.piles:
        placed += pile
    for seqs in s.seqs:
        for st in seqs:
            placed += st
    for h in s.held:
        placed += h
    for x in placed:
        pool.remove(x)
    s.decks[0] = pool
    s.touch()


def give(s, player: int, colour: str, *ranks, pos: int | None = None) -> None:
    g = s.game
    k = g.colours.index(colour) if pos is None else pos
    s.seqs[player][k] = [g.card(colour, r) for r in ranks]


# -- turn structure ---------------------------------------------------------------------------


def test_turn_is_draw_then_play_or_discard():
    game, s = rig()
    red3 = game.card("red", 3)
    s.decks[0].append(red3)
    s.touch()
    assert {s.action_name(a) for a in s.legal_actions()} == {
        "draw from the deck", "draw from discard pile 1", "draw from discard pile 2"}
    do(s, "draw from the deck")
    assert s.held[0] == [red3] and s.current_player == 0
    assert {s.action_name(a) for a in s.legal_actions()} == {
        "play into the red sequence", "discard onto pile 1", "discard onto pile 2"}
    do(s, "play into the red sequence")
    assert s.seqs[0][3] == [red3] and s.current_player == 1 and s.phase == "draw"


def test_emptied_discard_pile_is_refilled_from_the_deck():
    game, s = rig()
    s.piles = [[game.card("red", 1)], [game.card("blue", 2)]]
    conserve(s)
    top = s.decks[0][-1]
    size = len(s.decks[0])
    do(s, "draw from discard pile 1")
    assert s.held[0] == [game.card("red", 1)]
    assert s.piles[0] == [top] and len(s.decks[0]) == size - 1
    assert not s.invariants()


def test_pile_not_emptied_is_not_refilled():
    game, s = rig()
    s.piles = [[game.card("red", 1), game.card("red", 2)], [game.card("blue", 2)]]
    conserve(s)
    size = len(s.decks[0])
    do(s, "draw from discard pile 1")
    assert s.piles[0] == [game.card("red", 1)] and len(s.decks[0]) == size


def test_last_card_drawer_still_plays_it_then_the_game_ends():
    game, s = rig()
    conserve(s)
    last = s.decks[0][-1]
    s.piles[0] += s.decks[0][:-1]  # leave one card in the deck
    s.decks[0] = [last]
    s.touch()
    do(s, "draw from the deck")
    assert s.decks[0] == [] and s.current_player == 0 and s.phase == "play"
    play = [a for a in s.legal_actions() if s.game.catalog.kind(a) == "play"]
    s.apply(play[0])
    assert s.current_player is None and not s.truncated
    assert last in s.seqs[0][last // 6]
    assert not s.invariants()


def test_refill_taking_the_last_card_also_ends_the_game_after_this_turn():
    game, s = rig()
    s.piles = [[game.card("red", 1)], [game.card("blue", 2)]]
    conserve(s)
    s.piles[1] = s.decks[0][:-1] + s.piles[1]
    s.decks[0] = s.decks[0][-1:]
    s.touch()
    do(s, "draw from discard pile 1")
    assert s.decks[0] == [] and len(s.piles[0]) == 1 and s.current_player == 0
    do(s, "discard onto pile 2")
    assert s.current_player is None


def test_turn_cap_truncates_with_zero_rewards():
    game = BarakkaGame(max_turns=3)
    s = game.new_state(1)
    draw_pile = game.draw_pile_ids[0]
    for _ in range(3):
        s.apply(draw_pile)
        s.apply(game.discard_ids[0])
    assert s.current_player is None and s.truncated and s.returns() == [0.0, 0.0]
    assert game.max_decisions() == 6


def test_full_sequence_refuses_a_sixth_card():
    game, s = rig()
    give(s, 0, "red", 1, 2, 3, 4, 5)
    s.held[0] = [game.card("red", 1)]
    s.phase = "play"
    s.touch()
    assert [s.action_name(a) for a in s.legal_actions()] == ["discard onto pile 1", "discard onto pile 2"]
    with pytest.raises(IllegalActionError, match="play or discard red 1"):
        do(s, "play into the red sequence")


# -- tiles, variants, promos --------------------------------------------------------------------


def finish(s, player: int, colour: str, pos: int | None = None) -> None:
    """Player holds the fifth card of ``colour`` and plays it."""
    g = s.game
    k = g.colours.index(colour) if pos is None else pos
    s.seqs[player][k] = [g.card(colour, r) for r in (1, 2, 3, 4)]
    s.current_player = player
    s.held[player] = [g.card(colour, 5)]
    s.phase = "play"
    s.touch()
    s.apply(g.play_ids[k])


def test_base_tile_taken_on_the_fifth_card():
    game, s = rig()
    finish(s, 0, "green")
    assert s.tiles[0][1] == 1 and s.tile_supply[1] == 1 and s.finished[0][1] == 1
    finish(s, 1, "green")
    assert s.tiles[1][1] == 1 and s.tile_supply[1] == 0


def test_sadid_tiles_in_order_missed_and_stolen():
    game, s = rig(sadid_al_aziz=True)
    R, Gr, B = 3, 1, 4
    s.sadid_stack = [R, Gr, 0, 2, B]
    finish(s, 0, "green")  # green is not on top: player 0 can never take it
    assert s.tiles[0][Gr] == 0 and s.sadid_missed[0][Gr] == 1 and s.sadid_stack[0] == R
    finish(s, 0, "red")  # red is on top: taken
    assert s.tiles[0][R] == 1 and s.sadid_stack == [Gr, 0, 2, B]
    finish(s, 1, "red")  # player 1 finishes red later: steals it
    assert s.tiles[0][R] == 0 and s.tiles[1][R] == 1
    finish(s, 1, "green")  # green now on top, player 0 finished it before: player 1 takes it
    assert s.tiles[1][Gr] == 1 and s.sadid_stack == [0, 2, B]
    assert not [m for m in s.invariants() if "Sadid" in m]


def test_sadid_tile_whose_colour_both_finished_is_discarded():
    game, s = rig(sadid_al_aziz=True)
    s.sadid_stack = [3, 4, 0, 1, 2]
    finish(s, 0, "blue")
    finish(s, 1, "blue")  # neither could take blue: it waits under red
    assert s.sadid_missed[0][4] == s.sadid_missed[1][4] == 1
    finish(s, 0, "red")  # red taken; blue comes on top, finished by both: discarded
    assert s.sadid_stack == [0, 1, 2] and s.tiles[0][3] == 1
    assert all(s.tiles[p][4] == 0 for p in range(2))


def test_sadid_any_order_option():
    game, s = rig(sadid_al_aziz=True, sadid_any_order=True)
    s.sadid_stack = [3, 1, 0, 2, 4]
    finish(s, 0, "blue")
    assert s.tiles[0][4] == 1 and 4 not in s.sadid_stack
    finish(s, 1, "blue")
    assert s.tiles[1][4] == 1 and s.tiles[0][4] == 0  # stealing still applies


def test_el_basr_tile_goes_to_the_opponent_and_counts_there():
    game, s = rig(el_basr=True)
    finish(s, 0, "basr")
    assert s.tiles[1][game.basr] == 1 and s.tiles[0][game.basr] == 0
    ps0, ps1 = s.player_score(0), s.player_score(1)
    assert ps0.sequence_points == 20 and ps0.tiles == 0
    assert ps1.tiles == 1 and ps1.total == 1


def test_el_portugues_token_moves_and_all_five_discards_it():
    game, s = rig(el_portugues=True)
    port = game.port
    s.held[0] = [game.card("portugues", 3)]
    s.phase = "play"
    s.touch()
    s.apply(game.play_ids[port])
    assert s.token == 0
    s.held[1] = [game.card("portugues", 1)]
    s.phase = "play"
    s.touch()
    s.apply(game.play_ids[port])
    assert s.token == 1  # taken from player 0
    assert s.player_score(1).tiles == 1 and s.player_score(1).sequence_points == -10
    give(s, 1, "portugues", 1, 2, 3, 4, 5)
    s.seqs[0][port] = []
    ps = s.player_score(1)
    assert ps.sequence_points == 20 and ps.tiles == 0  # all five: the token is discarded


# -- El-Karim and the Desert Rose ------------------------------------------------------------------


def test_el_karim_placement_rules():
    game, s = rig(el_karim=True)
    red, green = game.card("red", 2), game.card("green", 3)
    s.seqs[0][0] = [game.card("red", 4)]  # face down
    s.seqs[0][1] = [game.card("blue", 1), game.card("green", 1)]  # shows green face up
    s.held[0] = [red]
    s.phase = "play"
    s.touch()
    # red: onto the single face-down card (memory!) or start sequence 3 face down
    assert [s.action_name(a) for a in s.legal_actions()] == [
        "play onto sequence 1", "play onto sequence 3", "discard onto pile 1", "discard onto pile 2"]
    s.held[0] = [green]
    s.touch()
    assert [s.action_name(a) for a in s.legal_actions()][0] == "play onto sequence 2"
    assert len(s.legal_actions()) == 3  # only the sequence showing green


def test_el_karim_wrong_colour_underneath_scores_zero():
    game, s = rig(el_karim=True)
    s.seqs[0][0] = [game.card("red", 4)] + [game.card("green", r) for r in (1, 2, 3, 5)]
    s.tiles[0][1] = 1
    ps = s.player_score(0)
    assert ps.sequences[0].flaw == "cards of different colours" and ps.total == 0


def test_el_karim_second_sequence_of_a_colour_scores_zero():
    game, s = rig(el_karim=True)
    s.seqs[0][0] = [game.card("red", 1), game.card("red", 2)]
    s.seqs[0][1] = [game.card("red", 1)]
    ps = s.player_score(0)
    assert [sq.total for sq in ps.sequences] == [2, 0]
    assert ps.sequences[1].flaw == "a second sequence of this colour"


def test_desert_rose_taken_by_the_first_to_start_all_five_base_colours():
    game, s = rig(el_karim=True)
    for k, colour in enumerate(("orange", "green", "purple", "red")):
        s.seqs[0][k] = [game.card(colour, 2)]
    s.held[0] = [game.card("blue", 5)]
    s.phase = "play"
    s.touch()
    do(s, "play onto sequence 5")
    assert s.rose == 0


def _five_sequences(game, s, player, flawless: bool):
    for k, colour in enumerate(game.colours[:5]):
        ranks = (1, 2, 3, 4, 5) if flawless or k else (1, 2, 3, 4, 4)
        s.seqs[player][k] = [game.card(colour, r) for r in ranks]
        s.tiles[player][k] = 1


def test_desert_rose_kept_counts_as_a_tile():
    game, s = rig(el_karim=True)
    _five_sequences(game, s, 0, flawless=True)
    s.rose = 0
    ps = s.player_score(0)
    assert ps.rose == "kept" and ps.tiles == 6 and ps.total == 50 + 36


def test_desert_rose_lost_costs_ten_points():
    game, s = rig(el_karim=True)
    _five_sequences(game, s, 0, flawless=False)
    s.rose = 0
    ps = s.player_score(0)
    assert ps.rose == "lost" and ps.rose_penalty == -10
    assert ps.total == 40 + 16 - 10


# -- solo ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cfg,turns,removed", [({}, 30, 0), ({"el_basr": True, "el_portugues": True}, 38, 1)])
def test_solo_game_draws_two_at_once_and_ends_when_both_decks_are_empty(cfg, turns, removed):
    game = BarakkaGame(num_players=1, **cfg)
    s = game.new_state(3)
    assert [len(d) for d in s.decks] == [turns - 1, turns - 1] and len(s.removed) == removed
    assert len(s.held[0]) == 2 and s.phase == "drop"
    decisions = 0
    while s.current_player is not None:
        if s.phase == "drop":
            assert {s.action_name(a) for a in s.legal_actions()} == {
                "discard the card from deck 1", "discard the card from deck 2"}
        s.apply(s.legal_actions()[-1] if s.phase == "drop" else s.legal_actions()[0])
        decisions += 1
    assert decisions == 2 * turns == game.max_decisions() and s.turn == turns
    assert s.decks == [[], []] and len(s.piles[0]) >= turns
    assert s.returns() == [s.scores()[0] / 100.0] and s.winners() == [0]


def test_solo_env_has_one_agent():
    env = kabenvs.make("barakka_v0", num_players=1)
    env.reset(seed=0)
    assert env.agents == ["player_0"]
    steps = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            final = (reward, info)
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    assert steps == 60 and final[0] == final[1]["scores"][0] / 100.0


# -- information, rewards, config ---------------------------------------------------------------------


def test_table_memory_shows_only_tops_perfect_memory_everything():
    for memory in ("perfect", "table"):
        game, s = rig(memory=memory)
        give(s, 1, "red", 1, 2, 3)
        s.piles[0] = [game.card("blue", 1), game.card("blue", 2)]
        conserve(s)
        view = game.layout.split(s.observation(0))
        red_row = view["seq"][1, 3]
        pile_count = view["pile_count"][0]
        if memory == "perfect":
            assert red_row[[19, 20, 21]].tolist() == [1, 1, 1] and pile_count.sum() == 2
        else:
            assert red_row.sum() == 1 and red_row[21] == 1 and pile_count.sum() == 0
        assert view["seq_size"][1, 3] == pytest.approx(0.6)


def test_opponent_card_in_hand_known_only_when_drawn_from_a_pile():
    game, s = rig()
    conserve(s)
    top = s.piles[0][-1]
    do(s, "draw from discard pile 1")
    assert game.layout.split(s.observation(1))["opp_held"][top] == 1
    do(s, "discard onto pile 1")
    do(s, "draw from the deck")
    assert game.layout.split(s.observation(0))["opp_held"].sum() == 0


def test_score_reward_is_the_difference_over_100():
    game, s = rig(reward="score")
    give(s, 0, "red", 1, 2, 3)
    give(s, 1, "blue", 1)
    s.current_player = None
    assert s.returns() == [pytest.approx(0.04), pytest.approx(-0.04)]
    game, s = rig()
    s.current_player = None
    assert s.returns() == [0.0, 0.0] and s.winners() == [0, 1]  # a tie


def test_config_errors_name_the_field():
    with pytest.raises(ConfigError, match="sadid_al_aziz=True"):
        BarakkaGame(sadid_any_order=True)
    with pytest.raises(ConfigError, match="memory"):
        BarakkaGame(memory="photographic")
    with pytest.raises(ConfigError, match="num_players"):
        BarakkaGame(num_players=3)
    with pytest.raises(ConfigError, match="el_karim"):
        BarakkaGame(el_karim="yes")
    with pytest.raises(ConfigError, match="no colour"):
        BarakkaGame().card("basr", 1)


def test_env_info_carries_final_scores_and_breakdown():
    env = kabenvs.make("barakka_v0", reward="score")
    env.reset(seed=4)
    final = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            final[agent] = (reward, info)
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    reward0, info = final["player_0"]
    scores = info["scores"]
    assert len(info["players"]) == 2 and all("sequences" in p for p in info["players"])
    assert [p["score"] for p in info["players"]] == scores
    assert reward0 == pytest.approx((scores[0] - scores[1]) / 100.0)
    assert final["player_1"][0] == pytest.approx(-reward0)


def test_table_memory_resample_keeps_every_card_the_seat_ever_saw():
    """Table memory forgets covered cards in the vector, but the seat saw each of them when it lay
    on top: a resampled world must replay the seat's past observations, so only the deck (and the
    opponent's card drawn from it) is dealt again."""
    import random

    game = BarakkaGame(memory="table")
    s = game.new_state(7)
    rnd = random.Random(7)
    for _ in range(120):
        s.apply(rnd.choice(s.legal_actions()))
    rng = np.random.default_rng(0)
    changed = False
    for _ in range(10):
        w = s.resample_hidden(0, rng)
        assert w.seqs == s.seqs and w.piles == s.piles and w.history == s.history
        hidden = lambda t: sorted(t.decks[0] + (t.held[1] if t.current_player == 1 and t.phase == "play" and t.held_src < 0 else []))
        assert hidden(w) == hidden(s) and w.held[0] == s.held[0]
        assert sorted(w.all_cards()) == game.full_deck
        np.testing.assert_array_equal(w.observation(0), s.observation(0))
        changed |= w.decks != s.decks
    assert changed


def test_perfect_memory_resample_only_reshuffles_the_deck():
    game, s = rig()
    give(s, 1, "red", 1, 2, 3)
    conserve(s)
    w = s.resample_hidden(0, np.random.default_rng(1))
    assert w.seqs == s.seqs and w.piles == s.piles
    assert sorted(w.decks[0]) == sorted(s.decks[0]) and w.decks[0] != s.decks[0]


def test_el_karim_table_resample_keeps_the_desert_rose_consistent():
    game, s = rig(el_karim=True, memory="table")
    for k, colour in enumerate(game.colours[:5]):
        s.seqs[0][k] = [game.card(colour, 1)]  # five face-down cards: they earned the Rose
    s.rose = 0
    conserve(s)
    rng = np.random.default_rng(2)
    for _ in range(10):
        w = s.resample_hidden(1, rng)
        assert {st[0] // 6 for st in w.seqs[0] if st} == set(range(5))


def test_el_karim_table_resample_fallback_still_reshuffles_the_deck():
    """Even when the face-down cards must stay as dealt (the Rose), the deck is re-dealt: a search
    bot must never get the real deck order."""
    game, s = rig(el_karim=True, memory="table")
    for k, colour in enumerate(game.colours[:5]):
        s.seqs[0][k] = [game.card(colour, 1)]
    s.rose = 0
    conserve(s)
    w = s.resample_hidden(1, np.random.default_rng(5))
    assert w.decks[0] != s.decks[0] and sorted(w.all_cards()) == game.full_deck


@pytest.mark.parametrize("cfg", [{}, {"memory": "table", "el_karim": True, "el_portugues": True, "sadid_al_aziz": True},
                                 {"el_karim": True, "el_basr": True}, {"num_players": 1, "memory": "table"}])
def test_observation_kept_up_to_date_move_by_move_equals_a_fresh_one(cfg):
    """The observation board is updated incrementally by each move; a clone rebuilds it."""
    import random

    game = BarakkaGame(**cfg)
    rnd = random.Random(0)
    for seed in range(2):
        s = game.new_state(seed)
        while s.current_player is not None:
            for p in range(game.num_players):
                np.testing.assert_array_equal(s.observation(p), s.clone().observation(p))
            s.apply(rnd.choice(s.legal_actions()))


@pytest.mark.parametrize("memory", ["perfect", "table"])
def test_derived_dup_blocks_count_the_known_copies_in_each_sequence(memory):
    """held_dup / pile_dup equal the copies of that card type the seat's own seq block shows."""
    g = BarakkaGame(memory=memory)
    st = g.new_state(np.random.default_rng(4))
    rng = np.random.default_rng(5)
    seen = 0
    while st.current_player is not None:
        for p in range(2):
            v = g.layout.split(st.observation(p))
            per_type = v["seq"].sum(axis=1)  # (seat row, type)
            for j, x in enumerate(st.held[p]):
                assert v["held_dup"][j] == per_type[0, x]
                seen += per_type[0, x] > 0
            for i, pile in enumerate(st.piles):
                expected = per_type[:, pile[-1]] if pile else np.zeros(2)
                np.testing.assert_array_equal(v["pile_dup"][i], expected)
        legal = st.legal_actions()
        st.apply(legal[int(rng.integers(len(legal)))])
    assert seen > 0  # a random game holds a duplicate at some point


# -- game ends through the env ----------------------------------------------------------------------


@pytest.mark.parametrize("reward", ["win", "score"])
def test_env_game_reaching_its_turn_cap_is_truncated_not_terminated_with_zero_rewards(reward):
    """A game played through the env to its own ``max_turns`` cap (decision 3) ends truncated for
    every agent, never terminated, with reward 0; the final info says so."""
    env = kabenvs.make("barakka_v0", max_turns=6, reward=reward)
    for seed in range(3):
        env.reset(seed=seed)
        rnd = np.random.default_rng(seed)
        ended = {}
        steps = 0
        for agent in env.agent_iter():
            obs, rew, term, trunc, info = env.last()
            if term or trunc:
                ended[agent] = (rew, term, trunc, info)
                env.step(None)
                continue
            env.step(int(rnd.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        assert steps == 12  # 6 turns of two decisions, the deck far from empty
        assert set(ended) == {"player_0", "player_1"}
        for rew, term, trunc, info in ended.values():
            assert trunc and not term and rew == 0.0
            assert info["truncated"] is True and "truncated_by" not in info  # the game's cap, not the env's
        state = env.unwrapped.state
        assert state.truncated and state.turn == 6 and state.decks[0]


def test_env_score_tie_at_the_natural_end_pays_zero_and_names_both_winners():
    """A second, independent tie: equal non-zero scores at the end of the deck, played through the
    env from a saved position: both win, both rewards 0 (no tie-break in the rulebook)."""
    for reward in ("win", "score"):
        game, s = rig(reward=reward)
        give(s, 0, "red", 1, 2, 3)  # 5 points
        give(s, 1, "blue", 2, 1, 3)  # 5 points
        conserve(s)
        s.piles[1] = s.decks[0][:-1] + s.piles[1]  # one card left in the deck
        s.decks[0] = s.decks[0][-1:]
        s.touch()
        assert not s.invariants(), s.invariants()
        env = kabenvs.make("barakka_v0", reward=reward)
        env.reset(options={"state": s.to_json()})
        env.step(game.catalog.lookup_name("draw from the deck"))
        env.step(game.catalog.lookup_name("discard onto pile 1"))
        for agent in ("player_0", "player_1"):
            assert env.terminations[agent] and not env.truncations[agent]
            assert env.rewards[agent] == env._cumulative_rewards[agent] == 0.0
            info = env.infos[agent]
            assert info["scores"] == [5.0, 5.0] and info["winners"] == [0, 1]


# -- legality and scores: the mutation-testing sample (docs/testing.md) ----------------------------


def test_el_karim_full_sequence_showing_the_colour_refuses_a_sixth_card():
    game, s = rig(el_karim=True)
    s.seqs[0][0] = [game.card("blue", 1)] + [game.card("red", r) for r in (1, 2, 3, 4)]  # five: full
    s.seqs[0][1] = [game.card("green", 2)]  # a single face-down card: not for red, which shows above
    s.held[0] = [game.card("red", 5)]
    s.phase = "play"
    s.touch()
    assert [s.action_name(a) for a in s.legal_actions()] == ["discard onto pile 1", "discard onto pile 2"]


def test_legal_masks_are_computed_once_per_legal_set():
    game, s = rig()
    mask = s.legal_mask()
    key = tuple(s.legal_actions())
    assert np.array_equal(game.mask_cache[key], mask)  # stored under its legal set
    marked = mask.copy()
    marked[-1] = not marked[-1]
    game.mask_cache[key] = marked  # another state of this game in the same legal set reads it
    got = s.clone().legal_mask()  # (a clone keeps no mask of its own: it asks the game's)
    assert np.array_equal(got, marked)
    got[0] = not got[0]
    assert np.array_equal(game.mask_cache[key], marked)  # a copy is handed out


def test_tiles_add_up_base_tiles_el_basr_tiles_and_the_el_portugues_token():
    game, s = rig(el_basr=True, el_portugues=True)
    give(s, 0, "red", 1, 2, 3, 4, 5)
    s.tiles[0][game.colours.index("red")] = 1  # under a complete flawless sequence: kept
    s.tiles[0][game.basr] = 1  # received: counts unconditionally
    s.token = 0
    s.touch()
    assert s.player_score(0).tiles == 3
    assert s.player_score(1).tiles == 0  # the token counts only for its holder
    s.token = -1
    assert s.player_score(0).tiles == 2
