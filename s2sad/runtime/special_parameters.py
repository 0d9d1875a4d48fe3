"""Derivatives of the regularized incomplete gamma and beta functions and of Student's t CDF
w.r.t. their shape parameters (a, b, df): what templates/scipy_incomplete.py writes for
d/da P(a, x), d/da and d/db I_x(a, b) and d/ddf stdtr(df, t), and so what the CDFs of
scipy.stats' gamma, beta, t, binom and nbinom are differentiated with w.r.t. those parameters.

None has a closed form. Each is the derivative of the algorithm special_incomplete.py computes
the value with, carried along it in forward mode (as Eigen does for TensorFlow's igamma): the
power series of P term by term, the continued fractions of Q and I_x step by step of modified
Lentz's method (the derivative of each convergent converges to the derivative of the limit).
Python and Numba run the same scalar code, so JIT on and off agree to rounding; the results
match central differences of scipy's own functions to ~1e-9 (tests/test_scipy_parameters.py).
"""
import math

import numpy as np

from .dispatch import by_type, is_array, is_scalar, jitable, loops, python_only
from .special import digamma_of, own_code
from .special_incomplete import EPS, MAX_TERMS, TINY, ternary_loop

__all__ = ["gammainc_da", "betainc_da", "betainc_db", "stdtr_ddf"]


@jitable
def _gamma_series_da(a, x):
    """dP/da by the power series of P (x < a + 1): P = front * sum_n x^n / (a (a+1)...(a+n))."""
    term = total = 1.0 / a
    dterm = dtotal = -1.0 / (a * a)
    size = abs(dterm)        # sum of |dterm|: the scale the derivative's terms are small against
    n = a
    for _ in range(MAX_TERMS):
        n += 1.0
        dterm = (dterm - term / n) * (x / n)   # d/da of term * x / n, n = a + k
        term *= x / n
        total += term
        dtotal += dterm
        size += abs(dterm)
        if abs(term) < abs(total) * EPS and abs(dterm) < size * EPS:
            break
    front = math.exp(-x + a * math.log(x) - math.lgamma(a))
    return front * (dtotal + total * (math.log(x) - digamma_of(a)))


@jitable
def _gamma_fraction_da(a, x):
    """dQ/da by the continued fraction of Q (x >= a + 1), differentiated step by step; `g` is
    d log h / da of the fraction's value h."""
    b = x + 1.0 - a                # db/da = -1 at every step
    c, dc = 1.0 / TINY, 0.0
    d = 1.0 / b
    dd = d * d
    h, g = d, d
    for i in range(1, MAX_TERMS):
        an, dan = -i * (i - a), float(i)
        b += 2.0
        big_d = an * d + b
        dbig_d = dan * d + an * dd - 1.0
        big_d = TINY if abs(big_d) < TINY else big_d
        big_c = b + an / c
        dbig_c = -1.0 + dan / c - an * dc / (c * c)
        big_c = TINY if abs(big_c) < TINY else big_c
        d, dd = 1.0 / big_d, -dbig_d / (big_d * big_d)
        c, dc = big_c, dbig_c
        step = d * c
        h *= step
        dg = dd / d + dc / c
        g += dg
        if abs(step - 1.0) < EPS and abs(dg) < EPS * (abs(g) + 1.0):
            break
    q = math.exp(-x + a * math.log(x) - math.lgamma(a)) * h
    return q * (math.log(x) - digamma_of(a) + g)


@jitable
def gammainc_da_of(a, x):
    """d/da P(a, x) (= -d/da Q(a, x))."""
    if math.isnan(a) or math.isnan(x) or a <= 0.0 or x < 0.0:
        return math.nan
    if x == 0.0 or math.isinf(x):
        return 0.0
    if x < a + 1.0:
        return _gamma_series_da(a, x)
    return -_gamma_fraction_da(a, x)


