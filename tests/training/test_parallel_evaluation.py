"""``kabenvs evaluate --workers N``: the deals are played in N local processes (or Ray tasks) and the
report, the game log and the ratings are exactly those of the serial run with the same seed, also
with a model that samples its moves (it is reseeded per game, so no game depends on the ones before)."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("safetensors")

from kabenvs.agents.safe_model import save_actor  # noqa: E402
from kabenvs.commands import evaluate as ev_cmd  # noqa: E402
from kabenvs.core.registry import make_game  # noqa: E402


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """An untrained safe model for cabula_v0 at 3 players (random weights: its moves vary)."""
    game = make_game("cabula_v0", num_players=3)
    torch.manual_seed(0)
    h = 16
    tensors = {"hidden.0.weight": torch.randn(h, game.observation_size), "hidden.0.bias": torch.randn(h),
               "action.weight": torch.randn(game.num_actions, h), "action.bias": torch.randn(game.num_actions)}
    path = tmp_path_factory.mktemp("model") / "m"
    save_actor({"trunk": None, "hidden": [h], "activation": "tanh"}, tensors, path, game)
    return str(path)


def _run(capsys, argv):
    code = ev_cmd.main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("stochastic", [False, True])
def test_workers_give_the_serial_report_and_log(model, tmp_path, capsys, stochastic):
    base = [model, "heuristic", "random", "--deals", "5", "--seed", "3", "--json"] + (["--stochastic"] if stochastic else [])
    serial = _run(capsys, base + ["--log", str(tmp_path / "serial.jsonl")])
    parallel = _run(capsys, base + ["--workers", "2", "--backend", "processes", "--log", str(tmp_path / "par.jsonl")])
    assert parallel == serial
    assert serial["games"] == 15
    assert (tmp_path / "par.jsonl").read_text() == (tmp_path / "serial.jsonl").read_text()


def test_stochastic_model_really_samples(model, capsys):
    """The reseeding keeps sampling: another seed gives other games (the check above is not vacuous)."""
    a = _run(capsys, [model, "random", "random", "--deals", "4", "--seed", "1", "--json", "--stochastic"])
    b = _run(capsys, [model, "random", "random", "--deals", "4", "--seed", "1", "--json"])
    assert a["competitors"] != b["competitors"]


def test_workers_must_be_positive(capsys):
    assert ev_cmd.main(["heuristic", "random", "--game", "cabula_v0", "--workers", "0"]) == 2
    assert "--workers=0" in capsys.readouterr().err


def test_ray_backend_gives_the_serial_report(capsys):
    pytest.importorskip("ray")
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    base = ["heuristic", "random", "--game", "kabaleo_v0", "--players", "3", "--deals", "3", "--json"]
    try:
        assert _run(capsys, base + ["--workers", "2", "--backend", "ray"]) == _run(capsys, base)
    finally:
        ray.shutdown()
