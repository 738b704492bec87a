"""More of the game contract in ``kabenvs.core.game`` pinned on the toy game: seat views (the
narration and table hooks), exact refusal messages of saves, key order in saves, deep copies.
Written to kill the mutants the earlier tests let through (docs/testing.md, Mutation testing)."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

import kabenvs
from kabenvs.core.errors import ConfigError, IllegalActionError
from kabenvs.core.game import State, _plain_list, _seat_view_hooks, move_line
from tests.training.toy import ToyGame, ToyState


class SavableToy(ToyGame):
    State = ToyState


def _state(seed=1):
    s = SavableToy().new_state(seed)
    s.mark_start()
    return s


def _refused(data, message):
    with pytest.raises(ConfigError) as err:
        State.from_json(data, game=SavableToy())
    assert str(err.value) == message, str(err.value)


def _played(seed=1):
    s = _state(seed)
    s.apply(2)
    s.apply(3)
    return s, json.loads(s.to_json())


# -- field names, replays, clones --------------------------------------------------------------
def test_field_names_are_computed_once_per_game():
    game = SavableToy()
    assert game.field_names() is game.field_names()


def test_a_replayed_start_does_not_share_fields_with_the_start():
    s, _ = _played()
    r = s.replay_start()
    r.apply(1)
    r.actors.append("x")
    assert s.start["state"]["totals"] == [0, 0] and s.start["state"]["actors"] == []
    assert s.replay_start().totals == [0, 0]
    with pytest.raises(ValueError, match=r"^this state has no recorded start \(restored from an older save\)$"):
        State(SavableToy(), 0).replay_start()


def test_the_generic_clone_copies_nested_fields_deeply():
    s, _ = _played()
    c = s.clone()
    c.actors[0][1] = 99  # a list inside a list
    assert s.actors[0][1] == 2


# -- illegal actions name the decision and the move ----------------------------------------------
def test_illegal_action_messages_name_the_decision_and_the_move():
    s = _state()
    p = s.current_player
    s.apply(1)  # now the other seat reacts: picks (ids 0..2) are illegal
    q = s.current_player
    legal = "3: accept, 4: double"
    for bad, label in [(0, " (pick 0)"), (2, " (pick 2)"), (5, " (no such action id)"), ("x", "")]:
        with pytest.raises(IllegalActionError) as err:
            s.check_action(bad)
        assert str(err.value) == (f"illegal action {bad!r}{label} for the decision 'player {q} to move'; "
                                  f"legal choices: {legal}")
        assert err.value.decision == f"player {q} to move"
    assert p != q


# -- saves ----------------------------------------------------------------------------------------
def test_save_refusals_name_every_unknown_key_and_keep_the_cause():
    _, good = _played()
    _refused({**good, "x": 1, "y": 2}, "not a saved kabenvs state: unknown x, y "
                                       "(a save has exactly: config, env_id, rng, state)")
    with pytest.raises(ConfigError) as err:
        State.from_json("{oops", game=SavableToy())
    assert str(err.value) == "not a saved kabenvs state: not JSON (Expecting property name enclosed in double " \
                             "quotes: line 1 column 2 (char 1))"
    with pytest.raises(ConfigError) as err:
        State.from_json({"env_id": 5, "config": {}, "rng": {}, "state": {}})
    assert str(err.value) == "saved state: env_id must be a string, got 5"
    with pytest.raises(ConfigError) as err:
        State.from_json({"env_id": "kabaleo_v0", "config": {1: 2}, "rng": {}, "state": {}})
    assert str(err.value) == "saved state: config is not a valid kabaleo_v0 config (keywords must be strings)"


def test_a_save_nested_too_deeply_is_refused_in_one_line():
    _, good = _played()
    deep: list = []
    for _ in range(sys.getrecursionlimit() * 2):
        deep = [deep]
    _refused({**good, "state": {**good["state"], "actors": deep}},
             "saved state: the fields are nested too deeply to be a game state")


def test_a_save_without_a_start_field_restores_with_no_start():
    _, good = _played()
    fields = {k: v for k, v in good["state"].items() if k != "start"}
    back = State.from_json({**good, "state": fields}, game=SavableToy())
    assert back.start is None and back.history == [2, 3]


def test_a_bad_start_is_refused_as_the_start():
    _, good = _played()
    start = json.loads(json.dumps(good["state"]["start"]))
    start["state"]["current_player"] = 7
    _refused({**good, "state": {**good["state"], "start": start}},
             "saved start is invalid: current_player: 7 is not a seat of a 2-player game (0..1 or null)")


def test_exactly_two_problems_say_one_more():
    _, good = _played()
    _refused({**good, "state": {**good["state"], "current_player": 5, "truncated": 1}},
             "saved state is invalid: current_player: 5 is not a seat of a 2-player game (0..1 or null) "
             "(and 1 more problem(s))")


def test_a_crash_inside_a_check_is_named_with_its_message():
    s = _state()

    class Crashing(ToyState):
        def check_fields(self):
            raise RuntimeError("x" * 200)

    s.__class__ = Crashing
    assert s.validate() == [f"the fields are inconsistent (RuntimeError: {'x' * 120})"]


def test_a_history_that_crashes_on_replay_names_the_step_and_the_error():
    class Fragile(ToyState):
        def _apply(self, action):
            if len(self.history) == 3:
                raise RuntimeError("y" * 200)
            super()._apply(action)

    class FragileToy(ToyGame):
        State = Fragile

    s = FragileToy().new_state(1)
    s.apply(2)
    s.mark_start()  # the start already holds one move: history steps are counted from 0
    s.apply(3)
    good = json.loads(s.to_json())
    good["state"]["history"] = [2, 3, 1]
    with pytest.raises(ConfigError) as err:
        State.from_json(good, game=FragileToy())
    assert str(err.value) == (f"saved state: history[2]=1 cannot be replayed from the saved start "
                              f"(RuntimeError: {'y' * 120})")
    good["state"]["history"] = [2, 0]
    with pytest.raises(ConfigError) as err:
        State.from_json(good, game=FragileToy())
    assert str(err.value) == "saved state: history[1]=0 is not legal when replayed from the saved start"


class Tallied(ToyState):
    """The toy with a mapping field (as real games keep), to check key order in saves."""

    def _apply(self, action):
        super()._apply(action)
        self.tally[str(action)] = self.tally.get(str(action), 0) + 1


class TalliedToy(ToyGame):
    State = Tallied

    def new_state(self, rng=None):
        s = super().new_state(rng)
        s.__class__ = Tallied
        s.tally = {}
        return s


def _reordered(value):
    """The same data with every mapping's keys in reverse order."""
    if isinstance(value, dict):
        return {k: _reordered(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reordered(v) for v in value]
    return value


def test_key_order_in_a_save_does_not_matter_but_a_tampered_field_is_named():
    s = TalliedToy().new_state(1)
    s.mark_start()
    for a in (2, 3, 1, 4):
        s.apply(a)
    assert list(s.tally) == ["2", "3", "1", "4"]
    good = json.loads(s.to_json())  # sorted keys
    # the fields in reverse order and the start's in the order of the save: still the same game
    mixed = {**good, "state": _reordered(good["state"])}
    mixed["state"]["start"] = good["state"]["start"]
    back = State.from_json(mixed, game=TalliedToy())
    assert back.tally == s.tally
    start_reordered = {**good, "state": {**good["state"], "start": _reordered(good["state"]["start"])}}
    assert State.from_json(start_reordered, game=TalliedToy()).tally == s.tally
    tampered = json.loads(json.dumps(mixed))
    tampered["state"]["totals"][0] += 1
    with pytest.raises(ConfigError) as err:
        State.from_json(tampered, game=TalliedToy())
    assert str(err.value).startswith("saved state: field 'totals' differs")
    tampered = {**tampered, "state": {**tampered["state"], "start": _reordered(good["state"]["start"])}}
    tampered["state"]["tally"] = good["state"]["tally"]  # sorted while the replay's is in play order
    with pytest.raises(ConfigError) as err:
        State.from_json(tampered, game=TalliedToy())
    assert str(err.value).startswith("saved state: field 'totals' differs")


# -- seat views -----------------------------------------------------------------------------------
def test_a_game_without_views_narrates_the_move_line_and_draws_the_base_table():
    s = _state()
    p = s.current_player
    before = s.clone()
    s.apply(2)
    assert move_line(before, 2, None) == f"player {p}: pick 2"
    assert s.narrate(before, 2, None) == [f"player {p}: pick 2"]
    assert _seat_view_hooks(ToyState) == (None, None)
    q = s.current_player
    view = s.table_view(None)
    assert view == {"game": "toy_v0", "num_players": 2, "seat": None, "current_player": q,
                    "decision": f"player {q} to move", "terminal": False, "winners": None, "scores": None,
                    "text": f"totals {s.totals}"}
    while s.current_player is not None:
        s.apply(s.legal_actions()[0])
    end = s.table_view(1)
    assert end["terminal"] is True and end["current_player"] is None and end["seat"] == 1
    assert end["winners"] == s.winners() and end["scores"] is None and end["decision"] == "game over"
    s.truncated = True
    assert s.table_view(0)["winners"] == []


def test_the_table_tells_only_the_decider_its_decision_text():
    class Secret(ToyState):
        def decision(self):
            return "secret" if self.current_player is not None else "game over"

        def scores(self):
            return [np.int64(t) for t in self.totals]

        def winners(self):
            return [np.int64(w) for w in super().winners()]

        def render(self, player=None):
            return f"seen by {player}"

        def action_name_for(self, action, seat):
            return f"{self.action_name(action)} as seat {seat} saw it"

    s = _state()
    s.__class__ = Secret
    p = s.current_player
    assert s.table_view(p)["decision"] == "secret" and s.table_view(None)["decision"] == "secret"
    assert s.table_view(1 - p)["decision"] == f"player {p} to move"
    assert s.table_view(1 - p)["text"] == f"seen by {1 - p}" and s.table_view(p)["scores"] is None
    before = s.clone()
    s.apply(2)
    assert move_line(before, 2, 1) == f"player {p}: pick 2 as seat 1 saw it"
    assert s.narrate(before, 2, 0) == [f"player {p}: pick 2 as seat 0 saw it"]
    while s.current_player is not None:
        s.apply(s.legal_actions()[0])
    end = s.table_view(None)
    assert end["scores"] == s.totals and all(type(v) is int for v in end["scores"] + end["winners"])
    json.dumps(end)


def test_plain_lists():
    assert _plain_list(None) is None
    assert _plain_list([np.int64(2), 3, np.float32(0.5)]) == [2, 3, 0.5]
    assert [type(v) for v in _plain_list([np.int64(2), 3, np.float32(0.5)])] == [int, int, float]


def test_a_game_package_supplies_its_own_narration_and_table():
    game = kabenvs.make("kabaleo_v0").game
    from kabenvs.games.kabaleo import narration, table

    # a class never looked up before (the hooks are cached per class, also across a fork)
    cls = type("FreshKabaleo", (type(game.new_state(0)),), {"__module__": "kabenvs.games.kabaleo.rules"})
    assert _seat_view_hooks(cls) == (narration.narrate, table.table_view)
    s = game.new_state(0)
    before = s.clone()
    a = s.legal_actions()[0]
    s.apply(a)
    assert s.narrate(before, a, 0) == narration.narrate(before, s, a, 0)
    view = s.table_view(0)
    assert set(table.table_view(s, 0)) <= set(view) and "game" in view


def test_view_hooks_of_scripts_missing_modules_and_broken_modules(tmp_path, monkeypatch):
    top = type("TopLevel", (ToyState,), {"__module__": "script"})
    assert _seat_view_hooks(top) == (None, None)
    absent = type("Absent", (ToyState,), {"__module__": "kabenvs.no_such_game.rules"})
    assert _seat_view_hooks(absent) == (None, None)
    pkg = tmp_path / "brokengame"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "narration.py").write_text("import no_such_module_for_kabenvs_tests\n")
    (pkg / "table.py").write_text("def table_view(state, seat):\n    return {'extra': seat}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    broken = type("Broken", (ToyState,), {"__module__": "brokengame.rules"})
    with pytest.raises(ModuleNotFoundError):
        _seat_view_hooks(broken)
    only_table = type("OnlyTable", (ToyState,), {"__module__": "tablegame.rules"})
    (tmp_path / "tablegame").mkdir()
    (tmp_path / "tablegame" / "__init__.py").write_text("")
    (tmp_path / "tablegame" / "table.py").write_text("def table_view(state, seat):\n    return {'extra': seat}\n")
    narrate, draw = _seat_view_hooks(only_table)
    assert narrate is None and draw(None, 3) == {"extra": 3}
    (tmp_path / "tablegame" / "table.py").unlink()
    sys.modules.pop("tablegame.table", None)
    assert _seat_view_hooks(only_table) == (None, draw)  # looked up once per class: cached
    told = type("Told", (ToyState,), {"__module__": "tellgame.sub.rules"})
    (tmp_path / "tellgame" / "sub").mkdir(parents=True)
    (tmp_path / "tellgame" / "__init__.py").write_text("")
    (tmp_path / "tellgame" / "sub" / "__init__.py").write_text("")
    (tmp_path / "tellgame" / "sub" / "narration.py").write_text(
        "def narrate(before, after, action, seat):\n    return ['told', action, seat]\n")
    t = _state()
    t.__class__ = told
    before = t.clone()
    t.apply(1)
    assert t.narrate(before, 1, 0) == ["told", 1, 0]  # the package's own narration, next to rules
    s = _state()
    s.__class__ = only_table
    assert s.table_view(1)["extra"] == 1 and s.table_view(1)["game"] == "toy_v0"
    for name in ("brokengame", "tablegame", "tablegame.table", "brokengame.table", "tellgame", "tellgame.sub",
                 "tellgame.sub.narration"):
        sys.modules.pop(name, None)


def test_a_foreign_generator_state_is_refused_with_numpy_s_reason():
    _, good = _played()
    _refused({**good, "rng": {"bit_generator": "MT19937"}},
             "saved state: rng is not a PCG64 generator state (state must be for a PCG64 RNG)")
    start = {**good["state"]["start"], "rng": {"bit_generator": "MT19937"}}
    _refused({**good, "state": {**good["state"], "start": start}},
             "saved start: rng is not a PCG64 generator state (state must be for a PCG64 RNG)")
