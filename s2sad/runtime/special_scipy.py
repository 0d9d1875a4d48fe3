"""scipy.special's elementwise functions as runtime helpers (templates/scipy_special.py): what
generated code calls in their place (`call_as=`), and what their derivatives call.

Numba cannot call scipy.special, so each helper is s2sad's own code where Numba compiles it: a
scalar formula in plain `math` (`*_of`), applied element by element to arrays. Python runs
scipy.special itself (`loops(scipy's form, the loop)`, dispatch.py), so code run without the
JIT gives scipy's numbers; the compiled formulas agree with scipy to about 1e-13 relative
(tests/test_scipy_special.py). Poles, infinities and NaN follow scipy's conventions where it
matters for a gradient (`xlogy(0, y)` is 0; `erfinv(1)` is inf).
"""
import math

import numpy as np

from .dispatch import by_type, is_array, is_scalar, jitable, loops, python_only
from .special import digamma_of, elementwise, elementwise_n, own_code, polygamma_array, \
    polygamma_of

__all__ = ["gammaln", "gamma", "erf", "erfc", "erfinv", "ndtr", "log_ndtr", "ndtri", "expit",
           "logit", "log_expit", "i0", "i1", "bessel_i", "betaln", "multigammaln",
           "multipolygamma", "xlogy", "xlog1py", "entr", "rel_entr", "kl_div", "sp_digamma",
           "sp_polygamma"]

SQRT2 = math.sqrt(2.0)
SQRT_2PI = math.sqrt(2.0 * math.pi)
LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
ERFINV_A = 0.147     # the constant of the closed-form first guess of erfinv (rel. error ~2e-3)
BESSEL_SERIES = 30.0  # |x| up to which I_n(x) is summed as its power series (then asymptotic)
LOG_NDTR_TAIL = -20.0  # below this x, log_ndtr uses the asymptotic series of Mills' ratio


def scipy_special():
    """scipy.special, imported where Python first needs it (not by `import s2sad`)."""
    import scipy.special
    return scipy.special


# ---- scalar formulas (Numba compiles them; Python runs scipy) ---------------------------------

@jitable
def expit_of(x):
    """1 / (1 + exp(-x)), without overflow on either side."""
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@jitable
def log_expit_of(x):
    """log(expit(x)) = -log(1 + exp(-x)), without overflow."""
    if x >= 0.0:
        return -math.log1p(math.exp(-x))
    return x - math.log1p(math.exp(x))


@jitable
def logit_of(p):
    """log(p / (1 - p)); near 1/2 as log1p of (2p - 1) / (1 - p), exact in its parts."""
    if p < 0.0 or p > 1.0:
        return math.nan
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    if 0.3 < p < 0.65:
        return math.log1p((2.0 * p - 1.0) / (1.0 - p))
    return math.log(p / (1.0 - p))


@jitable
def gammaln_of(x):
    """log|gamma(x)|; inf at the poles 0, -1, -2, ..."""
    if x <= 0.0 and x == math.floor(x):
        return math.inf
    return math.lgamma(x)


@jitable
def gamma_of(x):
    """gamma(x); nan at the poles 0, -1, ... (scipy: inf at 0, nan at the negative ones)."""
    if x <= 0.0 and x == math.floor(x):
        return math.inf if x == 0.0 else math.nan
    if x > 171.7:
        return math.inf
    return math.gamma(x)


@jitable
def ndtr_of(x):
    """The standard normal CDF, from erfc on the side where it is small."""
    if x < 0.0:
        return 0.5 * math.erfc(-x / SQRT2)
    return 1.0 - 0.5 * math.erfc(x / SQRT2)