@jitable
def _lentz_step(aa, daa_a, daa_b, c, dc_a, dc_b, d, dd_a, dd_b):
    """One step of modified Lentz's method with the derivatives of its state w.r.t. a and b:
    (c, dc_a, dc_b, d, dd_a, dd_b, the step factor, its log-derivatives w.r.t. a and b)."""
    big_d = 1.0 + aa * d
    dbig_a, dbig_b = daa_a * d + aa * dd_a, daa_b * d + aa * dd_b
    big_d = TINY if abs(big_d) < TINY else big_d
    big_c = 1.0 + aa / c
    dbig_c_a = daa_a / c - aa * dc_a / (c * c)
    dbig_c_b = daa_b / c - aa * dc_b / (c * c)
    big_c = TINY if abs(big_c) < TINY else big_c
    inverse = 1.0 / big_d
    return (big_c, dbig_c_a, dbig_c_b, inverse, -dbig_a * inverse * inverse,
            -dbig_b * inverse * inverse, inverse * big_c,
            -dbig_a * inverse + dbig_c_a / big_c, -dbig_b * inverse + dbig_c_b / big_c)


@jitable
def _beta_fraction_grads(a, b, x):
    """The continued fraction h of I_x(a, b) (special_incomplete._beta_fraction's) with
    d log h / da and d log h / db."""
    qab, qap = a + b, a + 1.0
    big_d = 1.0 - qab * x / qap
    dbig_a = -x / qap + qab * x / (qap * qap)
    dbig_b = -x / qap
    big_d = TINY if abs(big_d) < TINY else big_d
    d = 1.0 / big_d
    dd_a, dd_b = -dbig_a * d * d, -dbig_b * d * d
    c, dc_a, dc_b = 1.0, 0.0, 0.0
    h, g_a, g_b = d, -dbig_a * d, -dbig_b * d
    for m in range(1, MAX_TERMS):
        m2 = 2.0 * m
        aa = m * (b - m) * x / ((a - 1.0 + m2) * (a + m2))
        daa_a = -aa * (1.0 / (a - 1.0 + m2) + 1.0 / (a + m2))
        daa_b = m * x / ((a - 1.0 + m2) * (a + m2))
        c, dc_a, dc_b, d, dd_a, dd_b, step, s_a, s_b = _lentz_step(
            aa, daa_a, daa_b, c, dc_a, dc_b, d, dd_a, dd_b)
        h *= step
        g_a += s_a
        g_b += s_b
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        daa_a = aa * (1.0 / (a + m) + 1.0 / (qab + m) - 1.0 / (a + m2) - 1.0 / (qap + m2))
        daa_b = aa / (qab + m)
        c, dc_a, dc_b, d, dd_a, dd_b, step, s_a, s_b = _lentz_step(
            aa, daa_a, daa_b, c, dc_a, dc_b, d, dd_a, dd_b)
        h *= step
        g_a += s_a
        g_b += s_b
        if abs(step - 1.0) < EPS and abs(s_a) < EPS * (abs(g_a) + 1.0) and \
                abs(s_b) < EPS * (abs(g_b) + 1.0):
            break
    return h, g_a, g_b


@jitable
def betainc_grads_of(a, b, x):
    """(d/da, d/db) of I_x(a, b) = front(a, b, x) * h / a, on the side of (a + 1) / (a + b + 2)
    where the fraction converges fast, the other side by I_x(a, b) = 1 - I_(1-x)(b, a)."""
    if math.isnan(a) or math.isnan(b) or math.isnan(x) or a <= 0.0 or b <= 0.0 or \
            x < 0.0 or x > 1.0:
        return math.nan, math.nan
    if x == 0.0 or x == 1.0:
        return 0.0, 0.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) +
                     a * math.log(x) + b * math.log1p(-x))
    psi_ab = digamma_of(a + b)
    dlog_a = psi_ab - digamma_of(a) + math.log(x)       # d log front / da
    dlog_b = psi_ab - digamma_of(b) + math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        h, g_a, g_b = _beta_fraction_grads(a, b, x)
        value = front * h / a
        return value * (dlog_a - 1.0 / a + g_a), value * (dlog_b + g_b)
    h, g_b, g_a = _beta_fraction_grads(b, a, 1.0 - x)   # its first parameter is b
    rest = front * h / b                                  # 1 - I_x(a, b)
    return -rest * (dlog_a + g_a), -rest * (dlog_b - 1.0 / b + g_b)


