"""The stage order, written once: function object -> generated file.

    parse -> fence + resolve -> exits -> normalize -> activity -> reverse -> optimize -> emit
    -> cache

`adjoint(f, positions)` generates `df(params..., d_result) -> (value, grads...)` for the
parameters at `positions`; `primal(g)` generates a callable copy of a user function that an
adjoint calls in its forward sweep. Callees are generated recursively, each into its own file;
each (function, positions) is transformed once per process.
"""
import dataclasses
import os

import gast

from . import __version__, activity, cache, clogs, emit, exits, fence, normalize, optimize, parse
from . import nodes, resolve
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
    python_only: tuple = ()   # functions whose rules Numba cannot compile, callees' included
    clogs: tuple = ()         # warnings where the gradient stops (clogs.py), callees' included
    unused: tuple = ()        # warnings for `wrt` parameters the output does not depend on


_done = {}
_in_progress = set()


NO_KINDS = (frozenset(), frozenset())


def adjoint(func, positions, kinds=NO_KINDS, tidy=True, check_nan=False):
    """The generated adjoint of `func` w.r.t. the parameters at `positions` (a tuple of ints).
    `kinds`: (names of parameters known to be Python scalars, those known to be ints); what is
    known lets the adjoint skip shape bookkeeping (`rt.unbroadcast`) and saves. `tidy=False`
    skips the clean-up pass (to see what the templates produced). `check_nan`: check each
    gradient the backward sweeps write, callees' included (nancheck.py)."""
    key = (func, func.__code__, "adjoint", tuple(positions), kinds, tidy, check_nan,
           templates.generation())
    if key not in _done:
        _done[key] = _guarded(key, lambda: _adjoint(func, tuple(positions), kinds, tidy,
                                                    check_nan))
    return _done[key]


def gradient(func, positions, kinds=NO_KINDS, tidy=True, check_nan=False):
    """`adjoint`, for a function that must return a scalar (checked where the source shows it)."""
    generated = adjoint(func, positions, kinds, tidy, check_nan)
    returned = next((n for n in gast.walk(generated.source.tree) if isinstance(n, gast.Return)
                     and isinstance(n.value, gast.Tuple)), None)
    if returned is not None:
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
            why="only a function calling itself, with the same arguments differentiated, is "
                "supported; mutual recursion is not",
            fix="let one function call itself, or differentiate w.r.t. the same arguments in "
                "every recursive call")])
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


def _adjoint(func, positions, kinds, tidy, check_nan):
    source, callees = _prepare(func)
    params = [a.id for a in resolve.parameters(source.tree.args)]
    wrt = [params[i] for i in positions]
    namer = Namer(_all_names(source.tree) | RESERVED)
    exits.single_exit(source.tree, namer)
    body = normalize.normalize(source, namer)
    clogs.mark_integer_writes(body)
    useful = activity.analyse(body, wrt, params)
    found = clogs.find(source, body, wrt)
    bindings = [(name, primal(callee)) for name, callee in callees.items()]
    emitted = {callee: name for name, callee in callees.items()}
    adjoint_name = namer.fresh(f"d{func.__name__}")
    linked = {(func, positions): adjoint_name}  # recursion: the adjoint calls itself

    def link(callee, callee_positions, callee_kinds):
        key = (callee, callee_positions) if callee is func else \
            (callee, callee_positions, callee_kinds)
        if key not in linked:
            name = namer.fresh(f"d{emitted[callee]}")
            bindings.append((name, adjoint(callee, callee_positions, callee_kinds,
                                           check_nan=check_nan)))
            linked[key] = name
        return linked[key]

    function = reverse.reverse(source, body, wrt, namer, link, adjoint_name, kinds, check_nan)
    if tidy:
        function = optimize.tidy(function)
    what = f"reverse mode w.r.t. {', '.join(wrt)}" if wrt else "reverse mode"
    if check_nan:
        what += ", with NaN checks"
    python_only = _python_only(source, bindings)
    text = _module_text(source, what, bindings, function, python_only)
    suffix = "_checked" if check_nan else ""
    path = cache.store(f"{func.__name__}__d_{'_'.join(wrt)}{suffix}", text)
    for _, generated in bindings:
        found += [d for d in generated.clogs if d not in found]
    return Generated(path, function.name, text, source, python_only, tuple(found),
                     tuple(clogs.zero_gradients(source, wrt, useful)))


def _primal(func):
    source, callees = _prepare(func)
    normalize.strip_hooks(source.tree)  # they run in backward sweeps only
    bindings = [(name, primal(callee)) for name, callee in callees.items() if callee is not func]
    python_only = _python_only(source, bindings)
    text = _module_text(source, "primal copy for generated callers", bindings, source.tree,
                        python_only)
    path = cache.store(f"{func.__name__}__primal", text)
    return Generated(path, source.tree.name, text, source, python_only)


def _python_only(source, bindings):
    """The library functions this code (or a callee) calls whose rules are declared
    `numba=False`: the whole gradient then runs as Python."""
    found = []
    for node in gast.walk(source.tree):
        rule = templates.rule_for(getattr(node, "s2sad_ref", None))
        if rule is not None and not rule.numba:
            found.append(".".join(nodes.dotted_parts(node.func) or ["?"]))
    for _, generated in bindings:
        found += generated.python_only
    return tuple(sorted(set(found)))


def _module_text(source, what, bindings, function, python_only):
    header = (f"# Generated by s2sad {__version__} from {source.path}:{source.name} "
              f"(line {source.first_line}): {what}.\n"
              "# Do not edit: s2sad writes a new file when the source changes. "
              f"Source sha256: {source.sha256[:16]}\n")
    if python_only:
        header += (f"# Runs as Python, not Numba: Numba cannot compile {', '.join(python_only)} "
                   "(docs/coverage.md).\n")
    header += "import math\nimport numpy\nfrom s2sad import rt\n"
    links = "".join(f"{name} = rt.load(__name__, {_stem(generated)!r}, {generated.function!r})\n"
                    for name, generated in bindings)
    return header + links + "\n\n" + emit.function_source(function)


def _stem(generated):
    return os.path.splitext(os.path.basename(generated.path))[0]


def _all_names(tree):
    return {node.id for node in gast.walk(tree) if isinstance(node, gast.Name)}
