"""Agents that play any kabenvs game: random, each game's heuristic bot, trained policies, humans."""

from __future__ import annotations

from kabenvs.agents.base import Agent, Decision, play_game
from kabenvs.agents.human import HumanAgent
from kabenvs.agents.random_agent import RandomAgent

# PolicyAgent (kabenvs.agents.policy) is not imported here: it needs torch, and importing
# kabenvs must not. Use kabenvs.agents.policy.load_agent(path, game).
__all__ = ["Agent", "Decision", "HumanAgent", "RandomAgent", "heuristic_agent", "play_game"]


def heuristic_agent(env_id: str, seed: int | None = None) -> Agent:
    """The heuristic bot of a game (each game's ``bots.py`` exposes ``HeuristicAgent``)."""
    import importlib

    from kabenvs.core.registry import game_class

    game = game_class(env_id)
    module = importlib.import_module(f"kabenvs.games.{game.name}.bots")
    return module.HeuristicAgent(seed=seed)
