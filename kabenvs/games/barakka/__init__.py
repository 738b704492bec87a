"""Barakka (env id ``barakka_v0``): rules in rules.py, docs in docs/games/barakka.md."""

from kabenvs.games.barakka.rules import BarakkaConfig, BarakkaGame, BarakkaState

GAME = BarakkaGame

__all__ = ["GAME", "BarakkaConfig", "BarakkaGame", "BarakkaState"]
