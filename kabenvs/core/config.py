"""Base class of every game's ``Config``: a frozen dataclass validated on construction.

YAML ``game:`` sections and ``kabenvs.make(**options)`` map onto it one to one, so the errors
here are the ones a user sees for a typo in a config file: they name the field, the value and
what is allowed.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from kabenvs.core.errors import ConfigError, brief


@dataclasses.dataclass(frozen=True)
class GameConfig:
    """Fields shared by every game. Subclasses add theirs and extend ``validate``."""

    num_players: int = 2

    # Player counts the game allows; subclasses override.
    PLAYER_COUNTS: ClassVar[tuple[int, ...]] = (2,)

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        self.check_choice("num_players", self.PLAYER_COUNTS)

    # -- helpers for subclasses -------------------------------------------------------------
    def check_choice(self, field: str, allowed) -> None:
        value = getattr(self, field)
        if isinstance(value, bool) and not any(isinstance(a, bool) for a in allowed):
            raise ConfigError(f"{field}={brief(value)} is not allowed; choose one of {list(allowed)}")
        if value not in allowed:
            raise ConfigError(f"{field}={brief(value)} is not allowed; choose one of {list(allowed)}")

    def check_bool(self, field: str) -> None:
        value = getattr(self, field)
        if not isinstance(value, bool):
            raise ConfigError(f"{field}={brief(value)} must be true or false")

    def check_int(self, field: str, low: int, high: int | None = None) -> None:
        value = getattr(self, field)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{field}={brief(value)} must be an integer")
        if value < low or (high is not None and value > high):
            bound = f"between {low} and {high}" if high is not None else f">= {low}"
            raise ConfigError(f"{field}={brief(value)} is out of range; it must be {bound}")

    def fail(self, message: str) -> None:
        raise ConfigError(message)

    # -- construction from user input -------------------------------------------------------
    @classmethod
    def field_names(cls) -> list[str]:
        return [f.name for f in dataclasses.fields(cls)]

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None) -> "GameConfig":
        """Build from user options; unknown keys raise ``ConfigError`` listing the known ones."""
        options = dict(options or {})
        known = cls.field_names()
        unknown = [k for k in options if k not in known]
        if unknown:
            raise ConfigError(
                f"unknown option(s) {brief(unknown)} for {cls.__name__}; allowed options: {known}"
            )
        # JSON/YAML give lists where a field may want tuples (e.g. a board layout).
        fields = {f.name: f for f in dataclasses.fields(cls)}
        for key, value in options.items():
            default = fields[key].default
            if isinstance(default, tuple) and isinstance(value, list):
                options[key] = _deep_tuple(value)
        return cls(**options)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: _deep_list(getattr(self, f.name)) for f in dataclasses.fields(self)}

    @classmethod
    def completed(cls, options: dict[str, Any]) -> dict[str, Any]:
        """``options`` as written by an earlier version (a model's metadata), with every field
        added since at its default: a new option's default keeps the game as it was before the
        option existed (docs/adding_a_game.md), so such a model played exactly that. Keys this
        version does not know, and values that differ, are kept as they are (and still differ)."""
        added = {f.name: _deep_list(f.default) for f in dataclasses.fields(cls)
                 if f.name not in options and f.default is not dataclasses.MISSING}
        return {**added, **options}


def _deep_tuple(value):
    return tuple(_deep_tuple(v) for v in value) if isinstance(value, list) else value


def _deep_list(value):
    return [_deep_list(v) for v in value] if isinstance(value, tuple) else value
