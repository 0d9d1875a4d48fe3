"""scipy.special: the gamma and error functions and their inverses, the logistic function,
entropies, the modified Bessel functions I0 and I1, logsumexp, softmax and log_softmax.

Numba cannot call scipy.special, so each rule names the `rt` helper generated code calls in the
function's place (`call_as`, templates/__init__.py): s2sad's own code where Numba compiles it,
scipy itself as Python (s2sad/runtime/special_scipy.py). Loaded when
scipy.special is imported (registry.library_rules). Elementwise functions (scipy's ufuncs) get
the default checks, over the rule's domain, and a tangent derived from the adjoint.
"""
import math

import numpy
from scipy import special

from s2sad.runtime import rt  # noqa: F401  (templates name rt's helpers; they are read, not run)

from .operators import binary
from .registry import adjoint, check, d, nondifferentiable, tangent

# ---- gamma and its relatives ----------------------------------------------------------------


@adjoint(special.gammaln, call_as=rt.gammaln, checks=[
    check("{f}(x)", x=(), domain=(0.2, 8.0)), check("{f}(x)", x=(4,), domain=(0.2, 8.0)),
    check("{f}(x)", x=(2, 3), domain=(-0.9, -0.1))])
def gammaln(z, x):
    d[x] = d[z] * rt.digamma(x)


@adjoint(special.gamma, call_as=rt.gamma, checks=[
    check("{f}(x)", x=(), domain=(0.2, 5.0)), check("{f}(x)", x=(4,), domain=(0.2, 5.0)),
    check("{f}(x)", x=(2, 3), domain=(-1.9, -1.1))])
def gamma(z, x):
    d[x] = d[z] * z * rt.digamma(x)


# digamma is psi: one object, one rule.
@adjoint(special.digamma, call_as=rt.sp_digamma, checks=[
    check("{f}(x)", x=(), domain=(0.2, 8.0)), check("{f}(x)", x=(4,), domain=(0.2, 8.0)),
    check("{f}(x)", x=(2, 3), domain=(-0.9, -0.1))])
def digamma(z, x):
    d[x] = d[z] * rt.polygamma(1, x)


@adjoint(special.polygamma, broadcasting=True, call_as=rt.sp_polygamma, checks=[
    check("{f}(1, x)", x=(), domain=(0.2, 8.0)), check("{f}(2, x)", x=(4,), domain=(0.2, 8.0)),
    check("{f}(3, x)", x=(2, 3), domain=(1.1, 1.9))])
def polygamma(z, n, x):
    d[n] = rt.no_derivative(d[z], "the order n of polygamma(n, x) is an integer")
    d[x] = d[z] * rt.polygamma(n + 1, x)


@tangent(special.polygamma)   # a Python function, not a ufunc: its tangent is written out
def polygamma_tangent(z, n, x):
    d[z] = d[x] * rt.polygamma(n + 1, x) + \
        rt.no_derivative(d[n], "the order n of polygamma(n, x) is an integer")


@adjoint(special.betaln, broadcasting=True, call_as=rt.betaln, domain=(0.3, 6.0))
def betaln(z, a, b):
    d[a] = d[z] * (rt.digamma(a) - rt.digamma(a + b))
    d[b] = d[z] * (rt.digamma(b) - rt.digamma(a + b))


# multigammaln(a, d) = d(d-1)/4 log(pi) + sum_{j < d} gammaln(a - j/2), for a > (d - 1)/2 (the
# template names d `dim`: `d` is the adjoint).
@adjoint(special.multigammaln, call_as=rt.multigammaln, domain=(2.1, 6.0), checks=[
    check("{f}(x, 3)", x=()), check("{f}(x, 1)", x=(4,)), check("{f}(x, 4)", x=(2, 3))])
def multigammaln(z, a, dim):
    d[a] = d[z] * rt.multipolygamma(0, a, dim)


