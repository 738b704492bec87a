"""Which kabenvs modules run compiled, and the switch that runs the Python sources instead.

A normal install compiles the modules of ``kabenvs.core`` and ``kabenvs.games.*`` with Cython
from their unchanged sources (setup.py) and installs the sources beside them; Python imports the
compiled module where both are there. ``KABENVS_PURE_PYTHON=1`` (set before ``import kabenvs``)
imports the sources instead: the same behaviour (a test plays fixed games both ways and compares
everything the env hands out), slower, with source lines in tracebacks and a debugger that steps
through them. An editable install has no compiled modules at all.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import warnings
from pathlib import Path

ENV_VAR = "KABENVS_PURE_PYTHON"
_PACKAGE_DIR = Path(__file__).resolve().parent
# the folders whose modules setup.py compiles (COMPILED_SOURCES there)
_COMPILED_GLOBS = ("core/*.py", "games/*/*.py")


def pure_python_requested() -> bool:
    """``KABENVS_PURE_PYTHON``: "1" runs the sources; unset, "" or "0" the compiled modules. Any
    other value is named in a warning and read as unset, so a typo never stops an import."""
    value = os.environ.get(ENV_VAR, "")
    if value == "1":
        return True
    if value not in ("", "0"):
        warnings.warn(f"{ENV_VAR}={value!r} is not understood (allowed: 1 to run the Python "
                      "sources, 0 or unset for the compiled modules); running the compiled modules",
                      stacklevel=2)
    return False


def _compiled_file(source: Path) -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = source.with_name(source.stem + suffix)
        if candidate.exists():
            return candidate
    return None


def compiled_modules() -> list[str]:
    """The kabenvs modules installed compiled (sorted names; empty for a pure or editable install).
    Whether they are *imported* compiled also depends on ``KABENVS_PURE_PYTHON``: see
    ``running_compiled``."""
    names = []
    for pattern in _COMPILED_GLOBS:
        for source in _PACKAGE_DIR.glob(pattern):
            if source.name != "__init__.py" and _compiled_file(source) is not None:
                relative = source.relative_to(_PACKAGE_DIR).with_suffix("")
                names.append("kabenvs." + ".".join(relative.parts))
    return sorted(names)


def running_compiled() -> bool:
    """True when this process runs kabenvs compiled (its env adapter, imported by ``import
    kabenvs``, came from a compiled module): some are installed and ``KABENVS_PURE_PYTHON`` is
    not "1"."""
    module = sys.modules.get("kabenvs.core.env")
    origin = getattr(getattr(module, "__spec__", None), "origin", None) or ""
    return origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds a kabenvs module's ``.py`` source instead of the compiled module beside it: every
    such module (``KABENVS_PURE_PYTHON=1``), or, in a checkout built in place, those whose source
    changed after the build (a compiled module must never hide an edit)."""

    def __init__(self, every_module: bool):
        self.every_module = every_module
        self.stale: list[str] = []

    def find_spec(self, fullname, path, target=None):
        if not fullname.startswith("kabenvs.") or not path:
            return None
        leaf = fullname.rpartition(".")[2]
        for folder in path:
            source = Path(folder) / f"{leaf}.py"
            if not source.is_file():
                continue
            compiled = _compiled_file(source)
            if compiled is None:
                return None  # the usual finders load the source
            if not self.every_module:
                if compiled.stat().st_mtime >= source.stat().st_mtime:
                    return None
                self.stale.append(fullname)
                warnings.warn(f"kabenvs: {fullname}'s compiled module is older than its source, "
                              "so the source runs; rebuild with: python setup.py build_ext --inplace",
                              stacklevel=2)
            return importlib.util.spec_from_file_location(fullname, source)
        return None  # a package (its __init__ is never compiled) or not ours


def stale_modules() -> list[str]:
    """The compiled modules passed over so far in this process because their sources are newer."""
    finder = next((f for f in sys.meta_path if isinstance(f, _SourceFinder)), None)
    return list(finder.stale) if finder is not None and not finder.every_module else []


def _in_checkout() -> bool:
    """kabenvs imported from a repository checkout (setup.py beside the package), where a build in
    place can fall behind the sources; an installed copy's files are written together."""
    return (_PACKAGE_DIR.parent / "setup.py").is_file()


def install_switch() -> None:
    """Called first thing by ``kabenvs/__init__``: with ``KABENVS_PURE_PYTHON=1`` every later
    kabenvs import finds the source first; in a checkout, a compiled module older than its source
    is passed over (with a warning)."""
    if any(isinstance(f, _SourceFinder) for f in sys.meta_path):
        return
    if pure_python_requested():
        sys.meta_path.insert(0, _SourceFinder(every_module=True))
    elif _in_checkout() and compiled_modules():
        sys.meta_path.insert(0, _SourceFinder(every_module=False))
