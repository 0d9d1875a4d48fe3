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
