#!/usr/bin/env python
"""Convert a Stable-Baselines3 MaskablePPO archive into a safe kabenvs model (same as `kabenvs export`).

A thin wrapper for a checkout: the command lives in kabenvs/commands/export.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kabenvs.commands.export import *  # noqa: E402,F401,F403
from kabenvs.commands.export import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
