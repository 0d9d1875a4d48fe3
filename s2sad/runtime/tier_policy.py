"""When a call of the tiered default waits for its compile (tiers.py): a ski rental, and the
forecasts of compile times it needs.

    should_wait(python_seconds, remaining, switch)   # rent (run Python) or buy (wait)?
    history.expected(*compile_size(path))            # the seconds a file's compile should take

docs/tiers.md states the policy and its bound.
"""
import json
import os
import re
import tempfile
import threading

from . import cache

# What the caller still pays to switch while its thread imports Numba and refreshes its
# registries (jit.Runner._prepare_compiled): 0.3-0.7 s measured.
SWITCH_SECONDS = 0.5
# The Python time after which that thread starts: sooner would slow runs of calls so short that
# they end before any compile does; later delays the switch after a quick compile.
PREPARE_AFTER = 0.1


def should_wait(python_seconds, remaining, switch=0.0):
    """Ski rental: whether the next call waits for the compile (and then runs compiled)
    rather than run as Python again. A call keeps answering from Python until the time the
    function's calls have spent in Python since its compile was queued (`python_seconds`,
    the rent) reaches what waiting would cost now: the compile's expected remaining time
    plus the time to load Numba in this process if that is not done yet (`switch`).

    Bound (docs/tiers.md): in a tight loop of calls, the total time is at most about twice
    that of the better of "always wait" (jit=True) and "never wait" (jit=False), whatever the
    number of calls, provided the foreseen compile time is not short of the real one: the
    forecasts (`CompileTimes`) therefore err long."""
    return python_seconds >= remaining + switch


# The cost of a compile, measured on 2 cores with Numba 0.68 (the six functions of
# benchmarks/tier_cases.py): Numba compiles every NumPy function and runtime helper a
# generated file calls into that file's module again, a few tenths of a second each
# (cholesky and solve more), where scalar lines cost a few milliseconds.
SECONDS_FIXED = 0.2
SECONDS_PER_LINE = 0.003
SECONDS_PER_CALLEE = 0.3


def compile_size(path):
    """(lines, callees) of a generated file: its lines of code, and the distinct NumPy and
    runtime functions it calls (`numpy.linalg.solve`, `rt.unbroadcast`)."""
    try:
        with open(path) as stream:
            text = stream.read()
    except OSError:
        return 0, 0
    lines = sum(1 for line in text.splitlines()
                if line.strip() and not line.lstrip().startswith("#"))
    return lines, len(set(re.findall(r"\b(?:numpy|scipy|rt)\.[A-Za-z_][\w.]*", text)))


def compile_cost(lines, callees):
    """The compile time the cost model foresees, before any is measured on this machine."""
    return SECONDS_FIXED + SECONDS_PER_LINE * lines + SECONDS_PER_CALLEE * callees


class CompileTimes:
    """How long background compiles took against what the cost model foresaw, kept in the
    cache directory (`compile_times.json`, the last KEPT compiles) to foresee the next one:
    the cost model times the upper quartile of those ratios. An upper quartile and not the
    median because a forecast too short costs more than one too long: the caller would wait
    for a compile it could have run Python beside (`should_wait`)."""

    KEPT = 32

    def __init__(self):
        self._lock = threading.Lock()

    def _path(self):
        return os.path.join(cache.cache_dir(), "compile_times.json")

    def _read(self):
        try:
            with open(self._path()) as stream:
                entries = json.load(stream)
            return [(int(n), int(c), float(s)) for n, c, s in entries if s >= 0]
        except (OSError, ValueError, TypeError):   # (no history, or one in an older form)
            return []

    def expected(self, lines, callees):
        ratios = sorted(s / compile_cost(n, c) for n, c, s in self._read())
        scale = ratios[(3 * len(ratios)) // 4] if ratios else 1.0
        return scale * compile_cost(lines, callees)

    def record(self, lines, callees, seconds):
        with self._lock:
            entries = (self._read() + [(lines, callees, seconds)])[-self.KEPT:]
            path = self._path()
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
                with os.fdopen(handle, "w") as stream:
                    json.dump(entries, stream)
                os.replace(temporary, path)    # readers see the old list or the new one
            except OSError:
                pass                           # no history: the cost model alone foresees


history = CompileTimes()
