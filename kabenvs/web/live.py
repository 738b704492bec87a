"""Games in progress on the web server: the true state, the seats' agents and each seat's events.

The server holds the whole truth of every game; what leaves it for a seat is only
``seat_view(game, seat)``: the table as that seat sees it (``State.table_view(seat)``), the events
narrated for that seat (``State.narrate(before, action, seat)``) and, when that seat decides, its
legal moves. Agents move on the server, one move per ``pace`` seconds, so a viewer can follow.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import secrets
import sys
import threading
import traceback
from pathlib import Path
from typing import Any

import numpy as np

from kabenvs.agents.base import Agent, Decision
from kabenvs.core.errors import ConfigError, brief
from kabenvs.core.game import Game, State
from kabenvs.core.registry import env_ids, game_class
from kabenvs.core.secrecy import only_choice_is_secret as secret_only_choice
from kabenvs.web.store import GameRow, Store
from kabenvs.zoo import shipped

SIMPLE_KINDS = ("human", "heuristic", "random")
# Options a browser may not set: they name files on the server (Alakazum!'s card list).
SERVER_ONLY_OPTIONS = {"cards"}
MAX_EVENTS_PER_REPLY = 400


ONLY_CHOICE = object()  # agent_to_move's answer for a human's only legal move, taken without asking
ONLY_CHOICE_TAKEN = "(your only legal choice, taken without asking)"
ONLY_CHOICE_ASKED = ("You have only one legal choice. You are asked anyway: the other players could "
                     "otherwise tell that you had no other.")


def only_choice_is_secret(live: LiveGame, state: State) -> bool:
    """Whether the seat to move is asked its only legal choice anyway: another human plays this
    game and the game has hidden information (taking it at once would show them, by the move
    coming at the agents' pace, that the seat had no other; ``kabenvs.core.secrecy`` decides it
    without looking at anything hidden)."""
    p = state.current_player
    return secret_only_choice(state, [q for q, s in enumerate(live.seats) if s.kind == "human" and q != p])


def _ascii(token: Any) -> str:
    """A client's token for ``secrets.compare_digest``, which raises TypeError on a str that is
    not ASCII: such a token matches nothing (ours are URL-safe ASCII), so it reads as empty."""
    return token if isinstance(token, str) and token.isascii() else ""


class WebError(Exception):
    """A refused request: ``status`` is the HTTP status, the message one line for the client."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


# -- the seat-view API (kabenvs.core.game.State.table_view / narrate) ------------------------------
def table_view(state: State, seat: int | None) -> dict[str, Any]:
    return state.table_view(seat)


def narrate(after: State, before: State, action: int, player: int, seat: int | None) -> list[str]:
    """``after.narrate(before, action, seat)``; ``player`` (who moved) is kept for callers' records."""
    return list(after.narrate(before, action, seat))


def _plain(value: Any) -> Any:
    """JSON-native (numpy scalars from a game become ints/floats)."""
    return json.loads(json.dumps(value, default=lambda v: v.item() if isinstance(v, np.generic) else str(v)))


# -- seats ----------------------------------------------------------------------------------------
def model_names(models_dir: Path | None) -> list[str]:
    """Safe-format models in the models folder: NAME for each NAME.safetensors + NAME.json."""
    if models_dir is None or not models_dir.is_dir():
        return []
    return sorted(p.stem for p in models_dir.glob("*.safetensors") if p.with_suffix(".json").is_file())


# A browser's search seat: its budget is a server thread's time per move, so it is bounded.
WEB_MAX_SIMS = 5000
WEB_MAX_TIME = 5.0
WEB_MAX_WORLDS = 64


