"""The stage order, written once: function object -> generated file.

    parse -> fence + resolve -> normalize -> activity -> reverse -> optimize -> emit -> cache

`adjoint(f, positions)` generates `df(params..., d_result) -> (value, grads...)` for the
parameters at `positions`; `primal(g)` generates a callable copy of a user function that an
adjoint calls in its forward sweep. Callees are generated recursively, each into its own file;
each (function, positions) is transformed once per process.
"""
import dataclasses
import os

import gast

from . import __version__, activity, cache, emit, fence, normalize, optimize, parse, resolve
from . import reverse, templates
from .errors import Diagnostic, InternalError, S2sadError, UnsupportedError
from .naming import Namer

# Module-level names of every generated file; user names that collide are avoided by the namer.
RESERVED = {"math", "numpy", "rt"}


@dataclasses.dataclass(frozen=True)
class Generated:
    path: str          # the generated file
    function: str      # the function's name inside it
    text: str
    source: parse.SourceFunction


_done = {}
_in_progress = set()


def adjoint(func, positions):
    """The generated adjoint of `func` w.r.t. the parameters at `positions` (a tuple of ints)."""
    key = (func, func.__code__, "adjoint", tuple(positions), templates.generation())
    if key not in _done:
        _done[key] = _guarded(key, lambda: _adjoint(func, tuple(positions)))
    return _done[key]


def gradient(func, positions):
    """`adjoint`, for a function that must return a scalar (checked where the source shows it)."""
    generated = adjoint(func, positions)
    returned = generated.source.tree.body[-1]
    if isinstance(returned.value, gast.Tuple):
        raise UnsupportedError([Diagnostic(
            generated.source.loc(returned), f"'{func.__name__}' returns a tuple; a gradient "
            "needs a scalar output",
            fix="return one scalar (e.g. the sum of the parts); vector-Jacobian products of "
                "tuple outputs are not supported yet")])
    return generated


def primal(func):
    """A generated copy of `func` that generated code (and Numba) can call."""
    key = (func, func.__code__, "primal", templates.generation())
    if key not in _done:
        _done[key] = _guarded(key, lambda: _primal(func))
    return _done[key]


def _guarded(key, build):
    if key in _in_progress:
        func = key[0]
        where = parse.code_location(func)
        raise UnsupportedError([Diagnostic(
            where, f"'{func.__name__}' calls itself (directly or through other functions)",
            why="recursive functions are not supported yet",
            fix="rewrite the recursion as straight-line code")])
    _in_progress.add(key)
    try:
        return build()
    except S2sadError:
        raise
    except Exception as exc:  # a bug in a stage: say so, instead of a bare traceback
        raise InternalError(f"transforming {key[0].__qualname__} failed: "
                            f"{type(exc).__name__}: {exc}") from exc
    finally:
        _in_progress.discard(key)


def _prepare(func):
    """Parse, then collect every fence and name problem before giving up."""
    source = parse.parse_function(func)
    problems = fence.find_problems(source)
    resolution = resolve.resolve(source)
    problems += resolution.diagnostics
    if problems:
        problems.sort(key=lambda d: (d.where.line, d.where.col))
        raise UnsupportedError(problems)
    return source, resolution.callees


def _adjoint(func, positions):
    source, callees = _prepare(func)
    params = [a.id for a in resolve.parameters(source.tree.args)]
    wrt = [params[i] for i in positions]
    namer = Namer(_all_names(source.tree) | RESERVED)
    body = normalize.normalize(source, namer)
    activity.analyse(body, wrt)
    bindings = [(name, primal(callee)) for name, callee in callees.items()]
    emitted = {callee: name for name, callee in callees.items()}
    linked = {}

    def link(callee, callee_positions):
        if (callee, callee_positions) not in linked:
            name = namer.fresh(f"d{emitted[callee]}")
            bindings.append((name, adjoint(callee, callee_positions)))
            linked[callee, callee_positions] = name
        return linked[callee, callee_positions]

    function = reverse.reverse(source, body, wrt, namer, link, namer.fresh(f"d{func.__name__}"))
    function = optimize.tidy(function)
    what = f"reverse mode w.r.t. {', '.join(wrt)}" if wrt else "reverse mode"
    text = _module_text(source, what, bindings, function)
    path = cache.store(f"{func.__name__}__d_{'_'.join(wrt)}", text)
    return Generated(path, function.name, text, source)


def _primal(func):
    source, callees = _prepare(func)
    bindings = [(name, primal(callee)) for name, callee in callees.items()]
    text = _module_text(source, "primal copy for generated callers", bindings, source.tree)
    path = cache.store(f"{func.__name__}__primal", text)
    return Generated(path, source.tree.name, text, source)


def _module_text(source, what, bindings, function):
    header = (f"# Generated by s2sad {__version__} from {source.path}:{source.name} "
              f"(line {source.first_line}): {what}.\n"
              "# Do not edit: s2sad writes a new file when the source changes. "
              f"Source sha256: {source.sha256[:16]}\n"
              "import math\nimport numpy\nfrom s2sad import rt\n")
    links = "".join(f"{name} = rt.load(__name__, {_stem(generated)!r}, {generated.function!r})\n"
                    for name, generated in bindings)
    return header + links + "\n\n" + emit.function_source(function)


def _stem(generated):
    return os.path.splitext(os.path.basename(generated.path))[0]


def _all_names(tree):
    return {node.id for node in gast.walk(tree) if isinstance(node, gast.Name)}
