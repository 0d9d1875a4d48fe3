"""Issue 47 (item 4): random draws from a RandomState or a Generator that is an argument, a
global or a closure variable compile, with NumPy's very samples, and leave the generator in
the state Python leaves it in (runtime/random_state.py; COMPILED_DRAWS names the methods)."""
import warnings

import numba
import numpy as np
import pytest

import s2sad
from s2sad.runtime import dispatch
from s2sad.transform.front.unresolved import COMPILED_DRAWS

dispatch.install()   # (the RandomState type, for numba.njit below)


def _state_draws(rs):
    """Every compiled RandomState method, in the forms generated code calls them."""
    return (rs.randn(7), rs.randn(), rs.randn(2, 3), rs.standard_normal((3, 2)),
            rs.standard_normal(), rs.normal(0.5, 2.0, 5), rs.normal(size=(2, 2)), rs.normal(),
            rs.rand(3, 2), rs.rand(), rs.random_sample(4), rs.random((2, 2)),
            rs.uniform(-1.0, 3.0, 6), rs.uniform(), rs.randint(0, 10, 50), rs.randint(7, size=5),
            rs.randint(3, 100), rs.randint(-5, 2 ** 40, 20), rs.randint(0, 2 ** 32, 5),
            rs.randint(4, 5, 3), rs.permutation(30))


def _generator_draws(rng):
    return (rng.standard_normal(7), rng.standard_normal((2, 3)), rng.standard_normal(),
            rng.normal(0.5, 2.0, 5), rng.normal(size=3), rng.random(4), rng.random(),
            rng.uniform(-1.0, 3.0, 6), rng.integers(0, 10, 50), rng.integers(2, 9, size=3),
            rng.permutation(30), rng.exponential(2.0, 4))


_compiled_state_draws = numba.njit(_state_draws)
_compiled_generator_draws = numba.njit(_generator_draws)


def _same(x, y):
    """Equal bit for bit, with the same shape and kind of number."""
    if isinstance(x, tuple):
        return len(x) == len(y) and all(_same(a, b) for a, b in zip(x, y))
    x, y = np.asarray(x), np.asarray(y)
    return x.shape == y.shape and x.dtype.kind == y.dtype.kind and x.tobytes() == y.tobytes()


def _state(generator):
    if isinstance(generator, np.random.Generator):
        return repr(generator.bit_generator.state)
    kind, key, pos, has_gauss, gauss = generator.get_state()
    return (key.tobytes(), pos, has_gauss, gauss)


def test_the_methods_are_those_compiled():
    called = {"randn", "standard_normal", "normal", "rand", "random_sample", "random", "uniform",
              "randint", "permutation", "integers", "exponential"}
    assert called == COMPILED_DRAWS


@pytest.mark.parametrize("seed", [0, 12345])
def test_random_state_draws_are_numpys(seed):
    python, compiled = np.random.RandomState(seed), np.random.RandomState(seed)
    python.randn(), compiled.randn()     # a Gaussian cached in the state, carried in and out
    for _ in range(2):   # the second call draws on from where the first left the state
        assert _same(_state_draws(python), _compiled_state_draws(compiled))
        assert _state(python) == _state(compiled)


@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.MT19937])
def test_generator_draws_are_numpys(bit_generator):
    python, compiled = np.random.Generator(bit_generator(3)), np.random.Generator(bit_generator(3))
    for _ in range(2):
        assert _same(_generator_draws(python), _compiled_generator_draws(compiled))
        assert _state(python) == _state(compiled)


def elbo(mu, log_sigma, rs):
    """A reparameterised sample, noise added to the loss, a minibatch of indices."""
    z = mu + np.exp(log_sigma) * rs.randn(mu.shape[0])
    batch = rs.randint(0, mu.shape[0], 3)
    order = rs.permutation(mu.shape[0])
    return np.sum(np.sin(z[batch]) * z[order][:3]) + np.sum(rs.normal(0.0, 0.1, 2)) * mu[0]


def elbo_generator(mu, rng):
    z = mu + 0.5 * rng.standard_normal(mu.shape[0])
    return np.sum(z[rng.integers(0, mu.shape[0], 3)] ** 2) + rng.uniform() * mu[1]


def _make_closure(seed):
    rs = np.random.RandomState(seed)

    def loss(mu):
        return np.sum((mu + rs.rand(mu.shape[0])) ** 2)
    return loss, rs


MU = np.array([0.3, -0.2, 0.5, 0.1, -0.4])


