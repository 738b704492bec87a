"""The rules-engine contract every game implements (see DESIGN.md).

A ``Game`` is built from a validated ``Config`` and owns what follows from the config alone:
the action catalog and the observation layout. A ``State`` is the full truth of one game in
progress: mutable and fast, copied with ``clone()`` (OpenSpiel's model; Python pays for an
immutable copy on every step).

Conventions that let the base class do the boring parts for every game:

* A state's public attributes (names without a leading underscore) are JSON-native values
  (ints, floats, strings, bools, None, lists, dicts with string keys). ``to_json``/``from_json``
  and ``clone`` copy exactly those, plus the generator's state; attributes starting with ``_``
  are caches: ``_reset_caches`` drops them all (after restoring, cloning, ``touch``); ``apply``
  drops only the legality cache, so a game that keeps another cache updates it in ``_apply``.
* ``current_player`` is a plain attribute: the seat that must decide now, also out of turn,
  ``None`` once the game is over.
* Legality lives in one place, ``_legal_actions``; ``legal_mask`` and ``apply`` both read it.
"""

from __future__ import annotations

import copy
import json
from typing import Any, ClassVar

import numpy as np

from kabenvs.core.actions import ActionCatalog
from kabenvs.core.config import GameConfig
from kabenvs.core.errors import ConfigError, IllegalActionError
from kabenvs.core.observation import ObservationLayout


# A fixed seed sequence to build throwaway bit generators from: much cheaper than
# np.random.default_rng(), which gathers OS entropy only for it to be overwritten at once.
_TEMPLATE_SEED = np.random.SeedSequence(0)


def copy_generator(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in exactly ``rng``'s state (for clones and restores)."""
    new = np.random.Generator(type(rng.bit_generator)(_TEMPLATE_SEED))
    new.bit_generator.state = rng.bit_generator.state
    return new


def as_generator(rng: np.random.Generator | int | None) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(rng)


class Game:
    """One game under one configuration. Subclasses set the class attributes and builders."""

    name: ClassVar[str] = ""
    env_id: ClassVar[str] = ""
    Config: ClassVar[type[GameConfig]] = GameConfig
    State: ClassVar[type["State"]]
    # Configurations the shared test kit runs (every player count, mode and variant worth it).
    test_configs: ClassVar[list[dict[str, Any]]] = [{}]
    # Whether some seat ever lacks information another has (the kit then checks resampling).
    has_hidden_information: ClassVar[bool] = True
    # A game whose Config has ``reward: "score"`` pays each seat its final score minus the best
    # other seat's score, divided by this (State.returns): a denser training signal than win/loss.
    score_scale: float = 1.0

    def __init__(self, config: GameConfig | None = None, **options: Any) -> None:
        if config is None:
            config = self.Config.from_dict(options)
        elif options:
            raise ConfigError(f"pass either a config or options, not both (got {sorted(options)})")
        elif not isinstance(config, self.Config):
            raise ConfigError(f"{self.name} needs a {self.Config.__name__}, got {type(config).__name__}")
        self.config = config
        self.num_players: int = config.num_players
        self.catalog: ActionCatalog = self.build_catalog()
        self.layout: ObservationLayout = self.build_layout()

    # -- builders every game provides -------------------------------------------------------
    def build_catalog(self) -> ActionCatalog:
        raise NotImplementedError

    def build_layout(self) -> ObservationLayout:
        raise NotImplementedError

    def new_state(self, rng: np.random.Generator | int | None = None) -> "State":
        """Shuffle and deal. The state keeps ``rng`` for all later chance.

        Every game's State provides the classmethod ``deal(game, rng)``; this calls it."""
        return self.State.deal(self, as_generator(rng))

    def max_decisions(self) -> int:
        """An upper bound on decisions in one game (the kit checks games end within it)."""
        raise NotImplementedError

    # -- derived --------------------------------------------------------------------------------
    @property
    def num_actions(self) -> int:
        return self.catalog.size

    @property
    def observation_size(self) -> int:
        return self.layout.size

    def state_from_json(self, text: str | dict) -> "State":
        return State.from_json(text, game=self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config})"


