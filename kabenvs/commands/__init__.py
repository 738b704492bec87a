"""The programs behind the ``kabenvs`` console command (kabenvs/cli.py) and scripts/*.py."""
