"""A fixed-seed fingerprint of everything the AEC loop hands out, to prove a speed change exact.

    python scripts/obs_fingerprint.py --record /tmp/before.json [--env kabaal_v0 ...]
    python scripts/obs_fingerprint.py --check /tmp/before.json

For each game at its smallest and largest player count and at every test-kit config, a few
random games are played through ``GameEnv`` on fixed seeds; at every step it digests, for every
seat, the observation and the mask (``observe``: bytes, dtype and shape), then the acting seat's
``last()`` (reward, termination, truncation, info) and, every few steps, a clone's observation of
every seat and a resampled world's observation of the acting seat (caches must not leak into
copies); at the end of a game the state's JSON. Every observation handed out is kept and checked
unchanged at the end of its game (a later step must never overwrite a returned array).

The digests are per (env, config); ``--check`` prints the ones that differ and exits 1. Record
before a change, check after it: speed work must leave every digest alike.
The same digests, taken in two processes of one install, compare its compiled modules with their
sources (``KABENVS_PURE_PYTHON=1``; tests/core/test_compiled_build.py).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from pathlib import Path

import numpy as np

import kabenvs
from kabenvs.commands import OneLineParser
from kabenvs.core.errors import ConfigError
from kabenvs.core.registry import game_class


def configs_of(env_id: str) -> list[dict]:
    cls = game_class(env_id)
    counts = sorted(cls.Config.PLAYER_COUNTS)
    out = [{"num_players": p} for p in sorted({counts[0], counts[-1]})]
    out += [c for c in cls.test_configs if c not in out]
    return out


def _arr(h, a: np.ndarray) -> None:
    h.update(f"{a.dtype}{a.shape}".encode())
    h.update(np.ascontiguousarray(a).tobytes())


def fingerprint(env_id: str, cfg: dict, games: int, every: int = 7) -> str:
    h = hashlib.sha256()
    env = kabenvs.make(env_id, **cfg)
    for g in range(games):
        rnd = random.Random(1000 + g)
        env.reset(seed=g)
        kept: list[tuple[np.ndarray, bytes]] = []
        k = 0
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            _arr(h, obs["observation"])
            _arr(h, obs["action_mask"])
            h.update(json.dumps([agent, reward, term, trunc, info], sort_keys=True, default=str).encode())
            kept.append((obs["observation"], obs["observation"].tobytes()))
            kept.append((obs["action_mask"], obs["action_mask"].tobytes()))
            for a in env.agents:  # every seat, after the acting one asked first
                o = env.observe(a)
                _arr(h, o["observation"])
                _arr(h, o["action_mask"])
                kept.append((o["observation"], o["observation"].tobytes()))
            h.update(json.dumps([env.rewards, env.terminations, env.truncations, env.infos],
                                sort_keys=True, default=str).encode())
            if term or trunc:
                env.step(None)
                continue
            state = env.unwrapped.state
            if k % every == 3:
                twin = state.clone()
                for p in range(env.game.num_players):
                    _arr(h, twin.observation(p))
                _arr(h, twin.legal_mask())
                p = state.current_player
                try:
                    world = state.resample_hidden(p, np.random.default_rng(k))
                except NotImplementedError:
                    world = None
                if world is not None:
                    _arr(h, world.observation(p))
                    _arr(h, world.legal_mask())
            k += 1
            env.step(rnd.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        h.update(env.unwrapped.state.to_json().encode())
        for arr, data in kept:
            if arr.tobytes() != data:
                raise SystemExit(f"{env_id} {cfg} game {g}: a returned array changed after it was handed out")
    return h.hexdigest()


def read_digests(path: str) -> dict[str, str]:
    """A file ``--record`` wrote: a JSON object of config key -> hex digest (else one line, exit 2)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SystemExit(f"error: --check {path}: cannot be read as JSON ({type(exc).__name__}: "
                         f"{str(exc)[:120]})") from None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise SystemExit(f"error: --check {path}: not a file --record wrote (a JSON object of config -> digest)")
    return data


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", nargs="*", default=None)
    parser.add_argument("--games", type=int, default=3)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--record")
    group.add_argument("--check")
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 10_000:
        parser.error(f"--games={args.games} must be a whole number in 1..10000")
    env_ids = args.env or kabenvs.ENV_IDS
    try:
        for eid in env_ids:
            game_class(eid)
    except ConfigError as exc:
        parser.error(str(exc))
    # read before playing anything: a bad file fails at once, not after minutes of games
    expected = read_digests(args.check) if args.check else None
    digests = {}
    for eid in env_ids:
        for cfg in configs_of(eid):
            key = f"{eid} {json.dumps(cfg, sort_keys=True)}"
            digests[key] = fingerprint(eid, cfg, args.games)
            print(key, digests[key][:16], flush=True)
    if expected is None:
        Path(args.record).write_text(json.dumps(digests, indent=1, sort_keys=True))
        return 0
    bad = [k for k in digests if k in expected and expected[k] != digests[k]]
    for k in bad:
        print(f"DIFFERS: {k}")
    missing = [k for k in digests if k not in expected]
    for k in missing:
        print(f"not recorded: {k}")
    # a config the file does not have was not compared: that is no proof of anything
    print("all alike" if not bad and not missing else f"{len(bad)} differ, {len(missing)} not recorded")
    return 1 if bad or missing else 0

