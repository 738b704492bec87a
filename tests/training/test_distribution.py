"""The learner's masked categorical distribution (training/distribution.py) against sb3-contrib's."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib")
import numpy as np
import torch
from sb3_contrib.common.maskable.distributions import MaskableCategorical, MaskableCategoricalDistribution

from training.distribution import LeanMaskableCategoricalDistribution, MaskedLogits

from .test_rollout_buffer import _model


def _batch(rows: int = 64, actions: int = 50, seed: int = 0):
    gen = np.random.default_rng(seed)
    logits = torch.as_tensor(gen.normal(0, 3, (rows, actions)), dtype=torch.float32)
    masks = gen.random((rows, actions)) < 0.2
    masks[0] = False
    masks[0, actions - 1] = True  # one legal action, the last
    masks[1] = True  # every action legal
    masks[2] = False
    masks[2, 0] = True  # one legal action, the first
    masks[np.flatnonzero(~masks.any(1)), 7] = True
    return logits, masks


@pytest.mark.parametrize("masked", [True, False])
def test_values_agree_with_sb3_contribs_distribution(masked):
    logits, masks = _batch()
    theirs = MaskableCategorical(logits=logits.clone(), masks=masks if masked else None)
    ours = MaskedLogits(logits.clone())
    ours.apply_masking(masks if masked else None)
    legal = torch.as_tensor(masks) if masked else torch.ones_like(logits, dtype=torch.bool)
    assert torch.allclose(ours.logits[legal], theirs.logits[legal], atol=2e-5, rtol=0)
    assert torch.allclose(ours.probs, theirs.probs, atol=1e-6, rtol=0)
    assert torch.all(ours.probs[~legal] == 0)
    assert torch.allclose(ours.entropy(), theirs.entropy(), atol=1e-5, rtol=0)
    actions = torch.as_tensor([np.flatnonzero(row)[-1] for row in legal.numpy()])
    assert torch.allclose(ours.log_prob(actions), theirs.log_prob(actions), atol=2e-5, rtol=0)
    assert torch.equal(ours.probs.argmax(1), theirs.probs.argmax(1))


def test_the_policys_losses_and_gradients_agree_with_sb3_contribs():
    model = _model("kabaal_v0", 2, 8, 8)
    policy = model.policy
    assert type(policy.action_dist) is LeanMaskableCategoricalDistribution  # set by make_model
    game_obs = torch.as_tensor(np.random.default_rng(1).random((32, policy.observation_space.shape[0])), dtype=torch.float32)
    masks = np.random.default_rng(2).random((32, policy.action_space.n)) < 0.1
    masks[:, 5] = True
    actions = torch.as_tensor([np.random.default_rng(r).choice(np.flatnonzero(m)) for r, m in enumerate(masks)])
    results = []
    for dist in (policy.action_dist, MaskableCategoricalDistribution(policy.action_space.n)):
        policy.action_dist = dist
        policy.zero_grad()
        values, log_prob, entropy = policy.evaluate_actions(game_obs, actions, action_masks=torch.as_tensor(masks))
        (-log_prob.mean() - 0.01 * entropy.mean() + values.pow(2).mean()).backward()
        results.append((log_prob.detach(), entropy.detach(), [p.grad.clone() for p in policy.parameters()]))
    (lp_a, ent_a, grads_a), (lp_b, ent_b, grads_b) = results
    assert torch.allclose(lp_a, lp_b, atol=2e-5, rtol=0) and torch.allclose(ent_a, ent_b, atol=2e-5, rtol=0)
    for a, b in zip(grads_a, grads_b):
        assert torch.allclose(a, b, atol=1e-6, rtol=1e-4)


def test_samples_follow_the_probabilities_and_never_take_an_illegal_action():
    logits, masks = _batch(rows=64, actions=50, seed=3)
    dist = MaskedLogits(logits)
    dist.apply_masking(masks)
    torch.manual_seed(0)
    draws = torch.stack([dist.sample() for _ in range(3000)])  # 3000 x 64
    assert masks[np.arange(64)[None, :], draws.numpy()].all()
    # the frequencies of each row's actions against its probabilities (a binomial z per action)
    probs = dist.probs.numpy()
    counts = np.stack([np.bincount(draws[:, r].numpy(), minlength=50) for r in range(64)])
    expected = 3000 * probs
    z = np.abs(counts - expected) / np.sqrt(np.maximum(expected * (1 - probs), 1e-12))
    assert z[probs > 0].max() < 5.5
    assert counts[probs == 0].sum() == 0


def test_the_ends_of_the_unit_interval_take_the_first_and_the_last_legal_action(monkeypatch):
    logits, masks = _batch(rows=64, actions=50, seed=4)
    masks[:, 0] = False  # the first action illegal everywhere: a draw of 0 must not take it
    masks[:, -1] = False
    masks[np.flatnonzero(~masks.any(1)), 7] = True
    dist = MaskedLogits(logits)
    dist.apply_masking(masks)
    first = np.array([np.flatnonzero(row)[0] for row in masks])
    last = np.array([np.flatnonzero(row)[-1] for row in masks])
    monkeypatch.setattr(torch, "rand", lambda shape, **kw: torch.zeros(shape, **kw))
    assert np.array_equal(dist.sample().numpy(), first)
    # u * total rounded up to the total itself: past every step of the CDF
    monkeypatch.setattr(torch, "rand", lambda shape, **kw: torch.ones(shape, **kw))
    assert np.array_equal(dist.sample().numpy(), last)


def test_a_seeded_run_samples_the_same_actions():
    logits, masks = _batch(seed=5)
    runs = []
    for _ in range(2):
        dist = LeanMaskableCategoricalDistribution(50).proba_distribution(logits)
        dist.apply_masking(masks)
        torch.manual_seed(11)
        runs.append(torch.stack([dist.get_actions() for _ in range(5)]))
    assert torch.equal(runs[0], runs[1])
    assert not torch.equal(runs[0][0], runs[0][1])  # (the draws do vary)
    best = torch.where(torch.as_tensor(masks), logits, torch.tensor(-np.inf)).argmax(1)
    assert torch.equal(dist.get_actions(deterministic=True), best)


def test_a_loaded_model_gets_it_only_from_prepare_learner_and_snapshots_still_copy(tmp_path):
    from sb3_contrib import MaskablePPO

    from training.build import prepare_learner
    from training.pool import _frozen_copy

    model = _model("kabaleo_v0", 2, 8, 8)
    model.learn(16)  # leaves a distribution holding autograd tensors on the policy
    snap = _frozen_copy(model.policy)
    assert type(snap.action_dist) is LeanMaskableCategoricalDistribution
    model.save(tmp_path / "m.zip")
    loaded = MaskablePPO.load(tmp_path / "m.zip", env=model.env)
    assert type(loaded.policy.action_dist) is MaskableCategoricalDistribution  # nothing of it saved
    prepare_learner(loaded)
    assert type(loaded.policy.action_dist) is LeanMaskableCategoricalDistribution
    loaded.learn(16)


def test_sampling_first_leaves_the_entropys_gradient_in_place():
    logits, masks = _batch(rows=8, actions=20, seed=6)
    raw = logits.clone().requires_grad_(True)
    dist = MaskedLogits(raw)
    dist.apply_masking(masks)
    dist.sample()  # reads (and keeps) the probabilities
    (grad,) = torch.autograd.grad(dist.entropy().sum(), [raw])
    fresh = logits.clone().requires_grad_(True)
    other = MaskedLogits(fresh)
    other.apply_masking(masks)
    (expected,) = torch.autograd.grad(other.entropy().sum(), [fresh])
    assert torch.allclose(grad, expected) and grad.abs().sum() > 0
