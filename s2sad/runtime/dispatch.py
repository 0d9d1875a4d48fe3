"""One definition per runtime helper: the same code runs as Python and compiled by Numba.

Generated files call `rt.<helper>(...)`. With the JIT off they run as Python; with it on, Numba
compiles them, helpers included. Each helper is written once, in one of two forms:

- `@jitable`: a plain function that works for every argument type it is given. Python runs it as
  it is; Numba compiles the same function into the jitted code that calls it.

      @jitable
      def filled(shape, value):
          out = numpy.empty(shape)
          out.reshape(out.size).fill(value)
          return out

- `@by_type`: a helper whose code depends on the argument types (a scalar or an array, its rank,
  a tuple's length), written as its *type dispatch*: a function of the arguments' Numba types
  that returns the implementation for them.

      @by_type
      def saved(x):
          if is_array(x):
              return lambda x: x.copy()
          return lambda x: x

  Numba calls the dispatch at compile time (it is registered as the helper's `overload`).
  Python calls it at run time with the types of the actual arguments (`numba.typeof`, cached
  per kind of argument) and runs the implementation it returned. Both flavours therefore run the
  same implementation. A form Numba cannot compile (an `axis` tuple for a reduction NumPy-in-Numba
  lacks) returns `python_only(impl)`: Numba declines it, so the gradient falls back to Python
  with a warning, and Python runs it.

Where Numba compiles a loop much faster than the NumPy call it stands for (np.outer, np.sum
over an axis, a transposed matrix-vector product: seconds of a gradient's first call), a dispatch
returns `loops(numpy_impl, loop_impl)`: Python runs the NumPy form, Numba compiles the loop (same
parameters, same numbers; the runtime tests compare the two).

A few building blocks are loops only because Numba lacks their NumPy spelling (a sum over
several axes, `np.add.at`, a special function applied elementwise); for them
`@compiled_as(loop)` lets Python run the NumPy form, so code run without the JIT stays fast,
and Numba compile the loop. tests/test_runtime_twins.py checks that each pair agrees.

Numba is imported on first use (`install()`), not by `import s2sad`.
"""
import functools
import hashlib
import importlib.util
import inspect
import linecache
import sys

import numpy as np

from . import blas_modules, calls_by_symbol, syntax_lock, value_types

_JITABLE = []          # plain functions Numba must be able to call
_BY_TYPE = []          # (python function, dispatch, options)
_COMPILED_AS = []      # (NumPy function Python runs, loop Numba compiles in its place)
_LIBRARY = []          # (library function, typing function, prefer_literal, setup)
_installed = [False]
_jit_options = {}      # how Numba compiles every helper (install() sets whether it caches)


class python_only:
    """An implementation only Python runs: Numba declines the form (see the module docstring)."""

    def __init__(self, impl):
        self.impl = impl


class loops:
    """What a dispatch returns for a form Python runs as NumPy calls (`numpy`) and Numba compiles
    as loops (`loop`), cheaper to compile (see the module docstring)."""

    def __init__(self, numpy, loop):
        self.numpy = numpy
        self.loop = loop


def jitable(func):
    """Mark a plain function as callable from jitted code too (numba's register_jitable)."""
    _JITABLE.append(func)
    if _installed[0]:
        _register_jitable(func)
    return func


def compiled_as(loop):
    """Decorate a NumPy function: Python runs it, Numba compiles `loop` (same parameters, same
    results) wherever jitted code calls it (see the module docstring)."""
    def mark(func):
        _COMPILED_AS.append((func, loop))
        if _installed[0]:
            _register_compiled_as(func, loop)
        return func
    return mark


def numba_overload(function, *, prefer_literal=False, setup=None):
    """Decorate a typing function (Numba types in, an implementation or None out): compiled
    code calling the library function `function` compiles the implementation it returns, for
    forms Numba lacks (`@` of stacks, numpy.einsum: products.py). None leaves Numba's own.
    `setup()` runs once Numba is imported, before the overload is registered."""
    def mark(typing):
        _LIBRARY.append((function, typing, prefer_literal, setup))
        if _installed[0]:
            _register_library(function, typing, prefer_literal, setup)
        return typing
    return mark


def compiled_pairs():
    """[(NumPy function, the loop Numba compiles for it)]: what tests/test_runtime_twins.py
    checks."""
    return list(_COMPILED_AS)


