"""scipy.integrate.odeint and solve_ivp inside a differentiated function (issue 50): s2sad
differentiates its own Dormand-Prince solvers (s2sad/integrate.py) step by step in their place.
odeint's values agree with scipy's to the tolerances asked for, its gradient with central
differences of the function as written (scipy's LSODA) to about those tolerances; solve_ivp's
RK45 takes scipy's own steps, so values and gradient are those of scipy's computation. JIT on ==
JIT off."""
import warnings

import numpy as np
import pytest
from scipy.integrate import odeint, solve_ivp

import s2sad
from gradcheck import SAME, assert_close, finite_difference


def spiral(y, t, A):
    return np.dot(y ** 3, A)


def energy(A, y0, t):
    return np.sum(odeint(spiral, y0, t, args=(A,)) ** 2)


def forced(y, t, k, w):
    return -k * y + np.sin(w * t)


def backwards(k, y0):
    """Times decreasing, two parameters in args, one of them not differentiated."""
    return np.sum(odeint(forced, y0, np.array([2.0, 1.5, 0.5, 0.0]), args=(k, 3.0)) * y0)


def net(inputs, t, params):
    """A neural ODE's dynamics, as autograd's ode_net example writes it."""
    for W, b in params:
        outputs = np.dot(inputs, W) + b
        inputs = np.tanh(outputs)
    return outputs


TIMES = np.linspace(0.0, 1.5, 12)
START = np.array([2.0, 0.0])
TARGET = odeint(spiral, START, TIMES, args=(np.array([[-0.1, 2.0], [-2.0, -0.1]]),))


def neural_loss(params):
    predicted = odeint(net, START, TIMES, (params,), rtol=1e-6, atol=1e-8)
    return np.mean((predicted - TARGET) ** 2)


A = np.array([[-0.1, 2.0], [-2.0, -0.1]])


def test_the_gradient_through_the_solver_matches_scipys_and_the_jit():
    compiled = s2sad.value_and_grad(energy, wrt=(0, 1), jit=True)
    python = s2sad.value_and_grad(energy, wrt=(0, 1), jit=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)   # it compiles
        value, (dA, dy0) = compiled(A, START, TIMES)
    value_py, (dA_py, dy0_py) = python(A, START, TIMES)
    assert value == pytest.approx(energy(A, START, TIMES), rel=1e-6)  # (scipy's LSODA)
    assert_close(dA, finite_difference(energy, [A, START, TIMES], 0), rtol=1e-5)
    assert_close(dy0, finite_difference(energy, [A, START, TIMES], 1), rtol=1e-5)
    assert value == pytest.approx(value_py, rel=SAME)
    assert_close(dA, dA_py, rtol=SAME)
    assert_close(dy0, dy0_py, rtol=SAME)


def test_times_going_backwards_and_args_that_are_not_differentiated():
    k, y0 = 0.7, np.array([1.0, -0.5])
    dk, dy0 = s2sad.grad(backwards, wrt=(0, 1), jit=False)(k, y0)
    assert dk == pytest.approx(finite_difference(backwards, [k, y0], 0), rel=1e-5)
    assert_close(dy0, finite_difference(backwards, [k, y0], 1), rtol=1e-5)


def test_a_neural_ode_with_a_list_of_layers_in_args():
    rs = np.random.RandomState(0)
    params = [(rs.randn(2, 8) * 0.3, rs.randn(8) * 0.1), (rs.randn(8, 2) * 0.3, rs.randn(2) * 0.1)]
    gradient = s2sad.grad(neural_loss, jit=False)(params)
    for layer in range(2):
        for leaf in range(2):
            def moved(v, layer=layer, leaf=leaf):
                changed = [list(p) for p in params]
                changed[layer][leaf] = v
                return neural_loss([tuple(p) for p in changed])
            expected = finite_difference(moved, [params[layer][leaf]], 0)
            assert_close(gradient[layer][leaf], expected, rtol=1e-4)


def growth(y, t, r):
    return r * y * (1.0 - y)


def logistic(r):
    """A number as the initial state: one equation, as scipy takes it."""
    return np.sum(odeint(growth, 0.1, np.linspace(0.0, 3.0, 7), args=(r,)))


def test_a_number_as_the_initial_state():
    gradient = s2sad.grad(logistic, jit=False)(1.3)
    assert gradient == pytest.approx(finite_difference(logistic, [1.3], 0), rel=1e-5)


def test_an_argument_the_solver_does_not_take_is_a_located_error():
    def full(k):
        ys, info = odeint(forced, np.ones(2), TIMES, args=(k, 1.0), full_output=True)
        return np.sum(ys)
    with pytest.raises(s2sad.UnsupportedError) as error:
        s2sad.grad(full, jit=False)(0.5)
    text = str(error.value)
    assert "scipy.integrate.odeint is called with an argument" in text
    assert "full_output" in text and "test_integrate.py" in text


def driven(t, y, A):
    return np.dot(y ** 3, A) + 0.1 * np.sin(t)


EVAL = np.linspace(0.0, 1.5, 13)


def ivp_energy(A, y0):
    solution = solve_ivp(driven, (0.0, 1.5), y0, t_eval=EVAL, args=(A,), rtol=1e-6, atol=1e-9)
    return np.sum(solution.y ** 2)


def ivp_first_row(A, y0):
    """solve_ivp's default tolerances, a field of the call read at once."""
    return np.sum(solve_ivp(driven, (0.0, 1.5), y0, t_eval=EVAL, args=(A,)).y[0])


Y0 = np.array([1.2, 0.1])


def test_solve_ivp_takes_scipys_steps():
    from s2sad import integrate
    for options in ({}, {"rtol": 1e-6, "atol": 1e-9}):
        theirs = solve_ivp(driven, (0.0, 1.5), Y0, t_eval=EVAL, args=(A,), **options)
        ours = integrate.solve_ivp(driven, (0.0, 1.5), Y0, t_eval=EVAL, args=(A,), **options)
        assert_close(ours.y, theirs.y, rtol=1e-12)
        assert_close(ours.t, theirs.t, rtol=0.0)


def test_at_solve_ivps_default_tolerances_too():
    """(JIT off only: the compiled steps are checked at tight tolerances below.)"""
    value, (dA, dy0) = s2sad.value_and_grad(ivp_first_row, wrt=(0, 1), jit=False)(A, Y0)
    assert value == pytest.approx(ivp_first_row(A, Y0), rel=1e-12)
    assert_close(dA, finite_difference(ivp_first_row, [A, Y0], 0), rtol=1e-5)
    assert_close(dy0, finite_difference(ivp_first_row, [A, Y0], 1), rtol=1e-5)


@pytest.mark.parametrize("f, rtol", [(ivp_energy, 1e-7)])
def test_the_gradient_of_solve_ivp_is_that_of_scipys_computation(f, rtol):
    compiled = s2sad.value_and_grad(f, wrt=(0, 1), jit=True)
    python = s2sad.value_and_grad(f, wrt=(0, 1), jit=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)   # it compiles
        value, (dA, dy0) = compiled(A, Y0)
    value_py, (dA_py, dy0_py) = python(A, Y0)
    assert value == pytest.approx(f(A, Y0), rel=1e-12)
    assert_close(dA_py, finite_difference(f, [A, Y0], 0), rtol=rtol)
    assert_close(dy0_py, finite_difference(f, [A, Y0], 1), rtol=rtol)
    assert_close(dA, dA_py, rtol=SAME)
    assert_close(dy0, dy0_py, rtol=SAME)
