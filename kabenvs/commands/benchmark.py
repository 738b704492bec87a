"""Speed of every kabenvs env, side by side with PettingZoo's own classic envs, in one run.

    kabenvs benchmark [--seconds 3] [--env kabaleo_v0 ...] [--all-configs] [--json]
                      [--training [--training-seconds 60]]
                      [--search [--search-seconds 3] [--search-spec search:rollout=heuristic]]

Rows:
* ``AEC``: random legal play through the full AEC loop - ``agent_iter``, ``last()`` with the
  observation and mask every step, ``step`` - for every kabenvs env id and for PettingZoo's
  ``tictactoe_v3`` and ``connect_four_v3`` (``env()``, with their default wrappers).
* ``raw``: the same random play on kabenvs' ``State`` directly (no adapter, no observation).
* ``parts``: where an AEC step's time goes, per game at its smallest and largest player count:
  microseconds per step in the rules (``apply`` + ``legal_actions``), the observation, the mask,
  and the adapter (the rest of the AEC step: turn checks, per-seat move names, infos).
  ``AEC`` rows also give CPU microseconds per step (``time.process_time``) and connect_four_v3's
  CPU time per step over this row's (``cpu x c4``): on a machine shared with other work the
  wall clock counts the time others held the core, the CPU time does not.
* ``--training``: learner environment steps per second of MaskablePPO learning on this machine,
  per game with 2 players, next to PettingZoo's SB3 action-masking tutorial pattern on
  connect_four_v3 (see ``training/throughput.py``). Each game's run is built from its shipped
  config, ``configs/<game>.yaml`` (network, rollout, update, opponents; the imitation warm start
  skipped), named in the row; without a ``configs/`` folder (a non-editable install) the schema's
  defaults, with a note.
* ``--search``: simulations per second of the search bot (``kabenvs.agents.search``, the spec
  ``--search-spec``, default ISMCTS with random rollouts), per game at its smallest and largest
  player count, on positions of random games (``kabenvs.agents.search.speed``, what
  ``scripts/search_benchmark.py`` measures too).

Every row uses the same cheap picker (``random.choice`` over the mask's nonzero indices), so the
numbers compare the environments, not the pickers.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import sys
import time
from pathlib import Path

import numpy as np

import kabenvs
from kabenvs import compiled
from kabenvs.commands import OneLineParser
from kabenvs.core.errors import ConfigError
from kabenvs.core.registry import game_class


def play_game(env, seed: int, rnd: random.Random) -> int:
    """One game through the full AEC loop from ``env.reset(seed=seed)``, each move picked by
    ``rnd`` among the mask's nonzero ids (every row's picker); the steps with a choice."""
    flatnonzero = np.flatnonzero
    steps = 0
    env.reset(seed=seed)
    for _agent in env.agent_iter():
        obs, _reward, term, trunc, _info = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(rnd.choice(flatnonzero(obs["action_mask"]).tolist()))
        steps += 1
    return steps


def bench_aec(env, seconds: float, seed: int = 0) -> dict:
    rnd = random.Random(seed)
    steps = games = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        steps += play_game(env, seed + games, rnd)
        games += 1
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    # CPU time too: on a shared machine the wall clock also counts the time others held the core
    return {"agent_steps_per_s": steps / elapsed, "games_per_s": games / elapsed,
            "mean_game_length": steps / max(games, 1), "games": games, "seconds": elapsed,
            "cpu_us_per_step": cpu * 1e6 / max(steps, 1)}


def bench_raw(game, seconds: float, seed: int = 0) -> dict:
    rnd = random.Random(seed)
    steps = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = game.new_state(np.random.default_rng(seed + games))
        limit = game.max_decisions()
        n = 0
        while state.current_player is not None and n < limit:
            state.apply(rnd.choice(state.legal_actions()))
            n += 1
        steps += n
        games += 1
    elapsed = time.perf_counter() - start
    return {"agent_steps_per_s": steps / elapsed, "games_per_s": games / elapsed,
            "mean_game_length": steps / max(games, 1), "games": games, "seconds": elapsed}


def pettingzoo_rows(seconds: float) -> list[dict]:
    from pettingzoo.classic import connect_four_v3, tictactoe_v3

    rows = []
    for name, module in (("tictactoe_v3", tictactoe_v3), ("connect_four_v3", connect_four_v3)):
        r = bench_aec(module.env(), seconds)
        rows.append({"env": f"pettingzoo {name}", "loop": "AEC", "config": {}, **r})
    return rows


def bench_parts(game, seconds: float, seed: int = 0) -> dict:
    """Microseconds per decision in each part of an AEC step, timed on the engine itself.

    The loop does what the adapter does for every step (the deciding seat's legal moves, mask
    and observation, the move named to every seat, ``apply``), each call timed on its own. The
    adapter's share is the AEC loop's time per step less rules, observation and mask (the
    per-seat move names are part of it, reported on their own too)."""
    rnd = random.Random(seed)
    clock = time.perf_counter
    rules = obs = mask = names = 0.0
    steps = games = 0
    deadline = clock() + seconds
    while clock() < deadline:
        state = game.new_state(np.random.default_rng(seed + games))
        limit = game.max_decisions()
        k = 0
        while state.current_player is not None and k < limit:
            p = state.current_player
            t0 = clock()
            legal = state.legal_actions()  # computed once a decision; the mask reads it
            t1 = clock()
            state.legal_mask()
            t2 = clock()
            state.observation(p)
            t3 = clock()
            action = rnd.choice(legal)
            t4 = clock()
            state.action_names(action)  # what the env puts in every seat's info
            t5 = clock()
            state.apply(action)
            t6 = clock()
            rules += (t1 - t0) + (t6 - t5)
            mask += t2 - t1
            obs += t3 - t2
            names += t5 - t4
            k += 1
        steps += k
        games += 1
    per = 1e6 / max(steps, 1)
    return {"rules_us": rules * per, "observation_us": obs * per, "mask_us": mask * per,
            "names_us": names * per, "steps": steps}


def extreme_player_counts(env_id: str) -> list[int]:
    """A game's smallest and largest player count (one number when it has one)."""
    counts = sorted(game_class(env_id).Config.PLAYER_COUNTS)
    return sorted({counts[0], counts[-1]})


