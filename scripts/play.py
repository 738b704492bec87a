"""Play any kabenvs game in the terminal, or replay a game log (see docs/play.md).

    python scripts/play.py kabaleo_v0 --players 3 --opponents random heuristic --log games.jsonl
    python scripts/play.py --replay games.jsonl --game-index 0 --view 1
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kabenvs.play.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
