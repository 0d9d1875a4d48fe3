"""Tests for the runtime helpers: Python results are right and Numba agrees.

Shapes are written as tuples; ``None`` stands for a Python float and ``()``
for a 0-d array.  Reference gradients come from ``reference_adjoint``, which
builds J^T g column by column from the forward NumPy operation, so they do
not share code with the helpers.

Each new argument type is a Numba compile: `make test` checks a sample of the
long lists of cases (sweeps.py: the first and every third, of each layout),
`make verify` (S2SAD_FULL_SWEEP=1) every case.
"""
import numba
import numpy as np
import pytest

import sweeps
from s2sad.runtime import dispatch, rt

dispatch.install()   # the helpers' Numba side

RNG = np.random.default_rng(20240611)


def value(shape, layout="C", dtype=np.float64):
    """Random Python float (shape None) or array with the given memory layout."""
    if shape is None:
        return float(RNG.standard_normal())
    if layout == "strided" and len(shape) > 0:
        x = RNG.standard_normal(shape[:-1] + (2 * shape[-1],))[..., ::2]
    else:
        x = RNG.standard_normal(shape)
    if layout == "F":
        x = np.asfortranarray(x)
    if dtype != np.float64:
        x = (10 * x).astype(dtype)
    return x


def like_output(x):
    """Random gradient shaped like a forward result x (Python float for scalars)."""
    return value(None if np.ndim(x) == 0 and not isinstance(x, np.ndarray) else np.shape(x))


def reference_adjoint(forward, g, x):
    """Gradient of sum(g * forward(x)) w.r.t. x for a linear forward map."""
    if not isinstance(x, np.ndarray):
        return float(np.sum(np.multiply(g, forward(1.0))))
    out = np.empty(x.shape)
    for idx in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[idx] = 1.0
        out[idx] = np.sum(np.multiply(g, forward(e)))
    return out


def assert_result(result, expected):
    if isinstance(expected, float):
        assert type(result) is float
    else:
        assert isinstance(result, np.ndarray)
        assert result.dtype == np.float64
        assert result.shape == expected.shape
    np.testing.assert_allclose(result, expected, rtol=1e-12, atol=1e-12)


def assert_agree(py, nb, expected):
    assert_result(py, expected)
    assert_result(nb, expected)
    np.testing.assert_allclose(nb, py, rtol=1e-12, atol=1e-12)


# One jitted wrapper per helper; each distinct argument type compiles once.

@numba.njit
def nb_zeros_like(x):
    return rt.zeros_like(x)


@numba.njit
def nb_unbroadcast(g, like):
    return rt.unbroadcast(g, like)


@numba.njit
def nb_unreduce(g, a, axis):
    return rt.unreduce(g, a, axis)


@numba.njit
def nb_reduced_size(a, axis):
    return rt.reduced_size(a, axis)


@numba.njit
def nb_dot_grads(g, a, b):
    return rt.dot_grad_a(g, a, b), rt.dot_grad_b(g, a, b)


@numba.njit
def nb_matmul_grads(g, a, b):
    return rt.matmul_grad_a(g, a, b), rt.matmul_grad_b(g, a, b)


# ---------------------------------------------------------------------------
# zeros_like

@pytest.mark.parametrize("x", [
    2.5, 3, True, np.float64(1.5),
    np.array(4.0), np.ones(3), np.arange(6).reshape(2, 3), np.ones((2, 3, 4), bool),
    np.ones((3, 8))[:, ::2],
], ids=repr)
def test_zeros_like(x):
    expected = np.zeros(np.shape(x)) if isinstance(x, np.ndarray) else 0.0
    assert_agree(rt.zeros_like(x), nb_zeros_like(x), expected)


# ---------------------------------------------------------------------------
# unbroadcast

UNBROADCAST_CASES = [
    # (g shape, like shape, g layout)
    (None, None, "C"), ((3,), None, "C"), ((2, 3), None, "C"), ((), None, "C"),
    (None, (3,), "C"), (None, (2, 3), "C"), (None, (), "C"),
    ((3,), (3,), "C"), ((3,), (1,), "C"),
    ((2, 3), (2, 3), "C"), ((2, 3), (1, 3), "C"), ((2, 3), (2, 1), "C"), ((2, 3), (1, 1), "C"),
    ((2, 3), (3,), "C"), ((2, 3), (1,), "C"),
    ((4, 2, 3), (2, 3), "C"), ((4, 2, 3), (3,), "C"), ((4, 2, 3), (4, 1, 3), "C"),
    ((4, 2, 3), (1, 1, 1), "C"),
    ((2, 3, 4, 5), (3, 1, 5), "C"), ((2, 3, 4, 5), (2, 3, 4, 5), "C"),
    ((2, 1, 3, 2), (1, 1, 1, 2), "C"),
    ((2, 3, 4, 5, 2), (4, 1, 2), "C"),
    ((3,), (), "C"), ((2, 3), (), "C"), ((), (), "C"), ((), (2, 3), "C"),
    ((0, 3), (3,), "C"), ((2, 0), (2, 1), "C"),
    ((2, 3), (2, 3), "F"), ((2, 3), (1, 3), "F"), ((2, 3), (2, 3), "strided"),
    ((2, 3), (2, 1), "strided"), ((4, 2, 3), (2, 1), "strided"),
]


@pytest.mark.parametrize("gshape, lshape, layout",
                         sweeps.sample(UNBROADCAST_CASES, key=lambda c: c[2]), ids=str)
