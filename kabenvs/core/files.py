"""Writing files so that a crash or ``kill -9`` never leaves a half-written one behind.

Every file a run or a tool writes for later reading (models, checkpoints, progress, logs that
are rewritten whole) goes through ``atomic_write``: the bytes go to a temporary file in the same
folder, are flushed to disk, and then replace the target in one ``os.replace``. A reader sees the
old file or the new one, never a mix.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def atomic_write(path: str | os.PathLike, data: bytes | str) -> None:
    """Write ``data`` to ``path`` atomically (text is written as UTF-8)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:  # make the rename itself durable
        dir_fd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def atomic_write_json(path: str | os.PathLike, value: Any, **dump_options: Any) -> None:
    atomic_write(path, json.dumps(value, **dump_options))
