"""The stage order, written once: function object -> generated file.

    front:     parse -> desugar -> fence + resolve -> inline -> idioms -> constants
               -> containers -> static_tests -> exits -> normalize
    analysis:  (scalar_loops) -> activity -> clogs       (kinds, aliases ... asked on demand)
    generate:  reverse (or forward)
    tidy:      order.tidy
    emit:      printing -> cache (s2sad.runtime) -> index

`adjoint(f, positions)` generates `df(params..., d_result) -> (value, grads...)` for the
parameters at `positions` (reverse mode); `tangent(f, positions)` generates
`jvp_f(params..., tangents...) -> (value, tangent)` (forward mode: forward.py instead of
reverse.py); `primal(g)` generates a callable copy of a user function that an
adjoint calls in its forward sweep. Callees are generated recursively, each into its own file;
each (function, positions) is transformed once per process, and not at all when the index of
generated files (emit/index.py) has what an earlier process generated for it.
"""
import dataclasses
import functools
import os
import sys
import sysconfig

import gast

from s2sad import templates
from s2sad.errors import (ArgumentError, Diagnostic, InternalError, S2sadError, TemplateError,
                          UnsupportedError)
from s2sad.runtime import cache, rt, syntax_lock
from s2sad.version import __version__

from . import facts
from . import nodes
from .front import (
    container_arguments,
    constants,
    containers,
    desugar,
    exits,
    fence,
    idioms,
    inline,
    kind_tests,
    normalize,
    parse,
    resolve,
    static_tests,
    unresolved,
)
from .analysis import activity, clogs, returns
from .generate import checkpoint, effects, forward, raise_messages, replay, reverse, scalar_loops
from .tidy import order
from .emit import index, printing
from .naming import Namer

# Module-level names of every generated file; user names that collide are avoided by the namer.
RESERVED = {"math", "numpy", "rt"}


@dataclasses.dataclass(frozen=True)
class Generated:
    path: str          # the generated file
    function: str      # the function's name inside it
    text: str
    parsed: object     # the parse.SourceFunction it was generated from; from the index, the
                       # user function (parsed when `source` is first asked for)
    python_only: tuple = ()   # functions whose rules Numba cannot compile, callees' included
    clogs: tuple = ()         # warnings where the gradient stops (clogs.py), callees' included
    unused: tuple = ()        # warnings for `wrt` parameters the output does not depend on
    outputs: int = 0          # how many values the function returns: 0 for one, n for a tuple
    scalar: bool = False      # known to have no `return` of a tuple (from the index)

    @property
    def source(self):
        """The parse.SourceFunction of the function it was generated from."""
        if not isinstance(self.parsed, parse.SourceFunction):
            object.__setattr__(self, "parsed", parse.parse_function(self.parsed))
        return self.parsed


# One transformation at a time in a process: threads asking for the same function wait for the
# first one's result (the memo), and `_in_progress` holds only the transforming thread's keys,
# so a function another thread is transforming is never taken for one calling itself.
_LOCK = syntax_lock.LOCK   # (also held where the runtime parses: CPython's AST state is shared)


def _serialised(entry):
    @functools.wraps(entry)
    def locked(*args, **kwargs):
        with _LOCK:
            return entry(*args, **kwargs)
    return locked


_done = {}             # (function, code, what, ...) -> Generated: the per-process memo
_in_progress = set()
_seen = set()          # (code, what) this process looked up in the index or transformed
STATS = {"transformed": 0, "from index": 0}   # counts, for tests and measurements


@_serialised
def forget(functions):
    """Drop what was generated from any of `functions` (their globals or callees changed)."""
    ids = {id(f) for f in functions}
    for key in [k for k in _done if id(container_arguments.original(k[0])) in ids]:
        del _done[key]
    replay.forget()


# (Python scalars, ints, (array, ndim) pairs, (container parameter, spec) pairs)
NO_KINDS = (frozenset(), frozenset(), frozenset(), ())


