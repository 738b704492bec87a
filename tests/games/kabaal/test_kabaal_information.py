"""Kabaal information: how moves read to each seat, what the observation remembers (perfect
recall), resampling consistent with a seat's whole history, and saved-state validation."""

from __future__ import annotations

import copy
import json
import random

import numpy as np
import pytest

from kabenvs.core.errors import ConfigError
from kabenvs.core.game import State
from kabenvs.games.kabaal import KabaalGame, KabaalState
from kabenvs.games.kabaal.cards import COLOUR, card

from .kabaal_helpers import BLACK, BLUE, RED, act, deal, play, set_board


def test_another_players_pass_names_no_card():
    s = KabaalGame(num_players=3).new_state(0)
    p = s.current_player
    for a in s.legal_actions():
        assert s.action_name_for(a, p) == s.action_name(a)
        assert s.action_name_for(a, None) == s.action_name(a)
        for q in range(3):
            if q != p:
                assert s.action_name_for(a, q) == "pass a card (hidden)"
    # after the exchange, plays are public: everyone reads the card
    while s.phase == "pass":
        s.apply(s.legal_actions()[0])
    a = s.legal_actions()[0]
    assert {s.action_name_for(a, q) for q in range(3)} == {s.action_name(a)}


# -- perfect recall: histories the seat can tell apart give different observations ---------------


def _two_tricks(tricks, placements, void_black=("red", "blue")):
    """Red leads and wins two tricks; ``tricks`` are (red, blue, black) card names per trick,
    ``placements`` Red's placement per trick (then "stop" if a second one is offered)."""
    s = KabaalGame(num_players=3).new_state(0)
    deal(s, {RED: (["red 5", "blue 7"], ["red", "blue"]), BLUE: (["red 3", "blue 2"], []),
             BLACK: (["blue 1", "yellow 3"], list(void_black))}, leader=RED)
    for cards, place in zip(tricks, placements):
        for seat, name in zip((RED, BLUE, BLACK), cards):
            play(s, seat, name)
        assert s.actor == RED
        act(s, f"place on {place}", RED)
        if s.phase == "place":
            act(s, "place no more cultists", RED)
    assert s.current_player == RED and s.phase == "play" and not s.trick_cards
    return s


def _differ(a, b, seat):
    lay = a.game.layout
    va, vb = lay.split(a.observation(seat)), lay.split(b.observation(seat))
    return sorted(k for k in va if not np.array_equal(va[k], vb[k]))


def test_observation_remembers_voids_shown_and_which_trick_each_card_went_to():
    # Same cards per seat, same winners, same board; only the order of the tricks differs. In A
    # Black discards blue 1 on a red lead (void in red shown); in B he follows blue with it.
    a = _two_tricks([("red 5", "red 3", "blue 1"), ("blue 7", "blue 2", "yellow 3")], ["red 5/6", "blue 7/8"])
    b = _two_tricks([("blue 7", "blue 2", "blue 1"), ("red 5", "red 3", "yellow 3")], ["blue 7/8", "red 5/6"])
    assert a.board == b.board and a.tricks_won == b.tricks_won
    assert sorted(map(sorted, a.played)) == sorted(map(sorted, b.played))
    for seat in (RED, BLUE, BLACK):
        differ = _differ(a, b, seat)
        for block in ("played_round", "voids", "forced_plays"):
            assert block in differ, (seat, block, differ)
    lay = a.game.layout
    # Red's view: Black (relative 2) showed no red in A (then no blue); in B only no red (trick 2).
    assert np.argwhere(lay.split(a.observation(RED))["voids"]).tolist() == [[2, 0], [2, 1]]
    assert np.argwhere(lay.split(b.observation(RED))["voids"]).tolist() == [[2, 0]]


