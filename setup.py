"""What pyproject.toml cannot say: which packages install under which names, and what is compiled.

Every ``kabenvs*`` package is found as usual; the repository's top-level ``training/`` folder is
installed as ``kabenvs._training`` (see kabenvs/extras.py), never as a top-level ``training``.

The rules engines, encoders and the env adapter (every module of ``kabenvs/core`` and
``kabenvs/games/*`` but the packages' ``__init__``) are also compiled by Cython from the same
Python sources, unchanged: the AEC loop runs about 1.5 times as fast (docs/benchmark.md). The
sources install beside the compiled modules and stay the definition; ``KABENVS_PURE_PYTHON=1``
at run time imports them instead (kabenvs/compiled.py). Nothing is compiled

* for an editable install (``pip install -e .``): compiled modules next to the sources would
  hide every later edit of them;
* with ``KABENVS_PURE_PYTHON=1`` set while installing;
* where Cython or a C compiler is missing: a module that does not compile installs as its
  source, with a warning naming it (``OptionalBuildExt``), and the install goes on.
"""

import os
import sys
from glob import glob

from setuptools import find_packages, setup
from setuptools.command.build_ext import build_ext

# the modules the compiled build covers; kabenvs/compiled.py reads the same two folders
COMPILED_SOURCES = sorted(
    path
    for pattern in ("kabenvs/core/*.py", "kabenvs/games/*/*.py")
    for path in glob(pattern)
    if not path.endswith("__init__.py")
)


def _wanted() -> bool:
    if os.environ.get("KABENVS_PURE_PYTHON") == "1":  # read as kabenvs/compiled.py reads it
        return False
    # metadata and source archives need no compiling (pip asks for metadata before it builds)
    skip = ("editable_wheel", "develop", "egg_info", "dist_info", "sdist")
    return not any(command in sys.argv for command in skip)


def _extensions() -> list:
    if not _wanted():
        return []
    try:
        from Cython.Build import cythonize
        from setuptools import Extension
    except ImportError:  # e.g. --no-build-isolation without Cython: the pure modules serve
        print("kabenvs: Cython not found; installing the pure-Python modules only", file=sys.stderr)
        return []
    # no debug information: it made the compiled modules ten times larger (42 MB in all)
    flags = [] if sys.platform == "win32" else ["-g0"]
    extensions = [
        Extension(path[:-3].replace("/", "."), [path], optional=True, extra_compile_args=flags)
        for path in COMPILED_SOURCES
    ]
    return cythonize(
        extensions,
        build_dir="build/cython",
        nthreads=os.cpu_count() or 1,
        quiet=True,
        compiler_directives={
            "language_level": 3,
            # functions keep Python's introspection (signatures, __defaults__, monkeypatching)
            "binding": True,
            # annotations stay documentation: an `int` parameter still takes a numpy integer
            "annotation_typing": False,
        },
    )


class OptionalBuildExt(build_ext):
    """Every extension here is optional: a module that does not compile (no compiler, no Python
    headers) installs as its Python source, with one warning. setuptools' own ``optional`` is
    not enough: its parallel build lets some compiler errors through (a CompileError class
    other than the one it filters)."""

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001 (whatever stopped the compiler, the source serves)
            self.warn(f"kabenvs: {ext.name} not compiled ({' '.join(str(exc).split())[:200]}); "
                      "its Python source is installed and runs instead")


setup(
    cmdclass={"build_ext": OptionalBuildExt},
    packages=find_packages(include=["kabenvs", "kabenvs.*"]) + ["kabenvs._training"],
    package_dir={"kabenvs._training": "training"},
    ext_modules=_extensions(),
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
)
