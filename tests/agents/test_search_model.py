"""search:model=PATH: a trained model's policy and value guide the search (PUCT)."""

from __future__ import annotations

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
    # the safe model keeps the policy only: the same probabilities, no value
    safe = model_prior(str(path.with_suffix("")), game)
    probs_safe, value_safe = safe(state, p)
    assert not safe.has_values and value_safe is None
    np.testing.assert_allclose(probs_safe, probs, rtol=1e-5, atol=1e-7)


def test_search_with_a_model_plays_legal_reproducible_moves(saved):
    path, game = saved
    state = game.new_state(np.random.default_rng(1))
    moves = set()
    for _ in range(2):
        agent = search_agent_from_spec(f"search:model={path.with_suffix('')},sims=12", game, seed=5)
        moves.add(agent.act(Decision(state.current_player, state)))
        assert agent.name == "search:sims=12,model=model"
        assert agent.leaf == "rollout"  # a safe model has no value head
        assert agent.last_iterations == 12
    assert len(moves) == 1 and moves <= set(state.legal_actions())
    rolled = search_agent_from_spec(f"search:model={path.with_suffix('')},sims=6,leaf=rollout", game, seed=5)
    assert rolled.act(Decision(state.current_player, state)) in state.legal_actions()
    with pytest.raises(ConfigError, match="value head"):
        search_agent_from_spec(f"search:model={path.with_suffix('')},sims=6,leaf=value", game, seed=5)
    with pytest.raises(ConfigError, match="trust-pickle|SB3|Stable-Baselines3|archive"):
        search_agent_from_spec(f"search:model={path},sims=6", game, seed=5)  # an archive: refused
