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

A child that fails leaves the Python flavour in place with the usual JitFallbackWarning; a
child still running when the process exits is stopped (`atexit`), and a child never writes
anything but Numba's cache. `S2SAD_BACKGROUND_COMPILE=0` turns the tier off: the default then
compiles before the first call returns, as `jit=True` does.
"""
import atexit
import os
import pickle
import subprocess
import sys
import tempfile
import threading
import time

import numpy

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
        self.errors = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "s2sad.runtime.tier_child", path, name, self.arguments],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.errors,
            env=dict(os.environ))
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

    def _forget(self):
        with _children_lock:
            _children.discard(self)
        if os.path.exists(self.arguments):
            os.remove(self.arguments)


def should_wait(python_seconds, loops):
    """Whether the next call waits for the compile rather than run Python again: when the
    generated code loops (where compiled code is 10-100 times faster) and a Python call took
    WAIT_AFTER seconds or more. Loop-free NumPy code runs nearly as fast as Python, so it
    keeps answering from Python until the compile is done."""
    return loops and python_seconds >= WAIT_AFTER


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
