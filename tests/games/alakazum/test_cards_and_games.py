"""The card data file, whole games, information, the bot."""

from __future__ import annotations

import csv
import random
import re
from collections import Counter

import numpy as np
import pytest

import kabenvs
from kabenvs.agents import Decision, RandomAgent
from kabenvs.agents.arena import play_match
from kabenvs.core.errors import ConfigError
from kabenvs.games.alakazum import AlakazumGame
from kabenvs.games.alakazum.bots import HeuristicAgent
from kabenvs.games.alakazum.cards import DEFAULT_CARDS, load_cards


# ---------------------------------------------------------------- data file
def test_default_card_list_matches_the_components():
    cs = load_cards()
    cards = cs.cards
    forest = [c for c in cards if c.deck == "forest"]
    assert len(forest) == 90
    assert Counter(c.kind for c in forest) == {"character": 33, "trap": 3, "hand": 54}
    initial = [c for c in cards if c.deck == "initial"]
    assert sorted(c.name for c in initial if c.kind == "character") == sorted(
        ["Senyor Pirotècnic", "Tió de Nadal", "Moura", "Olentzero", "Penitente"])
    assert len(initial) == 9
    assert {c.name: c.final_default or c.final_values for c in cards if c.kind == "final"} == {
        "Black Friday": 7, "Fast Food": 8, "Halloween": 9, "Santa Claus": 13, "Saint Valentine": {2: 9, 5: 7}}
    assert sum(1 for c in cards if c.effect == "voodoo") == 2
    assert sum(1 for c in cards if c.effect == "food") == 10
    by_name = {c.name: c for c in cards if c.kind == "character"}
    assert by_name["Maruxa"].trait == "VM2" and by_name["Dolçainer"].combat[0] == 1
    assert by_name["Penitente"].combat[1] == 1 and by_name["Castanyera"].resistance[0] == 1
    assert by_name["Penitente"].resistance == (1, 1, 2)  # reconstruction fitted to Ana vs Pep
    assert cs.num_htypes == 27 and cs.num_chars == 38


def rows():
    with DEFAULT_CARDS.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def write(tmp_path, table, header=None):
    path = tmp_path / "cards.csv"
    header = header or list(table[0].keys())
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, extrasaction="ignore")
        w.writeheader()
        w.writerows(table)
    return str(path)


@pytest.mark.parametrize("row, column, value, message", [
    (9, "culture", "XYZ", r"row 11: culture='XYZ' is not valid; choose one of"),
    (9, "combat", "1/2", r"combat='1/2' is not valid; expected three"),
    (9, "trait", "FLY", r"trait='FLY'"),
    (45, "effect", "elixir", r"effect='elixir'"),
    (3, "code", "I01", r"codes must be unique"),
    (103, "value", "lots", r"value='lots'"),
])
def test_bad_card_file_names_row_column_and_allowed(tmp_path, row, column, value, message):
    table = rows()
    table[row][column] = value
    path = write(tmp_path, table)
    with pytest.raises(ConfigError, match=message):
        AlakazumGame(num_players=2, cards=path)


def test_missing_column_and_missing_file(tmp_path):
    table = rows()
    path = write(tmp_path, table, header=[c for c in table[0] if c != "resistance"])
    with pytest.raises(ConfigError, match=r"missing column\(s\) \['resistance'\]"):
        kabenvs.make("alakazum_v0", cards=path)
    with pytest.raises(ConfigError, match="no such file"):
        kabenvs.make("alakazum_v0", cards=str(tmp_path / "nope.csv"))


def test_a_user_card_file_with_printed_values_is_used(tmp_path):
    table = rows()
    santa = next(r for r in table if r["name"] == "Santa Claus")
    santa["value"] = "12"
    moura = next(r for r in table if r["name"] == "Moura")
    moura["combat"] = "3/3/3"
    game = AlakazumGame(num_players=3, cards=write(tmp_path, table))
    assert 12 in dict(game.finals_in_play).values()
    s = game.new_state(0)
    assert not s.invariants()
    assert game.cs.cards[next(c for c in game.cs.characters if game.cs.cards[c].name == "Moura")].combat == (3, 3, 3)


def test_config_errors():
    with pytest.raises(ConfigError, match="num_players"):
        AlakazumGame(num_players=6)
    with pytest.raises(ConfigError, match="max_turns"):
        AlakazumGame(num_players=2, max_turns=0)


# ---------------------------------------------------------------- whole games
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_full_random_games_keep_invariants(n):
    game = AlakazumGame(num_players=n)
    rnd = random.Random(n)
    endings = Counter()
    for g in range(6):
        s = game.new_state(100 + g)
        while s.current_player is not None:
            legal = s.legal_actions()
            assert legal
            s.apply(rnd.choice(legal))
            assert not s.invariants(), s.invariants()
        endings["truncated" if s.truncated else "won" if len(s.winners()) == 1 else "shared"] += 1
        assert len(s.history) <= game.max_decisions()
    assert endings["won"] >= 1