@tangent(special.multigammaln)
def multigammaln_tangent(z, a, dim):
    d[z] = d[a] * rt.multipolygamma(0, a, dim)


# ---- the error function, the normal distribution ------------------------------------------------

@adjoint(special.erf, call_as=rt.erf)
def erf(z, x):
    d[x] = d[z] * (2.0 / math.sqrt(math.pi)) * numpy.exp(-x * x)


@adjoint(special.erfc, call_as=rt.erfc)
def erfc(z, x):
    d[x] = -d[z] * (2.0 / math.sqrt(math.pi)) * numpy.exp(-x * x)


@adjoint(special.erfinv, call_as=rt.erfinv, domain=(-0.95, 0.95))
def erfinv(z, x):
    d[x] = d[z] * (0.5 * math.sqrt(math.pi)) * numpy.exp(z * z)


@adjoint(special.ndtr, call_as=rt.ndtr, domain=(-4.0, 4.0))
def ndtr(z, x):
    d[x] = d[z] * numpy.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


# d/dx log Phi(x) = phi(x) / Phi(x) = exp(-x^2/2 - log Phi(x)) / sqrt(2 pi): no underflow far left.
@adjoint(special.log_ndtr, call_as=rt.log_ndtr, domain=(-4.0, 4.0), checks=[
    check("{f}(x)", x=()), check("{f}(x)", x=(4,)), check("{f}(x)", x=(2, 3)),
    check("{f}(x)", x=(3,), domain=(-40.0, -20.0))])
def log_ndtr(z, x):
    d[x] = d[z] * numpy.exp(-0.5 * x * x - z) / math.sqrt(2.0 * math.pi)


@adjoint(special.ndtri, call_as=rt.ndtri, domain=(0.02, 0.98))
def ndtri(z, y):
    d[y] = d[z] * math.sqrt(2.0 * math.pi) * numpy.exp(0.5 * z * z)


# ---- the logistic function ------------------------------------------------------------------

@adjoint(special.expit, call_as=rt.expit, domain=(-6.0, 6.0))
def expit(z, x):
    d[x] = d[z] * z * (1.0 - z)


@adjoint(special.logit, call_as=rt.logit, domain=(0.05, 0.95))
def logit(z, x):
    d[x] = d[z] / (x * (1.0 - x))


# d/dx log expit(x) = 1 - expit(x) = -expm1(log expit(x)): exact where expit(x) is near 1.
@adjoint(special.log_expit, call_as=rt.log_expit, domain=(-6.0, 6.0))
def log_expit(z, x):
    d[x] = -d[z] * numpy.expm1(z)


# ---- x log y and the entropies ----------------------------------------------------------------

@adjoint(special.xlogy, broadcasting=True, call_as=rt.xlogy, domain=(0.2, 3.0), checks=binary(
    check("{f}(x, 2.0)", x=(3,)), check("{f}(0.0, y)", y=(3,))))
def xlogy(z, x, y):
    d[x] = d[z] * numpy.log(y)
    d[y] = d[z] * x / y


@adjoint(special.xlog1py, broadcasting=True, call_as=rt.xlog1py, domain=(-0.5, 3.0))
def xlog1py(z, x, y):
    d[x] = d[z] * numpy.log1p(y)
    d[y] = d[z] * x / (1.0 + y)


@adjoint(special.entr, call_as=rt.entr, domain=(0.1, 3.0))
def entr(z, x):
    d[x] = -d[z] * (numpy.log(x) + 1.0)


@adjoint(special.rel_entr, broadcasting=True, call_as=rt.rel_entr, domain=(0.1, 3.0))
def rel_entr(z, x, y):
    d[x] = d[z] * (numpy.log(x / y) + 1.0)
    d[y] = -d[z] * x / y


@adjoint(special.kl_div, broadcasting=True, call_as=rt.kl_div, domain=(0.1, 3.0))
def kl_div(z, x, y):
    d[x] = d[z] * numpy.log(x / y)
    d[y] = d[z] * (1.0 - x / y)


