"""Direct tests of kabenvs/core/errors.py (the two user-facing errors and ``brief``) and
kabenvs/core/registry.py (env ids -> game classes). Written to kill the mutants the behavioural
suite let through (docs/testing.md, "Mutation testing")."""

from __future__ import annotations

import sys

import pytest

import kabenvs.games as games_pkg
from kabenvs.core import registry
from kabenvs.core.errors import BRIEF_LIMIT, ConfigError, IllegalActionError, KabenvsError, brief
from kabenvs.games.kabaleo.rules import KabaleoGame

ENV_IDS = ["alakazum_v0", "barakka_v0", "cabula_v0", "kabaal_v0", "kabaleo_v0"]

# -- brief -------------------------------------------------------------------------------------


def test_brief_keeps_a_repr_up_to_the_limit_and_cuts_a_longer_one():
    assert BRIEF_LIMIT == 80
    assert brief("ab") == "'ab'"
    exact = "x" * (BRIEF_LIMIT - 2)  # repr: 80 characters with the quotes
    assert brief(exact) == repr(exact)
    longer = "x" * (BRIEF_LIMIT - 1)  # repr: 81 characters
    assert brief(longer) == "'" + "x" * (BRIEF_LIMIT - 4) + "... (81 characters)"
    assert len(brief("y" * 10_000)) == BRIEF_LIMIT - 3 + len("... (10002 characters)")


def test_brief_takes_its_own_limit():
    assert brief("abc", limit=5) == "'abc'"
    assert brief("abcd", limit=5) == "'a... (6 characters)"
    assert brief("abcd", 5) == "'a... (6 characters)"


def test_brief_names_the_type_of_a_value_whose_repr_cannot_be_made():
    if not hasattr(sys, "get_int_max_str_digits"):
        pytest.skip("no integer digit limit in this Python")
    assert brief(10 ** (sys.get_int_max_str_digits() + 10)) == "<int too large to show>"

    class Deep:
        def __repr__(self):
            raise RecursionError("too deep")

    assert brief(Deep()) == "<Deep too large to show>"

    class Broken:
        def __repr__(self):
            raise TypeError("a bug, not a size")

    with pytest.raises(TypeError, match="a bug"):  # only the two size errors are caught
        brief(Broken())


# -- the errors ----------------------------------------------------------------------------------


def test_errors_are_value_errors_under_one_base():
    assert issubclass(ConfigError, KabenvsError) and issubclass(ConfigError, ValueError)
    assert issubclass(IllegalActionError, KabenvsError) and issubclass(IllegalActionError, ValueError)


def test_illegal_action_error_message_and_fields():
    e = IllegalActionError(7, "play", ["a", "b"])
    assert (e.action, e.decision, e.legal) == (7, "play", ["a", "b"])
    assert str(e) == "illegal action 7 for the decision 'play'; legal choices: a, b"
    e = IllegalActionError("x", "bid", [], label="bid 9")
    assert str(e) == "illegal action 'x' (bid 9) for the decision 'bid'; legal choices: none"
    e = IllegalActionError(1, "d", ["c"], label="")  # an empty label is left out
    assert str(e) == "illegal action 1 for the decision 'd'; legal choices: c"


def test_illegal_action_error_shows_forty_choices_and_cuts_the_action():
    forty = [f"c{i}" for i in range(40)]
    e = IllegalActionError(0, "d", forty)
    assert str(e).endswith("legal choices: " + ", ".join(forty))
    e = IllegalActionError(0, "d", forty + ["c40"])
    assert str(e).endswith("legal choices: " + ", ".join(forty) + ", ... (41 in all)")
    e = IllegalActionError("z" * 500, "d", ["c"])
    assert str(e) == f"illegal action {brief('z' * 500)} for the decision 'd'; legal choices: c"


# -- registry --------------------------------------------------------------------------------


def test_env_ids_game_class_and_make_game():
    assert registry.env_ids() == ENV_IDS
    assert registry.game_class("kabaleo_v0") is KabaleoGame
    game = registry.make_game("kabaleo_v0", num_players=3)
    assert isinstance(game, KabaleoGame) and game.num_players == 3
    with pytest.raises(ConfigError) as err:
        registry.game_class("z" * 200)
    assert str(err.value) == f"unknown env id {brief('z' * 200)}; known env ids: {ENV_IDS}"


def test_discovery_runs_once_and_skips_a_package_without_a_game(tmp_path, monkeypatch):
    # A second folder on the games package's path (another module finder) holding one module that
    # exposes no GAME and one that re-registers an env id under a later name.
    (tmp_path / "aaa_nogame.py").write_text("X = 1\n")
    (tmp_path / "zzz_override.py").write_text(
        "from kabenvs.games.kabaal import GAME as _G\n"
        "class GAME(_G):\n    env_id = 'kabaleo_v0'\n"
    )
    monkeypatch.setattr(games_pkg, "__path__", [*games_pkg.__path__, str(tmp_path)])
    for name in ("kabenvs.games.aaa_nogame", "kabenvs.games.zzz_override"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(registry, "_GAMES", None)
    try:
        found = registry._discover()
    finally:
        for name in ("kabenvs.games.aaa_nogame", "kabenvs.games.zzz_override"):
            sys.modules.pop(name, None)
    assert sorted(found) == ENV_IDS
    assert found["kabaleo_v0"].__module__ == "kabenvs.games.zzz_override"  # the later name wins
    assert found["kabaal_v0"].env_id == "kabaal_v0"
    assert registry._GAMES is found
    assert registry._discover() is found  # cached: not discovered again
    monkeypatch.setattr(registry, "_GAMES", {"only_v0": KabaleoGame})
    assert registry.env_ids() == ["only_v0"]
