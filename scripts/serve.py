"""Play any kabenvs game in the browser: a local web server (same as `kabenvs serve`; see docs/play.md).

A thin wrapper for a checkout: the command lives in kabenvs/commands/serve.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kabenvs.commands.serve import *  # noqa: E402,F401,F403
from kabenvs.commands.serve import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
