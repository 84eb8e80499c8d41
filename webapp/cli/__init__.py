"""The `tracediff` command line.

`main` in main.py, one module per command group, shared options in common.py."""

from .main import main  # noqa: F401 (the console script is webapp.cli:main)
