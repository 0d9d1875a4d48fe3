"""Runtime helpers for the derivative templates of elementwise and special functions
(templates/math_rules.py, templates/numpy_rules.py).

Re-exported by s2sad.rt (generated code calls them as rt.<name>); their Numba implementations are
in rt_numba_special.py.
"""
import math

import numpy as np

from s2sad import rt as _rt  # unbroadcast; looked up at call time (rt imports this module)

__all__ = ["digamma", "sinc_grad", "sum_grads"]

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


def sum_grads(g, elements):
    """Adjoint of builtin sum(elements): g summed back to each element's shape, as a tuple
    (one gradient per element; elements may be scalars or arrays that broadcast)."""
    return tuple(_rt.unbroadcast(g, e) for e in elements)
