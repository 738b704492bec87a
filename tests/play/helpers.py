"""Drive ``scripts/play.py``'s ``main`` with scripted input, for every registered game."""

from __future__ import annotations

import io
import json

import numpy as np

from kabenvs.core.game import Game
from kabenvs.core.registry import env_ids, game_class
from kabenvs.play.cli import main

GAME_CASES = [(eid, game_class(eid).test_configs[0]) for eid in env_ids()]
GAME_IDS = [eid for eid, _ in GAME_CASES]
ALL_CONFIGS = [(eid, cfg) for eid in env_ids() for cfg in game_class(eid).test_configs]
ALL_CONFIG_IDS = [
    eid + "[" + ",".join(f"{k}={v}" for k, v in sorted(c.items())) + "]" for eid, c in ALL_CONFIGS
]

BAD_NUMBER = "987654"
NO_SUCH = "zzqx no such choice"


def run_cli(argv: list[str], text: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(argv, input=io.StringIO(text), output=out, errors=err)
    return rc, out.getvalue(), err.getvalue()


def option_args(config: dict) -> list[str]:
    """A game config as the command line's key=value options (num_players goes to --players)."""
    out = []
    for key, value in config.items():
        if key == "num_players":
            continue
        out.append(f"{key}={value if isinstance(value, str) else json.dumps(value)}")
    return out


def ambiguous_prefix(names: list[str]) -> str | None:
    """A prefix that starts two or more of ``names`` and is not itself one of them."""
    low = [n.lower() for n in names]
    for name in low:
        for k in range(1, len(name)):
            prefix = name[:k]
            if prefix.strip() != prefix or prefix.isdigit():
                continue
            if sum(n.startswith(prefix) for n in low) >= 2 and prefix not in low:
                return prefix
    return None


def first_decision_names(game: Game, seed: int) -> list[str]:
    state = game.new_state(np.random.default_rng(seed))
    return [state.action_name(a) for a in state.legal_actions()]


def answer_lines(game: Game, extra: int = 10, cap: int = 1500) -> list[str]:
    """Enough '1' answers (and screen-passing Enters) to play a game of ``game`` to its end; a game
    longer than ``cap`` lines ends at the end of input, which is a clean end too."""
    return ["1"] * min(2 * game.max_decisions() + extra, cap)
