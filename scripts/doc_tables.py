"""Print the observation index table and the action table of an env id, for its docs page.

    python scripts/doc_tables.py kabaleo_v0 [option=value ...]

Without options it uses the first test config, which is the one the docs pages document.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kabenvs.core.errors import ConfigError  # noqa: E402
from kabenvs.core.registry import game_class  # noqa: E402


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    try:
        cls = game_class(argv[0])
        options = dict(cls.test_configs[0])
        for item in argv[1:]:
            key, _, value = item.partition("=")
            try:
                options[key] = ast.literal_eval(value)
            except (ValueError, SyntaxError):
                options[key] = value
        game = cls(**options)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"### Observation ({game.observation_size} floats, config {options})\n")
    print(game.layout.table())
    print(f"\n### Actions ({game.num_actions} ids)\n")
    print(game.catalog.table())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
