"""Play any kabenvs game in the browser: a local web server (see docs/play.md, "Play in the browser").

    kabenvs serve [--host 127.0.0.1] [--port 8000] [--models DIR] [--data DIR] [--pace S]
                  [--study FILE ...]

Needs the ``web`` extra: pip install ".[web]".
"""

from __future__ import annotations

import sys
from pathlib import Path

from kabenvs.commands import OneLineParser

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


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
    if args.host not in LOCAL_HOSTS:
        print(f"WARNING: binding to {args.host}: anyone who can reach this address can open the lobby "
              "and start games; seat links are the only protection. Use 127.0.0.1 unless you mean it.",
              flush=True)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"kabenvs web server: http://{shown}:{args.port}/  (games stored in {Path(args.data).resolve()})",
          flush=True)
    for study in studies:
        print(f"study {study.name}: participants join at http://{shown}:{args.port}/study/{study.name} ; "
              f"results at http://{shown}:{args.port}/study/{study.name}/results", flush=True)
    # pages poll with kept-alive connections: stop after 3 s instead of waiting for them to close
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", timeout_graceful_shutdown=3)
    return 0


if __name__ == "__main__":
    sys.exit(main())
