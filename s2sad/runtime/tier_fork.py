"""A warm worker forked from the caller (tier_worker.Worker), where that is safe: the child starts
with the caller's Python, NumPy and s2sad already imported, so it is ready to compile ~0.1 s
sooner than a new interpreter (0.42 s measured: 0.03 s to start Python, 0.06 s NumPy, 0.03 s
s2sad's runtime, then 0.3 s Numba, which both pay). That 0.1 s was most of what made the
tiered default run compiled later than `jit=True`'s first call returns.

Safe means: Linux (macOS's system libraries do not survive a fork), one Python thread (a
lock another thread held would stay locked in the child forever), and no Numba loaded yet
(LLVM's state is not meant to be forked; verify.py's pools spawn for the same reason).
Otherwise tier_worker.Worker starts a new interpreter, as it did.

The child keeps nothing of the caller but its memory: its signal handlers, tracer and profiler
are Python's defaults, its input, output and errors are the worker's pipes and error file,
every other descriptor is closed (a pipe of the caller's held
open here would hide its end from whoever reads it), and it leaves by `os._exit` (no atexit
handler, no flush of the caller's buffers, which would print the caller's output twice).

    ForkedProcess(errors)    # Popen's interface: pid, stdin, stdout, poll, wait, terminate, kill
"""
import importlib
import os
import signal
import subprocess
import sys
import threading
import time


def possible():
    return (sys.platform.startswith("linux") and hasattr(os, "fork")
            and threading.active_count() == 1 and "numba" not in sys.modules)


class ForkedProcess:
    """The forked worker, seen from the caller as `subprocess.Popen` sees a child."""

    def __init__(self, errors):
        to_child, from_parent = os.pipe()
        to_parent, from_child = os.pipe()
        pid = os.fork()
        if pid == 0:
            _serve_in_child(to_child, from_child, errors.fileno())
        os.close(to_child)
        os.close(from_child)
        self.pid = pid
        self.returncode = None
        self.stdin = open(from_parent, "w", buffering=1)
        self.stdout = open(to_parent, "r")

    def poll(self):
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:      # reaped elsewhere
                self.returncode = -1
                return self.returncode
            if pid == self.pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"worker {self.pid}", timeout)
            time.sleep(0.005)
        return self.returncode

    def terminate(self):
        self._signal(signal.SIGTERM)

    def kill(self):
        self._signal(signal.SIGKILL)

    def _signal(self, number):
        if self.poll() is None:
            try:
                os.kill(self.pid, number)
            except ProcessLookupError:
                pass


def _serve_in_child(requests, replies, errors):
    """The child's whole life: the worker's loop on its own pipes, then `os._exit`."""
    status = 1
    try:
        _forget_the_callers_hooks()
        os.dup2(requests, 0)
        os.dup2(replies, 1)
        os.dup2(errors, 2)
        os.closerange(3, _highest_descriptor())
        sys.stdin = open(0, "r", closefd=False)
        sys.stdout = open(1, "w", buffering=1, closefd=False)
        sys.stderr = open(2, "w", buffering=1, closefd=False)
        # the worker's entry point, named as the spawned worker's command line names it (an
        # import here would make a cycle: tier_child's jobs use jit.py, which uses tiers.py)
        importlib.import_module(__package__ + ".tier_child").serve(sys.stdin, sys.stdout)
        status = 0
    except BaseException:   # noqa: BLE001 -- whatever it was, the child ends here
        try:
            import traceback
            traceback.print_exc()
            sys.stderr.flush()
        except BaseException:   # noqa: BLE001
            pass
    finally:
        os._exit(status)


def _forget_the_callers_hooks():
    """The caller's signal handlers (a SIGTERM handler that cleans up its files must not run
    here when the worker is stopped), tracer and profiler (coverage, a profiler: Numba's
    import traced line by line) are the caller's: the child has Python's defaults."""
    for number in signal.valid_signals():
        try:
            if callable(signal.getsignal(number)):
                signal.signal(number, signal.SIG_DFL)
        except (OSError, ValueError, RuntimeError):
            pass
    sys.settrace(None)
    sys.setprofile(None)
    threading.settrace(None)
    threading.setprofile(None)


def _highest_descriptor():
    try:
        return os.sysconf("SC_OPEN_MAX")
    except (ValueError, OSError):
        return 65536
