"""Evaluate agents against each other: trained models, heuristic bots, random.

    kabenvs evaluate runs/quickstart/final_model random
    kabenvs evaluate runs/kabaleo_4p/final_model heuristic heuristic heuristic --deals 200
    kabenvs evaluate heuristic random --game kabaleo_v0 --players 3 --option mode=equitable
    kabenvs evaluate model.safetensors random --json --log games.jsonl
    kabenvs evaluate heuristic random --game cabula_v0 --deals 1000 --workers 4   # same result as serial
    kabenvs evaluate mine.zip random --trust-pickle --game kabaleo_v0   # runs code from mine.zip
    kabenvs evaluate --human-log games.jsonl [more.jsonl ...] [--json]
    kabenvs evaluate --ladder random heuristic zoo search:sims=100 --game kabaleo_v0 --deals 50

Each SEAT is a model path (a safe model ``NAME.safetensors`` + ``NAME.json``, given as ``NAME`` or
either file; a Stable-Baselines3 ``.zip`` only with ``--trust-pickle``), ``heuristic``, ``random``
a search bot spec (``search:sims=400,rollout=heuristic``, see docs/search.md) or ``zoo``, the
agent shipped with kabenvs for the game and player count (docs/zoo.md;
``kabenvs evaluate zoo heuristic --game cabula_v0``);
give one per player for a one-against-the-rest match (with fewer, they repeat around the table).
The game comes from ``--game``/``--players``/``--option`` or else from the first model's metadata.
Every deal is played once per seat rotation (the luck of the deal cancels out); win rates carry
95% Wilson intervals, and with one competitor per seat OpenSkill ratings too. ``--ladder`` plays a
tournament instead: every group of ``players`` distinct SEATs (every pair at 2 players) on the
same deals, one OpenSkill rating per competitor over all of it, ranked, with the head-to-head win
rates (training/ladder.py).
Bad input ends with one line naming the problem and exit code 2.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from contextlib import contextmanager

from kabenvs.commands import OneLineParser, seed_arg
from kabenvs.core.errors import ConfigError, brief
from kabenvs.extras import training_module

os.environ.setdefault("OMP_NUM_THREADS", "1")


class UsageError(Exception):
    pass


_Parser = OneLineParser  # one line naming the problem instead of usage + message


def parse_args(argv):
    p = _Parser(description=__doc__.split("\n")[0])
    p.add_argument("seats", nargs="*", metavar="SEAT", help="model path, 'heuristic', 'random', 'search[:key=value,...]' or 'zoo'")
    p.add_argument("--game", metavar="ENV_ID", help="env id (default: the first model's)")
    p.add_argument("--players", type=int, help="number of players (default: the model's, else the game's default)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option (repeatable)")
    p.add_argument("--deals", type=int, default=100, help="deals, each played once per seat rotation (default 100)")
    p.add_argument("--seed", type=seed_arg, default=0, help="seed of the deals (default 0)")
    p.add_argument("--stochastic", action="store_true", help="models sample their moves instead of the argmax")
    p.add_argument("--trust-pickle", action="store_true",
                   help="also load Stable-Baselines3 .zip archives; this RUNS CODE FROM THE FILE (pickle): use it "
                   "only for archives you trust like a program. --game/--players/--option then stand in for "
                   "an archive without kabenvs metadata")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="play the deals in N parallel workers: Ray tasks when Ray is installed (the rllib extra; "
                   "RAY_ADDRESS joins a cluster), local processes otherwise; same results as N=1 (default 1)")
    p.add_argument("--backend", choices=("auto", "ray", "processes"), default="auto",
                   help="how --workers runs: auto (Ray if installed, else processes), ray or processes")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--log", metavar="FILE", help="append every game to this game log (JSON lines)")
    p.add_argument("--human-log", nargs="+", metavar="LOG", help="summarise games played by humans from game logs")
    p.add_argument("--time-moves", action="store_true",
                   help="also report each competitor's CPU milliseconds per decision with a choice (the ladder always "
                   "does); timings vary from run to run, so the output is no longer the same for the same seed")
    p.add_argument("--ladder", action="store_true",
                   help="a tournament of the SEATs: every group of PLAYERS distinct competitors plays --deals deals; "
                   "one OpenSkill rating each, ranked")
    return p.parse_args(argv)


def _short(text: str, limit: int = 60) -> str:
    shown = repr(text)
    return shown if len(shown) <= limit else shown[:limit - 3] + "..."


def _parse_options(items: list[str]) -> dict:
    import yaml

    out = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--option {_short(item)}: write KEY=VALUE, e.g. mode=equitable")
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise UsageError(f"--option {_short(item)}: the value {_short(text)} is not valid YAML ({problem}); "
                             "write KEY=VALUE with a number, true/false, a name or a [list]") from None
        except RecursionError:
            raise UsageError(f"--option {_short(item)}: the value is nested too deeply") from None
        except ValueError:  # an integer past Python's 4300-digit limit
            raise UsageError(f"--option {_short(item)}: the value is a number with more than 4300 digits") from None
        out[key.strip()] = value
    return out


def build_game(args, model_paths: list[str]):
    from kabenvs.agents.policy import model_metadata
    from kabenvs.core.registry import make_game

    options = _parse_options(args.option)
    env_id = args.game
    from_model = None  # the model whose metadata gave the game options
    if env_id is None or args.players is None:
        meta = model_metadata(model_paths[0]) if model_paths else None  # JSON only: nothing runs
        if env_id is None:
            if not model_paths:
                raise UsageError("no model file among the seats: say which game with --game ENV_ID")
            if meta is None:
                raise UsageError(f"model {model_paths[0]!r} has no kabenvs metadata: say which game with --game ENV_ID")
            env_id = meta["env_id"]
        if meta is not None and meta["env_id"] == env_id:
            options = {**meta["game_config"], **options}
            from_model = model_paths[0]
    if args.players is not None:
        options["num_players"] = args.players
    try:
        return make_game(env_id, **{str(k): v for k, v in options.items()})
    except TypeError as exc:  # a wrong type deep in a game's config (a ConfigError is reported as is)
        raise UsageError(f"bad game option for {env_id}: {exc}") from None
    except ConfigError as exc:
        if from_model is None:
            raise
        # the options came (in part) from the model's own metadata: say where, or the user looks
        # for num_players=99 in their own command
        raise UsageError(f"{exc} (the game options come from the metadata of model {brief(from_model, 200)}; "
                         "--game, --players and --option override them)") from None


def build_competitors(args, game):
    from kabenvs.agents.policy import load_agent
    from kabenvs.agents.search import is_search_spec
    from kabenvs.core.errors import ConfigError
    from kabenvs.zoo import is_zoo_spec, zoo_model_path
    ev = training_module("evaluation")
    BASELINES, Competitor, baseline = ev.BASELINES, ev.Competitor, ev.baseline

    comps = []
    counts: dict[str, int] = {}
    for i, seat in enumerate(args.seats):
        counts[seat] = counts.get(seat, 0) + 1
    seen: dict[str, int] = {}
    for i, seat in enumerate(args.seats):
        seen[seat] = seen.get(seat, 0) + 1
        suffix = f"#{seen[seat]}" if counts[seat] > 1 else ""
        if seat in BASELINES or is_search_spec(seat):
            comps.append(baseline(seat, game.env_id, name=f"{seat}{suffix}", game=game,
                                  trust_pickle=args.trust_pickle))
        else:  # a model file, or the shipped one ('zoo'), which plays under that name
            try:
                path = zoo_model_path(game) if is_zoo_spec(seat) else seat
            except ConfigError as exc:
                raise UsageError(str(exc)) from None
            agent = load_agent(path, game, seed=args.seed + 1000 * i, deterministic=not args.stochastic,
                               trust_pickle=args.trust_pickle)
            agent.name = f"{'zoo' if is_zoo_spec(seat) else agent.name}{suffix}"
            comps.append(Competitor(agent.name, agent, agent.seat_info()))
    return comps


def competitor_agents(env_id: str, options: dict, seats: list[str], seed: int, stochastic: bool,
                      trust_pickle: bool):
    """``(game, agents)`` as ``run`` builds them, in a worker of ``--workers`` (it must pickle)."""
    from kabenvs.core.registry import make_game

    training_module("build").set_threads(1)
    game = make_game(env_id, **options)
    args = argparse.Namespace(seats=seats, seed=seed, stochastic=stochastic, trust_pickle=trust_pickle)
    return game, [c.agent for c in build_competitors(args, game)]


@contextmanager
def progress_bar(total: int, enabled: bool):
    """A bar on stderr with games done and the time left (as training shows); yields ``tick()``.

    Off with ``--json`` or when stderr is not a terminal, so logs and pipes stay clean."""
    if not enabled or total < 2:
        yield lambda: None
        return
    from tqdm import tqdm

    bar = tqdm(total=total, unit="game", file=sys.stderr, dynamic_ncols=True, leave=False,
               bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} games [{elapsed}<{remaining}]")
    try:
        yield lambda: bar.update(1)
    finally:
        bar.close()


def run(args) -> int:
    if args.human_log:
        try:
            summarize = training_module("human_results").summarize
        except ImportError as exc:
            raise UsageError(f"--human-log needs training.human_results, which is not available here ({exc})") from None
        print(summarize(args.human_log, as_json=args.json))
        return 0
    if not args.seats:
        raise UsageError("give at least one SEAT (a model path, 'heuristic', 'random', 'search' or 'zoo'), "
                         "or --human-log LOG")
    if args.deals < 1:
        raise UsageError(f"--deals={args.deals} must be >= 1")
    if args.workers < 1:
        raise UsageError(f"--workers={args.workers} must be >= 1")
    if args.time_moves and args.workers > 1:
        raise UsageError("--time-moves times the moves in this process; drop --workers")
    from kabenvs.agents.search import is_search_spec
    ev = training_module("evaluation")
    BASELINES, evaluate, GameLog = ev.BASELINES, ev.evaluate, ev.GameLog

    from kabenvs.agents.policy import model_exists, model_kind, pickle_refusal

    from kabenvs.zoo import is_zoo_spec

    models = [s for s in args.seats if s not in BASELINES and not is_search_spec(s) and not is_zoo_spec(s)]
    for m in models:
        if not model_exists(m):
            raise UsageError(f"SEAT {brief(m)} is neither a model file nor one of {list(BASELINES)}, search or zoo")
        kind, file = model_kind(m)
        if kind == "sb3" and not args.trust_pickle:  # refuse before reading anything else
            raise pickle_refusal(file)
    if args.log:
        from kabenvs.records import check_log_target

        check_log_target(args.log)  # before any game is played
    training_module("build").set_threads(1)
    game = build_game(args, models)
    if args.ladder and len(set(args.seats)) != len(args.seats):
        raise UsageError(f"--ladder needs distinct SEATs; given {args.seats}")
    comps = build_competitors(args, game)
    on_game = GameLog(args.log, comps) if args.log else None
    if args.ladder:
        return run_ladder(args, game, comps, on_game)
    total = args.deals * game.num_players  # every deal once per seat rotation
    with progress_bar(total, enabled=not args.json and sys.stderr.isatty()) as tick:
        each_game = counted(on_game, tick)
        games = None
        if args.workers > 1:
            recipe = functools.partial(competitor_agents, env_id=game.env_id, options=game.config.to_dict(),
                                       seats=list(args.seats), seed=args.seed, stochastic=args.stochastic,
                                       trust_pickle=args.trust_pickle)
            games = ev.parallel_games(recipe, args.workers, backend=args.backend)
        report = evaluate(game, comps, args.deals, seed=args.seed, on_game=each_game, games=games,
                          time_moves=args.time_moves)
    return print_report(report, args, report.result.games, on_game)


def counted(on_game, tick):
    """``on_game`` (the game log, or None) that also ticks the progress bar."""
    def each_game(state, seating, deal_seed):
        if on_game is not None:
            on_game(state, seating, deal_seed)
        tick()

    return each_game


def print_report(report, args, games: int, log=None) -> int:
    """The results; then, if the game log stopped taking games, say so and exit 1 (the results are
    printed all the same: they were measured)."""
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(report.table())
        if args.log and (log is None or log.problem is None):
            print(f"{games} games appended to {args.log}")
    if log is not None and log.problem is not None:
        print(f"error: {log.problem}", file=sys.stderr)
        return 1
    return 0


def run_ladder(args, game, comps, on_game) -> int:
    if args.workers > 1:
        raise UsageError("--ladder plays its matches in one process; drop --workers")
    ladder = training_module("ladder").ladder
    from math import comb

    total = comb(len(comps), game.num_players) * args.deals * game.num_players
    with progress_bar(total, enabled=not args.json and sys.stderr.isatty()) as tick:
        report = ladder(game, comps, args.deals, seed=args.seed, on_game=counted(on_game, tick))
    return print_report(report, args, sum(m["games"] for m in report.matches), on_game)


def main(argv=None) -> int:
    args = parse_args(argv)
    from kabenvs.core.errors import KabenvsError

    try:
        return run(args)
    except (UsageError, KabenvsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # the game log cannot be written after all (disk full, removed folder)
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
