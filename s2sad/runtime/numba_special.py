"""Numba implementations of the helpers in rt_special.py (imported by rt_numba.py)."""
import math

import numpy as np  # noqa: F401
from numba import njit, types  # noqa: F401
from numba.extending import overload  # noqa: F401

from . import rt  # noqa: F401
from . import special
from .special import _DIGAMMA_SHIFT, _SINC_SMALL

_C1, _C2, _C3, _C4, _C5, _C6 = 1.0 / 12.0, -1.0 / 120.0, 1.0 / 252.0, -1.0 / 240.0, \
    1.0 / 132.0, -691.0 / 32760.0


@njit(cache=True)
def _digamma(x):
    """psi(x) of one float: recurrence up to x >= 6, then the asymptotic series."""
    if x <= 0.0 and x == math.floor(x):
        return math.nan
    shift = 0.0
    while x < _DIGAMMA_SHIFT:
        shift -= 1.0 / x
        x += 1.0
    inv2 = 1.0 / (x * x)
    tail = ((((((_C6 * inv2 + _C5) * inv2 + _C4) * inv2 + _C3) * inv2 + _C2) * inv2 + _C1)
            * inv2)
    return math.log(x) - 0.5 / x - tail + shift


@njit(cache=True)
def _sinc_grad(x):
    """d/dx sinc(x) of one float (Taylor series near 0)."""
    if abs(x) < _SINC_SMALL:
        return x * (-math.pi ** 2 / 3.0 + x * x * math.pi ** 4 / 30.0)
    return (math.cos(math.pi * x) - np.sinc(x)) / x


def _elementwise(scalar):
    """An overload implementation applying the njit function `scalar` to a float or to every
    element of an array (any layout; the result is a new C-order float64 array)."""
    def typer(x):
        if isinstance(x, (types.Float, types.Integer, types.Boolean)):
            return lambda x: scalar(float(x))
        if isinstance(x, types.Array):
            def impl(x):
                out = np.empty(x.shape)
                flat = out.reshape(out.size)
                i = 0
                for v in x.flat:
                    flat[i] = scalar(float(v))
                    i += 1
                return out
            return impl
        return None
    return typer


overload(rt.digamma)(_elementwise(_digamma))
overload(rt.sinc_grad)(_elementwise(_sinc_grad))

_polygamma = njit(special._polygamma_scalar)
_sinc_deriv = njit(special._sinc_deriv_scalar)


@njit(cache=True)
def _polygamma_n(n, x):
    return _digamma(x) if n == 0 else _polygamma(n, x)


@njit(cache=True)
def _each(scalar, n, x):
    """scalar(n, element) for every element of array x (a new C-order float64 array)."""
    out = np.empty(x.shape)
    flat = out.reshape(out.size)
    i = 0
    for v in x.flat:
        flat[i] = scalar(n, float(v))
        i += 1
    return out


@overload(rt.polygamma)
def _ov_polygamma(n, x):
    if isinstance(x, (types.Float, types.Integer, types.Boolean)):
        return lambda n, x: _polygamma_n(int(n), float(x))
    if isinstance(x, types.Array):
        return lambda n, x: _each(_polygamma_n, int(n), x)
    return None


@njit(cache=True)
def _sinc_deriv_n(n, x):
    return _sinc_deriv(x, n)


@overload(rt.sinc_deriv)
def _ov_sinc_deriv(x, n):
    if isinstance(x, (types.Float, types.Integer, types.Boolean)):
        return lambda x, n: _sinc_deriv(float(x), int(n))
    if isinstance(x, types.Array):
        return lambda x, n: _each(_sinc_deriv_n, int(n), x)
    return None


@overload(rt.sum_grads)
def _ov_sum_grads(g, elements):
    """One rt.unbroadcast per element; the tuple may mix floats and arrays, so the
    implementation is written out for its length (constant indices type each element)."""
    if not isinstance(elements, types.BaseTuple):
        return None
    parts = ", ".join(f"unbroadcast(g, elements[{k}])" for k in range(len(elements)))
    namespace = {"unbroadcast": rt.unbroadcast}
    exec(f"def impl(g, elements):\n    return ({parts}{',' if len(elements) == 1 else ''})\n",
         namespace)
    return namespace["impl"]
