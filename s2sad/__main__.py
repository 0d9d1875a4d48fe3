"""`python -m s2sad ...`: the same as the `s2sad` command (s2sad/tools/cli.py)."""
import sys

from s2sad.tools.cli import main

sys.exit(main())
