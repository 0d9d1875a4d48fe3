"""Import generated files and run them: compiled by Numba, or as plain Python.

One file, two flavours of module: `_s2sad_py_<stem>` runs the functions as written (pdb and IDE
breakpoints work), `_s2sad_jit_<stem>` replaces each function by `numba.njit(cache=True)`.
Callees are linked by `rt.load` in the caller's flavour, so a jitted caller always calls jitted
callees. Compilation happens eagerly for the actual argument types; if Numba fails, one warning
names the function, the generated line and Numba's reason, and the whole gradient (callees
included) runs as Python from then on: same file, same numbers.

Nothing read from disk is trusted blindly: a generated file is compiled from its text (a
corrupt `.pyc` cannot break it), and Numba's cache files carry a sha256 and the key they were
compiled for (numba_cache.py), so a truncated, corrupt or mixed-up `.nbi`/`.nbc` file
means "compile again", never a crash or another function's machine code.
"""
import ast
import contextlib
import functools
import importlib.util
import linecache
import os
import re
import sys
import threading
import time
import types
import warnings

import numpy

from s2sad.errors import Diagnostic, Location, S2sadWarning, UserError

from . import (cache, cached_calls, calls_by_symbol, dispatch, numba_cache, numpy_cached, rt,
               syntax_lock, tier_policy, tiers, tracing)

PY, JIT = "py", "jit"
TIERED = "tiered"   # Runner.jit: Python first, compiled in the background (tiers.py)
_modules = {}
_load_locks = {PY: threading.RLock(), JIT: threading.RLock()}  # one per flavour: preparing the
# compiled flavour in the background (Runner._tiered) never holds up a Python call
_start_lock = threading.Lock()
_declarations = [True]  # honour rules declared numba=False (verify.py turns it off to test them)


@contextlib.contextmanager
def ignoring_declarations():
    """Try to compile even what is declared Numba-incompatible (to check the declaration)."""
    _declarations[0] = False
    try:
        yield
    finally:
        _declarations[0] = True


class JitFallbackWarning(S2sadWarning):
    """Numba could not compile a gradient; it runs as Python instead."""


def load(path, flavour):
    """The module for a generated file in the given flavour (imported once per process, by one
    thread: another asking meanwhile waits for it)."""
    key = (path, flavour)
    module = _modules.get(key)
    if module is not None:
        return module
    # Python files: the syntax lock first, as a transformation takes it (pipeline.py) before
    # it loads one (a grad called inside a differentiated function): the other order
    # deadlocked a thread loading a file, which then parses it, with one transforming. No
    # transformation loads the Numba flavour, whose load (Numba's import, 0.3 s) must not hold
    # up the Python flavour's meanwhile (the tiered first call): it parses under the lock only
    outer = syntax_lock.LOCK if flavour == PY else contextlib.nullcontext()
    with outer, _load_locks[flavour]:
        if key in _modules:
            return _modules[key]
        return _load(path, flavour, key)


def _load(path, flavour, key):
    stem = os.path.splitext(os.path.basename(path))[0]
    name = f"_s2sad_{flavour}_{stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    text = cache.text_of(path)  # compiled from its text: no .pyc involved
    with syntax_lock.LOCK:   # (no other thread parsing meanwhile: syntax_lock.py)
        if flavour == JIT:  # `@` and some NumPy calls through helpers Numba caches, line for line
            tree = cached_calls.for_numba(numpy_cached.for_numba(ast.parse(text, path)))
            code = compile(tree, path, "exec", dont_inherit=True)
            module.__dict__[numpy_cached.NAME] = numpy_cached
        else:
            code = compile(text, path, "exec", dont_inherit=True)
    module.__dict__[rt.LINKER] = functools.partial(link, name)  # what rt.load calls
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)
        if flavour == JIT:
            _compile_lazily(module, name)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    _modules[key] = module
    return module


def with_cached_types(path, function_name, args):
    """Before a compile: the types of the results of lru_cache'd helpers (cached_calls.py),
    found by one run as Python where one has not been called yet."""
    modules = [m for (_, flavour), m in list(_modules.items()) if flavour == JIT]
    cached_calls.prepare(modules, lambda: getattr(load(path, PY), function_name)(*args))


