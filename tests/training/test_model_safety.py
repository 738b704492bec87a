"""Model files are untrusted input: nothing in a shared model runs code, and every bad file is one
clear ``ModelLoadError`` (one line, exit status 2 from the scripts).

* an SB3 archive whose ``data`` carries a pickle payload runs it only with the documented opt-in
  (``trust_pickle=True`` / ``--trust-pickle``): without it the payload's marker file never appears,
  through the API, play.py, evaluate.py and export_model.py;
* a tampered weights file fails the sha256 check, naming both hashes;
* a safe model acts exactly like the policy it came from on real game states;
* a model saved for another observation layout or action catalog of the same sizes is refused;
* export turns an archive into a safe model that acts identically.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import io
import json
import pickle
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("safetensors")

from kabenvs.agents.base import Decision
from kabenvs.agents.policy import (
    ModelLoadError, export_model, load_agent, masked_logits, policy_values, sample_decisions, save_model,
)
from kabenvs.core.errors import KabenvsError
from kabenvs.core.registry import make_game
from kabenvs.play.cli import main as play_main
from training.build import make_env, make_model, make_pool
from training.config import validate

ROOT = Path(__file__).resolve().parents[2]


def _script(name: str):
    spec = importlib.util.spec_from_file_location(f"_script_{name}", ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


evaluate_script = _script("evaluate")
export_script = _script("export_model")


@pytest.fixture(scope="module")
def game():
    return make_game("kabaleo_v0", num_players=2)


@pytest.fixture(scope="module")
def model(game):
    cfg = validate({
        "game": {"env_id": "kabaleo_v0", "num_players": 2},
        "algorithm": {"n_envs": 2, "n_steps": 8, "batch_size": 16, "trunk": 8, "net_arch": [8, 8],
                      "activation": "tanh"},
        "self_play": {"opponents": {"random": 1.0}},
    })
    m = make_model(cfg, make_env(cfg, game, make_pool(cfg, game, warn=False)))
    m.policy.set_training_mode(False)
    return m


@pytest.fixture(scope="module")
def saved(model, game, tmp_path_factory):
    """``NAME.zip`` + ``NAME.safetensors`` + ``NAME.json`` as training writes them."""
    return save_model(model, tmp_path_factory.mktemp("saved") / "model.zip", game).with_suffix("")


@pytest.fixture(scope="module")
def decisions(game):
    return sample_decisions(game, count=48, seed=3)


class Payload:
    """Unpickling this runs ``exec``: the attack a shared SB3 archive can carry."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return exec, (f"open({str(self.marker)!r}, 'w').write('payload ran')",)


def evil_archive(saved: Path, folder: Path) -> tuple[Path, Path]:
    """A real MaskablePPO archive whose ``data`` entry carries a pickle payload (no metadata file,
    as someone else's archive would come). Returns ``(archive, marker)``."""
    marker = folder / "PAYLOAD_RAN"
    src = zipfile.ZipFile(saved.with_suffix(".zip"))
    data = json.loads(src.read("data"))
    data["evil"] = {":type:": "<class 'object'>",
                    ":serialized:": base64.b64encode(pickle.dumps(Payload(marker))).decode()}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for item in src.infolist():
            dst.writestr(item, json.dumps(data) if item.filename == "data" else src.read(item.filename))
    path = folder / "evil.zip"
    path.write_bytes(out.getvalue())
    return path, marker


