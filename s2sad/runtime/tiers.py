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
time and stays for the next ones. Where it is safe (Linux, one thread, Numba not loaded yet:
tier_fork.py) the worker is forked from the caller, NumPy and s2sad already imported: ready in
~0.35 s instead of ~0.45 s.

A bounded pool (`_Pool`): at most `pool_size()` workers per process, the cores less one by
default ($S2SAD_COMPILE_WORKERS sets it), so that a process making many gradient functions
(a test suite, a corpus, a sweep over models) does not start a worker per function. Further
compiles wait in a queue, the one a caller waits for first, then the function called most;
a worker idle for IDLE_SECONDS exits, but the last one is kept warm.

The caller reads the worker's report itself, on its next call (`Compile.done`, from a
non-blocking pipe): a thread of its own that waits for the report would then wait seconds
more for the GIL behind a caller running NumPy in a loop (Worker.reply says why).

While the compile runs, each call runs Python again or waits for it (`should_wait`, a ski
rental): Python until the time spent in Python calls since the compile was queued reaches
the compile's expected remaining time (`CompileTimes`, a cost model calibrated by the compile
times measured here), then wait. docs/tiers.md states its bound.

A compile that fails leaves the Python flavour in place with the usual JitFallbackWarning; the
workers still running when the process exits are stopped (`atexit`), a worker whose parent
died sees its input end and exits, and a worker never writes anything but Numba's cache.
`S2SAD_BACKGROUND_COMPILE=0` turns the tier off: the default then compiles before the first
call returns, as `jit=True` does.
"""
import atexit
import itertools
import os
import pickle
import select
import sys
import tempfile
import threading
import time
import warnings

import numpy

from . import tier_worker
from .tier_policy import compile_size, history
from .tier_worker import Worker

ENV_SWITCH = "S2SAD_BACKGROUND_COMPILE"

DISABLE_JIT_ENV = "S2SAD_DISABLE_JIT"   # every gradient runs as Python


def enabled():
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "false", "no", "off")


def jit_default():
    return os.environ.get(DISABLE_JIT_ENV, "").strip().lower() not in ("1", "true", "yes", "on")


WORKERS_ENV = "S2SAD_COMPILE_WORKERS"
KEEP_IDLE = 1              # idle workers kept for the next compile, however long idle
IDLE_SECONDS = 10.0        # a further idle worker exits after this long without a job


def pool_size():
    """At most this many compile workers per process: $S2SAD_COMPILE_WORKERS, else the cores
    this process may use less one (the caller's own), at least one."""
    text = os.environ.get(WORKERS_ENV, "").strip()
    if text:
        try:
            return max(1, int(text))
        except ValueError:
            warnings.warn(f"s2sad: {WORKERS_ENV}={text!r} is not a whole number; using the "
                          "default (the cores less one)", RuntimeWarning, stacklevel=2)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):   # (not Linux)
        cores = os.cpu_count() or 1
    return max(1, cores - 1)


