"""scipy.special's regularized incomplete gamma and beta functions and Student's t CDF
(s2sad/runtime/special_incomplete.py compiles them): the distribution functions of gamma, beta,
t and of the discrete distributions (templates/scipy_stats.py). Loaded with scipy_special.py.

Their derivative w.r.t. the bound x is the density; w.r.t. a shape parameter (a, b, df) it has
no closed form: s2sad's runtime computes it by differentiating the series and continued
fractions the values are computed with (s2sad/runtime/special_parameters.py).
"""
import math

import numpy
from scipy import special

from s2sad.runtime import rt  # noqa: F401  (templates name rt's helpers; they are read, not run)

from .registry import adjoint, check, d, nondifferentiable, tangent

A3 = "numpy.array([0.6, 2.0, 7.5])"


# P(a, x) and Q(a, x) = 1 - P(a, x): dP/dx = x^(a-1) e^-x / Gamma(a), the gamma density
@adjoint(special.gammainc, broadcasting=True, call_as=rt.gammainc, domain=(0.2, 6.0), checks=[
    check("{f}(2.5, x)", x=()), check("{f}(0.7, x)", x=(4,)),
    check(f"{{f}}({A3}, x)", x=(3,)), check("{f}(a, 1.3)", a=(), domain=(0.3, 5.0)),
    check("{f}(a, x)", a=(3,), x=(3,), domain=(0.3, 5.0)),
    check("{f}(a, 9.0)", a=(2,), domain=(0.5, 4.0))])
def gammainc(z, a, x):
    d[a] = d[z] * rt.gammainc_da(a, x)
    d[x] = d[z] * numpy.exp(rt.xlogy(a - 1.0, x) - x - rt.gammaln(a))


@tangent(special.gammainc)
def gammainc_tangent(z, a, x):
    d[z] = d[x] * numpy.exp(rt.xlogy(a - 1.0, x) - x - rt.gammaln(a)) + \
        d[a] * rt.gammainc_da(a, x)


@adjoint(special.gammaincc, broadcasting=True, call_as=rt.gammaincc, domain=(0.2, 6.0),
         checks=[
    check("{f}(2.5, x)", x=()), check("{f}(0.7, x)", x=(4,)),
    check(f"{{f}}({A3}, x)", x=(3,)), check("{f}(a, 1.3)", a=(), domain=(0.3, 5.0)),
    check("{f}(a, x)", a=(3,), x=(3,), domain=(0.3, 5.0)),
    check("{f}(a, 9.0)", a=(2,), domain=(0.5, 4.0))])
def gammaincc(z, a, x):
    d[a] = -d[z] * rt.gammainc_da(a, x)
    d[x] = -d[z] * numpy.exp(rt.xlogy(a - 1.0, x) - x - rt.gammaln(a))


@tangent(special.gammaincc)
def gammaincc_tangent(z, a, x):
    d[z] = -d[x] * numpy.exp(rt.xlogy(a - 1.0, x) - x - rt.gammaln(a)) - \
        d[a] * rt.gammainc_da(a, x)


# I_x(a, b): dI/dx = x^(a-1) (1-x)^(b-1) / B(a, b), the beta density
@adjoint(special.betainc, broadcasting=True, call_as=rt.betainc, domain=(0.05, 0.95), checks=[
    check("{f}(2.5, 0.7, x)", x=()), check("{f}(0.8, 3.0, x)", x=(4,)),
    check(f"{{f}}({A3}, 1.5, x)", x=(3,)),
    check("{f}(a, b, 0.35)", a=(), b=(), domain=(0.3, 4.0)),
    check("{f}(a, b, 0.8)", a=(2,), b=(2,), domain=(0.3, 4.0)),
    check("{f}(a, 2.0, x)", a=(3,), x=(3,), domain=(0.1, 0.9))])
def betainc(z, a, b, x):
    d[a] = d[z] * rt.betainc_da(a, b, x)
    d[b] = d[z] * rt.betainc_db(a, b, x)
    d[x] = d[z] * numpy.exp(rt.xlogy(a - 1.0, x) + rt.xlog1py(b - 1.0, -x) - rt.betaln(a, b))


@tangent(special.betainc)
def betainc_tangent(z, a, b, x):
    d[z] = d[x] * numpy.exp(rt.xlogy(a - 1.0, x) + rt.xlog1py(b - 1.0, -x) - rt.betaln(a, b)) + \
        d[a] * rt.betainc_da(a, b, x) + d[b] * rt.betainc_db(a, b, x)


# the t density: Gamma((df+1)/2) / (Gamma(df/2) sqrt(df pi)) (1 + t^2/df)^(-(df+1)/2)
@adjoint(special.stdtr, broadcasting=True, call_as=rt.stdtr, domain=(-4.0, 4.0), checks=[
    check("{f}(3.0, x)", x=()), check("{f}(1.5, x)", x=(4,)),
    check(f"{{f}}({A3}, x)", x=(3,)), check("{f}(df, 1.2)", df=(), domain=(0.5, 8.0)),
    check("{f}(df, -0.7)", df=(4,), domain=(0.5, 8.0)),
    check("{f}(df, t)", df=(3,), t=(3,), domain=(0.5, 4.0))])
def stdtr(z, df, t):
    d[df] = d[z] * rt.stdtr_ddf(df, t)
    d[t] = d[z] * numpy.exp(rt.gammaln(0.5 * (df + 1.0)) - rt.gammaln(0.5 * df) -
                            0.5 * (numpy.log(df) + math.log(math.pi)) -
                            0.5 * (df + 1.0) * numpy.log1p(t * t / df))