def run_play(argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = play_main(argv, input=io.StringIO(""), output=out, errors=err)
    return rc, out.getvalue(), err.getvalue()


def run_script(module, argv, capsys) -> tuple[int, str, str]:
    rc = module.main(argv)
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def one_line(text: str) -> bool:
    return text.count("\n") == 1 and text.endswith("\n")


# -- pickle payloads ------------------------------------------------------------------------------
def test_payload_archive_is_refused_without_the_opt_in(saved, game, tmp_path, capsys):
    evil, marker = evil_archive(saved, tmp_path)
    with pytest.raises(ModelLoadError, match="trust_pickle=True") as err:
        load_agent(evil, game)
    assert "\n" not in str(err.value) and isinstance(err.value, KabenvsError)
    with pytest.raises(ModelLoadError, match="--trust-pickle"):
        load_agent(str(evil)[:-4], game)  # the bare name finds only the archive: still refused
    with pytest.raises(ModelLoadError, match="trust_pickle"):
        export_model(evil, tmp_path / "out", game)

    rc, _, err = run_play(["kabaleo_v0", "--seat", str(evil), "random", "--seed", "1"])
    assert rc == 2 and one_line(err) and "--trust-pickle" in err, err
    rc, _, err = run_script(evaluate_script, [str(evil), "random", "--deals", "1"], capsys)
    assert rc == 2 and one_line(err) and "--trust-pickle" in err, err
    rc, _, err = run_script(evaluate_script, [str(evil), "random", "--game", "kabaleo_v0", "--deals", "1"], capsys)
    assert rc == 2 and one_line(err) and "--trust-pickle" in err, err
    rc, _, err = run_script(export_script, [str(evil), str(tmp_path / "out"), "--game", "kabaleo_v0"], capsys)
    assert rc == 2 and one_line(err) and "--trust-pickle" in err, err
    assert not marker.exists(), "the payload ran without the opt-in"
    assert not (tmp_path / "out.safetensors").exists()


def test_payload_runs_only_through_the_documented_opt_in(saved, game, tmp_path, capsys):
    """With trust_pickle the archive is unpickled, payload and all: that is what the flag's help
    warns about (and shows the payload above is real)."""
    evil, marker = evil_archive(saved, tmp_path)
    agent = load_agent(evil, game, trust_pickle=True)
    assert marker.read_text() == "payload ran"
    marker.unlink()
    state = game.new_state(np.random.default_rng(0))
    assert state.is_legal(agent.act(Decision(state.current_player, state)))

    rc, out, err = run_play(["kabaleo_v0", "--seat", str(evil), "random", "--seed", "1", "--trust-pickle"])
    assert rc == 0 and re.search(r"\bwinners?: player \d", out), err
    assert marker.exists()
    marker.unlink()
    # evaluate: the archive has no kabenvs metadata, so --game must name the game
    rc, _, err = run_script(evaluate_script, [str(evil), "random", "--deals", "1", "--trust-pickle"], capsys)
    assert rc == 2 and one_line(err) and "--game" in err and not marker.exists()
    rc, out, err = run_script(evaluate_script, [str(evil), "random", "--deals", "1", "--trust-pickle",
                                                "--game", "kabaleo_v0", "--players", "2"], capsys)
    assert rc == 0 and "evil" in out, err
    assert marker.exists()


def test_trusted_archive_without_metadata_is_checked_against_the_game(saved, tmp_path, capsys):
    evil, _ = evil_archive(saved, tmp_path)
    with pytest.raises(ModelLoadError, match=r"observation shape .* but the game says"):
        load_agent(evil, make_game("kabaleo_v0", num_players=3), trust_pickle=True)
    rc, _, err = run_script(evaluate_script, [str(evil), "random", "--trust-pickle", "--game", "kabaleo_v0",
                                              "--players", "3", "--deals", "1"], capsys)
    assert rc == 2 and one_line(err) and "observation shape" in err


# -- the safe format ---------------------------------------------------------------------------------
def test_safe_model_acts_exactly_like_its_policy(saved, model, game, decisions):
    obs, masks = decisions
    agent = load_agent(saved, game, seed=0)
    assert agent.path.endswith("model.safetensors") and len(agent.model_hash) == 64
    assert np.array_equal(masked_logits(agent.policy, obs, masks), masked_logits(model.policy, obs, masks))
    expected, _ = model.predict(obs, action_masks=masks.astype(bool), deterministic=True)
    assert np.array_equal(agent.act_batch(obs, masks), expected)
    state = game.new_state(np.random.default_rng(11))
    for _ in range(12):  # one decision at a time, through Decision, as the arena asks
        d = Decision(state.current_player, state)
        want, _ = model.predict(d.observation, action_masks=d.action_mask.astype(bool), deterministic=True)
        assert agent.act(d) == int(want)
        state.apply(int(want))
    # sampling: the same logits and the same seed give the same draws
    a, b = load_agent(saved, game, seed=7, deterministic=False), load_agent(saved, game, seed=7, deterministic=False)
    assert np.array_equal(a.act_batch(obs, masks), b.act_batch(obs, masks))


def test_tampered_weights_fail_the_hash_check_naming_both(saved, game, tmp_path, capsys):
    weights = tmp_path / "t.safetensors"
    data = bytearray(saved.with_suffix(".safetensors").read_bytes())
    data[-5] ^= 0x01  # one bit of one weight: still a readable safetensors file
    weights.write_bytes(bytes(data))
    meta_text = saved.with_suffix(".json").read_text()
    (tmp_path / "t.json").write_text(meta_text)
    recorded = json.loads(meta_text)["sha256"]
    actual = hashlib.sha256(bytes(data)).hexdigest()
    assert actual != recorded
    with pytest.raises(ModelLoadError) as err:
        load_agent(weights, game)
    assert actual in str(err.value) and recorded in str(err.value)
    rc, _, err_text = run_play(["kabaleo_v0", "--seat", str(tmp_path / "t"), "random", "--seed", "1"])
    assert rc == 2 and one_line(err_text) and actual in err_text and recorded in err_text
    rc, _, err_text = run_script(evaluate_script, [str(weights), "random", "--deals", "1"], capsys)
    assert rc == 2 and one_line(err_text) and actual in err_text


def _layout_changed(game, monkeypatch, what: str):
    """The same game with one block's meaning changed (same sizes), as a later kabenvs might have it."""
    table = getattr(game, what).table()
    monkeypatch.setattr(getattr(game, what), "table", lambda: table.replace("|", "| ", 1))


@pytest.mark.parametrize("what,words", [("layout", "observation layout"), ("catalog", "action catalog")])
def test_model_for_an_older_layout_is_refused(model, tmp_path, monkeypatch, what, words):
    old = make_game("kabaleo_v0", num_players=2)
    with monkeypatch.context() as m:
        _layout_changed(old, m, what)
        save_model(model, tmp_path / "old.zip", old)
    new = make_game("kabaleo_v0", num_players=2)
    assert old.observation_size == new.observation_size and old.num_actions == new.num_actions
    with pytest.raises(ModelLoadError) as err:
        load_agent(tmp_path / "old", new)
    msg = str(err.value)
    assert words in msg and "retrain" in msg and "kabaleo_v0" in msg and "\n" not in msg
    rc, _, err_text = run_play(["kabaleo_v0", "--seat", str(tmp_path / "old"), "random", "--seed", "1"])
    assert rc == 2 and one_line(err_text) and words in err_text


def _rewrite(saved: Path, folder: Path, meta_change=None, tensors_change=None) -> Path:
    """A copy of the saved safe model with its metadata and/or tensors changed (hash kept honest
    when the tensors change, so that the check under test is the one that fires)."""
    from safetensors.torch import load, save

    data = saved.with_suffix(".safetensors").read_bytes()
    meta = json.loads(saved.with_suffix(".json").read_text())
    if tensors_change is not None:
        tensors = load(data)
        tensors_change(tensors)
        data = save(tensors)
        meta["sha256"] = hashlib.sha256(data).hexdigest()
    if meta_change is not None:
        meta_change(meta)
    out = folder / "bad"
    out.with_suffix(".safetensors").write_bytes(data)
    out.with_suffix(".json").write_text(json.dumps(meta) if not isinstance(meta, str) else meta)
    return out


def _set(key, value):
    def change(meta):
        meta[key] = value
    return change


def _rename_head(tensors):
    tensors["head.weight"] = tensors.pop("action.weight")


def _widen_head(tensors):
    import torch

    tensors["action.bias"] = torch.zeros(tensors["action.bias"].shape[0] + 1)


BAD = {
    "game_config not a mapping": (_set("game_config", [2]), None, "game_config"),
    "size of a wrong type": (_set("observation_size", "2820"), None, "observation_size"),
    "bool size": (_set("num_actions", True), None, "num_actions"),
    "unknown format": (_set("format", "kabenvs-model/99"), None, "format"),
    "network not a mapping": (_set("network", "mlp"), None, "network"),
    "bad activation": (lambda m: m["network"].update(activation="gelu"), None, "activation"),
    "bad hash": (_set("sha256", "abc"), None, "sha256"),
    "fingerprint missing": (lambda m: m.pop("fingerprint"), None, "fingerprint"),
    "wrong env": (_set("env_id", "cabula_v0"), None, "cabula_v0"),
    "metadata a list": (lambda m: (m.clear(), None), None, "broken"),
    "wrong tensor names": (None, _rename_head, "missing tensors: \\['action.weight'\\]"),
    "wrong tensor shape": (None, _widen_head, "tensor action.bias"),
    "network that does not match the tensors": (lambda m: m["network"].update(hidden=[8]), None, "hidden"),
    "value network not a mapping": (_set("value_network", [8]), None, "value_network"),
    "value network that does not match the tensors": (lambda m: m["value_network"].update(hidden=[4]), None,
                                                      "value_hidden"),
    "value tensors without a value network": (_set("value_network", None), None, "unexpected: \\['value"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_every_bad_model_file_is_one_clear_error(saved, game, tmp_path, capsys, case):
    meta_change, tensors_change, words = BAD[case]
    out = _rewrite(saved, tmp_path, meta_change, tensors_change)
    if case == "metadata a list":
        out.with_suffix(".json").write_text("[1, 2]")
    with pytest.raises(ModelLoadError, match=words) as err:
        load_agent(out, game)
    assert "\n" not in str(err.value)
    rc, _, err_text = run_script(evaluate_script, [str(out), "random", "--game", "kabaleo_v0", "--deals", "1"], capsys)
    assert rc == 2 and one_line(err_text), err_text


@pytest.mark.parametrize("content", [None, "{ not json", '{"format": "kabenvs-model/2"}'])
def test_missing_or_unreadable_metadata(saved, game, tmp_path, capsys, content):
    out = tmp_path / "m"
    out.with_suffix(".safetensors").write_bytes(saved.with_suffix(".safetensors").read_bytes())
    if content is not None:
        out.with_suffix(".json").write_text(content)
    with pytest.raises(ModelLoadError, match="metadata file"):
        load_agent(out, game)
    rc, _, err = run_play(["kabaleo_v0", "--seat", str(out), "random", "--seed", "1"])
    assert rc == 2 and one_line(err) and "metadata file" in err
    rc, _, err = run_script(evaluate_script, [str(out), "random", "--deals", "1"], capsys)
    assert rc == 2 and one_line(err) and "metadata file" in err


def test_unreadable_weights_with_an_honest_hash(saved, game, tmp_path):
    out = tmp_path / "w"
    junk = b"\xff" * 64
    out.with_suffix(".safetensors").write_bytes(junk)
    meta = json.loads(saved.with_suffix(".json").read_text())
    meta["sha256"] = hashlib.sha256(junk).hexdigest()
    out.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(ModelLoadError, match="not a readable safetensors file") as err:
        load_agent(out, game)
    assert "\n" not in str(err.value)


# -- export -------------------------------------------------------------------------------------------
def test_export_from_an_archive_acts_identically(saved, model, game, decisions, tmp_path, capsys):
    obs, masks = decisions
    bare = tmp_path / "theirs.zip"  # someone's archive without kabenvs metadata
    bare.write_bytes(saved.with_suffix(".zip").read_bytes())
    rc, out, err = run_script(export_script, [str(bare), str(tmp_path / "mine"), "--trust-pickle"], capsys)
    assert rc == 2 and one_line(err) and "--game" in err  # no metadata: the game must be named
    rc, out, err = run_script(export_script, [str(bare), str(tmp_path / "mine"), "--trust-pickle",
                                              "--game", "kabaleo_v0", "--players", "2"], capsys)
    assert rc == 0 and "mine.safetensors" in out, err
    meta = json.loads((tmp_path / "mine.json").read_text())
    assert meta["exported_from"] == "theirs.zip" and meta["env_id"] == "kabaleo_v0"
    assert meta["archive_sha256"] == hashlib.sha256(bare.read_bytes()).hexdigest()
    agent = load_agent(tmp_path / "mine.json", game)
    expected, _ = model.predict(obs, action_masks=masks.astype(bool), deterministic=True)
    assert np.array_equal(agent.act_batch(obs, masks), expected)
    assert np.array_equal(masked_logits(agent.policy, obs, masks), masked_logits(model.policy, obs, masks))
    assert meta["value_network"] == {"hidden": [8, 8], "activation": "tanh"}  # the critic came along
    assert np.array_equal(policy_values(agent.policy, obs), policy_values(model.policy, obs))
    # with metadata next to the archive, the game comes from it (API)
    weights, _ = export_model(saved.with_suffix(".zip"), tmp_path / "again", trust_pickle=True)
    assert weights.read_bytes() == saved.with_suffix(".safetensors").read_bytes()


def test_older_kabenvs_archive_pairs(saved, model, game, tmp_path, decisions):
    """A ``NAME.zip`` + ``NAME.json`` (format kabenvs-model/1) from before the safe format: named
    bare, it is the archive (refused without the opt-in); with it, its recorded hash is checked
    before anything is unpickled."""
    old = tmp_path / "old.zip"
    old.write_bytes(saved.with_suffix(".zip").read_bytes())
    meta = json.loads(saved.with_suffix(".json").read_text())
    legacy = {k: meta[k] for k in ("env_id", "game_config", "observation_size", "num_actions", "kabenvs_version")}
    legacy.update(format="kabenvs-model/1", sha256=hashlib.sha256(old.read_bytes()).hexdigest())
    old.with_suffix(".json").write_text(json.dumps(legacy))
    with pytest.raises(ModelLoadError, match="trust_pickle"):
        load_agent(tmp_path / "old", game)
    obs, masks = decisions
    agent = load_agent(tmp_path / "old", game, trust_pickle=True)
    assert np.array_equal(masked_logits(agent.policy, obs, masks), masked_logits(model.policy, obs, masks))

    # a payload swapped into an archive whose metadata records the original's hash: refused
    # before unpickling, even with the opt-in
    evil, marker = evil_archive(saved, tmp_path)
    evil.with_suffix(".json").write_text(json.dumps(legacy))
    with pytest.raises(ModelLoadError) as err:
        load_agent(evil, game, trust_pickle=True)
    assert legacy["sha256"] in str(err.value) and hashlib.sha256(evil.read_bytes()).hexdigest() in str(err.value)
    assert not marker.exists()


def test_network_without_a_trunk_round_trips(game, decisions, tmp_path):
    cfg = validate({
        "game": {"env_id": "kabaleo_v0", "num_players": 2},
        "algorithm": {"n_envs": 2, "n_steps": 8, "batch_size": 16, "trunk": 0, "net_arch": [8]},
        "self_play": {"opponents": {"random": 1.0}},
    })
    m = make_model(cfg, make_env(cfg, game, make_pool(cfg, game, warn=False)))
    m.policy.set_training_mode(False)
    save_model(m, tmp_path / "flat.zip", game)
    meta = json.loads((tmp_path / "flat.json").read_text())
    assert meta["network"] == {"trunk": None, "hidden": [8], "activation": "relu"}
    assert meta["value_network"] == {"hidden": [8], "activation": "relu"}
    obs, masks = decisions
    agent = load_agent(tmp_path / "flat", game)
    assert np.array_equal(masked_logits(agent.policy, obs, masks), masked_logits(m.policy, obs, masks))
    assert np.array_equal(policy_values(agent.policy, obs), policy_values(m.policy, obs))


# -- the console command and the web server load models the same way ---------------------------------
def test_the_kabenvs_command_refuses_a_payload_archive_unless_trusted(saved, tmp_path, capsys):
    from kabenvs.cli import main as kabenvs_main

    evil, marker = evil_archive(saved, tmp_path)
    for argv in (["evaluate", str(evil), "random", "--deals", "1"],
                 ["evaluate", str(evil)[:-4], "random", "--game", "kabaleo_v0", "--deals", "1"],
                 ["export", str(evil), str(tmp_path / "out"), "--game", "kabaleo_v0"],
                 ["play", "kabaleo_v0", "--seat", str(evil), "random", "--seed", "1"]):
        assert kabenvs_main(argv) == 2, argv
        err = capsys.readouterr().err
        assert one_line(err) and "--trust-pickle" in err, err
    assert not marker.exists() and not (tmp_path / "out.safetensors").exists()
    assert kabenvs_main(["evaluate", str(evil), "random", "--deals", "1", "--trust-pickle",
                         "--game", "kabaleo_v0", "--players", "2"]) == 0
    assert marker.exists()  # the documented opt-in runs the file's code, as its help says
    marker.unlink()
    rc = kabenvs_main(["export", str(evil), str(tmp_path / "out"), "--trust-pickle", "--game", "kabaleo_v0"])
    assert rc == 0 and (tmp_path / "out.safetensors").is_file()
    capsys.readouterr()


def test_the_web_server_never_unpickles_an_archive_in_its_models_folder(saved, tmp_path):
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    import warnings

    with warnings.catch_warnings():  # Starlette suggests another HTTP client package; httpx works
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from kabenvs.web.app import create_app

    models = tmp_path / "models"
    models.mkdir()
    evil, marker = evil_archive(saved, models)
    # an archive that even comes with kabenvs archive metadata beside it, as older kabenvs wrote
    meta = json.loads(saved.with_suffix(".json").read_text())
    legacy = {k: meta[k] for k in ("env_id", "game_config", "observation_size", "num_actions", "kabenvs_version")}
    (models / "evil.json").write_text(json.dumps({**legacy, "format": "kabenvs-model/1",
                                                   "sha256": hashlib.sha256(evil.read_bytes()).hexdigest()}))
    with TestClient(create_app(tmp_path / "data", models, pace=0.0)) as c:
        assert c.get("/api/catalog").json()["models"] == []
        for seat in ("model:evil", "model:evil.zip", f"model:{evil}", str(evil), "model:../models/evil"):
            r = c.post("/api/games", json={"env_id": "kabaleo_v0", "seats": [seat, "random"]})
            assert r.status_code == 400, (seat, r.text)
    assert not marker.exists(), "the web server unpickled an archive"


def test_a_search_bot_with_a_payload_model_honours_the_same_opt_in(saved, tmp_path, capsys):
    from kabenvs.cli import main as kabenvs_main

    evil, marker = evil_archive(saved, tmp_path)
    spec = f"search:sims=2,model={evil}"
    for argv in (["evaluate", spec, "random", "--game", "kabaleo_v0", "--deals", "1"],
                 ["play", "kabaleo_v0", "--seat", spec, "random", "--seed", "1"]):
        assert kabenvs_main(argv) == 2, argv
        err = capsys.readouterr().err
        assert one_line(err) and "--trust-pickle" in err, err
    assert not marker.exists()
    assert kabenvs_main(["evaluate", f"{spec},leaf=value", "random", "--game", "kabaleo_v0", "--deals", "1",
                         "--trust-pickle"]) == 0
    assert marker.exists()  # the archive's critic serves leaf=value: only reachable with the opt-in
    capsys.readouterr()


def test_a_search_bots_model_is_checked_against_the_game_evaluated(saved, capsys):
    from kabenvs.cli import main as kabenvs_main

    rc = kabenvs_main(["evaluate", f"search:sims=2,model={saved}", "random", "random", "--game", "kabaleo_v0",
                       "--players", "3", "--deals", "1"])
    err = capsys.readouterr().err
    assert rc == 2 and one_line(err) and "num_players" in err, err


def test_a_policy_on_another_device_gets_its_inputs_there_and_answers_on_the_cpu(game, decisions):
    """A learner trained with ``algorithm.device: cuda`` plays its own training opponents: the batch
    goes to the device its weights are on and the logits and values come back as CPU arrays. Checked
    here with torch's "meta" device standing in for a GPU (tests/training/test_smoke.py runs the real
    thing where a GPU is)."""
    import torch

    from kabenvs.agents.safe_model import ActorNetwork

    seen = []

    class OnMeta(torch.nn.Module):
        def __init__(self, out: int) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(torch.empty(1, device="meta"))
            self.out = out

        def forward(self, obs):
            seen.append(obs.device.type)
            return torch.zeros(obs.shape[0], self.out)  # "back from the device"

    obs, masks = decisions
    net = ActorNetwork(OnMeta(game.num_actions), OnMeta(1))
    logits = masked_logits(net, obs, masks)
    values = policy_values(net, obs)
    assert seen == ["meta", "meta"]
    assert logits.shape == masks.shape and np.isneginf(logits[masks == 0]).all()
    assert values.shape == (len(obs),)
