"""The programs behind the ``kabenvs`` console command (kabenvs/cli.py) and scripts/*.py."""

from __future__ import annotations

import argparse
import sys

from kabenvs.core.errors import brief


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad command line is one line naming the problem (exit status 2), like every
    other bad input to these commands, instead of the usage block followed by the message."""

    def error(self, message: str):
        print(f"error: {' '.join(message.split())} (see --help)", file=sys.stderr)
        sys.exit(2)


def seed_arg(text: str) -> int:
    """argparse ``type`` of every ``--seed``: an integer >= 0 (numpy's generators, which every
    seed ends in, refuse a negative one with a traceback)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{brief(text)} is not an integer; a seed is an integer >= 0") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; a seed is an integer >= 0")
    return value