def by_type(dispatch=None, *, prefer_literal=False):
    """Define a helper by its type dispatch (see the module docstring). `prefer_literal`: the
    dispatch sees constants as literal types first (Numba's `overload(prefer_literal=True)`)."""
    if dispatch is None:
        return functools.partial(by_type, prefer_literal=prefer_literal)
    signature = inspect.signature(dispatch)
    parameters = list(signature.parameters.values())
    chosen = {}

    def helper(*args, **kwargs):
        if kwargs or len(args) != len(parameters):
            bound = signature.bind(*args, **kwargs)
            values = [bound.arguments.get(p.name, _OMITTED) for p in parameters]
        else:
            values = args
        # Numba tries plain types before literal ones: a helper whose plain types suffice is
        # chosen once per kind, not once per constant value (a loop index, a trip count).
        key = None if prefer_literal else tuple(map(_kind, values))
        impl = chosen.get(key)
        if impl is None:
            exact = tuple(map(_literal_kind, values))
            impl = chosen.get(exact)
            if impl is None:
                impl, literal = _choose(dispatch, values, prefer_literal, parameters)
                chosen[exact if literal or key is None else key] = impl
        return impl(*args, **kwargs)

    functools.update_wrapper(helper, dispatch)
    helper.dispatch = dispatch
    _BY_TYPE.append((helper, dispatch, prefer_literal))
    if _installed[0]:
        _register_overload(helper, dispatch, prefer_literal)
    return helper


def install():
    """Register every helper with Numba (once per process): `jitable` functions with
    register_jitable, `by_type` helpers as overloads whose dispatch is the helper's own."""
    if _installed[0]:
        return
    _installed[0] = True
    from .numba_cache import install_helper_cache
    _jit_options["cache"] = install_helper_cache()   # compiled once, loaded in later processes
    for func in _JITABLE:
        _register_jitable(func)
    for helper, dispatch, prefer_literal in _BY_TYPE:
        _register_overload(helper, dispatch, prefer_literal)
    for func, loop in _COMPILED_AS:
        _register_compiled_as(func, loop)
    for function, typing, prefer_literal, setup in _LIBRARY:
        _register_library(function, typing, prefer_literal, setup)
    from . import random_state
    random_state.install()      # draws from a numpy.random.RandomState
    _import_arraymath_without_scipy()
    blas_modules.load_alone()   # BLAS and LAPACK for Numba without the rest of scipy.linalg
    _cheaper_error_messages()
    _indexed_ranges()
    syntax_lock.guard_numba()   # (Numba's own trees, built while compiling)
    calls_by_symbol.install_for_helpers()   # large helpers called, not linked into callers


def _indexed_ranges():
    """`r[k]` of a range in compiled code, which Numba lacks: a loop over what a function
    returns is indexed (normalize.py: `for i in rglen(x)` -> `i = _t0[_i0]`), and cma's
    `rglen(x)` returns `range(len(x))`."""
    import operator

    from numba.core import types
    from numba.extending import overload

    @overload(operator.getitem)
    def range_item(r, k):
        if isinstance(r, types.RangeType) and isinstance(k, types.Integer):
            def item(r, k):
                n = len(r)
                j = k + n if k < 0 else k
                if j < 0 or j >= n:
                    raise IndexError("range object index out of range")
                return r.start + j * r.step
            return item
        return None


def _import_arraymath_without_scipy():
    """Import numba.np.arraymath (every Numba compile or cache load does) without the BLAS
    check it runs at import, which imports scipy.linalg: 0.24 s, most of what a second process
    spent getting a gradient without a matrix product. The check only tells np.correlate and
    np.convolve whether BLAS is there; with scipy installed (s2sad depends on it) the answer is
    yes, so the check is answered instead of run. A matrix product finds the BLAS module that
    blas_modules.py loads."""
    if "numba.np.arraymath" in sys.modules or importlib.util.find_spec("scipy") is None:
        return      # already imported, or let Numba find out that BLAS is missing
    try:
        from numba.np import linalg
    except ImportError:
        return
    check = linalg.ensure_blas
    linalg.ensure_blas = lambda: None
    try:
        from numba.np import arraymath
    finally:
        linalg.ensure_blas = check
    if getattr(arraymath, "ensure_blas", check) is not check:    # its own name for the check
        arraymath.ensure_blas = check


