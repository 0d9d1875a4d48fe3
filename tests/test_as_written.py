"""Code as people write it (tests/corpus_as_written.py, issue 35): every case matches central
finite differences as Python; a sample of them (tests/sweeps.py; every one with
S2SAD_FULL_SWEEP=1, and every one that falls back to Python) also compiled, on == off to
1e-12, falling back to Python only where the corpus says so."""
import dataclasses
import functools
import warnings

import numpy as np
import pytest
import scipy.spatial.distance

import s2sad
import corpus_as_written
import sweeps
from gradcheck import check_gradient

CASES = corpus_as_written.CASES
COMPILED = sweeps.positions(CASES) | {k for k, c in enumerate(CASES)
                                      if c[0].__name__ in corpus_as_written.NOT_NUMBA}


@pytest.mark.parametrize("k", range(len(CASES)), ids=[c[0].__name__ for c in CASES])
def test_gradient_matches_finite_differences(k):
    f, make_args, wrt = CASES[k]
    wrt = wrt if isinstance(wrt, tuple) else (wrt,)
    jit = k in COMPILED
    jit_fn = s2sad.grad(f, wrt=wrt, jit=True) if jit else None
    py_fn = s2sad.grad(f, wrt=wrt, jit=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", s2sad.JitFallbackWarning)
        for seed in range(2):
            check_gradient(f, make_args(np.random.default_rng(seed)), wrt, jit_fn=jit_fn,
                           py_fn=py_fn, jit=jit)
    fallbacks = [w for w in caught if issubclass(w.category, s2sad.JitFallbackWarning)]
    assert len(fallbacks) == (1 if jit and f.__name__ in corpus_as_written.NOT_NUMBA else 0)


def test_a_cached_helper_runs_as_python_inside_compiled_code():
    """An lru_cache'd helper of ints (issue 47's GMM index) runs in object mode, the rest of the
    gradient compiled: no fallback, also for a second size (the helper called again)."""
    f, _, wrt = next(c for c in CASES if c[0] is corpus_as_written.cached_index)
    wrt = (wrt,)
    jit_fn = s2sad.grad(f, wrt=wrt, jit=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)
        for n in (4, 6):
            check_gradient(f, (np.random.default_rng(n).normal(size=n),), wrt,
                           jit_fn=jit_fn, py_fn=s2sad.grad(f, wrt=wrt, jit=False), jit=True)
    assert "_lower_rows = rt.cached_call(" in jit_fn.source


# ---- print, assert and raise -------------------------------------------------------------------

def _callee_that_prints(x, w):
    """Long enough not to be inlined: the caller's backward sweep runs its adjoint."""
    y = np.tanh(x * w)
    print("callee", w)
    z = y * y + w
    z = z * np.cos(z) + y
    z = z + np.sin(y) * w
    z = z * z + 1.0
    z = np.sqrt(z) + y
    z = z * w + np.exp(-z)
    z = z + y * y
    z = z * 0.5 + w
    z = z - np.tanh(z)
    z = z + 1.0
    return np.sum(z)


def _caller(x, w):
    print("caller")
    return _callee_that_prints(x, w) * 2.0


@pytest.mark.parametrize("jit", [False, True])
def test_print_runs_once_per_call_in_the_forward_sweep(capfd, jit):
    x, w = np.linspace(0.1, 0.5, 3), 0.7
    _caller(x, w)
    expected = capfd.readouterr().out
    assert expected.count("callee") == 1
    for make in (s2sad.grad(_caller, wrt=(0, 1), jit=jit),
                 lambda *a: s2sad.jvp(_caller, wrt=0, jit=jit)(*a, np.ones(3))):
        make(x, w)
        assert capfd.readouterr().out.split() == expected.split()


@pytest.mark.parametrize("jit", [False, True])
def test_assert_and_raise_raise_what_the_function_raises(jit):
    for f, args, error, message in [
            (corpus_as_written.asserting, (np.ones((2, 2)),), AssertionError, "need a vector"),
            (corpus_as_written.raising, (np.ones(4), 2), ValueError, "too long"),
            (corpus_as_written.raising, (np.array([1.0, -20.0]), 5), ValueError,
             "out of range"),
            (corpus_as_written.formatted_messages, (np.ones(3),), ValueError,
             "should have 4 variables, not 3!"),
            (corpus_as_written.formatted_messages, (np.full(4, 1e3),), AssertionError,
             "too large: 4000000.0")]:
        with pytest.raises(error, match=message):
            f(*args)
        with pytest.raises(error, match=message):
            s2sad.grad(f, wrt=0, jit=jit)(*args)


def test_the_generated_code_shows_the_print_and_the_raise():
    g = s2sad.grad(corpus_as_written.raising, wrt=0, jit=False)
    g(np.ones(3), 5)
    text = s2sad.source(g)
    assert "raise ValueError('too long')" in text and "raise ValueError('out of range')" in text
    g = s2sad.grad(corpus_as_written.printing, wrt=0, jit=False)
    g(np.ones(3))
    assert "print('y is', y)" in s2sad.source(g)


def test_s2sad_dask_without_importing_it_first():
    import subprocess
    import sys
    code = ("import sys, s2sad; assert 'dask' not in sys.modules; "
            "f = s2sad.dask.value_and_grad_sum; assert callable(f); print('dask' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


@pytest.mark.parametrize("jit", [False, True])
def test_a_lambda_written_in_the_call(jit):
    g = s2sad.grad(lambda x, y: np.sum(x * y) + x[0] ** 2, wrt=(0, 1), jit=jit)
    dx, dy = g(np.ones(3), np.arange(3.0))
    assert np.allclose(dx, [2.0, 1.0, 2.0]) and np.allclose(dy, [1.0, 1.0, 1.0])
    assert "def dlambda_" in s2sad.source(g)


def test_a_lambda_is_named_after_its_name():
    g = s2sad.grad(corpus_as_written.lambda_objective, jit=False)
    g(np.array([0.1, 0.2]))
    assert "def dlambda_objective(p, " in s2sad.source(g)


# ---- methods, callable objects and partials given to grad --------------------------------------

class _Net:
    """A plain class: its attributes are read per call, its methods call each other."""

    def __init__(self, rng):
        self.W = 0.3 * rng.normal(size=(2, 3))
        self.b = rng.normal(size=2)
        self.k = 1.5
        self.name = "net"
        self.activation = np.tanh  # not read by the methods: left out

    def layer(self, x):
        return np.tanh(self.W @ x + self.b)

    def energy(self, x):
        h = self.layer(x)
        return self.k * np.sum(h ** 2) + np.sum(self.layer(2.0 * x))


@dataclasses.dataclass
class _Loss:
    scale: float
    target: np.ndarray

    def __call__(self, y, w):
        return self.scale * np.sum(w * (y - self.target) ** 2)


def _weighted(x, a, power=2.0):
    return np.sum(a * x ** power)


def _bound_callables(rng):
    return [(_Net(rng).energy, (rng.normal(size=3),), 0),
            (_Loss(0.5, rng.normal(size=3)), (rng.normal(size=3), rng.normal(size=3)), (0, 1)),
            (functools.partial(_weighted, power=3.0), (rng.normal(size=3), 0.7), (0, 1)),
            (functools.partial(_weighted, np.linspace(0.5, 1.0, 3)), (1.3,), 0)]


@pytest.mark.parametrize("k", range(4))
def test_methods_callable_objects_and_partials(k):
    f, args, wrt = _bound_callables(np.random.default_rng(0))[k]
    check_gradient(f, args, wrt)
    tangents = [np.ones_like(np.asarray(args[w], float)) for w in
                (wrt if isinstance(wrt, tuple) else (wrt,))]
    value, _ = s2sad.jvp(f, wrt=wrt, jit=False)(*args, *tangents)
    assert np.isclose(value, f(*args))


def _fd_hessian(f, args, k, h=1e-5):
    """Central differences of finite-difference gradients: d2f / d args[k]^2, flattened."""
    x = np.atleast_1d(np.asarray(args[k], float))

    def grad_at(point):
        out = np.zeros(x.size)
        for i in range(x.size):
            for sign in (1, -1):
                p = point.copy()
                p.flat[i] += sign * h
                moved = list(args)
                moved[k] = p.reshape(np.shape(args[k])) if np.ndim(args[k]) else float(p[0])
                out[i] += sign * f(*moved) / (2 * h)
        return out

    rows = []
    for j in range(x.size):
        up, down = x.copy(), x.copy()
        up.flat[j] += 1e-4
        down.flat[j] -= 1e-4
        rows.append((grad_at(up) - grad_at(down)) / 2e-4)
    return np.array(rows)


@pytest.mark.parametrize("k", range(4))
def test_second_order_of_methods_callable_objects_and_partials(k):
    """hessian, hvp and grad of grad take what grad takes: a method, a callable object, a
    partial, each bound as grad binds it."""
    f, args, wrt = _bound_callables(np.random.default_rng(0))[k]
    first = wrt[0] if isinstance(wrt, tuple) else wrt
    size = np.size(args[first])
    expected = _fd_hessian(f, args, first)
    hessian = s2sad.hessian(f, wrt=first, jit=False)(*args)
    assert np.allclose(np.reshape(hessian, (size, size)), expected, rtol=1e-4, atol=1e-6)
    v = np.linspace(0.5, 1.5, size).reshape(np.shape(args[first])) if size > 1 else 0.7
    product = s2sad.hvp(f, wrt=first, jit=False)(*args, v)
    assert np.allclose(np.ravel(product), expected @ np.ravel(v), rtol=1e-4, atol=1e-6)


class _Cubic:
    def __init__(self, a):
        self.a = a

    def f(self, t):
        return self.a * t ** 3 + np.sin(t)


@pytest.mark.parametrize("jit", [False, True])
def test_grad_of_grad_of_a_method(jit):
    obj = _Cubic(2.0)
    second = s2sad.grad(s2sad.grad(obj.f), jit=jit)
    assert second(0.5) == pytest.approx(6 * 2.0 * 0.5 - np.sin(0.5), rel=1e-10)
    obj.a = 3.0        # the object is read at each call
    assert second(0.5) == pytest.approx(6 * 3.0 * 0.5 - np.sin(0.5), rel=1e-10)
    assert s2sad.hessian(obj.f, jit=jit)(0.5) == pytest.approx(second(0.5), rel=1e-12)


def test_a_method_reads_its_object_at_each_call():
    net = _Net(np.random.default_rng(1))
    g = s2sad.grad(net.energy, jit=False)
    x = np.ones(3)
    first = g(x)
    net.k = 3.0
    net.W = 2.0 * net.W
    check_gradient(net.energy, (x,), 0)
    assert not np.allclose(g(x), first)
    assert np.allclose(g(x), s2sad.grad(net.energy, jit=False)(x))


class _Indented:
    def method(self, x):
        # a comment

        y = x * 2.0

        del y[0]  # (`del y` is supported: deleting an element is not)
        return x


def test_error_lines_are_exact_after_blank_lines_in_an_indented_function():
    import inspect
    lines, first = inspect.getsourcelines(_Indented.method)
    line = first + next(k for k, text in enumerate(lines) if "del y" in text)
    with pytest.raises(s2sad.UnsupportedError) as info:
        s2sad.grad(_Indented().method, jit=False)(1.0)
    assert f"test_as_written.py:{line}:9: error: " in str(info.value)
    assert "del y" in str(info.value)


def test_a_call_without_a_rule_that_carries_a_gradient_is_a_located_error():
    def bad(x):
        return np.sum(corpus_as_written.binom(x, 2.0))
    with pytest.raises(s2sad.TemplateError,
                       match="no derivative template for corpus_as_written.binom"):
        s2sad.grad(bad, jit=False)(np.ones(2))


@pytest.mark.parametrize("jit", [False, True])
def test_the_gradient_of_star_args_is_a_tuple(jit):
    from gradcheck import assert_close, finite_difference
    x, a, b = np.array([0.3, -1.2, 0.5]), np.array([1.0, 2.0, -0.5]), np.array([0.1, 0.2, 0.3])
    (da, db), = [s2sad.grad(corpus_as_written.star_at_the_top, wrt=1, jit=jit)(x, a, b)]
    assert_close(da, finite_difference(corpus_as_written.star_at_the_top, (x, a, b), 1))
    assert_close(db, finite_difference(corpus_as_written.star_at_the_top, (x, a, b), 2))


# ---- functions given as arguments or defaults --------------------------------------------------

def _layer(x, W, nonlinearity=np.tanh):
    return np.sum(nonlinearity(W @ x) ** 2)


def _half_square(z):
    return 0.5 * z * z


@pytest.mark.parametrize("jit", [False, True])
def test_a_function_given_as_a_default_or_an_argument_is_called(jit):
    rng = np.random.default_rng(3)
    x, W = rng.normal(size=3), rng.normal(size=(2, 3))
    g = s2sad.grad(_layer, wrt=(0, 1), jit=jit)
    for nonlinearity in (None, np.sin, _half_square, np.tanh):  # swapping takes effect
        args = (x, W) if nonlinearity is None else (x, W, nonlinearity)
        check_gradient(_layer, args, (0, 1), jit_fn=g if jit else None,
                       py_fn=None if jit else g)


def _dense(x, W, act):
    return act(W @ x)


def _net(x, W, act=np.tanh):
    h = _dense(x, W, act)                   # a parameter given a function, passed on
    return np.sum(_dense(h, W.T @ W, _half_square) ** 2)     # a function of yours passed


def _net_with_the_default(x, W):
    return _net(x, W) + _net(x, W, np.sin)  # the default passed on, and another function


@pytest.mark.parametrize("jit", [False, True])
def test_a_function_is_passed_on_to_a_function_of_yours(jit):
    rng = np.random.default_rng(4)
    x, W = rng.normal(size=3), rng.normal(size=(3, 3))
    for f, args in ((_net, (x, W)), (_net, (x, W, np.cos)), (_net_with_the_default, (x, W))):
        g = s2sad.grad(f, wrt=(0, 1), jit=jit)
        check_gradient(f, args, (0, 1), jit_fn=g if jit else None, py_fn=None if jit else g)


def _reduce(x, red=np.sum):
    return red(x * x)


_REDUCERS = [np.sum, np.mean, np.max]


def _numpy_functions_as_values(x, W):
    """NumPy 2's numpy.sum, numpy.mean... (neither Python functions nor ufuncs) given as
    arguments, by keyword, and held in a module-level list."""
    total = _reduce(W @ x) + _reduce(x, np.prod) + _reduce(red=np.mean, x=np.sin(x))
    for reducer in _REDUCERS:
        total = total + reducer(W @ np.cos(x))
    return total


def _local_functions_as_values(x, W):
    """A nested def and lambdas that read no local name, passed to a function of yours."""
    def cube(z):
        return z ** 3
    square = lambda z: z * z
    h = _dense(x, W, cube) + _dense(x, W, act=square)
    return np.sum(_dense(h, W, lambda z: np.tanh(z) * 2.0))


@pytest.mark.parametrize("jit", [False, True])
def test_numpy_and_local_functions_are_passed_as_values(jit):
    rng = np.random.default_rng(5)
    x, W = rng.normal(size=3), 0.5 * rng.normal(size=(3, 3))
    for f in (_numpy_functions_as_values, _local_functions_as_values):
        g = s2sad.grad(f, wrt=(0, 1), jit=jit)
        check_gradient(f, (x, W), (0, 1), jit_fn=g if jit else None, py_fn=None if jit else g)


def test_a_local_function_reading_a_local_passed_as_a_value_is_a_located_error():
    def scaled(x):
        c = x[0]
        def times_c(z):
            return z * c
        return np.sum(_dense(x, np.eye(3), times_c))
    with pytest.raises(s2sad.UnsupportedError, match="times_c") as info:
        s2sad.grad(scaled, jit=False)(np.ones(3))
    assert "local" in str(info.value) and "'c'" in str(info.value)


def test_a_function_given_to_a_library_function_is_a_located_error():
    def mapped(x):
        return np.sum(np.apply_along_axis(_half_square, 0, x))
    with pytest.raises(s2sad.UnsupportedError, match="'_half_square' is passed to a function "
                                                     "that is not yours"):
        s2sad.grad(mapped, jit=False)(np.ones(3))


def _nested_pairs(p):
    return (p[0:2], p[2:4]), (p[4:6], p[6:8])


def _reads_nested_pairs(p):
    total = 0.0
    for w, b in _nested_pairs(p):
        total = total + np.sum(w * b)
    return total


def test_a_tuple_of_tuples_returned_is_a_located_error():
    with pytest.raises(s2sad.UnsupportedError, match="'_nested_pairs' returns a tuple of "
                                                     "tuples"):
        s2sad.grad(_reads_nested_pairs, jit=False)(np.ones(8))


@pytest.mark.parametrize("jit", [False, True])
def test_swapping_a_function_in_a_module_list_takes_effect(jit):
    x = np.array([0.3, -0.5, 0.8])
    g = s2sad.grad(corpus_as_written.layer_specs, wrt=(0,), jit=jit)
    before = g(x)
    saved = corpus_as_written.LAYER_SPECS[0]
    try:
        corpus_as_written.LAYER_SPECS[0] = (np.cos, 0.5)   # changed in place
        check_gradient(corpus_as_written.layer_specs, (x,), (0,), jit_fn=g if jit else None,
                       py_fn=None if jit else g)
        assert not np.allclose(g(x)[0], before[0])
    finally:
        corpus_as_written.LAYER_SPECS[0] = saved
    assert np.allclose(g(x)[0], before[0])


# ---- random numbers drawn inside the function -----------------------------------------------------

def _with_noise(params, eps):
    samples = eps * np.exp(params[2:]) + params[:2]
    return np.mean(np.sum(samples ** 2, axis=1)) - np.sum(params[2:])


def _vae_like(params, rng):
    eps = rng.standard_normal((4, 2))
    return _with_noise(params, eps) + 0.0 * rng.random()


def _np_global(params):
    return _with_noise(params, np.random.randn(4, 2))


@pytest.mark.parametrize("jit", [False, True])
def test_draws_run_once_from_the_users_generator(jit):
    """The same value, gradient and generator state as the objective with the noise drawn
    outside and passed in: a RandomState global, a Generator argument, numpy.random."""
    p = np.array([0.1, -0.2, 0.3, -0.1])
    noise = corpus_as_written.NOISE
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.JitFallbackWarning)
        noise.seed(1)
        value, grad = s2sad.value_and_grad(corpus_as_written.bbvi_objective, jit=jit)(p)
        after = noise.randn()
        noise.seed(1)
        assert corpus_as_written.bbvi_objective(p) == value
        noise.seed(1)
        expected = s2sad.value_and_grad(_with_noise)(p, noise.randn(6, 2))
        assert noise.randn() == after
        assert value == expected[0] and np.allclose(grad, expected[1], rtol=1e-12)
        rng = np.random.default_rng(7)
        value, grad = s2sad.value_and_grad(_vae_like, jit=jit)(p, rng)
        twin = np.random.default_rng(7)
        expected = s2sad.value_and_grad(_with_noise)(p, twin.standard_normal((4, 2)))
        twin.random()
        assert value == expected[0] and np.allclose(grad, expected[1], rtol=1e-12)
        assert rng.random() == twin.random()
        np.random.seed(3)
        value, grad = s2sad.value_and_grad(_np_global, jit=jit)(p)
        np.random.seed(3)
        expected = s2sad.value_and_grad(_with_noise)(p, np.random.randn(4, 2))
        assert value == expected[0] and np.allclose(grad, expected[1], rtol=1e-12)


def _draws_from_parameters(params, rng):
    return np.sum(rng.normal(params[:2], 1.0))


def test_a_draw_from_parameters_says_how_to_reparameterise():
    with pytest.raises(s2sad.TemplateError, match="reparameterise") as info:
        s2sad.grad(_draws_from_parameters, jit=False)(np.ones(4), np.random.default_rng(0))
    assert "draws random numbers from parameters" in str(info.value)


def _distance_to_ones(x):
    return scipy.spatial.distance.chebyshev(x, np.ones(3)) * 2.0


def test_a_library_function_without_a_rule_is_named_at_the_call():
    with pytest.raises(s2sad.UnsupportedError) as info:
        s2sad.grad(_distance_to_ones, jit=False)(np.array([0.1, 0.2, 0.3]))
    text = str(info.value)
    assert "no derivative rule for scipy.spatial.distance.chebyshev" in text
    assert "@s2sad.adjoint(scipy.spatial.distance.chebyshev)" in text
    assert "test_as_written.py" in text.splitlines()[0] and "_misc.py" not in text


# ---- nested differentiation: grad of a function that calls s2sad.grad ----------------------------

def _potential(x):
    return x ** 4 - 3.0 * x ** 2 + np.sin(x)


_DPOTENTIAL = s2sad.grad(_potential)
_D2POTENTIAL = s2sad.grad(s2sad.grad(lambda x: x ** 4 - 3.0 * x ** 2 + np.sin(x)))


def _newton_step(x):
    return x - _DPOTENTIAL(x) / _D2POTENTIAL(x)


def _after_two_newton_steps(x, w):
    return _potential(_newton_step(_newton_step(x))) * w


@pytest.mark.parametrize("jit", [False, True])
def test_grad_of_a_function_calling_grad(jit):
    g = s2sad.grad(_after_two_newton_steps, wrt=(0, 1), jit=jit)
    for x in (1.7, -1.3):
        check_gradient(_after_two_newton_steps, (x, 0.8), (0, 1), jit_fn=g if jit else None,
                       py_fn=None if jit else g)


def _newton_on_a_vector(x):
    return np.sum(_DPOTENTIAL(x))


def test_grad_inside_needs_a_number():
    with pytest.raises(ValueError, match="differentiates w.r.t. a number"):
        s2sad.grad(_newton_on_a_vector, jit=False)(np.ones(3))


# ---- s2sad show for a function of a dict ---------------------------------------------------------

def _dict_loss(params, x):
    h = np.tanh(params["W"] @ x + params["b"])
    return np.sum(h ** 2)


def test_show_with_example_arguments_of_a_container(capsys):
    from s2sad.tools import cli
    target = f"{__file__}:_dict_loss"
    example = '({"W": np.ones((2, 3)), "b": np.zeros(2)}, np.ones(3))'
    assert cli.main(["show", target, "--example", example]) == 0
    text = capsys.readouterr().out
    assert "def d_dict_loss(params_W, params_b, x, d_result):" in text
    assert "return _t3, dparams_W, dparams_b" in text or "dparams_W, dparams_b" in text
    assert cli.main(["show", target, "--example", example, "--mode", "forward"]) == 0
    assert "def jvp__dict_loss(params_W, params_b, x, dparams_W, dparams_b)" in \
        capsys.readouterr().out
    assert cli.main(["show", target, "--example", "(1, 2", "--types", "f8"]) == 2


def test_show_of_a_function_of_a_dict_reads_its_keys_from_the_source(capsys):
    """No arguments given: the dict's keys are those the function reads (`params["W"]`), its
    values' kinds and the other arguments' unknown: the general file."""
    from s2sad.tools import cli
    target = f"{__file__}:_dict_loss"
    assert cli.main(["show", target]) == 0
    text = capsys.readouterr().out
    assert "def d_dict_loss(params_W, params_b, x, d_result):" in text
    assert "dparams_W" in text and "dparams_b" in text
    assert cli.main(["show", target, "--mode", "forward"]) == 0
    assert "def jvp__dict_loss(params_W, params_b, x, dparams_W, dparams_b)" in \
        capsys.readouterr().out


class _Reversal:
    def __init__(self):
        self.E = -88          # an int field: a constant of the generated code

    def __call__(self, v):
        return np.sum((v - self.E) ** 2) + self.E ** 2 * np.sum(v)


REVERSAL = _Reversal()


def _reversal_potential(v):
    return REVERSAL(v)


def test_a_negative_int_field_is_printed_as_it_reads():
    """Constant(-88) ** 2 would print as -88 ** 2, which reads as -(88 ** 2)."""
    check_gradient(_reversal_potential, (np.array([-70.0, -60.0]),), 0, jit=False)
    v = np.array([-70.0, -60.0])
    value = s2sad.value_and_grad(_reversal_potential, jit=False)(v)[0]
    assert value == pytest.approx(_reversal_potential(v), rel=1e-14)


def _starred_shapes(x):
    *batch, n = x.shape
    b, *rest = np.shape(x)
    first, *middle, last = (x * 2.0).shape
    return np.sum(x ** 2) * n / (b + last + len(middle) + len(batch) + len(rest))


def _one_result_of_a_decomposition(a):
    s = np.linalg.svd(a, compute_uv=False)
    r = np.linalg.qr(a, mode="r")
    return np.sum(s) + np.sum(np.abs(np.diag(r))) + np.linalg.svd(a, False, False)[0]


@pytest.mark.parametrize("jit", [False, True])
def test_starred_shapes_and_decompositions_asked_for_one_result(jit):
    rng = np.random.default_rng(6)
    for f, args in ((_starred_shapes, (rng.normal(size=(3, 4)),)),
                    (_starred_shapes, (rng.normal(size=(2, 3, 4)),)),
                    (_one_result_of_a_decomposition, (rng.normal(size=(4, 3)),))):
        g = s2sad.grad(f, wrt=(0,), jit=jit)
        check_gradient(f, args, (0,), jit_fn=g if jit else None, py_fn=None if jit else g)
