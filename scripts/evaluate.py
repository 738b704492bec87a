#!/usr/bin/env python
"""Evaluate agents against each other (same as `kabenvs evaluate`; see docs/training.md).

A thin wrapper for a checkout: the command lives in kabenvs/commands/evaluate.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kabenvs.commands.evaluate import *  # noqa: E402,F401,F403  (tests and users reach its functions here)
from kabenvs.commands.evaluate import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
