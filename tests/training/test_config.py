"""Config validation: every kind of mistake stops with a message naming key, value and what is allowed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from kabenvs import ENV_IDS
from training.config import TrainingConfigError, load_config, validate

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))


def ok_raw(**sections):
    raw = {"game": {"env_id": "kabaleo_v0", "num_players": 2}}
    raw.update(sections)
    return raw


def test_defaults_fill_in():
    cfg = validate(ok_raw())
    assert cfg["game"] == {"env_id": "kabaleo_v0", "num_players": 2, "mode": "random", "reward": "win"}
    assert cfg["algorithm"]["n_envs"] >= 1 and cfg["self_play"]["opponents"]["self"] > 0


@pytest.mark.parametrize(
    "raw, fragment",
    [
        # unknown section / key, with a suggestion
        (ok_raw(algoritm={}), "unknown section 'algoritm' (did you mean 'algorithm'?)"),
        (ok_raw(algorithm={"learning_rat": 0.1}), "unknown key algorithm.learning_rat (did you mean 'learning_rate'?)"),
        (ok_raw(self_play={"opponents": {"slef": 1.0}}), "unknown opponent kind (did you mean 'self'?)"),
        # wrong types
        (ok_raw(algorithm={"n_envs": "eight"}), "algorithm.n_envs='eight' must be an integer"),
        (ok_raw(algorithm={"n_envs": 8.5}), "algorithm.n_envs=8.5 must be an integer"),
        (ok_raw(algorithm={"learning_rate": "fast"}), "algorithm.learning_rate='fast' must be a number"),
        (ok_raw(output={"tensorboard": "yes"}), "output.tensorboard='yes' must be true or false"),
        (ok_raw(algorithm={"net_arch": 64}), "algorithm.net_arch=64 must be a list of integers"),
        (ok_raw(evaluation={"baselines": ["random", "heuristc"]}), "contains 'heuristc' (did you mean 'heuristic'?)"),
        (ok_raw(algorithm={"activation": "tahn"}), "algorithm.activation='tahn' is not allowed (did you mean 'tanh'?)"),
        # out of range
        (ok_raw(algorithm={"gamma": 1.5}), "algorithm.gamma=1.5 is out of range; it must be >= 0.0 and <= 1.0"),
        (ok_raw(algorithm={"n_steps": 0}), "algorithm.n_steps=0 is out of range; it must be >= 1"),
        (ok_raw(algorithm={"learning_rate": 0}), "algorithm.learning_rate=0.0 is out of range; it must be > 0.0"),
        (ok_raw(self_play={"opponents": {"self": -1}}), "opponents.self=-1 must be a number >= 0"),
        (ok_raw(self_play={"opponents": {"self": 0}}), "must not all be 0"),
        (ok_raw(self_play={"search_spec": "search:sims=0"}), "self_play.search_spec='search:sims=0': search option sims=0"),
        (ok_raw(self_play={"search_spec": "heuristic"}), "self_play.search_spec='heuristic': 'heuristic' is not a search spec"),
        (ok_raw(self_play={"search_spec": "search:simz=5"}), "unknown search option 'simz'"),
        (ok_raw(self_play={"search_spec": 20}), "self_play.search_spec=20 must be a non-empty string"),
        (ok_raw(engine="rllib", self_play={"opponents": {"self": 1, "search": 0.1}}),
         "self_play.opponents.search=0.1 is not supported with engine: rllib"),
        (ok_raw(algorithm={"n_envs": 2, "n_steps": 4, "batch_size": 64}), "batch_size=64 is larger than a rollout"),
        # the game section
        ({"game": {"env_id": "kabaleo_v1"}}, "game.env_id='kabaleo_v1' is not a registered env id (did you mean 'kabaleo_v0'?)"),
        ({"game": {"num_players": 2}}, "must be a mapping with 'env_id'"),
        ({"game": {"env_id": "kabaleo_v0", "num_player": 2}}, "unknown key game.num_player for kabaleo_v0 (did you mean 'num_players'?)"),
        # a key that is not a plain name is shown quoted, on one line (found by tests/hardening)
        ({"game": {"env_id": "kabaleo_v0", "\n": 2}}, "unknown key game.'\\n' for kabaleo_v0"),
        (ok_raw(algorithm={"a\nb": 1}), "unknown key algorithm.'a\\nb'"),
        (ok_raw(algorithm={3: 1}), "unknown key algorithm.3;"),
        ({"game": {"env_id": "kabaleo_v0", "num_players": 5}}, "num_players=5 is not allowed; choose one of [2, 3, 4]"),
        ({"game": {"env_id": "kabaleo_v0", "num_players": 4, "mode": "equitable"}}, "mode='equitable' is for 2 or 3 players"),
        (["not", "a", "mapping"], "the top level must be a mapping"),
        (ok_raw(algorithm=[1, 2]), "section 'algorithm' must be a mapping"),
    ],
)
def test_each_kind_of_mistake(raw, fragment):
    with pytest.raises(TrainingConfigError) as err:
        validate(raw, source="t.yaml")
    assert fragment in str(err.value)
    assert str(err.value).startswith("t.yaml") and "\n" not in str(err.value)


def test_malformed_yaml_and_missing_file(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("game:\n  env_id: kabaleo_v0\n  num_players: [2\n")
    with pytest.raises(TrainingConfigError, match=r"malformed YAML at line \d+"):
        load_config(bad)
    with pytest.raises(TrainingConfigError, match="does not exist"):
        load_config(tmp_path / "none.yaml")


def test_overrides_from_the_command_line(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("game:\n  env_id: kabaleo_v0\n")
    cfg = load_config(path, ["game.num_players=4", "algorithm.net_arch=[32, 32]"])
    assert cfg["game"]["num_players"] == 4 and cfg["algorithm"]["net_arch"] == [32, 32]
    assert cfg["output"]["name"] == "c"
    with pytest.raises(TrainingConfigError, match="write SECTION.KEY=VALUE"):
        load_config(path, ["num_players=4"])
    with pytest.raises(TrainingConfigError, match="did you mean 'evaluation'"):
        load_config(path, ["evalution.deals=3"])


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_shipped_configs_are_valid(path):
    import yaml

    env_id = yaml.safe_load(path.read_text())["game"]["env_id"]
    if env_id not in ENV_IDS:
        pytest.skip(f"{env_id} is not registered yet")
    cfg = load_config(path)
    assert cfg["game"]["env_id"] == env_id


def test_every_game_has_a_config():
    names = {p.stem for p in CONFIGS}
    assert {"quickstart", "kabaleo", "barakka", "kabaal", "cabula", "alakazum"} <= names


def test_train_cli_rejects_bad_config_with_exit_2(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("train_script", ROOT / "scripts" / "train.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: {env_id: kabaleo_v0}\nalgorithm: {n_epoch: 3}\n")
    assert module.main([str(bad)]) == 2
    err = capsys.readouterr().err
    assert "unknown key algorithm.n_epoch (did you mean 'n_epochs'?)" in err
    assert len(err.strip().splitlines()) == 1
    assert module.main([str(ROOT / "configs" / "quickstart.yaml"), "--check"]) == 0
    assert "env_id: cabula_v0" in capsys.readouterr().out
