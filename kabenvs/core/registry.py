"""Env ids -> game classes.

Each package under ``kabenvs/games/`` registers itself by exposing ``GAME`` (its ``Game``
subclass) in its ``__init__``; discovery means adding a game touches no shared file.
"""

from __future__ import annotations

import importlib
import pkgutil

from kabenvs.core.errors import ConfigError, brief
from kabenvs.core.game import Game

_GAMES: dict[str, type[Game]] | None = None


def _discover() -> dict[str, type[Game]]:
    global _GAMES
    if _GAMES is None:
        import kabenvs.games as games_pkg

        found: dict[str, type[Game]] = {}
        for info in sorted(pkgutil.iter_modules(games_pkg.__path__), key=lambda i: i.name):
            module = importlib.import_module(f"kabenvs.games.{info.name}")
            game = getattr(module, "GAME", None)
            if game is not None:
                found[game.env_id] = game
        _GAMES = found
    return _GAMES


def env_ids() -> list[str]:
    return sorted(_discover())


def game_class(env_id: str) -> type[Game]:
    games = _discover()
    # str first: a list or dict is unhashable, and the dict lookup would raise TypeError instead
    if not isinstance(env_id, str) or env_id not in games:
        raise ConfigError(f"unknown env id {brief(env_id)}; known env ids: {sorted(games)}")
    return games[env_id]


def make_game(env_id: str, **options) -> Game:
    return game_class(env_id)(**options)
