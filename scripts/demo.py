"""Play one full game between the heuristic bot and random agents, printing every move.

    python scripts/demo.py [ENV_ID] [--players N] [--seed S] [--quiet]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import kabenvs  # noqa: E402
from kabenvs.agents import Decision, RandomAgent, heuristic_agent  # noqa: E402
from kabenvs.commands import OneLineParser, seed_arg  # noqa: E402
from kabenvs.core.errors import KabenvsError  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("env_id", nargs="?", default="kabaleo_v0")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--seed", type=seed_arg, default=0)
    parser.add_argument("--quiet", action="store_true", help="only the final position and result")
    args = parser.parse_args(argv)
    try:
        options = {} if args.players is None else {"num_players": args.players}
        env = kabenvs.make(args.env_id, **options)
    except KabenvsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    game = env.game
    agents = [heuristic_agent(args.env_id, seed=args.seed)] + [
        RandomAgent(seed=args.seed + p) for p in range(1, game.num_players)
    ]
    names = [f"player {p} ({a.name})" for p, a in enumerate(agents)]
    env.reset(seed=args.seed)
    state = env.unwrapped.state
    print(state.render())
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        p = state.current_player
        action = agents[p].act(Decision(p, state, obs["observation"], obs["action_mask"]))
        if not args.quiet:
            print(f"{names[p]}: {state.action_name(action)}")
        env.step(action)
        state = env.unwrapped.state
    print()
    print(state.render())
    info = state.final_info()
    print("\nresult:", ", ".join(f"{k}={v}" for k, v in info.items()))
    print("winners:", ", ".join(names[w] for w in info["winners"]) or "none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
