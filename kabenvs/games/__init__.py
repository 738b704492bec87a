"""One package per game; each exposes ``GAME`` and is found by ``kabenvs.core.registry``."""