def link(caller_name, stem, attribute):
    """What `rt.load` does: fetch `attribute` from the generated file `stem`, in the flavour and
    directory of the calling generated module."""
    flavour = JIT if caller_name.startswith(f"_s2sad_{JIT}_") else PY
    directory = os.path.dirname(sys.modules[caller_name].__file__)
    # the caller's directory, unless the callee went elsewhere (the cache directory failed)
    candidates = [os.path.join(d, stem + ".py") for d in [directory, *cache.directories()]]
    path = next((p for p in candidates if cache.is_known(p)), candidates[0])
    return getattr(load(path, flavour), attribute)


def _compile_lazily(module, name):
    import numba
    dispatch.install()     # rt's helpers, for Numba
    parallel = set(vars(module).get("PARALLEL", ()))  # loops of prange (batch.py)
    cacheable = not cached_calls.uses_cached_calls(module)  # (object mode: Numba cannot cache)
    for attribute, value in list(vars(module).items()):
        if isinstance(value, types.FunctionType) and value.__module__ == name:
            dispatcher = numba.njit(cache=cacheable, parallel=attribute in parallel)(value)
            numba_cache.check_files(dispatcher)
            calls_by_symbol.make_dispatcher(dispatcher, module.__file__, attribute,
                                            ensure_compiled)
            setattr(module, attribute, dispatcher)


def ensure_compiled(path, attribute, argtypes):
    """Compile (or load) `attribute` of the generated file `path` for `argtypes`: what Numba
    runs before it loads, from its cache, a caller that calls it by symbol
    (calls_by_symbol.py). Raises, rather than let LLVM abort the process on a missing symbol,
    if the symbol is not defined after it."""
    import llvmlite.binding as llvm
    if not os.path.exists(path):   # (its cache directory failed over: look where files went)
        found = [os.path.join(d, os.path.basename(path)) for d in cache.directories()]
        path = next((p for p in found if os.path.exists(p)), path)
    getattr(load(path, JIT), attribute).compile(argtypes)
    if not llvm.address_of_symbol(calls_by_symbol.symbol(path, attribute, argtypes)):
        raise RuntimeError(f"s2sad: {os.path.basename(path)}:{attribute} compiled for "
                           f"{argtypes} defines no symbol")


_numba_ready = [False]   # Numba imported and its registries refreshed in this process