def test_observation_remembers_who_led_and_won_each_trick():
    # Blue wins trick 1 in A and leads trick 2; in B Red wins trick 1 and leads trick 2.
    s = KabaalGame(num_players=3).new_state(0)
    deal(s, {RED: (["red 5", "red 2"], []), BLUE: (["red 3", "red 8"], []), BLACK: (["red 1", "red 4"], [])},
         leader=RED)
    a, b = s.clone(), s.clone()
    for st, cards in ((a, ("red 2", "red 8", "red 1")), (b, ("red 5", "red 3", "red 4"))):
        for seat, name in zip((RED, BLUE, BLACK), cards):
            play(st, seat, name)
        while st.phase != "play":
            st.apply(st.legal_actions()[0])
    lay = s.game.layout
    for seat in (RED, BLUE, BLACK):
        assert "trick_winners" in _differ(a, b, seat)
    va, vb = lay.split(a.observation(RED)), lay.split(b.observation(RED))
    assert va["trick_winners"][0].tolist() == [0, 1, 0] and vb["trick_winners"][0].tolist() == [1, 0, 0]
    # trick 2 has not begun: its leader shows once it has a card
    play(a, BLUE, "red 3")
    play(b, RED, "red 2")
    va, vb = lay.split(a.observation(RED)), lay.split(b.observation(RED))
    assert va["trick_leaders"][:2].tolist() == [[1, 0, 0], [0, 1, 0]]
    assert vb["trick_leaders"][:2].tolist() == [[1, 0, 0], [1, 0, 0]]
    for seat in (RED, BLUE, BLACK):
        assert "trick_leaders" in _differ(a, b, seat)


def test_last_move_tells_apart_placements_a_ritual_wipes_out():
    """Two placements that each complete a line leave the same board once the ritual has removed
    the cult's cultists; the seats still see which one was chosen (the board-move record and
    last_move)."""
    s = KabaalGame(num_players=3).new_state(0)
    deal(s, {RED: (["red 7"], []), BLUE: (["red 3"], []), BLACK: (["5+"], ["red"])}, leader=RED)
    # red 7/8 completes column 2 (yellow 3/4, red 7/8, purple 5/6); red 3/4 completes column 3
    # (purple 1/2, yellow 7/8, red 3/4) on the Baal layout
    set_board(s, {RED: ["yellow 3/4", "purple 5/6", "purple 1/2", "yellow 7/8"]})
    for seat, name in ((RED, "red 7"), (BLUE, "red 3"), (BLACK, "5+")):
        play(s, seat, name)
    a, b = s.clone(), s.clone()
    act(a, "place on red 7/8", RED)
    act(b, "place on red 3/4", RED)
    assert a.altar[RED] == b.altar[RED] == 1 and a.board == b.board
    for seat in (RED, BLUE, BLACK):
        assert _differ(a, b, seat) == ["board_moves_to", "last_move"]


# -- resampling: consistent with the seat's whole history ---------------------------------------


def _trajectory(state):
    """Every state of ``state``'s game since its start (replayed)."""
    replay = state.replay_start()
    out = [replay.clone()]
    for a in state.replay_actions():
        replay.apply(a)
        out.append(replay.clone())
    return out


def _assert_world_replays(state, world, p):
    """The kit's check: from the world's own start, the same seat asked and the same observation
    for ``p`` at every step, every action legal, ending in the world."""
    real = _trajectory(state)
    offset = len(state.start["state"]["history"])
    replay = world.replay_start()
    done = len(replay.history)
    assert world.history[:done] == state.history[:done]
    for i, a in enumerate(world.history[done:], start=done):
        past = real[i - offset]
        assert replay.current_player == past.current_player
        np.testing.assert_array_equal(replay.observation(p), past.observation(p))
        replay.apply(a)
    np.testing.assert_array_equal(replay.observation(p), state.observation(p))
    assert replay.to_dict()["state"] | {"start": None} == world.to_dict()["state"] | {"start": None}


