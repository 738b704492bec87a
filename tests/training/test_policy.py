"""Saving and loading trained models; a model for another game/config fails clearly.

The safe format itself (hash check, payload archives, fingerprints, export) is tested in
test_model_safety.py."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from kabenvs.agents.base import Decision
from kabenvs.agents.policy import ModelLoadError, PolicyAgent, load_agent, model_hash, save_model
from kabenvs.core.errors import KabenvsError
from kabenvs.core.registry import make_game
from training.build import make_env, make_model, make_pool
from training.config import validate


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    cfg = validate({
        "game": {"env_id": "kabaleo_v0", "num_players": 2},
        "algorithm": {"n_envs": 2, "n_steps": 8, "batch_size": 16},
        "self_play": {"opponents": {"random": 1.0}},
    })
    game = make_game("kabaleo_v0", num_players=2)
    env = make_env(cfg, game, make_pool(cfg, game, warn=False))
    model = make_model(cfg, env)
    path = save_model(model, tmp_path_factory.mktemp("m") / "model.zip", game)
    return model, path, game


def test_save_writes_model_and_metadata(saved):
    model, path, game = saved
    meta = json.loads(path.with_suffix(".json").read_text())
    weights = path.with_suffix(".safetensors")
    assert meta["format"] == "kabenvs-model/2"
    assert meta["env_id"] == "kabaleo_v0"
    assert meta["game_config"] == {"num_players": 2, "mode": "random", "reward": "win"}
    assert meta["observation_size"] == game.observation_size
    assert meta["num_actions"] == game.num_actions
    assert meta["kabenvs_version"]
    assert meta["sha256"] == hashlib.sha256(weights.read_bytes()).hexdigest() == model_hash(weights)
    assert meta["archive_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest() == model_hash(path)
    assert meta["network"] == {"trunk": {"size": 128, "activation": "relu"}, "hidden": [64], "activation": "relu"}


@pytest.mark.parametrize("how", ["safe", "trusted archive"])
def test_loaded_agent_plays_like_the_saved_policy(saved, how):
    model, path, game = saved
    if how == "safe":
        agent = load_agent(path.with_suffix(".safetensors"), game, seed=0)
        assert agent.model_hash == model_hash(path.with_suffix(".safetensors"))
    else:  # the opt-in path for SB3 archives
        agent = load_agent(path, game, seed=0, trust_pickle=True)
        assert agent.model_hash == model_hash(path)
    assert isinstance(agent, PolicyAgent)
    assert agent.seat_info()["kind"] == "model"
    state = game.new_state(np.random.default_rng(5))
    for _ in range(10):
        d = Decision(state.current_player, state)
        expected, _ = model.predict(d.observation, action_masks=d.action_mask, deterministic=True)
        a = agent.act(d)
        assert a == int(expected)
        assert state.is_legal(a)
        state.apply(a)
    # also by env id and by the bare name (the safe model)
    assert load_agent(str(path)[:-4], "kabaleo_v0").act(Decision(state.current_player, state)) >= 0


def test_model_for_another_config_is_refused_naming_both(saved):
    _, path, _ = saved
    path = path.with_suffix(".safetensors")
    with pytest.raises(ModelLoadError) as err:
        load_agent(path, make_game("kabaleo_v0", num_players=3))
    msg = str(err.value)
    assert "num_players=2" in msg and "num_players=3" in msg
    two, three = (make_game("kabaleo_v0", num_players=k).observation_size for k in (2, 3))
    assert two != three
    assert f"observation size {two}" in msg and f"observation size {three}" in msg
    assert isinstance(err.value, KabenvsError) and isinstance(err.value, ValueError)
    with pytest.raises(ModelLoadError, match="mode='equitable'"):
        load_agent(path, make_game("kabaleo_v0", num_players=2, mode="equitable"))


def test_model_for_another_game_is_refused(saved, tmp_path):
    _, path, _ = saved
    other = tmp_path / "other.safetensors"
    other.write_bytes(path.with_suffix(".safetensors").read_bytes())
    meta = json.loads(path.with_suffix(".json").read_text())
    meta["env_id"] = "cabula_v0"
    other.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(ModelLoadError, match="cabula_v0.*kabaleo_v0"):
        load_agent(other, make_game("kabaleo_v0"))


def test_missing_and_broken_files_give_clear_errors(saved, tmp_path):
    _, path, game = saved
    weights = path.with_suffix(".safetensors")
    with pytest.raises(ModelLoadError, match="does not exist"):
        load_agent(tmp_path / "nope", game)
    with pytest.raises(ModelLoadError, match="does not exist"):
        load_agent(tmp_path / "nope.zip", game, trust_pickle=True)
    lonely = tmp_path / "lonely.safetensors"
    lonely.write_bytes(weights.read_bytes())
    with pytest.raises(ModelLoadError, match="no metadata file"):
        load_agent(lonely, game)
    broken = tmp_path / "broken.zip"  # a trusted archive that is no archive at all
    broken.write_bytes(b"not a zip at all")
    meta = json.loads(path.with_suffix(".json").read_text())
    meta["archive_sha256"] = hashlib.sha256(b"not a zip at all").hexdigest()
    broken.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(ModelLoadError, match="cannot read model file"):
        load_agent(broken, game, trust_pickle=True)
    bad_meta = tmp_path / "badmeta.safetensors"
    bad_meta.write_bytes(weights.read_bytes())
    bad_meta.with_suffix(".json").write_text("{ not json")
    with pytest.raises(ModelLoadError, match="metadata file .* is broken"):
        load_agent(bad_meta, game)


def test_import_kabenvs_does_not_import_torch():
    code = (
        "import sys, kabenvs, kabenvs.agents, kabenvs.agents.policy\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
        "assert 'stable_baselines3' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(__import__("pathlib").Path(__file__).parents[2]))