class Runner:
    """Calls one generated function, jitted when possible."""

    def __init__(self, path, function_name, jit, label, python_only=()):
        self.path = path
        self.function_name = function_name
        self.jit = jit              # True, False, or TIERED (tiers.py)
        self.label = label          # e.g. "the gradient of demo.py:f", for the warning
        self.python_only = python_only  # functions whose rules Numba cannot compile
        self._signatures = set()
        self._by_key = {}           # type_key(args) -> the dispatcher compiled for them
        self._background = {}       # type_key(args) -> its tiers.Compile
        self._preparing = None      # the thread importing Numba for the switch

    @property
    def source(self):
        return cache.text_of(self.path)

    def __getstate__(self):
        """Pickled (to a process pool, a Dask worker): the generated files travel with it, by
        name and text; compiled code does not (each process compiles into its own cache)."""
        state = dict(self.__dict__, _signatures=set(), _by_key={}, _background={},
                     _preparing=None)
        state["files"] = cache.bundle(self.path)
        return state

    def __setstate__(self, state):
        files = state.pop("files")
        self.__dict__.update(state)
        self.path = os.path.join(cache.install(files), os.path.basename(self.path))

    def __call__(self, *args):
        dispatcher = self._by_key.get(type_key(args)) if self.jit else None
        if dispatcher is None and self.jit == TIERED:
            dispatcher = self._tiered(args)
            if dispatcher is None:
                return self._timed_python(args)
        if dispatcher is None:
            if self.jit and self.python_only and _declarations[0]:
                self.jit = False
                warnings.warn(f"s2sad: {self.label} calls {', '.join(self.python_only)}, which "
                              "Numba cannot compile (see docs/coverage.md); running it as Python "
                              "instead (slower, same numbers).", JitFallbackWarning, stacklevel=4)
            if not self.jit:
                return self.as_python(*args)
            dispatcher = self._compiled_for(args)
            if dispatcher is None:
                return self.as_python(*args)
        try:
            return dispatcher(*args)
        except Exception as exc:  # compiled code has no lines: say how to see them
            tracing.annotate_compiled(exc, self.path, self.label)
            raise

    def _tiered(self, args):
        """The compiled dispatcher when the background compile for these types is done (or
        worth waiting for); else None, the call running as Python meanwhile."""
        key = type_key(args)
        if self.python_only and _declarations[0] or key is None:
            self.jit = True  # (the usual path: a warning, or a compile for contents' types)
            return None
        with _start_lock:   # threads calling at once start one child, not one each
            job = self._background.get(key)
            if job is None or job.pid != os.getpid():   # (none yet, or a parent process's)
                self._background[key] = tiers.Compile(self.path, self.function_name, args)
                return None
        done = job.done()
        if not done:
            job.calls += 1
        # a compile someone waited for, or one done while Numba's import runs already (what
        # is left of it costs less than the rent paid), is switched to at once; else the rent
        # so far against what waiting costs now: the compile's remaining time and Numba's
        # import in this process
        at_once = job.waited or done and self._preparing is not None
        if (not done or job.succeeded) and not at_once:
            remaining = 0.0 if done else job.remaining()
            switch = 0.0 if _numba_ready[0] else tier_policy.SWITCH_SECONDS
            if not tier_policy.should_wait(job.python_seconds, remaining, switch):
                self._prepare_soon(job)
                return None   # Python again, beside the compile
        if self._preparing is not None:
            self._preparing.join()
        job.wait()
        if not job.succeeded:   # the warning a compile in this process would give
            self.jit = False
            kind, message = job.failure()
            warnings.warn(self._explain(kind, message), JitFallbackWarning, stacklevel=4)
            return None
        return self._compiled_for(args)  # Numba's cache has it now: a quick load

    def _prepare_soon(self, job):
        """Import Numba and build the dispatchers on another thread, so that the switch only
        loads the worker's machine code from the cache: once the calls have spent
        PREPARE_AFTER seconds in Python. Never waited for unless the policy says wait (the
        second call used to wait for it: 0.3-0.7 s), it shares the GIL with the Python calls
        beside it, which at worst run half as fast until it is done; a run of calls shorter
        than PREPARE_AFTER does not pay even that."""
        if self._preparing is None and job.python_seconds >= tier_policy.PREPARE_AFTER:
            self._preparing = threading.Thread(target=self._prepare_compiled, daemon=True)
            self._preparing.start()

    def _prepare_compiled(self):
        try:
            load(self.path, JIT)
            # what Numba does before it loads code from its cache the first time in a process
            # (NumPy's typing and lowering registries: 0.2 s)
            from numba.core.registry import cpu_target
            cpu_target.typing_context.refresh()
            cpu_target.target_context.refresh()
            _numba_ready[0] = True
        except Exception:   # noqa: BLE001 -- the switch loads it again and reports what failed
            pass

    def _timed_python(self, args):
        """A Python call while a compile runs, its time counted as the wait policy's rent."""
        start = time.perf_counter()
        try:
            return self.as_python(*args)
        finally:
            job = self._background.get(type_key(args))
            if job is not None:
                job.python_seconds += time.perf_counter() - start

    @property
    def runs_compiled(self):
        """Whether calls run Numba's code now (for some argument types): with the tiered
        default, False until the background compile is done."""
        return bool(self._by_key)

    def wait_compiled(self):
        """Wait for the background compiles started for this file (`Transformed.wait_compiled`);
        True if none failed."""
        jobs = [j for j in self._background.values() if j.pid == os.getpid()]  # (not a parent's)
        for job in jobs:
            job.wait()
        return self.jit is not False and all(job.succeeded for job in jobs)

    def compiled(self, args):
        """The dispatcher already compiled for arguments of these types, or None."""
        return self._by_key.get(type_key(args)) if self.jit else None

    def as_python(self, *args):
        """Run the generated function as Python (also to read the frames of an error)."""
        function = getattr(load(self.path, PY), self.function_name)
        try:
            return function(*args)
        except RecursionError as exc:
            raise _too_deep(exc, self.label) from exc
        except Exception as exc:  # name the generated and the original line
            tracing.annotate(exc)
            raise

    def _compiled_for(self, args):
        try:
            import numba
            dispatcher = getattr(load(self.path, JIT), self.function_name)
            signature = tuple(numba.typeof(a) for a in args)
            if signature not in self._signatures:
                with_cached_types(self.path, self.function_name, args)
                dispatcher.compile(signature)
                self._signatures.add(signature)
            key = type_key(args)
            if key is not None:
                self._by_key[key] = dispatcher
            _numba_ready[0] = True
            return dispatcher
        except Exception as exc:  # Numba raises many kinds; any of them means "run as Python"
            self.jit = False
            warnings.warn(self._explain(type(exc).__name__, str(exc)), JitFallbackWarning,
                          stacklevel=4)
            return None

    def _explain(self, kind, message):
        """The fallback warning for Numba's exception (its class name and message)."""
        where = ""
        directory = os.path.dirname(self.path)
        for path, line in re.findall(r'File "([^"]+)", line (\d+)', message):
            generated = os.path.join(directory, os.path.basename(path))
            if os.path.exists(generated):  # the innermost generated line wins
                code = linecache.getline(generated, int(line)).strip()
                where = f"\n  at {generated}:{line}: {code}"
        lines = [ln.strip() for ln in message.splitlines()
                 if ln.strip() and not ln.startswith(("Failed in", "During:"))] or [kind]
        reason = lines[0]
        if reason.endswith("signature:") and len(lines) > 1:  # (the types it was called with)
            reason += " " + lines[1]
        reason = re.sub(r" at 0x[0-9a-fA-F]+>", ">", reason)   # (an address says nothing)
        return (f"s2sad: Numba could not compile {self.label}; running it as Python instead "
                f"(slower, same numbers).{where}\n  reason: {kind}: {reason}")