def test_resampling_never_deals_a_shown_void():
    # Black discards on a red lead: no world may give him a red card (colourless cards he may
    # still hold: they may always be played, so discarding shows nothing about them).
    s = KabaalGame(num_players=3).new_state(0)
    deal(s, {RED: (["red 5"], []), BLUE: (["red 3"], []), BLACK: (["blue 1"], ["red"])}, leader=RED)
    for seat, name in ((RED, "red 5"), (BLUE, "red 3"), (BLACK, "blue 1")):
        play(s, seat, name)
    assert s.voids[BLACK] == 1 << COLOUR[card("red 1")]
    rng = np.random.default_rng(0)
    failures = KabaalState.resample_failures
    black_got = set()
    for _ in range(200):
        w = s.resample_hidden(RED, rng)
        assert not [k for k in w.hands[BLACK] if COLOUR[k] == COLOUR[card("red 1")]]
        black_got.update(w.hands[BLACK])
    assert len(black_got) > len(s.hands[BLACK])  # his hand really is re-dealt
    _assert_world_replays(s, s.resample_hidden(RED, rng), RED)
    # Blue's view too (Black's void applies to every other seat's worlds)
    for _ in range(50):
        w = s.resample_hidden(BLUE, rng)
        assert not [k for k in w.hands[BLACK] if COLOUR[k] == COLOUR[card("red 1")]]
    assert KabaalState.resample_failures == failures  # every world came from the sampler


def test_resampling_keeps_forced_cards_forced_and_choices_choices():
    # Black's purple 1 is forced (his only purple, no colourless): in every world he holds no
    # other purple and no colourless card; Blue, asked, keeps at least two playable cards.
    s = KabaalGame(num_players=3).new_state(0)
    deal(s, {RED: (["purple 8"], []), BLUE: (["purple 3", "purple 4"], []), BLACK: (["purple 1"], ["purple"])},
         leader=RED)
    play(s, RED, "purple 8")
    act(s, "play purple 3", BLUE)
    play(s, BLACK, "purple 1")
    assert s.forced[BLACK] == [1] and s.forced[BLUE] == [0]
    rng = np.random.default_rng(1)
    failures = KabaalState.resample_failures
    blue_hands = set()
    for _ in range(200):
        w = s.resample_hidden(RED, rng)
        held = w.hands[BLACK] + w.faceup[BLACK]
        assert not [k for k in held if COLOUR[k] in (3, -1)]
        assert w.forced == s.forced
        blue_hands.add(tuple(w.hands[BLUE]))
    _assert_world_replays(s, w, RED)
    assert KabaalState.resample_failures == failures and len(blue_hands) > 100


def test_resampling_rewrites_other_players_secret_passes():
    s = KabaalGame(num_players=3).new_state(4)
    p = s.current_player
    while s.current_player == p or s.passing[s.current_player]:
        s.apply(s.legal_actions()[0])  # p's two passes
    q = s.current_player
    s.apply(s.legal_actions()[-1])  # the next seat's first
    rng = np.random.default_rng(2)
    rewritten = 0
    for _ in range(30):
        w = s.resample_hidden(p, rng)
        assert w.passing[p] == s.passing[p] and len(w.passing[q]) == 1
        assert w.history[:2] == s.history[:2]  # p's own passes
        assert w.history[2] == s.game.pass_base + w.passing[q][0]
        rewritten += w.passing[q] != s.passing[q]
        _assert_world_replays(s, w, p)
    assert rewritten > 20


def test_random_walk_resampling_keeps_every_constraint(monkeypatch):
    """With rejection sampling switched off, the swap walk alone gives consistent worlds."""
    monkeypatch.setattr(KabaalState, "resample_tries", 0)
    failures = KabaalState.resample_failures
    for config in ({"num_players": 4}, {"num_players": 3, "dagon": True}, {"num_players": 2}):
        game = KabaalGame(**config)
        rnd = random.Random(3)
        rng = np.random.default_rng(3)
        for seed in range(3):
            s = game.new_state(seed)
            while s.current_player is not None:
                s.apply(rnd.choice(s.legal_actions()))
                if rnd.random() < 0.05:
                    p = rnd.randrange(game.num_players)
                    _assert_world_replays(s, s.resample_hidden(p, rng), p)
    assert KabaalState.resample_failures == failures


