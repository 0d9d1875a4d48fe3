"""Calls Numba refuses as written, which published objectives use (pints' `np.array(x,
copy=True, dtype=float)`, pymoo's `np.prod(..., axis=1)` and `np.column_stack(terms)`, cma's
`np.dot` of an int and a float array, `np.max(x.shape)`): the JIT flavour of a generated file
calls runtime/numpy_cached.py's helpers in their place, with the same numbers, so those
gradients compile instead of falling back to Python."""
import ast
import warnings

import numba
import numpy as np
import pytest

import s2sad
from gradcheck import check_gradient


def test_the_jit_flavour_routes_the_calls_numba_refuses():
    from s2sad.runtime import numpy_cached
    text = ("a = numpy.array(x, copy=True, dtype=float); b = numpy.array(x); "
            "c = numpy.array(x, dtype='float64'); d = numpy.array(x, copy=False); "
            "e = numpy.array(x, dtype=int); f = numpy.prod(m, axis=1) + numpy.prod(x.shape); "
            "g = numpy.column_stack(t); h = numpy.dot(a, b) + numpy.max(x.shape); "
            "k = numpy.asarray((x,))")
    routed = ast.unparse(numpy_cached.for_numba(ast.parse(text)))
    assert routed.splitlines() == [
        "a = _s2sad_numpy.array_float64(x)", "b = _s2sad_numpy.array_copy(x)",
        "c = _s2sad_numpy.array_float64(x)",
        "d = numpy.array(x, copy=False)",     # might be a view: left to Numba (and Python)
        "e = numpy.array(x, dtype=int)",
        "f = _s2sad_numpy.prod_along(m, 1) + _s2sad_numpy.prod_all(x.shape)",
        "g = _s2sad_numpy.column_stack(t)",
        "h = _s2sad_numpy.dot(a, b) + _s2sad_numpy.max_all(x.shape)",
        "k = _s2sad_numpy.asarray_of((x,))"]


@pytest.fixture(scope="module")
def helpers():
    from s2sad.runtime import dispatch, numpy_cached
    dispatch.install()
    return numpy_cached


X = np.linspace(0.1, 1.0, 5)
M = np.arange(12.0).reshape(3, 4) / 7 + 0.5
CASES = [   # (helper call as Numba compiles it, arguments, what NumPy gives)
    ("array_copy(a)", (M.T,), np.array(M.T)),
    ("array_float64(a)", (np.arange(4),), np.array(np.arange(4), dtype=float)),
    ("max_all(a.shape) + min_all(a.shape)", (M,), np.max(M.shape) + np.min(M.shape)),
    ("prod_all(a.shape) + prod_all(a)", (M,), np.prod(M.shape) + np.prod(M)),
    ("prod_along(a, 1) * prod_along(a, -1)", (M,), np.prod(M, axis=1) * np.prod(M, axis=-1)),
    ("prod_along(a, 0)", (M,), np.prod(M, axis=0)),
    ("column_stack([a, 2 * a, a * a])", (X,), np.column_stack([X, 2 * X, X * X])),
    ("column_stack(a)", (M,), np.column_stack(M)),
    ("column_stack(a)", (X,), np.column_stack(X)),
    ("dot(np.arange(5), a) + dot(2.0, a)", (X,), np.dot(np.arange(5), X) + np.dot(2.0, X)),
    ("asarray_of((a,)) + asarray_of([a, 2 * a]) + array_copy((a, a))", (X,),
     np.asarray((X,)) + np.asarray([X, 2 * X]) + np.array((X, X))),
    ("array_float64([a, a]) + asarray_of((1.5, 2.0))[0]", (X,),
     np.array([X, X], dtype=float) + 1.5),
]


@pytest.mark.parametrize("call, args, expected", CASES, ids=[c[0] for c in CASES])
def test_each_helper_gives_numpys_numbers(helpers, call, args, expected):
    import numba
    namespace = {"np": np, **{name: getattr(helpers, name) for name in dir(helpers)}}
    exec(f"def f(a):\n    return {call}\n", namespace)
    got = numba.njit(namespace["f"])(*args)
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    assert np.array_equal(got, expected)