# ---- modified Bessel functions: I0' = I1, I1' = (I0 + I2) / 2 ---------------------------------

@adjoint(special.i0, call_as=rt.i0, domain=(-4.0, 4.0))
def i0(z, x):
    d[x] = d[z] * rt.bessel_i(1, x)


@adjoint(special.i1, call_as=rt.i1, domain=(-4.0, 4.0))
def i1(z, x):
    d[x] = d[z] * 0.5 * (rt.bessel_i(0, x) + rt.bessel_i(2, x))


# ---- log-sum-exp and softmax ----------------------------------------------------------------
# With w = b e^(a - z) (the weights summing to 1 along the axis), dz/da = w and dz/db = e^(a - z);
# s = softmax(x): ds = s (dx - sum(s dx)), and d log_softmax = dx - sum(s dx), sums along axis.
R, B = (3, 4), (2, 3, 4)


@adjoint(special.logsumexp, broadcasting=True, call_as=rt.logsumexp, domain=(-3.0, 3.0), checks=[
    check("{f}(x)", x=(5,)), check("{f}(x)", x=R), check("{f}(x, axis=1)", x=R),
    check("{f}(x, -1)", x=B), check("{f}(x, axis=0, keepdims=True)", x=R),
    check("{f}(x, keepdims=True)", x=R), check("{f}(x, axis=(0, 2))", x=B, numba=False),
    # positive weights (a negative sum has no logarithm)
    check("{f}(x, b=w)", x=(5,), w=(5,), domain=(0.2, 3.0)),
    check("{f}(x, axis=1, b=w)", x=R, w=(4,), domain=(0.2, 3.0)),
    check("{f}(x, 0, w)", x=R, w=R, domain=(0.2, 3.0)),
    check("{f}(x, axis=0, b=w, keepdims=True)", x=B, w=(3, 4), domain=(0.2, 3.0)),
    # weights of both signs: (log|sum|, sign)
    check("out, sign = {f}(x, b=w - 1.0, return_sign=True)", x=(5,), w=(5,), domain=(0.0, 2.0),
          numba=False),
    check("out, sign = {f}(x, axis=1, b=w - 1.0, return_sign=True)\nout = out * sign",
          x=R, w=R, domain=(0.0, 2.0), numba=False)])
def logsumexp(z, a, axis=None, b=None, keepdims=False, return_sign=False):
    d[a] = rt.weighted(rt.unreduce(rt.lse_value(d[z]), a, axis) * rt.lse_sign(z, a, axis) *
                       numpy.exp(a - rt.unreduce(rt.lse_value(z), a, axis)), b)
    d[b] = rt.unreduce(rt.lse_value(d[z]), a, axis) * rt.lse_sign(z, a, axis) * \
        numpy.exp(a - rt.unreduce(rt.lse_value(z), a, axis))


@tangent(special.logsumexp)
def logsumexp_tangent(z, a, axis=None, b=None, keepdims=False, return_sign=False):
    d[z] = rt.lse_pack(rt.reshape_like(rt.reduce_sum(
        (rt.weighted(d[a], b) + d[b]) * rt.lse_sign(z, a, axis) *
        numpy.exp(a - rt.lse_value(rt.logsumexp(a, axis, b, True, return_sign))), axis),
        rt.lse_value(z)), z)


@adjoint(special.softmax, call_as=rt.softmax, domain=(-3.0, 3.0), checks=[
    check("{f}(x)", x=(5,)), check("{f}(x)", x=R), check("{f}(x, axis=1)", x=R),
    check("{f}(x, 0) * w", x=R, w=R), check("{f}(x, axis=-2) * w", x=B, w=B),
    check("{f}(x, axis=(0, 2))", x=B, numba=False)])
def softmax(z, x, axis=None):
    d[x] = z * (d[z] - rt.kept_sum(z * d[z], axis))


