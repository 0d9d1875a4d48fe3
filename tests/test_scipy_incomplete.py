"""Distribution functions that are incomplete gamma and beta functions (templates/
scipy_incomplete.py, templates/scipy_stats.py): the cdf, logcdf, sf and logsf of t, gamma and
beta w.r.t. x, loc and scale; the cdf and sf of poisson, binom, nbinom and bernoulli w.r.t.
their continuous parameter; all of them w.r.t. their shape parameters (df, a, b, nbinom's n).
Against central finite differences and scipy's values; compiled cases."""
import warnings

import numpy as np
import pytest
import scipy.special as special
import scipy.stats as stats

import s2sad
from gradcheck import assert_close, check_gradient

RNG = np.random.default_rng(59)
X = np.array([0.35, 1.2, 2.7])


def test_the_helpers_agree_with_scipy():
    from s2sad.runtime import special_incomplete as ours
    for _ in range(300):
        a, b = RNG.uniform(0.2, 20.0, 2)
        x, y, t = RNG.uniform(0.0, 1.0), RNG.uniform(0.0, 40.0), RNG.uniform(-8.0, 8.0)
        assert_close(ours.gammainc_of(a, y), special.gammainc(a, y), rtol=1e-12)
        assert_close(ours.gammaincc_of(a, y), special.gammaincc(a, y), rtol=1e-12)
        assert_close(ours.betainc_of(a, b, x), special.betainc(a, b, x), rtol=1e-12)
        assert_close(ours.stdtr_of(a, t), special.stdtr(a, t), rtol=1e-12)


def test_the_written_out_functions_are_scipys():
    from s2sad.templates import scipy_stats as ours
    for method in ("cdf", "logcdf", "sf", "logsf"):
        assert_close(getattr(ours, f"t_{method}")(X, 3.5, 0.2, 1.5),
                     getattr(stats.t, method)(X, 3.5, 0.2, 1.5), rtol=1e-12, what=method)
        assert_close(getattr(ours, f"gamma_{method}")(X, 2.2, 0.1, 0.8),
                     getattr(stats.gamma, method)(X, 2.2, 0.1, 0.8), rtol=1e-12, what=method)
        assert_close(getattr(ours, f"beta_{method}")(X / 3.0, 2.2, 1.4),
                     getattr(stats.beta, method)(X / 3.0, 2.2, 1.4), rtol=1e-12, what=method)
    k = np.array([-1, 0, 2, 5, 9, 12])
    for method in ("cdf", "sf"):
        for ours_f, theirs in ((getattr(ours, f"poisson_{method}")(k, 3.3),
                                getattr(stats.poisson, method)(k, 3.3)),
                               (getattr(ours, f"binom_{method}")(k, 9, 0.35),
                                getattr(stats.binom, method)(k, 9, 0.35)),
                               (getattr(ours, f"nbinom_{method}")(k, 2.5, 0.4),
                                getattr(stats.nbinom, method)(k, 2.5, 0.4)),
                               (getattr(ours, f"bernoulli_{method}")(k, 0.3),
                                getattr(stats.bernoulli, method)(k, 0.3))):
            assert_close(ours_f, theirs, rtol=1e-12, what=method)


def continuous(x, loc, scale):
    return np.sum(stats.t.cdf(x, 3.5, loc, scale) + stats.t.logsf(x, 2.0, loc, scale) +
                  stats.gamma.logcdf(x, 2.2, loc, scale) + stats.gamma.sf(x, 0.8, loc=loc) +
                  stats.beta.cdf(x / 4.0, 2.2, 1.4, scale=scale) +
                  stats.beta.logsf(x / 4.0, 0.7, 3.0, loc=loc / 8.0))


def test_continuous_distribution_functions_in_x_loc_scale():
    check_gradient(continuous, (X, 0.1, 1.3), (0, 1, 2), jit=False)


def discrete(mu, p, q, r):
    k = np.array([0, 1, 3, 6])
    return np.sum(stats.poisson.cdf(k, mu) + stats.poisson.sf(k, mu) ** 2 +
                  stats.binom.cdf(k, 7, p) * stats.binom.sf(k, 7, p) +
                  stats.nbinom.cdf(k, 2.5, q) + stats.bernoulli.cdf(k, r))


def test_discrete_distribution_functions_in_their_parameters():
    check_gradient(discrete, (3.3, 0.35, 0.4, 0.3), (0, 1, 2, 3), jit=False)
    # d/dmu P(K <= k) = -P(K = k)
    grad = s2sad.grad(lambda mu: stats.poisson.cdf(4, mu), jit=False)(2.7)
    assert_close(grad, -stats.poisson.pmf(4, 2.7), rtol=1e-12)