def _compiled_and_python(f, wrt, args, fresh):
    """(value, gradient) compiled and as Python from generators in one state, checking that
    none falls back and that both leave the generator where the function itself does."""
    compiled = s2sad.value_and_grad(f, wrt=wrt, jit=True)
    python = s2sad.value_and_grad(f, wrt=wrt, jit=False)
    a, b, c = fresh(), fresh(), fresh()
    out = []
    for _ in range(2):
        with warnings.catch_warnings():
            warnings.simplefilter("error", s2sad.JitFallbackWarning)
            got = compiled(*args, a)
        expected = python(*args, b)
        assert float(got[0]) == float(expected[0]) == float(f(*args, c))
        assert _same(tuple(got[1]), tuple(expected[1]))
        assert _state(a) == _state(b) == _state(c)
        out.append(got)
    assert compiled.runs_compiled
    return out


def test_gradients_draw_python_samples_compiled():
    (value, (dmu, dlog_sigma)), _ = _compiled_and_python(
        elbo, ("mu", "log_sigma"), (MU, -1.0), lambda: np.random.RandomState(7))
    # central differences, each evaluation from the same seed
    h = 1e-6

    def at(mu, log_sigma):
        return elbo(mu, log_sigma, np.random.RandomState(7))
    for i in range(MU.size):
        e = np.eye(MU.size)[i] * h
        assert dmu[i] == pytest.approx((at(MU + e, -1.0) - at(MU - e, -1.0)) / (2 * h), abs=1e-6)
    assert dlog_sigma == pytest.approx((at(MU, -1.0 + h) - at(MU, -1.0 - h)) / (2 * h), abs=1e-6)

    _compiled_and_python(elbo_generator, ("mu",), (MU,), lambda: np.random.default_rng(7))


def _noisy_term(mu, rs):
    return np.sum((mu + 0.5 * rs.randn(mu.size)) ** 2)


def calls_a_drawing_callee(mu, rs):
    total = 0.0
    for k in range(3):
        total = total + (k + 1.0) * _noisy_term(mu * (1.0 + 0.1 * k), rs)
    return total


def test_a_drawing_callee_replayed_compiled():
    """The callee's adjoint draws again from the state kept before its call (rt.draw_state
    and rt.replay compiled, random_state.py): Python's samples, the generator left where the
    function leaves it, no fallback; the states are kept per trip of the loop."""
    (value, (dmu,)), _ = _compiled_and_python(calls_a_drawing_callee, ("mu",), (MU,),
                                              lambda: np.random.RandomState(4))
    h = 1e-6

    def at(mu):
        return calls_a_drawing_callee(mu, np.random.RandomState(4))
    for i in range(MU.size):
        e = np.eye(MU.size)[i] * h
        assert dmu[i] == pytest.approx((at(MU + e) - at(MU - e)) / (2 * h), abs=1e-6)


def test_a_closure_random_state_compiled():
    loss, rs = _make_closure(11)
    start = rs.get_state()
    compiled = s2sad.value_and_grad(loss, jit=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)
        got = [compiled(MU) for _ in range(2)]
    after = _state(rs)
    rs.set_state(start)
    expected = [s2sad.value_and_grad(loss, jit=False)(MU) for _ in range(2)]
    assert _state(rs) == after and compiled.runs_compiled
    assert all(float(g[0]) == float(e[0]) and _same(g[1], e[1]) for g, e in zip(got, expected))


def test_numpy_random_own_generator_stays_python():
    """numpy.random's own generator cannot be moved into compiled code: Python, reported."""
    def loss(mu):
        return np.sum((mu + np.random.randn(mu.shape[0])) ** 2)
    with pytest.warns(s2sad.JitFallbackWarning, match="numpy.random draws"):
        s2sad.grad(loss, jit=True)(MU)


SHARED = np.random.RandomState(5)


def _twice(mu, rs):
    return np.sum(mu * rs.randn(mu.shape[0])) + np.sum(mu * SHARED.randn(mu.shape[0]))


def test_one_random_state_given_twice_is_an_error_compiled():
    """Two copies of one state would draw the same samples twice, where Python draws on."""
    with pytest.raises(ValueError, match="twice"):
        s2sad.grad(_twice, wrt=("mu",), jit=True)(MU, SHARED)
    s2sad.grad(_twice, wrt=("mu",), jit=True)(MU, np.random.RandomState(1))   # (then fine)
