"""The ``kabenvs`` console command: one entry point, one subcommand per tool.

    kabenvs train configs/quickstart.yaml
    kabenvs evaluate runs/quickstart/final_model random
    kabenvs play kabaleo_v0 --players 3
    kabenvs benchmark --seconds 1
    kabenvs serve                     (the web front end, where this version has one)
    kabenvs export old.zip models/mine --trust-pickle
    kabenvs zoo list

Each subcommand is the same program as ``scripts/<name>.py`` in a checkout (those scripts are thin
wrappers around the same ``main`` functions), with the same options: ``kabenvs <command> --help``.
"""

from __future__ import annotations

import importlib
import sys

# subcommand -> (module holding main, one line of help)
COMMANDS = {
    "train": ("kabenvs.commands.train", "train a self-play agent from a YAML config"),
    "evaluate": ("kabenvs.commands.evaluate", "play agents against each other: models, bots, search"),
    "play": ("kabenvs.play.cli", "play a game in the terminal, or replay a game log"),
    "benchmark": ("kabenvs.commands.benchmark", "measure every env's speed next to PettingZoo's"),
    "serve": ("kabenvs.commands.serve", "serve the web front end"),
    "export": ("kabenvs.commands.export", "convert a trusted Stable-Baselines3 archive into a safe model"),
    "zoo": ("kabenvs.commands.zoo", "the agents shipped with kabenvs (seat spec 'zoo'): list them, add one"),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    rows = "\n".join(f"  {name:<{width}}  {text}" for name, (_, text) in COMMANDS.items())
    return (f"usage: kabenvs COMMAND [options]   (kabenvs COMMAND --help for its options)\n\ncommands:\n{rows}\n"
            "  --version   print the version")


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0 if args else 2
    if args[0] == "--version":
        from kabenvs import __version__

        print(f"kabenvs {__version__}")
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"error: unknown command {name!r}; commands: {', '.join(COMMANDS)} (see kabenvs --help)",
              file=sys.stderr)
        return 2
    module_name = COMMANDS[name][0]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:  # the command itself is absent from this version
            print(f"error: 'kabenvs {name}' is not available in this version of kabenvs", file=sys.stderr)
            return 2
        print(f"error: 'kabenvs {name}' needs {exc.name}, which is not installed; "
              "install the extra with: pip install 'kabenvs[train]'", file=sys.stderr)
        return 2
    try:
        return int(module.main(rest) or 0)
    except ModuleNotFoundError as exc:  # an optional package the command reaches only while running
        if not exc.name or exc.name.split(".")[0] in ("kabenvs", "training"):
            raise
        extra = "rllib" if exc.name.split(".")[0] == "ray" else "train"
        print(f"error: 'kabenvs {name}' needs {exc.name}, which is not installed; "
              f"install the extra with: pip install 'kabenvs[{extra}]'", file=sys.stderr)
        return 2
    except SystemExit as exc:  # argparse's --help and bad command lines: a status, as from main()
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
