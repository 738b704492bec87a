"""MaskablePPO's masked categorical distribution, computed without torch's slow paths.

sb3-contrib's ``MaskableCategorical`` sets illegal actions' logits to -1e8 and normalises them
with ``logsumexp``; torch's CPU ``exp`` (which ``logsumexp``, its backward and ``Categorical``'s
``probs`` run) leaves its vectorised path for inputs below about -88, so over 512 x 189 logits
(Kabaal) one normalisation took ~1.0 ms where ``log_softmax`` of the same numbers takes ~0.1.
It also builds the distribution twice (before and after the mask), validates its arguments and
samples with ``torch.multinomial`` (~2 ms at 512 x 200, ~0.3 ms for a rollout batch of 64).

This one keeps sb3-contrib's interface and meaning: the same -1e8 for illegal actions, the
log-probabilities of the masked logits, the entropy over legal actions only, an exact sample of
the categorical (inverse CDF on torch's generator, so a seeded run repeats itself). The numbers
agree with sb3-contrib's to float rounding (``log_softmax`` subtracts the maximum before the
sum, ``logsumexp`` adds it back after), which tests/training/test_distribution.py checks, with
the gradients, and that a sample never lands on an illegal action. It is set on a model by
``training/build.py: prepare_learner`` at run time and never saved with it: only learning uses
it (evaluations, play and export act from the policy's logits, ``kabenvs/agents/policy.py``)."""

from __future__ import annotations

import torch as th
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution

HUGE_NEG = -1e8  # sb3-contrib's logit for an illegal action


class MaskedLogits:
    """The distribution over one batch of logits, masked or not (what sb3-contrib's wrapper keeps
    as its ``distribution``: ``logits`` normalised, ``probs``, ``masks``)."""

    def __init__(self, raw: th.Tensor):
        self._raw = raw
        self.masks: th.Tensor | None = None
        self._masked_raw: th.Tensor | None = None  # the logits with -1e8 on illegal actions
        self._logits: th.Tensor | None = None
        self._probs: th.Tensor | None = None

    def apply_masking(self, masks) -> None:
        if masks is None:
            self.masks = None
        else:
            self.masks = th.as_tensor(masks, dtype=th.bool, device=self._raw.device).reshape(self._raw.shape)
        self._masked_raw = self._logits = self._probs = None

    def _masked(self) -> th.Tensor:
        # once for both the log-probabilities and the probabilities
        if self._masked_raw is None:
            raw = self._raw
            self._masked_raw = raw if self.masks is None else th.where(
                self.masks, raw, th.tensor(HUGE_NEG, dtype=raw.dtype, device=raw.device))
        return self._masked_raw

    @property
    def logits(self) -> th.Tensor:
        if self._logits is None:
            self._logits = th.log_softmax(self._masked(), dim=-1)
        return self._logits

    @property
    def probs(self) -> th.Tensor:
        if self._probs is None:
            # softmax's own kernel, not exp(logits): exp would take the slow path on every -1e8
            self._probs = th.softmax(self._masked(), dim=-1)
        return self._probs

    def log_prob(self, actions: th.Tensor) -> th.Tensor:
        return self.logits.gather(-1, actions.long().reshape(-1, 1)).reshape(actions.shape[:1])

    def entropy(self) -> th.Tensor:
        if self.masks is None:
            logits = th.clamp(self.logits, min=th.finfo(self.logits.dtype).min)
            return -(logits * self.probs).sum(-1)
        # an illegal action's -1e8 times its probability 0 adds nothing, as in sb3-contrib
        p_log_p = th.where(self.masks, self.logits * self.probs, th.zeros((), dtype=self._raw.dtype, device=self._raw.device))
        return -p_log_p.sum(-1)

    def sample(self) -> th.Tensor:
        # Inverse CDF: the first action whose cumulative probability exceeds u * total. An illegal
        # action has probability 0 exactly (exp(-1e8 - max) is 0 in float32), so it never ends a
        # step of the CDF; the one case past the end (u * total rounded up to total) takes the
        # last legal action.
        # (detached, not under no_grad: the probabilities are kept for a later entropy, which
        # may need their gradient)
        probs = self.probs.detach()
        cdf = probs.cumsum(-1)
        u = th.rand(cdf.shape[:-1] + (1,), dtype=cdf.dtype, device=cdf.device) * cdf[..., -1:]
        actions = th.searchsorted(cdf, u, right=True).squeeze(-1)
        past = actions >= probs.shape[-1]
        if bool(past.any()):
            last_legal = probs.shape[-1] - 1 - (probs.flip(-1) > 0).to(th.int8).argmax(-1)
            actions = th.where(past, last_legal, actions)
        return actions


class LeanMaskableCategoricalDistribution(MaskableCategoricalDistribution):
    """sb3-contrib's ``MaskableCategoricalDistribution`` with ``MaskedLogits`` inside."""

    distribution: MaskedLogits  # type: ignore[assignment]

    def proba_distribution(self, action_logits: th.Tensor) -> "LeanMaskableCategoricalDistribution":
        self.distribution = MaskedLogits(action_logits.view(-1, self.action_dim))
        return self


def use_lean_distribution(policy) -> None:
    """Give an sb3-contrib maskable policy (new or loaded) the distribution above in place of
    sb3-contrib's categorical one; any other distribution is left as it is."""
    dist = getattr(policy, "action_dist", None)
    if type(dist) is MaskableCategoricalDistribution:
        policy.action_dist = LeanMaskableCategoricalDistribution(dist.action_dim)