@_serialised
def adjoint(func, positions, kinds=NO_KINDS, tidy=True, check_nan=False, quiet=False):
    """The generated adjoint of `func` w.r.t. the parameters at `positions` (a tuple of ints).
    `kinds`: (names of parameters known to be Python scalars, those known to be ints); what is
    known lets the adjoint skip shape bookkeeping (`rt.unbroadcast`) and saves. `tidy=False`
    skips the clean-up pass (to see what the templates produced). `check_nan`: check each
    gradient the backward sweeps write, callees' included (nancheck.py). `quiet`: leave out
    the function's prints (a callee's adjoint: its primal copy printed already)."""
    func = parse.named(func)
    kinds = _with_structures(func, kinds)
    key = (func, func.__code__, "adjoint", tuple(positions), kinds, tidy, check_nan, quiet,
           templates.generation())
    if key not in _done:
        _done[key] = _indexed(key, lambda: _adjoint(func, tuple(positions), kinds, tidy,
                                                    check_nan, quiet))
    return _done[key]


@_serialised
def gradient(func, positions, kinds=NO_KINDS, tidy=True, check_nan=False):
    """`adjoint`, for a function that must return a scalar (checked where the source shows it)."""
    generated = adjoint(func, positions, kinds, tidy, check_nan)
    returned = _tuple_return(generated)
    if returned is not None:
        raise UnsupportedError([Diagnostic(
            generated.source.loc(returned), f"'{func.__name__}' returns a tuple; a gradient "
            "needs a scalar output",
            why="a gradient is the derivative of one number; for several outputs it is not "
                "defined",
            fix="return one scalar (e.g. the sum of the parts); vector-Jacobian products of "
                "tuple outputs are not supported yet")])
    return generated


def _tuple_return(generated):
    """A `return` of a tuple in the source (after the pipeline's rewriting), or None."""
    if generated.scalar:
        return None
    return next((n for n in nodes.walk(generated.source.tree) if isinstance(n, gast.Return)
                 and isinstance(n.value, gast.Tuple)), None)


@_serialised
def tangent(func, positions, kinds=NO_KINDS):
    """The generated tangent (forward-mode) function of `func` for tangents of the parameters at
    `positions`; `kinds` as for `adjoint`."""
    func = parse.named(func)
    kinds = _with_structures(func, kinds)
    key = (func, func.__code__, "tangent", tuple(positions), kinds, templates.generation())
    if key not in _done:
        _done[key] = _indexed(key, lambda: _tangent(func, tuple(positions), kinds))
    return _done[key]


@_serialised
def primal(func):
    """A generated copy of `func` that generated code (and Numba) can call."""
    func = parse.named(func)
    key = (func, func.__code__, "primal", container_arguments.structures_of(func),
           facts.TYPES.of(func), templates.generation())
    if key not in _done:
        _done[key] = _indexed(key, lambda: _primal(func))
    return _done[key]


def _with_structures(func, kinds):
    """`kinds` with the structures a specialised copy of a function was made for
    (container_arguments.py), and the kinds of the arguments its caller passes
    (kind_tests.typed_calls)."""
    structures = container_arguments.structures_of(func)
    given = facts.TYPES.of(func)
    if structures:
        kinds = tuple(kinds[:3]) + (structures,) + tuple(kinds[4:5])
    if given:
        kinds = tuple(kinds[:4]) + NO_KINDS[len(kinds):4] + \
            (frozenset(kinds[4] if len(kinds) > 4 else ()) | given,)
    return kinds


def _indexed(key, build):
    """What the index of generated files holds for `key` (a memo key: function, code, mode,
    options..., rules' generation), else `build()` guarded, then filed in the index. The index
    is for what other processes generated: asked again for code it has seen (its memo dropped
    by `forget`, a copy of the function), a process transforms again."""
    func, what = key[0], _plain_key(key[2:-1])
    seen = (func.__code__, what) in _seen
    _seen.add((func.__code__, what))
    found_key = index.key(func, what) if key not in _in_progress else None
    found = index.find(found_key) if found_key is not None and not seen else None
    if found is not None:
        STATS["from index"] += 1
        return Generated(found.path, found.function, found.text, func, found.python_only,
                         found.clogs, found.unused, found.outputs, found.scalar)
    generated = _guarded(key, build)
    if found_key is not None:
        scalar = what[0] == "adjoint" and _tuple_return(generated) is None
        if scalar or what[0] != "adjoint":  # (gradient() reads a tuple's tree for its error)
            index.record(found_key, generated, scalar)
    return generated


