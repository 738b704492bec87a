"""The Starlette app of ``scripts/serve.py``: pages, the JSON API and the static assets.

API (every error is one line of JSON, ``{"error": "..."}``, with a fitting HTTP status):

* ``GET  /api/catalog`` — games, player counts, options, seat kinds, models (the lobby).
* ``POST /api/games`` — start a game: ``{env_id, seats: [spec...], options, seed, hot_seat}``;
  answers the game id and the secret link of each human seat (shown once, in the lobby).
* ``GET  /api/games/{id}/view?seat=S&since=K`` — the view of seat S (header ``X-Token``: the
  seat's secret); ``seat=all`` with the watch token is the all-seeing view, only for games no
  human plays or that are over.
* ``POST /api/games/{id}/move`` — ``{seat, action, move}`` (header ``X-Token``); ``move`` is the
  move counter the page saw: a move made after the game moved on is refused as stale.
* ``GET  /api/games/{id}/record`` — a finished game in the game-log format (``kabenvs.records``).

Secret tokens travel in the link's fragment (``#seat=1&token=...``), which browsers never send,
and from the page to the API in a header, so they appear in no server log.
"""

from __future__ import annotations

import contextlib
import json
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from kabenvs.core.errors import brief
from kabenvs.web.live import Manager, WebError
from kabenvs.web.store import Store

MAX_BODY = 64 * 1024


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _json_body(request: Request) -> Any:
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise WebError(413, f"request body too large (limit {MAX_BODY} bytes)")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise WebError(413, f"request body too large (limit {MAX_BODY} bytes)")
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise WebError(400, "malformed JSON in the request body") from None


def _seat_param(raw: Any) -> int | None:
    if raw in ("all", None):
        return None
    # a whole number only: int() would read 1.9 as 1, "0_0" as 0 and "²" not at all
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.isascii() and raw.isdigit() and len(raw) <= 6:
        return int(raw)
    raise WebError(400, f"seat {brief(raw)} must be a seat number or 'all'")


def _handled(fn):
    async def wrapper(request: Request) -> Response:
        try:
            return await fn(request)
        except WebError as exc:
            return _error(exc.status, str(exc))
    return wrapper


def _static_dir() -> Path:
    return Path(str(resources.files("kabenvs.web") / "static"))


