"""Bad option values and config sections: each refused in one short line, none echoed whole.

Covers ``brief`` on values whose full ``repr`` is enormous (a YAML alias bomb), the env id and
Kabaal ``layout`` messages, and the small training-config mistakes that used to pass silently.
"""

from __future__ import annotations

import time
import tracemalloc
from collections import OrderedDict

import pytest

import kabenvs
from kabenvs.core.errors import BRIEF_LIMIT, ConfigError, brief
from kabenvs.core.registry import env_ids, game_class
from training.config import TrainingConfigError, load_config, parse_yaml, validate

# -- brief -----------------------------------------------------------------------------------------


def _shared_lists(depth: int, width: int = 10):
    """``depth`` levels of ``width`` references to one list: a repr of width**depth elements."""
    value = ["x"] * width
    for _ in range(depth):
        value = [value] * width
    return value


def test_brief_of_a_value_with_an_enormous_repr_is_quick_and_small():
    bomb = _shared_lists(30)  # a repr of 10**31 elements: never finishes if it is built
    tracemalloc.start()
    start = time.perf_counter()
    shown = brief(bomb)
    elapsed = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert elapsed < 1 and peak < 1_000_000, (elapsed, peak)
    start_of_repr = "[" * 31 + ", ".join(["'x'"] * 10)
    assert shown == start_of_repr[:BRIEF_LIMIT - 3] + f"... (over {BRIEF_LIMIT} characters)"


def test_a_yaml_alias_bomb_in_a_training_config_is_refused_quickly():
    lines = ["game:", "  env_id: kabaleo_v0", "algorithm:", "  net_arch:",
             "    - &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"    - &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 12)]
    start = time.perf_counter()
    with pytest.raises(TrainingConfigError) as err:
        validate(parse_yaml("\n".join(lines) + "\n", "bomb.yaml"), "bomb.yaml")
    assert time.perf_counter() - start < 5
    assert "algorithm.net_arch=[['x', 'x'" in str(err.value) and len(str(err.value)) < 250, str(err.value)


@pytest.mark.parametrize("value", [
    0, -3, 1.5, True, None, "ab", b"\x00", "x" * 78, [1, 2, (3,)], (1,), (), [], {}, set(), frozenset(),
    {"b": 1, "a": [1, {2, 3}]}, {3, 1, 2}, frozenset({1, 2}), OrderedDict(a=1), [[[[[[[[[[1]]]]]]]]]],
    {"k": (1, "x" * 30)}, [0] * 26, float("nan"),
])
def test_brief_of_a_small_value_is_its_repr(value):
    assert len(repr(value)) <= BRIEF_LIMIT and brief(value) == repr(value)


def test_brief_of_a_value_that_contains_itself_is_its_repr():
    loop: list = []
    loop.append(loop)
    mapping: dict = {}
    mapping["self"] = mapping
    pair: tuple = ([],)
    pair[0].append(pair)
    for value in (loop, mapping, pair):
        assert brief(value) == repr(value)


@pytest.mark.parametrize("value", [list(range(30)), {"key": "v" * 100}, [["a" * 60, "b" * 60]]])
def test_brief_of_a_longer_value_keeps_its_exact_start_and_length(value):
    full = repr(value)
    assert brief(value) == f"{full[:BRIEF_LIMIT - 3]}... ({len(full)} characters)"


def test_brief_of_a_long_container_keeps_its_exact_start():
    value = [list(range(50))] * 1000
    shown = brief(value)
    assert shown == f"{repr(value)[:BRIEF_LIMIT - 3]}... (over {BRIEF_LIMIT} characters)"


# -- env ids and options -----------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", [["kabaal_v0"], {"kabaal_v0": 1}])
def test_an_env_id_that_is_not_a_string_is_a_config_error(env_id):
    with pytest.raises(ConfigError) as err:
        kabenvs.make(env_id)
    assert str(err.value) == f"unknown env id {env_id!r}; known env ids: {env_ids()}"
    with pytest.raises(ConfigError):
        game_class(env_id)


@pytest.mark.parametrize("layout, says", [
    ("x" * 100_000, "layout='xxx"),
    (["x" * 100_000], "layout row 0 = 'xxx"),
    ([["x" * 100_000]], "layout cell (0, 0) = 'xxx"),
    ([["x"] * 100_000], "layout cell (0, 0) = 'x' is neither"),
], ids=["name", "row", "cell", "many cells"])
def test_a_huge_kabaal_layout_is_echoed_as_a_short_prefix(layout, says):
    with pytest.raises(ConfigError) as err:
        kabenvs.make("kabaal_v0", layout=layout)
    assert says in str(err.value) and len(str(err.value)) < 600, str(err.value)[:300]


# -- training configs ---------------------------------------------------------------------------------


def _config(tmp_path, text: str):
    path = tmp_path / "t.yaml"
    path.write_text("game:\n  env_id: kabaleo_v0\n" + text)
    return path


@pytest.mark.parametrize("section", ["algorithm", "self_play", "output"])
@pytest.mark.parametrize("value, shown", [("0", "0"), ("false", "False"), ("''", "''"), ("[]", "[]")])
def test_a_section_that_is_not_a_mapping_is_refused(tmp_path, section, value, shown):
    with pytest.raises(TrainingConfigError) as err:
        load_config(_config(tmp_path, f"{section}: {value}\n"))
    assert str(err.value).endswith(f"section '{section}' must be a mapping, got {shown}")


def test_an_empty_section_still_means_the_defaults(tmp_path):
    cfg = load_config(_config(tmp_path, "algorithm:\nself_play:\n"))
    assert cfg["algorithm"] == load_config(_config(tmp_path, ""))["algorithm"]


def test_opponent_weights_read_exponent_notation_like_the_float_keys(tmp_path):
    cfg = load_config(_config(tmp_path, "self_play:\n  opponents: {self: 1e-1, random: 3E-1}\n"))
    assert cfg["self_play"]["opponents"] == {"self": 0.1, "random": 0.3}
    for bad in ("x", "nan", "-1e-1", "inf"):
        with pytest.raises(TrainingConfigError, match=f"opponents.random='{bad}' must be a number >= 0"):
            load_config(_config(tmp_path, f"self_play:\n  opponents: {{self: 1, random: '{bad}'}}\n"))
    with pytest.raises(TrainingConfigError, match=r"the weights \{'self': 0.0\} must not all be 0"):
        load_config(_config(tmp_path, "self_play:\n  opponents: {self: 0e1}\n"))


def test_a_config_path_that_is_a_folder_or_too_long(tmp_path):
    folder = f"^config file '{tmp_path}' is a folder; give the path of a YAML file$"
    with pytest.raises(TrainingConfigError, match=folder):
        load_config(tmp_path)
    with pytest.raises(TrainingConfigError) as err:
        load_config("n" * 5000)
    assert "cannot read the config (File name too long)" in str(err.value) and len(str(err.value)) < 300


def test_train_check_on_a_folder_is_one_line(tmp_path, capsys):
    from kabenvs.cli import main

    assert main(["train", str(tmp_path), "--check"]) == 2
    err = capsys.readouterr().err
    assert err == f"error: config file '{tmp_path}' is a folder; give the path of a YAML file\n"
