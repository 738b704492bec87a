#!/usr/bin/env python
"""A digest of everything a seat reads in fixed-seed random games: to prove a speed change is
bit-identical (docs/benchmark.md).

For each env id and player count given, plays ``--games`` random games through the AEC adapter
and hashes, at every step, every seat's observation (dtype, shape and bytes), every seat's mask,
the rewards, cumulative rewards, terminations, truncations and infos. Every ``--clone-every``
steps it also hashes the observations of a ``clone()`` and of a JSON round trip of the state
(a cache shared with, or missing from, a copy shows up there), and checks that an observation
returned earlier is not changed by later steps (observations must be fresh arrays).

    PYTHONPATH=. python scripts/obs_fingerprint.py cabula_v0:2 cabula_v0:6 alakazum_v0:2 alakazum_v0:5
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import kabenvs  # noqa: E402


def _feed(h, arr: np.ndarray) -> None:
    h.update(f"{arr.dtype}{arr.shape}".encode())
    h.update(np.ascontiguousarray(arr).tobytes())


def fingerprint(env_id: str, players: int, games: int, seed: int, clone_every: int) -> str:
    h = hashlib.sha256()
    env = kabenvs.make(env_id, num_players=players)
    pick = random.Random(seed)
    for g in range(games):
        env.reset(seed=seed * 1000 + g)
        step = 0
        kept: list[tuple[np.ndarray, bytes]] = []
        for agent in env.agent_iter():
            state = env.unwrapped.state
            for a in env.possible_agents:
                ob = env.observe(a)
                _feed(h, ob["observation"])
                _feed(h, ob["action_mask"])
            h.update(repr((sorted(env.rewards.items()), sorted(env._cumulative_rewards.items()),
                           sorted(env.terminations.items()), sorted(env.truncations.items()),
                           sorted((k, sorted(v.items())) for k, v in env.infos.items()))).encode())
            obs, _, term, trunc, _ = env.last()
            kept.append((obs["observation"], obs["observation"].tobytes()))
            if step % clone_every == 0 and state.current_player is not None:
                for copy in (state.clone(), env.unwrapped.game.state_from_json(state.to_json())):
                    for p in range(players):
                        _feed(h, copy.observation(p))
                    _feed(h, copy.legal_mask())
            if term or trunc:
                env.step(None)
            else:
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[pick.randrange(len(legal))]))
            step += 1
        for arr, raw in kept:
            if arr.tobytes() != raw:
                raise AssertionError(f"{env_id} {players}p game {g}: an observation changed after it was returned")
    return h.hexdigest()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tables", nargs="+", help="env_id:players")
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--clone-every", type=int, default=5)
    args = ap.parse_args()
    for t in args.tables:
        env_id, players = t.split(":")
        print(t, fingerprint(env_id, int(players), args.games, args.seed, args.clone_every), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