_SCALARS = {float, int, bool, type(None)} | {
    t for t in numpy.sctypeDict.values() if issubclass(t, (numpy.number, numpy.bool_))}


def type_key(args):
    """A cheap stand-in for the Numba types of `args`, for the call path: what decides an
    array's Numba type (dimensions, dtype, layout, writeable, aligned), a scalar's (its class),
    a tuple's (its items') or a list's (its first item's, as Numba's). None when an argument's
    type is none of these (an empty list, an object other than a random generator)."""
    key = []
    for arg in args:   # (the call path: arrays and numbers without a call each)
        kind = type(arg)
        if kind is numpy.ndarray:
            key.append((arg.ndim, arg.dtype.num, arg.flags.num))
        elif kind in _SCALARS:
            key.append(kind)
        else:
            item = _key(arg)
            if item is None:
                return None
            key.append(item)
    return tuple(key)


def _key(arg):
    kind = type(arg)
    if kind is numpy.ndarray:  # flags.num: contiguity, writeable, aligned (and owndata)
        return (arg.ndim, arg.dtype.num, arg.flags.num)
    if kind in _SCALARS:
        return kind
    if kind is tuple:
        items = tuple(_key(item) for item in arg)
        return None if None in items else (tuple, items)
    if kind is list and arg:   # typed by its first item, as Numba types it (O(1) per call)
        item = _key(arg[0])
        return None if item is None else (list, item)
    if kind is numpy.random.Generator:   # drawn from: typed by its bit generator's class
        return (kind, type(arg.bit_generator))
    if kind is numpy.random.RandomState:
        return (kind, type(arg._bit_generator))
    return None


def _too_deep(exc, label):
    """A UserError at the line of the user's function where the recursion went too deep."""
    where = None
    tb = exc.__traceback__
    while tb is not None:  # the innermost generated frame wins
        origin = tracing.origin(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        if origin is not None:
            text = linecache.getline(origin.path, origin.line)
            where = Location(origin.path, origin.line, len(text) - len(text.lstrip()))
        tb = tb.tb_next
    return UserError([Diagnostic(
        where, f"{label} recursed deeper than Python allows ({sys.getrecursionlimit()} calls)",
        why="for these arguments the recursion does not reach its base case, or needs more "
            "levels than the interpreter's limit",
        fix="check that the recursion ends for these arguments; for a deep one, write it as a "
            "loop (or raise sys.setrecursionlimit)")])
