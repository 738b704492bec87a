"""search:model=PATH: a trained model's policy and value guide the search (PUCT)."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from kabenvs.agents.base import Decision
from kabenvs.agents.policy import save_model
from kabenvs.agents.search import model_prior, search_agent_from_spec
from kabenvs.core.errors import ConfigError
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
    path = save_model(make_model(cfg, env), tmp_path_factory.mktemp("m") / "model.zip", game)
    return path, game


def test_model_prior_gives_a_policy_over_the_legal_moves_and_a_value(saved):
    path, game = saved
    state = game.new_state(np.random.default_rng(0))
    p = state.current_player
    legal = state.legal_actions()
    # a trusted SB3 archive brings its critic: a policy and values
    prior = model_prior(str(path), game, trust_pickle=True)
    probs, value = prior(state, p)
    assert prior.has_values
    assert probs.sum() == pytest.approx(1.0) and probs[legal].sum() == pytest.approx(1.0)
    assert np.isfinite(value)
    none, other = prior(state, 1 - p)  # another seat: only its value
    assert none is None and np.isfinite(other)
    # the safe model training writes keeps the critic too: the same probabilities and values
    safe = model_prior(str(path.with_suffix("")), game)
    probs_safe, value_safe = safe(state, p)
    assert safe.has_values
    np.testing.assert_allclose(probs_safe, probs, rtol=1e-5, atol=1e-7)
    assert value_safe == pytest.approx(value, abs=1e-6)
    assert safe(state, 1 - p)[1] == pytest.approx(other, abs=1e-6)
    # one without the critic (an older file): the policy only
    old = model_prior(str(actor_only(path, path.parent / "old")), game)
    assert not old.has_values and old(state, p)[1] is None
    np.testing.assert_allclose(old(state, p)[0], probs, rtol=1e-5, atol=1e-7)


def actor_only(path, out):
    """A copy of the safe model next to ``path`` as kabenvs wrote it before the critic was stored:
    no value tensors, no ``value_network`` in the metadata (hash kept honest)."""
    from safetensors.torch import load, save

    stem = path.with_suffix("")
    tensors = {k: v for k, v in load(stem.with_suffix(".safetensors").read_bytes()).items()
               if not k.startswith("value")}
    data = save(tensors)
    meta = json.loads(stem.with_suffix(".json").read_text())
    del meta["value_network"]
    meta["sha256"] = hashlib.sha256(data).hexdigest()
    out.with_suffix(".safetensors").write_bytes(data)
    out.with_suffix(".json").write_text(json.dumps(meta))
    return out


def test_search_with_a_model_plays_legal_reproducible_moves(saved):
    path, game = saved
    state = game.new_state(np.random.default_rng(1))
    for leaf in ("value", "rollout"):
        moves, stats = set(), []
        for _ in range(2):
            agent = search_agent_from_spec(f"search:model={path.with_suffix('')},sims=12,leaf={leaf}", game, seed=5)
            moves.add(agent.act(Decision(state.current_player, state)))
            stats.append(agent.last_stats)
            assert agent.leaf == leaf and agent.last_iterations == 12
        assert len(moves) == 1 and moves <= set(state.legal_actions())
        assert stats[0] == stats[1]  # the whole search is reproducible, not just its answer
    # leaf=value is the default with a model whose safe file holds the critic
    agent = search_agent_from_spec(f"search:model={path.with_suffix('')},sims=6", game, seed=5)
    assert agent.name == "search:sims=6,model=model" and agent.leaf == "value"
    # a whole short game: every move legal
    s = game.new_state(np.random.default_rng(2))
    for _ in range(30):
        if s.current_player is None:
            break
        a = agent.act(Decision(s.current_player, s))
        assert a in s.legal_actions()
        s.apply(a)
    with pytest.raises(ConfigError, match="trust-pickle|SB3|Stable-Baselines3|archive"):
        search_agent_from_spec(f"search:model={path},sims=6", game, seed=5)  # an archive: refused


def test_a_safe_model_without_a_critic_still_plays_and_refuses_leaf_value(saved, tmp_path):
    path, game = saved
    old = actor_only(path, tmp_path / "old")
    state = game.new_state(np.random.default_rng(1))
    agent = search_agent_from_spec(f"search:model={old},sims=6", game, seed=5)
    assert agent.leaf == "rollout"  # no value head: leaves are rolled out
    assert agent.act(Decision(state.current_player, state)) in state.legal_actions()
    with pytest.raises(ConfigError, match="value head") as err:
        search_agent_from_spec(f"search:model={old},sims=6,leaf=value", game, seed=5)
    assert "\n" not in str(err.value)


def test_safe_values_equal_the_policys_predict_values(saved):
    import torch as th

    from kabenvs.agents.policy import load_agent, load_sb3_model, policy_values, sample_decisions

    path, game = saved
    model, _ = load_sb3_model(path, game, trust_pickle=True)
    model.policy.set_training_mode(False)
    obs, _ = sample_decisions(game, count=32, seed=4)
    with th.no_grad():
        want = model.policy.predict_values(th.as_tensor(obs)).numpy().reshape(-1)
    network = load_agent(path.with_suffix(""), game).policy
    assert network.has_value
    np.testing.assert_array_equal(policy_values(network, obs), want)
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["value_network"] == {"hidden": [64], "activation": "relu"}


def test_a_tampered_value_tensor_fails_the_hash_check(saved, tmp_path):
    from safetensors.torch import load, save

    from kabenvs.agents.policy import load_agent
    from kabenvs.agents.safe_model import ModelLoadError

    path, game = saved
    stem = path.with_suffix("")
    tensors = load(stem.with_suffix(".safetensors").read_bytes())
    tensors["value.bias"] = tensors["value.bias"] + 1.0  # only the critic changes
    (tmp_path / "t.safetensors").write_bytes(save(tensors))
    (tmp_path / "t.json").write_text(stem.with_suffix(".json").read_text())
    with pytest.raises(ModelLoadError, match="do not match their metadata"):
        load_agent(tmp_path / "t", game)
    with pytest.raises(ConfigError, match="do not match their metadata"):
        search_agent_from_spec(f"search:model={tmp_path / 't'},sims=6", game, seed=5)


@pytest.mark.parametrize("trunk", [0, 16])
def test_one_pass_logits_and_values_equal_the_two_calls_bit_for_bit(trunk, tmp_path):
    """A search leaf asks for both in one pass (the trunk once): the same numbers, bit for bit."""
    from kabenvs.agents.policy import (
        load_agent, load_sb3_model, masked_logits, policy_logits_and_values, policy_values, sample_decisions,
    )

    cfg = validate({
        "game": {"env_id": "kabaal_v0", "num_players": 2},
        "algorithm": {"n_envs": 2, "n_steps": 8, "batch_size": 16, "trunk": trunk, "net_arch": [12]},
        "self_play": {"opponents": {"random": 1.0}},
    })
    game = make_game("kabaal_v0", num_players=2)
    env = make_env(cfg, game, make_pool(cfg, game, warn=False))
    path = save_model(make_model(cfg, env), tmp_path / "model.zip", game)
    model, _ = load_sb3_model(path, game, trust_pickle=True)
    model.policy.set_training_mode(False)
    network = load_agent(path.with_suffix(""), game).policy
    assert network.shared == (2 if trunk else 0)
    older = load_agent(actor_only(path, tmp_path / "old"), game).policy  # no critic
    obs, masks = sample_decisions(game, count=24, seed=7)
    for policy in (model.policy, network, older):
        logits, values = policy_logits_and_values(policy, obs, masks)
        assert np.array_equal(logits, masked_logits(policy, obs, masks))
        expected = policy_values(policy, obs)
        if expected is None:
            assert values is None and policy is older
        else:
            assert np.array_equal(values, expected)
