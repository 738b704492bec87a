"""Direct tests of the small core helpers (action catalog, observation layout, config checks, atomic
files). The behavioural suite reaches them only through whole games; these pin their exact contract
and were written to kill the mutants it let through (docs/testing.md, "Mutation testing")."""

from __future__ import annotations

import dataclasses
import json
import os

import numpy as np
import pytest

from kabenvs.core.actions import ActionCatalog
from kabenvs.core.config import GameConfig
from kabenvs.core.errors import ConfigError
from kabenvs.core.files import atomic_write, atomic_write_json
from kabenvs.core.observation import ObservationLayout

# -- ActionCatalog ---------------------------------------------------------------------------


def _catalog() -> ActionCatalog:
    cat = ActionCatalog()
    cat.add("pass")  # no parameters, default name: the kind
    cat.add("play", [(1, "a"), (2, "b")])  # default name: kind and move joined by spaces
    cat.add("bid", [(3,), (4,)], name="bid {0} tricks", describe="how many tricks")
    cat.add("none", [], describe="never offered")  # an empty kind between others: skipped in the table
    cat.add("take", [(5, 6)], name=lambda x, y: f"take {x}+{y}", describe="takes two")
    return cat


def test_catalog_hands_out_contiguous_ids_and_names():
    cat = _catalog()
    assert len(cat) == cat.size == 6
    assert cat.kinds == ["pass", "play", "bid", "none", "take"]
    assert cat.range("pass") == range(0, 1)
    assert cat.range("play") == range(1, 3)
    assert cat.range("bid") == range(3, 5)
    assert cat.range("take") == range(5, 6)
    assert cat.range("none") == range(5, 5)
    assert cat.names() == ["pass", "play 1 a", "play 2 b", "bid 3 tricks", "bid 4 tricks", "take 5+6"]
    assert [cat.name(i) for i in range(6)] == cat.names()
    assert cat.decode(2) == ("play", (2, "b"))
    assert cat.kind(4) == "bid" and cat.move(4) == (4,)
    assert cat.id("play", 2, "b") == 2 and cat.id("pass") == 0 and cat.id("take", 5, 6) == 5


def test_catalog_copies_are_not_views():
    cat = _catalog()
    cat.kinds.append("x")
    cat.names().append("x")
    assert cat.kinds == ["pass", "play", "bid", "none", "take"] and len(cat.names()) == 6


def test_catalog_lookup_by_name_and_errors_name_the_culprit():
    cat = _catalog()
    assert cat.lookup_name("bid 4 tricks") == 4
    assert cat.lookup_name("pass") == 0
    with pytest.raises(KeyError, match="no action named 'bid 9 tricks'"):
        cat.lookup_name("bid 9 tricks")
    with pytest.raises(KeyError, match=r"no action play \(3, 'c'\) in this catalog"):
        cat.id("play", 3, "c")
    with pytest.raises(ValueError, match="decision kind 'play' declared twice"):
        cat.add("play", [(9,)])
    with pytest.raises(ValueError, match=r"move \(1,\) of kind 'dup' declared twice"):
        ActionCatalog().add("dup", [(1,), (1,)])


def test_catalog_table_lists_each_offered_kind():
    assert _catalog().table().split("\n") == [
        "| ids | decision kind | count | example | meaning |",
        "|---|---|---|---|---|",
        "| 0 | `pass` | 1 | `pass` |  |",
        "| 1-2 | `play` | 2 | `play 1 a` |  |",
        "| 3-4 | `bid` | 2 | `bid 3 tricks` | how many tricks |",
        "| 5 | `take` | 1 | `take 5+6` | takes two |",
    ]


# -- ObservationLayout -------------------------------------------------------------------------


def _layout() -> ObservationLayout:
    lay = ObservationLayout()
    lay.add("flag", 1, "one bit")
    lay.add("grid", (2, 3), "a board")
    lay.add("scalar", (), "a number")
    lay.add("row", [4], "a row")
    return lay


def test_layout_blocks_are_contiguous_in_declaration_order():
    lay = _layout()
    assert lay.size == 1 + 6 + 1 + 4
    assert lay.blocks() == ["flag", "grid", "scalar", "row"]
    assert lay["grid"] == slice(1, 7) and lay.offset("grid") == 1
    assert lay["scalar"] == slice(7, 8) and lay.offset("row") == 8
    assert lay.shape("flag") == (1,) and lay.shape("grid") == (2, 3) and lay.shape("scalar") == ()
    assert lay.shape("row") == (4,)
    with pytest.raises(ValueError, match="observation block 'grid' declared twice"):
        lay.add("grid", 1, "again")


def test_layout_views_write_through_and_split_cuts_back():
    lay = _layout()
    buf = lay.zeros()
    assert buf.dtype == np.float32 and buf.shape == (12,) and not buf.any()
    lay.view(buf, "grid")[1, 2] = 5.0
    assert buf[6] == 5.0
    parts = lay.split(np.arange(12, dtype=np.float32))
    assert list(parts) == ["flag", "grid", "scalar", "row"]
    assert parts["grid"].shape == (2, 3) and parts["grid"][0, 0] == 1 and parts["grid"][1, 2] == 6
    assert parts["scalar"].shape == () and parts["scalar"] == 7
    assert parts["row"].tolist() == [8, 9, 10, 11]


