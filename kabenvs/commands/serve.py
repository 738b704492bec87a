"""Play any kabenvs game in the browser: a local web server (see docs/play.md, "Play in the browser").

    kabenvs serve [--host 127.0.0.1] [--port 8000] [--models DIR] [--data DIR] [--pace S]
                  [--study FILE ...]

Needs the ``web`` extra: pip install ".[web]".
"""

from __future__ import annotations

import errno
import socket
import sys
from pathlib import Path

from kabenvs.commands import OneLineParser

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` for uvicorn to serve on (bound the way uvicorn binds its
    own). Binding here, before the server starts, turns a port in use or a host that is no
    address of this machine into a one-line error instead of uvicorn's log after the banner."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except BaseException:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


# what to do about a failed bind, by its errno (None: anything else, a name that resolves to nothing)
_LISTEN_HINTS = {
    errno.EADDRINUSE: "another program listens on that port: choose another --port",
    errno.EACCES: "ports below 1024 need administrator rights: choose another --port",
    errno.EADDRNOTAVAIL: "--host must be an address of this machine (127.0.0.1 for this machine only)",
    None: "--host must be an address or name of this machine (127.0.0.1 for this machine only)",
}


def main(argv: list[str] | None = None) -> int:
    p = OneLineParser(prog="serve", description="Serve kabenvs games to browsers.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--models", metavar="DIR", help="folder of safe-format models offered as seats")
    p.add_argument("--data", metavar="DIR", default="web_data", help="folder of the games database")
    p.add_argument("--study", action="append", default=[], metavar="FILE",
                   help="a human-study config (YAML; repeatable): participants join at /study/NAME")
    p.add_argument("--pace", type=float, default=0.6, help="seconds between agents' moves (default 0.6)")
    args = p.parse_args(argv)
    if args.pace < 0:
        p.error(f"--pace={args.pace} must be >= 0")
    if not 1 <= args.port <= 65535:
        p.error(f"--port={args.port} must be a port number from 1 to 65535")
    if Path(args.data).exists() and not Path(args.data).is_dir():
        p.error(f"--data {args.data!r} is a file; it must be a folder (made if missing) for the games database")
    if args.models is not None and not Path(args.models).is_dir():
        p.error(f"--models {args.models!r} is not a folder (it should hold NAME.safetensors + NAME.json models)")
    try:
        import uvicorn

        from kabenvs.web.app import create_app
    except ImportError as exc:
        print(f"serve: the web server needs the web extra (pip install \".[web]\"): {exc}",
              file=sys.stderr)
        return 2
    try:
        from kabenvs.core.errors import ConfigError
        from kabenvs.web.study import load_study

        studies = [load_study(path) for path in args.study]
        app = create_app(args.data, args.models, args.pace, studies)
    except ConfigError as exc:
        print(f"serve: error: {exc}", file=sys.stderr)
        return 2
    try:
        sock = listen(args.host, args.port)
    except OSError as exc:  # socket.gaierror (a name that resolves to nothing) is one too
        print(f"serve: error: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}; "
              f"{_LISTEN_HINTS.get(exc.errno, _LISTEN_HINTS[None])}", file=sys.stderr)
        return 2
    if args.host not in LOCAL_HOSTS:
        print(f"WARNING: binding to {args.host}: anyone who can reach this address can open the lobby "
              "and start games; seat links are the only protection. Use 127.0.0.1 unless you mean it.",
              flush=True)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"kabenvs web server: http://{shown}:{args.port}/  (games stored in {Path(args.data).resolve()})",
          flush=True)
    for study in studies:
        key = app.state.manager.study_key(study.name)
        print(f"study {study.name}: participants join at http://{shown}:{args.port}/study/{study.name} ; "
              f"results at http://{shown}:{args.port}/study/{study.name}/results ; for you alone (the game "
              f"log holds the deals others have still to play): "
              f"http://{shown}:{args.port}/study/{study.name}/results#key={key}", flush=True)
    # pages poll with kept-alive connections: stop after 3 s instead of waiting for them to close
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning", timeout_graceful_shutdown=3)
    uvicorn.Server(config).run(sockets=[sock])
    return 0


if __name__ == "__main__":
    sys.exit(main())
