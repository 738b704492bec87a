"""Human studies: a YAML study config, each participant's series of games, and the results.

A study (``serve.py --study FILE``) names one game, the agents to test, how many games each
participant plays, and how games are arranged::

    study: kabaleo-pilot          # the study's name: letters, digits, - and _ (its URL)
    game: kabaleo_v0              # env id
    players: 2                    # the human takes one seat, the agent of that game all others
    options: {mode: random}       # the game's own options (not num_players)
    agents: [heuristic, random]   # seat specs as in the lobby: heuristic, random, search[:...], zoo, model:NAME
    games_per_participant: 6
    seat_rotation: true           # the human's seat moves on with every round of agents
    deal_pairing: true            # each deal is played against every agent (and by every participant)
    seed: 1000                    # first deal seed

Game ``i`` of participant ``j`` (both from 0): with ``A`` agents, round ``r = i // A``; the agent is
``agents[(i + j) % A]`` (the order of agents turns with the participant, so no agent always
comes first); with ``deal_pairing`` the deal seed is ``seed + i``: game ``i`` is the same deal in
the same seat for every participant, and across ``A`` participants it meets every agent (paired
comparisons), while no participant plays a deal twice; else ``seed + 100_003 * j + i``; with
``seat_rotation`` the human sits in seat ``r % players``, else in seat 0. The seed is the
operator's: the results leave it out, and the game log (which holds every finished deal, so the
deals other participants have still to play) needs the study's operator key.

Validation follows the training configs (``training/config.py``): strict YAML (duplicate keys are
errors), every mistake one line naming the file, the key, the value and what is allowed.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kabenvs.core.errors import ConfigError, brief
from kabenvs.core.registry import env_ids, game_class

NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
KEYS = {
    "study": "the study's name (letters, digits, - and _)",
    "game": "env id",
    "players": "player count",
    "options": "game options",
    "agents": "seat specs of the agents",
    "games_per_participant": "games each participant plays",
    "seat_rotation": "true/false",
    "deal_pairing": "true/false",
    "seed": "first deal seed",
}


class StudyConfigError(ConfigError):
    """A bad study config: one line naming the file, the key and what is allowed."""


@dataclass(frozen=True)
class Study:
    name: str
    game: str
    players: int
    agents: tuple[str, ...]
    games_per_participant: int
    options: dict[str, Any] = field(default_factory=dict)
    seat_rotation: bool = True
    deal_pairing: bool = True
    seed: int = 0

    def schedule(self, participant: int, i: int) -> dict[str, Any]:
        """Game ``i`` of participant number ``participant``: agent, human seat, deal seed."""
        a = len(self.agents)
        r = i // a
        # paired: game i is deal i for every participant (each meets every agent across
        # participants) and no participant plays a deal twice (a second time they would know it)
        seed = self.seed + i if self.deal_pairing else self.seed + 100_003 * participant + i
        seat = r % self.players if self.seat_rotation else 0
        return {"agent": self.agents[(i + participant) % a], "human_seat": seat, "seed": seed}

    def seats(self, participant: int, i: int) -> tuple[list[str], int, int]:
        plan = self.schedule(participant, i)
        specs = [plan["agent"]] * self.players
        specs[plan["human_seat"]] = "human"
        return specs, plan["human_seat"], plan["seed"]

    def to_dict(self) -> dict[str, Any]:
        """The study's settings, all but its seed (``seed`` and the schedule give every deal: the
        results, which this goes into, are open to participants)."""
        return {"study": self.name, "game": self.game, "players": self.players, "options": dict(self.options),
                "agents": list(self.agents), "games_per_participant": self.games_per_participant,
                "seat_rotation": self.seat_rotation, "deal_pairing": self.deal_pairing}


def _bad(source: str, key: str, value: Any, allowed: str) -> StudyConfigError:
    return StudyConfigError(f"{source}: {key}={brief(value)} is not allowed; {allowed}")


def validate_study(raw: Any, source: str = "study") -> Study:
    from training.config import _suggest

    if not isinstance(raw, dict):
        raise StudyConfigError(
            f"{source}: a study config is a mapping of {sorted(KEYS)}, got {type(raw).__name__}")
    for key in raw:
        if key not in KEYS:
            raise StudyConfigError(
                f"{source}: unknown key {brief(key)}{_suggest(key, KEYS)}; allowed: {sorted(KEYS)}")
    for key in ("study", "game", "agents", "games_per_participant"):
        if key not in raw:
            raise StudyConfigError(f"{source}: missing key {key!r} ({KEYS[key]})")
    name = raw["study"]
    if not isinstance(name, str) or not NAME.match(name):
        raise _bad(source, "study", name, "use 1-40 letters, digits, - or _")
    game = raw["game"]
    if game not in env_ids():
        raise _bad(source, "game", game, f"choose one of {env_ids()}{_suggest(game, env_ids())}")
    cls = game_class(game)
    players = raw.get("players", 2)
    if isinstance(players, bool) or players not in cls.Config.PLAYER_COUNTS:
        raise _bad(source, "players", players, f"{game} allows {list(cls.Config.PLAYER_COUNTS)}")
    options = raw.get("options") or {}
    if not isinstance(options, dict) or "num_players" in options:
        raise _bad(source, "options", options,
                   "give the game's options as a mapping (the player count is 'players')")
    try:
        cls(**{**options, "num_players": players})
    except (ConfigError, TypeError, ValueError) as exc:
        raise StudyConfigError(f"{source}: options: {' '.join(str(exc).split())}") from None
    agents = raw["agents"]
    if not isinstance(agents, list) or not agents or not all(isinstance(a, str) and a for a in agents):
        raise _bad(source, "agents", agents,
                   "give a non-empty list of seat specs (heuristic, random, search, zoo, model:NAME)")
    if "human" in agents:
        raise _bad(source, "agents", agents, "the agents are what humans play against: 'human' is not one")
    n = raw["games_per_participant"]
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 1000:
        raise _bad(source, "games_per_participant", n, "it must be an integer from 1 to 1000")
    flags = {}
    for key in ("seat_rotation", "deal_pairing"):
        flags[key] = raw.get(key, True)
        if not isinstance(flags[key], bool):
            raise _bad(source, key, flags[key], "it must be true or false")
    seed = raw.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31:
        raise _bad(source, "seed", seed, "it must be an integer from 0 to 2**31-1")
    return Study(name=name, game=game, players=players, agents=tuple(agents), games_per_participant=n,
                 options=dict(options), seed=seed, **flags)


def load_study(path: str | Path) -> Study:
    from kabenvs.extras import training_module

    config = training_module("config")  # the training configs' strict YAML reader
    try:
        raw = config.load_yaml_file(path)
    except config.TrainingConfigError as exc:
        raise StudyConfigError(str(exc)) from None
    return validate_study(raw, str(path))


# -- results ----------------------------------------------------------------------------------
def ratings(records: list[dict]) -> dict[str, Any]:
    """OpenSkill (Plackett-Luce) ratings of every human and agent over finished games: each seat
    plays for itself; the winners share rank 1, the others rank 2. None without openskill."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        return {"available": False, "reason": "openskill is not installed (pip install '.[train]')",
                "players": []}
    from training.human_results import agent_key

    model = PlackettLuce()
    table: dict[str, Any] = {}
    games: dict[str, int] = {}
    for rec in records:
        res = rec["result"]
        if not res.get("finished") or res.get("truncated"):
            continue
        ids = [(f"human:{s.get('participant', s.get('name'))}" if s["kind"] == "human" else agent_key(s))
               for s in rec["seats"]]
        if len(set(ids)) < 2:
            continue  # a game of one identity against itself says nothing
        teams = [[table.get(i) or model.rating(name=i)] for i in ids]
        ranks = [1 if seat in res["winners"] else 2 for seat in range(len(ids))]
        new = model.rate(teams, ranks=ranks)
        for i, team in zip(ids, new):
            table[i] = team[0]
            games[i] = games.get(i, 0) + 1
    rows = [{"id": i, "mu": round(r.mu, 4), "sigma": round(r.sigma, 4), "ordinal": round(r.ordinal(), 4),
             "games": games[i]} for i, r in table.items()]
    rows.sort(key=lambda row: -row["ordinal"])
    return {"available": True, "model": "PlackettLuce", "players": rows}


def results(study: Study, records: list[dict], participants: int) -> dict[str, Any]:
    from training.human_results import tally

    rows = [t.row() for t in tally(records)]
    return {"study": study.to_dict(), "participants": participants, "games": len(records),
            "finished": sum(1 for r in records if r["result"]["finished"] and not r["result"]["truncated"]),
            "agents": rows, "ratings": ratings(records)}


CSV_FIELDS = ["env_id", "num_players", "agent", "label", "games", "unfinished", "agent_wins",
              "agent_win_rate", "ci95_low", "ci95_high", "human_win_rate", "human_mean_return",
              "human_mean_score"]


def results_csv(summary: dict[str, Any]) -> str:
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=CSV_FIELDS, lineterminator="\n")
    w.writeheader()
    for row in summary["agents"]:
        ci = row["agent_win_rate_ci95"] or [None, None]
        w.writerow({**{k: row[k] for k in CSV_FIELDS if k in row}, "ci95_low": ci[0], "ci95_high": ci[1]})
    return out.getvalue()
