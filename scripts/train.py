#!/usr/bin/env python
"""Train a self-play MaskablePPO agent from a YAML config (same as `kabenvs train`; see docs/training.md).

A thin wrapper for a checkout: the command lives in kabenvs/commands/train.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kabenvs.commands.train import *  # noqa: E402,F401,F403  (tests and users reach its functions here)
from kabenvs.commands.train import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
