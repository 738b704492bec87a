"""Play in the browser: a local web server (``scripts/serve.py``), its SQLite store and its pages.

Needs the ``web`` extra (Starlette and uvicorn); nothing else in kabenvs imports this package.
See docs/play.md, "Play in the browser".
"""