def _plain_key(parts):
    """A memo key's mode and options with sets sorted: the same in every process."""
    return tuple(tuple(sorted(map(repr, p))) if isinstance(p, frozenset) else
                 _plain_key(p) if isinstance(p, tuple) else p for p in parts)


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
    STATS["transformed"] += 1
    try:
        return build()
    except S2sadError:
        raise
    except Exception as exc:  # a bug in a stage: say so, instead of a bare traceback
        raise InternalError(f"transforming {key[0].__qualname__} failed: "
                            f"{type(exc).__name__}: {exc}") from exc
    finally:
        _in_progress.discard(key)


def _prepare(func, kinds=NO_KINDS, procedure=False):
    """Parse, then collect every fence and name problem before giving up. Returns the source,
    the callees, the external functions, and {parameter: the function's own parameter it is}
    (a container parameter is one parameter per leaf; `positions` index those)."""
    source = parse.parse_function(func)
    kind_tests.fold(source, kinds)
    desugar.desugar(source)
    problems = fence.find_problems(source)
    if not procedure:  # (a check returning nothing is called for its effects: primal only)
        problems += fence.returns_nothing(source)
    structures = kinds[3] if len(kinds) > 3 else ()
    resolution = resolve.resolve(source, resolve.classes_of(structures),
                                 resolve.functions_given(structures))
    problems += resolution.diagnostics
    if problems:
        problems += container_arguments.unknown_fields(source, structures)
        problems.sort(key=lambda d: (d.where.line, d.where.col))
        raise UnsupportedError(problems)
    callees = inline.inline(source, resolution.callees)
    idioms.rewrite(source.tree)
    callees = kind_tests.typed_calls(source, kinds, callees)
    inputs = [name for name, _ in constants.inputs(func)]
    copies = constants.attach(source, inputs, {f: [n for n, _ in constants.inputs(f)]
                                               for f in callees.values()})
    callees = {name: copies.get(f, f) for name, f in callees.items()}
    own = [a.id for a in resolve.parameters(source.tree.args)]
    leaves, specialised = containers.scalarize(source, structures, constants.containers(func),
                                               kinds)
    static_tests.fold(source.tree)
    problems = exits.mixed_returns(source)
    if problems:
        raise UnsupportedError(problems)
    # calls passing containers now call copies specialised on them; callees put in place
    # (container_calls.py) are called no more, and theirs are called instead
    called = {facts.REF.of(n) for n in nodes.walk(source.tree)
              if isinstance(n, gast.Call) and facts.USER.of(n)}
    callees = {name: f for name, f in {**callees, **specialised}.items() if f in called}
    return source, callees, resolution.externals, {leaf: p for p in own
                                                    for leaf in leaves.get(p, [p])}


@dataclasses.dataclass(frozen=True)
class External:
    """A function generated code imports as it is: one with a user-registered rule
    (`@s2sad.adjoint(f)`), or a function such a rule's template calls."""
    module: str
    qualname: str
    python_only: tuple = ()   # itself, when Numba cannot call it
    clogs: tuple = ()
    digest: str = ""          # of its code: a changed function gives its callers new files
    cached: bool = False      # an lru_cache'd helper: rt.cached_call (runtime/cached_calls.py)


@dataclasses.dataclass(frozen=True)
class CalledAs:
    """A library function whose rule names the `rt` helper generated code calls in its place
    (`call_as=`, e.g. scipy.special.gammaln: `rt.gammaln`, which Numba compiles)."""
    helper: str               # its name in rt
    spelled: str              # the function's own name, for the comment
    python_only: tuple = ()
    clogs: tuple = ()


def _external_bindings(externals, function=None):
    """Bindings for the functions with user rules that the code calls, and for the functions
    their templates call in `function` (the generated FunctionDef): the rt helper a rule names
    for it (`call_as`), a generated primal copy when s2sad can read the function (Numba then
    compiles it), else an import (Numba calls a numba.njit function; anything else makes the
    code run as Python)."""
    wanted = dict(externals)
    if function is not None:
        for node in nodes.walk(function):
            if facts.EXTERNAL.of(node) is not None:
                wanted.setdefault(node.id, (facts.EXTERNAL.of(node), None))
    out = []
    for name, (func, location) in wanted.items():
        rule = templates.rule_for(func)
        if rule is not None and rule.call_as is not None:
            out.append((name, _called_as(rule.call_as, func, location)))
            continue
        if resolve.is_user_function(func):
            try:
                out.append((name, primal(func)))
                continue
            except S2sadError:
                pass  # not in the supported subset: import it as it is
        module, path = location or _importable(func)
        cached = isinstance(func, functools._lru_cache_wrapper)  # run as Python: cached_calls.py
        jitted = hasattr(func, "py_func") or cached  # a numba dispatcher
        out.append((name, External(module, path, () if jitted else (f"{module}.{path}",), (),
                                   _code_digest(func), cached)))
    return out


