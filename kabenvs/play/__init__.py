"""Terminal play for every registered game: humans against models and bots, game logs, replays.

``kabenvs.play.cli.main`` is the command line (``scripts/play.py``); ``PlaySession`` runs one
game; ``kabenvs.play.view`` decides what a seat may be told about another seat's move.
"""

from kabenvs.play.session import Outcome, PlaySession, Seat

__all__ = ["Outcome", "PlaySession", "Seat"]
