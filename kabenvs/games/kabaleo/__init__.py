"""Kabaleo (env id ``kabaleo_v0``): rules in rules.py, docs in docs/games/kabaleo.md."""

from kabenvs.games.kabaleo.rules import COLOURS, KabaleoConfig, KabaleoGame, KabaleoState

GAME = KabaleoGame

__all__ = ["COLOURS", "GAME", "KabaleoConfig", "KabaleoGame", "KabaleoState"]