def _called_as(helper, func, location):
    if getattr(rt, helper.__name__, None) is not helper:
        raise InternalError(f"call_as={helper!r} (the rule of {func!r}) is not a helper of rt")
    module, path = location or _importable(func)
    return CalledAs(helper.__name__, f"{module}.{path}")


def _importable(func):
    """(module, attribute path) under which `func` can be imported."""
    module, path = getattr(func, "__module__", None), getattr(func, "__qualname__", None)
    if module and path:
        return module, path
    name = getattr(func, "__name__", None)
    for module_name, candidate in list(sys.modules.items()):  # ufuncs say neither
        if name and getattr(candidate, name, None) is func and not module_name.startswith("_"):
            return module_name, name
    raise ArgumentError(f"s2sad cannot find where to import {func!r} from, to call it from "
                        "generated code; call it as module.function in the differentiated code")


def _code_digest(func):
    """A short hash of a function's source (or bytecode), '' if it has neither."""
    import hashlib
    import inspect
    func = getattr(func, "py_func", func)
    try:
        text = inspect.getsource(func).encode()
    except (OSError, TypeError):
        code = getattr(func, "__code__", None)
        text = code.co_code + repr(code.co_consts).encode() if code is not None else b""
    return hashlib.sha256(text).hexdigest()[:16] if text else ""


def _adjoint(func, positions, kinds, tidy, check_nan, quiet=False):
    source, callees, externals, owners = _prepare(func, kinds)
    params = [a.id for a in resolve.parameters(source.tree.args)]
    wrt = [params[i] for i in positions]
    namer = Namer(_all_names(source.tree) | RESERVED)
    exits.single_exit(source.tree, namer)
    body = normalize.normalize(source, namer)
    scalar_loops.rewrite(body, namer, kinds, returns.of_call)
    replay.mark(body, namer)  # callees that draw: their samples again in their adjoint
    clogs.mark_integer_writes(body)
    useful = activity.analyse(body, wrt, params)
    found = clogs.find(source, body, wrt)
    bindings = [(name, _of_callee(source, callee, lambda c=callee: primal(c)))
                for name, callee in callees.items()]
    emitted = {callee: name for name, callee in callees.items()}
    adjoint_name = namer.fresh(f"d{func.__name__}")
    linked = {(func, positions): adjoint_name}  # recursion: the adjoint calls itself

    def link(callee, callee_positions, callee_kinds):
        key = (callee, callee_positions) if callee is func else \
            (callee, callee_positions, callee_kinds)
        if key not in linked:
            name = namer.fresh(f"d{emitted[callee]}")
            bindings.append((name, _of_callee(source, callee, lambda: adjoint(
                callee, callee_positions, callee_kinds, check_nan=check_nan, quiet=True))))
            linked[key] = name
        return linked[key]

    function = reverse.reverse(source, body, wrt, namer, link, adjoint_name, kinds, check_nan)
    effects.restore(function, quiet)
    if tidy:
        function = order.tidy(function)
    raise_messages.rewrite(function)
    bindings += _external_bindings(externals, function)
    what = f"reverse mode w.r.t. {', '.join(wrt)}" if wrt else "reverse mode"
    if check_nan:
        what += ", with NaN checks"
    python_only = _python_only(source, bindings, body)
    text = _module_text(source, what, bindings, function, python_only)
    suffix = "_checked" if check_nan else ""
    path = cache.store(f"{func.__name__}__d_{_stem_of(wrt, owners)}{suffix}", text)
    for _, generated in bindings:
        found += [d for d in generated.clogs if d not in found]
    return Generated(path, function.name, text, source, python_only, tuple(found),
                     tuple(clogs.zero_gradients(source, wrt, useful)))


