"""Shared set-up: one fresh cache directory for the whole session, so every test run really
transforms and compiles (and compiled functions are shared between tests); Numba compiles
without optimising (NUMBA_OPT=0) unless told otherwise, and before the first call returns."""
import os
import sys
import tempfile

os.environ["S2SAD_CACHE_DIR"] = tempfile.mkdtemp(prefix="s2sad-tests-")
os.environ.pop("S2SAD_DISABLE_JIT", None)
# Compiling is most of the suite's time, and LLVM's optimisations (without fastmath, which
# s2sad never asks for) do not change a result: the suite compiles unoptimised, as `make fuzz`
# does; `make verify` and `make bench` compile at Numba's default level.
os.environ.setdefault("NUMBA_OPT", "0")
# The default jit=None compiles in a background process (runtime/tiers.py); the suite's tests
# expect its first call compiled, as jit=True does: test_tiers.py turns the tier on itself.
os.environ["S2SAD_BACKGROUND_COMPILE"] = "0"
sys.path.insert(0, os.path.dirname(__file__))


def pytest_collection_finish(session):
    """When the Numba side of the rule checks (test_templates.py) is among the tests, start it
    now in one worker process, on the core the rest of the suite leaves idle (Numba compiles
    on one core); alone, it takes both."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return   # (each xdist worker collects every test: the one running them starts it)
    modules = {getattr(item, "module", None) for item in session.items}
    for module in modules:
        if getattr(module, "__name__", "") == "test_templates":
            module.start_compiling(jobs=1 if len(modules) > 1 else 2)
