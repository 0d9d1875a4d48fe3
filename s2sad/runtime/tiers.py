"""The tiered default: answer the first calls from the generated Python at once, compile the
same file with Numba in a child process, and switch to the compiled function when it is ready.

    df = s2sad.grad(f)      # jit=None: tiered; a warm worker process starts importing Numba
    df(x)                   # 1st call: Python now; the worker starts compiling f's file
    df(x)                   # Python again while the worker compiles (or waits: `should_wait`)
    df(x)                   # the worker is done: Numba loads its cache, compiled from now on

Why a process and not a thread: Numba's typing and lowering are Python code holding the GIL,
so a compiling thread would slow the very calls that run as Python meanwhile; a child
process uses the other core, and its work reaches the parent through Numba's cache (files
written atomically and checked on load, numba_cache.py), which the parent then loads in a few
tens of milliseconds. The child compiles for placeholder arguments of the caller's types
(`placeholders`): one small array of the same dtype, rank, layout and flags per array.

Why a warm worker (`Worker`, tier_child.py --serve): a fresh child spends about a second
starting Python and importing NumPy, s2sad and Numba before it compiles anything, which made
the tiered default switch to compiled code later than `jit=True`'s first call returned. A
worker is started when a tiered gradient function is made (`warm`), so that this happens while
the caller's function is transformed and its first Python calls run; it compiles one job at a
time and stays for the next ones (one idle worker is kept). A job that finds every worker busy
starts a new one. Where it is safe (Linux, one thread, Numba not loaded yet: tier_fork.py)
the worker is forked from the caller, NumPy and s2sad already imported: ready in ~0.35 s
instead of ~0.45 s.

The caller reads the worker's report itself, on its next call (`Compile.done`, from a
non-blocking pipe): a thread of its own that waits for the report would then wait seconds
more for the GIL behind a caller running NumPy in a loop (Worker.reply says why).

While the child compiles, the caller's next call runs Python again or waits for the child
(`should_wait`): it waits when the compile should end before another Python call would (from
the compile times of earlier files, `CompileTimes`), or when the code loops and a Python call
took 50 ms or more.

A compile that fails leaves the Python flavour in place with the usual JitFallbackWarning; the
workers still running when the process exits are stopped (`atexit`), a worker whose parent
died sees its input end and exits, and a worker never writes anything but Numba's cache.
`S2SAD_BACKGROUND_COMPILE=0` turns the tier off: the default then compiles before the first
call returns, as `jit=True` does.
"""
import atexit
import json
import os
import pickle
import select
import subprocess
import sys
import tempfile
import threading
import time

import numpy

from . import cache, tier_fork

ENV_SWITCH = "S2SAD_BACKGROUND_COMPILE"
POLL_PIPES = os.name == "posix"   # select() and non-blocking reads work on the workers' pipes
# Wait for the compile instead of running Python again when one Python call took this long
# (seconds) and the code has a loop: loops are where the compiled code is far faster.
WAIT_AFTER = 0.05

_children = set()          # the Compiles running
_children_lock = threading.Lock()
KEEP_IDLE = 1              # idle warm workers kept for the next compile


DISABLE_JIT_ENV = "S2SAD_DISABLE_JIT"   # every gradient runs as Python


def enabled():
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "false", "no", "off")


def jit_default():
    return os.environ.get(DISABLE_JIT_ENV, "").strip().lower() not in ("1", "true", "yes", "on")


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