def _tangent(func, positions, kinds):
    source, callees, externals, owners = _prepare(func, kinds)
    normalize.strip_hooks(source.tree)  # they run in backward sweeps only
    checkpoint.strip(source.tree)  # forward mode stores nothing: a plain loop
    params = [a.id for a in resolve.parameters(source.tree.args)]
    wrt = [params[i] for i in positions]
    namer = Namer(_all_names(source.tree) | RESERVED)
    exits.single_exit(source.tree, namer)
    body = normalize.normalize(source, namer)
    scalar_loops.rewrite(body, namer, kinds, returns.of_call)
    clogs.mark_integer_writes(body)
    useful = activity.analyse(body, wrt, params)
    found = clogs.find(source, body, wrt)
    # a recursive call whose arguments carry no tangent runs the primal copy of func itself
    bindings = [(name, _of_callee(source, callee, lambda c=callee: primal(c)))
                for name, callee in callees.items()]
    emitted = {callee: name for name, callee in callees.items()}
    tangent_name = namer.fresh(f"jvp_{func.__name__}")
    returned = body[-1].value
    outputs = len(returned.elts) if isinstance(returned, gast.Tuple) else 0
    linked = {(func, positions): (tangent_name, outputs)}  # recursion: it calls itself

    def link(callee, callee_positions, callee_kinds):
        key = (callee, callee_positions) if callee is func else \
            (callee, callee_positions, callee_kinds)
        if key not in linked:
            name = namer.fresh(f"jvp_{emitted[callee]}")
            generated = _of_callee(source, callee,
                                   lambda: tangent(callee, callee_positions, callee_kinds))
            bindings.append((name, generated))
            linked[key] = (name, generated.outputs)
        return linked[key]

    function = forward.forward(source, body, wrt, namer, link, tangent_name, kinds)
    effects.restore(function)
    function = order.tidy(function)
    raise_messages.rewrite(function)
    bindings += _external_bindings(externals, function)
    what = f"forward mode w.r.t. {', '.join(wrt)}" if wrt else "forward mode"
    python_only = _python_only(source, bindings, body)
    text = _module_text(source, what, bindings, function, python_only)
    path = cache.store(f"{func.__name__}__jvp_{_stem_of(wrt, owners)}", text)
    for _, generated in bindings:
        found += [d for d in generated.clogs if d not in found]
    return Generated(path, function.name, text, source, python_only, tuple(found),
                     tuple(clogs.zero_gradients(source, wrt, useful)), outputs)


def _primal(func):
    source, callees, externals, _ = _prepare(func, _with_structures(func, NO_KINDS),
                                             procedure=True)
    normalize.strip_hooks(source.tree)  # they run in backward sweeps only
    checkpoint.strip(source.tree)  # `for i in range(n):`: a checkpoint is a gradient matter
    if _loops_over_displays(source.tree):
        # unrolled as in the differentiated code: Numba cannot iterate a tuple of arrays of
        # different layouts
        exits.single_exit(source.tree, Namer(_all_names(source.tree) | RESERVED))
        for loop in nodes.walk(source.tree):
            if facts.EXITS.of(loop):  # (the forward sweep adds these itself)
                loop.body.append(checkpoint.exit_test(facts.EXITS.of(loop), loop.body))
    bindings = [(name, primal(callee)) for name, callee in callees.items() if callee is not func]
    bindings += _external_bindings(externals)
    python_only = _python_only(source, bindings)
    raise_messages.rewrite(source.tree)
    text = _module_text(source, "primal copy for generated callers", bindings, source.tree,
                        python_only)
    path = cache.store(f"{func.__name__}__primal", text)
    return Generated(path, source.tree.name, text, source, python_only)


def _loops_over_displays(tree):
    """Whether `tree` has a `for` over a tuple or list display, or a name assigned one."""
    displays = {t.id for n in nodes.walk(tree) if isinstance(n, gast.Assign)
                and isinstance(n.value, (gast.Tuple, gast.List)) for t in n.targets
                if isinstance(t, gast.Name)}
    return any(isinstance(n, gast.For) and (isinstance(n.iter, (gast.Tuple, gast.List)) or
                                            isinstance(n.iter, gast.Name) and n.iter.id in displays)
               for n in nodes.walk(tree))


