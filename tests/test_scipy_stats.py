"""scipy.stats distributions in differentiated code (templates/scipy_stats.py,
front/library_calls.py): every covered (distribution, method) against central finite
differences w.r.t. every continuous argument, JIT on and off (the two agreeing to 1e-12), and
its values against scipy's own; frozen distributions (module-level, and made in the function);
a Gaussian-process likelihood, a negative-binomial fit; the error for what is not covered.

The compiled functions are few and shared (each costs a compile): one calls every method of
the location-scale families, one those of the distributions with shape parameters, one the
multivariate and discrete ones.
"""
import functools
import warnings

import numpy as np
import pytest
import scipy.stats as stats
from scipy.stats import multivariate_normal, nbinom, norm, t

import s2sad
from gradcheck import check_gradient, finite_difference, assert_close

RNG = np.random.default_rng(37)
FROZEN = norm(0.5, 2.0)
FROZEN_MVN = multivariate_normal([0.5, -0.25], [[1.5, 0.3], [0.3, 0.8]])


def uniform(low, high, shape=()):
    value = RNG.uniform(low, high, shape)
    return float(value) if shape == () else value


# ---- every covered method, w.r.t. every argument ------------------------------------------------
# p["<distribution>_<method>"] holds the arguments of that call, in scipy's order.
LOCATION_SCALE = ("norm", "expon", "laplace", "logistic", "cauchy")
METHODS = ("logpdf", "pdf", "cdf", "logcdf")


def location_scale(p):
    out = 0.0
    out += np.sum(stats.norm.logpdf(p["norm_logpdf"][0], p["norm_logpdf"][1], p["norm_logpdf"][2]))
    out += np.sum(stats.norm.pdf(p["norm_pdf"][0], loc=p["norm_pdf"][1], scale=p["norm_pdf"][2]))
    out += np.sum(norm.cdf(p["norm_cdf"][0], p["norm_cdf"][1], scale=p["norm_cdf"][2]))
    out += np.sum(stats.norm.logcdf(p["norm_logcdf"][0], p["norm_logcdf"][1], p["norm_logcdf"][2]))
    out += np.sum(stats.expon.logpdf(p["expon_logpdf"][0], p["expon_logpdf"][1], p["expon_logpdf"][2]))
    out += np.sum(stats.expon.pdf(p["expon_pdf"][0], p["expon_pdf"][1], p["expon_pdf"][2]))
    out += np.sum(stats.expon.cdf(p["expon_cdf"][0], p["expon_cdf"][1], p["expon_cdf"][2]))
    out += np.sum(stats.expon.logcdf(p["expon_logcdf"][0], p["expon_logcdf"][1], p["expon_logcdf"][2]))
    out += np.sum(stats.laplace.logpdf(p["laplace_logpdf"][0], p["laplace_logpdf"][1], p["laplace_logpdf"][2]))
    out += np.sum(stats.laplace.pdf(p["laplace_pdf"][0], p["laplace_pdf"][1], p["laplace_pdf"][2]))
    out += np.sum(stats.laplace.cdf(p["laplace_cdf"][0], p["laplace_cdf"][1], p["laplace_cdf"][2]))
    out += np.sum(stats.laplace.logcdf(p["laplace_logcdf"][0], p["laplace_logcdf"][1], p["laplace_logcdf"][2]))
    out += np.sum(stats.logistic.logpdf(p["logistic_logpdf"][0], p["logistic_logpdf"][1], p["logistic_logpdf"][2]))
    out += np.sum(stats.logistic.pdf(p["logistic_pdf"][0], p["logistic_pdf"][1], p["logistic_pdf"][2]))
    out += np.sum(stats.logistic.cdf(p["logistic_cdf"][0], p["logistic_cdf"][1], p["logistic_cdf"][2]))
    out += np.sum(stats.logistic.logcdf(p["logistic_logcdf"][0], p["logistic_logcdf"][1], p["logistic_logcdf"][2]))
    out += np.sum(stats.cauchy.logpdf(p["cauchy_logpdf"][0], p["cauchy_logpdf"][1], p["cauchy_logpdf"][2]))
    out += np.sum(stats.cauchy.pdf(p["cauchy_pdf"][0], p["cauchy_pdf"][1], p["cauchy_pdf"][2]))
    out += np.sum(stats.cauchy.cdf(p["cauchy_cdf"][0], p["cauchy_cdf"][1], p["cauchy_cdf"][2]))
    out += np.sum(stats.cauchy.logcdf(p["cauchy_logcdf"][0], p["cauchy_logcdf"][1], p["cauchy_logcdf"][2]))
    return out


