#!/usr/bin/env python
"""Speed of every kabenvs env next to PettingZoo's classic envs (same as `kabenvs benchmark`; docs/benchmark.md).

A thin wrapper for a checkout: the command lives in kabenvs/commands/benchmark.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kabenvs.commands.benchmark import *  # noqa: E402,F401,F403  (tests and users reach its functions here)
from kabenvs.commands.benchmark import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
