"""Command line of ``scripts/play.py``: play any registered game in the terminal, or replay a log.

    play.py GAME [--players N] [--seat SPEC ...] [--opponents SPEC ...] [--names NAME ...]
                 [--seed S] [--log FILE] [--trust-pickle] [key=value ...]
    play.py --replay LOG [--game-index K] [--view SEAT|all] [--step]
    play.py --replay LOG --list

A SPEC is ``human``, ``heuristic``, ``random``, ``search[:key=value,...]`` (the search bot, see
docs/search.md), ``zoo`` (the agent shipped with kabenvs for this game and player count, see
docs/zoo.md) or the path of a trained model: a safe model (``NAME``, ``NAME.safetensors`` or
``NAME.json``), or with ``--trust-pickle`` a Stable-Baselines3 archive ``NAME.zip`` (loading one
runs code from the file).
Bad arguments print one line naming the problem and exit with status 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import json
import os
import secrets
import sys
from typing import Any, TextIO

import numpy as np

from kabenvs.agents.human import Console
from kabenvs.commands import seed_arg
from kabenvs.core.errors import ConfigError, brief
from kabenvs.core.game import Game
from kabenvs.core.registry import env_ids, game_class
from kabenvs.play.session import AgentError, PlaySession, Seat

BOT_KINDS = ("human", "heuristic", "random")
DEFAULT_OPPONENT = "default"  # the game's heuristic bot, or random where the game has none


class UsageError(Exception):
    """A bad command line: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one clear line instead of usage + message
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="play.py",
        description="Play any kabenvs game in the terminal against humans, trained models and bots; "
        "record games to a log and replay them.",
        epilog="Seats are numbered from 0, as in the games' own screens. Game options are given as "
        "key=value (e.g. mode=equitable). See docs/play.md.",
    )
    p.add_argument("game", nargs="?", help=f"env id, one of {env_ids()}")
    p.add_argument("options", nargs="*", help="game options as key=value")
    p.add_argument("--players", type=int,
                   help="number of players (default: from the seats given, else the game's)")
    p.add_argument("--seat", "--seats", dest="seats", nargs="+", default=[], metavar="SPEC",
                   help="who sits in seats 0, 1, ...: human | heuristic | random | search[:sims=400,...] | "
                   "zoo (the shipped agent) | MODEL (a safe model: NAME.safetensors + NAME.json)")
    p.add_argument("--opponents", nargs="+", default=[], metavar="SPEC",
                   help="who fills the seats --seat left open (the last one repeats); default: "
                   "the game's heuristic bot, or random where it has none")
    p.add_argument("--names", nargs="+", default=[], metavar="NAME",
                   help="names of the human seats, in order")
    p.add_argument("--seed", type=seed_arg, help="deal seed (default: a random one, shown and logged)")
    p.add_argument("--log", metavar="FILE", help="append the game to this game log (one JSON line per game)")
    p.add_argument("--trust-pickle", action="store_true",
                   help="also load Stable-Baselines3 .zip archives as seats; this RUNS CODE FROM THE FILE "
                   "(pickle): use it only for archives you trust like a program")
    p.add_argument("--replay", metavar="LOG", help="replay a logged game instead of playing")
    p.add_argument("--game-index", type=int, metavar="K", help="which game of the log (0 = first, -1 = last)")
    p.add_argument("--view", default="all", metavar="SEAT|all", help="replay as this seat saw it, or all")
    p.add_argument("--step", action="store_true", help="replay: wait for Enter after each step")
    p.add_argument("--list", action="store_true", help="replay: list the games of the log")
    return p


def main(argv: list[str] | None = None, input: TextIO | None = None, output: TextIO | None = None,
         errors: TextIO | None = None) -> int:
    errors = errors if errors is not None else sys.stderr
    console = Console(input, output)
    try:
        args = build_parser().parse_intermixed_args(argv)
        if args.replay:
            from kabenvs.play.replay import replay_main

            return replay_main(args, console)
        return play_main(args, console)
    except UsageError as exc:
        errors.write(f"play.py: error: {exc}\n")
        errors.flush()
        return 2
    except KeyboardInterrupt:
        errors.write("\nplay.py: interrupted\n")
        return 130
    except BrokenPipeError:  # output closed early (e.g. piped into head): stop quietly
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 1


# -- playing ------------------------------------------------------------------------------------
def parse_option(item: str) -> tuple[str, Any]:
    key, sep, raw = item.partition("=")
    if not sep or not key:
        raise UsageError(f"game option {item!r} must look like key=value (e.g. mode=equitable)")
    low = raw.lower()
    if low in ("true", "yes", "on"):
        return key, True
    if low in ("false", "no", "off"):
        return key, False
    if low in ("none", "null"):
        return key, None
    try:
        return key, json.loads(raw)
    except ValueError:  # not JSON (or an integer of thousands of digits): the text itself
        return key, raw
    except RecursionError:
        raise UsageError(f"game option {key!r}: the value is nested too deeply") from None