def shaped(p):
    out = 0.0
    out += np.sum(stats.lognorm.logpdf(p["lognorm_logpdf"][0], p["lognorm_logpdf"][1], p["lognorm_logpdf"][2], p["lognorm_logpdf"][3]))
    out += np.sum(stats.lognorm.pdf(p["lognorm_pdf"][0], p["lognorm_pdf"][1], p["lognorm_pdf"][2], p["lognorm_pdf"][3]))
    out += np.sum(stats.lognorm.cdf(p["lognorm_cdf"][0], p["lognorm_cdf"][1], p["lognorm_cdf"][2], p["lognorm_cdf"][3]))
    out += np.sum(stats.lognorm.logcdf(p["lognorm_logcdf"][0], p["lognorm_logcdf"][1], p["lognorm_logcdf"][2], p["lognorm_logcdf"][3]))
    out += np.sum(stats.t.logpdf(p["t_logpdf"][0], p["t_logpdf"][1], p["t_logpdf"][2], p["t_logpdf"][3]))
    out += np.sum(stats.t.pdf(p["t_pdf"][0], p["t_pdf"][1], p["t_pdf"][2], p["t_pdf"][3]))
    out += np.sum(stats.gamma.logpdf(p["gamma_logpdf"][0], p["gamma_logpdf"][1], p["gamma_logpdf"][2], p["gamma_logpdf"][3]))
    out += np.sum(stats.gamma.pdf(p["gamma_pdf"][0], p["gamma_pdf"][1], p["gamma_pdf"][2], p["gamma_pdf"][3]))
    out += np.sum(stats.beta.logpdf(p["beta_logpdf"][0], p["beta_logpdf"][1], p["beta_logpdf"][2], p["beta_logpdf"][3], p["beta_logpdf"][4]))
    out += np.sum(stats.beta.pdf(p["beta_pdf"][0], p["beta_pdf"][1], p["beta_pdf"][2], p["beta_pdf"][3], p["beta_pdf"][4]))
    return out


def multivariate_and_discrete(p, k, n, simplex):
    a = p["multivariate_normal_logpdf"]
    out = np.sum(stats.multivariate_normal.logpdf(a[0], a[1], a[2]))
    a = p["multivariate_normal_pdf"]
    out += np.sum(multivariate_normal.pdf(a[0], mean=a[1], cov=a[2]))
    alpha = p["dirichlet_logpdf"][0]
    out += np.sum(stats.dirichlet.logpdf(simplex[0], alpha)) + \
        stats.dirichlet.pdf(simplex[1], p["dirichlet_pdf"][0])
    out += np.sum(stats.poisson.logpmf(k, p["poisson_logpmf"][0]))
    out += np.sum(stats.poisson.pmf(k, p["poisson_pmf"][0]))
    out += np.sum(stats.binom.logpmf(k, n, p["binom_logpmf"][0]))
    out += np.sum(stats.binom.pmf(k, n, p["binom_pmf"][0]))
    out += np.sum(stats.nbinom.logpmf(k, p["nbinom_logpmf"][0], p["nbinom_logpmf"][1]))
    out += np.sum(stats.nbinom.pmf(k, n=p["nbinom_pmf"][0], p=p["nbinom_pmf"][1]))
    out += np.sum(stats.bernoulli.logpmf(k > 2, p["bernoulli_logpmf"][0]))
    out += np.sum(stats.bernoulli.pmf(k > 2, p["bernoulli_pmf"][0]))
    return out


def location_scale_arguments():
    p = {}
    for name in LOCATION_SCALE:
        for method in METHODS:
            loc, scale = uniform(-1.0, 1.0), uniform(0.5, 2.0)
            low = 0.2 if name == "expon" else -3.0
            p[f"{name}_{method}"] = (loc + scale * uniform(low, 3.0, (3,)), loc, scale)
    p["norm_logpdf"] = (p["norm_logpdf"][0], uniform(-1.0, 1.0, (3,)), uniform(0.5, 2.0))
    return (p,)