class _Workers:
    """The idle warm workers of this process (not of a parent it was forked from)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.idle, self.busy, self.pid = [], set(), os.getpid()

    def _mine(self):
        if self.pid != os.getpid():   # forked: the parent's workers are the parent's
            self.idle, self.busy, self.pid = [], set(), os.getpid()

    def warm(self):
        """Start a worker ahead of the first compile, unless one is there."""
        with self.lock:
            self._mine()
            for worker in [w for w in self.idle if not w.fits()]:
                self.idle.remove(worker)
                worker.stop()
            if not self.idle and not self.busy:
                self.idle.append(Worker())

    def take(self):
        with self.lock:
            self._mine()
            while self.idle:
                worker = self.idle.pop()
                if worker.fits():
                    break
                worker.stop()
            else:
                worker = Worker()
            self.busy.add(worker)
            return worker

    def give_back(self, worker):
        with self.lock:
            self.busy.discard(worker)
            if worker.fits() and len(self.idle) < KEEP_IDLE and self.pid == os.getpid():
                self.idle.append(worker)
                return
        worker.stop()

    def stop_all(self):
        with self.lock:
            workers = self.idle + list(self.busy) if self.pid == os.getpid() else []
            self.idle, self.busy = [], set()
        for worker in workers:
            worker.stop()


workers = _Workers()


def warm():
    """Called when a tiered gradient function is made: a worker starts importing Numba."""
    if enabled():
        _read_reports()
        workers.warm()


def warm_if_interactive():
    """At `import s2sad` in an interactive session (the REPL, IPython, Jupyter), where the
    first gradient function comes seconds or minutes later: a worker is ready by then, and
    calls run compiled ~0.3 s sooner. Not in scripts, pools or test runners, which make their
    gradient functions at once, or never: a process started for nothing."""
    if enabled() and jit_default() and _interactive():
        workers.warm()


def _interactive():
    if hasattr(sys, "ps1") or sys.flags.interactive:
        return True
    shell = getattr(sys.modules.get("IPython"), "get_ipython", None)
    try:
        return shell is not None and shell() is not None
    except Exception:   # noqa: BLE001 -- an IPython that cannot say: not interactive
        return False


def _read_reports():
    """Read the reports that came while nobody called (the callers read them: Worker.reply):
    their workers are free for the next job."""
    with _children_lock:
        running = list(_children)
    for compile_ in running:
        compile_.done()


class Compile:
    """One background compile: the generated file at `path`, its function `name`, for
    arguments of the types of `args`, on a warm worker (a new one if all are busy)."""

    def __init__(self, path, name, args):
        handle, self.arguments = tempfile.mkstemp(prefix="s2sad-tier-", suffix=".pkl")
        with os.fdopen(handle, "wb") as stream:
            pickle.dump(placeholders(args), stream)
        self.lines = _lines(path)
        self.expected = history.expected(self.lines)   # seconds, or None: no history yet
        self.started = time.perf_counter()
        self.report = None
        self._finished = threading.Event()
        self._collecting = threading.Lock()   # one thread reads the report and files it
        self._looked = 0.0
        _read_reports()
        self.worker = workers.take()
        self.process = self.worker.process
        with _children_lock:
            _children.add(self)
        if not self.worker.send({"path": path, "name": name, "arguments": self.arguments}):
            self._collect(self.worker._died)

    def done(self):
        """Whether the report is in (read by the caller's own thread: Worker.reply says why),
        looking at the worker's pipe once a millisecond at most."""
        if not self._finished.is_set():
            now = time.perf_counter()
            if now - self._looked >= 0.001 and self._collecting.acquire(blocking=False):
                self._looked = now
                try:
                    self._collect(lambda: self.worker.reply(0))
                finally:
                    self._collecting.release()
        return self._finished.is_set()

    def wait(self):
        while not self._finished.is_set():
            with self._collecting:
                self._collect(lambda: self.worker.reply(0.05))

    def _collect(self, read):
        """Read the report (`read`: None if not there yet), then file it: the compile time
        for the next forecasts, the worker back to the idle ones."""
        if self._finished.is_set():
            return
        report = read()
        if report is None:
            return
        self.report = report
        try:
            self._forget()
            workers.give_back(self.worker)
        finally:
            self._finished.set()

    @property
    def succeeded(self):
        return self.report is not None and "error" not in self.report

    def failure(self):
        """Why the compile failed: the class name and message of Numba's exception in the
        worker (or of what stopped the worker)."""
        report = self.report or {"error": "stopped"}
        return report.get("kind", "RuntimeError"), report.get("message", report["error"])

    def stop(self):
        """Stop the compile now (the process is exiting): its worker goes with it."""
        if not self._finished.is_set():
            self.worker.stop()
            with self._collecting:
                self._collect(lambda: {"error": "stopped"})

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
        report = self.report or {}
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
    and flags (their contents do not matter to a compile), in tuples and lists too, everything
    else as it is."""
    return [_placeholders_of(a) for a in args]


def _placeholders_of(value):
    if isinstance(value, numpy.ndarray):
        return _placeholder(value)
    if type(value) in (tuple, list):
        return type(value)(_placeholders_of(item) for item in value)
    return value


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
    """No child outlives its parent: the workers, idle or compiling, are stopped (Numba's cache
    is written atomically, so an interrupted compile leaves nothing half-written)."""
    with _children_lock:
        running = list(_children)
    for child in running:
        child.stop()
    workers.stop_all()
