"""What every function s2sad makes shares: `Transformed` (transform on first use, one generated
file and one runner per kind of arguments), and the conversions of the user's arguments for a
call of generated code (checked, flattened, to float64), with errors located at the user's call;
results.py checks and shapes what the call returns.
"""
import dataclasses
import difflib
import functools
import inspect
import numbers
import warnings

import numpy

from s2sad.errors import (
    ArgumentError,
    Diagnostic,
    GradientCutError,
    GradientCutWarning,
    S2sadError,
    UnsupportedError,
    ZeroGradientWarning,
    call_site,
)
from s2sad.runtime import tiers
from s2sad.runtime.tiers import jit_default
from s2sad.runtime.jit import TIERED, Runner, type_key
from s2sad.transform.front import constants, container_arguments, fence, global_state, parse, \
    resolve
from s2sad.transform import pipeline
from s2sad.transform.front import known_kinds

from . import binding, pytrees


class Transformed:
    """What every function s2sad makes shares: the differentiated function, its `wrt`
    positions, generated files specialised on which arguments are Python scalars and ints,
    and one Runner (compiled or Python) per specialisation. `.path` is the generated file the
    last call ran, `.source` its text."""

    kind = "grad"
    what = "gradient"   # for messages: "the gradient of f"

    def __init__(self, func, wrt, jit, strict=False):
        self.given = func                  # what the user gave (grad(grad(m.f)) unbinds it)
        self.bound = binding.unbind(func)  # a method, a callable object, a partial
        if not self.bound.plain:
            signature = inspect.signature(self.bound.func)
            wrt = [binding.position(func, self.bound, signature, w) for w in wrt] \
                if isinstance(wrt, (tuple, list)) else \
                binding.position(func, self.bound, signature, wrt)
            func = self.bound.func
        func = self.bound.func  # (a library function: one calling it, library_functions.py)
        check_function(func, type(self).kind)
        if jit not in (None, True, False):
            raise argument_error(f"jit={jit!r}: expected True, False or None",
                                 why="jit=True compiles the gradient with Numba, jit=False runs "
                                     "it as Python",
                                 fix="None (the default) compiles unless S2SAD_DISABLE_JIT=1")
        self.func = func
        self.signature = inspect.signature(func)
        self.positions, self.single = positions_of(func, self.signature, wrt)
        self.jit, self.strict = jit, strict
        if jit is None and jit_default():
            tiers.warm()   # a worker starts importing Numba while f is transformed
        functools.update_wrapper(self, func)
        self._runners = {}
        self._kinds = pipeline.NO_KINDS
        self._globals = None      # what func and its callees read, when last transformed
        self._watch = None        # a quick test that none of that was rebound since
        self._by_key = {}         # jit.type_key(arguments) -> their Runner: the call path
        self._fast = {}           # type_key(the user's arguments) -> (compiled, Runner): `fast`
        self._checked_uses = False
        self._inputs = None       # the module constants it reads (constants.py), or None
        self._taken = None        # the names its code uses (leaf parameters avoid them)

    def __getstate__(self):
        """Pickled after its first call, it carries its Runners and their generated files: the
        unpickled function runs without transforming again (a Dask worker may not even have
        the source). What watches the globals of this process is made again there."""
        return dict(self.__dict__, _globals=None, _watch=None, _by_key={}, _fast={},
                    _inputs=None)

    drops_value = True  # its result leaves out the value, the generated function's first

    def generated_arguments(self, args, kwargs, batched=False):
        """(`bind`'s Arguments, what follows them) for a call with these arguments: the
        generated function is called with both. `batched` (s2sad.vmap): the arguments have a
        leading batch axis, so shapes are not checked against each other."""
        raise NotImplementedError

    def build(self, kinds):
        """The Generated file for these kinds (subclasses: which pipeline entry)."""
        raise NotImplementedError

    @property
    def generated(self):
        """The generated code: the one the last call ran (it is specialised on which arguments
        are Python scalars and ints), or before any call a general one."""
        return self.build(self._kinds)

    @property
    def path(self):
        return self.generated.path

    @property
    def source(self):
        return self.generated.text

    @property
    def runs_compiled(self):
        """Whether calls like the last one run Numba's code yet (docs/tiers.md)."""
        runner = self._runners.get(self._kinds)
        return runner is not None and runner.runs_compiled

    def wait_compiled(self):
        """Wait for the background compiles (before timing calls); True if all compiled."""
        return all([runner.wait_compiled() for runner in list(self._runners.values())])

    @property
    def wrt_names(self):
        names = list(self.signature.parameters)
        return [names[i] for i in self.positions]

    def __repr__(self):
        return f"<s2sad {self.kind} of {self.func.__qualname__} w.r.t. " \
               f"{', '.join(self.wrt_names)}>"

    def bind(self, args, kwargs):
        """The generated function's arguments (`Arguments`): the function's own in order,
        defaults applied, containers as their leaves, `wrt` ones as floats, then the current
        values of the module constants it reads."""
        args, kwargs = binding.arguments(self.bound, args, kwargs)
        values = bind_arguments(self.func, self.signature, self.positions, args, kwargs)
        return self.flat(values, binding.defaulted(self.signature, args, kwargs)) + \
            self.constant_values()

    def leaf_positions(self, kinds):
        """`positions` in the generated function's parameters: a container parameter (kinds'
        structures) counts one per leaf."""
        structures = dict(kinds[3]) if len(kinds) > 3 else {}
        if not structures:
            return self.positions
        starts, k = [], 0
        for name in self.signature.parameters:
            spec = structures.get(name)
            count = len(pytrees.leaf_names(spec)) if spec is not None else 1
            starts.append(range(k, k + count))
            k += count
        return tuple(j for i in self.positions for j in starts[i])

    def flat(self, values, defaulted=()):
        """`values` (the function's own arguments) as the generated function takes them;
        `defaulted`: the names of the parameters the call left to their defaults."""
        names = list(self.signature.parameters)
        statics = binding.static_arguments(names, values, self.positions, defaulted)
        if not statics and not any(pytrees.is_container(v) or resolve.is_function_value(v)
                                   for v in values):
            return pytrees.Arguments(values, pytrees.plain_layout(names, values, self.positions))
        if self._taken is None:
            self._taken = container_arguments.code_names(self.user_function())
        cells = []
        flat, layout = flatten_arguments(names, values, self.positions, set(self._taken), cells,
                                         statics)
        return pytrees.Arguments(flat, layout, cells)

    def constants(self):
        """(name, reader) of each module constant the function reads: generated code takes
        them after the function's own parameters (transform/constants.py)."""
        if self._inputs is None:
            self._inputs = constants.inputs(self.user_function())
        return self._inputs

    def constant_values(self):
        """The current values of the module constants it reads, as `Arguments` (without a
        layout) that carry the cells of module objects' fields (`Arguments.write_back`)."""
        values, cells = [], []
        for _, read in self.constants():
            value = read()
            if isinstance(value, pytrees.Cell):
                cells.append(value)
                value = value.array
            values.append(value)
        return pytrees.Arguments(values, None, cells)

    def parameter_names(self, layout):
        """The generated function's parameters before its seed (tangents or d_result)."""
        return layout.names + [name for name, _ in self.constants()]

    def fast(self, args, kwargs):
        """The compiled generated function for a call whose arguments need nothing done to
        them (given by position, none missing, no container, the `wrt` ones floats or float64
        arrays already, nothing the function reads rebound since), or None. Half the time of
        a small gradient went into converting arguments that needed no conversion."""
        if kwargs or not self._fast or not self.bound.plain:
            return None
        found = self._fast.get(type_key(args))
        if found is None or not self._watch.unchanged():
            return None
        self._kinds = found[1].kinds
        return found[0]

    def remember_fast(self, args, kwargs, values, extras, runner):
        """After a call through `bind` and `runner`: if it used the arguments as given, the
        next call with arguments of the same types can skip both (`fast`)."""
        if kwargs or not binding.left_plain(values.layout, self.signature, len(args)) or \
                len(args) + len(self.constants()) != len(values) or \
                any(a is not v for a, v in zip(args, values)):
            return
        compiled = runner.compiled(list(values) + list(extras))
        key = type_key(args)
        if compiled is not None and key is not None:
            self._fast[key] = (compiled, runner)

    def runner(self, values):
        """The Runner for these arguments' kinds (transforming on first use); `values` are
        what `bind` returned."""
        layout = values.layout
        key = type_key(values)
        if key is not None and not layout.plain:
            key = (layout.structures, key)
        if key is not None and self._watch is not None and self._watch.unchanged():
            runner = self._by_key.get(key)
            if runner is not None:
                self._kinds = runner.kinds
                return runner
        self._forget_if_globals_changed()
        if not self._checked_uses:
            reject_integer_uses(self.func, self.positions)
            self._checked_uses = True
        names = self.parameter_names(layout)
        self._kinds = (
            frozenset(n for n, v in zip(names, values) if is_number(v)),
            frozenset(n for n, v in zip(names, values)
                      if is_number(v) and isinstance(v, numbers.Integral)),
            frozenset((n, v.ndim) for n, v in zip(names, values)
                      if isinstance(v, numpy.ndarray) and v.ndim > 0),
            layout.structures, known_kinds.of_arguments(names, values))
        runner = self._runners.get(self._kinds)
        if runner is None:
            generated = self.generated
            report_clogs(generated, self.strict)
            jit = self.jit if self.jit is not None else \
                (TIERED if tiers.enabled() else True) if jit_default() else False
            runner = self._runners[self._kinds] = Runner(
                generated.path, generated.function, jit,
                f"the {self.what} of {self.func.__qualname__}", generated.python_only)
            runner.kinds = self._kinds
        if key is not None:
            self._by_key[key] = runner
        return runner

    def user_function(self):
        """The function the user gave (self.func may be a generated one built from it)."""
        return self.func

    def rebuild(self):
        """Build again what was built from the user's function (after its globals changed)."""

    def _forget_if_globals_changed(self):
        """Numbers read from globals are inlined and callees are bound when f is transformed:
        if one was rebound since, transform again instead of running a stale gradient."""
        watched = self.user_function()
        state = global_state.global_state(watched)
        memo = _memo_states.get(watched)
        if memo is not None and not global_state.same_state(state, memo):
            pipeline.forget(global_state.functions_of(state) + global_state.functions_of(memo))
        _memo_states[watched] = state
        if self._globals is not None and not global_state.same_state(state, self._globals):
            self._runners.clear()
            self.rebuild()
        self._by_key.clear()
        self._fast.clear()
        self._inputs = None
        self._taken = None
        self._globals = state
        self._watch = global_state.Watch(state)