class _Pool:
    """The compile workers of this process (not of a parent it was forked from), at most
    `pool_size()` of them, and the compiles waiting for one.

    A compile is queued (`submit`) and starts when a worker is idle or one more may be
    started. The queue is served by priority (`Compile.priority`): a compile a caller waits
    for, then the one whose function was called most while it was queued, then the oldest.
    A worker idle for IDLE_SECONDS exits, unless it is the last KEEP_IDLE (reaped on the
    pool's next event, or by a timer if none comes). No thread reads reports: callers move
    the queue on their calls, when they read the reports that free workers (`poll`, `pump`)."""

    def __init__(self):
        self.lock = threading.RLock()   # (a report filed while dispatching takes it again)
        self._reset()

    def _reset(self):
        self.idle, self.idle_since, self.busy, self.queue = [], {}, {}, []
        self.pid = os.getpid()
        self.closing = False
        self._looked = 0.0

    def _mine(self):
        if self.pid != os.getpid():   # forked: the parent's workers are the parent's
            self._reset()

    def size(self):
        return len(self.idle) + len(self.busy)

    def warm(self):
        """Start a worker ahead of the first compile, unless one is there."""
        with self.lock:
            self._mine()
            self._drop_unfit()
            if not self.idle and not self.busy and not self.closing:
                self._add_idle(Worker())

    def submit(self, job):
        with self.lock:
            self._mine()
            self.queue.append(job)
            self.dispatch()

    def dispatch(self):
        """Start queued compiles on idle workers, or on new ones up to the bound; let the
        workers idle too long go."""
        with self.lock:
            self._mine()
            self._drop_unfit()
            while self.queue and not self.closing:
                if self.idle:
                    worker = self.idle.pop()
                    del self.idle_since[worker]
                elif self.size() < pool_size():
                    worker = Worker()
                else:
                    break
                job = max(self.queue, key=Compile.priority)
                self.queue.remove(job)
                self.busy[worker] = job
                job.start(worker)
            self._reap()

    def finished(self, job):
        """A compile's report is in: its worker is idle again (or stopped, if it no longer
        fits) and takes the next queued compile."""
        with self.lock:
            self._mine()
            worker = job.worker
            if worker is not None and self.busy.get(worker) is job:
                del self.busy[worker]
                if worker.fits() and not self.closing:
                    self._add_idle(worker)
                else:
                    worker.stop()
            elif job in self.queue:
                self.queue.remove(job)
            self.dispatch()

    def expected_wait(self):
        """Seconds until a worker is expected free for a queued compile that goes next."""
        with self.lock:
            if self.idle or self.size() < pool_size() or not self.busy:
                return 0.0
            return min(job.remaining() for job in self.busy.values())

    def poll(self, force=False):
        """Read the reports that are in, without waiting (once a millisecond at most): their
        workers take the next queued compiles."""
        now = time.perf_counter()
        if not force and now - self._looked < 0.001:
            return
        self._looked = now
        with self.lock:
            self._mine()
            running = list(self.busy.values())
        for job in running:
            job.look()
        self.dispatch()

    def pump(self, timeout):
        """Wait up to `timeout` seconds for a report of any running compile, then read what
        is in."""
        with self.lock:
            self._mine()
            pipes = [w.pipe() for w in self.busy if w.pipe() is not None]
        if tier_worker.POLL_PIPES and pipes:
            try:
                select.select(pipes, [], [], timeout)
            except (OSError, ValueError):   # (a worker stopped meanwhile: its pipe closed)
                pass
        else:   # (Windows: the workers' threads fill their `_unread`)
            time.sleep(min(timeout, 0.005))
        self.poll(force=True)

    def _add_idle(self, worker):
        self.idle.append(worker)
        self.idle_since[worker] = time.monotonic()
        if len(self.idle) > KEEP_IDLE:   # it goes in a while if no call comes to reap it
            timer = threading.Timer(IDLE_SECONDS + 0.1, self._reap_later)
            timer.daemon = True
            timer.start()

    def _reap_later(self):
        with self.lock:
            if self.pid == os.getpid():
                self._reap()

    def _drop_unfit(self):
        for worker in [w for w in self.idle if not w.fits()]:
            self.idle.remove(worker)
            del self.idle_since[worker]
            worker.stop()

    def _reap(self):
        now = time.monotonic()
        oldest_first = sorted(self.idle, key=self.idle_since.get)
        for worker in oldest_first[:max(0, len(oldest_first) - KEEP_IDLE)]:
            if now - self.idle_since[worker] >= IDLE_SECONDS:
                self.idle.remove(worker)
                del self.idle_since[worker]
                worker.stop()

    def close(self):
        """The process is exiting: stop everything, and start no more compiles."""
        self.stop_all()
        with self.lock:
            self.closing = self.pid == os.getpid()

    def stop_all(self):
        """Stop the compiles queued or running, and every worker."""
        with self.lock:
            if self.pid != os.getpid():
                self._reset()
                return
            closing, self.closing = self.closing, True   # (a stopped compile starts no next)
            jobs = self.queue + list(self.busy.values())
        try:
            for job in jobs:
                job.stop()
        finally:
            with self.lock:
                workers_ = self.idle + list(self.busy)
                self.idle, self.idle_since, self.busy, self.queue = [], {}, {}, []
                self.closing = closing
        for worker in workers_:
            worker.stop()


