"""Code as people write it (tests/corpus_as_written.py, issue 35): every case matches central
finite differences with JIT on and off, on == off to 1e-12, and falls back to Python only where
the corpus says so."""
import warnings

import numpy as np
import pytest

import s2sad
import corpus_as_written
from gradcheck import check_gradient

CASES = corpus_as_written.CASES


@pytest.mark.parametrize("f, make_args, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_matches_finite_differences(f, make_args, wrt):
    wrt = wrt if isinstance(wrt, tuple) else (wrt,)
    jit_fn, py_fn = s2sad.grad(f, wrt=wrt, jit=True), s2sad.grad(f, wrt=wrt, jit=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", s2sad.JitFallbackWarning)
        for seed in range(2):
            check_gradient(f, make_args(np.random.default_rng(seed)), wrt, jit_fn=jit_fn,
                           py_fn=py_fn)
    fallbacks = [w for w in caught if issubclass(w.category, s2sad.JitFallbackWarning)]
    assert len(fallbacks) == (1 if f.__name__ in corpus_as_written.NOT_NUMBA else 0)


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
             "out of range")]:
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