@jitable
def log_ndtr_of(x):
    """log of the standard normal CDF: log1p(-Q) for x > 0, log(Phi) down to -20, then
    -x^2/2 - log(-x sqrt(2 pi)) + log(1 - 1/x^2 + 3/x^4 - 15/x^6 + ...)."""
    if x > 0.0:
        return math.log1p(-0.5 * math.erfc(x / SQRT2))
    if x > LOG_NDTR_TAIL:
        return math.log(0.5 * math.erfc(-x / SQRT2))
    if x == -math.inf:
        return -math.inf
    inv2 = 1.0 / (x * x)
    term, series = 1.0, 1.0
    for k in range(1, 16):
        term *= -(2.0 * k - 1.0) * inv2
        series += term
    return -0.5 * x * x - math.log(-x) - LOG_SQRT_2PI + math.log(series)


@jitable
def _erfinv_guess(lg):
    """A first guess of |erfinv(y)| from lg = log(1 - y^2) (closed form, relative error
    ~2e-3)."""
    t = 2.0 / (math.pi * ERFINV_A) + 0.5 * lg
    return math.sqrt(math.sqrt(t * t - lg / ERFINV_A) - t)


@jitable
def _erfinv_central(y):
    """erfinv(y) for |y| <= 1/2: Halley's iteration on erf(x) - y."""
    x = math.copysign(_erfinv_guess(math.log1p(-y * y)), y)
    for _ in range(6):
        f = math.erf(x) - y
        ratio = f / (2.0 / math.sqrt(math.pi) * math.exp(-x * x))
        step = ratio / (1.0 + x * ratio)
        x -= step
        if abs(step) <= 1e-17 * abs(x):
            break
    return x


@jitable
def _erfcinv_tail(q):
    """erfcinv(q) for 0 < q <= 1/2 (x >= 0.47): Halley's iteration on erfc(x) - q, which keeps
    q's relative precision however small it is."""
    x = _erfinv_guess(math.log(q) + math.log(2.0 - q))
    for _ in range(8):
        g = math.erfc(x) - q
        ratio = g / (2.0 / math.sqrt(math.pi) * math.exp(-x * x))
        step = ratio / (1.0 - x * ratio)
        x += step
        if abs(step) <= 1e-17 * x:
            break
    return x


@jitable
def erfcinv_of(q):
    """The x with erfc(x) = q, 0 <= q <= 2."""
    if not 0.0 <= q <= 2.0:
        return math.nan
    if q == 0.0:
        return math.inf
    if q == 2.0:
        return -math.inf
    if q < 0.5:
        return _erfcinv_tail(q)
    if q <= 1.5:
        return _erfinv_central(1.0 - q)
    return -_erfcinv_tail(2.0 - q)


@jitable
def erfinv_of(y):
    """The x with erf(x) = y, -1 <= y <= 1."""
    if not -1.0 <= y <= 1.0:
        return math.nan
    if abs(y) <= 0.5:
        return _erfinv_central(y)
    if y > 0.0:
        return erfcinv_of(1.0 - y)
    return -erfcinv_of(1.0 + y)


@jitable
def ndtri_of(p):
    """The standard normal quantile: -sqrt(2) erfcinv(2p), with 1 - p taken exactly above 1/2."""
    if p > 0.5:
        return SQRT2 * erfcinv_of(2.0 * (1.0 - p))
    return -SQRT2 * erfcinv_of(2.0 * p)


@jitable
def bessel_i_of(n, x):
    """The modified Bessel function I_n(x) of integer order n >= 0: its power series
    (x/2)^n sum_k (x^2/4)^k / (k! (k+n)!) up to |x| = 30, then the asymptotic series
    e^x / sqrt(2 pi x) sum_k (-1)^k prod_j (4n^2 - (2j-1)^2) / (k! (8x)^k)."""
    sign = -1.0 if x < 0.0 and n % 2 == 1 else 1.0
    x = abs(x)
    if x <= BESSEL_SERIES:
        quarter = 0.25 * x * x
        term = 1.0
        for k in range(1, n + 1):
            term *= 0.5 * x / k
        total = term
        k = 0
        while term > 1e-17 * total:
            k += 1
            term *= quarter / (k * (k + n))
            total += term
        return sign * total
    if x > 713.0:
        return sign * math.inf
    mu = 4.0 * n * n
    term, total = 1.0, 1.0
    for k in range(1, 40):
        term *= -(mu - (2.0 * k - 1.0) ** 2) / (k * 8.0 * x)
        total += term
        if abs(term) < 1e-17 * abs(total):
            break
    return sign * math.exp(x) / math.sqrt(2.0 * math.pi * x) * total


