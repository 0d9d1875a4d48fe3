"""The helper forms Numba compiles as loops and Python runs as NumPy calls (`dispatch.loops`,
chosen because Numba compiles the loops ten times faster) give the same numbers: compiled, as
Python, and as a plain NumPy expression of what the helper means. Shape errors are errors in
both flavours. `make test` compiles a sample of the cases (sweeps.py: of each helper's, the
first and every third), `make verify` all of them."""
import re

import numba
import numpy as np
import pytest

import sweeps
from s2sad.runtime import dispatch, rt

dispatch.install()
RNG = np.random.default_rng(11)


def _x(*shape):
    return RNG.uniform(-3.0, 3.0, shape)


def _strided(*shape):
    return _x(*shape[:-1], 2 * shape[-1])[..., ::2]


M, V = _x(3, 4), _x(4)
T = _x(2, 3, 4)
U = "rt.unbroadcast(a, b)"
TIED = np.array([[1.0, 5.0, 2.0], [5.0, -1.0, 5.0]])

# name: (helper call as source, arguments, what NumPy says it is)
CASES = {
    "unbroadcast 1-D same": (U, (V, _x(4)), lambda a, b: a),
    "unbroadcast 1-D to (1,)": (U, (V, _x(1)), lambda a, b: a.sum(0, keepdims=True)),
    "unbroadcast 2-D rows": (U, (M, _x(1, 4)), lambda a, b: a.sum(0, keepdims=True)),
    "unbroadcast 2-D cols": (U, (M, _x(3, 1)), lambda a, b: a.sum(1, keepdims=True)),
    "unbroadcast 2-D both": (U, (M, _x(1, 1)), lambda a, b: a.sum(keepdims=True)),
    "unbroadcast 2-D strided": (U, (_strided(3, 4), _x(1, 4)),
                                lambda a, b: a.sum(0, keepdims=True)),
    "unbroadcast 2-D to 1-D": (U, (M, V), lambda a, b: a.sum(0)),
    "unbroadcast 3-D to 2-D": (U, (T, _x(3, 1)),
                               lambda a, b: a.sum(0).sum(1, keepdims=True)),
    "unbroadcast 3-D to 1-D": (U, (T, _x(4)), lambda a, b: a.sum((0, 1))),
    "unbroadcast int 2-D": (U, (np.arange(12).reshape(3, 4), _x(1, 4)),
                            lambda a, b: a.sum(0, keepdims=True).astype(float)),
    "unbroadcast int same": (U, (np.arange(4), V), lambda a, b: a * 1.0),
    "unbroadcast to scalar": (U, (M, 2.0), lambda a, b: a.sum()),
    "unbroadcast scalar": (U, (1.5, M), lambda a, b: np.full(b.shape, a)),
    "unbroadcast 0-d": (U, (np.array(2.5), M), lambda a, b: np.full(b.shape, 2.5)),
    "broadcast_like scalar": ("rt.broadcast_like(a, b)", (1.5, M),
                              lambda a, b: np.full(b.shape, a)),
    "reduce_sum 1-D": ("rt.reduce_sum(a)", (V,), lambda a: a.sum()),
    "reduce_sum 3-D": ("rt.reduce_sum(a)", (T,), lambda a: a.sum()),
    "reduce_sum axis 0": ("rt.reduce_sum(a, 0)", (M,), lambda a: a.sum(0)),
    "reduce_sum axis 1": ("rt.reduce_sum(a, 1)", (M,), lambda a: a.sum(1)),
    "reduce_sum axis -1": ("rt.reduce_sum(a, -1)", (T,), lambda a: a.sum(-1)),
    "reduce_sum axis 1 of 3-D": ("rt.reduce_sum(a, 1)", (T,), lambda a: a.sum(1)),
    "reduce_sum axis 0 of 1-D": ("rt.reduce_sum(a, 0)", (V,), lambda a: a.sum(0)),
    "reduce_sum axis variable": ("rt.reduce_sum(a, b)", (T, 2), lambda a, b: a.sum(b)),
    "unreduce None": ("rt.unreduce(a, b, None)", (1.5, M), lambda a, b: np.full(b.shape, a)),
    "unreduce None keepdims": ("rt.unreduce(a, b, None)", (np.full((1, 1), 2.0), M),
                               lambda a, b: np.full(b.shape, 2.0)),
    "unreduce axis 0": ("rt.unreduce(a, b, 0)", (V, M), lambda a, b: np.broadcast_to(a, b.shape)),
    "unreduce axis 1": ("rt.unreduce(a, b, 1)", (_x(3), M),
                        lambda a, b: np.broadcast_to(a[:, None], b.shape)),
    "unreduce axis -2 of 3-D": ("rt.unreduce(a, b, -2)", (_x(2, 4), T),
                                lambda a, b: np.broadcast_to(a[:, None, :], b.shape)),
    "unreduce axis keepdims": ("rt.unreduce(a, b, 1)", (_x(3, 1), M),
                               lambda a, b: np.broadcast_to(a, b.shape)),
    "unreduce axis of 1-D": ("rt.unreduce(a, b, 0)", (2.5, V), lambda a, b: np.full(4, 2.5)),
    "unreduce axis 0-d": ("rt.unreduce(a, b, 0)", (np.array(2.5), V), lambda a, b: np.full(4, 2.5)),
    "unreduce strided": ("rt.unreduce(a, b, 0)", (_strided(4), M),
                         lambda a, b: np.broadcast_to(a, b.shape)),
    "matmul_grad_a (2-D, 1-D)": ("rt.matmul_grad_a(a, b, c)", (_x(3), M, V),
                                 lambda a, b, c: np.outer(a, c)),
    "matmul_grad_b (2-D, 1-D)": ("rt.matmul_grad_b(a, b, c)", (_x(3), M, V),
                                 lambda a, b, c: b.T @ a),
    "matmul_grad_b (1-D, 2-D)": ("rt.matmul_grad_b(a, b, c)", (V, _x(3), M),
                                 lambda a, b, c: np.outer(b, a)),
    "dot_grad_a (2-D, 1-D) ints": ("rt.dot_grad_a(a, b, c)", (_x(3), M, np.arange(4)),
                                   lambda a, b, c: np.outer(a, c)),
    "dot_grad_b (2-D, 1-D) strided": ("rt.dot_grad_b(a, b, c)", (_strided(3), _strided(3, 4), V),
                                      lambda a, b, c: b.T @ a),
    "extremum_grad ties": ("rt.extremum_grad(a, b, np.max(b), None)", (2.0, TIED),
                           lambda a, b: (b == 5.0) * (2.0 / 3)),
    "extremum_grad negative": ("rt.extremum_grad(a, b, np.min(b), None)", (-1.5, TIED),
                               lambda a, b: (b == -1.0) * -1.5),
    "extremum_grad 0-d": ("rt.extremum_grad(a, b, np.max(b), None)", (np.array(0.5), V),
                          lambda a, b: (b == b.max()) * 0.5),
}


