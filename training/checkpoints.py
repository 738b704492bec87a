"""Run-folder bookkeeping that survives ``kill -9``: checkpoints, snapshots, progress, the CSV.

Every file is written whole to a temporary name in its own folder, flushed to disk and then
renamed over the target (``kabenvs.core.files.atomic_write``), so a killed run leaves each file
either as it was or complete. Nothing here trusts what it reads back either: a checkpoint is only
used after its archive and metadata check out (``checkpoint_problem``), and ``--resume`` walks
back from the newest checkpoint to the newest intact one.

Each checkpoint's metadata (``step_<N>.json``) carries the trainer's progress at that step (last
snapshot, last evaluation, training seconds), so resuming from an older checkpoint after the newest
one was lost restores the bookkeeping that belongs to it; ``progress.json`` is only a summary for
people and tools.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from kabenvs.core.files import atomic_write, atomic_write_json

CHECKPOINT_RE = re.compile(r"^step_(\d+)\.zip$")
SNAPSHOT_RE = re.compile(r"^snap_(\d+)\.pt$")
BROKEN_SUFFIX = ".broken"


# -- small helpers ------------------------------------------------------------------------------
def _fsync_file(path: Path) -> None:
    with open(path, "rb") as fh:
        os.fsync(fh.fileno())


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def numbered(folder: Path, pattern: re.Pattern) -> list[tuple[int, Path]]:
    """``(step, path)`` of the files in ``folder`` whose names match ``pattern``, oldest first."""
    if not folder.is_dir():
        return []
    found = []
    for p in folder.iterdir():
        m = pattern.match(p.name)
        if m and p.is_file():
            found.append((int(m.group(1)), p))
    return sorted(found)


def remove_stale_temporaries(*folders: Path) -> list[Path]:
    """Delete temporary files a killed writer left behind (they are never read)."""
    removed = []
    for folder in folders:
        if not folder.is_dir():
            continue
        for p in folder.iterdir():
            if p.name.startswith(".") and ".tmp" in p.name and p.is_file():
                try:
                    p.unlink()
                    removed.append(p)
                except OSError:
                    pass
    return removed


# -- checkpoints ----------------------------------------------------------------------------------
def save_model_atomically(save_model: Callable, model, path: Path, game,
                          extra: dict[str, Any] | None = None) -> Path:
    """Save ``model`` as ``path`` (``NAME.zip``) + the safe model ``NAME.safetensors`` + ``NAME.json``.

    ``save_model`` (``kabenvs.agents.policy.save_model``) writes each file atomically, the archive
    first and the metadata last. A kill in between leaves an archive without matching metadata,
    which ``checkpoint_problem`` refuses (the metadata's ``archive_sha256`` names the archive it
    belongs to)."""
    path = Path(save_model(model, Path(path), game, extra=extra))
    _fsync_dir(path.parent)
    return path


def save_checkpoint(save_model: Callable, model, path: Path, game, progress: dict[str, Any],
                    settings: dict[str, Any] | None = None) -> Path:
    """A checkpoint: the model with the trainer's progress in its metadata (see ``checkpoint_progress``)
    and the algorithm ``settings`` its archive fixes (``--resume`` compares them with config.yaml)."""
    extra: dict[str, Any] = {"progress": dict(progress)}
    if settings is not None:
        extra["algorithm_settings"] = dict(settings)
    return save_model_atomically(save_model, model, path, game, extra=extra)


def checkpoint_problem(path: Path) -> str | None:
    """None if ``path`` is a complete checkpoint, else what is wrong with it (one phrase)."""
    path = Path(path)
    meta_path = path.with_suffix(".json")
    if not path.is_file():
        return "the archive is missing"
    if not meta_path.is_file():
        return "its metadata file is missing"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # RecursionError: JSON nested too deeply
        return f"its metadata is unreadable ({type(exc).__name__})"
    if not isinstance(meta, dict):
        return "its metadata is not a JSON object"
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        recorded = meta.get("archive_sha256") or meta.get("sha256")  # older checkpoints: "sha256"
        if recorded and recorded != digest.hexdigest():
            return "the archive does not match its metadata (sha256)"
        with zipfile.ZipFile(path) as zf:
            bad = zf.testzip()
        if bad is not None:
            return f"the archive is corrupt ({bad})"
    except (OSError, zipfile.BadZipFile, EOFError, ValueError) as exc:
        return f"the archive is unreadable ({type(exc).__name__}: {exc})"
    return None


def checkpoint_progress(path: Path) -> dict[str, Any]:
    """The trainer's progress saved with a checkpoint ({} for checkpoints from before it was)."""
    try:
        meta = json.loads(Path(path).with_suffix(".json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    progress = meta.get("progress") if isinstance(meta, dict) else None
    return dict(progress) if isinstance(progress, dict) else {}


def set_aside(path: Path) -> list[Path]:
    """Rename a broken checkpoint's files out of the way (``*.broken``): kept, but never picked."""
    moved = []
    for p in (Path(path), Path(path).with_suffix(".json"), Path(path).with_suffix(".safetensors")):
        if p.exists():
            target = p.with_name(p.name + BROKEN_SUFFIX)
            os.replace(p, target)
            moved.append(target)
    return moved


def prune(folder: Path, pattern: re.Pattern, keep: int, protect: Iterable[Path] = (),
          companions: tuple[str, ...] = ()) -> list[Path]:
    """Delete all but the ``keep`` newest files (by step) matching ``pattern``; ``protect`` stays.

    ``companions`` are suffixes of files that belong to each one (a checkpoint's ``.json``)."""
    protected = {Path(p).resolve() for p in protect}
    files = numbered(folder, pattern)
    removed = []
    for _, p in files[:max(0, len(files) - keep)]:
        if p.resolve() in protected:
            continue
        for q in (p, *(p.with_suffix(s) for s in companions)):
            try:
                q.unlink()
                removed.append(q)
            except FileNotFoundError:
                pass
    return removed


def write_progress(path: Path, progress: dict[str, Any]) -> None:
    atomic_write_json(path, progress, indent=2)


# -- snapshots --------------------------------------------------------------------------------
def save_snapshot(state_dict, path: Path) -> None:
    import torch

    buffer = io.BytesIO()
    torch.save(state_dict, buffer)
    atomic_write(path, buffer.getvalue())


def load_snapshot(path: Path):
    """The state dict in ``path``, or None when the file is unreadable (truncated, not torch's)."""
    import torch

    try:
        return torch.load(path, weights_only=True)
    except Exception:  # a truncated or foreign file raises many types (EOFError, RuntimeError, ...)
        return None


# -- the evaluations CSV ----------------------------------------------------------------------
def read_csv_rows(path: Path, fields: list[str]) -> list[dict[str, str]]:
    """The complete rows of a CSV written by ``write_csv_rows`` (rows with missing cells dropped)."""
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
    except (OSError, UnicodeDecodeError, csv.Error):
        return []
    return [r for r in rows if all(r.get(f) not in (None, "") for f in fields if f != "phase")]


def write_csv_rows(path: Path, fields: list[str], rows: list[dict[str, Any]]) -> None:
    """Rewrite the whole CSV atomically (a killed run never leaves half a row)."""
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(r)
    atomic_write(path, out.getvalue())


def trim_csv(path: Path, fields: list[str], after_step: int) -> int:
    """Drop rows measured after ``after_step`` (a resumed run measures them again); rows dropped."""
    if not path.is_file():
        return 0
    rows = read_csv_rows(path, fields)
    keep = [r for r in rows if _int(r.get("step")) is not None and _int(r["step"]) <= after_step]
    if len(keep) != len(rows) or not _csv_is_clean(path, len(rows)):
        write_csv_rows(path, fields, keep)
    return len(rows) - len(keep)


def _csv_is_clean(path: Path, rows: int) -> bool:
    try:
        with open(path, encoding="utf-8") as fh:
            return sum(1 for line in fh if line.strip()) == rows + 1
    except (OSError, UnicodeDecodeError):
        return False


def _int(text) -> int | None:
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


__all__ = [
    "CHECKPOINT_RE", "SNAPSHOT_RE", "checkpoint_problem", "checkpoint_progress", "load_snapshot",
    "numbered", "prune", "read_csv_rows", "remove_stale_temporaries", "save_checkpoint",
    "save_model_atomically", "save_snapshot", "set_aside", "trim_csv", "write_csv_rows", "write_progress",
]
