"""Adapters of kabenvs games to other libraries' game APIs (each needs its optional extra).

- ``kabenvs.interop.openspiel``: every game as an OpenSpiel ``pyspiel.Game`` (``kabenvs[openspiel]``).

Gymnasium and Stable-Baselines3 views are in ``kabenvs.wrappers``; see docs/interop.md.
"""