@jitable
def i0_of(x):
    return bessel_i_of(0, x)


@jitable
def i1_of(x):
    return bessel_i_of(1, x)


@jitable
def xlogy_of(x, y):
    """x log(y), 0 where x is 0 (whatever y)."""
    if x == 0.0 and not math.isnan(y):
        return 0.0
    return x * math.log(y) if y > 0.0 else (x * -math.inf if y == 0.0 else math.nan)


@jitable
def xlog1py_of(x, y):
    """x log(1 + y), 0 where x is 0."""
    if x == 0.0 and not math.isnan(y):
        return 0.0
    return x * math.log1p(y) if y > -1.0 else (x * -math.inf if y == -1.0 else math.nan)


@jitable
def entr_of(x):
    """-x log(x); 0 at 0, -inf below."""
    if x > 0.0:
        return -x * math.log(x)
    if x == 0.0:
        return 0.0
    return -math.inf if x < 0.0 else math.nan


@jitable
def rel_entr_of(x, y):
    """x log(x / y) for x, y > 0; 0 where x is 0 and y >= 0; inf elsewhere."""
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if x > 0.0 and y > 0.0:
        return x * math.log(x / y)
    if x == 0.0 and y >= 0.0:
        return 0.0
    return math.inf


@jitable
def kl_div_of(x, y):
    """x log(x / y) - x + y for x, y > 0; y where x is 0 and y >= 0; inf elsewhere."""
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if x > 0.0 and y > 0.0:
        return x * math.log(x / y) - x + y
    if x == 0.0 and y >= 0.0:
        return y
    return math.inf


@jitable
def betaln_of(a, b):
    """log|B(a, b)| = lgamma(a) + lgamma(b) - lgamma(a + b); inf at a pole of a or b."""
    if a <= 0.0 and a == math.floor(a) or b <= 0.0 and b == math.floor(b):
        return math.inf
    return gammaln_of(a) + gammaln_of(b) - gammaln_of(a + b)


@jitable
def multipolygamma_of(n, a, d):
    """sum_{j < d} psi^(n)(a - j/2): the n-th derivative of multigammaln(a, d) w.r.t. a."""
    total = 0.0
    for j in range(d):
        total += polygamma_of(n, a - 0.5 * j)
    return total


@jitable
def multigammaln_of(a, d):
    """log of the multivariate gamma function: d(d-1)/4 log(pi) + sum_{j < d} lgamma(a - j/2)."""
    total = 0.25 * d * (d - 1) * math.log(math.pi)
    for j in range(d):
        total += math.lgamma(a - 0.5 * j)
    return total


# ---- the helpers: a scalar or an array; Python runs scipy, Numba the formulas ------------------

def unary(name, scalar):
    """The type dispatch of a one-argument helper: scipy.special.<name> as Python, `scalar`
    (a jitable function of one float) compiled, element by element on an array."""
    loop = jitable(elementwise(scalar))

    def choose(x):
        if is_scalar(x):
            return loops(lambda x: float(getattr(scipy_special(), name)(x)),
                         lambda x: scalar(float(x)))
        if is_array(x):
            return loops(lambda x: getattr(scipy_special(), name)(x), lambda x: loop(x))
        return python_only(lambda x: getattr(scipy_special(), name)(x))
    return choose


def pairwise(scalar):
    """A loop applying `scalar` (a jitable function of two floats) to two arrays of the same
    shape: a new C-order float64 array."""
    def loop(x, y):
        out = np.empty(x.shape)
        flat = out.reshape(out.size)
        xs = np.ascontiguousarray(x).reshape(x.size)
        ys = np.ascontiguousarray(y).reshape(y.size)
        for i in range(out.size):
            flat[i] = scalar(float(xs[i]), float(ys[i]))
        return out
    return own_code(loop, scalar)



