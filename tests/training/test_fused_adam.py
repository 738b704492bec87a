"""PPO's optimizer is SB3's Adam (eps 1e-5) in torch's fused kernel where this torch has one."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib")
import numpy as np
import torch

from training import build
from training.build import fused_adam_supported, policy_kwargs

from .test_rollout_buffer import _model


def test_the_model_steps_with_sb3s_adam_fused():
    model = _model("kabaleo_v0", 2, 8, 8)
    group = model.policy.optimizer.param_groups[0]
    assert isinstance(model.policy.optimizer, torch.optim.Adam) and group["eps"] == 1e-5
    has_kernel = tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2]) >= (2, 4)  # CPU kernel
    assert fused_adam_supported("cpu") is has_kernel
    assert group["fused"] is (True if has_kernel else None)


def test_fused_training_matches_the_foreach_adam_to_float_rounding(monkeypatch):
    fused = _model("kabaleo_v0", 2, 16, 8)
    monkeypatch.setattr(build, "fused_adam_supported", lambda device: False)
    plain = _model("kabaleo_v0", 2, 16, 8)
    assert plain.policy.optimizer.param_groups[0]["fused"] is None  # SB3's default Adam
    assert "optimizer_kwargs" not in policy_kwargs({"net_arch": [8], "trunk": 0, "device": "cpu"}, torch.nn.ReLU)
    for model in (fused, plain):
        torch.manual_seed(0)
        np.random.seed(0)  # the buffer's minibatch permutation
        model.learn(32)  # one rollout, one update: the same samples, so only rounding may differ
    moved = 0
    for (name, a), (_, b), before in zip(fused.policy.state_dict().items(), plain.policy.state_dict().items(),
                                         _model("kabaleo_v0", 2, 16, 8).policy.state_dict().values()):
        assert torch.allclose(a, b, rtol=0, atol=1e-5), name
        moved += int(not torch.equal(a, before))
    assert moved > 0  # the weights did train


def test_a_saved_model_loads_and_gets_the_kernel_of_the_torch_it_runs_on(tmp_path, monkeypatch):
    from sb3_contrib import MaskablePPO

    from training.build import prepare_learner
    from training.rollout_buffer import StepMajorRolloutBuffer

    model = _model("kabaleo_v0", 2, 8, 8)
    model.save(tmp_path / "m.zip")
    loaded = MaskablePPO.load(tmp_path / "m.zip", env=model.env)
    assert loaded.policy_kwargs.get("optimizer_kwargs") is None  # nothing of it stored in the archive
    monkeypatch.setattr(build, "fused_adam_supported", lambda device: True)  # a torch with it
    prepare_learner(loaded)  # what a resumed run does after loading
    assert loaded.policy.optimizer.param_groups[0]["fused"] is True
    assert type(loaded.rollout_buffer) is StepMajorRolloutBuffer
    monkeypatch.setattr(build, "fused_adam_supported", lambda device: False)  # a torch without it
    prepare_learner(loaded)
    assert loaded.policy.optimizer.param_groups[0]["fused"] is None
    loaded.learn(16)  # steps with the plain Adam
