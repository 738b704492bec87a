"""The compiled build (setup.py) behaves exactly as the Python sources it is compiled from.

The suite itself imports the checkout's sources (``pythonpath = ["."]``); the README's install
compiles the copy it installs. So the installed copy is played here in two fresh processes
outside the checkout, once compiled and once with ``KABENVS_PURE_PYTHON=1`` (its own sources),
and the fixed-seed digests of everything the AEC loop hands out must be alike (observations and
masks of every seat, rewards, infos, clones, resampled worlds, the final state's JSON:
kabenvs/commands/fingerprint.py). Then the switch's own decisions, on files made here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import pytest

from kabenvs import compiled
from kabenvs.compiled import _SourceFinder

_DIGESTS = """
import json, kabenvs
from kabenvs.compiled import _COMPILED_GLOBS, _PACKAGE_DIR, compiled_modules, running_compiled
from kabenvs.commands.benchmark import build_description
from kabenvs.commands.fingerprint import configs_of, fingerprint
sources = sorted("kabenvs." + ".".join(p.relative_to(_PACKAGE_DIR).with_suffix("").parts)
                 for g in _COMPILED_GLOBS for p in _PACKAGE_DIR.glob(g) if p.name != "__init__.py")
out = {"file": kabenvs.__file__, "compiled": compiled_modules(), "running": running_compiled(),
       "build": build_description(), "sources": sources}
if out["compiled"]:
    out["digests"] = {f"{e} {json.dumps(c, sort_keys=True)}": fingerprint(e, c, 2)
                      for e in kabenvs.ENV_IDS for c in configs_of(e)}
print(json.dumps(out))
"""


def _installed(tmp_path, pure: bool) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", compiled.ENV_VAR)}
    if pure:
        env[compiled.ENV_VAR] = "1"
    # -I: neither the checkout (the working directory) nor PYTHONPATH is on the path
    return subprocess.Popen([sys.executable, "-I", "-c", _DIGESTS], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _result(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-2000:]
    return json.loads(out)


def test_the_installed_compiled_modules_play_exactly_as_their_sources(tmp_path):
    procs = [_installed(tmp_path, pure=False), _installed(tmp_path, pure=True)]
    fast, pure = (_result(p) for p in procs)
    if not fast["compiled"]:
        why = f"the installed kabenvs ({fast['file']}) has no compiled modules (an editable install?)"
        if os.environ.get("CI") == "true":  # CI installs as the README does, which compiles
            pytest.fail(why + "; CI installs it with the README's command, which compiles")
        pytest.skip(why)
    # what setup.py compiles: every module of kabenvs/core and kabenvs/games/* but __init__
    assert "kabenvs.core.env" in fast["compiled"] and "kabenvs.games.cabula.rules" in fast["compiled"]
    assert not any(name.endswith("__init__") for name in fast["compiled"])
    # every one of them: a module that failed to compile (a stale .pxd beside it, say) installs
    # as its source with only a warning, which an install log hides
    assert fast["compiled"] == fast["sources"], sorted(set(fast["sources"]) - set(fast["compiled"]))
    assert fast["running"] is True and pure["running"] is False
    # what the benchmark's first line says of each
    assert fast["build"] == f"compiled ({len(fast['compiled'])} modules)", fast["build"]
    assert pure["build"].startswith("pure Python (KABENVS_PURE_PYTHON=1"), pure["build"]
    assert fast["digests"].keys() == pure["digests"].keys() and len(fast["digests"]) >= 10
    differ = [key for key in fast["digests"] if fast["digests"][key] != pure["digests"][key]]
    assert not differ, f"compiled and pure differ in {differ}"


def _module_files(folder, source_mtime: float, compiled_mtime: float):
    """``mod.py`` and a compiled ``mod`` beside it (an empty stand-in: only its name and time are
    read), with the given modification times."""
    import importlib.machinery

    source = folder / "mod.py"
    source.write_text("X = 1\n")
    binary = folder / ("mod" + importlib.machinery.EXTENSION_SUFFIXES[0])
    binary.write_bytes(b"")
    os.utime(source, (source_mtime, source_mtime))
    os.utime(binary, (compiled_mtime, compiled_mtime))
    return source


def test_a_compiled_module_older_than_its_source_is_passed_over_with_a_warning(tmp_path):
    source = _module_files(tmp_path, source_mtime=2_000_000, compiled_mtime=1_000_000)
    finder = _SourceFinder(every_module=False)
    with pytest.warns(UserWarning, match="kabenvs.x.mod's compiled module is older than its source"):
        spec = finder.find_spec("kabenvs.x.mod", [str(tmp_path)])
    assert spec is not None and spec.origin == str(source)
    assert finder.stale == ["kabenvs.x.mod"]


def test_a_fresh_compiled_module_is_left_to_the_usual_finders(tmp_path):
    _module_files(tmp_path, source_mtime=1_000_000, compiled_mtime=2_000_000)
    finder = _SourceFinder(every_module=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert finder.find_spec("kabenvs.x.mod", [str(tmp_path)]) is None
    # not ours, or no compiled module beside the source: never taken either
    assert finder.find_spec("other.mod", [str(tmp_path)]) is None
    (tmp_path / "plain.py").write_text("Y = 2\n")
    assert finder.find_spec("kabenvs.x.plain", [str(tmp_path)]) is None


def test_pure_python_takes_the_source_of_every_compiled_module(tmp_path):
    source = _module_files(tmp_path, source_mtime=1_000_000, compiled_mtime=2_000_000)
    spec = _SourceFinder(every_module=True).find_spec("kabenvs.x.mod", [str(tmp_path)])
    assert spec is not None and spec.origin == str(source)


@pytest.mark.parametrize("value, pure", [("1", True), ("0", False), ("", False)])
def test_the_switch_reads_one_and_zero(monkeypatch, value, pure):
    monkeypatch.setenv(compiled.ENV_VAR, value)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert compiled.pure_python_requested() is pure


def test_a_value_of_the_switch_it_does_not_know_is_named_and_read_as_unset(monkeypatch):
    monkeypatch.setenv(compiled.ENV_VAR, "yes please")
    with pytest.warns(UserWarning, match=r"KABENVS_PURE_PYTHON='yes please' is not understood \(allowed: 1"):
        assert compiled.pure_python_requested() is False


def test_every_pxd_beside_a_source_still_fits_it(tmp_path):
    # Static types for the compiled build live in .pxd files beside a few sources (Cython reads
    # them when it compiles the .py). A .pxd that no longer fits its source (a function renamed,
    # a parameter added) fails that module's compile, which the install only warns about: check
    # here that Cython still translates each such module with its .pxd (to C only, no compiler).
    Cython = pytest.importorskip("Cython.Build")
    pxds = sorted(p for g in compiled._COMPILED_GLOBS for p in compiled._PACKAGE_DIR.glob(g[:-3] + ".pxd"))
    assert any(p.parent.name == "cabula" and p.stem == "encoding" for p in pxds)
    for pxd in pxds:
        source = pxd.with_suffix(".py")
        assert source.exists(), f"{pxd} has no source beside it"
        copy = tmp_path / pxd.parent.name
        copy.mkdir(exist_ok=True)
        (copy / source.name).write_text(source.read_text())
        (copy / pxd.name).write_text(pxd.read_text())
        Cython.cythonize([str(copy / source.name)], quiet=True, force=True,
                         compiler_directives={"language_level": 3, "binding": True, "annotation_typing": False})
        assert (copy / source.with_suffix(".c").name).exists()