def binary(name, scalar):
    """The type dispatch of a two-argument helper (broadcasting), as `unary`."""
    loop = jitable(pairwise(scalar))

    def choose(x, y):
        def library(x, y):
            return getattr(scipy_special(), name)(x, y)
        if is_scalar(x) and is_scalar(y):
            return loops(lambda x, y: float(library(x, y)),
                         lambda x, y: scalar(float(x), float(y)))
        if is_array(x) and is_array(y):   # each broadcast against the other (zeros add none)
            return loops(library, lambda x, y: loop(x + np.zeros_like(y), y + np.zeros_like(x)))
        if is_array(x) and is_scalar(y):
            return loops(library, lambda x, y: loop(x, np.full(x.shape, float(y))))
        if is_scalar(x) and is_array(y):
            return loops(library, lambda x, y: loop(np.full(y.shape, float(x)), y))
        return python_only(library)
    return choose


_UNARY = {name: unary(name, scalar) for name, scalar in (
    ("gammaln", gammaln_of), ("gamma", gamma_of), ("erf", math.erf), ("erfc", math.erfc),
    ("erfinv", erfinv_of), ("ndtr", ndtr_of), ("log_ndtr", log_ndtr_of), ("ndtri", ndtri_of),
    ("expit", expit_of), ("logit", logit_of), ("log_expit", log_expit_of), ("i0", i0_of),
    ("i1", i1_of), ("entr", entr_of), ("digamma", digamma_of))}
_BINARY = {name: binary(name, scalar) for name, scalar in (
    ("betaln", betaln_of), ("xlogy", xlogy_of), ("xlog1py", xlog1py_of),
    ("rel_entr", rel_entr_of), ("kl_div", kl_div_of))}


@by_type
def gammaln(x):
    """scipy.special.gammaln: log|gamma(x)|."""
    return _UNARY["gammaln"](x)


@by_type
def gamma(x):
    """scipy.special.gamma."""
    return _UNARY["gamma"](x)


@by_type
def sp_digamma(x):
    """scipy.special.digamma (psi) itself as Python; compiled, rt.digamma's formula."""
    return _UNARY["digamma"](x)


@by_type
def erf(x):
    """scipy.special.erf (Numba: math.erf)."""
    return _UNARY["erf"](x)


@by_type
def erfc(x):
    """scipy.special.erfc (Numba: math.erfc)."""
    return _UNARY["erfc"](x)


@by_type
def erfinv(x):
    """scipy.special.erfinv: the y with erf(y) = x."""
    return _UNARY["erfinv"](x)


@by_type
def ndtr(x):
    """scipy.special.ndtr: the standard normal CDF."""
    return _UNARY["ndtr"](x)


@by_type
def log_ndtr(x):
    """scipy.special.log_ndtr: log of the standard normal CDF."""
    return _UNARY["log_ndtr"](x)


@by_type
def ndtri(x):
    """scipy.special.ndtri: the standard normal quantile function."""
    return _UNARY["ndtri"](x)


@by_type
def expit(x):
    """scipy.special.expit: the logistic sigmoid."""
    return _UNARY["expit"](x)


@by_type
def logit(x):
    """scipy.special.logit: log(x / (1 - x))."""
    return _UNARY["logit"](x)


@by_type
def log_expit(x):
    """scipy.special.log_expit: log of the logistic sigmoid."""
    return _UNARY["log_expit"](x)


@by_type
def i0(x):
    """scipy.special.i0: the modified Bessel function of order 0."""
    return _UNARY["i0"](x)


@by_type
def i1(x):
    """scipy.special.i1: the modified Bessel function of order 1."""
    return _UNARY["i1"](x)


@by_type
def entr(x):
    """scipy.special.entr: -x log(x)."""
    return _UNARY["entr"](x)


@by_type
def betaln(x, y):
    """scipy.special.betaln: log|B(x, y)|."""
    return _BINARY["betaln"](x, y)


@by_type
def xlogy(x, y):
    """scipy.special.xlogy: x log(y), 0 where x is 0."""
    return _BINARY["xlogy"](x, y)