# user function -> what it read from globals when the pipeline's memo of it was filled
_memo_states = {}


_reported = set()  # (location, message): each finding is reported once per process


def report_clogs(generated, strict):
    """Warn (once each) about the places where the gradient stops, or raise if `strict`."""
    findings = list(generated.clogs) + list(generated.unused)
    if strict and findings:
        raise GradientCutError([dataclasses.replace(f, severity="error") for f in findings])
    for finding in findings:
        key = (str(finding.where), finding.message)
        if key in _reported:
            continue
        _reported.add(key)
        category = ZeroGradientWarning if finding in generated.unused else GradientCutWarning
        warnings.warn_explicit(finding.render(), category, finding.where.path,
                               finding.where.line)


def is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, numpy.bool_))


# ---- argument errors: at the user's call, with the fix -----------------------------------------

def argument_error(message, why="", fix=""):
    """An ArgumentError located at the user's call into s2sad (`s2sad.grad(...)`, `df(...)`)."""
    return ArgumentError([at_call(message, why, fix)])


def at_call(message, why="", fix=""):
    return Diagnostic(call_site(), message, why=why, fix=fix)


def short_repr(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _defined_at(func):
    where = parse.code_location(func)
    return f"{func.__name__} ({where.path}:{where.line})" if where.line else func.__name__


def check_function(func, kind):
    """Only plain Python functions with named parameters can be differentiated."""
    if inspect.ismethod(func):
        raise argument_error(f"{func.__qualname__} is a bound method",
                             why="s2sad differentiates a function of its arguments; a method "
                                 "also reads its object",
                             fix="differentiate a plain function and pass the object's data as "
                                 f"arguments, or differentiate {func.__qualname__} unbound with "
                                 "the object as an argument that is not in wrt")
    if isinstance(func, Transformed):
        raise argument_error(f"s2sad.{kind}() cannot take {func!r}",
                             why="s2sad reads Python source, and this is a function s2sad made",
                             fix="higher derivatives: s2sad.grad(s2sad.grad(f)) for a scalar "
                                 "parameter, s2sad.hessian(f) and s2sad.hvp(f) otherwise")
    if not inspect.isfunction(func):
        wrapped = getattr(func, "py_func", None) or getattr(func, "func", None)
        hint = f" (the Python function it wraps is {short_repr(wrapped)})" \
            if inspect.isfunction(wrapped) else ""
        raise argument_error(
            f"s2sad can only differentiate Python functions, not {short_repr(func)}{hint}",
            why="s2sad reads a function's Python source; builtins, NumPy ufuncs, C extensions, "
                "partials and callable objects have none it can read",
            fix="wrap the call in a `def` (def f(x): return numpy.sin(x)) and differentiate "
                "that; a library function without a rule gets one with @s2sad.adjoint")
    kinds = {p.kind for p in inspect.signature(func).parameters.values()}
    if inspect.Parameter.VAR_KEYWORD in kinds:  # (*args: a tuple argument)
        raise UnsupportedError(fence.find_problems(parse.parse_function(func)))


def positions_of(func, signature, wrt):
    names = list(signature.parameters)
    single = not isinstance(wrt, (tuple, list))
    items = [wrt] if single else list(wrt)
    takes = f"{_defined_at(func)} takes {', '.join(names) or 'no parameters'}"
    if not items:
        raise argument_error("wrt is empty: name at least one parameter to differentiate",
                             why=takes, fix="wrt=0 (the default) differentiates the first one")
    positions = []
    for item in items:
        if isinstance(item, str) and item in names:
            position = names.index(item)
        elif isinstance(item, numbers.Integral) and not isinstance(item, bool) and \
                -len(names) <= item < len(names):
            position = int(item) % len(names)
        else:
            raise argument_error(
                f"wrt={item!r} does not name a parameter of {func.__name__}; its parameters "
                f"are {', '.join(names) or '(none)'}", why=takes, fix=_wrt_fix(item, names))
        if positions.count(position):
            raise argument_error(f"wrt names the parameter '{names[position]}' twice",
                                 why="each parameter gets one gradient",
                                 fix="name each parameter once")
        positions.append(position)
    return tuple(positions), single


def _wrt_fix(item, names):
    if not names:
        return "give the function a parameter to differentiate"
    close = difflib.get_close_matches(item, names, n=1) if isinstance(item, str) else []
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return (f"name a parameter ('{names[0]}') or give its position (0 to {len(names) - 1}, or "
            f"negative from the end){hint}")


def flatten_arguments(names, values, positions, taken, cells=None, statics=()):
    """The arguments with each container (a pytree) replaced by its leaves, and their Layout;
    leaves of `wrt` arguments as floats; every bad leaf reported at once. The cells of the
    records' written fields are appended to `cells` (pytrees.flatten). The arguments at
    `statics` are constants (`static_arguments`)."""
    flat, flat_names, spans, structures, problems = [], [], [], [], []
    taken.update(names)
    for i, (name, value) in enumerate(zip(names, values)):
        start = len(flat)
        if i in statics:
            structures.append((name, (pytrees.STATIC, value)))
            spans.append((start, start))
            continue
        if not (pytrees.is_container(value) or resolve.is_function_value(value)) or \
                (i not in positions and pytrees.is_shape(value)):
            flat.append(value)
            flat_names.append(name)
            spans.append((start, start + 1))
            continue
        if resolve.is_function_value(value):  # called as that function (resolve.py)
            structures.append((name, (pytrees.STATIC, value)))
            spans.append((start, start))
            continue
        convert = _differentiated_leaf if i in positions else _leaf
        found = []
        spec, leaves = pytrees.flatten(value, name, taken, found,
                                       lambda leaf, path: convert(leaf, name + "".join(path),
                                                                  problems), cells)
        problems += [at_call(f"argument '{name}': {name}{''.join(path)} {message}",
                             why="each leaf is named after its path (params['W1'] is "
                                 "params_W1 in generated code)",
                             fix="use str keys") for path, message in found]
        structures.append((name, spec))
        flat_names += [leaf_name for leaf_name, _ in leaves]
        flat += [leaf for _, leaf in leaves]
        spans.append((start, len(flat)))
    if problems:
        raise ArgumentError(problems)
    return flat, pytrees.Layout(flat_names, tuple(structures), spans, values, positions)


_LEAVES = ("a container argument (dict with str keys, list, tuple, NamedTuple, dataclass) is "
           "passed as its leaves, which must be numbers or arrays")


def _differentiated_leaf(leaf, where, problems):
    try:
        return as_float(leaf, where, argument=where.split("[")[0].split(".")[0])
    except ArgumentError as exc:
        problems += exc.diagnostics
        return 0.0


def _leaf(leaf, where, problems):
    if isinstance(leaf, (numbers.Number, numpy.ndarray, numpy.generic)):
        return leaf
    problems.append(at_call(f"{where} is {'None' if leaf is None else 'a ' + type(leaf).__name__}",
                            why=_LEAVES,
                            fix="pass it as an argument of its own, or make it a module "
                                "constant"))
    return leaf


def bind_arguments(func, signature, positions, args, kwargs):
    """f's arguments in order, defaults applied, those at `positions` as floats; every bad
    argument reported at once."""
    if not kwargs and len(args) == len(signature.parameters) and _positional(signature) and \
            all(type(args[i]) is float or type(args[i]) is numpy.ndarray and
                args[i].dtype is _FLOAT64 for i in positions):
        return list(args)  # the call path: nothing to convert
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as exc:
        parameters = ", ".join(map(str, signature.parameters.values()))
        raise argument_error(f"{func.__name__}(): {exc}",
                             why=f"{_defined_at(func)} takes ({parameters})",
                             fix="call the gradient with the arguments of the function itself") \
            from None
    bound.apply_defaults()
    values, names = list(bound.arguments.values()), list(bound.arguments)
    problems = []
    for i in positions:
        if pytrees.is_container(values[i]):
            continue  # its leaves are converted when it is flattened
        try:
            values[i] = as_float(values[i], names[i])
        except ArgumentError as exc:
            problems += exc.diagnostics
    if problems:
        raise ArgumentError(problems)
    return values


_FLOAT64 = numpy.dtype(numpy.float64)


_positional_only = {}  # id(signature) -> (signature, whether every parameter is positional)


def _positional(signature):
    known = _positional_only.get(id(signature))
    if known is None or known[0] is not signature:
        known = _positional_only[id(signature)] = (signature, all(
            p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            for p in signature.parameters.values()))
    return known[1]


def as_float(value, name, argument=None):
    """A differentiated argument (or a leaf of `argument`, a container) as a float or a
    float64 array."""
    keep_out = f"or leave '{argument or name}' out of wrt (arguments not differentiated may be " \
        "of any type)"
    why = ("s2sad differentiates real numbers: floats and arrays of them (ints are converted to "
           "float64)")
    if isinstance(value, (bool, numpy.bool_)):
        raise argument_error(f"argument '{name}' is a bool; it cannot be differentiated",
                             why=why, fix=f"pass a float (1.0 for True), {keep_out}")
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, (numpy.ndarray, list, tuple)):
        try:
            array = numpy.asarray(value)
        except ValueError:  # a ragged nesting of sequences
            raise argument_error(f"argument '{name}' is a nested sequence of uneven lengths",
                                 why=why,
                                 fix=f"pass an array of one shape, {keep_out}") from None
        if array.dtype.kind in "fiu":
            return numpy.asarray(array, dtype=numpy.float64)
        what = {"c": "a complex", "b": "a boolean", "O": "an object"}.get(
            array.dtype.kind, f"a {array.dtype}")
        fix = ("differentiate the real and imaginary parts as two real arguments"
               if array.dtype.kind == "c" else "convert it with numpy.asarray(..., float)")
        raise argument_error(f"argument '{name}' is {what} array; s2sad differentiates real "
                             "float64 values", why=why, fix=f"{fix}, {keep_out}")
    if isinstance(value, numbers.Complex):
        raise argument_error(f"argument '{name}' is complex; s2sad differentiates real values",
                             why=why, fix="differentiate the real and imaginary parts as two real "
                                 f"arguments, {keep_out}")
    kind = "None" if value is None else f"a {type(value).__name__}"
    raise argument_error(f"argument '{name}' is {kind}; s2sad differentiates floats and float64 "
                         "arrays", why=why, fix=f"pass a number or an array, {keep_out}")


def reject_integer_uses(func, positions):
    """A differentiated parameter used as a count or an index (range(n), x[i]) would be turned
    into a float: an error at once, where it is used, instead of a failure inside the gradient
    (or, compiled, a silent zero)."""
    try:
        source = parse.parse_function(func)
    except S2sadError:
        return  # the transformation reports it
    names = [a.id for a in resolve.parameters(source.tree.args)]
    problems = fence.integer_uses(source, [names[i] for i in positions if i < len(names)])
    if problems:
        raise ArgumentError(problems)