def resolve_game(name: str | None) -> type[Game]:
    if not name:
        raise UsageError(f"name the game to play, one of {env_ids()} (or --replay LOG)")
    try:
        return game_class(name)
    except ConfigError:
        guesses = [e for e in env_ids() if e.split("_v")[0] == name]
        if len(guesses) == 1:
            return game_class(guesses[0])
        raise UsageError(f"unknown game {brief(name)}; known games: {', '.join(env_ids())}") from None


def seat_specs(args, default_players: int) -> list[str]:
    seats = list(args.seats) or ["human"]  # no --seat: one human in seat 0
    opponents = list(args.opponents)
    n = args.players
    if n is None:
        n = len(seats) + len(opponents) if (opponents or len(seats) > 1) else default_players
    if n < 1:
        raise UsageError(f"--players {n}: a game needs at least one player")
    if len(seats) > n:
        raise UsageError(f"--seat names {len(seats)} seats but the game has {n} players")
    free = n - len(seats)
    if len(opponents) > free:
        raise UsageError(
            f"{len(opponents)} opponent(s) given but only {free} seat(s) are left for {n} players"
        )
    fill = opponents + [opponents[-1] if opponents else DEFAULT_OPPONENT] * (free - len(opponents))
    return seats + fill


def build_seat(spec: str, index: int, game: Game, deal_seed: int, human_names: list[str],
               trust_pickle: bool = False) -> Seat:
    kind = spec.lower()
    seed = deal_seed * 31 + index  # like the arena: a seat's bot is seeded from the deal
    if kind == "human":
        name = human_names.pop(0) if human_names else "human"
        return Seat("human", None, name=name)
    if kind == "random":
        from kabenvs.agents import RandomAgent

        return Seat("random", RandomAgent(seed), name="random", seed=seed)
    if kind in ("heuristic", DEFAULT_OPPONENT):
        from kabenvs.agents import RandomAgent, heuristic_agent

        try:
            agent = heuristic_agent(game.env_id, seed)
        except (ImportError, AttributeError) as exc:
            if kind == DEFAULT_OPPONENT:
                return Seat("random", RandomAgent(seed), name="random", seed=seed)
            raise UsageError(f"{game.env_id} has no heuristic bot ({exc}); use random or a model") from None
        return Seat("heuristic", agent, name=getattr(agent, "name", "heuristic"), seed=seed)
    if kind == "search" or kind.startswith("search:"):
        return search_seat(spec, game, seed, trust_pickle)
    if kind == "zoo":
        from kabenvs.zoo import zoo_model_path

        try:
            spec = zoo_model_path(game)
        except ConfigError as exc:
            raise UsageError(str(exc)) from None
    return load_model_seat(spec, game, seed, trust_pickle)


def search_seat(spec: str, game: Game, seed: int, trust_pickle: bool = False) -> Seat:
    """The search bot (``search:sims=400,rollout=heuristic``); a bad spec is one usage line."""
    from kabenvs.agents.search import search_agent_from_spec

    try:
        agent = search_agent_from_spec(spec, game, seed, trust_pickle=trust_pickle)
    except Exception as exc:  # ConfigError, or a model= that fails to load
        raise UsageError(f"seat {brief(spec)}: {exc}") from None
    return Seat("search", agent, name=agent.name, seed=seed)


def load_model_seat(path: str, game: Game, seed: int, trust_pickle: bool = False) -> Seat:
    try:
        from kabenvs.agents.policy import load_agent, model_exists  # torch is only imported when a model plays
    except ImportError as exc:
        if not os.path.exists(path):
            raise UsageError(f"seat {brief(path)} is neither human, heuristic, random, search, zoo nor an existing model file") from None
        raise UsageError(
            f"cannot load trained model {path!r}: kabenvs.agents.policy is not available ({exc})"
        ) from None
    if not model_exists(path):  # NAME stands for NAME.safetensors + NAME.json (or NAME.zip)
        raise UsageError(f"seat {brief(path)} is neither human, heuristic, random, search, zoo nor an existing model file")
    try:
        agent = load_agent(path, game, seed=seed, deterministic=True, trust_pickle=trust_pickle)
    except Exception as exc:  # ModelLoadError and whatever a broken file raises: one line, exit 2
        raise UsageError(f"cannot load trained model {path!r}: {' '.join(str(exc).split())}") from None
    from kabenvs.records import model_hash

    # the agent knows which file it loaded and its hash; compute them only if it does not say
    file = getattr(agent, "path", None) or (path if os.path.isfile(path) else path + ".zip")
    digest = getattr(agent, "model_hash", None) or model_hash(file)
    return Seat("model", agent, name=getattr(agent, "name", None) or os.path.basename(path),
                model_path=os.path.abspath(file), model_hash=digest, seed=seed)


