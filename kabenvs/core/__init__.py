from kabenvs.core.actions import ActionCatalog
from kabenvs.core.config import GameConfig
from kabenvs.core.errors import ConfigError, IllegalActionError, KabenvsError
from kabenvs.core.game import Game, State
from kabenvs.core.observation import ObservationLayout

__all__ = [
    "ActionCatalog", "ConfigError", "Game", "GameConfig", "IllegalActionError",
    "KabenvsError", "ObservationLayout", "State",
]