def _compiled(call, count):
    names = "abcd"[:count]
    scope = {"rt": rt, "np": np}
    exec(f"def form({', '.join(names)}):\n    return {call}\n", scope)
    return numba.njit(scope["form"]), scope["form"]


def _helper(name):
    return re.findall(r"rt\.(\w+)", CASES[name][0])[0]


@pytest.mark.parametrize("name", sweeps.sample(CASES, key=_helper))
def test_compiled_python_and_numpy_agree(name):
    call, args, expected = CASES[name]
    jitted, python = _compiled(call, len(args))
    want = expected(*args)
    for got in (jitted(*args), python(*args)):
        assert np.shape(got) == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        assert np.asarray(got).dtype == np.float64


@pytest.mark.parametrize("call, args", [
    (U, (M, _x(2, 4))),
    (U, (M, _x(3))),
    ("rt.unreduce(a, b, 0)", (_x(3), M)),
    ("rt.unreduce(a, b, 2)", (V, M)),
    ("rt.reduce_sum(a, 2)", (M,)),
])
def test_shape_errors_are_errors_in_both_flavours(call, args):
    jitted, python = _compiled(call, len(args))
    for run in (jitted, python):
        with pytest.raises((ValueError, np.exceptions.AxisError)):
            run(*args)


def test_slice_of_another_shape_is_still_a_value_error():
    @numba.njit
    def put(rows, row):
        rows[0] = row

    with pytest.raises(ValueError, match="cannot assign slice"):
        put(np.zeros((3, 4)), np.ones(5))


@pytest.mark.parametrize("g", [2.0, np.array(0.5)])
def test_add_extremum_grad_adds_in_place_what_extremum_grad_gives(g):
    """rt.add_extremum_grad(out[r], ...) adds into the row of `out` (a view), compiled and as
    Python, the same numbers as `out[r] += rt.extremum_grad(...)`."""
    def form(out, g, b):
        rt.add_extremum_grad(out[1], g, b[1], np.max(b[1]))
        return out
    b = np.array([[1.0, 5.0, 5.0], [5.0, 2.0, 5.0]])
    want = np.ones((2, 3))
    want[1] += rt.extremum_grad(g, b[1], np.max(b[1]), None)
    for run in (numba.njit(form), form):
        got = run(np.ones((2, 3)), g, b)
        np.testing.assert_array_equal(got, want)
    assert want[1, 0] == want[1, 2] == 1.0 + float(g) / 2 and want[1, 1] == 1.0