def _of_callee(source, callee, make):
    """`make()`, the generated code of a function `source` calls; when that function is a
    library's (installed code, not the user's) and s2sad cannot differentiate its source, one
    error at the call naming the function and how to give it a rule, instead of the
    problems found inside the library."""
    try:
        return make()
    except (UnsupportedError, TemplateError) as exc:
        original = container_arguments.original(callee)
        call = next((n for n in nodes.walk(source.tree) if isinstance(n, gast.Call) and
                     container_arguments.original(facts.REF.of(n)) is original), None)
        if call is not None and _is_written_out(original):  # (scipy.stats.t.cdf: at the call)
            raise type(exc)([dataclasses.replace(d, where=source.loc(call))
                             for d in exc.diagnostics]) from None
        if not _is_library(original):
            raise
        name = f"{original.__module__}.{original.__qualname__}"
        first = exc.diagnostics[0].message if exc.diagnostics else str(exc)
        raise UnsupportedError([Diagnostic(
            source.loc(call) if call is not None else parse.code_location(source.func),
            f"no derivative rule for {name}, and s2sad cannot differentiate its source",
            why=f"{name} is library code; s2sad read it and found {len(exc.diagnostics)} "
                f"construct(s) it does not support (the first: {first})",
            fix=f"register a rule (docs/rules.md: 'Adding a derivative'):\n"
                f"    @s2sad.adjoint({name})\n"
                f"    def {original.__name__}_adjoint(result, x, ...):\n"
                f"        d[x] = d[result] * ...\n"
                "or compute this value outside the differentiated function")]) from None


def _is_written_out(func):
    """One of s2sad's own functions standing for a library's (templates/scipy_stats.py): what
    goes wrong in it is said at the user's call."""
    return getattr(func, "__module__", "").startswith(templates.__name__ + ".")


def _is_library(func):
    """Installed code (site-packages, the standard library), not the user's own."""
    path = os.path.realpath(getattr(getattr(func, "__code__", None), "co_filename", "") or "")
    roots = {os.path.realpath(p) for key in ("purelib", "platlib", "stdlib")
             for p in [sysconfig.get_paths().get(key)] if p}
    return "site-packages" in path.split(os.sep) or "dist-packages" in path.split(os.sep) or \
        any(path.startswith(root + os.sep) for root in roots)


def _python_only(source, bindings, body=None):
    """The library functions this code (or a callee) calls whose rules are declared
    `numba=False`, and f-strings (which Numba formats differently): the whole gradient then
    runs as Python."""
    found = []
    messages = {id(part) for top in [source.tree, *(body or ())] for n in nodes.walk(top)
                for part in nodes.walk(raise_messages.formatted_message(n) or gast.Pass())}
    for node in nodes.walk(source.tree):
        rule = templates.rule_for(facts.REF.of(node))
        if rule is not None and not rule.numba:
            found.append(".".join(nodes.dotted_parts(node.func) or ["?"]))
        if isinstance(node, gast.JoinedStr) and id(node) not in messages:
            # Numba formats floats as "<object type:...>" (a raise's: in object mode)
            found.append("f-strings")
        if facts.DRAW.of(node) and not unresolved.compiled_draw(node):
            found.append("numpy.random draws")
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
    header += "import math\nimport numpy\nfrom s2sad.runtime import rt\n"
    links = "".join(
        f"{name} = rt.{generated.helper}  # {generated.spelled}, as s2sad's own code\n"
        if isinstance(generated, CalledAs) else
        f"{name} = rt.{'cached_call' if generated.cached else 'external'}"
        f"({generated.module!r}, {generated.qualname!r})"
        f"{f'  # code sha256: {generated.digest}' if generated.digest else ''}\n"
        if isinstance(generated, External) else
        f"{name} = rt.load(__name__, {_stem(generated)!r}, {generated.function!r})\n"
        for name, generated in bindings)
    return header + links + "\n\n" + printing.function_source(function)


def _stem_of(wrt, owners):
    """The parameters `wrt` names, for a file name (a container's, not its leaves)."""
    return "_".join(dict.fromkeys(owners.get(name, name) for name in wrt))


def _stem(generated):
    return os.path.splitext(os.path.basename(generated.path))[0]


def _all_names(tree):
    return {node.id for node in nodes.walk(tree) if isinstance(node, gast.Name)}
