"""Convert a Stable-Baselines3 MaskablePPO archive into a safe kabenvs model.

    kabenvs export runs/old/final_model.zip models/kabaleo_2p --trust-pickle
    kabenvs export mine.zip models/mine --trust-pickle --game kabaleo_v0 --players 3

Writes OUT.safetensors (the policy's weights, and its critic's) and OUT.json (checked metadata), which anyone can
load and play without running code from the file. Reading the archive unpickles Python objects
from it, which runs any code its maker put there: hence the required --trust-pickle. The game
comes from the archive's kabenvs metadata, or from --game/--players/--option for an archive that
has none (its network's sizes are then checked against that game). The safe model is loaded back
and must give the archive's own logits on real decisions of the game before this reports success.
Bad input ends with one line naming the problem and exit code 2.
"""

from __future__ import annotations

import argparse
import os
import sys

from kabenvs.commands.evaluate import UsageError, _parse_options
from kabenvs.extras import training_module

os.environ.setdefault("OMP_NUM_THREADS", "1")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one clear line instead of usage + message
        raise UsageError(message)


def parse_args(argv):
    p = _Parser(prog="export", description=__doc__.split("\n")[0])
    p.add_argument("source", metavar="IN.zip", help="the Stable-Baselines3 archive")
    p.add_argument("target", metavar="OUT", help="the safe model to write: OUT.safetensors + OUT.json")
    p.add_argument("--trust-pickle", action="store_true",
                   help="required: reading the archive RUNS CODE FROM THE FILE (pickle); give it only for an "
                   "archive you trust like a program")
    p.add_argument("--game", metavar="ENV_ID", help="env id (default: from the archive's kabenvs metadata)")
    p.add_argument("--players", type=int, help="number of players (default: the metadata's, else the game's)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option (repeatable)")
    return p.parse_args(argv)


def build_game(args):
    """The game named on the command line, over the archive's metadata where it has some."""
    from kabenvs.agents.policy import model_metadata, model_paths
    from kabenvs.core.registry import make_game

    options = _parse_options(args.option)
    meta = model_metadata(model_paths(args.source)[0])  # JSON only: nothing runs
    env_id = args.game or (meta["env_id"] if meta else None)
    if env_id is None:
        raise UsageError(f"{args.source!r} has no kabenvs metadata: say which game it plays with --game ENV_ID")
    if meta is not None and meta["env_id"] == env_id:
        options = {**meta["game_config"], **options}
    if args.players is not None:
        options["num_players"] = args.players
    try:
        return make_game(env_id, **options)
    except TypeError as exc:  # a value of a wrong type deep in a config (ConfigError is a KabenvsError)
        raise UsageError(f"bad option for {env_id}: {exc}") from None


def run(args) -> int:
    from kabenvs.agents.policy import export_model, model_paths, pickle_refusal

    source = model_paths(args.source)[0]
    if not source.is_file():  # (the archive is NAME.zip whether or not the suffix was given)
        raise UsageError(f"no Stable-Baselines3 archive {str(source)!r} (from {args.source!r}): "
                         "give the training run's .zip, with or without its suffix")
    if not args.trust_pickle:
        raise pickle_refusal(source)
    game = build_game(args)
    training_module("build").set_threads(1)
    weights, meta = export_model(source, args.target, game, trust_pickle=True)
    print(f"wrote {weights} and {weights.with_suffix('.json')} for {game.env_id} {game.config.to_dict()} "
          f"(sha256 {meta['sha256'][:16]}...; same actions as the archive on real decisions)")
    return 0


def main(argv=None) -> int:
    from kabenvs.core.errors import KabenvsError

    try:
        return run(parse_args(argv))
    except (UsageError, KabenvsError) as exc:
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except OSError as exc:  # the target cannot be written
        print(f"error: cannot write the model: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
