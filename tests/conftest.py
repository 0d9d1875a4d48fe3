"""Shared set-up: one fresh cache directory for the whole session, so every test run really
transforms and compiles (and compiled functions are shared between tests)."""
import os
import sys
import tempfile

os.environ["S2SAD_CACHE_DIR"] = tempfile.mkdtemp(prefix="s2sad-tests-")
os.environ.pop("S2SAD_DISABLE_JIT", None)
sys.path.insert(0, os.path.dirname(__file__))
