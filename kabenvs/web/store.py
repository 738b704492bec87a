"""SQLite storage of web games: enough to rebuild each game exactly after a restart.

A game row holds the env id, the game config, the seats (spec, kind, name, secret token), the deal
seed and the list of actions taken. ``game.new_state(np.random.default_rng(seed))`` re-deals the
game and applying the actions replays it (the same contract as the game logs of
``kabenvs.records``). The action list is rewritten in one transaction after every move, so a
killed server loses at most the move it was applying.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kabenvs.core.errors import ConfigError

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    env_id TEXT NOT NULL,
    config TEXT NOT NULL,
    seats TEXT NOT NULL,
    seed INTEGER NOT NULL,
    actions TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    options TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS participants (
    study TEXT NOT NULL,
    id TEXT NOT NULL,
    token TEXT NOT NULL,
    label TEXT NOT NULL,
    number INTEGER NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (study, id)
);
CREATE TABLE IF NOT EXISTS secrets (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""
TABLES = ("games", "participants", "secrets")


@dataclass
class GameRow:
    id: str
    env_id: str
    config: dict[str, Any]
    seats: list[dict[str, Any]]  # {"spec", "kind", "name", "token"}
    seed: int
    actions: list[int] = field(default_factory=list)
    status: str = "playing"  # playing | finished | truncated | error
    error: str | None = None
    options: dict[str, Any] = field(default_factory=dict)  # web-only facts: hot seat, watch token, study
    created: float = 0.0
    updated: float = 0.0


class Store:
    """One SQLite file; safe to use from the server's threads (one connection, one lock)."""

    def __init__(self, path: str | Path) -> None:
        """Open (or create) the database; a folder that cannot hold it, a file that is not SQLite
        or a database whose tables are another program's raise ``ConfigError`` in one line, before
        anything is written to it."""
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        except OSError as exc:
            raise ConfigError(f"games database {str(self.path)!r}: cannot use its folder "
                              f"({exc.strerror or exc})") from None
        except sqlite3.Error as exc:
            raise ConfigError(f"games database {str(self.path)!r}: cannot open it ({exc})") from None
        try:
            self._check_tables()
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
        except sqlite3.Error as exc:
            self._db.close()
            raise ConfigError(f"games database {str(self.path)!r}: {exc}; pass --data a folder of "
                              "kabenvs's own games database, or a new folder") from None
        except ConfigError:
            self._db.close()
            raise

    def _check_tables(self) -> None:
        """An existing table of ours must have our columns (``CREATE TABLE IF NOT EXISTS`` would
        keep another program's table of that name, and every insert would then fail)."""
        for table in TABLES:
            have = [r[1] for r in self._db.execute(f"PRAGMA table_info({table})").fetchall()]
            want = _COLUMNS[table]
            if have and have != want:
                raise ConfigError(f"games database {str(self.path)!r} is not a kabenvs games database: "
                                  f"its table {table} has columns {have}, expected {want}")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def insert(self, row: GameRow) -> None:
        now = time.time()
        row.created = row.updated = now
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "INSERT INTO games VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    (row.id, row.env_id, json.dumps(row.config), json.dumps(row.seats), row.seed,
                     json.dumps(row.actions), row.status, row.error, json.dumps(row.options), now, now))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def save_progress(self, row: GameRow) -> None:
        """Write the action list and status of ``row`` (after every move), in one transaction."""
        row.updated = time.time()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "UPDATE games SET actions=?, status=?, error=?, updated=? WHERE id=?",
                    (json.dumps(row.actions), row.status, row.error, row.updated, row.id))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def add_participant(self, study: str, pid: str, token: str, label: str) -> int:
        """A new participant of ``study``; returns their number (0, 1, ... in joining order)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                number = self._db.execute("SELECT COUNT(*) FROM participants WHERE study=?",
                                          (study,)).fetchone()[0]
                self._db.execute("INSERT INTO participants VALUES (?,?,?,?,?,?)",
                                 (study, pid, token, label, number, time.time()))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return number

    def secret(self, name: str) -> str:
        """The server's secret ``name`` (a study's operator key), made once and kept, so that it
        outlives a restart of the server."""
        with self._lock:
            self._db.execute("INSERT OR IGNORE INTO secrets VALUES (?, ?)", (name, secrets.token_urlsafe(16)))
            return self._db.execute("SELECT value FROM secrets WHERE name=?", (name,)).fetchone()[0]

    def participants(self, study: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, token, label, number FROM participants WHERE study=? ORDER BY number", (study,)
            ).fetchall()
        return [{"id": r[0], "token": r[1], "label": r[2], "number": r[3]} for r in rows]

    def load_all(self) -> tuple[list[GameRow], dict[str, str]]:
        """Every stored game, and for each row that cannot be read (edited or damaged by hand) its
        id and a one-line reason: one broken row must not keep the others from resuming."""
        with self._lock:
            rows = self._db.execute("SELECT * FROM games ORDER BY created").fetchall()
        games, broken = [], {}
        for r in rows:
            try:
                games.append(_row(r))
            except ValueError as exc:
                broken[str(r[0])] = str(exc)
        return games, broken

    def get(self, game_id: str) -> GameRow | None:
        with self._lock:
            r = self._db.execute("SELECT * FROM games WHERE id=?", (game_id,)).fetchone()
        return _row(r) if r else None


def _schema_columns() -> dict[str, list[str]]:
    """Each table's columns in order, read from SCHEMA itself (one list to keep, not two)."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(SCHEMA)
        return {t: [r[1] for r in db.execute(f"PRAGMA table_info({t})")] for t in TABLES}
    finally:
        db.close()


_COLUMNS = _schema_columns()
# the JSON columns of a game row and the type each must decode to
_JSON_COLUMNS = {"config": dict, "seats": list, "actions": list, "options": dict}


def _row(r: tuple) -> GameRow:
    """A stored row as a ``GameRow``; ``ValueError`` naming the column when one is unreadable."""
    values = dict(zip(_COLUMNS["games"], r))
    for column, kind in _JSON_COLUMNS.items():
        try:
            values[column] = json.loads(values[column])
        except (TypeError, ValueError) as exc:
            raise ValueError(f"column {column} is not valid JSON ({exc})") from None
        if not isinstance(values[column], kind):
            raise ValueError(f"column {column} holds a {type(values[column]).__name__}, not a {kind.__name__}")
    actions = values["actions"]
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in actions):
        raise ValueError("column actions must hold a list of integers (action ids)")
    if not isinstance(values["seed"], int) or not all(isinstance(s, dict) for s in values["seats"]):
        raise ValueError("column seed must be an integer and column seats a list of objects")
    return GameRow(**values)