def shaped_arguments():
    p = {}
    for name, shapes, low, high in (("lognorm", [(0.3, 1.5)], 0.3, 3.0),
                                    ("t", [(1.5, 8.0)], -3.0, 3.0),
                                    ("gamma", [(0.8, 4.0)], 0.3, 3.0),
                                    ("beta", [(0.8, 4.0), (0.8, 4.0)], 0.2, 0.8)):
        for method in (METHODS if name == "lognorm" else ("logpdf", "pdf")):
            loc, scale = uniform(-1.0, 1.0), uniform(0.5, 2.0)
            p[f"{name}_{method}"] = (loc + scale * uniform(low, high, (3,)),
                                     *[uniform(*s) for s in shapes], loc, scale)
    return (p,)


def spd(n):
    a = RNG.uniform(-1.0, 1.0, (n, n))
    return a @ a.T + n * np.eye(n)


def multivariate_and_discrete_arguments():
    p = {"multivariate_normal_logpdf": (RNG.normal(size=(4, 3)), RNG.normal(size=3), spd(3)),
         "multivariate_normal_pdf": (RNG.normal(size=2), RNG.normal(size=2), spd(2)),
         "dirichlet_logpdf": (uniform(0.8, 4.0, (3,)),),
         "dirichlet_pdf": (uniform(0.8, 4.0, (3,)),),
         "poisson_logpmf": (uniform(0.5, 5.0),), "poisson_pmf": (uniform(0.5, 5.0),),
         "binom_logpmf": (uniform(0.2, 0.8),), "binom_pmf": (uniform(0.2, 0.8),),
         "nbinom_logpmf": (uniform(0.5, 5.0), uniform(0.2, 0.8)),
         "nbinom_pmf": (uniform(0.5, 5.0), uniform(0.2, 0.8)),
         "bernoulli_logpmf": (uniform(0.2, 0.8),), "bernoulli_pmf": (uniform(0.2, 0.8),)}
    simplex = (RNG.dirichlet([2.0, 3.0, 4.0], 5).T, RNG.dirichlet([2.0, 3.0, 4.0]))
    return p, np.array([0, 1, 3, 7, 2, 5]), 9, simplex


FUNCTIONS = {"location_scale": (location_scale, location_scale_arguments),
             "shaped": (shaped, shaped_arguments),
             "multivariate_and_discrete": (multivariate_and_discrete,
                                           multivariate_and_discrete_arguments)}


@functools.lru_cache(maxsize=None)
def gradient(name, jit):
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)  # it must compile
        return s2sad.value_and_grad(FUNCTIONS[name][0], jit=jit)


def without_value(name, jit):
    return lambda *args: (gradient(name, jit)(*args)[1],)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_method_matches_finite_differences_jit_on_and_off(name):
    func, arguments = FUNCTIONS[name]
    args = arguments()
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)
        check_gradient(func, args, 0, without_value(name, True), without_value(name, False))


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_the_values_are_scipys(name):
    """The compiled value against scipy's, and each function templates/scipy_stats.py writes
    out (run as Python) against the scipy method it stands for, one by one."""
    from s2sad.templates import scipy_stats
    func, arguments = FUNCTIONS[name]
    args = arguments()
    for jit in (True, False):
        assert_close(gradient(name, jit)(*args)[0], func(*args), rtol=1e-10, what=name)
    for key, values in args[0].items():
        distribution, method = key.rsplit("_", 1)
        if distribution == "dirichlet":
            values = (args[3][0] if method == "logpdf" else args[3][1], *values)
        elif distribution == "binom":
            values = (args[1], args[2], *values)
        elif distribution != "multivariate_normal" and len(args) > 1:
            values = ((args[1] > 2) if distribution == "bernoulli" else args[1], *values)
        ours = getattr(scipy_stats, key)(*values)
        theirs = getattr(getattr(stats, distribution), method)(*values)
        assert_close(ours, theirs, rtol=1e-10, what=key)