@tangent(special.stdtr)
def stdtr_tangent(z, df, t):
    d[z] = d[t] * numpy.exp(rt.gammaln(0.5 * (df + 1.0)) - rt.gammaln(0.5 * df) -
                            0.5 * (numpy.log(df) + math.log(math.pi)) -
                            0.5 * (df + 1.0) * numpy.log1p(t * t / df)) + \
        d[df] * rt.stdtr_ddf(df, t)


# ---- the shape-parameter derivatives themselves, for second derivatives ----------------------
# W.r.t. the bound they are the density's derivative in the parameter (closed form); w.r.t. the
# parameter again (d2P/da2, ...) s2sad has none: an error naming it, never a zero.


@adjoint(rt.gammainc_da, broadcasting=True, domain=(0.2, 6.0), checks=[
    check("{f}(2.5, x)", x=()), check("{f}(0.7, x)", x=(4,))])
def gammainc_da(z, a, x):
    d[a] = rt.no_derivative(d[z], "no second derivative in a shape parameter")
    d[x] = d[z] * numpy.exp(rt.xlogy(a - 1.0, x) - x - rt.gammaln(a)) * \
        (numpy.log(x) - rt.digamma(a))


@tangent(rt.gammainc_da)
def gammainc_da_tangent(z, a, x):
    d[z] = d[x] * numpy.exp(rt.xlogy(a - 1.0, x) - x - rt.gammaln(a)) * \
        (numpy.log(x) - rt.digamma(a)) + \
        rt.no_derivative(d[a], "no second derivative in a shape parameter")


@adjoint(rt.betainc_da, broadcasting=True, domain=(0.05, 0.95), checks=[
    check("{f}(2.5, 0.7, x)", x=()), check("{f}(0.8, 3.0, x)", x=(4,))])
def betainc_da(z, a, b, x):
    d[a] = rt.no_derivative(d[z], "no second derivative in a shape parameter")
    d[b] = rt.no_derivative(d[z], "no second derivative in a shape parameter")
    d[x] = d[z] * numpy.exp(rt.xlogy(a - 1.0, x) + rt.xlog1py(b - 1.0, -x) - rt.betaln(a, b)) * \
        (numpy.log(x) - rt.digamma(a) + rt.digamma(a + b))


@tangent(rt.betainc_da)
def betainc_da_tangent(z, a, b, x):
    d[z] = d[x] * numpy.exp(rt.xlogy(a - 1.0, x) + rt.xlog1py(b - 1.0, -x) - rt.betaln(a, b)) * \
        (numpy.log(x) - rt.digamma(a) + rt.digamma(a + b)) + \
        rt.no_derivative(d[a], "no second derivative in a shape parameter") + \
        rt.no_derivative(d[b], "no second derivative in a shape parameter")


@adjoint(rt.betainc_db, broadcasting=True, domain=(0.05, 0.95), checks=[
    check("{f}(2.5, 0.7, x)", x=()), check("{f}(0.8, 3.0, x)", x=(4,))])
def betainc_db(z, a, b, x):
    d[a] = rt.no_derivative(d[z], "no second derivative in a shape parameter")
    d[b] = rt.no_derivative(d[z], "no second derivative in a shape parameter")
    d[x] = d[z] * numpy.exp(rt.xlogy(a - 1.0, x) + rt.xlog1py(b - 1.0, -x) - rt.betaln(a, b)) * \
        (numpy.log1p(-x) - rt.digamma(b) + rt.digamma(a + b))


@tangent(rt.betainc_db)
def betainc_db_tangent(z, a, b, x):
    d[z] = d[x] * numpy.exp(rt.xlogy(a - 1.0, x) + rt.xlog1py(b - 1.0, -x) - rt.betaln(a, b)) * \
        (numpy.log1p(-x) - rt.digamma(b) + rt.digamma(a + b)) + \
        rt.no_derivative(d[a], "no second derivative in a shape parameter") + \
        rt.no_derivative(d[b], "no second derivative in a shape parameter")


# d/dt of d stdtr/ddf: the t density times d/ddf of its log
@adjoint(rt.stdtr_ddf, broadcasting=True, domain=(-4.0, 4.0), checks=[
    check("{f}(3.0, x)", x=()), check("{f}(1.5, x)", x=(4,))])
def stdtr_ddf(z, df, t):
    d[df] = rt.no_derivative(d[z], "no second derivative in a shape parameter")
    d[t] = d[z] * numpy.exp(rt.gammaln(0.5 * (df + 1.0)) - rt.gammaln(0.5 * df) -
                            0.5 * (numpy.log(df) + math.log(math.pi)) -
                            0.5 * (df + 1.0) * numpy.log1p(t * t / df)) * \
        (0.5 * (rt.digamma(0.5 * (df + 1.0)) - rt.digamma(0.5 * df) - 1.0 / df -
                numpy.log1p(t * t / df)) + 0.5 * (df + 1.0) * t * t / (df * (df + t * t)))


@tangent(rt.stdtr_ddf)
def stdtr_ddf_tangent(z, df, t):
    d[z] = d[t] * numpy.exp(rt.gammaln(0.5 * (df + 1.0)) - rt.gammaln(0.5 * df) -
                            0.5 * (numpy.log(df) + math.log(math.pi)) -
                            0.5 * (df + 1.0) * numpy.log1p(t * t / df)) * \
        (0.5 * (rt.digamma(0.5 * (df + 1.0)) - rt.digamma(0.5 * df) - 1.0 / df -
                numpy.log1p(t * t / df)) + 0.5 * (df + 1.0) * t * t / (df * (df + t * t))) + \
        rt.no_derivative(d[df], "no second derivative in a shape parameter")


nondifferentiable(rt.no_derivative, result="stop")  # never runs: the transformer reports it
