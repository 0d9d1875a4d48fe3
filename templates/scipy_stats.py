"""scipy.stats: the densities, distribution functions and mass functions of its common
distributions, written out as plain functions of NumPy and scipy.special, which s2sad
differentiates from their source like a function of the user's (and Numba compiles: the
scipy.special calls become s2sad's helpers, templates/scipy_special.py).

A call of a distribution's method is bound to the function named `<distribution>_<method>`
here (front/library_calls.py), its arguments passed as they are written, so each function has
scipy's parameters, with their names and defaults:

    scipy.stats.norm.logpdf(x, m, s)           -->  norm_logpdf(x, m, s)
    t.logpdf(x, df, scale=s)                   -->  t_logpdf(x, df, scale=s)
    norm(mu, s).cdf(x), frozen, by its values  -->  norm_cdf(x, mu, s)

Every argument but the data of a discrete distribution (the count k) is differentiated: x,
loc, scale and the shape parameters. The formulas hold inside the support with valid
parameters (scipy returns -inf or NaN outside, and so may these); they agree with scipy to
about 1e-13 relative there (tests/test_scipy_stats.py).

The distribution functions of t, gamma, beta and the discrete distributions are incomplete
gamma and beta functions (templates/scipy_incomplete.py): differentiated w.r.t. x, loc, scale
and the discrete distributions' continuous parameters (mu, p); a derivative w.r.t. a shape
parameter they hold (df, a, b, and nbinom's n) is an error naming it, never a zero.

Not here: quantiles, moments and sampling; a call of them is an error naming the method.
"""
import math

import numpy
from scipy import special

LOG_2PI = math.log(2.0 * math.pi)
LOG_PI = math.log(math.pi)
LOG_HALF = math.log(0.5)


# ---- location-scale families: z = (x - loc) / scale, density f(z) / scale --------------------

def norm_logpdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return -0.5 * z * z - numpy.log(scale) - 0.5 * LOG_2PI


def norm_pdf(x, loc=0.0, scale=1.0):
    return numpy.exp(norm_logpdf(x, loc, scale))


def norm_cdf(x, loc=0.0, scale=1.0):
    return special.ndtr((x - loc) / scale)


def norm_logcdf(x, loc=0.0, scale=1.0):
    return special.log_ndtr((x - loc) / scale)


def expon_logpdf(x, loc=0.0, scale=1.0):
    return -(x - loc) / scale - numpy.log(scale)


def expon_pdf(x, loc=0.0, scale=1.0):
    return numpy.exp(expon_logpdf(x, loc, scale))


def expon_cdf(x, loc=0.0, scale=1.0):
    return -numpy.expm1(-(x - loc) / scale)


def expon_logcdf(x, loc=0.0, scale=1.0):
    return numpy.log(-numpy.expm1(-(x - loc) / scale))


def laplace_logpdf(x, loc=0.0, scale=1.0):
    return -numpy.abs((x - loc) / scale) - numpy.log(2.0 * scale)


def laplace_pdf(x, loc=0.0, scale=1.0):
    return numpy.exp(laplace_logpdf(x, loc, scale))


# Half of e^-|z| is the mass beyond |z| on either side.
def laplace_cdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    tail = 0.5 * numpy.exp(-numpy.abs(z))
    return numpy.where(z < 0.0, tail, 1.0 - tail)


def laplace_logcdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return numpy.where(z < 0.0, LOG_HALF - numpy.abs(z),
                       numpy.log1p(-0.5 * numpy.exp(-numpy.abs(z))))


# f(z) = e^-z / (1 + e^-z)^2, symmetric in z: written in |z|, nothing overflows.
def logistic_logpdf(x, loc=0.0, scale=1.0):
    a = numpy.abs((x - loc) / scale)
    return -a - 2.0 * numpy.log1p(numpy.exp(-a)) - numpy.log(scale)


def logistic_pdf(x, loc=0.0, scale=1.0):
    return numpy.exp(logistic_logpdf(x, loc, scale))


def logistic_cdf(x, loc=0.0, scale=1.0):
    return special.expit((x - loc) / scale)


def logistic_logcdf(x, loc=0.0, scale=1.0):
    return special.log_expit((x - loc) / scale)


def cauchy_logpdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return -numpy.log1p(z * z) - numpy.log(scale) - LOG_PI


def cauchy_pdf(x, loc=0.0, scale=1.0):
    return numpy.exp(cauchy_logpdf(x, loc, scale))


# 1/2 + arctan(z)/pi = arctan2(1, -z)/pi: no cancellation far in the left tail.
def cauchy_cdf(x, loc=0.0, scale=1.0):
    return numpy.arctan2(1.0, -(x - loc) / scale) / math.pi


