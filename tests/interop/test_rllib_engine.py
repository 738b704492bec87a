"""``engine: rllib`` in the training config: validation (no Ray needed), the self-play env with
the opponent pool (needs Ray RLlib), and short real training runs on a local Ray with 2 CPUs for
every game at 2 players and one larger table (marked slow), each ending in a safe model that
``load_agent`` and ``kabenvs evaluate`` use like any other."""

from __future__ import annotations

import json

import numpy as np
import pytest

import kabenvs
from kabenvs.core.errors import ConfigError

cfgmod = pytest.importorskip("training.config")  # PyYAML


def _validate(extra: dict) -> dict:
    raw = {"game": {"env_id": "cabula_v0", "num_players": 2}, **extra}
    return cfgmod.validate(raw, source="t.yaml")


def test_engine_defaults_to_sb3_and_is_validated_like_any_key():
    assert _validate({})["engine"] == "sb3"
    assert _validate({"engine": "rllib"})["engine"] == "rllib"
    with pytest.raises(ConfigError, match=r"engine='rlib' is not allowed \(did you mean 'rllib'\?\)"):
        _validate({"engine": "rlib"})
    with pytest.raises(ConfigError, match=r"unknown key ray.num_env_runers \(did you mean 'num_env_runners'\?\)"):
        _validate({"engine": "rllib", "ray": {"num_env_runers": 2}})
    with pytest.raises(ConfigError, match=r"ray.num_env_runners=-1 is out of range"):
        _validate({"engine": "rllib", "ray": {"num_env_runners": -1}})


@pytest.mark.parametrize("extra, words", [
    ({"ray": {"num_env_runners": 2}}, "ray.num_env_runners applies to engine: rllib only"),
    ({"engine": "rllib", "imitation": {"games": 10}}, "imitation.games=10 is not supported with engine: rllib"),
    ({"engine": "rllib", "self_play": {"skip_forced": True}}, "self_play.skip_forced=True is not supported"),
    ({"engine": "rllib", "algorithm": {"device": "cuda"}}, "ray.num_gpus_per_learner"),
])
def test_keys_an_engine_would_ignore_are_errors(extra, words):
    with pytest.raises(ConfigError, match=words.replace(".", r"\.").replace("(", r"\(")):
        _validate(extra)


def test_engine_is_settable_from_the_command_line(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("game: {env_id: kabaleo_v0}\n")
    cfg = cfgmod.load_config(path, ["engine=rllib", "ray.address=auto", "ray.num_env_runners=2"])
    assert cfg["engine"] == "rllib" and cfg["ray"]["address"] == "auto" and cfg["ray"]["num_env_runners"] == 2


# -- with Ray RLlib ---------------------------------------------------------------------------------
def _rllib():
    pytest.importorskip("ray.rllib")
    pytest.importorskip("torch")
    from kabenvs.interop import rllib

    return rllib


@pytest.mark.parametrize("env_id, players", [("cabula_v0", 4), ("kabaal_v0", 3), ("barakka_v0", 1)])
def test_self_play_env_passes_rllibs_checks_and_plays_the_pool(env_id, players):
    rllib = _rllib()
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = rllib.KabenvsSelfPlayEnv({"env_id": env_id, "num_players": players, "max_snapshots": 2,
                                    "opponents": {"self": 1, "snapshots": 1, "random": 1, "heuristic": 1}})
    check_multiagent_environments(env)
    env.set_snapshots(1)
    kinds, rng = set(), np.random.default_rng(0)
    for episode in range(12):
        obs, _ = env.reset(seed=episode)
        assert env.lineup.count("learner") == 1
        kinds.update(env.lineup)
        while True:
            (agent, o), = obs.items()
            assert rllib.KabenvsSelfPlayEnv.policy_of(agent) in ("main", "snap_0")  # never a bot's seat
            obs, rewards, term, trunc, _ = env.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
            if term["__all__"] or trunc["__all__"]:
                assert set(rewards) == {a for a in env._seat_names if a is not None}
                break
    if players > 1:
        assert kinds == {"learner", "self", "snapshots", "random", "heuristic"}


@pytest.fixture(scope="module")
def local_ray():
    pytest.importorskip("ray.rllib")
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    yield
    ray.shutdown()


TABLES = [(env_id, 2) for env_id in kabenvs.ENV_IDS] + [("kabaleo_v0", 4)]


@pytest.mark.slow
@pytest.mark.parametrize("env_id, players", TABLES)
def test_rllib_engine_trains_every_game_into_a_loadable_model(env_id, players, local_ray, tmp_path, capsys):
    _rllib()
    from kabenvs.agents.policy import load_agent
    from kabenvs.commands import evaluate, train

    runners = 1 if players > 2 else 0  # the larger table samples in a remote env runner
    path = tmp_path / "c.yaml"
    path.write_text(f"""engine: rllib
game: {{env_id: {env_id}, num_players: {players}}}
algorithm: {{total_timesteps: 250, n_envs: 2, n_steps: 64, batch_size: 64, n_epochs: 1, trunk: 0, net_arch: [32]}}
self_play: {{snapshot_interval: 100, max_snapshots: 2}}
evaluation: {{interval: 1000000, deals: 1, final_deals: 2, baselines: [random]}}
ray: {{num_env_runners: {runners}}}
output: {{dir: {tmp_path / 'runs'}, name: r, tensorboard: false, progress_bar: false}}
""")
    assert train.main([str(path)]) == 0
    out = capsys.readouterr().out
    assert "trained by Ray RLlib" in out and "trained agent vs" in out
    model = tmp_path / "runs" / "r" / "final_model.safetensors"
    meta = json.loads(model.with_suffix(".json").read_text())
    assert meta["trained_with"] == "ray rllib" and meta["env_id"] == env_id
    game = kabenvs.make(env_id, num_players=players).unwrapped.game
    load_agent(model, game)  # loads through the checks of the safe format
    assert evaluate.main([str(model), "random", "--deals", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == players
    final = json.loads((tmp_path / "runs" / "r" / "final_evaluation.json").read_text())
    assert final["engine"] == "rllib" and final["step"] >= 250
