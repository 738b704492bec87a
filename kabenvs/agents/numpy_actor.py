"""A policy's acting half in numpy, for the training opponents' small batches.

Self-play asks the opponents' networks for one to a few decisions at a time. There torch's first
layer reads its whole weight matrix (thousands of input columns x the trunk) for a handful of rows
that are mostly zero, and each module call has its own overhead: 70-200 us for one to eight rows
of Alakazum!. The same layers in numpy, the first one reading only the weight rows of the input
columns some row uses (the weights kept transposed, so those rows are contiguous), take 10-25 us.
The logits agree with torch's to float rounding (a sum in another order), not bit for bit, so this
serves the training opponents, whose moves are samples anyway; evaluations and play keep torch's
product (``policy.masked_logits``), bit for bit as saved models always acted.

A copy of the weights is cached per policy and rebuilt when they may have changed: when a tensor
was edited in place (its version counter) or, for weights that train, after any optimizer step
(torch's fused Adam does not bump the version counter)."""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from .safe_model import ModelLoadError, actor_of_sb3_policy

_ACTIVATIONS = {"relu": lambda h: np.maximum(h, 0.0, out=h), "tanh": lambda h: np.tanh(h, out=h)}


class NumpyActor:
    """Observation batch -> action logits through Linear + activation layers and a linear head."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray, str | None]]) -> None:
        # (weights transposed to (inputs, outputs), bias, activation or None for the head)
        self.layers = layers

    @classmethod
    def from_tensors(cls, network: dict[str, Any], tensors: dict[str, Any]) -> "NumpyActor":
        """From the safe format's description of an actor (``actor_of_sb3_policy``)."""

        def linear(prefix: str):
            w = tensors[f"{prefix}.weight"].numpy()
            return np.ascontiguousarray(w.T, dtype=np.float32), tensors[f"{prefix}.bias"].numpy().astype(np.float32)

        layers = []
        if network["trunk"] is not None:
            layers.append((*linear("trunk"), network["trunk"]["activation"]))
        for i in range(len(network["hidden"])):
            layers.append((*linear(f"hidden.{i}"), network["activation"]))
        layers.append((*linear("action"), None))
        return cls(layers)

    def logits(self, observations: np.ndarray) -> np.ndarray:
        obs = np.asarray(observations, dtype=np.float32)
        (w, b, act), rest = self.layers[0], self.layers[1:]
        used = np.flatnonzero(obs.any(axis=0))  # a zero column adds nothing to the product
        h = obs[:, used] @ w[used] + b
        for w, b, next_act in rest:
            if act is not None:
                _ACTIVATIONS[act](h)
            h = h @ w + b
            act = next_act
        return h  # the head's output: no activation (from_tensors always ends with the head)


_steps = 0  # optimizer steps taken in this process (any optimizer), once counting has begun
_counting = False
# per policy: (its parameters, the key of the weights copied, the copy)
_cache: "weakref.WeakKeyDictionary[Any, tuple[list, tuple, NumpyActor | None]]" = weakref.WeakKeyDictionary()


def _count_step(optimizer, args, kwargs) -> None:
    global _steps
    _steps += 1


def _count_optimizer_steps() -> None:
    global _counting
    if not _counting:
        from torch.optim.optimizer import register_optimizer_step_post_hook

        register_optimizer_step_post_hook(_count_step)
        _counting = True


def numpy_actor(policy) -> NumpyActor | None:
    """The numpy copy of an SB3 actor-critic policy's acting half (built once per change of its
    weights), or None where it does not apply (weights off the CPU when the copy would be built,
    an architecture the safe format does not describe): the caller then uses torch. A
    ``NumpyActor`` is its own copy (a self-play worker's opponents, training/parallel_selfplay.py)."""
    if isinstance(policy, NumpyActor):
        return policy
    _count_optimizer_steps()
    cached = _cache.get(policy)
    # The parameter list is looked up once per policy (SB3 walks its modules for it: ~10 us a
    # call). Weights are loaded and trained in place (copy_, optimizer steps), never by swapping
    # Parameter objects, so the list stays the policy's.
    params = cached[0] if cached is not None else list(policy.parameters())
    key = (tuple(p._version for p in params), _steps if any(p.requires_grad for p in params) else 0)
    if cached is not None and cached[1] == key:
        # (the weights' device is checked only when the copy is built: a copy of the same
        # weights stays right wherever they moved since, and weights that train on a GPU are
        # stepped by an optimizer, which forces the check again)
        return cached[2]
    if not params or any(p.device.type != "cpu" for p in params):
        _cache[policy] = (params, key, None)
        return None
    try:
        actor = NumpyActor.from_tensors(*actor_of_sb3_policy(policy))
    except (ModelLoadError, AttributeError):
        actor = None
    _cache[policy] = (params, key, actor)
    return actor


def opponent_actions(
    policy, observations: np.ndarray, masks: np.ndarray, deterministic: bool, rng: np.random.Generator | None,
) -> np.ndarray:
    """``policy.policy_actions`` through the numpy actor where it applies (training opponents)."""
    from .policy import choose_actions, policy_actions

    actor = numpy_actor(policy)
    if actor is None:
        return policy_actions(policy, observations, masks, deterministic, rng)
    return choose_actions(np.where(masks.astype(bool), actor.logits(observations), -np.inf), deterministic, rng)