def as_published(x, w):
    """Written as pints, pymoo and cma write objectives."""
    x = np.array(x, copy=True, dtype=float)
    if x.ndim != 1:
        n = np.max(x.shape)
        if np.prod(x.shape) != n:
            raise ValueError("not a vector")
        x = x.reshape((n,))
    terms = []
    for i in range(len(x) - 1):
        terms.append(100 * (x[i + 1] - x[i] ** 2) ** 2 * w + (1 - x[i]) ** 2)
    rows = np.column_stack([x * w, np.cos(x)])
    return np.sum(np.column_stack(terms)) + np.sum(np.prod(rows, axis=1)) + \
        np.dot(np.arange(len(x)), x)


def test_a_gradient_written_as_published_compiles_and_agrees():
    x = np.random.default_rng(0).uniform(-1.0, 1.0, 5)
    compiled = s2sad.grad(as_published, wrt=(0, 1), jit=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)   # it compiles
        compiled(x, 0.7)
    check_gradient(as_published, (x, 0.7), (0, 1), jit_fn=compiled)


def index_range(n):
    return range(1, n, 2)


def over_a_returned_range(x):
    """cma's `for i in rglen(x)`: a loop over what a function returns, here a range."""
    s = 0.0
    f = 0.0
    for i in index_range(len(x)):
        s = s + x[i]
        f = f + s ** 2
    return f + x[index_range(len(x))[-1]]


def test_a_loop_over_a_range_a_function_returns_compiles():
    x = np.random.default_rng(1).normal(size=7)
    compiled = s2sad.grad(over_a_returned_range, wrt=(0,), jit=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)
        compiled(x)
    check_gradient(over_a_returned_range, (x,), 0, jit_fn=compiled)


def array_code_forms(w, x):
    """What autograd's examples write and Numba lacks (runtime/reduction_forms.py, shape.py):
    keepdims, mean/var along an axis, repeat along an axis, the reshape of a slice, and
    vstack of a list grown in a loop."""
    layer = w[:, :6].reshape((2, 2, 3))                  # a slice that is not contiguous
    h = np.tanh(np.einsum("nd,kdo->kno", x, layer))
    peak = np.max(h, axis=2, keepdims=True)
    soft = h - peak - np.log(np.sum(np.exp(h - peak), axis=2, keepdims=True))
    rows = []
    for k in range(2):
        rows.append(np.mean(soft[k], axis=0) * (k + 1.0))
    stacked = np.vstack(rows)
    wide = np.repeat(stacked, 2, axis=1)
    return np.sum(wide ** 2) + np.sum(np.var(x * w[0, 6], axis=0, ddof=1)) + \
        np.sum(np.std(h, axis=-1, keepdims=True))


def test_array_code_forms_compile_and_agree():
    rng = np.random.default_rng(5)
    w, x = rng.normal(size=(2, 8)), rng.normal(size=(4, 2))
    compiled = s2sad.grad(array_code_forms, wrt=(0, 1), jit=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)   # it compiles
        compiled(w, x)
    assert compiled.runs_compiled
    check_gradient(array_code_forms, (w, x), (0, 1), jit_fn=compiled)


@numba.njit
def _bounded(v, low, high):
    """As arch's bounds_check: a helper its authors compiled with numba.njit."""
    if v < low:
        return low
    if v > high:
        return high
    return v


@numba.njit
def garch_like(params, resids):
    n = resids.shape[0]
    s = np.empty(n)
    s[0] = params[0]
    for t in range(1, n):
        s[t] = _bounded(params[0] + params[1] * resids[t - 1] ** 2 + params[2] * s[t - 1],
                        1e-6, 1e6)
    return np.sum(np.log(s) + resids ** 2 / s)


def test_a_numba_jitted_function_is_read_from_its_source():
    """Published Numba code calls its own @njit helpers: s2sad reads their `py_func` as it
    reads a function of yours (was: "no derivative template")."""
    args = (np.array([0.1, 0.2, 0.5]), np.random.default_rng(0).normal(size=20))
    compiled = s2sad.grad(garch_like.py_func, wrt=(0,), jit=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)
        compiled(*args)
    check_gradient(garch_like.py_func, args, 0, jit_fn=compiled)
    check_gradient(garch_like, args, 0)   # the dispatcher itself, as a user passes it