def test_layout_table():
    assert _layout().table().split("\n") == [
        "| indices | block | shape | meaning |",
        "|---|---|---|---|",
        "| 0 | `flag` | (1,) | one bit |",
        "| 1-6 | `grid` | (2, 3) | a board |",
        "| 7 | `scalar` | () | a number |",
        "| 8-11 | `row` | (4,) | a row |",
    ]


# -- GameConfig ------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Config(GameConfig):
    PLAYER_COUNTS = (2, 3)
    rounds: int = 5
    open_hands: bool = False
    layout: tuple = ((1, 2), (3,))
    mode: str = "a"

    def validate(self) -> None:
        super().validate()
        self.check_int("rounds", 1, 9)
        self.check_bool("open_hands")
        self.check_choice("mode", ("a", "b"))


@dataclasses.dataclass(frozen=True)
class _Open(GameConfig):
    stock: int = 0

    def validate(self) -> None:
        self.check_int("stock", 0)


def test_config_round_trips_and_deep_converts_lists():
    cfg = _Config.from_dict({"num_players": 3, "layout": [[4, [5]], [6]]})
    assert cfg.num_players == 3 and cfg.layout == ((4, (5,)), (6,))
    assert cfg.to_dict() == {
        "num_players": 3, "rounds": 5, "open_hands": False, "layout": [[4, [5]], [6]], "mode": "a",
    }
    assert _Config.from_dict(cfg.to_dict()) == cfg
    assert _Config.from_dict(None) == _Config()
    assert _Config.field_names() == ["num_players", "rounds", "open_hands", "layout", "mode"]


@pytest.mark.parametrize(
    "options, message",
    [
        ({"num_players": 4}, "num_players=4 is not allowed; choose one of [2, 3]"),
        ({"num_players": True}, "num_players=True is not allowed; choose one of [2, 3]"),
        ({"rounds": 0}, "rounds=0 is out of range; it must be between 1 and 9"),
        ({"rounds": 10}, "rounds=10 is out of range; it must be between 1 and 9"),
        ({"rounds": 2.0}, "rounds=2.0 must be an integer"),
        ({"rounds": True}, "rounds=True must be an integer"),
        ({"open_hands": 1}, "open_hands=1 must be true or false"),
        ({"mode": "c"}, "mode='c' is not allowed; choose one of ['a', 'b']"),
        ({"colour": 1}, "unknown option(s) ['colour'] for _Config; allowed options: ['num_players', "),
    ],
)
def test_config_errors_name_field_value_and_what_is_allowed(options, message):
    with pytest.raises(ConfigError) as err:
        _Config.from_dict(options)
    assert str(err.value).startswith(message)


def test_config_edges_are_allowed():
    assert _Config(rounds=1).rounds == 1 and _Config(rounds=9).rounds == 9
    assert _Config(open_hands=True).open_hands is True
    assert _Open(stock=10**6).stock == 10**6
    with pytest.raises(ConfigError, match=r"stock=-1 is out of range; it must be >= 0$"):
        _Open(stock=-1)
    with pytest.raises(ConfigError, match="^boom$"):
        _Open().fail("boom")


def test_a_bool_choice_is_allowed_where_bools_are_offered():
    @dataclasses.dataclass(frozen=True)
    class _B(GameConfig):
        flag: object = False

        def validate(self) -> None:
            self.check_choice("flag", (False, True, "auto"))

    assert _B(flag=True).flag is True and _B(flag="auto").flag == "auto"

    @dataclasses.dataclass(frozen=True)
    class _N(GameConfig):
        level: object = 0

        def validate(self) -> None:
            self.check_choice("level", (0, 1))

    assert _N(level=1).level == 1
    with pytest.raises(ConfigError, match=r"^level=True is not allowed; choose one of \[0, 1\]$"):
        _N(level=True)  # True == 1, but a bool is no number here


# -- atomic files ----------------------------------------------------------------------------


def test_atomic_write_creates_folders_replaces_whole_and_leaves_no_temporaries(tmp_path):
    target = tmp_path / "a" / "b" / "out.txt"
    atomic_write(target, "héllo")
    assert target.read_bytes() == "héllo".encode("utf-8")
    atomic_write(str(target), b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    atomic_write_json(target, {"x": [1, 2]}, indent=2)
    assert target.read_text() == json.dumps({"x": [1, 2]}, indent=2)
    assert os.listdir(target.parent) == ["out.txt"]


def test_atomic_write_failure_keeps_the_old_file_and_removes_the_temporary(tmp_path):
    target = tmp_path / "out.json"
    atomic_write(target, "old")
    with pytest.raises(TypeError):
        atomic_write(target, 12345)  # not bytes: the write fails midway
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["out.json"]


def test_atomic_write_temporary_is_hidden_next_to_the_target(tmp_path, monkeypatch):
    seen = []
    real_replace = os.replace

    def spy(src, dst):
        seen.append((os.path.dirname(src), os.path.basename(src), open(src, "rb").read()))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    atomic_write(tmp_path / "m.bin", b"data")
    folder, name, data = seen[0]
    assert folder == str(tmp_path) and name.startswith(".m.bin.") and name.endswith(".tmp")
    assert data == b"data"


def test_only_tuple_fields_turn_lists_into_tuples():
    @dataclasses.dataclass(frozen=True)
    class _L(GameConfig):
        anything: object = None

    assert _L.from_dict({"anything": [1, [2]]}).anything == [1, [2]]
