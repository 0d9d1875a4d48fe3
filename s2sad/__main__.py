"""`python -m s2sad ...`: the same as the `s2sad` command (s2sad/cli.py)."""
import sys

from .cli import main

sys.exit(main())