def test_env_loop_and_text_render():
    env = kabenvs.make("alakazum_v0", num_players=3, render_mode="ansi")
    env.reset(seed=3)
    rnd = random.Random(0)
    steps = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(rnd.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        steps += 1
    assert steps > 20
    text = env.unwrapped.state.render(0)
    assert "player 0 (you): magic energy" in text and "market (top first)" in text


def test_the_terminal_table_shows_every_characters_stats_and_the_threshold():
    """Terminal play reads cleanly: every character on the table (teams, display, a combat) with
    its combat points, resistance and culture points; each player's culture points against the
    Alakazum threshold; no printed Python dict or list anywhere."""
    raw = re.compile(r"\{'|\[\d|\['")
    game = AlakazumGame(num_players=3)
    combats = 0
    for seed in range(4):
        s = game.new_state(seed)
        rnd = random.Random(seed)
        while True:
            for seat in (None, *range(3)):
                text = s.render(seat)
                assert not raw.search(text), text
                assert "an Alakazum needs 8 culture points of one culture" in text
                for q in range(3):
                    assert f"player {q}" in text and "culture points VAL" in text
                for c in [c for team in s.teams for c in team] + list(s.display):
                    name = game.cs.cards[c].name
                    assert re.search(re.escape(name) + r" \([^)]*level [ABC]: combat (\d+|die), resistance \d+, "
                                     r"culture \d+", text), (name, text)
            if s.combat is not None and s.combat["fighter"] >= 0:
                combats += 1
                assert "    fighter: " in s.render(None) and "combat points: player" in s.render(None)
            if s.current_player is None:
                break
            s.apply(rnd.choice(s.legal_actions()))
        assert s.render(None).splitlines()[-1].strip().startswith(("winner", "no winner"))
    assert combats > 0


def test_hands_are_hidden_until_seen():
    game = AlakazumGame(num_players=3)
    s = game.new_state(5)
    lay = game.layout
    o1 = lay.split(s.observation(1))
    assert o1["known_hands"].sum() == 0
    assert np.allclose(o1["hand"] * 3, np.bincount([game.cs.htype[c] for c in s.hands[1]], minlength=27))
    assert (o1["hand_size"] * 10).tolist() == [3, 3, 3]
    world = s.resample_hidden(1, np.random.default_rng(0))
    assert world.hands[1] == s.hands[1]
    np.testing.assert_array_equal(world.observation(1), s.observation(1))


# ---------------------------------------------------------------- the bot
def test_heuristic_plays_legal_moves_to_the_end():
    game = AlakazumGame(num_players=4)
    for seed in range(3):
        s = game.new_state(seed)
        bots = [HeuristicAgent(seed=i) for i in range(4)]
        while s.current_player is not None:
            p = s.current_player
            s.apply(bots[p].act(Decision(p, s)))
        assert s.winners()


@pytest.mark.parametrize("n", [2, 4])
def test_heuristic_beats_random_small(n):
    game = AlakazumGame(num_players=n)
    result = play_match(game, [lambda s: HeuristicAgent(s), lambda s: RandomAgent(s)], deals=10, seed=7)
    assert result.win_rate(0) > 2 * result.win_rate(1)


@pytest.mark.slow
@pytest.mark.parametrize("n, deals", [(2, 500), (4, 250)])
def test_heuristic_beats_random_1000_games(n, deals):
    """1000 games per player count, seats rotated over paired deals; with 4 players one heuristic
    bot plays three random agents (an even match would give each 0.25)."""
    game = AlakazumGame(num_players=n)
    agents = [lambda s: HeuristicAgent(s)] + [lambda s: RandomAgent(s)] * (n - 1)
    result = play_match(game, agents, deals=deals, seed=2024, names=["heuristic"] + ["random"] * (n - 1))
    print(result.table())
    assert result.games == 1000
    lo, _ = result.interval(0)
    assert lo > 0.8 and all(result.interval(i)[1] < 0.1 for i in range(1, n))


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_no_leak_over_whole_games(n):
    """The kit's no-leak check runs 10-turn games; this one samples whole games."""
    game = AlakazumGame(num_players=n)
    rng = np.random.default_rng(n)
    rnd = random.Random(n)
    for g in range(15):
        state = game.new_state(1000 + g)
        while state.current_player is not None:
            if rnd.random() < 0.05:
                for p in range(n):
                    world = state.resample_hidden(p, rng)
                    np.testing.assert_array_equal(world.observation(p), state.observation(p))
                    assert world.current_player == state.current_player and not world.invariants()
                    if state.current_player == p:
                        np.testing.assert_array_equal(world.legal_mask(), state.legal_mask())
                    play = world.clone()
                    while play.current_player is not None:
                        play.apply(rnd.choice(play.legal_actions()))
            state.apply(rnd.choice(state.legal_actions()))


@pytest.mark.parametrize("n", [2, 5])
def test_a_game_played_through_the_env_to_its_turn_cap_is_truncated_with_zero_rewards(n):
    env = kabenvs.make("alakazum_v0", num_players=n, max_turns=4)
    env.reset(seed=11)
    rnd = random.Random(2)
    ended = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            ended[agent] = (term, trunc, env._cumulative_rewards[agent])
            env.step(None)
            continue
        env.step(rnd.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    state = env.unwrapped.state
    assert state.truncated and state.turn == 4 and "truncated_by" not in info  # the game's cap, not the env's
    assert ended == {f"player_{i}": (False, True, 0.0) for i in range(n)}
    assert state.returns() == [0.0] * n


# the observation sizes models were trained on: before the 2026-12-01 change (2 players), and
# before what the others know of my hand (mine_known, mine_groups, mine_joint, mine_capped)
@pytest.mark.parametrize("n, size", [(2, 1929), (2, 4645), (5, 5569)])
def test_models_trained_on_the_older_observation_are_refused(n, size):
    from kabenvs.agents.policy import ModelLoadError, check_compatible, game_metadata

    game = AlakazumGame(num_players=n)
    assert game.observation_size != size
    old = {**game_metadata(game), "observation_size": size}
    with pytest.raises(ModelLoadError, match=f"observation size {size}.*differs in: observation_size"):
        check_compatible(old, game)
