"""Runtime helpers for the derivative templates of elementwise and special functions
(templates/math_rules.py, templates/numpy_rules.py).

Each helper is defined once (dispatch.py). The scalar formulas are plain `math` code Numba
compiles as it is; on arrays Numba applies them element by element, while Python runs the
NumPy form of the same formula (`compiled_as`), so code run without the JIT stays fast.
"""
import math
import types

import numpy as np

from . import core
from .dispatch import by_type, compiled_as, generate, is_array, is_scalar, is_tuple, jitable, \
    python_only

__all__ = ["digamma", "polygamma", "sigmoid", "sinc_grad", "sinc_deriv", "sum_grads"]

# Coefficients of the asymptotic series psi(x) ~ log(x) - 1/(2x) - sum_k B_2k / (2k x^2k).
C1, C2, C3, C4, C5, C6 = (1.0 / 12.0, -1.0 / 120.0, 1.0 / 252.0, -1.0 / 240.0, 1.0 / 132.0,
                          -691.0 / 32760.0)
DIGAMMA_SHIFT = 6.0   # the series is used from here on (its truncation error is < 1e-11)
SINC_SMALL = 1e-4     # below this |x|, sinc_grad uses its Taylor series (no 0/0)
# Bernoulli numbers B_2k, k = 1..8, for the asymptotic series of the polygamma functions.
BERNOULLI = (1.0 / 6.0, -1.0 / 30.0, 1.0 / 42.0, -1.0 / 30.0, 5.0 / 66.0, -691.0 / 2730.0,
             7.0 / 6.0, -3617.0 / 510.0)


@jitable
def sigmoid(x):
    """`1.0 / (1.0 + numpy.exp(-x))`, the very expression: transform/idioms.py writes it so
    where a function spells it out, for the derivative its templates give, `dz * z * (1 - z)`,
    which reads only the result."""
    return 1.0 / (1.0 + np.exp(-x))


def elementwise(scalar):
    """A loop applying `scalar` (a jitable function of one float) to every element of an
    array: a new C-order float64 array."""
    def loop(x):
        out = np.empty(x.shape)
        flat = out.reshape(out.size)
        for i, v in enumerate(x.flat):
            flat[i] = scalar(float(v))
        return out
    return own_code(loop, scalar)


def elementwise_n(scalar):
    """elementwise, for `scalar(n, float)`."""
    def loop(n, x):
        out = np.empty(x.shape)
        flat = out.reshape(out.size)
        for i, v in enumerate(x.flat):
            flat[i] = scalar(n, float(v))
        return out
    return own_code(loop, scalar)


def own_code(loop, scalar):
    """`loop` with a code object of its own, named after `scalar`: Numba mixed up loops made
    from one code object with different `scalar`s in one compiled function (betaln's loop ran
    for xlogy's call), a silently wrong value."""
    code = loop.__code__.replace(co_name=f"{loop.__name__}_{scalar.__name__}")
    made = types.FunctionType(code, loop.__globals__, code.co_name, loop.__defaults__,
                              loop.__closure__)
    made.__qualname__ = f"{loop.__qualname__}_{scalar.__name__}"
    return made


def _digamma_series(x):
    """psi(x) for x >= 6 (a float or an array), by the asymptotic series (Horner's form)."""
    inv2 = 1.0 / (x * x)
    tail = (((((C6 * inv2 + C5) * inv2 + C4) * inv2 + C3) * inv2 + C2) * inv2 + C1) * inv2
    return np.log(x) - 0.5 / x - tail


@jitable
def digamma_of(x):
    """psi(x) of one float: the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 6, then the
    asymptotic series. Poles (0, -1, ...) give inf or nan."""
    if x <= 0.0 and x == math.floor(x):
        return math.nan
    shift = 0.0
    while x < DIGAMMA_SHIFT:
        shift -= 1.0 / x
        x += 1.0
    inv2 = 1.0 / (x * x)
    tail = (((((C6 * inv2 + C5) * inv2 + C4) * inv2 + C3) * inv2 + C2) * inv2 + C1) * inv2
    return math.log(x) - 0.5 / x - tail + shift


@compiled_as(elementwise(digamma_of))
def digamma_array(x):
    """digamma_of on every element of x (a new float64 array)."""
    x = np.array(x, dtype=np.float64)
    poles = (x <= 0.0) & (x == np.floor(x))
    x[poles] = 1.0
    shift = np.zeros(x.shape)
    low = x < DIGAMMA_SHIFT
    while np.any(low):
        shift[low] -= 1.0 / x[low]
        x[low] += 1.0
        low = x < DIGAMMA_SHIFT
    return np.where(poles, np.nan, _digamma_series(x) + shift)


@by_type
def digamma(x):
    """The digamma function psi(x) = d/dx log|gamma(x)|, elementwise."""
    if is_scalar(x):
        return lambda x: digamma_of(float(x))
    if is_array(x):
        return lambda x: digamma_array(x)
    return python_only(lambda x: digamma_array(x))