def create_app(data_dir: str | Path, models_dir: str | Path | None = None, pace: float = 0.6,
               studies: list | None = None) -> Starlette:
    """The server's app; ``studies`` are validated ``kabenvs.web.study.Study`` objects."""
    data_dir = Path(data_dir)
    store = Store(data_dir / "games.sqlite3")
    manager = Manager(store, Path(models_dir) if models_dir else None, pace)
    for study in studies or []:
        manager.add_study(study)
    static = _static_dir()

    def page(name: str):
        async def serve(request: Request) -> Response:
            return Response((static / name).read_text(encoding="utf-8"), media_type="text/html")
        return serve

    async def icon(request: Request) -> Response:
        return Response((static / "favicon.svg").read_bytes(), media_type="image/svg+xml")

    @_handled
    async def catalog(request: Request) -> Response:
        return JSONResponse(manager.catalog())

    @_handled
    async def create(request: Request) -> Response:
        body = await _json_body(request)
        if isinstance(body, dict):
            body.pop("_study", None)  # study games are made by the server, never asked for
        live = manager.create(body)
        row = live.row
        links = {}
        for i, seat in enumerate(row.seats):
            if seat["token"]:
                links[i] = f"/g/{row.id}#seat={i}&token={seat['token']}"
        reply = {"id": row.id, "links": links,
                 "watch": f"/g/{row.id}#seat=all&token={row.options['watch_token']}"}
        if isinstance(body, dict) and body.get("seed") is not None:
            # only a seed the creator chose: one the server drew would give a player the whole
            # deal (new_state(seed)); it comes with the game's record once the game is over
            reply["seed"] = row.seed
        if row.options.get("hot_seat"):
            humans = [i for i, s in enumerate(row.seats) if s["kind"] == "human"]
            first = humans[0] if humans else 0
            reply["hot_seat_link"] = f"/g/{row.id}#hot=1&seat={first}&token={row.options['hot_token']}"
        return JSONResponse(reply)

    @_handled
    async def view(request: Request) -> Response:
        live = manager.get(request.path_params["gid"])
        seat = manager.authorise(live, _seat_param(request.query_params.get("seat")),
                                 request.headers.get("x-token"))
        since = request.query_params.get("since", "0")
        if not (since.isascii() and since.isdigit() and len(since) <= 9):  # "²".isdigit() is True
            raise WebError(400, f"since={brief(since)} must be a number of events")
        return JSONResponse(manager.seat_view(live, seat, int(since)))

    @_handled
    async def move(request: Request) -> Response:
        live = manager.get(request.path_params["gid"])
        body = await _json_body(request)
        if not isinstance(body, dict):
            raise WebError(400, "a move must be a JSON object {seat, action, move}")
        seat = _seat_param(body.get("seat"))
        if seat is None:
            raise WebError(400, "a move needs the seat that makes it")
        seat = manager.authorise(live, seat, request.headers.get("x-token"))
        return JSONResponse(manager.human_move(live, seat, body.get("action"), body.get("move")))

    @_handled
    async def record(request: Request) -> Response:
        from kabenvs.records import make_record

        live = manager.get(request.path_params["gid"])
        with live.lock:
            if live.row.status not in ("finished", "truncated"):
                raise WebError(409, "only a finished game exports to a game log")
            meta = {"ended": live.row.status, "interface": "serve.py", "web_game": live.row.id}
            rec = make_record(live.state, live.seat_record(), live.row.seed, meta=meta)
        return JSONResponse(rec)

    @_handled
    async def join(request: Request) -> Response:
        body = await _json_body(request)
        label = body.get("name") if isinstance(body, dict) else None
        return JSONResponse(manager.join(request.path_params["name"], label))

    @_handled
    async def study_me(request: Request) -> Response:
        return JSONResponse(manager.study_status(request.path_params["name"],
                                                 request.query_params.get("participant"),
                                                 request.headers.get("x-token")))

    def _summary(name: str) -> dict:
        from kabenvs.web.study import results

        study = manager.study(name)
        return results(study, manager.study_records(name), len(store.participants(name)))

    @_handled
    async def study_results(request: Request) -> Response:
        return JSONResponse(_summary(request.path_params["name"]))

    @_handled
    async def study_csv(request: Request) -> Response:
        from kabenvs.web.study import results_csv

        text = results_csv(_summary(request.path_params["name"]))
        return Response(text, media_type="text/csv", headers={
            "Content-Disposition": f'attachment; filename="{request.path_params["name"]}-results.csv"'})

    @_handled
    async def study_log(request: Request) -> Response:
        name = request.path_params["name"]
        manager.check_study_key(name, request.query_params.get("key") or request.headers.get("x-token"))
        records = manager.study_records(name)
        text = "".join(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n" for r in records)
        return Response(text, media_type="application/x-ndjson", headers={
            "Content-Disposition": f'attachment; filename="{request.path_params["name"]}-games.jsonl"'})

    async def not_found(request: Request, exc: Exception) -> Response:
        return _error(getattr(exc, "status_code", 404), f"no such page: {request.url.path}")

    @contextlib.asynccontextmanager
    async def lifespan(app):
        manager.resume_all()  # games in progress continue where the store left them
        try:
            yield
        finally:
            for live in manager.games.values():
                if live.driver is not None:
                    live.driver.cancel()
            store.close()

    routes = [
        Route("/", page("lobby.html")),
        Route("/g/{gid}", page("table.html")),
        Route("/favicon.ico", icon),
        Route("/api/catalog", catalog),
        Route("/api/games", create, methods=["POST"]),
        Route("/api/games/{gid}/view", view),
        Route("/api/games/{gid}/move", move, methods=["POST"]),
        Route("/api/games/{gid}/record", record),
        Route("/study/{name}", page("study.html")),
        Route("/study/{name}/results", page("results.html")),
        Route("/api/studies/{name}/join", join, methods=["POST"]),
        Route("/api/studies/{name}/me", study_me),
        Route("/api/studies/{name}/results", study_results),
        Route("/api/studies/{name}/results.csv", study_csv),
        Route("/api/studies/{name}/games.jsonl", study_log),
        Mount("/static", StaticFiles(directory=str(static)), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={404: not_found, 405: not_found})
    app.state.manager = manager
    return app
