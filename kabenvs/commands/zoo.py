"""The agents shipped with kabenvs (seat spec ``zoo``): list them, or add one.

    kabenvs zoo list
    kabenvs zoo add runs/kabaleo_2p/final_model --float16 --deals 150 --seed 7 \\
        --command "python scripts/train.py configs/kabaleo.yaml"

``add`` copies a trained safe model into the package's zoo (``kabenvs/zoo/agents/``) as the agent
for its game and player count, optionally with its weights rounded to float16 (half the size),
refuses it if the copy is over the zoo's size limit, measures how often the copy's move equals
the source's on real decisions, plays the copy against each baseline (one against
``num_players - 1`` copies, every deal once per seat rotation) and writes the model card: the
command that trained it, its learner steps and wall time, and that strength table with the
command that reproduces it. The card is stored twice: in the model's metadata (``zoo_card``,
for tests and tools) and as ``NAME.md`` beside it (for people).
Bad input ends with one line naming the problem and exit code 2.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kabenvs.commands import OneLineParser, seed_arg
from kabenvs.commands.evaluate import UsageError
from kabenvs.extras import training_module

# Game options that only say how a seat is paid (the contract's ``reward``: win/loss or the score
# margin), not what it sees, may do or how the game runs: a model trained with another payoff plays
# the default game exactly as it learned to, so the zoo ships it for the default options.
PAYOFF_OPTIONS = ("reward",)

os.environ.setdefault("OMP_NUM_THREADS", "1")


def parse_args(argv):
    p = OneLineParser(prog="zoo", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    ls = sub.add_parser("list", help="the shipped agents, their sizes and strength")
    ls.add_argument("--dir", type=Path, help="a zoo folder other than the package's (tests)")
    add = sub.add_parser("add", help="ship a trained safe model as the agent for its game and player count")
    add.add_argument("model", metavar="MODEL", help="a safe model (NAME, NAME.safetensors or NAME.json)")
    add.add_argument("--command", required=True, metavar="TEXT", help="the command that trained it (for the card)")
    add.add_argument("--float16", action="store_true", help="store the weights as float16 (half the size)")
    add.add_argument("--deals", type=int, default=150, help="deals per baseline for the strength table (default 150)")
    add.add_argument("--seed", type=seed_arg, default=7, help="seed of those deals (default 7; training evaluates on 12345)")
    add.add_argument("--against", nargs="+", default=["heuristic", "random"], metavar="BASELINE",
                     help="baselines to measure against (default: heuristic random)")
    add.add_argument("--note", default="", help="a sentence for the card (how it was chosen, what it lacks)")
    add.add_argument("--dir", type=Path, help="a zoo folder other than the package's (tests)")
    return p.parse_args(argv)


# -- list ---------------------------------------------------------------------------------------------
def list_agents(directory: Path | None) -> str:
    from kabenvs.zoo import shipped

    agents = shipped(directory)
    if not agents:
        return "no shipped agents in this install"
    lines = [f"{'game':<14} {'players':>7} {'size':>8} {'steps':>10}  strength (win rate, 95% CI)"]
    for a in agents:
        steps, strength = _card_summary(a.path.with_name(a.path.name + ".json"))
        lines.append(f"{a.env_id:<14} {a.num_players:>7} {a.size / 1e6:>6.2f}MB {steps:>10}  {strength}")
    return "\n".join(lines)


def _card_summary(meta_path: Path) -> tuple[str, str]:
    """``(learner steps, strength)`` as text from an agent's metadata; a file that is unreadable or
    not what ``add`` writes says so in its row instead of stopping the listing (loading the agent
    is what checks it in full)."""
    def is_num(x) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool)

    try:
        card = json.loads(meta_path.read_text(encoding="utf-8")).get("zoo_card")
        if not isinstance(card, dict):
            raise ValueError
    except (OSError, ValueError, AttributeError):
        return "?", "no readable model card"
    rows = [r for r in card.get("strength", []) if isinstance(r, dict) and isinstance(r.get("against"), str)
            and is_num(r.get("win_rate")) and isinstance(r.get("ci95"), list) and len(r["ci95"]) == 2
            and all(map(is_num, r["ci95"]))] if isinstance(card.get("strength"), list) else []
    strength = "; ".join(f"vs {r['against'][:20]} {r['win_rate']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]"
                         for r in rows) or "not measured"
    steps = card.get("learner_steps")
    return (str(steps) if isinstance(steps, int) else "?"), strength


# -- add ------------------------------------------------------------------------------------------------
def _argmax_agreement(source, shipped_net, game, count: int = 512) -> float:
    from kabenvs.agents.policy import masked_logits, sample_decisions

    obs, masks = sample_decisions(game, count=count, seed=1)
    a = masked_logits(source, obs, masks).argmax(axis=1)
    b = masked_logits(shipped_net, obs, masks).argmax(axis=1)
    return float((a == b).mean())


def _strength(game, target: Path, against: list[str], deals: int, seed: int) -> list[dict[str, Any]]:
    from kabenvs.agents.policy import load_agent

    ev = training_module("evaluation")
    n = game.num_players
    rows = []
    for kind in against:
        agent = load_agent(target, game, seed=seed, deterministic=True)
        report = ev.versus_baseline(game, "zoo", agent, kind, deals, seed)
        row = report.rows()[0]
        seats = " ".join(["zoo"] + [kind] * (n - 1))
        rows.append({
            # unrounded, so the card prints what `kabenvs evaluate` prints for the same games
            "against": kind, "games": report.result.games, "win_rate": row["win_rate"],
            "ci95": list(row["ci95"]), "mean_return": row["mean_return"], "even": 1 / n,
            "command": f"kabenvs evaluate {seats} --game {game.env_id} --players {n} --deals {deals} --seed {seed}",
        })
    return rows


def render_card(meta: dict[str, Any]) -> str:
    card = meta["zoo_card"]
    env, n = meta["env_id"], meta["game_config"].get("num_players")
    net = meta["network"]
    trunk = f"trunk {net['trunk']['size']} {net['trunk']['activation']}, " if net.get("trunk") else ""
    lines = [
        f"# Shipped agent: {env} at {n} players",
        "",
        f"Play it with the seat spec `zoo`: `python scripts/play.py {env} --players {n} --seat human zoo`.",
        "",
        "| field | value |",
        "|---|---|",
        f"| files | `{card['name']}.safetensors` + `{card['name']}.json`, {card['bytes'] / 1e6:.2f} MB, "
        f"{meta.get('weights_dtype', 'float32')} weights |",
        f"| game options | `{json.dumps(meta['game_config'], sort_keys=True)}` |",
        f"| network | {trunk}hidden {net['hidden']} {net['activation']}; observation {meta['observation_size']}, "
        f"{meta['num_actions']} actions |",
        f"| learner steps | {card['learner_steps']} |",
        f"| training wall time | {card['train_seconds']} s |",
        f"| trained with | {json.dumps(card['trained_with'], sort_keys=True) if card.get('trained_with') else 'the default options'} |",
        f"| source model | sha256 `{card['source_sha256']}` |",
        f"| same move as the source | {card['agreement']:.1%} of {card['agreement_decisions']} decisions (argmax) |",
        f"| shipped | {card['added_at']} by kabenvs {meta['kabenvs_version']} |",
        "",
        "## How it was trained",
        "",
        "```",
        card["command"],
        "```",
        "",
    ]
    if card.get("note"):
        lines += [card["note"], ""]
    lines += [
        "## Strength, measured on the shipped file",
        "",
        "One shipped agent against `players - 1` copies of the baseline, argmax play, every deal once "
        "per seat rotation, 95% Wilson interval; a shared win counts 1/k to each of k winners.",
        "",
        "| against | games | win rate | 95% CI | mean return | even | command |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in card["strength"]:
        lines.append(f"| {r['against']} | {r['games']} | {r['win_rate']:.3f} | [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}] "
                     f"| {r['mean_return']:+.3f} | {r['even']:.3f} | `{r['command']}` |")
    return "\n".join(lines) + "\n"


def add_agent(args) -> str:
    from kabenvs.agents.policy import load_agent, model_kind
    from kabenvs.agents.safe_model import build_actor, fingerprints, read_safe_metadata, read_tensors, save_actor
    from kabenvs.core.files import atomic_write
    from kabenvs.core.registry import make_game
    from kabenvs.zoo import MAX_BYTES, ZOO_DIR, ShippedAgent, agent_name

    if args.deals < 1:
        raise UsageError(f"--deals={args.deals} must be >= 1")
    if not args.command.strip():
        raise UsageError("--command must say how the model was trained")
    kind, file = model_kind(args.model)
    if kind != "safe":
        raise UsageError(f"{args.model!r} is not a safe model (NAME.safetensors + NAME.json); export it first "
                         "with 'kabenvs export'")
    meta = read_safe_metadata(file)
    trained = make_game(meta["env_id"], **meta["game_config"])
    game = make_game(meta["env_id"], num_players=trained.num_players)  # what a zoo seat plays
    default = game.config.to_dict()
    changed = sorted(k for k in default if default[k] != trained.config.to_dict().get(k))
    if set(changed) - set(PAYOFF_OPTIONS) or fingerprints(trained) != fingerprints(game) or \
            (trained.observation_size, trained.num_actions) != (game.observation_size, game.num_actions):
        raise UsageError(f"{args.model!r} was trained with non-default options {changed} of {meta['env_id']}; a shipped "
                         f"agent plays the game's default options at its player count (only {list(PAYOFF_OPTIONS)}, "
                         "which changes no observation, move or rule, may differ)")
    tensors, meta = read_tensors(file, trained)
    source = build_actor(meta, tensors)
    folder = ZOO_DIR if args.dir is None else args.dir
    name = agent_name(game.env_id, game.num_players)
    card = {
        "name": name, "command": args.command.strip(), "note": args.note.strip(),
        "learner_steps": meta.get("num_timesteps"), "train_seconds": meta.get("train_seconds"),
        "source_sha256": meta["sha256"], "added_at": time.strftime("%Y-%m-%d", time.gmtime()),
        "trained_with": {k: trained.config.to_dict()[k] for k in changed},
    }
    extra = {"zoo_card": card, "training_config": meta.get("config")}
    dtype = "float16" if args.float16 else "float32"
    # Built and measured in a staging folder, moved into the zoo only when complete: a refused or
    # interrupted add leaves the agent already shipped for this game and count as it was.
    folder = _made(folder)
    try:
        stage = Path(tempfile.mkdtemp(prefix=f".adding-{name}-", dir=folder))
    except OSError as exc:  # a read-only zoo folder: refused before any game is played
        raise UsageError(f"--dir {str(folder)!r}: cannot write in it ({exc.strerror or exc})") from None
    try:
        staged = ShippedAgent(game.env_id, game.num_players, stage / name)
        save_actor(meta["network"], tensors, staged.path, game, extra=extra,
                   value_network=meta.get("value_network"), weights_dtype=dtype)
        if staged.size > MAX_BYTES:
            hint = "" if args.float16 else "; --float16 halves it"
            raise UsageError(f"{name} would take {staged.size / 1e6:.2f} MB, over the zoo's "
                             f"{MAX_BYTES / 1e6:.2f} MB limit{hint}")
        card["bytes"] = staged.size
        card["agreement_decisions"] = 512
        card["agreement"] = round(_argmax_agreement(source, load_agent(staged.path, game).policy, game, 512), 4)
        card["strength"] = _strength(game, staged.path, args.against, args.deals, args.seed)
        # written again with the measured card: the same weights, bytes and sha256
        _, written = save_actor(meta["network"], tensors, staged.path, game, extra=extra,
                                value_network=meta.get("value_network"), weights_dtype=dtype)
        if staged.size > MAX_BYTES:  # the card is small; this only guards a huge --note
            raise UsageError(f"{name}'s metadata grew past the zoo's size limit: shorten --note")
        atomic_write(staged.card, render_card(written))
        shipped_agent = ShippedAgent(game.env_id, game.num_players, folder / name)
        for src, dst in zip(staged.files + [staged.card], shipped_agent.files + [shipped_agent.card]):
            src.chmod(0o644)  # package data every user of an install reads (atomic writes make 0600 files)
            os.replace(src, dst)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return f"shipped {shipped_agent.label()} as {shipped_agent.path} ({shipped_agent.size / 1e6:.2f} MB)\n" + \
        render_card(written)


def _made(folder: Path) -> Path:
    """``folder``, created if needed; a --dir that is a file or cannot be created is a one-line
    UsageError here, before anything is staged or measured, not a traceback."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        what = "exists but is not a folder" if folder.exists() else f"cannot be created ({exc.strerror or exc})"
        raise UsageError(f"--dir {str(folder)!r} {what}; give a zoo folder that exists or can be created") from None
    return folder


def main(argv=None) -> int:
    from kabenvs.core.errors import KabenvsError

    args = parse_args(argv)
    try:
        if args.action == "list":
            print(list_agents(args.dir))
        else:
            print(add_agent(args))
        return 0
    except (UsageError, KabenvsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
