#!/usr/bin/env python
"""The agents shipped with kabenvs: list them, add one (same as `kabenvs zoo`; see docs/zoo.md).

A thin wrapper for a checkout: the command lives in kabenvs/commands/zoo.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kabenvs.commands.zoo import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