@pytest.mark.parametrize("tries", [64, 0])
def test_the_same_generator_deals_the_same_world_whatever_the_truth(tries, monkeypatch):
    """Two states a seat cannot tell apart (the real one and a world of it) resampled with the same
    generator give the same world, by rejection and by the swap walk (``tries`` 0), whose start
    is found from the seat's information alone, never from the real deal (a walk from the real
    deal would draw worlds near the truth)."""
    monkeypatch.setattr(KabaalState, "resample_tries", tries)
    compared = 0
    for players in (2, 4):
        game = KabaalGame(num_players=players)
        rnd = random.Random(players)
        s = game.new_state(players)
        step = 0
        while s.current_player is not None:
            if step % 9 == 4:
                p = s.current_player
                other = s.resample_hidden(p, np.random.default_rng(1000 + step))
                a = s.resample_hidden(p, np.random.default_rng(step))
                b = other.resample_hidden(p, np.random.default_rng(step))
                assert a.to_json() == b.to_json(), step
                compared += other.to_json() != s.to_json()
            s.apply(rnd.choice(s.legal_actions()))
            step += 1
    assert compared > 20


def test_hidden_zones_are_the_other_hands_their_passes_and_the_undealt():
    s = KabaalGame(num_players=3).new_state(0)
    p = s.current_player
    s.apply(s.legal_actions()[0])
    zones = s.hidden_zones((p + 1) % 3)
    assert zones["undealt"] == s.undealt
    assert zones[f"pass chosen by player {p}"] == s.passing[p]
    assert zones[f"hand of player {p}"] == s.hands[p]
    assert f"hand of player {(p + 1) % 3}" not in zones


# -- saved states are validated ---------------------------------------------------------------------


def _mid_game(num_players=3, steps=40, seed=5):
    game = KabaalGame(num_players=num_players)
    s = game.new_state(seed)
    rnd = random.Random(seed)
    for _ in range(steps):
        s.apply(rnd.choice(s.legal_actions()))
    assert s.phase not in ("pass", "over")
    return s


def _dup(st):
    st["hands"][1][0] = st["hands"][0][0]


def _set(**fields):
    def tamper(st):
        st.update(fields)
    return tamper


def _drop(name):
    return lambda st: st.pop(name)


def _deep(path, value):
    def tamper(st):
        target = st
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return tamper


TAMPERINGS = [
    ("duplicate card", _dup, "hands"),
    ("negative count", _deep(["supply", 0], -1), "supply[0]"),
    ("out-of-range seat", _set(amulet=7), "amulet"),
    ("out-of-range seat in a list", _deep(["trick_winners"], [5]), "trick_winners[0]"),
    ("wrong type", _set(round="2"), "round"),
    ("bool for an int", _deep(["tricks_won", 0], True), "tricks_won[0]"),
    ("card id out of range", _deep(["undealt"], [99]), "undealt[0]"),
    ("missing field", _drop("voids"), "voids"),
    ("extra field", _set(secret_hand=[1, 2]), "secret_hand"),
    ("truncated mid-game", _set(truncated=True), "truncated"),
    ("unknown phase", _set(phase="bidding"), "phase"),
    ("seat to move disagrees with the phase", lambda st: st.update(current_player=(st["current_player"] + 1) % 3),
     "current_player"),
    ("forced list out of step with plays", _deep(["forced", 0], [0] * 7), "forced[0]"),
    ("round record malformed", _deep(["round_start"], {"history": 0}), "round_start"),
    ("cultists not conserved", _deep(["altar", 1], 2), "supply[1]"),
    ("board-move record malformed", _deep(["board_log"], [[0, 9, 0, -1, 3, 0, 0]]), "board_log[0]"),
    ("board-move record too long", _deep(["board_log"], [[0, 0, 0, -1, 3, 0, 0]] * 57), "board_log"),
]


@pytest.mark.parametrize("what,tamper,field", TAMPERINGS, ids=[t[0] for t in TAMPERINGS])
def test_tampered_saves_are_refused_naming_the_field(what, tamper, field):
    s = _mid_game()
    data = s.to_dict()
    tamper(data["state"])
    with pytest.raises(ConfigError) as err:
        State.from_json(json.dumps(data))
    assert field in str(err.value), str(err.value)