def _cheaper_error_messages():
    """Numba formats a few of its error messages with str() in the compiled code: compiling
    that formatting (int to str, string concatenation) costs ~1.1-1.4 s the first time in a
    process, more than the rest of a small gradient. For the checks generated code reaches, the
    same exception is raised in the same situations, with the values (shapes, axis) as its
    arguments instead of a formatted string: 0.1-0.3 s. Each patch checks that Numba's code is
    the one it stands for and otherwise leaves Numba's own in place (another Numba version)."""
    try:
        from numba.core import types
        from numba.core.typing.templates import builtin_registry
        from numba.np import arraymath, arrayobj
    except ImportError:
        return
    # Function templates only: a method form (a.sum(axis=k)) reaches the same typing function
    # through a function template of its own, listed here too.
    templates = list(builtin_registry.functions)
    for patch in (_cheaper_slice_error, _cheaper_axis_bounds_error, _cheaper_cumsum_axis_error,
                  _cheaper_take_axis_error):
        try:
            patch(templates, types, arraymath, arrayobj)
        except (ImportError, AttributeError, TypeError, ValueError):
            pass        # Numba's internals differ: its own message, as it is


def _swap(templates, numbas, replacement):
    """Make every overload template whose typing function is `numbas` use `replacement`."""
    for template in templates:
        if getattr(template, "_overload_func", None) is numbas:
            template._overload_func = staticmethod(replacement)


def _formats(impl, names):
    """Whether `impl` is the Numba implementation a patch was written against: it uses exactly
    these global names and builds its message from "axis ... is out of bounds ..." pieces."""
    code = impl.__code__
    return (set(code.co_names) == set(names) and "axis " in code.co_consts
            and " is out of bounds for array of dimension " in code.co_consts)


def _cheaper_slice_error(templates, types, arraymath, arrayobj):
    """An array assigned to a slice of another shape (`rows[t] = row`, as generated loops keep
    their values): ValueError('cannot assign slice of shape', (4,), 'from input of shape', (5,)).
    Numba's own overload still decides which types it handles."""
    numbas = arrayobj.ol_raise_with_shape_context_cpu

    def raise_with_shapes(src_shapes, index_shape):
        if numbas(src_shapes, index_shape) is None:
            return None

        def impl(src_shapes, index_shape):
            raise ValueError("cannot assign slice of shape", index_shape, "from input of shape",
                             src_shapes)
        return impl

    _swap(templates, numbas, raise_with_shapes)


def _cheaper_axis_bounds_error(templates, types, arraymath, arrayobj):
    """np.sum(a, axis=k) / a.sum(axis=k) with k out of range: numpy's AxisError(axis, ndim),
    whose message numpy formats in Python, the same text as Numba's
    ("axis 2 is out of bounds for array of dimension 2")."""
    numbas = arraymath.check_axis_bounds
    error = arraymath.axis_bound_err
    if error is not getattr(getattr(np, "exceptions", None), "AxisError", None) or \
            "axis_bound_err" not in numbas.__code__.co_names:
        return

    def check_axis_bounds(a, axis):
        if axis is not None:
            if isinstance(axis, tuple):
                for ax in axis:
                    if ax < -a.ndim or ax >= a.ndim:
                        raise error(ax, a.ndim)
            elif axis < -a.ndim or axis >= a.ndim:
                raise error(axis, a.ndim)

    for template in templates:    # a register_jitable: the template's key is the function
        if getattr(template, "key", None) is numbas and hasattr(template, "_overload_func"):
            template._overload_func = staticmethod(lambda *args, **kwargs: check_axis_bounds)


def _cheaper_cumsum_axis_error(templates, types, arraymath, arrayobj):
    """np.cumsum(a, axis=k) with k out of range:
    ValueError('axis', 5, 'is out of bounds for array of dimension', 2)."""
    numbas = arraymath.array_cumsum
    flat, along = arraymath._numpy_cumsum, arraymath._numpy_cumsum_axis

    def array_cumsum(a, axis=None, dtype=None):
        impl = numbas(a, axis, dtype)
        if impl is None or not (isinstance(a, types.Array) and isinstance(axis, types.Integer)):
            return impl
        if a.ndim == 1 and _formats(impl, ("ndim", "ValueError", "_numpy_cumsum", "reshape",
                                            "size")):
            def cumsum_flat(a, axis=None, dtype=None):
                if axis < -a.ndim or axis >= a.ndim:
                    raise ValueError("axis", axis, "is out of bounds for array of dimension",
                                     a.ndim)
                return flat(a, axis, dtype).reshape(a.size)
            return cumsum_flat
        if a.ndim > 1 and _formats(impl, ("ndim", "ValueError", "_numpy_cumsum_axis")):
            def cumsum_along(a, axis=None, dtype=None):
                if axis < -a.ndim or axis >= a.ndim:
                    raise ValueError("axis", axis, "is out of bounds for array of dimension",
                                     a.ndim)
                return along(a, axis, dtype)
            return cumsum_along
        return impl

    _swap(templates, numbas, array_cumsum)


