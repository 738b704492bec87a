"""Game logs: record -> JSON line -> read -> replay gives the identical game, for every game."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kabenvs.agents import RandomAgent, play_game
from kabenvs.agents.arena import play_match
from kabenvs.core.registry import game_class, make_game
from kabenvs.records import (
    RecordError, append_record, make_record, model_hash, read_records, replay_states, state_hash,
)
from tests.play.helpers import ALL_CONFIG_IDS, ALL_CONFIGS


def _random_game(game, seed: int):
    agents = [RandomAgent(seed * 10 + p) for p in range(game.num_players)]
    return play_game(game.new_state(np.random.default_rng(seed)), agents)


@pytest.mark.parametrize("case", ALL_CONFIGS, ids=ALL_CONFIG_IDS)
def test_log_then_replay_is_the_identical_game(case, tmp_path):
    env_id, config = case
    game = game_class(env_id)(**config)
    path = tmp_path / "log.jsonl"
    originals = []
    for seed in (4, 9):
        state = _random_game(game, seed)
        originals.append(state)
        seats = [{"kind": "random", "name": f"r{p}"} for p in range(game.num_players)]
        append_record(path, make_record(state, seats, seed))
    records = read_records(path)
    assert len(records) == 2
    for original, record in zip(originals, records):
        assert record["env_id"] == env_id and record["config"] == game.config.to_dict()
        assert [a["action"] for a in record["actions"]] == original.history
        states = list(replay_states(record))
        assert len(states) == len(original.history) + 1
        for i, s in enumerate(states):
            assert s.history == original.history[:i]
        for s, act in zip(states, record["actions"]):
            assert act["player"] == s.current_player
            assert act["name"] == s.action_name(act["action"])
        final = states[-1]
        assert final.to_json() == original.to_json()  # byte for byte, generator included
        assert record["final_state_sha256"] == state_hash(original)
        result = record["result"]
        if original.current_player is None and not original.truncated:
            assert result["finished"] and result["winners"] == original.winners()
            assert result["returns"] == original.returns()
            assert result["final_info"] == json.loads(json.dumps(original.final_info()))


def test_arena_games_can_be_logged(tmp_path):
    """The arena's on_game hook gives what make_record needs (evaluation writes logs this way)."""
    game = make_game("kabaleo_v0", num_players=2)
    path = tmp_path / "eval.jsonl"
    kinds = ["random", "random"]

    def log(state, seating, deal_seed):
        seats = [{"kind": kinds[i], "name": f"agent{i}"} for i in seating]
        append_record(path, make_record(state, seats, deal_seed))

    play_match(game, [lambda s: RandomAgent(s), lambda s: RandomAgent(s + 1)], deals=2, seed=5, on_game=log)
    records = read_records(path)
    assert len(records) == 4
    for record in records:
        list(replay_states(record))  # runs the final-state check


def test_make_record_checks_the_deal_seed_and_the_seats():
    game = make_game("kabaleo_v0", num_players=2)
    state = _random_game(game, 3)
    seats = [{"kind": "human"}, {"kind": "random"}]
    with pytest.raises(RecordError, match="does not replay from deal seed 4"):
        make_record(state, seats, 4)
    with pytest.raises(ValueError, match="kind='robot' is not one of"):
        make_record(state, [{"kind": "robot"}, {"kind": "random"}], 3)
    with pytest.raises(ValueError, match="needs its model_hash"):
        make_record(state, [{"kind": "model", "model_path": "m.zip"}, {"kind": "random"}], 3)
    with pytest.raises(ValueError, match="1 seat"):
        make_record(state, seats[:1], 3)
    record = make_record(state, [{"kind": "human", "name": "ann", "seed": 1}, {"kind": "random"}], 3,
                         meta={"ended": "finished"})
    assert record["seats"][0] == {
        "kind": "human", "name": "ann", "model_path": None, "model_hash": None, "seed": 1
    }
    assert record["seats"][1]["name"] == "random" and record["meta"] == {"ended": "finished"}
    # PolicyAgent.seat_info() spells the model's file and hash "path" and "hash"
    info = {"kind": "model", "name": "best", "path": "/m/best.zip", "hash": "ab" * 32}
    record = make_record(state, [info, {"kind": "random"}], 3)
    assert record["seats"][0] == {"kind": "model", "name": "best", "model_path": "/m/best.zip",
                                  "model_hash": "ab" * 32}


def test_unfinished_game_has_no_result_and_still_replays():
    game = make_game("kabaleo_v0", num_players=3)
    state = game.new_state(np.random.default_rng(8))
    for _ in range(5):
        state.apply(state.legal_actions()[0])
    record = make_record(state, [{"kind": "human"}] * 3, 8)
    assert record["result"] == {"finished": False, "truncated": False, "winners": [], "returns": [0.0] * 3,
                                "scores": None, "final_info": None}
    assert list(replay_states(record))[-1].to_json() == state.to_json()


def test_malformed_logs_name_the_file_and_line(tmp_path):
    game = make_game("kabaleo_v0", num_players=2)
    good = json.dumps(make_record(_random_game(game, 1), [{"kind": "random"}] * 2, 1))
    path = tmp_path / "bad.jsonl"
    path.write_text(good + "\n\n" + good + "\n{\"env_id\": \"kabaleo_v0\"\n")
    with pytest.raises(RecordError, match=rf"{path}, line 4: not a JSON game record"):
        read_records(path)
    path.write_text(good + "\n" + json.dumps({"env_id": "kabaleo_v0", "seed": 1}) + "\n")
    missing = r"line 2: not a kabenvs game record \(missing config, seats, actions, result\)"
    with pytest.raises(RecordError, match=missing):
        read_records(path)
    path.write_text("[1, 2]\n")
    with pytest.raises(RecordError, match="line 1: a game record must be a JSON object"):
        read_records(path)
    with pytest.raises(RecordError, match="no such game log"):
        read_records(tmp_path / "missing.jsonl")
    path.write_text(good + "\n\n")
    assert len(read_records(path)) == 1  # blank lines are fine


def test_tampered_record_does_not_replay():
    game = make_game("kabaleo_v0", num_players=2)
    record = make_record(_random_game(game, 2), [{"kind": "random"}] * 2, 2)
    wrong_player = json.loads(json.dumps(record))
    wrong_player["actions"][1]["player"] = wrong_player["actions"][0]["player"]
    with pytest.raises(RecordError, match="replay diverges at step 1: the log says player"):
        list(replay_states(wrong_player))
    renamed = json.loads(json.dumps(record))
    renamed["actions"][0]["name"] = "place purple on spot 99"
    with pytest.raises(RecordError, match="different version of the game"):
        list(replay_states(renamed))
    cut = json.loads(json.dumps(record))
    cut["actions"].pop()
    with pytest.raises(RecordError, match="different final state"):
        list(replay_states(cut))
    unknown = dict(record, env_id="nope_v0")
    with pytest.raises(RecordError, match="unknown env id 'nope_v0'"):
        list(replay_states(unknown))


def test_model_hash_is_the_file_content(tmp_path):
    a, b = tmp_path / "a.zip", tmp_path / "b.zip"
    a.write_bytes(b"weights-1")
    b.write_bytes(b"weights-1")
    assert model_hash(a) == model_hash(b) and len(model_hash(a)) == 64
    b.write_bytes(b"weights-2")
    assert model_hash(a) != model_hash(b)
