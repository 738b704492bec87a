#!/usr/bin/env python
"""A fixed-seed fingerprint of everything the AEC loop hands out, to prove a speed change exact.

    python scripts/obs_fingerprint.py --record /tmp/before.json [--env kabaal_v0 ...]
    python scripts/obs_fingerprint.py --check /tmp/before.json

A thin wrapper for a checkout: the command lives in kabenvs/commands/fingerprint.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kabenvs.commands.fingerprint import *  # noqa: E402,F401,F403  (tests reach its functions here)
from kabenvs.commands.fingerprint import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