def player_count(args, cls: type[Game], options: dict[str, Any]) -> int | None:
    """--players or the num_players option (they must agree); None lets the seats decide."""
    players = args.players
    if "num_players" in options:
        value = options.pop("num_players")
        if isinstance(value, bool) or not isinstance(value, int):
            raise UsageError(f"num_players={value!r} must be an integer")
        if players is not None and players != value:
            raise UsageError(f"--players {players} contradicts num_players={value}")
        players = value
    return players


def default_player_count(cls: type[Game]) -> int:
    for f in dataclasses.fields(cls.Config):
        if f.name == "num_players" and isinstance(f.default, int):
            return f.default
    return 2


def _option_text(value) -> str:
    """An option's value as typed on the command line (``mode=equitable``, ``layout=[...]``)."""
    return value if isinstance(value, str) else json.dumps(value)


def play_main(args, console: Console) -> int:
    cls = resolve_game(args.game)
    options = dict(parse_option(item) for item in args.options)
    args.players = player_count(args, cls, options)
    specs = seat_specs(args, default_player_count(cls))
    options["num_players"] = len(specs)
    try:
        game = cls(**options)
    except (ValueError, TypeError) as exc:  # ConfigError, or a wrong type deep in a config
        message = str(exc) if isinstance(exc, ConfigError) else f"bad option for {cls.env_id}: {exc}"
        raise UsageError(message) from None
    deal_seed = args.seed if args.seed is not None else secrets.randbits(31)
    names = list(args.names)
    seats = [build_seat(spec, i, game, deal_seed, names, args.trust_pickle) for i, spec in enumerate(specs)]
    if names:
        humans = sum(s.kind == "human" for s in seats)
        raise UsageError(f"--names gives {len(args.names)} names for {humans} human seat(s)")
    if args.log:
        _check_writable(args.log)
    state = game.new_state(np.random.default_rng(deal_seed))
    # an empty option (Alakazum!'s cards= is its built-in card list) is left out of the header
    options_text = ", ".join(f"{k}={_option_text(v)}" for k, v in game.config.to_dict().items() if v != "")
    humans = any(seat.kind == "human" for seat in seats)
    # A seed the player did not choose is shown only after the game: new_state(seed) is the
    # whole deal, every hidden card (the log keeps it either way).
    drawn_in_secret = args.seed is None and humans
    seed_text = "a random deal (its seed is shown at the end)" if drawn_in_secret else f"deal seed {deal_seed}"
    console.write(f"{game.env_id} ({options_text}), {seed_text}")
    if any(spec == DEFAULT_OPPONENT and seat.kind == "random" for spec, seat in zip(specs, seats)):
        console.write(f"({game.env_id} has no heuristic bot yet: the open seats get random bots)")
    session = PlaySession(game, state, seats, console)
    try:
        outcome = session.run()
    except AgentError as exc:  # a bot or model failing is not the human's error: say so, keep the log
        # With a human at the screen only who failed and how: the full text can list the agent's
        # legal moves, its hidden cards (the log, all-seeing anyway, keeps it)
        shown = exc.headline if humans else str(exc)
        kept = f"; the details are in the game log {args.log}" if humans and args.log else ""
        console.write(f"play.py: the game stopped: {shown}{kept}")
        if drawn_in_secret:
            console.write(f"(deal seed {deal_seed})")
        _log(args.log, state, seats, deal_seed, {"ended": "error", "error": str(exc)}, console)
        return 1
    if drawn_in_secret:
        console.write(f"(deal seed {deal_seed})")
    meta = {"ended": outcome.ended, "interface": "play.py",
            "time": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
    if outcome.quit_by is not None:
        meta["quit_by"] = outcome.quit_by
    if not _log(args.log, state, seats, deal_seed, meta, console):
        return 1
    return 130 if outcome.ended == "interrupted" else 0


def _check_writable(path: str) -> None:
    from kabenvs.records import RecordError, check_log_target

    try:
        check_log_target(path)
    except RecordError as exc:
        raise UsageError(str(exc)) from None


def _log(path: str | None, state, seats: list[Seat], deal_seed: int, meta: dict, console: Console) -> bool:
    """Append the game to the log at ``path`` (if any); False (said on screen) when that fails."""
    if not path:
        return True
    from kabenvs.records import append_record, make_record

    index = _count_records(path)
    try:
        append_record(path, make_record(state, [s.record() for s in seats], deal_seed, meta=meta))
    except OSError as exc:
        console.write(f"play.py: could not write the game log {path}: {exc.strerror or exc}")
        return False
    console.write(f"Game logged to {path} as game {index} "
                  f"(replay: play.py --replay {path} --game-index {index})")
    return True


def _count_records(path: str) -> int:
    try:
        with open(path, encoding="utf-8") as fh:
            return sum(1 for line in fh if line.strip())
    except (OSError, UnicodeDecodeError):  # no log yet, or one append_record will report on
        return 0
