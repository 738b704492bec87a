"""Where the optional parts of kabenvs live, and one clear error when an extra is missing.

The training code sits in the repository's top-level ``training/`` folder. A checkout imports it
as ``training`` (tests, scripts); an installed kabenvs carries it as ``kabenvs._training`` (see
setup.py), so installing never puts a generic top-level ``training`` module into site-packages,
where a user's own ``training.py`` would shadow it. ``training_module`` picks the right one: the
checkout's folder when this kabenvs sits in a checkout that is on the path, else the installed
copy (never a foreign module that happens to be called ``training``).
"""

from __future__ import annotations

import importlib
import importlib.util
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from kabenvs.core.errors import ConfigError

_HERE = Path(__file__).resolve().parent


@lru_cache(maxsize=1)
def training_package() -> str:
    """``"training"`` in a checkout whose folder is importable, else ``"kabenvs._training"``."""
    checkout = _HERE.parent / "training"
    if (checkout / "__init__.py").is_file():
        try:
            spec = importlib.util.find_spec("training")
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.origin and Path(spec.origin).resolve().parent == checkout:
            return "training"
    return "kabenvs._training"


def training_module(name: str) -> ModuleType:
    """``training.<name>`` of this kabenvs (needs the ``train`` extra's packages)."""
    return importlib.import_module(f"{training_package()}.{name}")


def require(module: str, extra: str) -> ModuleType:
    """Import ``module`` or stop with one line saying which pip command installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(f"{module} is not installed ({exc}); install it with: pip install 'kabenvs[{extra}]'") from None


__all__ = ["require", "training_module", "training_package"]
