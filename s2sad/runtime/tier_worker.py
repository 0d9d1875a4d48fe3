"""A compile worker of the tiered default (tiers.py): a child process that imports Numba and
s2sad's runtime once, then compiles one job after another (tier_child.py --serve), and the
reading of its reports by the caller's own thread.

    worker = Worker()               # forked where that is safe (tier_fork.py), else spawned
    worker.send({"path": ..., "name": ..., "arguments": ...})
    worker.reply(0)                 # its report, or None if it has not come yet
    worker.stop()
"""
import json
import os
import select
import subprocess
import sys
import tempfile
import threading
import time

from . import tier_fork

POLL_PIPES = os.name == "posix"   # select() and non-blocking reads work on the workers' pipes


class Worker:
    """A child process that imports Numba and s2sad's runtime once, then compiles one job at
    a time (tier_child.py --serve). Its environment is the parent's when it started: it serves
    only while the parent's settings (`_settings`) are still those."""

    def __init__(self):
        self.environment = _settings()
        self.errors = tempfile.TemporaryFile()
        self.process = self._start()
        self._replies = self.process.stdout.fileno()
        self._unread = b""                 # what the worker wrote that is not read as a line yet
        self._arrived = threading.Event()  # (where pipes cannot be polled: `_pump` fills it)
        self._unread_lock = threading.Lock()
        self._ended = False
        if POLL_PIPES:
            os.set_blocking(self._replies, False)
        else:
            threading.Thread(target=self._pump, daemon=True).start()

    def _start(self):
        if tier_fork.possible():   # ready ~0.1 s sooner: tier_fork.py says when it is safe
            try:
                return tier_fork.ForkedProcess(self.errors)
            except OSError:        # (no memory for a copy of a large caller, ...)
                pass
        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        return subprocess.Popen(
            [sys.executable, "-c", _bootstrap(package)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors,
            env=dict(os.environ), text=True, bufsize=1)

    def fits(self):
        return self.process.poll() is None and self.environment == _settings()

    def send(self, job):
        """Give the worker a job (False if it is gone)."""
        try:
            self.process.stdin.write(json.dumps(job) + "\n")
            self.process.stdin.flush()
            return True
        except (OSError, ValueError):
            return False

    def pipe(self):
        """The descriptor its reports come on, for select(); None once it is stopped."""
        return None if self.process.stdout.closed else self._replies

    def reply(self, timeout):
        """The report of the job sent (a dict; {"error": reason} if it failed or the worker
        died), or None if it has not come within `timeout` seconds (0: only look).

        Read by the thread that asks, from a non-blocking pipe, and not by a thread of its
        own: such a thread, woken by the report, needs the GIL, and a caller running NumPy
        code in a loop starves it (each NumPy call that releases the GIL and takes it back at
        once restarts the other thread's wait for its turn): reports were read 0.1 s late on
        median and 0.5 s at worst, measured."""
        deadline = time.monotonic() + timeout
        while True:
            with self._unread_lock:
                line, newline, rest = self._unread.partition(b"\n")
                if newline:
                    self._unread = rest
            if newline:
                report = _report(line)
                if report is not None:
                    return report
                continue
            left = max(0.0, deadline - time.monotonic())
            if not POLL_PIPES:
                if self._ended:
                    return self._died()
                if not self._arrived.wait(left):
                    return None
                self._arrived.clear()
                continue
            if self.process.stdout.closed:   # stopped (its descriptor may be another's now)
                return {"error": "stopped"}
            if not select.select([self._replies], [], [], left)[0]:
                return None
            try:
                data = os.read(self._replies, 65536)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                return self._died()
            self._unread += data

    def _died(self):
        self.process.wait()
        return {"error": self._last_error()}

    def _pump(self):
        """Where pipes cannot be polled (Windows): a thread moves what the worker writes to
        `_unread` (a report then waits for this thread's turn at the GIL)."""
        while True:
            try:
                data = os.read(self._replies, 65536)
            except OSError:
                data = b""
            with self._unread_lock:
                self._unread += data
                self._ended = not data
            self._arrived.set()
            if not data:
                return

    def _last_error(self):
        try:
            self.errors.seek(0)
            text = self.errors.read().decode(errors="replace")
        except (OSError, ValueError):   # stopped: its file is closed
            text = "stopped"
        lines = [ln for ln in text.splitlines() if ln.strip()]
        return lines[-1] if lines else f"exit status {self.process.returncode}"

    def stop(self):
        """End the worker now, idle or compiling (it writes nothing but Numba's cache, whose
        files appear whole or not at all): waiting for it to notice its input end took up to
        0.5 s more at the exit of a script whose worker was still importing Numba."""
        if self.process.poll() is None:
            for close in (self.process.stdin.close, self.process.terminate):
                try:
                    close()
                except OSError:
                    pass
            try:
                self.process.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdout, self.errors):
            try:
                stream.close()
            except OSError:
                pass


def _report(line):
    """A line of the worker's: its report (a dict), or None for its "ready" line or anything
    a compile printed."""
    try:
        report = json.loads(line)
    except ValueError:
        return None
    return report if isinstance(report, dict) and "ready" not in report else None


def _bootstrap(package_dir):
    """The worker's command line (`python -c ...`): tier_child.serve, with s2sad's runtime but
    without the package's `__init__`, which imports the transformer (gast, astor, the templates)
    that compiling a generated file never needs: 0.1-0.2 s less before the worker is ready."""
    return ("import sys, types; package = types.ModuleType('s2sad'); "
            f"package.__path__ = [{package_dir!r}]; sys.modules['s2sad'] = package; "
            "from s2sad.runtime import tier_child; tier_child.serve(sys.stdin, sys.stdout)")


def _settings():
    """The environment variables a compile depends on (the cache directory, Numba's settings,
    where Python finds modules)."""
    return {k: v for k, v in os.environ.items() if k.startswith(("S2SAD_", "NUMBA_", "PYTHON"))}
