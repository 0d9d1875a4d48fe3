"""The rules of templates/numpy_more.py and templates/linalg_more.py in functions written the way
their users write them: against central finite differences, JIT on and off, on == off to 1e-12
(tests/gradcheck.py), and in forward mode. Every rule's own checks are verified by
test_templates.py (all of them as Python, two of each compiled); here a few rules are also
verified whole with s2sad.verify_rule, and the compiled runs are kept to a few functions."""
import math
import warnings

import numpy as np
import pytest

import s2sad
from gradcheck import assert_close, check_gradient, finite_difference
from s2sad.runtime.jit import JitFallbackWarning

RNG = np.random.default_rng(36)


def _separated_symmetric(n):
    q, _ = np.linalg.qr(RNG.normal(size=(n, n)))
    return (q * (1.5 * np.arange(1, n + 1) + RNG.uniform(0.0, 0.4, n))) @ q.T


# ---- losses users write -------------------------------------------------------------------------

def smoothness(x, w):
    """A finite-difference smoothness penalty and a data term."""
    return np.sum(np.diff(x) ** 2) + 0.1 * np.sum(np.diff(x, 2) ** 2) + np.sum((x - w) ** 2)


def spectral_norm_loss(a):
    """The largest singular value, plus a nuclear-norm term."""
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return s[0] + 0.5 * np.sum(s)


def pca_reconstruction(x, c):
    """Reconstruction error of x (rows: samples) on the top-2 eigenvectors of c."""
    w, v = np.linalg.eigh(c)
    top = v[:, 1:]
    return np.sum((x - x @ top @ top.T) ** 2) + np.sum(w)


def least_squares(a, b):
    """A least-squares fit's coefficients and residual."""
    coef, res, rank, sv = np.linalg.lstsq(a, b)
    return np.sum(coef * coef) + res[0]


def signal_loss(x, k):
    """A filtered signal, its autocorrelation and its interpolation at fixed points."""
    y = np.convolve(x, k, "same")
    grid = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    return np.sum(np.correlate(y, y, "full") ** 2) + \
        np.sum(np.interp(np.array([0.5, 2.2, 4.9]), grid, y))


def statistics_loss(x, t):
    """A quantile, an integral over sample points and a covariance."""
    return np.quantile(x, 0.75) + np.trapezoid(x * x, t) + np.sum(np.cov(np.vstack((x, t))))


def test_smoothness_penalty_jit_on_and_off():
    x, w = RNG.normal(size=8), RNG.normal(size=8)
    check_gradient(smoothness, (x, w), wrt=("x", "w"))


def test_spectral_norm_of_a_tall_matrix_jit_on_and_off():
    a = RNG.normal(size=(5, 3))
    check_gradient(spectral_norm_loss, (a,), wrt="a")


def test_pca_reconstruction_with_eigh():
    x = RNG.normal(size=(6, 3))
    c = _separated_symmetric(3)
    check_gradient(pca_reconstruction, (x, c), wrt=("x", "c"), jit=False)
    value, tangent = s2sad.jvp(pca_reconstruction, wrt="c", jit=False)(x, c, np.eye(3))
    step = 1e-6
    expected = (pca_reconstruction(x, c + step * np.eye(3)) -
                pca_reconstruction(x, c - step * np.eye(3))) / (2 * step)
    assert_close(tangent, expected, what="jvp of pca_reconstruction")


def test_least_squares_fit_with_lstsq():
    a, b = RNG.normal(size=(6, 3)), RNG.normal(size=6)
    check_gradient(least_squares, (a, b), wrt=("a", "b"), jit=False)


def test_signal_pipeline_jit_on_and_off():
    x, k = RNG.normal(size=6), RNG.normal(size=3)
    check_gradient(signal_loss, (x, k), wrt=("x", "k"))


def test_statistics():
    x, t = RNG.normal(size=7), np.sort(RNG.uniform(0.0, 3.0, 7))
    check_gradient(statistics_loss, (x, t), wrt=("x", "t"), jit=False)


# ---- the array-API spellings run as Python, with one warning -----------------------------------

def array_api(x, y):
    m = np.matrix_transpose(x)
    return np.sum(np.vecdot(x, y)) + np.sum(np.cumulative_sum(np.matvec(m, y[:3]))) + \
        np.linalg.vector_norm(x, ord=3) + np.linalg.matrix_norm(x)


def test_array_api_functions_fall_back_to_python_with_a_warning():
    x, y = RNG.normal(size=(3, 4)), RNG.normal(size=4)
    with pytest.warns(JitFallbackWarning):
        gradients = s2sad.grad(array_api, wrt=(0, 1))(x, y)
    for k in range(2):
        assert_close(gradients[k], finite_difference(array_api, (x, y), k),
                     what=f"array_api d/d{'xy'[k]}")


# ---- reverse and forward mode, second derivatives -----------------------------------------------

def test_hessian_through_diff_and_polyval():
    def f(x):
        return np.sum(np.diff(x) ** 3) + np.sum(np.polyval(np.array([1.0, -2.0, 0.5]), x))

    x = RNG.normal(size=5)
    h = s2sad.hessian(f, jit=False)(x)
    g = s2sad.grad(f, jit=False)
    step = 1e-6
    columns = [(g(x + step * e) - g(x - step * e)) / (2 * step) for e in np.eye(5)]
    assert_close(h, np.array(columns).T, rtol=1e-5, what="hessian")


def test_math_functions():
    def f(x, y):
        return math.fsum((x, y, x * y)) + math.prod((x, y, 2.0)) + math.ldexp(x, 3) + \
            math.remainder(x, y)

    args = (0.7, 1.3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JitFallbackWarning)
        check_gradient(f, args, wrt=(0, 1), jit=False)


def test_real_and_conj_of_real_arrays_are_the_identity():
    def f(x):
        return np.sum(x.real * x.conj()) + np.sum(np.real(x) * np.conj(x))

    x = RNG.normal(size=4)
    assert_close(s2sad.grad(f, jit=False)(x), 4.0 * x, rtol=1e-14)


@pytest.mark.parametrize("primal", [np.cov, np.insert, np.rot90, np.nan_to_num, np.linspace],
                         ids=lambda p: p.__name__)
def test_verify_rule(primal):
    """Every check of the rule as Python, reverse and forward mode (test_templates.py compiles
    two of them)."""
    assert s2sad.verify_rule(primal, jit=False) >= 3


def test_repeated_eigenvalues_are_not_differentiable():
    """The eigenvector gradient divides by eigenvalue gaps (documented): a repeated eigenvalue
    gives an infinite or NaN gradient, not a silently wrong one."""
    def f(a):
        w, v = np.linalg.eigh(a)
        return np.sum(v * v * np.arange(3.0))

    with np.errstate(divide="ignore", invalid="ignore"):
        g = s2sad.grad(f, jit=False)(np.eye(3))
    assert not np.all(np.isfinite(g))