def test_unbroadcast(gshape, lshape, layout):
    g = value(gshape, layout)
    like = value(lshape)
    # A scalar or 0-d g (rare) acts as if broadcast to like's shape.
    target = np.broadcast_shapes(np.shape(g), np.shape(like))
    expected = reference_adjoint(lambda x: np.broadcast_to(x, target), g, like)
    assert_agree(rt.unbroadcast(g, like), nb_unbroadcast(g, like), expected)


@pytest.mark.parametrize("gshape, lshape", [((2, 3), (2, 3)), ((2, 3), (1, 3)), ((), ())])
def test_unbroadcast_int_gradient(gshape, lshape):
    g = value(gshape, dtype=np.int64)
    like = value(lshape)
    expected = reference_adjoint(lambda x: np.broadcast_to(x, gshape), g, like)
    assert_agree(rt.unbroadcast(g, like), nb_unbroadcast(g, like), expected)


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_unbroadcast_same_shape_returns_g(layout):
    g = value((2, 3), layout)
    assert rt.unbroadcast(g, np.ones((2, 3))) is g
    assert nb_unbroadcast(g, np.ones((2, 3))) is g


@pytest.mark.parametrize("gshape, lshape", [((2, 3), (2, 2)), ((2, 3), (3, 3))])
def test_unbroadcast_rejects_incompatible_shapes(gshape, lshape):
    g, like = value(gshape), value(lshape)
    with pytest.raises(ValueError):
        rt.unbroadcast(g, like)
    with pytest.raises(ValueError):
        nb_unbroadcast(g, like)


def test_unbroadcast_rejects_smaller_gradient():
    with pytest.raises(ValueError):
        rt.unbroadcast(np.ones(3), np.ones((2, 3)))


# ---------------------------------------------------------------------------
# unreduce and reduced_size

REDUCE_CASES = [
    # (a shape, axis)
    (None, None), ((), None), ((3,), None), ((2, 3), None),
    ((3,), 0), ((3,), -1), ((2, 3), 0), ((2, 3), 1), ((2, 3), -1),
    ((2, 3, 4), 1), ((2, 3, 4, 5), 2), ((2, 3, 4, 5), -4),
    ((2, 3, 4), (0, 2)), ((2, 3, 4), (-1, 0)), ((2, 3, 4), (0, 1, 2)), ((2, 3), ()),
]


@pytest.mark.parametrize("ashape, axis", sweeps.sample(REDUCE_CASES), ids=str)
def test_unreduce(ashape, axis):
    a = value(ashape)
    g = like_output(np.sum(a, axis=axis))
    expected = reference_adjoint(lambda x: np.sum(x, axis=axis), g, a)
    assert_agree(rt.unreduce(g, a, axis), nb_unreduce(g, a, axis), expected)


def test_unreduce_strided_gradient():
    a = value((2, 3, 4))
    g = value((2, 4), "strided")
    expected = reference_adjoint(lambda x: np.sum(x, axis=1), g, a)
    assert_agree(rt.unreduce(g, a, 1), nb_unreduce(g, a, 1), expected)


@pytest.mark.parametrize("ashape, axis", sweeps.sample(REDUCE_CASES), ids=str)
def test_reduced_size(ashape, axis):
    a = value(ashape)
    expected = float(np.size(a) // max(np.size(np.sum(a, axis=axis)), 1))
    assert_agree(rt.reduced_size(a, axis), nb_reduced_size(a, axis), expected)


def test_mean_gradient():
    a = value((3, 4))
    g = value((4,))
    grad = rt.unreduce(g, a, 0) / rt.reduced_size(a, 0)
    np.testing.assert_allclose(grad, reference_adjoint(lambda x: np.mean(x, axis=0), g, a),
                               rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------
# dot / matmul

DOT_CASES = [
    # (a shape, b shape, a layout, b layout)
    (None, None, "C", "C"), (None, (3,), "C", "C"), ((3,), None, "C", "C"),
    (None, (2, 3), "C", "C"), ((2, 3), None, "C", "C"),
    ((3,), (3,), "C", "C"), ((2, 3), (3,), "C", "C"), ((3,), (3, 4), "C", "C"),
    ((2, 3), (3, 4), "C", "C"),
    ((2, 3), (3, 4), "F", "strided"), ((2, 3), (3,), "strided", "strided"),
]
MATMUL_CASES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                # stacks of matrices (products.py), batch dimensions broadcast
                ((2, 1, 2, 3), (3, 3, 4)), ((3,), (2, 3, 4))]


def check_product_grads(product, helpers, jitted, a, b):
    g = like_output(product(a, b))
    expected_a = reference_adjoint(lambda x: product(x, b), g, a)
    expected_b = reference_adjoint(lambda y: product(a, y), g, b)
    nb_a, nb_b = jitted(g, a, b)
    assert_agree(helpers[0](g, a, b), nb_a, expected_a)
    assert_agree(helpers[1](g, a, b), nb_b, expected_b)


@pytest.mark.parametrize("ashape, bshape, alayout, blayout", sweeps.sample(DOT_CASES),
                         ids=str)
def test_dot_grads(ashape, bshape, alayout, blayout):
    a, b = value(ashape, alayout), value(bshape, blayout)
    check_product_grads(np.dot, (rt.dot_grad_a, rt.dot_grad_b), nb_dot_grads, a, b)


def test_dot_grads_int_operand():
    a, b = value((2, 3), dtype=np.int64), value((3, 4))
    check_product_grads(np.dot, (rt.dot_grad_a, rt.dot_grad_b), nb_dot_grads, a, b)


@pytest.mark.parametrize("ashape, bshape", MATMUL_CASES, ids=str)
def test_matmul_grads(ashape, bshape):
    a, b = value(ashape), value(bshape)
    check_product_grads(np.matmul, (rt.matmul_grad_a, rt.matmul_grad_b), nb_matmul_grads, a, b)
