"""Files a user is handed are untrusted input too: a safe model's metadata and weights, and a
human-study config. Each is a real file mutated by Hypothesis (as the saves and logs next door);
whatever it becomes, loading it gives an agent that plays a legal move, or one line naming what
was wrong (small budgets, fixed seeds: part of the default run; ``PROPERTY_EXAMPLES`` scales)."""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("hypothesis")
pytest.importorskip("safetensors")
from hypothesis import given
from hypothesis import strategies as st

import kabenvs
from kabenvs.agents.base import Decision
from kabenvs.agents.policy import load_agent
from kabenvs.core.errors import KabenvsError
from kabenvs.core.registry import make_game
from kabenvs.web.study import validate_study
from tests.hardening.mutate import SETTINGS, assert_one_line, mutate

# The shipped Kabaleo 2-player agent: a real safe model (weights and metadata), small enough to copy
# per example.
ZOO = Path(kabenvs.__file__).parent / "zoo" / "agents" / "kabaleo_v0-2p"
GAME = make_game("kabaleo_v0", num_players=2)
# An error names the file (a temporary path) and echoes a bad value cut short: far under this.
LONGEST_ERROR = 600


def _one_line(exc: BaseException) -> None:
    assert_one_line(exc, (KabenvsError,), LONGEST_ERROR)


def _plays(agent) -> None:
    state = GAME.new_state(np.random.default_rng(0))
    rng = np.random.default_rng(1)
    for _ in range(6):  # a few decisions, the first and some after moves
        action = agent.act(Decision(state.current_player, state))
        assert action in state.legal_actions()
        state.apply(int(rng.choice(state.legal_actions())))


def _load_or_refuse(folder: Path) -> None:
    try:
        agent = load_agent(folder / "m", GAME, seed=0)
    except KabenvsError as exc:
        _one_line(exc)
        return
    _plays(agent)


@SETTINGS
@given(data=st.data())
def test_a_mutated_model_metadata_file_loads_and_plays_or_is_one_line(data):
    meta = json.loads(ZOO.with_suffix(".json").read_text(encoding="utf-8"))
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        mutate(data, meta)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        shutil.copyfile(ZOO.with_suffix(".safetensors"), folder / "m.safetensors")
        (folder / "m.json").write_text(json.dumps(meta), encoding="utf-8")
        _load_or_refuse(folder)


@SETTINGS
@given(data=st.data(), rehash=st.booleans())
def test_mutated_model_weights_load_and_play_or_are_one_line(data, rehash):
    """Bytes of the weights file changed, cut or added; ``rehash``: the metadata then names the new
    file's hash (a hand-made file, which the hash check alone does not stop)."""
    weights = bytearray(ZOO.with_suffix(".safetensors").read_bytes())
    meta = json.loads(ZOO.with_suffix(".json").read_text(encoding="utf-8"))
    edit = data.draw(st.sampled_from(["flip", "cut", "append", "header"]), label="edit")
    if edit == "flip":
        for _ in range(data.draw(st.integers(1, 8), label="flips")):
            at = data.draw(st.integers(0, len(weights) - 1), label="at")
            weights[at] = data.draw(st.integers(0, 255), label="byte")
    elif edit == "cut":
        weights = weights[: data.draw(st.integers(0, len(weights) - 1), label="length")]
    elif edit == "append":
        weights += data.draw(st.binary(min_size=1, max_size=64), label="tail")
    else:  # the JSON header at the front of a safetensors file (after its 8-byte length)
        size = int.from_bytes(weights[:8], "little")
        header = json.loads(weights[8: 8 + size])
        for _ in range(data.draw(st.integers(1, 2), label="mutations")):
            mutate(data, header)
        raw = json.dumps(header).encode()
        weights = bytearray(len(raw).to_bytes(8, "little")) + raw + weights[8 + size:]
    if rehash:
        meta["sha256"] = hashlib.sha256(bytes(weights)).hexdigest()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "m.safetensors").write_bytes(bytes(weights))
        (folder / "m.json").write_text(json.dumps(meta), encoding="utf-8")
        _load_or_refuse(folder)


STUDY = {"study": "pilot", "game": "kabaleo_v0", "players": 2, "options": {"mode": "random"},
         "agents": ["heuristic", "random"], "games_per_participant": 4, "seat_rotation": True,
         "deal_pairing": True, "seed": 50}


@SETTINGS
@given(data=st.data())
def test_a_mutated_study_config_is_valid_or_one_line(data):
    raw = copy.deepcopy(STUDY)
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        mutate(data, raw)
    try:
        study = validate_study(raw, "s.yaml")
    except KabenvsError as exc:
        _one_line(exc)
        assert str(exc).startswith("s.yaml")
        return
    assert study.game == raw["game"]  # (the one key with no default)


def test_a_model_whose_network_names_no_trunk_is_refused_in_one_line(tmp_path):
    """Found at 2,000 examples: the checks read a missing trunk as "no trunk" while the loader
    indexed it (a KeyError traceback)."""
    meta = json.loads(ZOO.with_suffix(".json").read_text(encoding="utf-8"))
    del meta["network"]["trunk"]
    shutil.copyfile(ZOO.with_suffix(".safetensors"), tmp_path / "m.safetensors")
    (tmp_path / "m.json").write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(KabenvsError, match="network.trunk: missing") as err:
        load_agent(tmp_path / "m", GAME)
    _one_line(err.value)
