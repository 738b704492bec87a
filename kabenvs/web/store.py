"""SQLite storage of web games: enough to rebuild each game exactly after a restart.

A game row holds the env id, the game config, the seats (spec, kind, name, secret token), the deal
seed and the list of actions taken. ``game.new_state(np.random.default_rng(seed))`` re-deals the
game and applying the actions replays it (the same contract as the game logs of
``kabenvs.records``). The action list is rewritten in one transaction after every move, so a
killed server loses at most the move it was applying.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
"""


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
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)

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

    def participants(self, study: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, token, label, number FROM participants WHERE study=? ORDER BY number", (study,)
            ).fetchall()
        return [{"id": r[0], "token": r[1], "label": r[2], "number": r[3]} for r in rows]

    def load_all(self) -> list[GameRow]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM games ORDER BY created").fetchall()
        return [_row(r) for r in rows]

    def get(self, game_id: str) -> GameRow | None:
        with self._lock:
            r = self._db.execute("SELECT * FROM games WHERE id=?", (game_id,)).fetchone()
        return _row(r) if r else None


def _row(r: tuple) -> GameRow:
    return GameRow(id=r[0], env_id=r[1], config=json.loads(r[2]), seats=json.loads(r[3]), seed=r[4],
                   actions=json.loads(r[5]), status=r[6], error=r[7], options=json.loads(r[8]),
                   created=r[9], updated=r[10])
