"""check_nan=True: the first NaN or infinity of a backward sweep names the original line whose
adjoint made it, and the values involved; JIT on and off alike. Off, the code has no checks."""
import numpy as np
import pytest

import examples_nan as ex
import s2sad
from gradcheck import check_gradient, line_of

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's own 1/0 notices


@pytest.mark.parametrize("jit", [False, True])
def test_the_first_infinite_gradient_names_the_callee_line_and_values(jit):
    df = s2sad.grad(ex.log_and_root, check_nan=True, jit=jit)
    with pytest.raises(s2sad.NonFiniteError) as caught:
        df(np.array([1.0, 0.0, 2.0]), 2.0)
    text = str(caught.value)
    assert "produced a NaN or an infinity in dv" in text
    assert f"in the adjoint of {ex.__file__}:{line_of(ex.root, 'np.sqrt')}: return np.sqrt(v)" \
        in text
    assert "dv = array of shape (3,); first non-finite at index (1,)" in text
    assert "_result = array of shape (3,)" in text  # sqrt(v), which the adjoint divides by
    assert isinstance(caught.value, FloatingPointError)


@pytest.mark.parametrize("jit", [False, True])
def test_an_infinite_gradient_in_an_inlined_callee_names_the_call(jit):
    df = s2sad.grad(ex.log_and_small_root, check_nan=True, jit=jit)
    with pytest.raises(s2sad.NonFiniteError) as caught:
        df(np.array([1.0, 0.0, 2.0]), 2.0)
    text = str(caught.value)
    line = line_of(ex.log_and_small_root, "z = small_root(x)")
    assert f"in the adjoint of {ex.__file__}:{line}: z = small_root(x)" in text
    assert "in dx" in text and "first non-finite at index (1,)" in text
    assert "z = array of shape (3,)" in text  # sqrt(x), which the adjoint divides by


@pytest.mark.parametrize("jit", [False, True])
def test_a_nan_inside_a_loop_names_the_loop_body_line(jit):
    df = s2sad.grad(ex.scalar_loop, check_nan=True, jit=jit)
    with pytest.raises(s2sad.NonFiniteError) as caught:
        df(np.array([1.0, 0.0, 2.0]))
    text = str(caught.value)
    line = line_of(ex.scalar_loop, "s = s + np.sqrt")
    assert f"{ex.__file__}:{line}: s = s + np.sqrt(x[i]) * x[i]" in text
    assert "= nan" in text and "generated code: " in text


def test_finite_gradients_are_unchanged_by_the_checks():
    x = np.array([0.5, 1.5, 2.5])
    check_gradient(ex.log_and_root, (x, 0.7), (0, 1))
    checked = s2sad.grad(ex.log_and_root, wrt=(0, 1), check_nan=True, jit=False)(x, 0.7)
    plain = s2sad.grad(ex.log_and_root, wrt=(0, 1), jit=False)(x, 0.7)
    np.testing.assert_array_equal(checked[0], plain[0])
    assert checked[1] == plain[1]
    jitted = s2sad.grad(ex.scalar_loop, check_nan=True, jit=True)(x)
    np.testing.assert_allclose(jitted, s2sad.grad(ex.scalar_loop, jit=False)(x), rtol=1e-12)


def test_off_by_default_no_checks_in_the_code():
    plain = s2sad.grad(ex.scalar_loop)
    checked = s2sad.grad(ex.scalar_loop, check_nan=True)
    assert "rt.not_finite" not in plain.source and "NonFiniteGradient" not in plain.source
    assert checked.source.count("rt.not_finite") >= 5
    assert plain.path != checked.path
    gradient = s2sad.grad(ex.scalar_loop, jit=False)(np.array([1.0, 0.0]))
    assert np.isnan(gradient[1])  # off: the NaN comes back, as it would without s2sad