def test_a_two_player_save_under_a_three_player_config_is_refused():
    s = _mid_game(num_players=2)
    data = s.to_dict()
    data["config"] = KabaalGame(num_players=3).config.to_dict()
    with pytest.raises(ConfigError, match="3-player"):
        State.from_json(json.dumps(data))


def test_a_card_outside_the_two_player_deck_is_refused():
    s = _mid_game(num_players=2)
    data = s.to_dict()
    data["state"]["undealt"][0] = card("666")
    with pytest.raises(ConfigError, match=r"undealt: card 35 is not in the 2-player deck"):
        State.from_json(json.dumps(data))


def test_untampered_saves_round_trip_over_whole_games():
    game = KabaalGame(num_players=4, dagon=True)
    rnd = random.Random(9)
    s = game.new_state(9)
    while s.current_player is not None:
        if rnd.random() < 0.1:
            back = State.from_json(s.to_json())
            assert back.to_json() == s.to_json()
        s.apply(rnd.choice(s.legal_actions()))
    assert State.from_json(copy.deepcopy(s.to_dict())).to_json() == s.to_json()  # a dict save too


def test_a_model_for_the_older_observation_is_refused():
    """Models trained before the board-move record (1128 floats at 3 players) are refused with
    the clear one-line error that names the observation size and asks for a retrain."""
    from kabenvs.agents.safe_model import ModelLoadError, check_compatible, game_metadata

    game = KabaalGame(num_players=3)
    assert game.observation_size != 1128
    old = game_metadata(game) | {"observation_size": 1128}
    with pytest.raises(ModelLoadError, match="observation_size") as err:
        check_compatible(old, game, "kab3_old")
    assert "observation size 1128" in str(err.value) and "\n" not in str(err.value)


def test_a_model_saved_before_the_reward_option_still_loads():
    """The reward option came after the shipped agents were saved: their game_config lacks it and
    reads as the default (GameConfig.completed), while a model for another value is refused."""
    from kabenvs.agents.safe_model import ModelLoadError, check_compatible, game_metadata

    game = KabaalGame(num_players=2)
    before = game_metadata(game)
    before["game_config"] = {k: v for k, v in before["game_config"].items() if k != "reward"}
    check_compatible(before, game, "kab2_before")  # no error
    other = game_metadata(KabaalGame(num_players=2, reward="score"))
    with pytest.raises(ModelLoadError, match="game_config") as err:
        check_compatible(other, game, "kab2_score")
    assert "reward='score'" in str(err.value) and "\n" not in str(err.value)
    unknown = game_metadata(game)
    unknown["game_config"] = {**unknown["game_config"], "house_rule": True}  # a newer version's option
    with pytest.raises(ModelLoadError, match="game_config"):
        check_compatible(unknown, game, "kab2_newer")


def test_a_swapped_truth_gives_the_same_worlds_as_the_truth():
    """Kabaal claims the same world per generator on states a seat cannot tell apart; checked
    against a truth built by hand (the kit's ``swapped_truth``: two first-round cards of other
    hands or of the undealt cards exchanged, every move and every observation of the seat
    replayed), for every seat, not only the one to move, early in a 4-player game while those
    cards are still hidden. A world the resampler drew keeps its pins; a swapped truth does not.
    (Probed over 2- and 4-player games: 230 pairs alike, none differed.)"""
    from tests.core.kit import assert_same_worlds_as_a_swapped_truth, full_games

    before, _actions, _end = next(full_games(KabaalGame(num_players=4), seed=5, n_games=1, min_games=1))

    def swap(fields, rng):
        slots = [(h, i) for h in fields["hands"] for i in range(len(h))]
        slots += [(fields["undealt"], i) for i in range(len(fields["undealt"]))]
        (la, ia), (lb, ib) = (slots[j] for j in rng.choice(len(slots), 2, replace=False))
        la[ia], lb[ib] = lb[ib], la[ia]
        for h in fields["hands"]:
            h.sort()
        return True

    compared = sum(assert_same_worlds_as_a_swapped_truth(before[k], swap) for k in (4, 10, 20))
    assert compared >= 30
