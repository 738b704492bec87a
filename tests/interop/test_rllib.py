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
from kabenvs.interop.rllib import (  # noqa: E402
    KabenvsMultiAgentEnv,
    MaskedCategorical,
    MaskedPPOTorchRLModule,
    export_safe_model,
)


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


def _masked_logits(module, env, count=96, seed=4):
    """The module's masked logits (with their graph) on real decisions, the first row with every
    action legal and the second with none (the all-zero mask of a seat that is not to move)."""
    from ray.rllib.core.columns import Columns

    obs, masks = sample_decisions(env.game, count=count, seed=seed)
    masks[0], masks[1] = 1, 0
    batch = {Columns.OBS: {"observations": torch.as_tensor(obs), "action_mask": torch.as_tensor(masks, dtype=torch.float32)}}
    return module.forward_train(batch)[Columns.ACTION_DIST_INPUTS], masks.astype(bool)


def test_the_module_never_samples_an_illegal_action():
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical

    env = KabenvsMultiAgentEnv({"env_id": "kabaal_v0"})
    module = _module(env)
    obs, masks = sample_decisions(env.game, count=32, seed=0)
    batch = {Columns.OBS: {"observations": torch.as_tensor(obs), "action_mask": torch.as_tensor(masks, dtype=torch.float32)}}
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    torch.manual_seed(0)
    draws = module.get_exploration_action_dist_cls().from_logits(logits).sample(sample_shape=(3000,)).numpy()
    assert masks[np.arange(32)[None, :], draws].all()
    # each row's frequencies against RLlib's own categorical's probabilities (a binomial z per action)
    probs = TorchCategorical.from_logits(logits)._dist.probs.detach().numpy()
    counts = np.stack([np.bincount(draws[:, r], minlength=probs.shape[1]) for r in range(32)])
    z = np.abs(counts - 3000 * probs) / np.sqrt(np.maximum(3000 * probs * (1 - probs), 1e-12))
    assert z[probs > 0].max() < 5.5 and counts[probs == 0].sum() == 0


def test_the_module_normalises_with_the_masked_distribution_everywhere():
    module = _module(KabenvsMultiAgentEnv({"env_id": "kabaal_v0"}))
    assert module.get_inference_action_dist_cls() is MaskedCategorical
    assert module.get_exploration_action_dist_cls() is MaskedCategorical
    assert module.get_train_action_dist_cls() is MaskedCategorical


def test_the_masked_distribution_agrees_with_rllibs_torch_categorical():
    from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical

    env = KabenvsMultiAgentEnv({"env_id": "kabaal_v0"})
    logits, legal = _masked_logits(_module(env), env)
    torch.manual_seed(0)
    with torch.no_grad():  # a previous policy for the KL: other logits, the same masks
        prev = logits + torch.randn_like(logits)
    ours, theirs = MaskedCategorical.from_logits(logits), TorchCategorical.from_logits(logits)
    for row, legal_row in enumerate(legal):  # the log-probability of every legal action of every row
        if legal_row.any():
            actions = torch.as_tensor(np.flatnonzero(legal_row))
            rows = logits[row].expand(len(actions), -1)
            assert torch.allclose(MaskedCategorical.from_logits(rows).logp(actions),
                                  TorchCategorical.from_logits(rows).logp(actions), atol=2e-5, rtol=0)
    probs = ours._dist.probs
    assert torch.allclose(probs, theirs._dist.probs, atol=1e-6, rtol=0)
    assert torch.all(probs[2:][torch.as_tensor(~legal[2:])] == 0)  # illegal: 0 exactly
    some = torch.as_tensor(legal.any(1))
    assert torch.allclose(ours.entropy()[some], theirs.entropy()[some], atol=2e-5, rtol=0)
    assert torch.allclose(MaskedCategorical.from_logits(prev).kl(ours)[some],
                          TorchCategorical.from_logits(prev).kl(theirs)[some], atol=2e-5, rtol=0)
    # No legal action (RLlib's PPO meets one only in the loss-masked row it adds after a game's last
    # observation): uniform, as the probabilities were before; the log-probabilities now say so too
    # (logits - logsumexp(logits) gave 0 for every action, log(n) lost against -3.4e38).
    n = legal.shape[1]
    assert torch.allclose(probs[1], torch.full((n,), 1 / n)) and torch.allclose(theirs._dist.probs[1], probs[1])
    assert torch.allclose(ours._dist.logits[1], torch.full((n,), -np.log(n), dtype=torch.float32))
    assert torch.allclose(ours.entropy()[1], torch.tensor(np.log(n), dtype=torch.float32))
    greedy = ours.to_deterministic().sample()
    assert torch.equal(greedy, theirs.to_deterministic().sample())
    assert torch.equal(greedy[2:], torch.where(torch.as_tensor(legal[2:]), logits[2:], -torch.inf).argmax(1))


def test_the_ppo_loss_terms_and_their_gradients_agree_with_rllibs_torch_categorical():
    """What RLlib's PPO learner reads from its distributions (the taken actions' log-probabilities,
    the entropy, the KL from the exploration distribution), back through the module's weights; the
    row with no legal action is left out of the loss, as the learner's loss mask leaves it out."""
    from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical

    env = KabenvsMultiAgentEnv({"env_id": "kabaal_v0"})
    module = _module(env)
    results = []
    for cls in (MaskedCategorical, TorchCategorical):
        module.zero_grad()
        logits, legal = _masked_logits(module, env)
        rng = np.random.default_rng(5)
        actions = torch.as_tensor([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in legal])
        torch.manual_seed(0)
        with torch.no_grad():
            prev = cls.from_logits(logits + 0.5 * torch.randn_like(logits))
        dist = cls.from_logits(logits)
        some = torch.as_tensor(legal.any(1))
        terms = [dist.logp(actions)[some], dist.entropy()[some], prev.kl(dist)[some]]
        (-terms[0].mean() - 0.01 * terms[1].mean() + 0.2 * terms[2].mean()).backward()
        results.append(([t.detach() for t in terms], [p.grad.clone() for p in module.parameters() if p.grad is not None]))
    (terms_a, grads_a), (terms_b, grads_b) = results
    for a, b in zip(terms_a, terms_b):
        assert torch.allclose(a, b, atol=2e-5, rtol=0)
    assert len(grads_a) == len(grads_b) > 0
    for a, b in zip(grads_a, grads_b):
        assert torch.allclose(a, b, atol=1e-6, rtol=1e-4)


def test_the_masked_distribution_never_runs_logsumexp(monkeypatch):
    """logsumexp of the masked logits is the slow path (torch's CPU exp on every -3.4e38): neither
    the distribution's normalisation nor its backward may run it."""
    env = KabenvsMultiAgentEnv({"env_id": "kabaal_v0"})
    logits, legal = _masked_logits(_module(env), env)

    def refuse(*args, **kwargs):
        raise AssertionError("logsumexp ran")

    monkeypatch.setattr(torch.Tensor, "logsumexp", refuse)
    monkeypatch.setattr(torch, "logsumexp", refuse)
    dist, prev = MaskedCategorical.from_logits(logits), MaskedCategorical.from_logits(logits.detach())
    actions = torch.as_tensor([int(np.flatnonzero(m)[0]) if m.any() else 0 for m in legal])
    (dist.logp(actions).sum() + dist.entropy().sum() + prev.kl(dist).sum()).backward()


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