@jitable
def sinc_grad_of(x):
    """d/dx numpy.sinc(x) = (cos(pi x) - sinc(x)) / x of one float; its Taylor series
    -pi^2 x / 3 + pi^4 x^3 / 30 near 0 (0 at x = 0)."""
    if abs(x) < SINC_SMALL:
        return x * (-math.pi ** 2 / 3.0 + x * x * math.pi ** 4 / 30.0)
    return (math.cos(math.pi * x) - math.sin(math.pi * x) / (math.pi * x)) / x


@compiled_as(elementwise(sinc_grad_of))
def sinc_grad_array(x):
    """sinc_grad_of on every element of x (a new float64 array)."""
    x = np.asarray(x, dtype=np.float64)
    small = np.abs(x) < SINC_SMALL
    safe = np.where(small, 1.0, x)
    series = x * (-math.pi ** 2 / 3.0 + x * x * math.pi ** 4 / 30.0)
    exact = (np.cos(math.pi * safe) - np.sin(math.pi * safe) / (math.pi * safe)) / safe
    return np.where(small, series, exact)


@by_type
def sinc_grad(x):
    """d/dx numpy.sinc(x), elementwise."""
    if is_scalar(x):
        return lambda x: sinc_grad_of(float(x))
    if is_array(x):
        return lambda x: sinc_grad_array(x)
    return python_only(lambda x: sinc_grad_array(x))


@jitable
def polygamma_of(n, x):
    """psi^(n)(x) of one float, n >= 0: digamma for n = 0; else the recurrence
    psi^(n)(x) = psi^(n)(x + 1) + (-1)^(n+1) n! / x^(n+1) up to x >= 10 + n, then the
    asymptotic series (-1)^(n+1) [(n-1)!/x^n + n!/(2 x^(n+1))
    + sum_k B_2k (2k+n-1)! / ((2k)! x^(2k+n))]."""
    if n == 0:
        return digamma_of(x)
    if x <= 0.0 and x == math.floor(x):
        return math.nan
    sign = 1.0 if n % 2 == 1 else -1.0
    factorial = math.gamma(n + 1.0)
    shift = 0.0
    while x < 10.0 + n:
        shift += sign * factorial / x ** (n + 1)
        x += 1.0
    series = math.gamma(n * 1.0) / x ** n + factorial / (2.0 * x ** (n + 1))
    for k in range(1, len(BERNOULLI) + 1):
        series += BERNOULLI[k - 1] * math.gamma(2.0 * k + n) / (
            math.gamma(2.0 * k + 1.0) * x ** (2 * k + n))
    return sign * series + shift


@jitable
def sinc_deriv_of(n, x):
    """The n-th derivative of sinc at one float. |x| < 1: the Taylor series
    sum_k (-1)^k pi^2k x^2k / (2k+1)!, differentiated n times; else the recurrence
    x f^(n) + n f^(n-1) = pi^(n-1) sin(pi x + n pi / 2)."""
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


@compiled_as(elementwise_n(polygamma_of))
def polygamma_array(n, x):
    """polygamma_of(n, .) on every element of x (a new float64 array)."""
    if n == 0:
        return digamma_array(x)
    return np.vectorize(lambda v: polygamma_of(n, v), otypes=[np.float64])(x)


@compiled_as(elementwise_n(sinc_deriv_of))
def sinc_deriv_array(n, x):
    """sinc_deriv_of(n, .) on every element of x (a new float64 array)."""
    return np.vectorize(lambda v: sinc_deriv_of(n, v), otypes=[np.float64])(x)


@by_type
def polygamma(n, x):
    """The polygamma function psi^(n)(x) (n >= 0; the n-th derivative of digamma),
    elementwise."""
    if is_scalar(x):
        return lambda n, x: polygamma_of(int(n), float(x))
    if is_array(x):
        return lambda n, x: polygamma_array(int(n), x)
    return python_only(lambda n, x: polygamma_array(int(n), np.asarray(x)))


@by_type
def sinc_deriv(x, n):
    """The n-th derivative of numpy.sinc, elementwise (n >= 1; sinc_grad is n = 1)."""
    if is_scalar(x):
        return lambda x, n: sinc_deriv_of(int(n), float(x))
    if is_array(x):
        return lambda x, n: sinc_deriv_array(int(n), x)
    return python_only(lambda x, n: sinc_deriv_array(int(n), np.asarray(x)))


@by_type
def sum_grads(g, elements):
    """Adjoint of builtin sum(elements): g summed back to each element's shape, as a tuple
    (one gradient per element; elements may be scalars or arrays that broadcast)."""
    if is_tuple(elements):
        # written out for the tuple's length: it may mix floats and arrays
        parts = "".join(f"unbroadcast(g, elements[{k}]), " for k in range(len(elements)))
        return generate("sum_grads_of_tuple", ["g", "elements"], [f"return ({parts})"],
                        {"unbroadcast": core.unbroadcast})
    if is_array(elements):  # sum(a) of an array adds its rows (or elements): each gets g
        return lambda g, elements: np.zeros(elements.shape) + g
    return python_only(lambda g, elements: tuple(core.unbroadcast(g, e) for e in elements))
