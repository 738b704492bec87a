"""The game contract implemented once in ``kabenvs.core.game`` (legality, moves, returns, copies,
saves), pinned message by message on the toy game. Written to kill the mutants the behavioural
suite let through (docs/testing.md)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kabenvs.core.errors import ConfigError, IllegalActionError
from kabenvs.core.game import Game, State, as_generator, copy_generator
from tests.training.toy import ToyConfig, ToyGame, ToyState


class SavableToy(ToyGame):
    State = ToyState  # what a save is restored into


def _state(seed=1, **cfg):
    s = SavableToy(**cfg).new_state(seed)
    s.mark_start()  # the toy deals without recording its start
    return s


def test_generators():
    rng = np.random.default_rng(5)
    rng.integers(10)
    copy = copy_generator(rng)
    assert copy is not rng and copy.bit_generator.state == rng.bit_generator.state
    assert copy.integers(1 << 30) == rng.integers(1 << 30)
    copy.integers(3)
    assert copy.bit_generator.state != rng.bit_generator.state  # independent afterwards
    assert as_generator(rng) is rng
    assert as_generator(4).integers(1 << 30) == np.random.default_rng(4).integers(1 << 30)


def test_game_construction():
    game = SavableToy(num_players=3, rounds=1)
    assert game.config == ToyConfig(num_players=3, rounds=1) and game.num_players == 3
    assert game.num_actions == 5 and game.observation_size == 8
    assert repr(game) == "SavableToy(ToyConfig(num_players=3, rounds=1))"
    assert SavableToy(ToyConfig(num_players=3)).num_players == 3
    assert game.field_names() == frozenset(
        {"current_player", "truncated", "history", "start", "totals", "picks_left", "turn", "reacting", "actors"})
    with pytest.raises(ConfigError, match=r"^pass either a config or options, not both \(got \['rounds'\]\)$"):
        SavableToy(ToyConfig(), rounds=2)
    with pytest.raises(ConfigError, match="^toy needs a ToyConfig, got dict$"):
        SavableToy({"num_players": 2})
    for method in (Game.build_catalog, Game.build_layout, Game.max_decisions):
        with pytest.raises(NotImplementedError):
            method(game)


def test_base_state_defaults():
    s = State(SavableToy(), 3)
    assert s.current_player is None and s.truncated is False and s.history == [] and s.start is None
    assert s.decision() == "game over" and s.is_terminal() and s.legal_actions() == []
    assert s.hidden_zones(0) is None and s.scores() is None and s.invariants() == [] and s.check_fields() == []
    assert s.replay_actions() == []
    with pytest.raises(ValueError, match="no recorded start"):
        s.replay_start()
    for call in (s._legal_actions, lambda: s._apply(0), lambda: s.observation(0), s.winners, s.render,
                 lambda: s.resample_hidden(0)):
        with pytest.raises(NotImplementedError):
            call()


def test_legality_masks_and_illegal_moves_change_nothing():
    s = _state()
    p = s.current_player
    assert s.decision() == f"player {p} to move" and not s.is_terminal() and s.num_players == 2
    assert s.legal_actions() == [0, 1, 2]
    assert s.legal_mask().tolist() == [1, 1, 1, 0, 0] and s.legal_mask().dtype == np.int8
    assert s.is_legal(2) and not s.is_legal(3)
    before = s.to_json()
    for bad, fragment in [(3, "illegal action 3 (accept) for the decision"), (9, "illegal action 9 (no such action id)"),
                          (-1, "illegal action -1 (no such action id)"), (1.5, "illegal action 1.5 for"),
                          ("x", "illegal action 'x' for"), (True, "illegal action True for"),
                          (float("inf"), "illegal action inf for"), (None, "illegal action None for")]:
        with pytest.raises(IllegalActionError) as err:
            s.apply(bad)
        assert fragment in str(err.value)
        assert "legal choices: 0: pick 0, 1: pick 1, 2: pick 2" in str(err.value)
    assert s.to_json() == before
    assert s.check_action(np.int64(2)) == 2 and type(s.check_action(2.0)) is int
    s.apply(np.int64(2))
    assert s.history == [2] and s.legal_actions() == [3, 4] and s.is_legal(4) and not s.is_legal(0)
    assert s.action_name(4) == "double" and s.action_name_for(4, 0) == "double"


def _finish(s, pick_for):
    while s.current_player is not None:
        s.apply(3 if s.reacting is not None else pick_for(s.current_player))
    return s


def test_returns_win_tie_truncated_and_score():
    won = _finish(_state(), lambda p: 2 if p == 0 else 0)
    assert won.returns() == [1.0, -1.0] and won.final_info() == {"winners": [0], "scores": None}
    tie = _finish(_state(), lambda p: 1)
    assert tie.returns() == [0.0, 0.0]
    three = _finish(_state(num_players=3), lambda p: 2 if p < 2 else 0)
    assert three.returns() == [1.0, 1.0, -1.0]
    live = _state()
    assert live.returns() == [0.0, 0.0]
    cut = _finish(_state(), lambda p: 2 if p == 0 else 0)
    cut.truncated = True
    assert cut.returns() == [0.0, 0.0]

    class ScoreConfig(ToyConfig):
        reward = "score"

    class Scored(ToyState):
        def scores(self):
            return [float(t) for t in self.totals]

    scored = _finish(_state(num_players=3), lambda p: [4, 1, 0][p] if p else 2)
    scored.__class__ = Scored
    scored.game.score_scale = 2.0
    object.__setattr__(scored.game, "config", ScoreConfig(num_players=3))
    t = scored.totals
    assert scored.returns() == [(t[0] - max(t[1], t[2])) / 2, (t[1] - max(t[0], t[2])) / 2, (t[2] - max(t[0], t[1])) / 2]


def test_clones_are_independent_and_equal():
    s = _state()
    s.apply(1)
    c = s.clone()
    assert c.to_json() == s.to_json() and c.start is s.start and c.game is s.game
    assert c.rng is not s.rng and c.rng.bit_generator.state == s.rng.bit_generator.state
    c.apply(4)
    assert s.history == [1] and s.legal_actions() == [3, 4] and c.legal_actions() == [0, 1, 2]
    c.totals[0] = 99
    assert s.totals[0] != 99
    shared = s._clone_base(share_rng=True)
    assert shared.rng is s.rng and shared.truncated is False and shared.history == [1] and shared.history is not s.history
    assert repr(s) == f"<ToyState toy_v0 player={s.current_player}>"


def test_start_replay_and_touch():
    s = _state()
    s.apply(2)
    s.apply(3)
    assert s.replay_actions() == [2, 3]
    r = s.replay_start()
    assert r.history == [] and r.start is s.start and r.game is s.game and r.legal_actions() == [0, 1, 2]
    for a in s.replay_actions():
        r.apply(a)
    assert r.to_json() == s.to_json()
    s.totals[0] = 7  # rigged by hand
    s.touch()
    assert s.replay_actions() == [] and s.start["state"]["totals"][0] == 7 and s.start["state"]["history"] == [2, 3]
    assert "start" not in s.start["state"]
    assert s.replay_start().totals[0] == 7 and s.replay_start().history == [2, 3]


def test_to_dict_and_json():
    s = _state()
    d = s.to_dict()
    assert set(d) == {"env_id", "config", "rng", "state"} and d["env_id"] == "toy_v0"
    assert d["config"] == {"num_players": 2, "rounds": 2} and d["rng"] == s.rng.bit_generator.state
    assert json.loads(s.to_json()) == json.loads(json.dumps(d))
    assert ", " not in s.to_json() and s.to_json() == json.dumps(json.loads(s.to_json()), sort_keys=True,
                                                                 separators=(",", ":"))


def _save(s):
    return json.loads(s.to_json())


def _refused(data, message, game=None):
    with pytest.raises(ConfigError) as err:
        State.from_json(data if isinstance(data, str) else json.dumps(data), game=game or SavableToy())
    assert str(err.value) == message, str(err.value)


def test_a_save_round_trips_through_text_bytes_and_dict():
    s = _state()
    s.apply(2)
    game = s.game
    for form in (s.to_json(), s.to_json().encode(), _save(s)):
        back = State.from_json(form, game=game)
        assert type(back) is ToyState and back.to_json() == s.to_json() and back.game is game
        assert back.legal_actions() == [3, 4]


def test_bad_saves_are_refused_naming_the_problem():
    s = _state()
    s.apply(2)
    good = _save(s)
    _refused("[1, 2]", "not a saved kabenvs state: a JSON object is needed, got list")
    with pytest.raises(ConfigError, match="^not a saved kabenvs state: not JSON"):
        State.from_json("{oops", game=SavableToy())
    _refused({"env_id": 1}, "not a saved kabenvs state: missing config, rng, state "
                            "(a save has exactly: config, env_id, rng, state)")
    _refused({**good, "x": 1}, "not a saved kabenvs state: unknown x (a save has exactly: config, env_id, rng, state)")
    _refused({"env_id": 1, "config": 1, "y": 2}, "not a saved kabenvs state: missing rng, state; unknown y "
                                                 "(a save has exactly: config, env_id, rng, state)")
    _refused({**good, "config": [1]}, "saved state: config must be a mapping of options, got list")
    _refused({**good, "state": 3}, "saved state: state must be a mapping of fields, got int")
    _refused({**good, "env_id": "kabaleo_v0"}, "saved state is for 'kabaleo_v0', not 'toy_v0'")
    _refused({**good, "config": {"num_players": 3, "rounds": 2}},
             "saved state is for toy_v0 with config {'num_players': 3, 'rounds': 2}, "
             "but this game has {'num_players': 2, 'rounds': 2}")
    fields = sorted(SavableToy().field_names())
    _refused({**good, "state": {k: v for k, v in good["state"].items() if k != "turn"}},
             f"saved state: field 'turn' is missing (a toy state has: {', '.join(fields)})")
    _refused({**good, "state": {**good["state"], "zzz": 1}},
             f"saved state: 'zzz' is not a field of a toy state (it has: {', '.join(fields)})")
    with pytest.raises(ConfigError, match="^saved state: rng is not a PCG64 generator state"):
        State.from_json({**good, "rng": {"bit_generator": "MT19937"}}, game=SavableToy())


@pytest.mark.parametrize("change, message", [
    ({"current_player": 2}, "current_player: 2 is not a seat of a 2-player game (0..1 or null)"),
    ({"current_player": -1}, "current_player: -1 is not a seat of a 2-player game (0..1 or null)"),
    ({"current_player": True}, "current_player: True is not a seat of a 2-player game (0..1 or null)"),
    ({"current_player": "0"}, "current_player: '0' is not a seat of a 2-player game (0..1 or null)"),
    ({"truncated": 0}, "truncated: 0 must be true or false"),
    ({"truncated": True}, "truncated: true while a player is still to move (a truncated game is over)"),
    ({"history": [2, 5]}, "history: must be a list of action ids 0..4"),
    ({"history": [2, -1]}, "history: must be a list of action ids 0..4"),
    ({"history": [2, True]}, "history: must be a list of action ids 0..4"),
    ({"history": "23"}, "history: must be a list of action ids 0..4"),
])
def test_invalid_base_fields(change, message):
    s = _state()
    s.apply(2)
    good = _save(s)
    _refused({**good, "state": {**good["state"], **change}}, f"saved state is invalid: {message}")


def test_several_problems_are_counted_and_the_edges_are_allowed():
    s = _state()
    s.apply(2)
    good = _save(s)
    _refused({**good, "state": {**good["state"], "current_player": 5, "truncated": 1, "history": [9]}},
             "saved state is invalid: current_player: 5 is not a seat of a 2-player game (0..1 or null) "
             "(and 2 more problem(s))")
    for seat in (0, 1):
        t = State.__new__(ToyState)
        t.__dict__.update({**s.__dict__, "current_player": seat})
        t._reset_caches()
        assert t.validate() == []
    edge = s.clone()
    edge.history = [0, 4]
    assert edge.validate() == []


def test_game_checks_and_crashes_are_refused_in_one_line():
    s = _state()

    class Checked(ToyState):
        def check_fields(self):
            return ["totals: bad"] if self.totals[0] < 0 else []

        def invariants(self):
            return ["picks: bad"] if self.picks_left[0] > 2 else []

    s.__class__ = Checked
    s.totals[0] = -1
    assert s.validate() == ["totals: bad"]
    s.totals[0] = 0
    s.picks_left[0] = 3
    assert s.validate() == ["picks: bad"]
    s.picks_left[0] = 2
    s.reacting = "x"  # the toy's legal moves then crash nowhere, but its winner does on a finished game
    assert s.validate() == []
    s.__class__ = ToyState
    s.current_player, s.totals = None, None
    problems = s.validate()
    assert len(problems) == 1 and problems[0].startswith("the fields are inconsistent (TypeError: ")
    s.truncated = True  # a truncated game has no winner to compute
    assert s.validate() == []

    class Stuck(ToyState):
        def _legal_actions(self):
            return []

    stuck = _state()
    stuck.__class__ = Stuck
    stuck._reset_caches()
    assert stuck.validate() == [f"current_player: player {stuck.current_player} is to move but has no legal move "
                                f"(player {stuck.current_player} to move)"]


def test_history_must_replay_from_the_saved_start():
    s = _state()
    s.apply(2)
    s.apply(3)
    good = _save(s)
    back = State.from_json(good, game=SavableToy())
    assert back.start == s.start and back.history == [2, 3]
    bad_start = {**good, "state": {**good["state"], "start": [1]}}
    _refused(bad_start, "saved state: start must be null or {'state': fields, 'rng': generator state}")
    _refused({**good, "state": {**good["state"], "start": {"state": 1, "rng": 2}}},
             "saved state: start must be null or {'state': fields, 'rng': generator state}")
    _refused({**good, "state": {**good["state"], "start": {"state": {}, "rng": 2, "x": 3}}},
             "saved state: start must be null or {'state': fields, 'rng': generator state}")
    tampered = json.loads(json.dumps(good))
    tampered["state"]["totals"][0] += 1
    _refused(tampered, "saved state: field 'totals' differs from what the history gives when replayed from "
                       "the saved start (a tampered or inconsistent save)")
    other = json.loads(json.dumps(good))
    other["state"]["history"] = [1, 3]
    with pytest.raises(ConfigError, match="^saved state: field '.*' differs from what the history gives"):
        State.from_json(other, game=SavableToy())
    illegal = json.loads(json.dumps(good))
    illegal["state"]["history"] = [2, 0]
    _refused(illegal, "saved state: history[1]=0 is not legal when replayed from the saved start")
    longer = json.loads(json.dumps(good))
    longer["state"]["start"]["state"]["history"] = [1]
    _refused(longer, "saved state: history does not begin with the start's history")
    no_start = json.loads(json.dumps(good))
    no_start["state"]["start"] = None
    assert State.from_json(no_start, game=SavableToy()).start is None
