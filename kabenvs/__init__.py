"""kabenvs: five published tabletop games as PettingZoo AEC environments.

>>> import kabenvs
>>> env = kabenvs.make("kabaleo_v0", num_players=3, mode="random")
>>> from kabenvs import kabaleo_v0
>>> env = kabaleo_v0.env(num_players=3)

Importing kabenvs never imports torch; training lives in the repository's ``training`` folder (installed as
``kabenvs._training``), the console command in ``kabenvs.cli``, other libraries' views in
``kabenvs.wrappers`` and ``kabenvs.interop``.
"""

from __future__ import annotations

import sys
import types

from kabenvs import compiled

compiled.install_switch()  # KABENVS_PURE_PYTHON=1: the sources, before any compiled module loads

from kabenvs.core.env import GameEnv
from kabenvs.core.errors import ConfigError, IllegalActionError, KabenvsError
from kabenvs.core.game import Game, State
from kabenvs.core.registry import env_ids, game_class, make_game

__version__ = "0.1.0"

ENV_IDS: list[str] = env_ids()


def make(env_id: str, render_mode: str | None = None, max_steps: int | None = None, **options) -> GameEnv:
    """Build the AEC environment ``env_id`` with game options (``num_players=3``, ``mode=...``)."""
    return GameEnv(make_game(env_id, **options), render_mode=render_mode, max_steps=max_steps)


def _versioned_module(env_id: str) -> types.ModuleType:
    """PettingZoo-style module ``kabenvs.<env_id>`` with ``env``, ``raw_env`` and ``GAME``."""
    module = types.ModuleType(f"kabenvs.{env_id}", f"The {env_id} environment.")

    def env(**kwargs) -> GameEnv:
        return make(env_id, **kwargs)

    module.env = env
    module.raw_env = env  # no wrappers to strip: GameEnv checks order and actions itself
    module.GAME = game_class(env_id)
    sys.modules[module.__name__] = module
    return module


def __getattr__(name: str):
    if name in ENV_IDS:
        module = _versioned_module(name)
        globals()[name] = module
        return module
    raise AttributeError(f"module 'kabenvs' has no attribute {name!r}; env ids: {ENV_IDS}")


__all__ = [
    "ENV_IDS", "ConfigError", "Game", "GameEnv", "IllegalActionError", "KabenvsError", "State",
    "__version__", "game_class", "make", *ENV_IDS,
]
