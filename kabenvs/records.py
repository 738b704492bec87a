"""Game logs: one JSON line per finished (or abandoned) game, for any registered game.

A record is enough to replay the game exactly: the env id and game config rebuild the ``Game``,
``game.new_state(np.random.default_rng(seed))`` re-deals it, and the recorded actions are applied
in order (the state's own generator covers later chance). The record also says who sat where
(human, trained model with its file hash, heuristic or random bot), every action with the seat
that took it and its readable name, and the result, so logs can be summarised without replaying
(``training/human_results.py``).

Record layout (``version`` 1)::

    {"format": "kabenvs-game-log", "version": 1, "kabenvs_version": "0.1.0",
     "env_id": "kabaleo_v0", "config": {...}, "seed": 123,
     "seats": [{"kind": "human", "name": "ann", "model_path": null, "model_hash": null}, ...],
     "actions": [{"player": 0, "action": 17, "name": "place green on spot 1"}, ...],
     "result": {"finished": true, "truncated": false, "winners": [0], "returns": [1.0, -1.0],
                "scores": [5.0, 3.0], "final_info": {...}},
     "final_state_sha256": "...", "meta": {...}}

``finished`` is false for a game abandoned before its end (a human typed ``quit``); its winners are
empty and its returns zero. ``truncated`` is true when the game's own limit ended it without a
result. Summaries count neither as a result.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kabenvs.core.errors import ConfigError, IllegalActionError, KabenvsError, brief
from kabenvs.core.game import Game, State
from kabenvs.core.registry import game_class

FORMAT = "kabenvs-game-log"
VERSION = 1
SEAT_KINDS = ("human", "model", "heuristic", "random", "search")
_SEAT_KEYS = ("kind", "name", "model_path", "model_hash")
_REQUIRED = ("env_id", "config", "seed", "seats", "actions", "result")


class RecordError(KabenvsError, ValueError):
    """A game log that cannot be read or a record that does not replay; the message says where."""


def model_hash(path: str | os.PathLike) -> str:
    """The identity of a trained model in game logs: the SHA-256 (hex) of its file, as
    ``kabenvs.agents.policy.model_hash`` computes it for a model's weights file
    (``NAME.safetensors``, or ``NAME.zip`` for a trusted SB3 archive)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def state_hash(state: State) -> str:
    """SHA-256 of the state's exact JSON (fields, history and generator): 'the same game' check."""
    return hashlib.sha256(state.to_json().encode()).hexdigest()


def normalise_seat(seat: dict[str, Any], index: int) -> dict[str, Any]:
    if not isinstance(seat, dict):
        raise ValueError(f"seat {index} must be a dict like {{'kind': 'human', 'name': ...}}, got {seat!r}")
    kind = seat.get("kind")
    if kind not in SEAT_KINDS:
        raise ValueError(f"seat {index}: kind={kind!r} is not one of {list(SEAT_KINDS)}")
    seat = dict(seat)
    # PolicyAgent.seat_info() says "path"/"hash"; the log's names are model_path/model_hash
    for short, full in (("path", "model_path"), ("hash", "model_hash")):
        if short in seat and seat.get(full) is None:
            seat[full] = seat.pop(short)
    out = {key: seat.get(key) for key in _SEAT_KEYS}
    if out["name"] is None:
        out["name"] = kind
    for key, value in seat.items():  # extra facts (an agent's seed, a player's label) are kept
        if key not in out:
            out[key] = value
    if kind == "model" and not out["model_hash"]:
        raise ValueError(f"seat {index}: a model seat needs its model_hash (see records.model_hash)")
    return out


def _plain(value: Any) -> Any:
    """JSON-native copy (numpy scalars/arrays from a game's final_info become ints/floats/lists)."""
    return json.loads(json.dumps(value, default=_json_default))


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def result_of(state: State) -> dict[str, Any]:
    """Winners, returns, scores and the game's final facts; an unfinished game has no result."""
    finished = state.current_player is None
    truncated = bool(state.truncated)
    if finished and not truncated:
        return {
            "finished": True,
            "truncated": False,
            "winners": [int(p) for p in state.winners()],
            "returns": [float(r) for r in state.returns()],
            "scores": _plain(state.scores()),
            "final_info": _plain(state.final_info()),
        }
    return {
        "finished": finished,
        "truncated": truncated,
        "winners": [],
        "returns": [0.0] * state.num_players,
        "scores": None,
        "final_info": None,
    }