def test_dirichlet_gradient_in_x():
    """scipy checks that x lies on the simplex, so finite differences in x are taken of the
    formula (the density's own extension off the simplex)."""
    from s2sad.templates import scipy_stats

    def f(x, alpha):
        return np.sum(stats.dirichlet.logpdf(x, alpha))

    x, alpha = RNG.dirichlet([2.0, 3.0, 4.0], 4).T, uniform(0.8, 4.0, (3,))
    got = s2sad.grad(f, jit=False)(x, alpha)
    expected = finite_difference(lambda x, a: np.sum(scipy_stats.dirichlet_logpdf(x, a)),
                                 (x, alpha), 0)
    assert_close(got, expected)


# ---- frozen distributions ---------------------------------------------------------------------

def frozen(x, mu, s, y):
    d = norm(mu, scale=s)
    heavy = t(4.0, loc=mu)
    return np.sum(d.logpdf(x)) + np.sum(FROZEN.logcdf(x)) + np.sum(heavy.pdf(x)) + \
        np.sum(FROZEN_MVN.logpdf(y))


def test_frozen_distributions_module_level_and_made_inside():
    args = (RNG.normal(size=3), 0.3, 1.7, RNG.normal(size=(3, 2)))
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)
        check_gradient(frozen, args, (0, 1, 2, 3))
    text = s2sad.grad(frozen, wrt=(1, 2), jit=False).source
    assert "stats_norm_logpdf(x, d_0, scale=d_scale)" in text
    assert "stats_norm_logcdf(x, 0.5, 2.0)" in text


# ---- whole functions --------------------------------------------------------------------------

def gp_negative_log_likelihood(log_ell, log_sf, log_noise, X, y):
    """A Gaussian process with a squared-exponential kernel on 1-D inputs X."""
    d2 = (X[:, None] - X[None, :]) ** 2
    K = np.exp(2.0 * log_sf - 0.5 * d2 / np.exp(2.0 * log_ell)) + \
        np.exp(2.0 * log_noise) * np.eye(len(X))
    return -multivariate_normal.logpdf(y, np.zeros(len(X)), K)


def test_gaussian_process_likelihood():
    X = np.sort(RNG.uniform(0.0, 5.0, 8))
    y = np.sin(X) + 0.1 * RNG.normal(size=8)
    check_gradient(gp_negative_log_likelihood, (0.1, -0.2, -1.5, X, y), (0, 1, 2))


def nbinom_negative_log_likelihood(log_n, logit_p, k):
    n, p = np.exp(log_n), 1.0 / (1.0 + np.exp(-logit_p))
    return -np.sum(nbinom.logpmf(k, n, p))


def test_negative_binomial_fit():
    from scipy.optimize import minimize
    k = RNG.negative_binomial(3.0, 0.4, 200)
    check_gradient(nbinom_negative_log_likelihood, (0.5, 0.1, k), (0, 1))
    grad = s2sad.value_and_grad(nbinom_negative_log_likelihood, wrt=(0, 1))

    def objective(theta):
        value, (dn, dp) = grad(theta[0], theta[1], k)
        return value, np.array([dn, dp])

    fit = minimize(objective, np.zeros(2), jac=True, method="BFGS")
    assert fit.success and np.max(np.abs(fit.jac)) < 1e-5
    reference = minimize(lambda v: nbinom_negative_log_likelihood(v[0], v[1], k), np.zeros(2),
                         method="Nelder-Mead", options={"xatol": 1e-8, "fatol": 1e-10})
    assert_close(fit.x, reference.x, rtol=1e-4)


# ---- what is not covered ----------------------------------------------------------------------

def weibull(x, c):
    return np.sum(stats.weibull_min.logpdf(x, c))


def student_quantile(q, df):
    return np.sum(t.ppf(q, df))


def test_an_uncovered_distribution_or_method_is_an_error_naming_it():
    with pytest.raises(s2sad.UnsupportedError) as error:
        s2sad.grad(weibull, jit=False)(np.ones(3), 1.5)
    text = str(error.value)
    assert "scipy.stats.weibull_min.logpdf has no rule in s2sad" in text
    assert "@s2sad.adjoint" in text and "_distn_infrastructure" not in text
    with pytest.raises(s2sad.UnsupportedError, match=r"scipy\.stats\.t\.ppf has no rule"):
        s2sad.grad(student_quantile, jit=False)(np.full(3, 0.5), 3.0)