def _cheaper_take_axis_error(templates, types, arraymath, arrayobj):
    """np.take(a, indices, axis=k) (indices an array, list or tuple) with k out of range:
    ValueError('axis', 5, 'is out of bounds for array of dimension', 2)."""
    numbas = arrayobj.numpy_take
    with_axis = arrayobj.generate_getitem_setitem_with_axis
    tuple_setitem = arrayobj.tuple_setitem

    def numpy_take(a, indices, axis=None):
        impl = numbas(a, indices, axis)
        if not (impl is not None and isinstance(a, types.Array)
                and isinstance(axis, types.Integer)
                and isinstance(indices, (types.Array, types.List, types.BaseTuple))
                and _formats(impl, ("ndim", "ValueError", "tuple_setitem", "shape", "len",
                                    "np", "empty", "dtype", "range"))
                and impl.__code__.co_freevars == ("_getitem", "_setitem")):
            return impl
        getitem = with_axis(a.ndim, "getitem")
        setitem = with_axis(a.ndim, "setitem")

        def take_along(a, indices, axis=None):
            ax = axis
            if axis < 0:
                axis += a.ndim
            if axis < 0 or axis >= a.ndim:
                raise ValueError("axis", ax, "is out of bounds for array of dimension", a.ndim)
            shape = tuple_setitem(a.shape, axis, len(indices))
            out = np.empty(shape, dtype=a.dtype)
            for i in range(len(indices)):
                y = getitem(a, indices[i], axis)
                setitem(out, i, axis, y)
            return out
        return take_along

    _swap(templates, numbas, numpy_take)


def _register_jitable(func):
    from numba.extending import register_jitable
    register_jitable(**_jit_options)(func)


def _register_overload(helper, dispatch, prefer_literal):
    from numba.extending import overload

    def numba_dispatch(*types):
        impl = dispatch(*types)
        if isinstance(impl, loops):
            return impl.loop
        return None if isinstance(impl, python_only) else impl

    overload(helper, prefer_literal=prefer_literal, jit_options=dict(_jit_options))(
        _with_parameters(numba_dispatch, dispatch))


def _register_library(function, typing, prefer_literal, setup):
    from numba.extending import overload
    if setup is not None:
        setup()
    overload(function, prefer_literal=prefer_literal, jit_options=dict(_jit_options))(typing)


def _register_compiled_as(func, loop):
    from numba.extending import overload, register_jitable
    register_jitable(**_jit_options)(loop)
    overload(func, jit_options=dict(_jit_options))(_with_parameters(lambda *types: loop, func))


def _with_parameters(func, like):
    """`func` behind exactly `like`'s parameters (overload requires the typing function's
    parameters, defaults included, to match the implementation's)."""
    params = inspect.signature(like).parameters
    spelled = ", ".join(p if params[p].default is inspect.Parameter.empty else f"{p}=_d_{p}"
                        for p in params)
    scope = {"_func": func, **{f"_d_{p}": params[p].default for p in params}}
    exec(f"def {like.__name__}({spelled}):\n    return _func({', '.join(params)})\n", scope)
    return scope[like.__name__]

# ---------------------------------------------------------------------------------------------
# Python's side of a by_type helper: the Numba types of actual arguments, chosen once per kind.

_OMITTED = object()   # an argument left to its default


def _kind(value):
    """A cheap hashable stand-in for numba.typeof(value) (which costs microseconds)."""
    if isinstance(value, np.ndarray):
        flags = value.flags
        return (np.ndarray, value.dtype, value.ndim, flags.c_contiguous, flags.f_contiguous,
                flags.writeable, flags.aligned)
    if isinstance(value, tuple):
        return (tuple,) + tuple(map(_kind, value))
    return type(value)


def _literal_kind(value):
    """_kind, with the value of every constant a literal type could be made of."""
    if isinstance(value, tuple):
        return (tuple,) + tuple(map(_literal_kind, value))
    if isinstance(value, (bool, int, str)) or value is None:
        return (type(value), value)
    return _kind(value)


def _choose(dispatch, values, prefer_literal, parameters):
    """The implementation `dispatch` picks for these values, as Numba would pick it: plain
    types first, then literal types for constants (the other way round with prefer_literal)."""
    attempts = [True, False] if prefer_literal else [False, True]
    for literal in attempts:
        types = [_type_of(v, p, literal) for v, p in zip(values, parameters)]
        impl = dispatch(*types)
        if isinstance(impl, loops):
            return impl.numpy, literal
        if impl is not None:
            return (impl.impl if isinstance(impl, python_only) else impl), literal
    shown = ", ".join(str(_type_of(v, p, False)) for v, p in zip(values, parameters))
    raise TypeError(f"s2sad runtime: {dispatch.__name__} has no implementation for ({shown})")


