"""Module-level arrays are inputs of the generated code (transform/constants.py): read at every
call, so rebinding one, or writing into it between calls, is seen at once without transforming
again; the generated code names them as the source does."""
import numpy as np
import pytest

import s2sad
import corpus_language as tables
from gradcheck import assert_close, finite_difference
from s2sad.transform import pipeline

GAIN = np.array([1.0, 2.0, 3.0])


def gained(x):
    return np.sum(np.sin(GAIN * x))


def through_module(x):
    return np.sum(tables.W0 @ x) + np.sum(tables.W0.T @ tables.BIAS)


def both(x, w):
    return np.sum(np.tanh(tables.W0 @ x) * w) * np.sum(GAIN)


X3 = np.array([0.3, -0.2, 0.7])
X4 = np.array([0.1, 0.4, -0.3, 0.2])


@pytest.mark.parametrize("jit", [True, False])
def test_rebinding_and_writing_are_seen_without_transforming_again(jit):
    global GAIN
    df = s2sad.grad(gained, jit=jit)
    saved = GAIN
    try:
        assert_close(df(X3), finite_difference(gained, [X3], 0))
        transformed = pipeline.STATS["transformed"]
        GAIN = np.array([-1.0, 0.5, 2.0])   # rebound
        assert_close(df(X3), GAIN * np.cos(GAIN * X3))
        GAIN[1] = 4.0                       # written into between calls
        assert_close(df(X3), GAIN * np.cos(GAIN * X3))
        assert pipeline.STATS["transformed"] == transformed
    finally:
        GAIN = saved


PAIR = (np.array([1.0, 2.0, 3.0]), 0.5)


def paired(x):
    weights, offset = PAIR
    return np.sum(np.sin(weights * x)) + offset * np.sum(x)


@pytest.mark.parametrize("jit", [True, False])
def test_a_module_tuple_is_read_at_every_call_and_its_structure_is_the_key(jit):
    global PAIR
    df = s2sad.grad(paired, jit=jit)
    saved = PAIR
    try:
        assert_close(df(X3), finite_difference(paired, [X3], 0))
        transformed = pipeline.STATS["transformed"]
        PAIR = (np.array([-1.0, 0.5, 2.0]), 2.0)   # rebound: same structure and kinds
        assert_close(df(X3), finite_difference(paired, [X3], 0))
        PAIR[0][1] = 4.0                             # an array in it written into
        assert_close(df(X3), finite_difference(paired, [X3], 0))
        assert pipeline.STATS["transformed"] == transformed
        PAIR = (np.array([1.0, 1.0, 1.0]), 1.0, 7.0)  # another structure: transformed again
        with pytest.raises(s2sad.UnsupportedError, match="cannot unpack 3 values into 2"):
            df(X3)
    finally:
        PAIR = saved


FACTORS = [1.0, 2.0]


def writes_module_list(x):
    FACTORS[0] = x[0]
    return np.sum(x) * FACTORS[1]


def test_writing_into_a_module_container_is_an_error():
    with pytest.raises(s2sad.UnsupportedError, match="writes into the module constant"):
        s2sad.grad(writes_module_list, jit=False)(X3)


def test_generated_code_names_the_constant():
    text = s2sad.grad(through_module).source
    assert "def dthrough_module(x, tables_W0, tables_BIAS, d_result):" in text
    assert "tables_W0 @ x" in text


@pytest.mark.parametrize("jit", [True, False])
def test_every_mode_passes_the_constants(jit):
    w = np.array([0.5, -1.0, 2.0])
    value, (dx, dw) = s2sad.value_and_grad(both, wrt=(0, 1), jit=jit)(X4, w)
    assert value == pytest.approx(both(X4, w))
    assert_close(dx, finite_difference(both, [X4, w], 0))
    assert_close(dw, finite_difference(both, [X4, w], 1))
    assert_close(s2sad.vjp(both, wrt=0, jit=jit)(X4, w, 2.0), 2.0 * dx)
    value, tangent = s2sad.jvp(both, wrt=0, jit=jit)(X4, w, np.ones(4))
    assert tangent == pytest.approx(np.sum(dx))
    hessian = s2sad.hessian(gained, jit=jit)(X3)
    assert_close(hessian, np.diag(-GAIN ** 2 * np.sin(GAIN * X3)))
    second = s2sad.grad(s2sad.grad(lambda_free, wrt=0), wrt=0, jit=jit)(0.7)
    assert second == pytest.approx(-np.sum(GAIN ** 2 * np.sin(GAIN * 0.7)))


def lambda_free(a):
    return np.sum(np.sin(GAIN * a))


def fitted(r):
    """A likelihood over the module's data, its derivative in r taken inside (issue 50)."""
    return s2sad.grad(loglike)(r, np.sum(COUNTS) / np.sum(r + COUNTS))


COUNTS = np.array([3.0, 7.0, 1.0, 4.0, 9.0, 2.0])


def loglike(r, p):
    return np.sum(np.log(r + COUNTS) * r + COUNTS * np.log(p) + r * np.log(1.0 - p))


def closure_fit(data):
    """The same with the data in a closure, and a lambda's grad's grad (autograd's
    negative binomial example calls scipy.optimize.newton with them)."""
    like = lambda r, p: np.sum(np.log(r + data) * r + data * np.log(p) +  # noqa: E731
                               r * np.log(1.0 - p))
    share = lambda r: np.sum(data) / np.sum(r + data)  # noqa: E731
    return lambda r: s2sad.grad(like)(r, share(r))


@pytest.mark.parametrize("jit", [True, False])
def test_a_grad_called_inside_reads_the_module_arrays_its_function_reads(jit):
    slope = s2sad.grad(fitted, jit=jit)(2.5)
    assert slope == pytest.approx(finite_difference(fitted, [2.5], 0), rel=1e-6)
    curvature = s2sad.grad(s2sad.grad(fitted), jit=jit)(2.5)
    step = 1e-4
    expected = (fitted(2.5 + step) - 2.0 * fitted(2.5) + fitted(2.5 - step)) / step ** 2
    assert curvature == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("jit", [True, False])
def test_nested_grads_of_a_lambda_over_closure_data(jit):
    derivative = closure_fit(np.array([2.0, 8.0, 5.0, 1.0]))
    slope = s2sad.grad(derivative, jit=jit)(1.5)
    assert slope == pytest.approx(finite_difference(derivative, [1.5], 0), rel=1e-6)
    import scipy.optimize
    root = scipy.optimize.newton(derivative, 1.5, fprime=s2sad.grad(derivative, jit=jit))
    assert abs(derivative(root)) < 1e-8


def through_another_module(u):
    """A function of another module, called through it, reading that module's arrays."""
    return tables.module_stencil(u) * np.sum(GAIN)


@pytest.mark.parametrize("jit", [True, False])
def test_a_function_called_through_its_module_gets_its_constants(jit):
    u = np.array([0.3, -0.4, 0.8, 0.1, -0.6])
    gradient = s2sad.grad(through_another_module, jit=jit)(u)
    assert_close(gradient, finite_difference(through_another_module, [u], 0))
