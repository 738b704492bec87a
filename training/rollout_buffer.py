"""MaskablePPO's rollout buffer without its two bulk copies per update, nor a fresh allocation
per rollout.

SB3's buffer copies every array of a rollout once into env-major order before the first minibatch
(``swap_and_flatten``: 4096 observations of thousands of floats each, 14-28 ms a rollout here) and
then copies every minibatch twice (numpy's gather, then ``th.tensor``). This one reads the same
rows from the arrays as they were collected (step-major, a reshape that copies nothing) and hands
the gathered minibatch to torch without a second copy. The permutation is drawn exactly as SB3
draws it and mapped to the same rows, so every minibatch holds the same samples in the same order
and training is bit for bit what it was (tests/training/test_rollout_buffer.py)."""

from __future__ import annotations

from collections.abc import Generator

import numpy as np
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer, MaskableRolloutBufferSamples

# The arrays a minibatch reads, in the order of ``MaskableRolloutBufferSamples``.
_FIELDS = ("observations", "actions", "values", "log_probs", "advantages", "returns", "action_masks")


class StepMajorRolloutBuffer(MaskableRolloutBuffer):
    def reset(self) -> None:
        # SB3 allocates every array afresh for each rollout. The observations alone are n_steps x
        # n_envs x the observation's floats (78 MB for Alakazum!'s 64 x 64 x 4765), above malloc's
        # mmap threshold, so every rollout page-faulted the whole block in again as it wrote
        # it: 167 ms a rollout there against 4 for the same writes into a kept array. Every
        # entry is written before it is read (``add`` each step's row of each array,
        # ``compute_returns_and_advantage`` the advantages and returns), so the arrays are kept;
        # the masks go back to ones, as SB3's reset leaves them for a rollout that adds none.
        kept = getattr(self, "observations", None)
        if kept is None or kept.shape != (self.buffer_size, self.n_envs, *self.obs_shape):
            super().reset()
            return
        self.action_masks.fill(1.0)
        self.generator_ready = False
        self.pos = 0
        self.full = False

    def get(self, batch_size: int | None = None) -> Generator[MaskableRolloutBufferSamples, None, None]:  # type: ignore[override]
        assert self.full, "the rollout buffer is read before it is full"
        total = self.buffer_size * self.n_envs
        indices = np.random.permutation(total)  # the draw SB3's buffer makes, from the same generator
        # SB3's row i (env-major) is env i // buffer_size at step i % buffer_size; collected
        # (step-major), that sample is row step * n_envs + env.
        rows = (indices % self.buffer_size) * self.n_envs + indices // self.buffer_size
        flat = [getattr(self, name).reshape(total, *getattr(self, name).shape[2:]) for name in _FIELDS]
        if batch_size is None:
            batch_size = total
        for start in range(0, total, batch_size):
            yield self._samples(flat, rows[start:start + batch_size])

    def _samples(self, flat: list[np.ndarray], rows: np.ndarray) -> MaskableRolloutBufferSamples:
        # Each array is a fresh gather (the shapes SB3's minibatches have), so torch may share it
        # rather than copy it again.
        return MaskableRolloutBufferSamples(*(self.to_torch(array[rows], copy=False) for array in flat))


def use_step_major_buffer(model) -> None:
    """Give a MaskablePPO model (new or loaded) the buffer above in place of SB3's. Only the buffer
    object changes: it is not saved with the model, so archives and checkpoints are as before."""
    old = model.rollout_buffer
    if type(old) is not MaskableRolloutBuffer:
        return  # a dict-observation or custom buffer: leave it as SB3 made it
    model.rollout_buffer = StepMajorRolloutBuffer(
        old.buffer_size, old.observation_space, old.action_space, device=old.device,
        gae_lambda=old.gae_lambda, gamma=old.gamma, n_envs=old.n_envs,
    )