def parts_rows(env_ids: list[str], seconds: float) -> list[dict]:
    """Per-part costs at each game's smallest and largest player count (default configs)."""
    rows = []
    for eid in env_ids:
        for players in extreme_player_counts(eid):
            env = kabenvs.make(eid, num_players=players)
            aec = bench_aec(env, seconds)
            parts = bench_parts(env.game, seconds)
            step_us = 1e6 / aec["agent_steps_per_s"]
            adapter = step_us - parts["rules_us"] - parts["observation_us"] - parts["mask_us"]
            rows.append({"env": eid, "loop": "parts", "config": {"num_players": players},
                         "agent_steps_per_s": aec["agent_steps_per_s"], "step_us": step_us,
                         "adapter_us": adapter, "obs_size": env.game.observation_size, **parts})
    return rows


def kabenvs_rows(env_ids: list[str], seconds: float, all_configs: bool) -> list[dict]:
    rows = []
    for eid in env_ids:
        cls = game_class(eid)
        # the game's own defaults (full-length games); --all-configs adds the test-kit configs,
        # some of which cap game length to keep the kit fast
        configs = [{}] + (cls.test_configs if all_configs else [])
        for cfg in configs:
            env = kabenvs.make(eid, **cfg)
            rows.append({"env": eid, "loop": "AEC", "config": cfg, **bench_aec(env, seconds)})
            rows.append({"env": eid, "loop": "raw", "config": cfg, **bench_raw(env.game, seconds)})
    return rows


def training_rows(env_ids: list[str], seconds: float, overrides: dict[str, dict] | None = None) -> list[dict]:
    """The tutorial pattern's learner steps/s, then each game's at 2 players (where it has 2),
    built from the game's shipped config (``configs/<game>.yaml``: network, rollout, update,
    opponents; its imitation warm start skipped, not being learner throughput), or, where this
    kabenvs has no ``configs/`` folder (a non-editable install), from the schema's defaults with a
    one-line note. ``overrides`` (``{section: {key: value}}``) is for tests' tiny budgets."""
    try:
        from kabenvs.extras import training_module

        throughput = training_module("throughput")
        measure_training_throughput = throughput.measure_training_throughput
        measure_tutorial_baseline = throughput.measure_tutorial_baseline
    except ImportError as exc:
        print(f"training throughput unavailable ({exc}); install the 'train' extra", file=sys.stderr)
        return []
    rows = [{"env": "pettingzoo connect_four_v3 (SB3 tutorial pattern)", "loop": "train",
             "config_file": "SB3 MaskablePPO defaults", **measure_tutorial_baseline(seconds)}]
    noted = set()
    for eid in env_ids:
        cls = game_class(eid)
        cfg = {"num_players": 2} if 2 in cls.Config.PLAYER_COUNTS else {}
        path = throughput.shipped_config(eid)
        if path is None:
            note = throughput.no_shipped_config_note(eid)
            if note not in noted:
                print(note, file=sys.stderr)
                noted.add(note)
        rows.append({"env": eid, "loop": "train", "config": cfg,
                     **measure_training_throughput(eid, cfg, seconds, overrides=overrides, config=path)})
    return rows


