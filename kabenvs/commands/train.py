"""Train a self-play MaskablePPO agent from a YAML config, then print its evaluation table.

    kabenvs train configs/quickstart.yaml
    kabenvs train configs/kabaleo.yaml --set game.num_players=4 --set output.name=kabaleo_4p
    kabenvs train configs/kabaleo.yaml --resume            # continue runs/kabaleo
    kabenvs train configs/kabaleo.yaml --check             # validate and print the config
    kabenvs train configs/quickstart.yaml --set engine=rllib --set ray.num_env_runners=2   # Ray RLlib

Bad input (a missing file, malformed YAML, an unknown key, a wrong type or value, an unknown env
id) stops with one line naming the problem and exit code 2, before any training starts.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from kabenvs.commands import OneLineParser
from kabenvs.extras import training_module

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before torch is imported; see training.build.set_threads


def parse_args(argv):
    p = OneLineParser(description=__doc__.split("\n")[0])
    p.add_argument("config", help="YAML config (see docs/training.md)")
    p.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                   help="override one config value (repeatable), e.g. algorithm.total_timesteps=50000")
    p.add_argument("--resume", nargs="?", const="", default=None, metavar="RUN_FOLDER",
                   help="continue a run from its latest checkpoint (default folder: output.dir/output.name)")
    p.add_argument("--check", action="store_true", help="validate the config, print it resolved, and stop")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    from kabenvs.core.errors import KabenvsError
    load_config = training_module("config").load_config

    try:
        cfg = load_config(args.config, args.set)
    except KabenvsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.check:
        import yaml

        print(yaml.safe_dump(cfg, sort_keys=False), end="")
        return 0

    run = training_module("run")
    final_table, train = run.final_table, run.train

    resume = None
    if args.resume is not None:
        resume = Path(args.resume) if args.resume else Path(cfg["output"]["dir"]) / cfg["output"]["name"]
        if not (resume / "config.yaml").is_file():
            print(f"error: --resume: {resume} is not a run folder (no config.yaml)", file=sys.stderr)
            return 2
    try:
        trainer, reports = train(cfg, resume_folder=resume)
    except KabenvsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # the run folder stopped being writable mid-run (disk full, removed)
        print(f"error: writing the run failed: {' '.join(str(exc).split())}", file=sys.stderr)
        return 1
    if reports is None:
        print(f"continue with: kabenvs train {args.config} --resume {trainer.run.path}")
        return 130
    print()
    print(final_table(trainer.game, reports, trainer.train_seconds(), trainer.learner_steps()))
    for note in trainer.notes:
        print(f"note: {note}")
    safe = trainer.run.final_model.with_suffix(".safetensors")  # + .json: the model to share and play
    print(f"model: {safe}   (evaluate: kabenvs evaluate {safe} random)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
