"""Import generated files and run them: compiled by Numba, or as plain Python.

One file, two flavours of module: `_s2sad_py_<stem>` runs the functions as written (pdb and IDE
breakpoints work), `_s2sad_jit_<stem>` replaces each function by `numba.njit(cache=True)`.
Callees are linked by `rt.load` in the caller's flavour, so a jitted caller always calls jitted
callees. Compilation happens eagerly for the actual argument types; if Numba fails, one warning
names the function, the generated line and Numba's reason, and the whole gradient (callees
included) runs as Python from then on: same file, same numbers.
"""
import contextlib
import importlib.util
import linecache
import os
import re
import sys
import types
import warnings

from . import tracing

PY, JIT = "py", "jit"
_modules = {}
_declarations = [True]  # honour rules declared numba=False (verify.py turns it off to test them)


@contextlib.contextmanager
def ignoring_declarations():
    """Try to compile even what is declared Numba-incompatible (to check the declaration)."""
    _declarations[0] = False
    try:
        yield
    finally:
        _declarations[0] = True


class JitFallbackWarning(UserWarning):
    """Numba could not compile a gradient; it runs as Python instead."""


def load(path, flavour):
    """The module for a generated file in the given flavour (imported once per process)."""
    key = (path, flavour)
    if key in _modules:
        return _modules[key]
    stem = os.path.splitext(os.path.basename(path))[0]
    name = f"_s2sad_{flavour}_{stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        if flavour == JIT:
            _compile_lazily(module, name)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    _modules[key] = module
    return module


def link(caller_name, stem, attribute):
    """What `rt.load` does: fetch `attribute` from the generated file `stem`, in the flavour and
    directory of the calling generated module."""
    flavour = JIT if caller_name.startswith(f"_s2sad_{JIT}_") else PY
    directory = os.path.dirname(sys.modules[caller_name].__file__)
    return getattr(load(os.path.join(directory, stem + ".py"), flavour), attribute)


def _compile_lazily(module, name):
    import numba
    from . import rt_numba  # noqa: F401  (registers rt's Numba implementations)
    for attribute, value in list(vars(module).items()):
        if isinstance(value, types.FunctionType) and value.__module__ == name:
            setattr(module, attribute, numba.njit(cache=True)(value))


class Runner:
    """Calls one generated function, jitted when possible."""

    def __init__(self, path, function_name, jit, label, python_only=()):
        self.path = path
        self.function_name = function_name
        self.jit = jit
        self.label = label          # e.g. "the gradient of demo.py:f", for the warning
        self.python_only = python_only  # functions whose rules Numba cannot compile
        self._signatures = set()

    def __call__(self, *args):
        if self.jit and self.python_only and _declarations[0]:
            self.jit = False
            warnings.warn(f"s2sad: {self.label} calls {', '.join(self.python_only)}, which Numba "
                          "cannot compile (see docs/coverage.md); running it as Python instead "
                          "(slower, same numbers).", JitFallbackWarning, stacklevel=4)
        if self.jit:
            dispatcher = self._compiled_for(args)
            if dispatcher is not None:
                try:
                    return dispatcher(*args)
                except Exception as exc:  # compiled code has no lines: say how to see them
                    tracing.annotate_compiled(exc, self.path, self.label)
                    raise
        return self.as_python(*args)

    def as_python(self, *args):
        """Run the generated function as Python (also to read the frames of an error)."""
        function = getattr(load(self.path, PY), self.function_name)
        try:
            return function(*args)
        except Exception as exc:  # name the generated and the original line
            tracing.annotate(exc)
            raise

    def _compiled_for(self, args):
        try:
            import numba
            dispatcher = getattr(load(self.path, JIT), self.function_name)
            signature = tuple(numba.typeof(a) for a in args)
            if signature not in self._signatures:
                dispatcher.compile(signature)
                self._signatures.add(signature)
            return dispatcher
        except Exception as exc:  # Numba raises many kinds; any of them means "run as Python"
            self.jit = False
            warnings.warn(self._explain(exc), JitFallbackWarning, stacklevel=4)
            return None

    def _explain(self, exc):
        message = str(exc)
        where = ""
        directory = os.path.dirname(self.path)
        for path, line in re.findall(r'File "([^"]+)", line (\d+)', message):
            generated = os.path.join(directory, os.path.basename(path))
            if os.path.exists(generated):  # the innermost generated line wins
                code = linecache.getline(generated, int(line)).strip()
                where = f"\n  at {generated}:{line}: {code}"
        reason = next((ln.strip() for ln in message.splitlines()
                       if ln.strip() and not ln.startswith(("Failed in", "During:"))),
                      type(exc).__name__)
        return (f"s2sad: Numba could not compile {self.label}; running it as Python instead "
                f"(slower, same numbers).{where}\n  reason: {type(exc).__name__}: {reason}")