def _type_of(value, parameter, literal):
    """The type Numba would give `value` (value_types.py: no Numba import on Python's side)."""
    if value is _OMITTED:
        return value_types.Omitted(parameter.default)
    return value_types.typeof(value, literal)


# ---------------------------------------------------------------------------------------------
# What a dispatch asks about the types it is given: Numba's while compiling, value_types' when
# Python runs the helper. Each predicate answers both alike.

def _numba_types():
    from numba import types
    return types


def _ours(t):
    return isinstance(t, value_types.Type)


def is_scalar(t):
    """A number or a bool (a 0-d array is an array)."""
    if _ours(t):
        return isinstance(t, value_types.Scalar)
    types = _numba_types()
    return isinstance(t, (types.Number, types.Boolean))


def is_array(t, ndim=None):
    if _ours(t):
        return isinstance(t, value_types.Array) and (ndim is None or t.ndim == ndim)
    types = _numba_types()
    return isinstance(t, types.Array) and (ndim is None or t.ndim == ndim)


def is_none(t):
    """None, or an argument left to its default None."""
    if t is None:
        return True
    if _ours(t):
        return isinstance(t, value_types.NoneType) or \
            isinstance(t, value_types.Omitted) and t.value is None
    types = _numba_types()
    if isinstance(t, types.Omitted):
        return t.value is None
    return isinstance(t, types.NoneType)


def is_float64(t):
    if _ours(t):
        return isinstance(t, value_types.Scalar) and t.name == "float64"
    return t == _numba_types().float64


def is_int(t):
    if _ours(t):
        return isinstance(t, value_types.Scalar) and t.kind in ("int", "uint")
    return isinstance(t, _numba_types().Integer)


def is_python_object(t):
    """A value Numba has no type for (only Python runs it)."""
    if _ours(t):
        return isinstance(t, value_types.PyObject)
    return t == _numba_types().pyobject


def is_list(t):
    """A list (a literal list argument such as `[0, 2]`)."""
    if _ours(t):
        return isinstance(t, value_types.List)
    return isinstance(t, _numba_types().List)


def is_range(t):
    """A range object (what a function returning `range(...)` gives compiled code)."""
    return not _ours(t) and isinstance(t, _numba_types().RangeType)


def optional_array_rank(t):
    """The rank of an array that may be None (Numba's Optional: a list grown in a loop before
    its first append, container_buffers.py), else None."""
    if _ours(t):
        return None
    types = _numba_types()
    return t.type.ndim if isinstance(t, types.Optional) and \
        isinstance(t.type, types.Array) else None


def is_tuple(t):
    if _ours(t):
        return isinstance(t, value_types.Tuple)
    return isinstance(t, _numba_types().BaseTuple)


def is_axis(t):
    """An int or a homogeneous tuple of ints (what np.sum's axis may be)."""
    if is_int(t):
        return True
    if is_tuple(t) and len(t) == 0:
        return True
    if _ours(t):
        return is_tuple(t) and t.uniform and is_int(t.dtype)
    return isinstance(t, _numba_types().UniTuple) and is_int(t.dtype)


def constant(t):
    """The value of a literal type or of an omitted argument's default; else `t` itself."""
    if _ours(t):
        if isinstance(t, value_types.Omitted):
            return t.value
        if isinstance(t, (value_types.Literal, value_types.String)) and \
                getattr(t, "is_literal", True):
            return t.literal_value
        return t
    types = _numba_types()
    if isinstance(t, types.Omitted):
        return t.value
    if isinstance(t, types.Literal):
        return t.literal_value
    return t


def is_constant(t, *values):
    """Whether t is a constant among `values` (a literal, or an omitted argument's default):
    the forms an implementation handles are decided when typing, never at run time."""
    value = constant(t)
    return isinstance(value, (int, str)) and not isinstance(value, bool) and value in values


def generate(name, arguments, lines, namespace):
    """An implementation compiled from source lines, e.g. a body unrolled over a tuple's
    elements with constant indices (`arrays[0]`, `arrays[1]`, ...), which Numba can type one by
    one where a loop could not."""
    source = f"def {name}({', '.join(arguments)}):\n" + "".join(f"    {ln}\n" for ln in lines)
    # named by its text (the disk cache of helpers tells them apart by it) and kept in linecache
    # for tracebacks; __name__ makes it one of rt's helpers for that cache
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    filename = f"<s2sad.runtime.{name}.{digest}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    scope = dict(namespace, np=np, __name__=__name__)
    with syntax_lock.LOCK:
        code = compile(source, filename, "exec")
    exec(code, scope)
    return scope[name]
