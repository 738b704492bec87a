"""Kabaal (env id ``kabaal_v0``): rules in rules.py, layouts in board.py, docs in docs/games/kabaal.md."""

from kabenvs.games.kabaal.rules import KabaalConfig, KabaalGame, KabaalState

GAME = KabaalGame

__all__ = ["GAME", "KabaalConfig", "KabaalGame", "KabaalState"]
