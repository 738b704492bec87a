"""Cábula (env id ``cabula_v0``): rules in rules.py, docs in docs/games/cabula.md."""

from kabenvs.games.cabula.rules import CabulaConfig, CabulaGame, CabulaState

GAME = CabulaGame

__all__ = ["GAME", "CabulaConfig", "CabulaGame", "CabulaState"]