class State:
    """Base of every game's state. See the module docstring for the conventions."""

    game: Game
    rng: np.random.Generator

    def __init__(self, game: Game, rng: np.random.Generator | int | None = None) -> None:
        self.game = game
        self.rng = as_generator(rng)
        self.current_player: int | None = None
        self.truncated = False  # a game's own limit (turn/round cap) ended it without a result
        self.history: list[int] = []  # every action applied, in order (replays, logs)
        self._reset_caches()

    # -- caches -------------------------------------------------------------------------------
    def _reset_caches(self) -> None:
        self._legal: list[int] | None = None
        self._legal_set: frozenset[int] | None = None

    def touch(self) -> None:
        """Call after editing a state by hand (rigged tests) so cached legality is recomputed."""
        self._reset_caches()

    # -- what subclasses implement --------------------------------------------------------------
    def _legal_actions(self) -> list[int]:
        raise NotImplementedError

    def _apply(self, action: int) -> None:
        raise NotImplementedError

    def observation(self, player: int) -> np.ndarray:
        raise NotImplementedError

    def winners(self) -> list[int]:
        raise NotImplementedError

    def render(self, player: int | None = None) -> str:
        raise NotImplementedError

    def resample_hidden(self, player: int, rng: np.random.Generator | int | None = None) -> "State":
        raise NotImplementedError

    def decision(self) -> str:
        """What is being asked now, in words (used in error messages and by the human UI)."""
        if self.current_player is None:
            return "game over"
        return f"player {self.current_player} to move"

    def scores(self) -> list[float] | None:
        """Final or running scores where the game has them."""
        return None

    def invariants(self) -> list[str]:
        """Violated invariants (pieces conserved, no impossible position); empty when all hold.

        The shared test kit calls this after every step of thousands of random games."""
        return []

    def final_info(self) -> dict[str, Any]:
        """Plain-JSON facts about a finished game for ``info`` (winners, scores, reveals)."""
        return {"winners": self.winners(), "scores": self.scores()}

    # -- the contract, implemented once ---------------------------------------------------------
    @property
    def num_players(self) -> int:
        return self.game.num_players

    def is_terminal(self) -> bool:
        return self.current_player is None

    def legal_actions(self) -> list[int]:
        if self._legal is None:
            self._legal = [] if self.current_player is None else self._legal_actions()
        return self._legal

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(self.game.catalog.size, dtype=np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def is_legal(self, action: int) -> bool:
        if self._legal_set is None:
            self._legal_set = frozenset(self.legal_actions())
        return action in self._legal_set

    def apply(self, action) -> None:
        """Apply one decision; an illegal one raises ``IllegalActionError`` and changes nothing."""
        try:
            a = int(action)
            if a != action:
                raise ValueError
        except (TypeError, ValueError, OverflowError):
            raise IllegalActionError(action, self.decision(), self._legal_names()) from None
        if not self.is_legal(a):
            label = self.action_name(a) if 0 <= a < self.game.catalog.size else "no such action id"
            raise IllegalActionError(action, self.decision(), self._legal_names(), label)
        self.history.append(a)
        self._apply(a)
        # Only legality is forgotten here; a game's other caches (a cached public board for
        # observations, say) are kept up to date by its _apply, which knows what changed.
        self._legal = None
        self._legal_set = None

    def _legal_names(self) -> list[str]:
        return [f"{a}: {self.action_name(a)}" for a in self.legal_actions()]

    def action_name(self, action: int) -> str:
        return self.game.catalog.name(action)

    def returns(self) -> list[float]:
        """Per-seat rewards: winners +1, others -1; 0 for all if everyone wins or on truncation.
        With the game option ``reward="score"``: (my score - the best other score) / score_scale."""
        n = self.num_players
        if self.current_player is not None or self.truncated:
            return [0.0] * n
        if getattr(self.game.config, "reward", "win") == "score":
            sc = self.scores()
            return [(sc[p] - max(sc[q] for q in range(n) if q != p)) / self.game.score_scale for p in range(n)]
        won = set(self.winners())
        if len(won) == n or not won:
            return [0.0] * n
        return [1.0 if p in won else -1.0 for p in range(n)]

    # -- copying and saving ---------------------------------------------------------------------
    def _data(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k[0] != "_" and k not in ("game", "rng")}

    def to_dict(self) -> dict[str, Any]:
        return {
            "env_id": self.game.env_id,
            "config": self.game.config.to_dict(),
            "rng": self.rng.bit_generator.state,
            "state": self._data(),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @staticmethod
    def from_json(text: str | dict, game: Game | None = None) -> "State":
        """Restore any game's state; the env id inside picks the game unless ``game`` is given."""
        try:
            data = json.loads(text) if isinstance(text, (str, bytes)) else dict(text)
            env_id, config, rng_state, fields = (
                data["env_id"], data["config"], data["rng"], data["state"]
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"not a saved kabenvs state ({exc})") from None
        if game is None:
            from kabenvs.core.registry import game_class

            game = game_class(env_id)(**config)
        elif env_id != game.env_id:
            raise ConfigError(f"saved state is for {env_id!r}, not {game.env_id!r}")
        elif config != game.config.to_dict():
            raise ConfigError(
                f"saved state is for {env_id} with config {config}, but this game has {game.config.to_dict()}"
            )
        state = game.State.__new__(game.State)
        state.__dict__.update(copy.deepcopy(fields))
        state.game = game
        state.rng = np.random.Generator(np.random.PCG64(_TEMPLATE_SEED))
        state.rng.bit_generator.state = rng_state
        state._reset_caches()
        return state

    def clone(self) -> "State":
        """Generic copy (deep-copies the public fields); games override it with a fast one that
        starts from ``_clone_base`` and copies their own fields."""
        new = self._clone_base()
        for key, value in self._data().items():
            if key not in new.__dict__:
                new.__dict__[key] = copy.deepcopy(value)
        new._reset_caches()
        return new

    def _clone_base(self, share_rng: bool = False) -> "State":
        """A new state of the same class with the base fields copied (game, generator,
        current_player, truncated, history). ``share_rng`` is for games that draw no chance after
        the deal; the caller copies its own fields and then calls ``_reset_caches``."""
        new = self.__class__.__new__(self.__class__)
        new.game = self.game
        new.rng = self.rng if share_rng else copy_generator(self.rng)
        new.current_player = self.current_player
        new.truncated = self.truncated
        new.history = self.history[:]
        return new

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.game.env_id} player={self.current_player}>"