def cauchy_logcdf(x, loc=0.0, scale=1.0):
    return numpy.log(numpy.arctan2(1.0, -(x - loc) / scale)) - LOG_PI


# ---- shape parameters ------------------------------------------------------------------------

# log y ~ N(0, s^2), y = (x - loc) / scale
def lognorm_logpdf(x, s, loc=0.0, scale=1.0):
    u = numpy.log((x - loc) / scale)
    return -0.5 * (u / s) ** 2 - u - numpy.log(s) - numpy.log(scale) - 0.5 * LOG_2PI


def lognorm_pdf(x, s, loc=0.0, scale=1.0):
    return numpy.exp(lognorm_logpdf(x, s, loc, scale))


def lognorm_cdf(x, s, loc=0.0, scale=1.0):
    return special.ndtr(numpy.log((x - loc) / scale) / s)


def lognorm_logcdf(x, s, loc=0.0, scale=1.0):
    return special.log_ndtr(numpy.log((x - loc) / scale) / s)


# Student's t with df degrees of freedom:
# Gamma((df+1)/2) / (Gamma(df/2) sqrt(df pi)) (1 + z^2/df)^(-(df+1)/2)
def t_logpdf(x, df, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return special.gammaln(0.5 * (df + 1.0)) - special.gammaln(0.5 * df) - \
        0.5 * (numpy.log(df) + LOG_PI) - 0.5 * (df + 1.0) * numpy.log1p(z * z / df) - \
        numpy.log(scale)


def t_pdf(x, df, loc=0.0, scale=1.0):
    return numpy.exp(t_logpdf(x, df, loc, scale))


def t_cdf(x, df, loc=0.0, scale=1.0):
    return special.stdtr(df, (x - loc) / scale)


def t_logcdf(x, df, loc=0.0, scale=1.0):
    return numpy.log(special.stdtr(df, (x - loc) / scale))


def t_sf(x, df, loc=0.0, scale=1.0):
    return special.stdtr(df, -(x - loc) / scale)


def t_logsf(x, df, loc=0.0, scale=1.0):
    return numpy.log(special.stdtr(df, -(x - loc) / scale))


# y^(a-1) e^-y / Gamma(a)
def gamma_logpdf(x, a, loc=0.0, scale=1.0):
    y = (x - loc) / scale
    return special.xlogy(a - 1.0, y) - y - special.gammaln(a) - numpy.log(scale)


def gamma_pdf(x, a, loc=0.0, scale=1.0):
    return numpy.exp(gamma_logpdf(x, a, loc, scale))


def gamma_cdf(x, a, loc=0.0, scale=1.0):
    return special.gammainc(a, (x - loc) / scale)


def gamma_logcdf(x, a, loc=0.0, scale=1.0):
    return numpy.log(special.gammainc(a, (x - loc) / scale))


def gamma_sf(x, a, loc=0.0, scale=1.0):
    return special.gammaincc(a, (x - loc) / scale)


def gamma_logsf(x, a, loc=0.0, scale=1.0):
    return numpy.log(special.gammaincc(a, (x - loc) / scale))


# y^(a-1) (1-y)^(b-1) / B(a, b)
def beta_logpdf(x, a, b, loc=0.0, scale=1.0):
    y = (x - loc) / scale
    return special.xlogy(a - 1.0, y) + special.xlog1py(b - 1.0, -y) - special.betaln(a, b) - \
        numpy.log(scale)


def beta_pdf(x, a, b, loc=0.0, scale=1.0):
    return numpy.exp(beta_logpdf(x, a, b, loc, scale))


def beta_cdf(x, a, b, loc=0.0, scale=1.0):
    return special.betainc(a, b, (x - loc) / scale)


def beta_logcdf(x, a, b, loc=0.0, scale=1.0):
    return numpy.log(special.betainc(a, b, (x - loc) / scale))


# 1 - I_y(a, b) = I_(1-y)(b, a): no cancellation near y = 1
def beta_sf(x, a, b, loc=0.0, scale=1.0):
    return special.betainc(b, a, 1.0 - (x - loc) / scale)


def beta_logsf(x, a, b, loc=0.0, scale=1.0):
    return numpy.log(special.betainc(b, a, 1.0 - (x - loc) / scale))


# ---- multivariate ---------------------------------------------------------------------------

# cov = L L^T: log N(x; mean, cov) = -(d log 2 pi + 2 sum log diag L + |L^-1 (x - mean)|^2) / 2.
# x is one point (d,) or a row per point (n, d): the result is a number or (n,).
def multivariate_normal_logpdf(x, mean, cov):
    lower = numpy.linalg.cholesky(cov)
    u = numpy.linalg.solve(lower, numpy.transpose(x - mean))
    logdet = 2.0 * numpy.sum(numpy.log(numpy.diag(lower)))
    return -0.5 * (numpy.sum(u * u, axis=0) + logdet + len(lower) * LOG_2PI)


def multivariate_normal_pdf(x, mean, cov):
    return numpy.exp(multivariate_normal_logpdf(x, mean, cov))


# x on the simplex, one point (k,) or a column per point (k, n):
# Gamma(sum alpha) / prod Gamma(alpha) prod x^(alpha - 1)
def dirichlet_logpdf(x, alpha):
    terms = numpy.transpose(special.xlogy(alpha - 1.0, numpy.transpose(x)))
    return numpy.sum(terms, axis=0) + special.gammaln(numpy.sum(alpha)) - \
        numpy.sum(special.gammaln(alpha))


def dirichlet_pdf(x, alpha):
    return numpy.exp(dirichlet_logpdf(x, alpha))


# ---- discrete: the count k is data --------------------------------------------------------------

def poisson_logpmf(k, mu, loc=0):
    k = k - loc
    return special.xlogy(k, mu) - mu - special.gammaln(k + 1.0)


def poisson_pmf(k, mu, loc=0):
    return numpy.exp(poisson_logpmf(k, mu, loc))


# P(K <= k) = Q(floor(k) + 1, mu): d/dmu = -pmf(floor(k), mu)
def poisson_cdf(k, mu, loc=0):
    k = numpy.floor(k - loc)
    return numpy.where(k < 0.0, 0.0, special.gammaincc(numpy.maximum(k, 0.0) + 1.0, mu))


def poisson_sf(k, mu, loc=0):
    k = numpy.floor(k - loc)
    return numpy.where(k < 0.0, 1.0, special.gammainc(numpy.maximum(k, 0.0) + 1.0, mu))


# C(n, k) p^k (1-p)^(n-k); n (a count) may be any positive number
def binom_logpmf(k, n, p, loc=0):
    k = k - loc
    return special.gammaln(n + 1.0) - special.gammaln(k + 1.0) - \
        special.gammaln(n - k + 1.0) + special.xlogy(k, p) + special.xlog1py(n - k, -p)


def binom_pmf(k, n, p, loc=0):
    return numpy.exp(binom_logpmf(k, n, p, loc))


# P(K <= k) = I_(1-p)(n - k, k + 1) for 0 <= k < n (0 below, 1 from n on)
def binom_cdf(k, n, p, loc=0):
    k = numpy.clip(numpy.floor(k - loc), -1.0, n)
    inside = numpy.clip(k, 0.0, n - 1.0)
    return numpy.where(k < 0.0, 0.0, numpy.where(
        k >= n, 1.0, special.betainc(n - inside, inside + 1.0, 1.0 - p)))


def binom_sf(k, n, p, loc=0):
    k = numpy.clip(numpy.floor(k - loc), -1.0, n)
    inside = numpy.clip(k, 0.0, n - 1.0)
    return numpy.where(k < 0.0, 1.0, numpy.where(
        k >= n, 0.0, special.betainc(inside + 1.0, n - inside, p)))


# k failures before the n-th success: C(k + n - 1, k) p^n (1-p)^k, n > 0 real
def nbinom_logpmf(k, n, p, loc=0):
    k = k - loc
    return special.gammaln(n + k) - special.gammaln(n) - special.gammaln(k + 1.0) + \
        n * numpy.log(p) + special.xlog1py(k, -p)


def nbinom_pmf(k, n, p, loc=0):
    return numpy.exp(nbinom_logpmf(k, n, p, loc))


# P(K <= k) = I_p(n, k + 1) for k >= 0
def nbinom_cdf(k, n, p, loc=0):
    k = numpy.floor(k - loc)
    return numpy.where(k < 0.0, 0.0, special.betainc(n, numpy.maximum(k, 0.0) + 1.0, p))


def nbinom_sf(k, n, p, loc=0):
    k = numpy.floor(k - loc)
    return numpy.where(k < 0.0, 1.0, special.betainc(numpy.maximum(k, 0.0) + 1.0, n, 1.0 - p))


def bernoulli_logpmf(k, p, loc=0):
    k = k - loc
    return special.xlogy(k, p) + special.xlog1py(1.0 - k, -p)


def bernoulli_pmf(k, p, loc=0):
    return numpy.exp(bernoulli_logpmf(k, p, loc))


def bernoulli_cdf(k, p, loc=0):
    k = k - loc
    return numpy.where(k < 0.0, 0.0, numpy.where(k < 1.0, 1.0 - p, 1.0))


def bernoulli_sf(k, p, loc=0):
    return 1.0 - bernoulli_cdf(k, p, loc)
