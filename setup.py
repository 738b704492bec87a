"""The one thing pyproject.toml cannot say: which packages to install under which names.

Every ``kabenvs*`` package is found as usual; the repository's top-level ``training/`` folder is
installed as ``kabenvs._training`` (see kabenvs/extras.py), never as a top-level ``training``.
"""

from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["kabenvs", "kabenvs.*"]) + ["kabenvs._training"],
    package_dir={"kabenvs._training": "training"},
)