@by_type
def xlog1py(x, y):
    """scipy.special.xlog1py: x log(1 + y), 0 where x is 0."""
    return _BINARY["xlog1py"](x, y)


@by_type
def rel_entr(x, y):
    """scipy.special.rel_entr: x log(x / y)."""
    return _BINARY["rel_entr"](x, y)


@by_type
def kl_div(x, y):
    """scipy.special.kl_div: x log(x / y) - x + y."""
    return _BINARY["kl_div"](x, y)


@by_type
def sp_polygamma(n, x):
    """scipy.special.polygamma(n, x) itself as Python; compiled, rt.polygamma's formula."""
    if is_scalar(x):
        return loops(lambda n, x: float(scipy_special().polygamma(n, x)),
                     lambda n, x: polygamma_of(int(n), float(x)))
    if is_array(x):
        loop = _POLYGAMMA_LOOP
        return loops(lambda n, x: scipy_special().polygamma(n, x), lambda n, x: loop(int(n), x))
    return python_only(lambda n, x: scipy_special().polygamma(n, x))


_POLYGAMMA_LOOP = jitable(elementwise_n(polygamma_of))
_BESSEL_LOOP = jitable(elementwise_n(bessel_i_of))


@by_type
def bessel_i(n, x):
    """I_n(x), the modified Bessel function of integer order n >= 0 (the derivatives of i0 and
    i1: I_n' = (I_{n-1} + I_{n+1}) / 2). Python runs scipy.special.iv."""
    if is_scalar(x):
        return loops(lambda n, x: float(scipy_special().iv(n, x)),
                     lambda n, x: bessel_i_of(int(n), float(x)))
    if is_array(x):
        loop = _BESSEL_LOOP
        return loops(lambda n, x: scipy_special().iv(n, x), lambda n, x: loop(int(n), x))
    return python_only(lambda n, x: scipy_special().iv(n, np.asarray(x)))


def _multi(scalar):
    """elementwise over a, for `scalar(float, d)`."""
    def loop(a, d):
        out = np.empty(a.shape)
        flat = out.reshape(out.size)
        for i, v in enumerate(a.flat):
            flat[i] = scalar(float(v), d)
        return out
    return own_code(loop, scalar)


_MULTIGAMMALN_LOOP = jitable(_multi(multigammaln_of))


@jitable
def _multipolygamma_loop(n, a, d):
    out = np.empty(a.shape)
    flat = out.reshape(out.size)
    for i, v in enumerate(a.flat):
        flat[i] = multipolygamma_of(n, float(v), d)
    return out


@by_type
def multigammaln(a, d):
    """scipy.special.multigammaln(a, d): log of the multivariate gamma function of dimension d
    (elementwise in a)."""
    if is_scalar(a):
        return loops(lambda a, d: float(scipy_special().multigammaln(a, d)),
                     lambda a, d: multigammaln_of(float(a), int(d)))
    if is_array(a):
        loop = _MULTIGAMMALN_LOOP
        return loops(lambda a, d: scipy_special().multigammaln(a, d),
                     lambda a, d: loop(a, int(d)))
    return python_only(lambda a, d: scipy_special().multigammaln(a, d))


def _multipolygamma_numpy(n, a, dim):
    """rt.polygamma's formula as Python (a derivative: the same numbers as compiled)."""
    a = np.asarray(a, dtype=np.float64)
    return sum(polygamma_array(int(n), a - 0.5 * j) for j in range(int(dim)))


@by_type
def multipolygamma(n, a, dim):
    """sum_{j < dim} psi^(n)(a - j/2), elementwise in a: the (n+1)-th derivative of
    multigammaln(a, dim)."""
    if is_scalar(a):
        return loops(lambda n, a, dim: float(_multipolygamma_numpy(n, a, dim)),
                     lambda n, a, dim: multipolygamma_of(int(n), float(a), int(dim)))
    if is_array(a):
        return loops(_multipolygamma_numpy,
                     lambda n, a, dim: _multipolygamma_loop(int(n), a, int(dim)))
    return python_only(_multipolygamma_numpy)