def check_web_search(spec: str, index: int) -> None:
    """Refuse a browser's search spec that names a file (``model=``: the server would load a
    model from any path it can read, and its errors would tell which paths exist) or asks for
    more than ``WEB_MAX_*`` a move. Read through the spec parser itself, so spaces or other
    spellings the parser accepts cannot slip past (a substring test for "model=" once did)."""
    from kabenvs.agents.search.spec import parse_search_spec

    try:
        options = parse_search_spec(spec)
    except ConfigError as exc:
        raise WebError(400, f"seat {index}: {exc}") from None
    if "model" in options:
        raise WebError(400, f"seat {index}: search with model= is not offered over the web "
                       "(the zoo and model:NAME seats are)")
    for key, limit in (("sims", WEB_MAX_SIMS), ("time", WEB_MAX_TIME), ("worlds", WEB_MAX_WORLDS)):
        if options.get(key, 0) > limit:
            raise WebError(400, f"seat {index}: search {key}={brief(options[key])} is more than this server "
                           f"offers; at most {key}={limit:g}")


def build_agent(spec: str, index: int, game: Game, seed: int, models_dir: Path | None):
    """The ``kabenvs.play.session.Seat`` for a web seat spec: human | heuristic | random |
    search[:k=v,...] | zoo (the shipped agent for the game and count) | model:NAME (a safe model
    in the models folder; no other paths)."""
    from kabenvs.play.cli import UsageError, build_seat

    if not isinstance(spec, str) or not spec or len(spec) > 200:
        raise WebError(400, f"seat {index}: a seat must be one of human, heuristic, random, search, zoo, "
                       "model:NAME")
    if spec.startswith("model:"):
        name = spec[len("model:"):]
        if name not in model_names(models_dir):
            raise WebError(400, f"seat {index}: no model {brief(name)} in the models folder")
        target = str(models_dir / name)
    elif spec == "zoo":
        target = spec  # build_seat finds the shipped agent, or names the ones there are
    elif spec in SIMPLE_KINDS or spec == "search" or spec.startswith("search:"):
        if spec.startswith("search"):
            check_web_search(spec, index)
        target = spec
    else:
        raise WebError(400, f"seat {index}: unknown seat {brief(spec)}; use human, heuristic, random, "
                       "search[:sims=N,...], zoo or model:NAME")
    try:
        return build_seat(target, index, game, seed, [])
    except UsageError as exc:
        raise WebError(400, f"seat {index}: {exc}") from None


# -- one game ---------------------------------------------------------------------------------------
class LiveGame:
    def __init__(self, row: GameRow, game: Game, seats: list, state: State) -> None:
        self.row = row
        self.game = game
        self.seats = seats  # kabenvs.play.session.Seat, agent None for humans
        self.state = state
        self.lock = threading.Lock()
        # events[i] = the i-th move: {"player", "lines": {seat: [...]}, "all": [...]}
        self.events: list[dict[str, Any]] = []
        self.driver: asyncio.Task | None = None
        self._auto_at: tuple[int, bool] | None = None

    @property
    def moves(self) -> int:
        return len(self.row.actions)

    def agent_to_move(self) -> Agent | None:
        """Who moves now without a person: the seat's agent, or ``ONLY_CHOICE`` for a human
        whose only legal move is taken without asking; None while a human decides."""
        p = self.state.current_player
        if p is None or self.row.status != "playing":
            return None
        if self.seats[p].agent is not None:
            return self.seats[p].agent
        return ONLY_CHOICE if self.only_choice_taken() else None

    def only_choice_taken(self) -> bool:
        """A human with one legal move is not asked (as in terminal play), unless another human
        plays a game with hidden information (``only_choice_is_secret``). Decided once per move."""
        if self._auto_at is None or self._auto_at[0] != self.moves:
            state = self.state
            auto = len(state.legal_actions()) == 1 and not only_choice_is_secret(self, state)
            self._auto_at = (self.moves, auto)
        return self._auto_at[1]

    def asked_anyway(self) -> bool:
        return len(self.state.legal_actions()) == 1 and not self.only_choice_taken()

    def apply(self, action: int, auto: bool = False) -> None:
        """Apply a legal ``action`` and narrate it for every seat (call with ``lock`` held);
        ``auto``: a human's only legal choice, taken without asking (said to that seat)."""
        state = self.state
        player = state.current_player
        before = state.clone()
        state.apply(action)
        n = state.num_players
        lines = {s: narrate(state, before, action, player, s) for s in range(n)}
        if auto:
            lines[player] = [*lines[player], ONLY_CHOICE_TAKEN]
        everything = narrate(state, before, action, player, None)
        self.events.append({"player": player, "lines": lines, "all": everything})
        self.row.actions.append(int(action))
        if state.current_player is None:
            self.row.status = "truncated" if state.truncated else "finished"

    def seat_record(self) -> list[dict[str, Any]]:
        return [s.record() for s in self.seats]


