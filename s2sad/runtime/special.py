"""Runtime helpers for the derivative templates of elementwise and special functions
(templates/math_rules.py, templates/numpy_rules.py).

Re-exported by s2sad.rt (generated code calls them as rt.<name>); their Numba implementations are
in rt_numba_special.py.
"""
import math

import numpy as np

from . import core as _rt  # unbroadcast

__all__ = ["digamma", "polygamma", "sinc_grad", "sinc_deriv", "sum_grads"]

# Coefficients of the asymptotic series psi(x) ~ log(x) - 1/(2x) - sum_k B_2k / (2k x^2k).
_DIGAMMA_SERIES = (1.0 / 12.0, -1.0 / 120.0, 1.0 / 252.0, -1.0 / 240.0, 1.0 / 132.0,
                   -691.0 / 32760.0)
_DIGAMMA_SHIFT = 6.0   # the series is used from here on (its truncation error is < 1e-11)
_SINC_SMALL = 1e-4     # below this |x|, sinc_grad uses its Taylor series (no 0/0)


def _digamma_series(x):
    """psi(x) for x >= 6 (scalar or array), by the asymptotic series."""
    inv2 = 1.0 / (x * x)
    tail = 0.0
    for c in reversed(_DIGAMMA_SERIES):
        tail = (tail + c) * inv2
    return np.log(x) - 0.5 / x - tail


def digamma(x):
    """The digamma function psi(x) = d/dx log|gamma(x)|, elementwise: the recurrence
    psi(x) = psi(x + 1) - 1/x up to x >= 6, then the asymptotic series. Poles (0, -1, ...)
    give inf or nan."""
    if not isinstance(x, np.ndarray) and np.ndim(x) == 0:
        x = float(x)
        if x <= 0.0 and x == math.floor(x):
            return math.nan
        shift = 0.0
        while x < _DIGAMMA_SHIFT:
            shift -= 1.0 / x
            x += 1.0
        return float(_digamma_series(x)) + shift
    x = np.array(x, dtype=np.float64)
    shift = np.zeros(x.shape)
    low = x < _DIGAMMA_SHIFT
    while np.any(low):
        shift[low] -= 1.0 / x[low]
        x[low] += 1.0
        low = x < _DIGAMMA_SHIFT
    return _digamma_series(x) + shift


def sinc_grad(x):
    """d/dx numpy.sinc(x) = (cos(pi x) - sinc(x)) / x, elementwise; its Taylor series
    -pi^2 x / 3 + pi^4 x^3 / 30 near 0 (0 at x = 0)."""
    small = np.abs(x) < _SINC_SMALL
    safe = np.where(small, 1.0, x)
    series = x * (-np.pi ** 2 / 3.0 + x * x * np.pi ** 4 / 30.0)
    out = np.where(small, series, (np.cos(np.pi * safe) - np.sinc(safe)) / safe)
    return float(out) if not isinstance(x, np.ndarray) else out


# Bernoulli numbers B_2k, k = 1..8, for the asymptotic series of the polygamma functions.
_BERNOULLI = (1.0 / 6.0, -1.0 / 30.0, 1.0 / 42.0, -1.0 / 30.0, 5.0 / 66.0, -691.0 / 2730.0,
              7.0 / 6.0, -3617.0 / 510.0)


def _polygamma_scalar(n, x):
    """psi^(n)(x) of one float, n >= 1 (plain `math`: Numba compiles it as it is): the
    recurrence psi^(n)(x) = psi^(n)(x + 1) + (-1)^(n+1) n! / x^(n+1) up to x >= 10 + n, then
    the asymptotic series (-1)^(n+1) [(n-1)!/x^n + n!/(2 x^(n+1))
    + sum_k B_2k (2k+n-1)! / ((2k)! x^(2k+n))]."""
    if x <= 0.0 and x == math.floor(x):
        return math.nan
    sign = 1.0 if n % 2 == 1 else -1.0
    factorial = math.gamma(n + 1.0)
    shift = 0.0
    while x < 10.0 + n:
        shift += sign * factorial / x ** (n + 1)
        x += 1.0
    series = math.gamma(n * 1.0) / x ** n + factorial / (2.0 * x ** (n + 1))
    for k in range(1, len(_BERNOULLI) + 1):
        series += _BERNOULLI[k - 1] * math.gamma(2.0 * k + n) / (
            math.gamma(2.0 * k + 1.0) * x ** (2 * k + n))
    return sign * series + shift


def polygamma(n, x):
    """The polygamma function psi^(n)(x) (n >= 1; the n-th derivative of digamma),
    elementwise."""
    n = int(n)
    if n == 0:
        return digamma(x)
    if not isinstance(x, np.ndarray) and np.ndim(x) == 0:
        return _polygamma_scalar(n, float(x))
    return np.vectorize(lambda v: _polygamma_scalar(n, v), otypes=[np.float64])(x)


def _sinc_deriv_scalar(x, n):
    """The n-th derivative of sinc at one float (plain `math`: Numba compiles it as it is).
    |x| < 1: the Taylor series sum_k (-1)^k pi^2k x^2k / (2k+1)!, differentiated n times;
    else the recurrence x f^(n) + n f^(n-1) = pi^(n-1) sin(pi x + n pi / 2)."""
    if abs(x) < 1.0:
        out = 0.0
        for k in range((n + 1) // 2, 30):
            term = (-1.0) ** k * math.pi ** (2 * k) / math.gamma(2.0 * k + 2.0)
            term *= math.gamma(2.0 * k + 1.0) / math.gamma(2.0 * k - n + 1.0)
            out += term * x ** (2 * k - n)
        return out
    f = math.sin(math.pi * x) / (math.pi * x)
    for m in range(1, n + 1):
        f = (math.pi ** (m - 1) * math.sin(math.pi * x + m * math.pi / 2.0) - m * f) / x
    return f


def sinc_deriv(x, n):
    """The n-th derivative of numpy.sinc, elementwise (n >= 1; sinc_grad is n = 1)."""
    n = int(n)
    if not isinstance(x, np.ndarray) and np.ndim(x) == 0:
        return _sinc_deriv_scalar(float(x), n)
    return np.vectorize(lambda v: _sinc_deriv_scalar(v, n), otypes=[np.float64])(x)


def sum_grads(g, elements):
    """Adjoint of builtin sum(elements): g summed back to each element's shape, as a tuple
    (one gradient per element; elements may be scalars or arrays that broadcast)."""
    return tuple(_rt.unbroadcast(g, e) for e in elements)
