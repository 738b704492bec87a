#!/usr/bin/env python
"""Soak test: many random games through the rules engine, every invariant checked after every step.

    python scripts/soak.py --games 1000 --workers 4
    python scripts/soak.py --env kabaleo_v0 --games 200
    python scripts/soak.py --env cabula_v0 --players 6 --seed 4711 --games 1     # replay one failure

For every game (or those named with ``--env``) at its smallest and largest player count (or
``--players``), with the default config (full-length games), it plays ``--games`` games with uniform
random legal moves. Game k of a config uses seed ``--seed + k`` for the deal and for the moves, so a
failure is replayed by its seed alone. After every step it checks ``invariants()`` and that the
player to move has a legal move; a game must end within ``max_decisions()`` and its end must give
winners and returns. Any violation or exception is a failure.

Prints, per config: games, steps, failures (each with its seed, step and message), and exits 1 when
anything failed (2 for bad arguments).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from kabenvs.commands import OneLineParser, env_tables, seed_arg  # noqa: E402
from kabenvs.core.errors import ConfigError  # noqa: E402
from kabenvs.core.registry import make_game  # noqa: E402


def play_one(game, seed: int) -> tuple[int, str | None, int]:
    """Play game ``seed``; (steps, failure message or None, step of the failure)."""
    state = game.new_state(np.random.default_rng(seed))
    mover = random.Random(seed)
    limit = game.max_decisions()
    step = 0
    try:
        problems = state.invariants()
        if problems:
            return step, f"after the deal: {problems[0]}", step
        while state.current_player is not None:
            if step >= limit:
                return step, f"no end within max_decisions() = {limit}", step
            legal = state.legal_actions()
            if not legal:
                return step, f"player {state.current_player} is to move but has no legal move", step
            state.apply(mover.choice(legal))
            step += 1
            problems = state.invariants()
            if problems:
                return step, f"invariant broken: {problems[0]}", step
        if not state.truncated:
            winners, returns = state.winners(), state.returns()
            if len(returns) != game.num_players or not all(0 <= w < game.num_players for w in winners):
                return step, f"bad result: winners {winners}, returns {returns}", step
    except Exception as exc:  # any crash is a finding, reported with its seed
        message = str(exc).splitlines()[0][:200] if str(exc) else ""
        return step, f"{type(exc).__name__}: {message}", step
    return step, None, step


def soak_chunk(task: tuple[str, int, int, int]) -> dict:
    """Play seeds ``first .. first + count - 1`` of one config (one worker's share)."""
    env_id, players, first, count = task
    t0 = time.process_time()
    game = make_game(env_id, num_players=players)
    steps, failures = 0, []
    for seed in range(first, first + count):
        n, failure, at = play_one(game, seed)
        steps += n
        if failure is not None:
            failures.append({"seed": seed, "step": at, "message": failure})
    return {"env_id": env_id, "players": players, "games": count, "steps": steps, "failures": failures,
            "seconds": time.process_time() - t0}


def tasks_for(configs: list[tuple[str, int]], games: int, first_seed: int, workers: int) -> list[tuple]:
    """Seeds split into chunks small enough to keep every worker busy to the end."""
    chunk = max(1, min(200, games // max(1, workers * 4)))
    tasks = []
    for env_id, n in configs:
        for start in range(0, games, chunk):
            tasks.append((env_id, n, first_seed + start, min(chunk, games - start)))
    return tasks


def run_soak(configs, games: int, first_seed: int = 0, workers: int = 1, echo=print) -> dict:
    """Soak every config; returns ``{(env_id, players): totals}`` (also printed through ``echo``)."""
    tasks = tasks_for(configs, games, first_seed, workers)
    totals = {c: {"games": 0, "steps": 0, "failures": [], "seconds": 0.0} for c in configs}
    t0 = time.perf_counter()
    if workers > 1:
        with mp.get_context("spawn" if sys.platform == "darwin" else "fork").Pool(workers) as pool:
            results = list(pool.imap_unordered(soak_chunk, tasks))
    else:
        results = [soak_chunk(t) for t in tasks]
    wall = time.perf_counter() - t0
    for r in results:
        t = totals[(r["env_id"], r["players"])]
        t["games"] += r["games"]
        t["steps"] += r["steps"]
        t["failures"].extend(r["failures"])
        t["seconds"] += r["seconds"]
    echo(f"{'game':<14} {'players':>7} {'games':>8} {'steps':>11} {'failures':>8} {'ms/game':>8}")
    for (env_id, n), t in totals.items():
        per_game = 1000 * t["seconds"] / max(t["games"], 1)  # CPU time in the workers
        echo(f"{env_id:<14} {n:>7} {t['games']:>8} {t['steps']:>11} {len(t['failures']):>8} {per_game:>8.1f}")
    for (env_id, n), t in totals.items():
        for f in sorted(t["failures"], key=lambda f: f["seed"])[:20]:
            echo(f"FAIL {env_id} {n}p seed {f['seed']} step {f['step']}: {f['message']}")
            echo(f"     replay: python scripts/soak.py --env {env_id} --players {n} --seed {f['seed']} --games 1")
        if len(t["failures"]) > 20:
            echo(f"     ... and {len(t['failures']) - 20} more failures of {env_id} {n}p")
    played = sum(t["games"] for t in totals.values())
    cpu = sum(t["seconds"] for t in totals.values())
    echo(f"{played} games, {sum(t['steps'] for t in totals.values())} steps in {wall:.1f} s "
         f"with {workers} worker(s) ({1000 * cpu / max(played, 1):.1f} ms of CPU per game)")
    return totals


def parse_args(argv):
    p = OneLineParser(description=__doc__.split("\n")[0])
    p.add_argument("--env", nargs="+", metavar="ENV_ID", help="games to soak (default: every registered game)")
    p.add_argument("--players", nargs="+", type=int, metavar="N",
                   help="player counts (default: each game's smallest and largest)")
    p.add_argument("--games", type=int, default=100, help="games per config (default 100)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--seed", type=seed_arg, default=0, help="seed of the first game (default 0)")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        if args.games < 1:
            raise ConfigError(f"--games {args.games}: play at least 1 game")
        if not 1 <= args.workers <= 512:
            raise ConfigError(f"--workers {args.workers}: give 1..512 (this machine has {os.cpu_count()} CPUs)")
        configs = env_tables(args.env, args.players)
    except ConfigError as exc:
        print(f"soak.py: error: {exc}", file=sys.stderr)
        return 2
    totals = run_soak(configs, args.games, args.seed, args.workers)
    return 1 if any(t["failures"] for t in totals.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
