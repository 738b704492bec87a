"""A ``cards`` file that cannot be read as CSV: one short ConfigError from every way in.

The file is read by ``load_cards`` whether the path comes from ``kabenvs.make``, ``kabenvs
evaluate --option``, a training config, a saved state or a game log; each of those reports a
ConfigError in one line, so every read problem (bytes that are not UTF-8, a field past the csv
module's limit, a path the OS refuses) has to become one.
"""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

import kabenvs
from kabenvs.core.errors import ConfigError
from kabenvs.core.game import State
from kabenvs.core.registry import make_game
from kabenvs.games.alakazum.cards import DEFAULT_CARDS, load_cards
from kabenvs.play.cli import main as play_main
from kabenvs.records import make_record

GOOD = DEFAULT_CARDS.read_bytes()


def _file(tmp_path, data: bytes, name="cards.csv") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def _bad_files(tmp_path) -> dict[str, tuple[str, str]]:
    """name -> (the cards option, what the message must say)."""
    return {
        "not utf-8": (_file(tmp_path, GOOD + b"X\xe9\xff,,,\n", "latin.csv"),
                      f"not UTF-8 text (byte 0xe9 at offset {len(GOOD) + 1})"),
        "a field past the csv limit": (
            _file(tmp_path, GOOD + b"Z" * (csv.field_size_limit() + 10) + b"\n", "huge.csv"),
            f"a field is longer than {csv.field_size_limit()} characters"),
        "a name too long for the OS": ("n" * 5000, "cannot read the card list (File name too long)"),
    }


CASES = ["not utf-8", "a field past the csv limit", "a name too long for the OS"]


def _short_one_line(message: str) -> bool:
    return "\n" not in message and len(message) < 600  # a path is shown up to 200 characters


@pytest.mark.parametrize("case", CASES)
def test_an_unreadable_card_file_is_one_short_config_error(tmp_path, case):
    cards, says = _bad_files(tmp_path)[case]
    with pytest.raises(ConfigError) as err:
        kabenvs.make("alakazum_v0", cards=cards)
    assert says in str(err.value) and _short_one_line(str(err.value)), str(err.value)


def test_the_message_names_the_file_and_cuts_an_absurd_path(tmp_path):
    cards, _ = _bad_files(tmp_path)["not utf-8"]
    with pytest.raises(ConfigError, match=f"^{cards}: not UTF-8"):
        load_cards(cards)
    with pytest.raises(ConfigError) as err:
        load_cards("n" * 5000)
    assert str(err.value).startswith("'" + "n" * 100) and "(5002 characters): cannot read" in str(err.value)


def test_a_long_cell_value_is_echoed_as_a_short_prefix(tmp_path):
    lines = GOOD.decode().splitlines()
    cells = lines[1].split(",")
    cells[5] = "9" * 5000  # the first card's combat: an int too long even for int()
    path = _file(tmp_path, "\n".join([lines[0], ",".join(cells), *lines[2:]]).encode() + b"\n")
    with pytest.raises(ConfigError) as err:
        load_cards(path)
    message = str(err.value)
    assert "row 2: combat='999" in message and "... (5002 characters) is not valid" in message
    assert len(message) < len(path) + 250, message


def test_a_byte_order_mark_from_a_spreadsheet_is_not_part_of_the_header(tmp_path):
    path = _file(tmp_path, b"\xef\xbb\xbf" + GOOD)
    assert [c.code for c in load_cards(path).cards] == [c.code for c in load_cards().cards]


@pytest.mark.parametrize("case", CASES)
def test_a_saved_state_naming_an_unreadable_card_file(tmp_path, case):
    cards, says = _bad_files(tmp_path)[case]
    doc = json.loads(make_game("alakazum_v0").new_state(np.random.default_rng(0)).to_json())
    doc["config"]["cards"] = cards
    with pytest.raises(ConfigError) as err:
        State.from_json(json.dumps(doc))
    assert says in str(err.value) and _short_one_line(str(err.value)), str(err.value)


@pytest.mark.parametrize("case", CASES)
def test_replaying_a_log_naming_an_unreadable_card_file(tmp_path, case):
    cards, says = _bad_files(tmp_path)[case]
    state = make_game("alakazum_v0", num_players=2).new_state(np.random.default_rng(3))
    record = make_record(state, [{"kind": "random"}, {"kind": "random"}], 3)
    record["config"]["cards"] = cards
    log = tmp_path / "games.jsonl"
    log.write_text(json.dumps(record) + "\n")
    err = io.StringIO()
    assert play_main(["--replay", str(log)], io.StringIO(""), io.StringIO(), err) == 2
    assert len(err.getvalue().splitlines()) == 1 and says in err.getvalue(), err.getvalue()


@pytest.mark.parametrize("case", CASES)
def test_evaluate_option_and_train_check_naming_an_unreadable_card_file(tmp_path, case, capsys):
    from kabenvs.cli import main

    cards, says = _bad_files(tmp_path)[case]
    code = main(["evaluate", "heuristic", "random", "--game", "alakazum_v0", "--deals", "1",
                 "--option", f"cards={cards}"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1 and says in err, err
    config = tmp_path / "t.yaml"
    config.write_text(f"game:\n  env_id: alakazum_v0\n  cards: {json.dumps(cards)}\n")
    code = main(["train", str(config), "--check"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1 and says in err, err