def make_record(
    state: State,
    seats: Sequence[dict[str, Any]],
    deal_seed: int,
    meta: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The log record of ``state``, dealt by ``game.new_state(np.random.default_rng(deal_seed))``.

    The history is replayed from the deal to learn who took each action (decisions are not turns:
    reactions come out of turn), which also proves the record replays; a history that does not
    follow from ``deal_seed`` raises ``RecordError``.
    """
    game = state.game
    if len(seats) != game.num_players:
        raise ValueError(f"{len(seats)} seat(s) given for a {game.num_players}-player game")
    seat_list = [normalise_seat(s, i) for i, s in enumerate(seats)]
    replay = game.new_state(np.random.default_rng(int(deal_seed)))
    actions = []
    for step, action in enumerate(state.history):
        player = replay.current_player
        try:
            name = replay.action_name(action)
            replay.apply(action)
        except (IllegalActionError, IndexError) as exc:
            raise RecordError(
                f"the game's history does not replay from deal seed {deal_seed} at step {step}: {exc}"
            ) from None
        actions.append({"player": player, "action": int(action), "name": name})
    record = {
        "format": FORMAT,
        "version": VERSION,
        "kabenvs_version": _version(),
        "env_id": game.env_id,
        "config": game.config.to_dict(),
        "seed": int(deal_seed),
        "seats": seat_list,
        "actions": actions,
        "result": result_of(state),
        "final_state_sha256": state_hash(state),
    }
    if meta:
        record["meta"] = _plain(meta)
    return record


def _version() -> str:
    import kabenvs

    return kabenvs.__version__


def append_record(path: str | os.PathLike, record: dict[str, Any]) -> None:
    """Append one record as one JSON line (the parent folder is created if needed)."""
    path = Path(path)
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(record, sort_keys=True, separators=(",", ":"), default=_json_default)
    data = (line + "\n").encode("utf-8")
    # One O_APPEND write per record (concurrent writers do not interleave lines), flushed to disk:
    # a killed writer leaves the log as it was or with the whole record, at worst a cut-off last
    # line, which starts on a line of its own here so the records after it still read.
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        if _ends_without_newline(fd):
            data = b"\n" + data
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


def check_log_target(path: str | os.PathLike, option: str = "--log") -> None:
    """Refuse, before any game is played, a log path that cannot be appended to: ``RecordError``
    naming the option and the path. Checked here, not when the first record is written, because a
    refusal after the games are played loses them; and an existing file that is not a game log (a
    model's metadata, a config) would be corrupted by the appended lines."""
    path = os.fspath(path)
    if os.path.isdir(path):
        raise RecordError(f"{option} {path!r} is a folder; give a file such as {os.path.join(path, 'games.jsonl')}")
    if os.path.exists(path):
        if not os.access(path, os.W_OK):
            raise RecordError(f"{option} {path!r}: the file is not writable")
        if os.path.isfile(path):  # not /dev/null or a pipe: those hold no records to protect
            _check_is_game_log(path, option)
        return
    # append_record creates the missing folders: the nearest one that exists must be a folder we
    # may write in (a file on the way, or /proc, fails only at the first write otherwise)
    folder = os.path.dirname(os.path.abspath(path))
    while not os.path.lexists(folder):
        folder = os.path.dirname(folder)
    if not os.path.isdir(folder):
        what = "a file" if os.path.isfile(folder) else "something else (a broken link?)"
        raise RecordError(f"{option} {path!r}: {folder} is {what}, not a folder; give a path under a folder")
    # access() reads mode bits only; root passes it even where nothing can be made (/proc), so a
    # folder is also made and removed again in it: what append_record will do, minus the trace
    try:
        if not os.access(folder, os.W_OK | os.X_OK):
            raise PermissionError(13, "Permission denied")
        os.rmdir(tempfile.mkdtemp(prefix=".kabenvs-log-check-", dir=folder))
    except OSError as exc:
        raise RecordError(f"{option} {path!r}: cannot write in {folder} ({exc.strerror or exc})") from None


# A record's first line can be long (every action of a game), but a "first line" past this is no
# game record: reading stops there rather than loading a large file with no newline into memory.
_FIRST_LINE_LIMIT = 64 << 20


def _check_is_game_log(path: str, option: str) -> None:
    """An existing non-empty file must start with a game record (only its first line is read):
    appending game records to anything else would corrupt it."""
    try:
        with open(path, "rb") as fh:
            first = fh.readline(_FIRST_LINE_LIMIT)
            while first and not first.strip() and fh.tell() < _FIRST_LINE_LIMIT:
                first = fh.readline(_FIRST_LINE_LIMIT)  # blank lines (read_records skips them)
    except OSError as exc:
        raise RecordError(f"{option} {path!r}: cannot read the file ({exc.strerror or exc})") from None
    if not first.strip():
        return  # empty or blank: nothing to corrupt
    if not first.endswith(b"\n") and first.startswith(b'{"actions":'):
        return  # a log whose only record was cut off mid-write (append_record starts a new line)
    try:
        record = json.loads(first)
        is_record = isinstance(record, dict) and (record.get("format") == FORMAT or (
            "format" not in record and all(k in record for k in _REQUIRED)))
    except (ValueError, RecursionError):  # not JSON, not UTF-8, too deep or a huge integer
        is_record = False
    if not is_record:
        raise RecordError(f"{option} {path!r} exists and is not a kabenvs game log (its first line is not a game "
                          f"record); {option} appends game records, so give a new file or an existing game log")


def _ends_without_newline(fd: int) -> bool:
    size = os.fstat(fd).st_size
    return size > 0 and os.pread(fd, 1, size - 1) != b"\n"


def read_records(path: str | os.PathLike) -> list[dict[str, Any]]:
    """Every record of a game log; blank lines are skipped. Errors name the file and the line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordError(f"{path}: no such game log") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"{path}: cannot read the game log ({exc})") from None
    records = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}, line {lineno}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            if lineno == len(text.splitlines()) and not text.endswith("\n"):
                raise RecordError(f"{where}: the last record is cut off (its writer was stopped "
                                  f"mid-line?); remove that line to read the others") from None
            raise RecordError(f"{where}: not a JSON game record ({exc.msg} at column {exc.colno})") from None
        except RecursionError:
            raise RecordError(f"{where}: the JSON is nested too deeply to be a game record") from None
        except ValueError:  # json reads an integer past Python's 4300-digit limit and fails
            raise RecordError(f"{where}: not a game record (it holds a number with more than 4300 digits)") from None
        check_record(record, where)
        records.append(record)
    return records


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_record(record: Any, where: str = "record") -> None:
    """Type and shape checks of every field a reader uses (not a replay): a malformed record is a
    one-line ``RecordError`` naming the field, the value and what is allowed, never a crash later."""
    if not isinstance(record, dict):
        raise RecordError(f"{where}: a game record must be a JSON object, got {type(record).__name__}")
    missing = [k for k in _REQUIRED if k not in record]
    if missing:
        raise RecordError(f"{where}: not a kabenvs game record (missing {', '.join(missing)})")

    def bad(field: str, value: Any, allowed: str) -> RecordError:
        return RecordError(f"{where}: {field}={brief(value, 60)} is not allowed; it must be {allowed}")

    if "format" in record and record["format"] != FORMAT:
        raise bad("format", record["format"], repr(FORMAT))
    version = record.get("version", VERSION)
    if not _is_int(version) or version < 1:
        raise bad("version", version, f"an integer from 1 to {VERSION}")
    if version > VERSION:
        raise RecordError(f"{where}: record version {version} is newer than this kabenvs reads ({VERSION})")
    if not isinstance(record["env_id"], str):
        raise bad("env_id", record["env_id"], "an env id string such as 'kabaleo_v0'")
    config = record["config"]
    if not isinstance(config, dict):
        raise bad("config", config, "an object of the game's options")
    if not _is_int(record["seed"]) or record["seed"] < 0:
        raise bad("seed", record["seed"], "an integer >= 0")
    seats = record["seats"]
    if not isinstance(seats, list) or not seats:
        raise bad("seats", seats, "a non-empty list of seat objects")
    for i, seat in enumerate(seats):
        if not isinstance(seat, dict):
            raise bad(f"seats[{i}]", seat, "an object like {\"kind\": \"human\", \"name\": \"ann\"}")
        if seat.get("kind") not in SEAT_KINDS:
            raise bad(f"seats[{i}].kind", seat.get("kind"), f"one of {list(SEAT_KINDS)}")
        for key in ("name", "model_path", "model_hash"):
            if seat.get(key) is not None and not isinstance(seat[key], str):
                raise bad(f"seats[{i}].{key}", seat[key], "a string or null")
    n = len(seats)
    actions = record["actions"]
    if not isinstance(actions, list):
        raise bad("actions", actions, "a list of action objects")
    for i, act in enumerate(actions):
        if not isinstance(act, dict) or "action" not in act or "player" not in act:
            raise RecordError(f"{where}: action {i} must be an object with 'player' and 'action'")
        if not _is_int(act["action"]) or act["action"] < 0:
            raise bad(f"actions[{i}].action", act["action"], "an action id (an integer >= 0)")
        if not _is_int(act["player"]) or not 0 <= act["player"] < n:
            raise bad(f"actions[{i}].player", act["player"], f"a seat number 0..{n - 1}")
        if act.get("name") is not None and not isinstance(act["name"], str):
            raise bad(f"actions[{i}].name", act["name"], "a string or null")
    _check_result(record["result"], n, bad, where)
    digest = record.get("final_state_sha256")
    if digest is not None and not isinstance(digest, str):
        raise bad("final_state_sha256", digest, "a hex string or null")


def _check_result(result: Any, n: int, bad, where: str) -> None:
    if not isinstance(result, dict) or "winners" not in result or "returns" not in result:
        raise RecordError(f"{where}: 'result' must hold 'winners' and 'returns'")
    for key in ("finished", "truncated"):
        if key in result and not isinstance(result[key], bool):
            raise bad(f"result.{key}", result[key], "true or false")
    winners = result["winners"]
    if not isinstance(winners, list) or not all(_is_int(w) and 0 <= w < n for w in winners):
        raise bad("result.winners", winners, f"a list of seat numbers 0..{n - 1}")
    returns = result["returns"]
    if not isinstance(returns, list) or len(returns) != n or not all(_is_number(r) for r in returns):
        raise bad("result.returns", returns, f"a list of {n} numbers (one per seat)")
    scores = result.get("scores")
    if scores is not None and (not isinstance(scores, list) or len(scores) != n):
        raise bad("result.scores", scores, f"null or a list of {n} values (one per seat)")


def check_against_game(record: dict[str, Any], game: Game, where: str = "record") -> None:
    """What only the game can tell: the seat count and the range of every action id."""
    if len(record["seats"]) != game.num_players:
        raise RecordError(f"{where}: {len(record['seats'])} seats for a {game.num_players}-player "
                          f"{game.env_id} game; there must be one seat per player")
    for i, act in enumerate(record["actions"]):
        if act["action"] >= game.num_actions:
            raise RecordError(f"{where}: actions[{i}].action={brief(act['action'], 60)} is out of range; "
                              f"{game.env_id} has action ids 0..{game.num_actions - 1}")


def game_of(record: dict[str, Any]) -> Game:
    """The ``Game`` a record was played in (its env id and config)."""
    try:
        cls = game_class(record["env_id"])
        if not all(isinstance(k, str) for k in record["config"]):
            raise ConfigError(f"config keys must be option names, got {brief(list(record['config']))}")
        return cls(**record["config"])
    except (ConfigError, TypeError, ValueError) as exc:  # a wrong type deep in a config: TypeError
        raise RecordError(f"cannot rebuild the game of this record: {exc}") from None


def replay_states(record: dict[str, Any], game: Game | None = None) -> Iterator[State]:
    """The states of a logged game, from the deal to the end: one more state than actions.

    Each yielded state is a copy the caller may keep. A record that does not replay (an action
    that is not legal, a different deciding seat, a different final state) raises ``RecordError``
    naming the step, so a log made by a different rules version cannot pass for the same game.
    """
    check_record(record)
    game = game if game is not None else game_of(record)
    check_against_game(record, game)
    state = game.new_state(np.random.default_rng(int(record["seed"])))
    yield state.clone()
    for step, act in enumerate(record["actions"]):
        action, player = act["action"], act["player"]
        if state.current_player != player:
            raise RecordError(
                f"replay diverges at step {step}: the log says player {player} decides, "
                f"the game says {state.current_player}"
            )
        try:
            now = state.action_name(action)  # named before it is taken, as make_record does
            state.apply(action)
        except (IllegalActionError, IndexError) as exc:
            raise RecordError(f"replay diverges at step {step}: {exc}") from None
        name = act.get("name")
        if name is not None and now != name:
            raise RecordError(
                f"replay diverges at step {step}: action {action} is {now!r} "
                f"now but {name!r} in the log (a different version of the game?)"
            )
        yield state.clone()
    expected = record.get("final_state_sha256")
    if expected and state_hash(state) != expected:
        raise RecordError("replay reaches a different final state than the log recorded")