workers = _Pool()


def warm():
    """Called when a tiered gradient function is made: a worker starts importing Numba."""
    if enabled():
        workers.poll()
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


_submitted = itertools.count()


class Compile:
    """One background compile: the generated file at `path`, its function `name`, for
    arguments of the types of `args`; queued until a worker of the pool takes it."""

    def __init__(self, path, name, args):
        handle, self.arguments = tempfile.mkstemp(prefix="s2sad-tier-", suffix=".pkl")
        with os.fdopen(handle, "wb") as stream:
            pickle.dump(placeholders(args), stream)
        self.path, self.name = path, name
        self.size = compile_size(path)                 # what its compile time is foreseen by
        self.expected = history.expected(*self.size)   # seconds
        self.order = next(_submitted)
        self.pid = os.getpid()       # (a process forked from this one compiles anew)
        self.calls = 0               # calls of its function while it was not done
        self.python_seconds = 0.0    # the time those calls ran as Python (the policy's rent)
        self.waited = False          # a caller waits for it
        self.worker = self.process = self.started = None
        self.report = None
        self._finished = threading.Event()
        self._collecting = threading.Lock()   # one thread reads the report and files it
        workers.submit(self)

    def priority(self):
        return (self.waited, self.calls, -self.order)

    def start(self, worker):
        """Sent to `worker` (by the pool, under its lock)."""
        self.worker, self.process = worker, worker.process
        self.started = time.perf_counter()
        if not worker.send({"path": self.path, "name": self.name,
                            "arguments": self.arguments}):
            self._collect(worker._died)

    def done(self):
        """Whether the report is in (read by the caller's own thread: Worker.reply says why)."""
        if not self._finished.is_set():
            workers.poll()
        return self._finished.is_set()

    def look(self):
        """Read the report if it is in, without waiting (a thread already reading it is let be)."""
        if self.worker is None or self._finished.is_set():
            return
        if self._collecting.acquire(blocking=False):
            try:
                self._collect(lambda: self.worker.reply(0))
            finally:
                self._collecting.release()

    def wait(self):
        """Wait for the report; a queued compile goes first."""
        if self.pid != os.getpid():   # a parent's: its report goes to the parent
            return
        self.waited = True
        workers.dispatch()
        while not self._finished.is_set():
            workers.pump(0.05)

    def _collect(self, read):
        """Read the report (`read`: None if not there yet), then file it: the compile time
        for the next forecasts, the worker back to the pool."""
        if self._finished.is_set():
            return
        report = read()
        if report is None:
            return
        self.report = report
        try:
            self._forget()
            workers.finished(self)
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
        """Stop the compile now (the process is exiting): its worker, if it has one, goes
        with it."""
        if not self._finished.is_set():
            if self.worker is not None:
                self.worker.stop()
            with self._collecting:
                self._collect(lambda: {"error": "stopped"})

    def remaining(self):
        """The seconds this compile is expected to take still: its expected time less what it
        has run, and while it is queued, the wait for a worker too."""
        if self.started is None:
            return self.expected + workers.expected_wait()
        return max(0.0, self.expected - (time.perf_counter() - self.started))

    def _forget(self):
        report = self.report or {}
        if report.get("compiled"):
            history.record(*self.size, report["seconds"])
        if os.path.exists(self.arguments):
            os.remove(self.arguments)


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
    workers.close()
