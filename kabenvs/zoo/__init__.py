"""The agents that ship inside kabenvs: a trained policy per game and player count, ready to play.

The seat spec ``zoo`` names the shipped agent for the game being played and its player count::

    python scripts/play.py kabaal_v0 --seat human zoo
    python scripts/evaluate.py zoo heuristic --game cabula_v0

Each agent is a safe model (``kabenvs.agents.safe_model``: no code runs on load) in
``kabenvs/zoo/agents/`` named ``<env_id>-<players>p``, at most ``MAX_BYTES`` on disk, with a model
card ``<env_id>-<players>p.md``: the command that trained it, its learner steps and wall time, and
its strength measured on the shipped file (``kabenvs zoo add`` writes all three; docs/zoo.md).

A shipped agent plays the game's default options at its player count; the model's own checks
refuse other options (another Kabaleo mode, another reward) in one line, as for any model. When a
game's observation changes, its shipped agents stop loading (the layout fingerprint differs) and
the zoo tests fail until they are retrained or removed: a shipped agent never plays blind.

Importing this module does not import torch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from kabenvs.core.errors import ConfigError
from kabenvs.core.game import Game

ZOO_DIR = Path(__file__).resolve().parent / "agents"
MAX_BYTES = 2_000_000  # weights + metadata of one shipped agent (2 MB, decimal)
SPEC = "zoo"
_NAME = re.compile(r"^(?P<env>[a-z][a-z0-9_]*_v\d+)-(?P<players>\d+)p$")


@dataclass(frozen=True)
class ShippedAgent:
    env_id: str
    num_players: int
    path: Path  # NAME without suffix: NAME.safetensors, NAME.json, NAME.md

    @property
    def card(self) -> Path:
        return self.path.with_name(self.path.name + ".md")

    @property
    def files(self) -> list[Path]:
        return [self.path.with_name(self.path.name + s) for s in (".safetensors", ".json")]

    @property
    def size(self) -> int:
        return sum(f.stat().st_size for f in self.files)

    def label(self) -> str:
        return f"{self.env_id} at {self.num_players} players"


def agent_name(env_id: str, num_players: int) -> str:
    return f"{env_id}-{num_players}p"


def shipped(directory: Path | None = None) -> list[ShippedAgent]:
    """Every shipped agent (a ``NAME.safetensors`` with its ``NAME.json``), by game and players."""
    folder = ZOO_DIR if directory is None else Path(directory)
    found = []
    for weights in folder.glob("*.safetensors") if folder.is_dir() else []:
        m = _NAME.match(weights.stem)
        if m and weights.with_suffix(".json").is_file():
            found.append(ShippedAgent(m["env"], int(m["players"]), weights.with_suffix("")))
    return sorted(found, key=lambda a: (a.env_id, a.num_players))


def is_zoo_spec(spec: object) -> bool:
    return isinstance(spec, str) and spec.lower() == SPEC


def listing(directory: Path | None = None) -> str:
    agents = shipped(directory)
    return ", ".join(a.label() for a in agents) if agents else "none in this install"


def zoo_agent(game: Game | str, num_players: int | None = None, directory: Path | None = None) -> ShippedAgent:
    """The shipped agent for ``game`` (a ``Game``, or an env id with ``num_players``); a game or
    player count with none is a one-line ``ConfigError`` listing the ones there are."""
    if isinstance(game, Game):
        env_id, players = game.env_id, game.num_players
    else:
        env_id, players = str(game), num_players
    for agent in shipped(directory):
        if agent.env_id == env_id and agent.num_players == players:
            return agent
    at = f" at {players} players" if players is not None else ""
    raise ConfigError(f"no shipped agent (seat 'zoo') for {env_id}{at}; shipped agents: {listing(directory)}")


def zoo_model_path(game: Game, directory: Path | None = None) -> str:
    """What a ``zoo`` seat loads for ``game``: the shipped safe model's path (NAME, no suffix)."""
    return str(zoo_agent(game, directory=directory).path)


__all__ = ["MAX_BYTES", "SPEC", "ShippedAgent", "ZOO_DIR", "agent_name", "is_zoo_spec", "listing", "shipped",
           "zoo_agent", "zoo_model_path"]
