"""The tiered default: answer the first calls from the generated Python at once, compile the
same file with Numba in a child process, and switch to the compiled function when it is ready.

    df = s2sad.grad(f)      # jit=None: tiered
    df(x)                   # 1st call: Python now; a child process starts compiling f's file
    df(x)                   # Python again while the child works (or waits: `should_wait`)
    df(x)                   # the child is done: Numba loads its cache, compiled from now on

Why a process and not a thread: Numba's typing and lowering are Python code holding the GIL,
so a compiling thread would slow the very calls that run as Python meanwhile; a child
process uses the other core, and its work reaches the parent through Numba's cache (files
written atomically and checked on load, numba_cache.py), which the parent then loads in a few
tens of milliseconds. The child compiles for placeholder arguments of the caller's types
(`placeholders`): one small array of the same dtype, rank, layout and flags per array.

While the child compiles, the caller's next call runs Python again or waits for the child
(`should_wait`): it waits when the compile should end before another Python call would (from
the compile times of earlier files, `CompileTimes`), or when the code loops and a Python call
took 50 ms or more.

A child that fails leaves the Python flavour in place with the usual JitFallbackWarning; a
child still running when the process exits is stopped (`atexit`), and a child never writes
anything but Numba's cache. `S2SAD_BACKGROUND_COMPILE=0` turns the tier off: the default then
compiles before the first call returns, as `jit=True` does.
"""
import atexit
import json
import os
import pickle
import subprocess
import sys
import tempfile
import threading
import time

import numpy

from . import cache

ENV_SWITCH = "S2SAD_BACKGROUND_COMPILE"
# Wait for the compile instead of running Python again when one Python call took this long
# (seconds) and the code has a loop: loops are where the compiled code is far faster.
WAIT_AFTER = 0.05

_children = set()
_children_lock = threading.Lock()


def enabled():
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "false", "no", "off")


class Compile:
    """One background compile: the generated file at `path`, its function `name`, for
    arguments of the types of `args`."""

    def __init__(self, path, name, args):
        handle, self.arguments = tempfile.mkstemp(prefix="s2sad-tier-", suffix=".pkl")
        with os.fdopen(handle, "wb") as stream:
            pickle.dump(placeholders(args), stream)
        self.errors, self.output = tempfile.TemporaryFile(), tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "s2sad.runtime.tier_child", path, name, self.arguments],
            stdin=subprocess.DEVNULL, stdout=self.output, stderr=self.errors,
            env=dict(os.environ))
        self.lines = _lines(path)
        self.expected = history.expected(self.lines)   # seconds, or None: no history yet
        self.started = time.perf_counter()
        with _children_lock:
            _children.add(self)

    def done(self):
        finished = self.process.poll() is not None
        if finished:
            self._forget()
        return finished

    def wait(self):
        self.process.wait()
        self._forget()

    @property
    def succeeded(self):
        return self.process.returncode == 0

    def reason(self):
        """What the child printed when it failed (its last line: Numba's reason)."""
        self.errors.seek(0)
        lines = [ln for ln in self.errors.read().decode(errors="replace").splitlines()
                 if ln.strip()]
        return lines[-1] if lines else f"exit status {self.process.returncode}"

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._forget()

    def remaining(self):
        """The seconds this compile is expected to take still, or None if unknown."""
        if self.expected is None:
            return None
        return max(0.0, self.expected - (time.perf_counter() - self.started))

    def _forget(self):
        with _children_lock:
            if self not in _children:
                return
            _children.discard(self)
        if self.process.returncode == 0:
            self.output.seek(0)
            try:
                report = json.loads(self.output.read().decode().strip().splitlines()[-1])
            except (ValueError, IndexError):
                report = {}
            if report.get("compiled"):
                history.record(self.lines, report["seconds"])
        if os.path.exists(self.arguments):
            os.remove(self.arguments)


def should_wait(python_seconds, loops, remaining=None):
    """Whether the next call waits for the compile rather than run Python again:
    - when the compile is expected to end before another Python call would (`remaining`,
      foreseen from the compile times of earlier files: `CompileTimes`);
    - when the generated code loops (where compiled code is 10-100 times faster) and a Python
      call took WAIT_AFTER seconds or more.
    Loop-free NumPy code runs nearly as fast as Python, so it keeps answering from Python
    until the compile is done."""
    if remaining is not None and remaining <= python_seconds:
        return True
    return loops and python_seconds >= WAIT_AFTER


class CompileTimes:
    """How long background compiles took, per line of generated code, kept in the cache
    directory (`compile_times.json`, the last KEPT compiles) to foresee the next one: the
    median seconds per line times the file's lines."""

    KEPT = 32

    def __init__(self):
        self._lock = threading.Lock()

    def _path(self):
        return os.path.join(cache.cache_dir(), "compile_times.json")

    def _read(self):
        try:
            with open(self._path()) as stream:
                entries = json.load(stream)
            return [(int(n), float(s)) for n, s in entries if n > 0 and s >= 0]
        except (OSError, ValueError, TypeError):
            return []

    def expected(self, lines):
        entries = self._read()
        if not entries or not lines:
            return None
        rates = sorted(s / n for n, s in entries)
        return rates[len(rates) // 2] * lines

    def record(self, lines, seconds):
        if not lines:
            return
        with self._lock:
            entries = (self._read() + [(lines, seconds)])[-self.KEPT:]
            path = self._path()
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
                with os.fdopen(handle, "w") as stream:
                    json.dump(entries, stream)
                os.replace(temporary, path)    # readers see the old list or the new one
            except OSError:
                pass                           # no history: the policy does without it


history = CompileTimes()


def _lines(path):
    try:
        with open(path) as stream:
            return sum(1 for line in stream if line.strip() and not line.lstrip().startswith("#"))
    except OSError:
        return 0


def has_loops(text):
    """Whether generated code (its text) has a loop."""
    return any(line.lstrip().startswith(("for ", "while ")) for line in text.splitlines())


def placeholders(args):
    """Small arguments Numba types as it types `args`: arrays of the same dtype, rank, layout
    and flags (their contents do not matter to a compile), everything else as it is."""
    return [_placeholder(a) if isinstance(a, numpy.ndarray) else a for a in args]


def _placeholder(array):
    ndim = array.ndim
    if array.flags.c_contiguous or ndim == 0:
        made = numpy.zeros((1,) * ndim, array.dtype)
    elif array.flags.f_contiguous:
        made = numpy.zeros((2,) * ndim, array.dtype, order="F")
    else:
        made = numpy.zeros((2,) * (ndim - 1) + (4,), array.dtype)[..., ::2]
    if not array.flags.writeable:
        made.setflags(write=False)
    return made


@atexit.register
def _stop_children():
    """No child outlives its parent: one still compiling is stopped (Numba's cache is written
    atomically, so an interrupted child leaves nothing half-written)."""
    with _children_lock:
        running = list(_children)
    for child in running:
        child.stop()