def search_rows(env_ids: list[str], seconds: float, spec: str = "search") -> list[dict]:
    """The search bot's simulations per second at each game's smallest and largest player count."""
    from kabenvs.agents.search.speed import sims_per_second

    rows = []
    for eid in env_ids:
        for players in extreme_player_counts(eid):
            r = sims_per_second(eid, players, spec, seconds)
            rows.append({"env": eid, "loop": "search", "config": {"num_players": players}, "spec": spec,
                         "sims": r["sims"], "seconds": r["seconds"], "sims_per_s": r["sims_per_s"]})
    return rows


def _train_rate(row: dict) -> float:
    """Learner env steps per second of a training row (``training/throughput.py`` says
    ``steps_per_s``; older JSON files said ``env_steps_per_s``)."""
    return float(row.get("steps_per_s", row.get("env_steps_per_s", float("nan"))))


def format_table(rows: list[dict]) -> str:
    ref = {r["env"].split()[-1]: r["agent_steps_per_s"] for r in rows if r["env"].startswith("pettingzoo")
           and r["loop"] == "AEC"}
    c4_cpu = next((r.get("cpu_us_per_step") for r in rows if r["env"] == "pettingzoo connect_four_v3"
                   and r["loop"] == "AEC"), None)
    lines = [f"{'env':<34} {'loop':<5} {'agent-steps/s':>13} {'games/s':>9} {'mean len':>9} "
             f"{'x tictactoe':>11} {'x connect4':>10} {'cpu us/step':>11} {'cpu x c4':>8}  config"]
    for r in rows:
        if r["loop"] in ("train", "parts", "search"):
            continue
        sps = r["agent_steps_per_s"]
        t = sps / ref["tictactoe_v3"] if ref.get("tictactoe_v3") else float("nan")
        c = sps / ref["connect_four_v3"] if ref.get("connect_four_v3") else float("nan")
        cfg = ",".join(f"{k}={v}" for k, v in sorted(r.get("config", {}).items())) or "defaults"
        cpu = r.get("cpu_us_per_step", float("nan"))  # AEC rows only
        cpu_ratio = c4_cpu / cpu if c4_cpu and not math.isnan(cpu) else float("nan")
        lines.append(f"{r['env']:<34} {r['loop']:<5} {sps:>13,.0f} {r['games_per_s']:>9,.1f} "
                     f"{r['mean_game_length']:>9.1f} {t:>11.2f} {c:>10.2f} {cpu:>11.1f} {cpu_ratio:>8.2f}  {cfg}")
    parts = [r for r in rows if r["loop"] == "parts"]
    if parts:
        lines.append(f"\n{'where an AEC step goes (us/step)':<34} {'players':>7} {'step':>7} {'rules':>7} "
                     f"{'obs':>7} {'mask':>7} {'adapter':>7} {'x connect4':>10} {'obs size':>8}")
        c4 = ref.get("connect_four_v3")
        for r in parts:
            ratio = r["agent_steps_per_s"] / c4 if c4 else float("nan")
            lines.append(f"{r['env']:<34} {r['config']['num_players']:>7} {r['step_us']:>7.1f} "
                         f"{r['rules_us']:>7.1f} {r['observation_us']:>7.1f} {r['mask_us']:>7.1f} "
                         f"{r['adapter_us']:>7.1f} {ratio:>10.2f} {r['obs_size']:>8}")
    train = [r for r in rows if r["loop"] == "train"]
    if train:
        base = _train_rate(train[0])  # the first training row is the tutorial's baseline
        lines.append(f"\n{'training throughput':<52} {'env-steps/s':>11} {'x tutorial':>10} "
                     f"{'env':>6} {'opponents':>9} {'update':>7}  config")
        for r in train:
            rate = _train_rate(r)
            ratio = rate / base if base else float("nan")
            opts = ",".join(f"{k}={v}" for k, v in sorted(r.get("config", {}).items()))
            used = " ".join(filter(None, [r.get("config_file", "?"), opts]))
            lines.append(f"{r['env']:<52} {rate:>11,.0f} {ratio:>10.2f} "
                         f"{r.get('share_env', float('nan')):>6.0%} {r.get('share_opponents', float('nan')):>9.0%} "
                         f"{r.get('share_update', float('nan')):>7.0%}  {used}")
        if any(r.get("imitation_games_skipped") for r in train):
            lines.append("(a config's imitation warm start is skipped: it runs once before learning, "
                         "and is not learner throughput)")
    search = [r for r in rows if r["loop"] == "search"]
    if search:
        lines.append(f"\n{'search bot':<34} {'players':>7} {'sims/s':>9} {'sims':>7}  spec")
        for r in search:
            lines.append(f"{r['env']:<34} {r['config']['num_players']:>7} {r['sims_per_s']:>9,.1f} "
                         f"{r['sims']:>7}  {r['spec']}")
    return "\n".join(lines)