class Manager:
    """All games of one server: creation, resumption from the store, moves, agents' pace."""

    def __init__(self, store: Store, models_dir: Path | None = None, pace: float = 0.6) -> None:
        self.store = store
        self.models_dir = models_dir
        self.pace = pace
        self.games: dict[str, LiveGame] = {}
        self.resume_errors: dict[str, str] = {}
        self.studies: dict = {}  # name -> kabenvs.web.study.Study

    # -- catalog for the lobby ----------------------------------------------------------------
    def catalog(self) -> dict[str, Any]:
        games = []
        for env_id in env_ids():
            cls = game_class(env_id)
            options = []
            for f in dataclasses.fields(cls.Config):
                if f.name == "num_players" or f.name in SERVER_ONLY_OPTIONS:
                    continue
                options.append({"name": f.name, "default": _plain(f.default)})
            default_n = next(f.default for f in dataclasses.fields(cls.Config) if f.name == "num_players")
            games.append({"env_id": env_id, "player_counts": list(cls.Config.PLAYER_COUNTS),
                          "default_players": default_n, "options": options,
                          "zoo_players": [a.num_players for a in shipped() if a.env_id == env_id]})
        return {"games": games, "seat_kinds": ["human", "heuristic", "random", "search", "zoo"],
                "models": model_names(self.models_dir)}

    # -- creating and resuming ------------------------------------------------------------------
    def create(self, request: Any) -> LiveGame:
        if not isinstance(request, dict):
            raise WebError(400, "the request must be a JSON object {env_id, seats, options, seed, hot_seat}")
        env_id = request.get("env_id")
        if not isinstance(env_id, str) or env_id not in env_ids():
            raise WebError(404, f"unknown game {brief(env_id)}; known games: {', '.join(env_ids())}")
        specs = request.get("seats")
        if not isinstance(specs, list) or not specs:
            raise WebError(400, "seats must be a list of seat specs, one per player")
        options = request.get("options") or {}
        if not isinstance(options, dict):
            raise WebError(400, "options must be an object of game options")
        bad = sorted(set(options) & (SERVER_ONLY_OPTIONS | {"num_players"}))
        if bad:
            raise WebError(400, f"option(s) {bad} cannot be set here (the seats give the player count)")
        seed = request.get("seed")
        if seed is None:
            seed = secrets.randbits(31)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise WebError(400, f"seed {brief(seed)} must be an integer >= 0")
        try:
            game = game_class(env_id)(**{**options, "num_players": len(specs)})
        except (ConfigError, TypeError, ValueError) as exc:
            raise WebError(400, f"bad options for {env_id}: {' '.join(str(exc).split())}") from None
        seats = [build_agent(spec, i, game, seed, self.models_dir) for i, spec in enumerate(specs)]
        hot = request.get("hot_seat", False)
        if not isinstance(hot, bool):  # bool("false") is True: only JSON true/false are read
            raise WebError(400, f"hot_seat={brief(hot)} must be true or false")
        seat_rows = []
        for spec, seat in zip(specs, seats):
            seat_rows.append({"spec": spec, "kind": seat.kind, "name": seat.name,
                              "token": secrets.token_urlsafe(16) if seat.kind == "human" else None})
        web_options = {"hot_seat": hot, "watch_token": secrets.token_urlsafe(16)}
        if hot:
            web_options["hot_token"] = secrets.token_urlsafe(16)
        study = request.get("_study")  # set only by Manager.study_status, never from a browser
        if study:
            web_options.update(study)
            human = seats[study["human_seat"]]
            human.name = seat_rows[study["human_seat"]]["name"] = study["label"]
        row = GameRow(id=secrets.token_hex(6), env_id=env_id, config=game.config.to_dict(), seats=seat_rows,
                      seed=int(seed), options=web_options)
        live = LiveGame(row, game, seats, game.new_state(np.random.default_rng(seed)))
        self.store.insert(row)
        self.games[row.id] = live
        self.kick(live)
        return live

    def resume_all(self) -> None:
        """Rebuild every stored game by replaying its actions from its deal."""
        rows, broken = self.store.load_all()
        self.resume_errors.update(broken)
        for row in rows:
            try:
                self.games[row.id] = self._rebuild(row)
            except Exception as exc:  # noqa: BLE001 (one broken row must not stop the server)
                # Whoever opens the game reads this, and a replay error's own text can name
                # hidden things (an illegal stored move lists the legal ones: the mover's hand).
                # So the page gets the kind of error; the full text goes to the server's log.
                print(f"game {row.id} could not be resumed: {type(exc).__name__}: {exc}", file=sys.stderr)
                self.resume_errors[row.id] = (f"its stored game does not replay ({type(exc).__name__}; "
                                              "the server's log has the details)")
        for live in self.games.values():
            self.kick(live)

    def _rebuild(self, row: GameRow) -> LiveGame:
        cls = game_class(row.env_id)
        game = cls(config=cls.Config.from_dict(row.config))
        seats = [build_agent(s["spec"], i, game, row.seed, self.models_dir) for i, s in enumerate(row.seats)]
        for seat, stored in zip(seats, row.seats):
            seat.name = stored["name"]
        actions = list(row.actions)
        row.actions = []
        live = LiveGame(row, game, seats, game.new_state(np.random.default_rng(row.seed)))
        status, error = row.status, row.error
        row.status = "playing"
        for a in actions:
            p = live.state.current_player
            auto = live.seats[p].agent is None and live.only_choice_taken()  # as when it was played
            live.apply(live.state.check_action(a), auto=auto)
        if status == "error":
            row.status, row.error = status, error
        return live

    # -- access ------------------------------------------------------------------------------
    def get(self, game_id: str) -> LiveGame:
        live = self.games.get(game_id) if isinstance(game_id, str) else None
        if live is None:
            if game_id in self.resume_errors:
                raise WebError(500, f"game {game_id} could not be resumed: {self.resume_errors[game_id]}")
            raise WebError(404, f"unknown game id {brief(game_id)}")
        return live

    def authorise(self, live: LiveGame, seat: int | None, token: str | None) -> int | None:
        """The seat ``token`` may see: its own human seat, any human seat with the hot-seat token,
        the all-seeing view with the watch token only when no human plays or the game is over."""
        token = _ascii(token)
        n = live.game.num_players
        opts = live.row.options
        if seat is None:
            over = live.row.status != "playing"
            humans = any(s["kind"] == "human" for s in live.row.seats)
            if secrets.compare_digest(token, opts.get("watch_token", "")) and (over or not humans):
                return None
            raise WebError(403, "the all-seeing view needs the watch link, and only once no human plays")
        if not 0 <= seat < n:
            raise WebError(400, f"seat {brief(seat)} does not exist in this {n}-player game")
        stored = live.row.seats[seat]
        if stored["kind"] != "human":
            raise WebError(403, f"seat {seat} is not a human seat")
        if stored["token"] and secrets.compare_digest(token, stored["token"]):
            return seat
        if opts.get("hot_seat") and secrets.compare_digest(token, opts.get("hot_token", "")):
            return seat
        raise WebError(403, f"this link does not open seat {seat}")

    def seat_view(self, live: LiveGame, seat: int | None, since: int = 0) -> dict[str, Any]:
        with live.lock:
            state = live.state
            events = live.events[max(0, since):][:MAX_EVENTS_PER_REPLY]
            reply = {
                "game": {"id": live.row.id, "env_id": live.row.env_id, "status": live.row.status,
                         "error": live.row.error, "config": live.row.config,
                         "hot_seat": bool(live.row.options.get("hot_seat")),
                         "study": live.row.options.get("study"),
                         "seats": [{"kind": s["kind"], "name": s["name"]} for s in live.row.seats]},
                "seat": seat,
                "move": live.moves,
                "to_move": state.current_player,
                "view": _plain(table_view(state, seat)),
                "events_from": max(0, since),
                "events": [{"step": max(0, since) + i, "player": e["player"],
                            "lines": e["all"] if seat is None else e["lines"][seat]}
                           for i, e in enumerate(events)],
                "events_total": len(live.events),
                "legal": [],
            }
            if (seat is not None and state.current_player == seat and live.row.status == "playing"
                    and not live.only_choice_taken()):
                reply["legal"] = [{"id": a, "name": state.action_name(a)} for a in state.legal_actions()]
                if live.asked_anyway():
                    reply["note"] = ONLY_CHOICE_ASKED
            return reply

    def human_move(self, live: LiveGame, seat: int, action: Any, move: Any) -> dict[str, Any]:
        if isinstance(move, bool) or not isinstance(move, int):
            raise WebError(400, "a move needs 'move': the move counter the page last saw")
        with live.lock:
            if live.row.status != "playing":
                raise WebError(409, f"the game is over ({live.row.status})")
            if move != live.moves:
                raise WebError(409, f"stale move: the game is at move {live.moves}, your page at {brief(move)}; "
                               "it has moved on")
            if live.state.current_player != seat or live.only_choice_taken():
                raise WebError(409, f"it is not player {seat}'s decision")
            if isinstance(action, bool) or not isinstance(action, int) or not live.state.is_legal(action):
                raise WebError(400, f"illegal move {brief(action)} for {live.state.decision()!r}")
            live.apply(action)
            self.store.save_progress(live.row)
        self.kick(live)
        return {"ok": True, "move": live.moves}

    # -- agents at a visible pace -------------------------------------------------------------------
    def kick(self, live: LiveGame) -> None:
        """Start the game's agent driver if an agent is to move (needs a running event loop)."""
        if live.agent_to_move() is None or (live.driver is not None and not live.driver.done()):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # not serving yet: the server's startup kicks every game
        live.driver = loop.create_task(self._drive(live))

    async def _drive(self, live: LiveGame) -> None:
        while True:
            agent = live.agent_to_move()
            if agent is None:
                return
            await asyncio.sleep(self.pace)
            p = live.state.current_player
            moves = live.moves
            try:
                # agents read the live state without changing it; only this task applies while an
                # agent is to move (a human's move for this seat is refused: not their decision)
                if agent is ONLY_CHOICE:
                    action = live.state.legal_actions()[0]
                else:
                    action = await asyncio.to_thread(agent.act, Decision(p, live.state))
                with live.lock:
                    if live.moves != moves:
                        continue
                    live.apply(live.state.check_action(int(action)), auto=agent is ONLY_CHOICE)
                    self.store.save_progress(live.row)
            except Exception as exc:  # noqa: BLE001 (a failing agent stops its game, never the server)
                with live.lock:
                    live.row.status = "error"
                    who = f"player {p} ({live.seats[p].describe()})"
                    # the details go to the server's log only: an illegal-move error lists the
                    # agent's legal moves, which may name its hidden cards
                    traceback.print_exception(exc, file=sys.stderr)
                    live.row.error = f"{who} failed ({type(exc).__name__}; details in the server's log)"
                    self.store.save_progress(live.row)
                return

    # -- human studies ---------------------------------------------------------------------------
    def add_study(self, study) -> None:
        """Register a validated study; its agents must load here (bad specs stop the server)."""
        game = game_class(study.game)(**{**study.options, "num_players": study.players})
        for spec in study.agents:
            try:
                build_agent(spec, 1, game, 0, self.models_dir)
            except WebError as exc:
                raise ConfigError(f"study {study.name}: agent {spec!r}: {exc}") from None
        self.studies[study.name] = study

    def study(self, name: str):
        study = self.studies.get(name) if isinstance(name, str) else None
        if study is None:
            raise WebError(404, f"unknown study {brief(name)}")
        return study

    def join(self, name: str, label: Any) -> dict[str, Any]:
        study = self.study(name)
        pid, tok = secrets.token_hex(4), secrets.token_urlsafe(16)
        number = len(self.store.participants(name))
        if not isinstance(label, str) or not label.strip():
            label = f"participant {number}"
        label = " ".join(label.split())[:40]
        number = self.store.add_participant(study.name, pid, tok, label)
        return {"participant": pid, "number": number, "label": label,
                "link": f"/study/{study.name}#participant={pid}&token={tok}"}

    def _participant(self, name: str, pid: Any, token: str | None) -> dict[str, Any]:
        for p in self.store.participants(name):
            if p["id"] == pid and secrets.compare_digest(_ascii(token), p["token"]):
                return p
        raise WebError(403, "this link does not open that participant's series")

    def study_key(self, name: str) -> str:
        """The study's operator key: its game log holds every finished deal, which the deals other
        participants still have to play are (deal_pairing), so only the operator gets it."""
        self.study(name)
        return self.store.secret(f"study:{name}")

    def check_study_key(self, name: str, key: Any) -> None:
        if not secrets.compare_digest(_ascii(key), self.study_key(name)):
            raise WebError(403, f"the game log of study {name} needs its operator key (key=..., printed "
                           "by kabenvs serve); it holds the deals other participants have still to play")

    def study_games(self, name: str, pid: str | None = None) -> list[LiveGame]:
        games = [g for g in self.games.values() if g.row.options.get("study") == name
                 and (pid is None or g.row.options.get("participant") == pid)]
        return sorted(games, key=lambda g: g.row.options.get("index", 0))

    def study_status(self, name: str, pid: Any, token: str | None) -> dict[str, Any]:
        """The participant's series; starts their next game once the previous one is over."""
        study = self.study(name)
        part = self._participant(name, pid, token)
        games = self.study_games(name, part["id"])
        if len(games) < study.games_per_participant and (not games or games[-1].row.status != "playing"):
            i = len(games)
            specs, seat, seed = study.seats(part["number"], i)
            extra = {"study": study.name, "participant": part["id"], "index": i, "human_seat": seat,
                     "label": part["label"]}
            self.create({"env_id": study.game, "seats": specs, "options": study.options, "seed": seed,
                         "_study": extra})
            games = self.study_games(name, part["id"])
        out = []
        for g in games:
            seat = g.row.options["human_seat"]
            out.append({"index": g.row.options["index"], "status": g.row.status,
                        "link": f"/g/{g.row.id}#seat={seat}&token={g.row.seats[seat]['token']}"})
        current = next((g for g in out if g["status"] == "playing"), None)
        return {"study": study.name, "game": study.game, "label": part["label"],
                "games_per_participant": study.games_per_participant, "games": out,
                "current": current, "done": len(out) >= study.games_per_participant and current is None}

    def study_records(self, name: str) -> list[dict[str, Any]]:
        """Game-log records of the study's games that are over (the format evaluate.py reads)."""
        from kabenvs.records import make_record

        self.study(name)
        records = []
        for g in self.study_games(name):
            with g.lock:
                if g.row.status == "playing":
                    continue
                seats = g.seat_record()
                seats[g.row.options["human_seat"]]["participant"] = g.row.options["participant"]
                meta = {"ended": g.row.status, "interface": "serve.py", "web_game": g.row.id,
                        "study": name, "study_game_index": g.row.options["index"]}
                records.append(make_record(g.state, seats, g.row.seed, meta=meta))
        return records
