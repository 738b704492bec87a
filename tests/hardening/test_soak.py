"""scripts/soak.py: random games with invariants after every step; failures come with their seed."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _soak():
    spec = importlib.util.spec_from_file_location("soak_script", ROOT / "scripts" / "soak.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["soak_script"] = module  # worker processes find soak_chunk by its module's name
    spec.loader.exec_module(module)
    return module


def test_soak_plays_a_few_games_of_some_games(capsys):
    soak = _soak()
    code = soak.main(["--env", "kabaleo_v0", "cabula_v0", "--games", "3", "--workers", "2"])
    out = capsys.readouterr().out
    assert code == 0, out
    rows = [line.split() for line in out.splitlines() if line.startswith(("kabaleo_v0", "cabula_v0"))]
    assert {(r[0], int(r[1])) for r in rows} == {("kabaleo_v0", 2), ("kabaleo_v0", 4), ("cabula_v0", 2), ("cabula_v0", 6)}
    assert all(int(r[2]) == 3 and int(r[3]) > 0 and int(r[4]) == 0 for r in rows)


def test_a_broken_invariant_is_a_failure_with_its_seed(monkeypatch, capsys):
    soak = _soak()
    from kabenvs.core.registry import game_class

    cls = game_class("kabaal_v0").State
    real = cls.invariants

    def broken(self):  # breaks in the game dealt from seed 5, at its 7th step
        if len(self.history) == 7 and self.start_seed == 5:
            return ["tokens not conserved (planted)"]
        return real(self)

    monkeypatch.setattr(cls, "invariants", broken)
    monkeypatch.setattr(cls, "start_seed", None, raising=False)

    real_play = soak.play_one

    def play_one(game, seed):
        cls.start_seed = seed
        return real_play(game, seed)

    monkeypatch.setattr(soak, "play_one", play_one)
    code = soak.main(["--env", "kabaal_v0", "--players", "2", "--games", "8", "--workers", "1"])
    out = capsys.readouterr().out
    assert code == 1
    assert "FAIL kabaal_v0 2p seed 5 step 7: invariant broken: tokens not conserved (planted)" in out
    assert "--env kabaal_v0 --players 2 --seed 5 --games 1" in out
    assert soak.main(["--env", "kabaal_v0", "--players", "2", "--seed", "5", "--games", "1"]) == 1
    assert soak.main(["--env", "kabaal_v0", "--players", "2", "--seed", "6", "--games", "1"]) == 0


def test_bad_arguments_exit_2(capsys):
    soak = _soak()
    assert soak.main(["--env", "nope_v0"]) == 2
    assert soak.main(["--env", "kabaal_v0", "--players", "9"]) == 2
    assert soak.main(["--games", "0"]) == 2
    assert "soak.py: error:" in capsys.readouterr().err
