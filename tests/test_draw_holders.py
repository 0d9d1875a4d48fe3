"""Issue 36: random numbers drawn from a generator held in a closure or a global, passed on to
functions, and drawn inside functions the differentiated one calls. Each gradient equals the
gradient of the same objective with the noise drawn outside and passed in, the generator ends
in the state the function itself leaves it in, and JIT on equals JIT off (compiled with
NumPy's samples: test_random_draws.py)."""
import warnings

import numpy as np
import pytest

import corpus_draws as c
import s2sad

P = np.array([0.1, -0.2, 0.3, -0.1])


def _quiet(function):
    def run(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", s2sad.JitFallbackWarning)
            return function(*args)
    return run


def _expected(draws):
    """Value and gradient of with_noise on the noise `draws` drew."""
    return s2sad.value_and_grad(c.with_noise, jit=False)(P, draws())


@pytest.mark.parametrize("jit", [False, True])
def test_a_closure_random_state(jit):
    objective = c.make_objective(6, seed=1)
    value, grad = _quiet(s2sad.value_and_grad(objective, jit=jit))(P, 0)
    twin = np.random.RandomState(1)
    expected = _expected(lambda: twin.randn(6, 2))
    assert value == pytest.approx(expected[0], rel=1e-12)
    assert np.allclose(grad, expected[1], rtol=1e-12)
    # the next call draws the next samples, as the objective itself would
    value, _ = _quiet(s2sad.value_and_grad(objective, jit=jit))(P, 1)
    assert value == pytest.approx(_expected(lambda: twin.randn(6, 2))[0], rel=1e-12)


def test_two_closures_of_one_factory_keep_their_own_generators():
    first, second = c.make_objective(4, seed=1), c.make_objective(4, seed=2)
    g1, g2 = s2sad.grad(first, jit=False), s2sad.grad(second, jit=False)
    a, b = g1(P, 0), g2(P, 0)
    assert np.allclose(a, _expected(lambda: np.random.RandomState(1).randn(4, 2))[1])
    assert np.allclose(b, _expected(lambda: np.random.RandomState(2).randn(4, 2))[1])


def test_a_closure_generator():
    objective = c.make_generator_objective(5, seed=4)
    value, grad = s2sad.value_and_grad(objective, jit=False)(P)
    expected = _expected(lambda: np.random.default_rng(4).standard_normal((5, 2)))
    assert value == expected[0] and np.allclose(grad, expected[1], rtol=1e-12)


def test_a_global_generator_passed_to_a_function_and_rebound():
    c.SHARED.seed(3)
    value, grad = s2sad.value_and_grad(c.global_passed_on, jit=False)(P)
    twin = np.random.RandomState(3)
    expected = _expected(lambda: twin.randn(5, 2))
    assert value == expected[0] and np.allclose(grad, expected[1], rtol=1e-12)
    assert c.SHARED.randn() == twin.randn()          # advanced once, as f(P) advances it
    old = c.SHARED
    try:
        c.SHARED = np.random.RandomState(9)          # rebound: the new one is drawn from
        value = s2sad.value_and_grad(c.global_passed_on, jit=False)(P)[0]
        assert value == _expected(lambda: np.random.RandomState(9).randn(5, 2))[0]
    finally:
        c.SHARED = old


@pytest.mark.parametrize("jit", [False, True])
def test_a_lambda_around_a_drawing_objective(jit):
    """The adjoint of a callee runs its forward sweep again: it draws the same samples (the
    generator's state is put back for it), and the generator ends where one call leaves it."""
    objective = c.make_objective(6, seed=5)
    wrapped = lambda p: 2.0 * objective(p, 0)   # noqa: E731 -- as people wrap objectives
    value, grad = _quiet(s2sad.value_and_grad(wrapped, jit=jit))(P)
    twin = np.random.RandomState(5)
    expected = _expected(lambda: twin.randn(6, 2))
    assert value == pytest.approx(2.0 * expected[0], rel=1e-12)
    assert np.allclose(grad, 2.0 * expected[1], rtol=1e-12)
    reference = c.make_objective(6, seed=5)
    reference(P, 0)
    assert objective(P, 0) == reference(P, 0)     # both generators advanced alike


def test_a_drawing_callee_called_in_a_loop():
    rs = np.random.RandomState(11)
    value, grad = s2sad.value_and_grad(c.draws_in_a_loop, jit=False)(P, rs)
    twin = np.random.RandomState(11)
    noises = [twin.randn(3, 2) for _ in range(3)]

    def with_given_noise(params):
        return sum((k + 1.0) * c.with_noise(params * (1.0 + 0.1 * k), noises[k])
                   for k in range(3))
    assert value == pytest.approx(with_given_noise(P), rel=1e-12)
    h = 1e-6
    numeric = [(with_given_noise(P + h * e) - with_given_noise(P - h * e)) / (2 * h)
               for e in np.eye(4)]
    assert np.allclose(grad, numeric, rtol=1e-6, atol=1e-8)
    assert rs.randn() == twin.randn()                # three draws, not six


def test_a_draw_with_a_starred_shape():
    """`rs.randn(*mean.shape)`: the shape spread at run time (the draw runs as Python)."""
    value, grad = s2sad.value_and_grad(c.vae_like_bound, jit=False)(P, np.random.RandomState(2))
    eps = np.random.RandomState(2).randn(1, 2)

    def given(p):
        return np.sum((eps * np.exp(p[2:]) + p[:2]) ** 2) - np.sum(p[2:])
    expected = s2sad.value_and_grad(given, jit=False)(P)
    assert value == pytest.approx(expected[0], rel=1e-12)
    assert np.allclose(grad, expected[1], rtol=1e-12)