def mixed(x, mu):
    a = np.array([0.6, 2.0, 7.5])
    return np.sum(special.betaln(a, 1.5) * x + special.xlogy(a - 1.0, x)) + \
        np.sum(stats.gamma.cdf(x, 2.2) * stats.t.sf(x, 4.0)) + stats.poisson.cdf(3, mu)


def test_compiled_and_the_loops_of_different_helpers_stay_apart():
    """Numba once ran betaln's element loop for xlogy's call in one compiled function."""
    args = (X / 3.0, 2.7)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)
        check_gradient(mixed, args, (0, 1))
        assert_close(s2sad.value_and_grad(mixed)(*args)[0], mixed(*args), rtol=1e-12)


def test_the_shape_parameter_helpers_match_differences_of_scipy():
    """runtime/special_parameters.py against central differences of scipy's own functions,
    over a wide range (tails, a and b from 0.1 to 60, df from 0.3 to 100)."""
    from s2sad.runtime import special_parameters as ours
    h = 1e-6

    def central(f, v):
        return (f(v + h) - f(v - h)) / (2.0 * h)

    for _ in range(200):
        a, b = np.exp(RNG.uniform(np.log(0.1), np.log(60.0), 2))
        x, y = RNG.uniform(0.002, 0.998), np.exp(RNG.uniform(np.log(0.01), np.log(150.0)))
        df, t = np.exp(RNG.uniform(np.log(0.3), np.log(100.0))), RNG.uniform(-8.0, 8.0)
        expected = (central(lambda v: special.gammainc(v, y), a),
                    central(lambda v: special.betainc(v, b, x), a),
                    central(lambda v: special.betainc(a, v, x), b),
                    central(lambda v: special.stdtr(v, t), df))
        got = (ours.gammainc_da_of(a, y), *ours.betainc_grads_of(a, b, x),
               ours.stdtr_ddf_of(df, t))
        for e, g, what in zip(expected, got, ("gammainc a", "betainc a", "betainc b", "df")):
            assert abs(g - e) <= 1e-6 * abs(e) + 1e-8, (what, a, b, x, y, df, t, g, e)


def shape_parameters(df, a, b, n):
    k = np.array([0, 1, 3, 6])
    return np.sum(stats.t.cdf(X - 1.0, df) + stats.t.logsf(X, df, 0.1, 1.3) +
                  stats.gamma.logcdf(X, a) + stats.gamma.sf(X, a, scale=0.7) +
                  stats.beta.cdf(X / 3.0, a, b) + stats.beta.logsf(X / 3.0, b, a)) + \
        np.sum(stats.nbinom.cdf(k, n, 0.4) + stats.nbinom.sf(k, n, 0.4) ** 2)


SHAPES = (3.5, 2.2, 1.4, 2.5)


def test_distribution_functions_in_their_shape_parameters():
    check_gradient(shape_parameters, SHAPES, (0, 1, 2, 3), jit=False)
    tangent = s2sad.jvp(shape_parameters, wrt=(0, 1, 2, 3), jit=False)(
        *SHAPES, 1.0, -0.5, 0.25, 2.0)[1]
    gradient = s2sad.grad(shape_parameters, wrt=(0, 1, 2, 3), jit=False)(*SHAPES)
    assert_close(tangent, np.dot(gradient, [1.0, -0.5, 0.25, 2.0]), rtol=1e-12)


def test_shape_parameters_compiled():
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)
        check_gradient(shape_parameters, SHAPES, (0, 1, 2, 3))


def cdfs(a, x):
    return stats.gamma.cdf(x, a) + stats.t.cdf(x, a) + stats.beta.cdf(x / 2.0, a, 1.5)


def test_second_derivatives_in_a_shape_parameter_and_the_bound():
    """d2/dx da through the rules of the shape-parameter helpers; d2/da2 has none: an error."""
    h = 1e-5
    first = s2sad.grad(cdfs, wrt=0, jit=False)
    expected = (first(2.2, 0.7 + h) - first(2.2, 0.7 - h)) / (2.0 * h)
    assert_close(s2sad.grad(s2sad.grad(cdfs, wrt=0), wrt=1, jit=False)(2.2, 0.7), expected,
                 rtol=1e-7)
    with pytest.raises(s2sad.S2sadError, match="no second derivative in a shape parameter"):
        s2sad.grad(s2sad.grad(cdfs, wrt=0), wrt=0, jit=False)(2.2, 0.7)


def frozen_in_the_function(x, df, a):
    d = stats.t(df, loc=0.2)          # frozen, then its methods
    g = stats.gamma(a, scale=1.5)
    return np.sum(d.cdf(x) + g.logsf(x + 2.0)) + stats.beta(a, df).cdf(0.3)   # at once


def test_distributions_frozen_in_the_function_in_their_shape_parameters():
    check_gradient(frozen_in_the_function, (X - 1.0, 3.5, 2.2), (1, 2), jit=False)
