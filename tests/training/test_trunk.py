"""The shared trunk's update path: only the columns a minibatch uses are multiplied, with the same
values and gradients as the plain product; acting (no gradients) is the plain product itself."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gymnasium import spaces

import kabenvs.agents.policy as policy_module
from kabenvs.core.registry import make_game


def _trunk(size: int, width: int = 16, activation: str = "tanh"):
    torch.manual_seed(0)
    space = spaces.Box(-np.inf, np.inf, shape=(size,), dtype=np.float32)
    return policy_module.TrunkExtractor(space, features_dim=width, activation=activation)


def _observations(env_id: str, count: int = 64) -> np.ndarray:
    """Observations of random games: long vectors, mostly zero."""
    game = make_game(env_id, num_players=2)
    rng = np.random.default_rng(5)
    out = []
    seed = 0
    while len(out) < count:
        state = game.new_state(seed)
        seed += 1
        while state.current_player is not None and len(out) < count:
            out.append(state.observation(state.current_player))
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
    return np.stack(out)


def _widths(monkeypatch) -> list[int]:
    """The input width of every first-layer product from now on."""
    seen = []
    plain = torch.nn.functional.linear

    def linear(x, weight, bias=None):
        seen.append(x.shape[1])
        return plain(x, weight, bias)

    monkeypatch.setattr(torch.nn.functional, "linear", linear)
    return seen


@pytest.mark.parametrize("env_id,activation", [("alakazum_v0", "relu"), ("kabaleo_v0", "tanh")])
def test_the_update_path_gives_the_plain_products_values_and_gradients(env_id, activation, monkeypatch):
    obs = torch.as_tensor(_observations(env_id))
    used = int((obs.abs().sum(0) > 0).sum())
    trunk = _trunk(obs.shape[1], activation=activation)
    widths = _widths(monkeypatch)
    out = trunk(obs)  # gradients on: the gathered path
    assert widths == [used] and used < obs.shape[1] / 2  # only the used columns were multiplied
    plain = trunk.net(obs)  # the plain product
    assert torch.allclose(out, plain, atol=1e-6)
    (grad,) = torch.autograd.grad(out.square().sum(), [trunk.net[1].weight])
    (plain_grad,) = torch.autograd.grad(plain.square().sum(), [trunk.net[1].weight])
    assert torch.allclose(grad, plain_grad, atol=1e-5)
    unused = obs.abs().sum(0) == 0
    assert unused.any() and torch.count_nonzero(grad[:, unused]) == 0


def test_acting_is_the_plain_product_bit_for_bit(monkeypatch):
    obs = torch.as_tensor(_observations("kabaal_v0", 16))
    trunk = _trunk(obs.shape[1])
    widths = _widths(monkeypatch)
    with torch.no_grad():
        assert torch.equal(trunk(obs), trunk.net(obs))
    assert widths == [obs.shape[1]] * 2  # the whole observation, both times


def test_a_dense_minibatch_and_an_all_zero_one():
    trunk = _trunk(40)
    dense = torch.rand(8, 40)  # every column used: the plain product
    assert torch.equal(trunk(dense), trunk.net(dense))
    zeros = torch.zeros(8, 40)  # no column used: the bias alone through the activation
    assert torch.allclose(trunk(zeros), torch.tanh(trunk.net[1].bias).expand(8, -1))


def test_gradients_by_the_observation_are_the_plain_products(monkeypatch):
    """A caller asking for gradients by the observation (saliency) gets them for every entry,
    the zero ones too: the plain product runs."""
    obs = torch.as_tensor(_observations("kabaleo_v0", 8)).requires_grad_(True)
    trunk = _trunk(obs.shape[1])
    widths = _widths(monkeypatch)
    (grad,) = torch.autograd.grad(trunk(obs).sum(), [obs])
    assert widths == [obs.shape[1]]
    zero = obs.detach() == 0
    assert torch.count_nonzero(grad[zero]) > 0  # a zero entry still moves the output


def test_a_column_is_used_by_any_nonzero_entry_negative_or_nan_but_not_a_negative_zero(monkeypatch):
    trunk = _trunk(40)
    obs = torch.zeros(6, 40)
    obs[0, 3] = -2.0
    obs[4, 17] = float("nan")
    obs[5, 30] = 1e-40  # a subnormal is still a value
    obs[2, 9] = -0.0
    widths = _widths(monkeypatch)
    out = trunk(obs)
    assert widths == [3]  # columns 3, 17 and 30
    assert torch.isnan(out[4]).all() and not torch.isnan(out[:4]).any()
    plain = trunk.net(obs)
    assert torch.allclose(out[:4], plain[:4], atol=1e-6)
    # a strided view (every other row of a larger batch) reads the same columns
    big = torch.zeros(12, 40)
    big[::2] = obs
    assert torch.allclose(trunk(big[::2])[:4], out[:4], atol=1e-6)


def test_the_column_scan_of_a_dtype_numpy_lacks_reads_the_same_columns(monkeypatch):
    trunk = _trunk(40).to(torch.bfloat16)
    obs = torch.zeros(6, 40, dtype=torch.bfloat16)
    obs[1, 5] = -1.0
    obs[3, 22] = 0.5
    widths = _widths(monkeypatch)
    out = trunk(obs)  # bfloat16 has no numpy dtype: torch's own scan
    assert widths == [2] and out.dtype == torch.bfloat16
