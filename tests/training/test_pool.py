"""Opponent pool sampling: weights respected, snapshots managed, missing heuristic handled."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from training.pool import OpponentPool


class FakePolicy:
    """Stands in for an SB3 policy: what _frozen_copy and snapshots use."""

    def __init__(self, value=0):
        self.value = value
        self.optimizer = "adam"

    def parameters(self):
        return []

    def set_training_mode(self, mode):
        self.training = mode

    def state_dict(self):
        return {"value": self.value}

    def load_state_dict(self, d):
        self.value = d["value"]


def test_sampling_follows_the_weights():
    pool = OpponentPool("kabaleo_v0", {"self": 0.5, "random": 0.3, "snapshots": 0.2}, rng=np.random.default_rng(0))
    pool.set_current(FakePolicy())
    pool.add_snapshot(100)
    counts = Counter(pool.sample() for _ in range(20_000))
    assert set(counts) == {"self", "random", "snap:100"}
    assert abs(counts["self"] / 20_000 - 0.5) < 0.02
    assert abs(counts["random"] / 20_000 - 0.3) < 0.02
    assert abs(counts["snap:100"] / 20_000 - 0.2) < 0.02


def test_zero_weight_kinds_never_drawn():
    pool = OpponentPool("kabaleo_v0", {"random": 1.0, "self": 0.0}, rng=np.random.default_rng(1))
    assert {pool.sample() for _ in range(500)} == {"random"}


def test_snapshots_before_the_first_fall_back_to_the_current_policy():
    pool = OpponentPool("kabaleo_v0", {"snapshots": 1.0}, rng=np.random.default_rng(0))
    assert {pool.sample() for _ in range(50)} == {"self"}


def test_snapshots_are_frozen_copies_and_the_oldest_are_dropped():
    pool = OpponentPool("kabaleo_v0", {"snapshots": 1.0}, max_snapshots=3, rng=np.random.default_rng(0))
    current = FakePolicy(0)
    pool.set_current(current)
    for step in range(1, 6):
        current.value = step
        pool.add_snapshot(step * 10)
    assert list(pool.snapshots) == ["snap:30", "snap:40", "snap:50"]
    assert [pool.policy(k).value for k in pool.snapshots] == [3, 4, 5]
    current.value = 99  # the learner keeps learning; snapshots do not move
    assert pool.policy("snap:50").value == 5
    assert pool.policy("self") is current
    assert current.optimizer == "adam"  # the live policy keeps its optimizer
    assert pool.policy("snap:30").optimizer is None
    drawn = Counter(pool.sample() for _ in range(3000))
    assert set(drawn) == {"snap:30", "snap:40", "snap:50"}
    assert min(drawn.values()) > 850  # uniform among snapshots


def test_missing_heuristic_bot_moves_its_weight_to_random():
    from training.pool import heuristic_available

    ok, why = heuristic_available("kabaleo_v0")
    pool = OpponentPool("kabaleo_v0", {"heuristic": 0.5, "self": 0.5}, warn=False)
    if ok:
        assert pool.weights["heuristic"] == 0.5
    else:
        assert "no heuristic bot" in why
        assert pool.weights == {"self": 0.5, "snapshots": 0.0, "random": 0.5, "heuristic": 0.0}
        assert pool.notes and "goes to 'random'" in pool.notes[0]


def test_all_zero_weights_rejected():
    with pytest.raises(ValueError, match="all zero"):
        OpponentPool("kabaleo_v0", {"self": 0.0})


def test_search_opponents_are_drawn_and_built_from_the_spec():
    pool = OpponentPool("kabaleo_v0", {"self": 0.5, "search": 0.5}, rng=np.random.default_rng(0),
                        search_spec="search:sims=3,rollout=heuristic")
    counts = Counter(pool.sample() for _ in range(2000))
    assert set(counts) == {"self", "search"} and abs(counts["search"] / 2000 - 0.5) < 0.05
    assert pool.search_agent.sims == 3 and pool.search_agent.rollout == "heuristic"
    assert OpponentPool("kabaleo_v0", {"self": 1.0}).search_agent is None  # built only when drawn


def test_a_search_spec_whose_model_cannot_load_is_one_config_error(tmp_path):
    from kabenvs.core.registry import make_game
    from training.build import make_pool
    from training.config import TrainingConfigError, validate

    cfg = validate({"game": {"env_id": "kabaleo_v0", "num_players": 2},
                    "self_play": {"opponents": {"search": 1.0}, "search_spec": f"search:model={tmp_path / 'none'}"}})
    with pytest.raises(TrainingConfigError, match="self_play.search_spec=.*does not exist") as err:
        make_pool(cfg, make_game("kabaleo_v0", num_players=2), warn=False)
    assert "\n" not in str(err.value)