@jitable
def betainc_da_of(a, b, x):
    return betainc_grads_of(a, b, x)[0]


@jitable
def betainc_db_of(a, b, x):
    return betainc_grads_of(a, b, x)[1]


@jitable
def stdtr_ddf_of(df, t):
    """d/ddf of Student's t CDF: its tail is I_u(df/2, 1/2) / 2 with u = df / (df + t^2)."""
    if math.isnan(df) or math.isnan(t) or df <= 0.0:
        return math.nan
    if t == 0.0 or math.isinf(t):
        return 0.0
    t2 = t * t
    u = df / (df + t2)
    a = 0.5 * df
    density = math.exp((a - 1.0) * math.log(u) - 0.5 * math.log(t2 / (df + t2)) -
                       (math.lgamma(a) + math.lgamma(0.5) - math.lgamma(a + 0.5)))
    dtail = 0.5 * (0.5 * betainc_grads_of(a, 0.5, u)[0] + density * t2 / ((df + t2) ** 2))
    return -dtail if t > 0.0 else dtail


def _binary_loop(scalar):
    def loop(x, y):
        zero = x * 0.0 + y * 0.0   # (the broadcast shape)
        xx, yy = np.ascontiguousarray(x + zero), np.ascontiguousarray(y + zero)
        out = np.empty(zero.shape)
        flat = out.reshape(out.size)
        fx, fy = xx.reshape(xx.size), yy.reshape(yy.size)
        for i in range(out.size):
            flat[i] = scalar(float(fx[i]), float(fy[i]))
        return out
    return own_code(loop, scalar)


def _own(scalar, loop):
    """The dispatch of a helper Python and Numba both run as s2sad's own scalar code (scipy
    has no such function): one call on numbers, the broadcasting loop on arrays."""
    def choose(*args):
        if all(is_scalar(v) for v in args):
            if len(args) == 2:
                def one(x, y):
                    return scalar(float(x), float(y))
            else:   # (Numba wants the helper's own parameter names)
                def one(a, b, x):
                    return scalar(float(a), float(b), float(x))
            return loops(one, one)
        if all(is_scalar(v) or is_array(v) for v in args):
            return loops(loop, loop)
        return python_only(loop)
    return choose


_LOOPS = {scalar.__name__: jitable(make(scalar)) for make, scalar in (
    (_binary_loop, gammainc_da_of), (_binary_loop, stdtr_ddf_of),
    (ternary_loop, betainc_da_of), (ternary_loop, betainc_db_of))}


@by_type
def gammainc_da(x, y):
    """d/da of scipy.special.gammainc(a, x): x, y are a, x (special_scipy.binary's names)."""
    return _own(gammainc_da_of, _LOOPS["gammainc_da_of"])(x, y)


@by_type
def stdtr_ddf(x, y):
    """d/ddf of scipy.special.stdtr(df, t): x, y are df, t."""
    return _own(stdtr_ddf_of, _LOOPS["stdtr_ddf_of"])(x, y)


@by_type
def betainc_da(a, b, x):
    """d/da of scipy.special.betainc(a, b, x)."""
    return _own(betainc_da_of, _LOOPS["betainc_da_of"])(a, b, x)


@by_type
def betainc_db(a, b, x):
    """d/db of scipy.special.betainc(a, b, x)."""
    return _own(betainc_db_of, _LOOPS["betainc_db_of"])(a, b, x)