@tangent(special.softmax)
def softmax_tangent(z, x, axis=None):
    d[z] = z * (d[x] - rt.kept_sum(z * d[x], axis))


@adjoint(special.log_softmax, call_as=rt.log_softmax, domain=(-3.0, 3.0), checks=[
    check("{f}(x)", x=(5,)), check("{f}(x) * w", x=R, w=R), check("{f}(x, axis=1)", x=R),
    check("{f}(x, -1) * w", x=B, w=B), check("{f}(x, axis=(0, 2)) * w", x=B, w=B, numba=False)])
def log_softmax(z, x, axis=None):
    d[x] = d[z] - numpy.exp(z) * rt.kept_sum(d[z], axis)


@tangent(special.log_softmax)
def log_softmax_tangent(z, x, axis=None):
    d[z] = d[x] - rt.kept_sum(numpy.exp(z) * d[x], axis)


# ---- the helpers the derivatives above call (their second derivatives) -------------------------

@adjoint(rt.bessel_i, checks=[check("{f}(0, x)", x=(4,)), check("{f}(1, x)", x=()),
                              check("{f}(2, x)", x=(2, 3))])
def bessel_i(z, n, x):
    d[x] = d[z] * 0.5 * (rt.bessel_i(numpy.abs(n - 1), x) + rt.bessel_i(n + 1, x))


@tangent(rt.bessel_i)
def bessel_i_tangent(z, n, x):
    d[z] = d[x] * 0.5 * (rt.bessel_i(numpy.abs(n - 1), x) + rt.bessel_i(n + 1, x))


@adjoint(rt.multipolygamma, domain=(2.1, 6.0), checks=[
    check("{f}(0, x, 3)", x=(4,)), check("{f}(1, x, 2)", x=())])
def multipolygamma(z, n, a, dim):
    d[a] = d[z] * rt.multipolygamma(n + 1, a, dim)


@tangent(rt.multipolygamma)
def multipolygamma_tangent(z, n, a, dim):
    d[z] = d[a] * rt.multipolygamma(n + 1, a, dim)


@adjoint(rt.weighted, broadcasting=True, checks=[
    check("{f}(x, w)", x=(4,), w=(4,)), check("{f}(x, w)", x=R, w=(4,)),
    check("{f}(x, None)", x=R)])
def weighted(z, x, b):
    d[x] = rt.weighted(d[z], b)
    d[b] = d[z] * x


@tangent(rt.weighted)
def weighted_tangent(z, x, b):
    d[z] = rt.weighted(d[x], b) + d[b] * x


@adjoint(rt.lse_value, checks=[check("{f}(x)", x=(3,))])
def lse_value(z, t):
    d[t] = d[z]


@tangent(rt.lse_value)
def lse_value_tangent(z, t):
    d[z] = d[t]


@adjoint(rt.lse_pack, checks=[check("{f}(x, x)", x=(3,))])
def lse_pack(z, t, like):
    d[t] = rt.lse_value(d[z])


@tangent(rt.lse_pack)
def lse_pack_tangent(z, t, like):
    d[z] = rt.lse_pack(d[t], like)


nondifferentiable(rt.lse_sign, result="stop")  # piecewise constant: the cut is intended


@adjoint(rt.kept_sum, checks=[
    check("{f}(x, None) * w", x=R, w=R), check("{f}(x, 1) * w", x=R, w=R),
    check("{f}(x, -2) * w", x=B, w=B), check("{f}(x, (0, 2)) * w", x=B, w=B, numba=False)])
def kept_sum(z, t, axis):
    d[t] = rt.kept_sum(d[z], axis)


@tangent(rt.kept_sum)
def kept_sum_tangent(z, t, axis):
    d[z] = rt.kept_sum(d[t], axis)


from . import scipy_incomplete  # noqa: E402,F401  (the incomplete gamma and beta functions)
