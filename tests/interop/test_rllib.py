"""kabenvs.interop.rllib: the RLlib multi-agent env, the masking RLModule and the export to the
safe model format (needs Ray RLlib; skipped without it). The training run is marked slow."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

import kabenvs  # noqa: E402
from kabenvs.agents.policy import load_agent, masked_logits, sample_decisions  # noqa: E402
from kabenvs.core.errors import IllegalActionError  # noqa: E402
from kabenvs.interop.rllib import KabenvsMultiAgentEnv, MaskedPPOTorchRLModule, export_safe_model  # noqa: E402


def _module(env):
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    spec = RLModuleSpec(module_class=MaskedPPOTorchRLModule, observation_space=env.observation_spaces["player_0"],
                        action_space=env.action_spaces["player_0"],
                        model_config={"fcnet_hiddens": [32, 32], "head_fcnet_hiddens": []})
    return spec.build()


def test_the_env_passes_rllibs_own_checks():
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    for env_id in kabenvs.ENV_IDS:
        check_multiagent_environments(KabenvsMultiAgentEnv({"env_id": env_id}))


@pytest.mark.parametrize("env_id", kabenvs.ENV_IDS)
def test_one_agent_acts_at_a_time_and_all_get_their_returns(env_id):
    env = KabenvsMultiAgentEnv({"env_id": env_id, "num_players": 2})
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(0)
    while True:
        (agent,) = obs
        seat = env.possible_agents.index(agent)
        assert env.state.current_player == seat
        assert np.array_equal(obs[agent]["observations"], env.state.observation(seat))
        assert np.array_equal(obs[agent]["action_mask"], env.state.legal_mask())
        obs, rewards, terms, truncs, _ = env.step({agent: int(rng.choice(env.state.legal_actions()))})
        if terms["__all__"] or truncs["__all__"]:
            break
        assert rewards == {agent: 0.0}  # RLlib wants a reward after every action of an agent
    returns = env.state.returns()
    assert rewards == {a: float(returns[i]) for i, a in enumerate(env.possible_agents)}


def test_an_illegal_action_loses_or_raises_and_changes_nothing():
    env = KabenvsMultiAgentEnv({"env_id": "kabaleo_v0"})
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    bad = int(np.flatnonzero(obs[agent]["action_mask"] == 0)[0])
    before = env.state.to_json()
    _, rewards, terms, _, infos = env.step({agent: bad})
    assert terms["__all__"] and rewards[agent] == -1.0 and sum(rewards.values()) == -1.0
    assert infos[agent]["illegal_action"] == repr(bad) and env.state.to_json() == before
    env = KabenvsMultiAgentEnv({"env_id": "kabaleo_v0", "illegal": "raise"})
    obs, _ = env.reset(seed=0)
    with pytest.raises(IllegalActionError):
        env.step({agent: bad})
    assert env.state.to_json() == before


def test_the_module_never_samples_an_illegal_action():
    from ray.rllib.core.columns import Columns

    env = KabenvsMultiAgentEnv({"env_id": "cabula_v0"})
    module = _module(env)
    obs, masks = sample_decisions(env.game, count=32, seed=0)
    batch = {Columns.OBS: {"observations": torch.as_tensor(obs), "action_mask": torch.as_tensor(masks, dtype=torch.float32)}}
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    for _ in range(20):
        acts = torch.distributions.Categorical(logits=logits).sample().numpy()
        assert masks[np.arange(len(acts)), acts].all()


def test_the_exported_safe_model_acts_exactly_like_the_module(tmp_path):
    from ray.rllib.core.columns import Columns

    env = KabenvsMultiAgentEnv({"env_id": "kabaleo_v0", "num_players": 3})
    module = _module(env)
    path = export_safe_model(module, tmp_path / "rl", "kabaleo_v0", num_players=3)
    agent = load_agent(path, env.game)
    obs, masks = sample_decisions(env.game, count=48, seed=2)
    batch = {Columns.OBS: {"observations": torch.as_tensor(obs), "action_mask": torch.as_tensor(masks, dtype=torch.float32)}}
    with torch.no_grad():
        expected = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
    got = masked_logits(agent.policy, obs, masks)
    legal = masks.astype(bool)
    assert np.allclose(got[legal], expected[legal], atol=1e-5)
    assert np.array_equal(got.argmax(1), expected.argmax(1))
    assert agent.metadata["trained_with"] == "ray rllib"


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray for all training tests (starting one takes a while on a busy machine)."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    yield ray
    ray.shutdown()


@pytest.mark.slow
@pytest.mark.parametrize("env_id, players", [(e, 2) for e in kabenvs.ENV_IDS] + [("cabula_v0", 4)])
def test_a_few_self_play_iterations_on_local_ray_give_a_loadable_model(env_id, players, tmp_path, capsys, local_ray):
    from kabenvs.commands import evaluate
    from kabenvs.interop.rllib import self_play_config

    config = (self_play_config(env_id, hidden=(32,), num_players=players).env_runners(num_env_runners=0)
              .training(train_batch_size_per_learner=128, minibatch_size=64, num_epochs=1))
    algo = config.build_algo()
    try:
        for _ in range(2):
            result = algo.train()
        assert result["num_env_steps_sampled_lifetime"] >= 256
        path = export_safe_model(algo.get_module("main"), tmp_path / "rl", env_id, num_players=players)
    finally:
        algo.stop()
    assert evaluate.main([str(path), "random", "--deals", "2", "--json"]) == 0
    assert '"games": ' in capsys.readouterr().out


@pytest.mark.parametrize("cls, config, words", [
    ("multi", {"illegal_reward": "x"}, "illegal_reward='x'"),
    ("multi", {"illegal_reward": float("nan")}, "illegal_reward=nan"),
    ("multi", {"illegal": ["lose"]}, "illegal=['lose']"),
    ("self", {"opponents": "self"}, "opponents='self'"),
    ("self", {"opponents": {"self": "x"}}, "opponents['self']='x'"),
    ("self", {"opponents": {"self": float("inf")}}, "opponents['self']=inf"),
    ("self", {"opponents": {"self": -1, "random": 1}}, "opponents['self']=-1"),
    ("self", {"opponents": {"self": 0}}, "not all 0"),
    ("self", {"opponents": {"bots": 1}}, "opponents={'bots': 1}"),
    ("self", {"max_snapshots": "x"}, "max_snapshots='x'"),
    ("self", {"max_snapshots": -3}, "max_snapshots=-3"),
    ("self", {"seed": -1}, "seed"),
])
def test_bad_env_configs_are_one_line_config_errors(cls, config, words):
    """Found by an audit: bare ValueErrors not naming the key, an AttributeError, a NaN weight that
    failed only at reset, negative counts accepted."""
    from kabenvs.core.errors import ConfigError
    from kabenvs.interop.rllib import KabenvsMultiAgentEnv, KabenvsSelfPlayEnv

    env_cls = KabenvsMultiAgentEnv if cls == "multi" else KabenvsSelfPlayEnv
    with pytest.raises(ConfigError) as err:
        env_cls({"env_id": "kabaleo_v0", **config})
    assert words in str(err.value) and "\n" not in str(err.value)
    env = KabenvsSelfPlayEnv({"env_id": "kabaleo_v0", "opponents": {"snapshots": 1}, "max_snapshots": 2,
                              "snapshots_ready": 5})
    assert env.snapshots_ready == 2  # clamped to what there can be
    with pytest.raises(RuntimeError, match="reset"):
        KabenvsMultiAgentEnv({"env_id": "kabaleo_v0"}).step({"player_0": 0})