def build_description() -> str:
    """Which kabenvs ran: the compiled modules (a normal install, or a checkout built in place) or
    the Python sources (an editable install, or KABENVS_PURE_PYTHON=1): the AEC rows differ by
    about 1.5 times between the two (kabenvs/compiled.py)."""
    modules = compiled.compiled_modules()
    if compiled.running_compiled():
        stale = compiled.stale_modules()
        passed_over = f"; {len(stale)} older than their sources ran as Python" if stale else ""
        return f"compiled ({len(modules)} modules{passed_over})"
    if modules:
        return f"pure Python ({compiled.ENV_VAR}=1, or compiled modules older than their sources)"
    return ("pure Python (no compiled modules beside these sources: an editable install, a checkout "
            "not built in place with `python setup.py build_ext --inplace`, or no C compiler)")


def print_table(rows: list[dict]) -> None:
    print(format_table(rows))


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per row (default 3)")
    parser.add_argument("--env", nargs="*", default=None, help="env ids (default: all registered)")
    parser.add_argument("--all-configs", action="store_true", help="every test config of each game")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--no-parts", action="store_true",
                        help="skip the per-part costs at the smallest and largest player counts")
    parser.add_argument("--training", action="store_true", help="add MaskablePPO training throughput rows")
    parser.add_argument("--training-seconds", type=float, default=60.0)
    parser.add_argument("--search", action="store_true",
                        help="add the search bot's simulations per second at each game's smallest and largest table")
    parser.add_argument("--search-seconds", type=float, default=3.0, help="search time per --search row (default 3)")
    parser.add_argument("--search-spec", default="search",
                        help="the search bot measured, a seat spec (default: search; its sims/time are replaced)")
    args = parser.parse_args(argv)
    for name in ("seconds", "training_seconds", "search_seconds"):
        value = getattr(args, name)
        if not 0 < value <= 86_400:  # also refuses nan, which compares false with everything
            parser.error(f"--{name.replace('_', '-')}={value} must be a number of seconds in (0, 86400]")
    env_ids = args.env or kabenvs.ENV_IDS
    try:
        for eid in env_ids:
            game_class(eid)
        if args.search:
            from kabenvs.agents.search import parse_search_spec

            parse_search_spec(args.search_spec)  # a bad spec fails before any work
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    rows = pettingzoo_rows(args.seconds) + kabenvs_rows(env_ids, args.seconds, args.all_configs)
    if not args.no_parts:
        rows += parts_rows(env_ids, args.seconds)
    if args.training:
        rows += training_rows(env_ids, args.training_seconds)
    if args.search:
        try:
            rows += search_rows(env_ids, args.search_seconds, args.search_spec)
        except ConfigError as exc:  # a model= that does not load for a game or player count measured
            print(f"error: --search-spec: {' '.join(str(exc).split())}", file=sys.stderr)
            return 2
    build = build_description()
    if args.json:
        print(json.dumps({"machine": platform.machine(), "python": platform.python_version(),
                          "kabenvs": kabenvs.__version__, "build": build, "rows": rows}, indent=2))
    else:
        print(f"kabenvs {kabenvs.__version__} from {Path(kabenvs.__file__).parent}: {build}\n")
        print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
