"""More NumPy and `math`: differences and integrals (diff, gradient, trapezoid), signals
(convolve, correlate), statistics (cov, quantile, percentile), interpolation (interp, polyval),
shapes (rot90, insert, linspace, unstack, matrix_transpose), real parts of real arrays (real,
conj), NumPy 2's array-API spellings (vecdot, matvec, cumulative_sum), ldexp, and math.fsum,
math.prod, math.ldexp, math.remainder.

Numba compiles np.diff without axis, np.convolve, np.correlate, np.cov, np.interp without
left/right, np.quantile/np.percentile without axis, np.trapezoid without axis, np.rot90 without
axes, np.insert without axis, np.linspace(start, stop, num) of scalars, np.nan_to_num, np.real,
np.conj and np.ldexp; not np.gradient, np.polyval, np.vecdot, np.matvec, np.unstack,
np.cumulative_sum, np.matrix_transpose, math.fsum, math.prod or math.remainder: those rules are
numba=False, and a gradient using them runs as Python.
"""
import math

import numpy

from s2sad.runtime import rt  # noqa: F401  (templates name rt's helpers; they are read, not run)

from .registry import adjoint, check, d, tangent

M = (3, 4)
T = (2, 3, 4)


def _sorted_points(n, low=-2.0, high=2.0):
    """Inputs that are n increasing sample points (interp's xp, trapezoid's x)."""
    def generate(rng):
        return numpy.sort(rng.uniform(low, high, n)) + numpy.arange(n) * 0.3
    generate.describe = f"{n} increasing points"
    return generate


def _with_nonfinite(rng):
    x = rng.uniform(-2.0, 2.0, M)
    x[0, 1], x[1, 2], x[2, 0] = numpy.nan, numpy.inf, -numpy.inf
    return x


_with_nonfinite.describe = "M with nan, inf, -inf"

XP = "numpy.array([-1.5, -0.5, 0.2, 1.0, 1.8])"   # interp's sample points (constants)


# ---- differences and integrals ------------------------------------------------------------------

@adjoint(numpy.diff, checks=[
    check("numpy.diff(x)", x=(5,)), check("numpy.diff(x, 2)", x=(6,)),
    check("numpy.diff(x)", x=M), check("numpy.diff(x, n=3)", x=M),
    check("numpy.diff(x, axis=0)", x=M, numba=False),
    check("numpy.diff(x, 2, axis=-2)", x=T, numba=False)])
def diff(z, a, n=1, axis=-1, prepend=None, append=None):  # prepend/append: not yet
    d[a] = rt.diff_grad(d[z], a, n, axis)


@tangent(numpy.diff)
def diff_tangent(z, a, n=1, axis=-1, prepend=None, append=None):
    d[z] = rt.diff(d[a], n, axis)


@adjoint(numpy.gradient, numba=False, checks=[   # Numba has no numpy.gradient
    check("numpy.gradient(x)", x=(6,)), check("numpy.gradient(x, 0.5)", x=(6,)),
    check("numpy.gradient(x, edge_order=2)", x=(6,)),
    check("a, b = numpy.gradient(x)\nout = a * b", x=M),
    check("numpy.gradient(x, axis=1)", x=M),
    check("numpy.gradient(x, numpy.array([0.0, 0.5, 1.5, 1.75, 3.0]))", x=(5,))])
def gradient(z, f, *varargs, axis=None, edge_order=1):   # the spacings are constants
    d[f] = rt.gradient_grad(d[z], f, varargs, axis, edge_order)


@tangent(numpy.gradient)
def gradient_tangent(z, f, *varargs, axis=None, edge_order=1):
    d[z] = rt.gradient(d[f], varargs, axis, edge_order)


@adjoint(numpy.trapezoid, numba=False, checks=[   # helpers: Python only, for now
    check("numpy.trapezoid(y)", y=(5,)), check("numpy.trapezoid(y, dx=0.5)", y=(5,)),
    check("numpy.trapezoid(y, x)", y=(5,), x=_sorted_points(5)),
    check("numpy.trapezoid(y, None, w)", y=(5,), w=()),
    check("numpy.trapezoid(y)", y=M),
    check("numpy.trapezoid(y, axis=0)", y=M, numba=False),
    check("numpy.trapezoid(y, x, axis=0)", y=M, x=_sorted_points(3), numba=False)])
def trapezoid(z, y, x=None, dx=1.0, axis=-1):
    d[y] = rt.trapezoid_grad_y(d[z], y, x, dx, axis)
    d[x] = rt.trapezoid_grad_x(d[z], y, x, dx, axis)
    d[dx] = numpy.sum(d[z] * z) / dx


# Linear in y, in the points x (through their differences) and in dx.
@tangent(numpy.trapezoid)
def trapezoid_tangent(z, y, x=None, dx=1.0, axis=-1):
    d[z] = numpy.trapezoid(d[y], x, dx, axis) + rt.trapezoid_points_tangent(y, d[x], axis) + \
        d[dx] * z / dx


# ---- signals ------------------------------------------------------------------------------------

@adjoint(numpy.convolve, checks=[
    check("numpy.convolve(x, y)", x=(5,), y=(3,)),
    check("numpy.convolve(x, y, 'same')", x=(5,), y=(2,)),
    check("numpy.convolve(x, y, mode='valid')", x=(3,), y=(5,)),
    check("numpy.convolve(x, y, 'same')", x=(3,), y=(6,))])
def convolve(z, a, v, mode="full"):
    d[a] = rt.convolve_grad_a(d[z], a, v, mode)
    d[v] = rt.convolve_grad_v(d[z], a, v, mode)


@tangent(numpy.convolve)
def convolve_tangent(z, a, v, mode="full"):
    d[z] = numpy.convolve(d[a], v, mode) + numpy.convolve(a, d[v], mode)


@adjoint(numpy.correlate, checks=[
    check("numpy.correlate(x, y)", x=(5,), y=(3,)),
    check("numpy.correlate(x, y, 'full')", x=(5,), y=(2,)),
    check("numpy.correlate(x, y, mode='same')", x=(4,), y=(3,)),
    check("numpy.correlate(x, y, 'same')", x=(3,), y=(6,)),
    check("numpy.correlate(x, y)", x=(3,), y=(5,))])
def correlate(z, a, v, mode="valid"):
    d[a] = rt.correlate_grad_a(d[z], a, v, mode)
    d[v] = rt.correlate_grad_v(d[z], a, v, mode)


@tangent(numpy.correlate)
def correlate_tangent(z, a, v, mode="valid"):
    d[z] = numpy.correlate(d[a], v, mode) + numpy.correlate(a, d[v], mode)


# ---- statistics ---------------------------------------------------------------------------------

@adjoint(numpy.cov, numba=False, checks=[   # helpers: Python only, for now
    check("numpy.cov(x)", x=M), check("numpy.cov(x)", x=(5,)),
    check("numpy.cov(x, y)", x=(5,), y=(5,)), check("numpy.cov(x, rowvar=False)", x=(5, 2)),
    check("numpy.cov(x, bias=True)", x=M), check("numpy.cov(x, ddof=0)", x=M),
    check("numpy.cov(x, y, False)", x=(4, 2), y=(4,))])
def cov(z, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):   # fweights, aweights: not yet
    d[m] = rt.cov_grad_m(d[z], m, y, rowvar, bias, ddof)
    d[y] = rt.cov_grad_y(d[z], m, y, rowvar, bias, ddof)


# cov is quadratic in the data: its tangent is exact by polarisation.
@tangent(numpy.cov)
def cov_tangent(z, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
                *, dtype=None):
    d[z] = (numpy.cov(m + d[m], y + d[y], rowvar, bias, ddof) -
            numpy.cov(m - d[m], y - d[y], rowvar, bias, ddof)) * 0.5


@adjoint(numpy.quantile, numba=False, checks=[   # helpers: Python only, for now
    check("numpy.quantile(x, 0.3)", x=(7,)), check("numpy.quantile(x, 0.62)", x=M),
    check("numpy.quantile(x, q)", x=(6,), q=(), domain=(0.05, 0.95)),
    check("numpy.quantile(x, numpy.array([0.1, 0.55]))", x=(6,)),
    check("numpy.quantile(x, 0.4, axis=1)", x=M, numba=False),
    check("numpy.quantile(x, q, axis=0, keepdims=True)", x=(5, 3), q=(2,), domain=(0.05, 0.95),
          numba=False),
    check("numpy.quantile(x, 0.3, method='lower')", x=(6,), numba=False),
    check("numpy.quantile(x, 0.7, method='midpoint')", x=(6,), numba=False)])
def quantile(z, a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    d[a] = rt.quantile_grad_a(d[z], a, q, axis, method, keepdims, 1.0)
    d[q] = rt.quantile_grad_q(d[z], a, q, axis, method, keepdims, 1.0)


@tangent(numpy.quantile)
def quantile_tangent(z, a, q, axis=None, out=None, overwrite_input=False, method="linear",
                     keepdims=False, *, weights=None, interpolation=None):
    d[z] = rt.quantile_tangent(d[a], d[q], a, q, axis, method, keepdims, 1.0)


@adjoint(numpy.percentile, numba=False, checks=[   # helpers: Python only, for now
    check("numpy.percentile(x, 30.0)", x=(7,)),
    check("numpy.percentile(x, q)", x=(6,), q=(), domain=(5.0, 95.0)),
    check("numpy.percentile(x, 40, axis=-1)", x=M, numba=False)])
def percentile(z, a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, interpolation=None):
    d[a] = rt.quantile_grad_a(d[z], a, q, axis, method, keepdims, 100.0)
    d[q] = rt.quantile_grad_q(d[z], a, q, axis, method, keepdims, 100.0)


@tangent(numpy.percentile)
def percentile_tangent(z, a, q, axis=None, out=None, overwrite_input=False, method="linear",
                       keepdims=False, *, weights=None, interpolation=None):
    d[z] = rt.quantile_tangent(d[a], d[q], a, q, axis, method, keepdims, 100.0)


# ---- interpolation ------------------------------------------------------------------------------

# w.r.t. the query points x and the values fp; the sample points xp and left/right are constants.
@adjoint(numpy.interp, checks=[
    check(f"numpy.interp(x, {XP}, y)", x=(6,), y=(5,)),
    check(f"numpy.interp(x, {XP}, y)", x=(), y=(5,)),
    check(f"numpy.interp(x, {XP}, y)", x=M, y=(5,), domain=(-3.0, 3.0)),
    check(f"numpy.interp(x, {XP}, y, 0.5, -1.0)", x=(6,), y=(5,), domain=(-3.0, 3.0),
          numba=False),
    check(f"numpy.interp(x, {XP}, y, left=0.0)", x=(6,), y=(5,), domain=(-3.0, 3.0),
          numba=False)])
def interp(z, x, xp, fp, left=None, right=None, period=None):   # period: not yet
    d[x] = d[z] * rt.interp_slope(x, xp, fp, left, right)
    d[fp] = rt.interp_linear_grad(d[z], x, xp, fp, left, right)


@tangent(numpy.interp)
def interp_tangent(z, x, xp, fp, left=None, right=None, period=None):
    d[z] = rt.interp_linear(x, xp, d[fp], left, right) + \
        d[x] * rt.interp_slope(x, xp, fp, left, right)


@adjoint(numpy.polyval, numba=False, checks=[   # Numba has no numpy.polyval
    check("numpy.polyval(p, x)", p=(4,), x=(5,)), check("numpy.polyval(p, x)", p=(3,), x=()),
    check("numpy.polyval(p, x)", p=(1,), x=M), check("numpy.polyval(p, 0.7)", p=(5,))])
def polyval(z, p, x):
    d[p] = rt.polyval_deriv_grad_p(d[z], p, x, 0)
    d[x] = d[z] * rt.polyval_deriv(p, x, 1)


@tangent(numpy.polyval)
def polyval_tangent(z, p, x):
    d[z] = rt.polyval_deriv(d[p], x, 0) + d[x] * rt.polyval_deriv(p, x, 1)


# ---- shapes -------------------------------------------------------------------------------------

@adjoint(numpy.rot90, checks=[
    check("numpy.rot90(x)", x=M), check("numpy.rot90(x, 2)", x=M), check("numpy.rot90(x, -1)", x=T, numba=False),
    check("numpy.rot90(x, 1, (1, 0))", x=M, numba=False),
    check("numpy.rot90(x, 3, axes=(1, 2))", x=T, numba=False)])
def rot90(z, m, k=1, axes=(0, 1)):
    d[m] = rt.rot90(d[z], -k, axes)


@tangent(numpy.rot90)
def rot90_tangent(z, m, k=1, axes=(0, 1)):
    d[z] = rt.rot90(d[m], k, axes)


@adjoint(numpy.insert, numba=False, checks=[   # helpers: Python only, for now
    check("numpy.insert(x, 1, y)", x=(4,), y=()),
    check("numpy.insert(x, numpy.array([0, 2]), y)", x=(4,), y=(2,)),
    check("numpy.insert(x, 2, 0.5)", x=M),
    check("numpy.insert(x, 1, y, axis=0)", x=M, y=(4,), numba=False),
    check("numpy.insert(x, [1, 3], y, axis=1)", x=M, y=(3, 1), numba=False)])
def insert(z, arr, obj, values, axis=None):
    d[arr] = rt.insert_grad_arr(d[z], arr, obj, values, axis)
    d[values] = rt.insert_grad_values(d[z], arr, obj, values, axis)


@tangent(numpy.insert)
def insert_tangent(z, arr, obj, values, axis=None):
    d[z] = numpy.insert(d[arr], obj, d[values], axis)


@adjoint(numpy.linspace, numba=False, checks=[   # helpers: Python only, for now
    check("numpy.linspace(x, y, 5)", x=(), y=()),
    check("numpy.linspace(x, 2.0, 4)", x=()),
    check("numpy.linspace(x, y, 4, endpoint=False)", x=(), y=(), numba=False),
    check("numpy.linspace(x, y, 3)", x=(2,), y=(3, 1), numba=False),
    check("numpy.linspace(x, y, 4, axis=-1)", x=(3,), y=(), numba=False),
    check("a, s = numpy.linspace(x, y, 5, retstep=True)\nout = a * s", x=(), y=(2,),
          numba=False)])
def linspace(z, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    d[start] = rt.linspace_grad_start(d[z], start, stop, num, endpoint, retstep, axis)
    d[stop] = rt.linspace_grad_stop(d[z], start, stop, num, endpoint, retstep, axis)


# Linear in (start, stop) together.
@tangent(numpy.linspace)
def linspace_tangent(z, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
                     device=None):
    d[z] = rt.linspace(d[start], d[stop], num, endpoint, retstep, dtype, axis)


@adjoint(numpy.nan_to_num, checks=[
    check("numpy.nan_to_num(x)", x=M),
    check("numpy.nan_to_num(x, nan=1.0, posinf=5.0, neginf=-5.0)", x=_with_nonfinite),
    check("numpy.nan_to_num(x)", x=())])
def nan_to_num(z, x, copy=True, nan=0.0, posinf=None, neginf=None):
    d[x] = d[z] * numpy.isfinite(x)


@tangent(numpy.nan_to_num)
def nan_to_num_tangent(z, x, copy=True, nan=0.0, posinf=None, neginf=None):
    d[z] = d[x] * numpy.isfinite(x)


# Real arrays only (s2sad has no complex numbers): the identity.
@adjoint(numpy.real, checks=[check("numpy.real(x)", x=M), check("numpy.real(x)", x=())])
def real(z, val):
    d[val] = d[z]


@tangent(numpy.real)
def real_tangent(z, val):
    d[z] = d[val]


@adjoint(numpy.conjugate, checks=[check("numpy.conj(x)", x=M), check("numpy.conjugate(x)", x=()),
                                  check("numpy.conj(x)", x=(4,))])
def conjugate(z, x):
    d[x] = d[z]


# ---- NumPy 2's array-API spellings --------------------------------------------------------------

@adjoint(numpy.vecdot, numba=False, checks=[
    check("numpy.vecdot(x, y)", x=(4,), y=(4,)), check("numpy.vecdot(x, y)", x=M, y=(4,)),
    check("numpy.vecdot(x, y, axis=0)", x=M, y=M), check("numpy.vecdot(x, y)", x=(2, 1, 4), y=M)])
def vecdot(z, x1, x2, /, *, axis=-1):
    d[x1] = rt.vecdot_grad(d[z], x2, x1, axis)
    d[x2] = rt.vecdot_grad(d[z], x1, x2, axis)


@tangent(numpy.vecdot)
def vecdot_tangent(z, x1, x2, /, *, axis=-1):
    d[z] = numpy.vecdot(d[x1], x2, axis=axis) + numpy.vecdot(x1, d[x2], axis=axis)


@adjoint(numpy.matvec, numba=False, checks=[
    check("numpy.matvec(x, y)", x=M, y=(4,)), check("numpy.matvec(x, y)", x=T, y=(4,)),
    check("numpy.matvec(x, y)", x=M, y=(2, 4))])
def matvec(z, x1, x2, /):
    d[x1] = rt.matvec_grad_a(d[z], x1, x2)
    d[x2] = rt.matvec_grad_b(d[z], x1, x2)


@tangent(numpy.matvec)
def matvec_tangent(z, x1, x2, /):
    d[z] = numpy.matvec(d[x1], x2) + numpy.matvec(x1, d[x2])


@adjoint(numpy.unstack, numba=False, checks=[
    check("a, b, c = numpy.unstack(x)\nout = a * b + c", x=M),
    check("a, b = numpy.unstack(x, axis=1)\nout = a", x=(3, 2)),
    check("a, b = numpy.unstack(x, axis=-1)\nout = numpy.sum(a) * b", x=(2, 3, 2))])
def unstack(z, x, /, *, axis=0):
    d[x] = rt.unstack_grad(d[z], x, axis)


@tangent(numpy.unstack)
def unstack_tangent(z, x, /, *, axis=0):
    d[z] = numpy.unstack(d[x], axis=axis)


@adjoint(numpy.cumulative_sum, numba=False, checks=[
    check("numpy.cumulative_sum(x)", x=(5,)), check("numpy.cumulative_sum(x, axis=1)", x=M),
    check("numpy.cumulative_sum(x, axis=0, include_initial=True)", x=M)])
def cumulative_sum(z, x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    d[x] = rt.cumulative_sum_grad(d[z], x, axis, include_initial)


@tangent(numpy.cumulative_sum)
def cumulative_sum_tangent(z, x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    d[z] = numpy.cumulative_sum(d[x], axis=axis, include_initial=include_initial)


@adjoint(numpy.matrix_transpose, numba=False, checks=[
    check("numpy.matrix_transpose(x)", x=M), check("numpy.matrix_transpose(x)", x=T)])
def matrix_transpose(z, x, /):
    d[x] = numpy.swapaxes(d[z], -1, -2)


@tangent(numpy.matrix_transpose)
def matrix_transpose_tangent(z, x, /):
    d[z] = numpy.swapaxes(d[x], -1, -2)


# ldexp(x, i) = x 2^i; the exponent is an integer (no gradient).
@adjoint(numpy.ldexp, broadcasting=True, checks=[
    check("numpy.ldexp(x, 3)", x=(4,)), check("numpy.ldexp(x, -2)", x=()),
    check("numpy.ldexp(x, numpy.array([1, 0, -1, 2]))", x=M)])
def ldexp(z, x1, x2):
    d[x1] = d[z] * numpy.ldexp(1.0, x2)


# ---- math ---------------------------------------------------------------------------------------

@adjoint(math.fsum, numba=False, checks=[
    check("math.fsum((x, y, x))", x=(), y=()), check("math.fsum(x)", x=(5,))])
def fsum(z, seq, /):
    d[seq] = rt.fsum_grad(d[z], seq)


@tangent(math.fsum)
def fsum_tangent(z, seq, /):
    d[z] = math.fsum(d[seq])


@adjoint(math.prod, numba=False, checks=[
    check("math.prod((x, y, x))", x=(), y=()), check("math.prod(x)", x=(4,)),
    check("math.prod((x, y), start=w)", x=(), y=(), w=())])
def prod(z, iterable, /, *, start=1):
    d[iterable] = rt.prod_items_grad(d[z], iterable, start)
    d[start] = d[z] * math.prod(iterable)


@tangent(math.prod)
def prod_tangent(z, iterable, /, *, start=1):
    d[z] = rt.prod_items_tangent(d[iterable], iterable, start) + d[start] * math.prod(iterable)


@adjoint(math.ldexp, checks=[check("math.ldexp(x, 3)", x=()), check("math.ldexp(x, -1)", x=())])
def math_ldexp(z, x, i, /):
    d[x] = d[z] * math.ldexp(1.0, i)


# remainder(x, y) = x - n y, n the integer nearest x / y.
@adjoint(math.remainder, numba=False, checks=[
    check("math.remainder(x, y)", x=(), y=(), domain=(0.3, 2.0)),
    check("math.remainder(-x, 0.7)", x=(), domain=(0.3, 2.0))])
def remainder(z, x, y, /):
    d[x] = d[z]
    d[y] = -d[z] * ((x - z) / y)


# ---- rules of the helpers the tangents above call (second derivatives) --------------------------

@adjoint(rt.trapezoid_points_tangent, numba=False, checks=[
    check("{f}(y, t)", y=(5,), t=(5,)), check("{f}(y, t, 0)", y=M, t=(3,)),
    check("{f}(y, 0.0)", y=(5,))])
def rt_trapezoid_points_tangent(z, y, tx, axis=-1):
    d[y] = rt.trapezoid_points_tangent_grad_y(d[z], y, tx, axis)
    d[tx] = rt.trapezoid_points_tangent_grad_x(d[z], y, tx, axis)


@tangent(rt.trapezoid_points_tangent)
def rt_trapezoid_points_tangent_tangent(z, y, tx, axis=-1):
    d[z] = rt.trapezoid_points_tangent(d[y], tx, axis) + rt.trapezoid_points_tangent(y, d[tx],
                                                                                     axis)


@adjoint(rt.diff, checks=[
    check("{f}(x, 1, -1)", x=(5,)), check("{f}(x, 2, 0)", x=M)])
def rt_diff(z, a, n=1, axis=-1):
    d[a] = rt.diff_grad(d[z], a, n, axis)


@tangent(rt.diff)
def rt_diff_tangent(z, a, n=1, axis=-1):
    d[z] = rt.diff(d[a], n, axis)


@adjoint(rt.gradient, numba=False, checks=[
    check("{f}(x, (), None, 1)", x=(5,)), check("a, b = {f}(x, (0.5,), None, 2)\nout = a * b",
                                                   x=M)])
def rt_gradient(z, f, varargs=(), axis=None, edge_order=1):
    d[f] = rt.gradient_grad(d[z], f, varargs, axis, edge_order)


@tangent(rt.gradient)
def rt_gradient_tangent(z, f, varargs=(), axis=None, edge_order=1):
    d[z] = rt.gradient(d[f], varargs, axis, edge_order)


@adjoint(rt.interp_linear, checks=[
    check(f"{{f}}(x, {XP}, t)", x=(6,), t=(5,)),
    check(f"{{f}}(x, {XP}, t, 0.0, 1.0)", x=(), t=(5,), domain=(-3.0, 3.0))])
def rt_interp_linear(z, x, xp, t, left=None, right=None):
    d[t] = rt.interp_linear_grad(d[z], x, xp, t, left, right)
    d[x] = d[z] * rt.interp_slope(x, xp, t, left, right)


@tangent(rt.interp_linear)
def rt_interp_linear_tangent(z, x, xp, t, left=None, right=None):
    d[z] = rt.interp_linear(x, xp, d[t], left, right) + d[x] * rt.interp_slope(x, xp, t, left,
                                                                             right)


@adjoint(rt.interp_slope, checks=[
    check(f"{{f}}(x, {XP}, t)", x=(6,), t=(5,)),
    check(f"{{f}}(x, {XP}, t, None, 1.0)", x=(), t=(5,), domain=(-3.0, 3.0))])
def rt_interp_slope(z, x, xp, fp, left=None, right=None):
    d[fp] = rt.interp_slope_grad(d[z], x, xp, fp, left, right)


@tangent(rt.interp_slope)
def rt_interp_slope_tangent(z, x, xp, fp, left=None, right=None):
    d[z] = rt.interp_slope(x, xp, d[fp], left, right)


@adjoint(rt.polyval_deriv, checks=[
    check("{f}(p, x, 0)", p=(4,), x=(5,)), check("{f}(p, x, 2)", p=(5,), x=(), numba=False)])
def rt_polyval_deriv(z, p, x, k=0):
    d[p] = rt.polyval_deriv_grad_p(d[z], p, x, k)
    d[x] = d[z] * rt.polyval_deriv(p, x, k + 1)


@tangent(rt.polyval_deriv)
def rt_polyval_deriv_tangent(z, p, x, k=0):
    d[z] = rt.polyval_deriv(d[p], x, k) + d[x] * rt.polyval_deriv(p, x, k + 1)


@adjoint(rt.quantile_tangent, numba=False, checks=[
    check("{f}(t, s, x, q)", t=(6,), s=(), x=(6,), q=(), domain=(0.05, 0.95)),
    check("{f}(t, s, x, q, 1, 'linear', True)", t=(3, 5), s=(2,), x=(3, 5), q=(2,),
          domain=(0.05, 0.95))])
def rt_quantile_tangent(z, ta, tq, a, q, axis=None, method="linear", keepdims=False, scale=1.0):
    d[ta] = rt.quantile_grad_a(d[z], a, q, axis, method, keepdims, scale)
    d[tq] = rt.quantile_grad_q(d[z], a, q, axis, method, keepdims, scale)
    d[a] = rt.quantile_tangent_grad_a(d[z], ta, tq, a, q, axis, method, keepdims, scale)
    d[q] = rt.quantile_tangent_grad_q(d[z], ta, a, q, axis, method, keepdims, scale)


@tangent(rt.quantile_tangent)
def rt_quantile_tangent_tangent(z, ta, tq, a, q, axis=None, method="linear", keepdims=False,
                                scale=1.0):
    d[z] = rt.quantile_tangent(d[ta], d[tq], a, q, axis, method, keepdims, scale) + \
        rt.quantile_tangent2(ta, tq, a, q, d[a], d[q], axis, method, keepdims, scale)


@adjoint(rt.rot90, checks=[check("{f}(x, 1, (0, 1))", x=M), check("{f}(x, 3, (1, 0))", x=M)])
def rt_rot90(z, m, k=1, axes=(0, 1)):
    d[m] = rt.rot90(d[z], -k, axes)


@tangent(rt.rot90)
def rt_rot90_tangent(z, m, k=1, axes=(0, 1)):
    d[z] = rt.rot90(d[m], k, axes)


@adjoint(rt.linspace, numba=False, checks=[   # its gradient's helpers run as Python
    check("{f}(x, y, 5, True, False, None, 0)", x=(), y=()),
    check("{f}(x, y, 3, False, False, None, 0)", x=(2,), y=(), numba=False)])
def rt_linspace(z, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    d[start] = rt.linspace_grad_start(d[z], start, stop, num, endpoint, retstep, axis)
    d[stop] = rt.linspace_grad_stop(d[z], start, stop, num, endpoint, retstep, axis)


@tangent(rt.linspace)
def rt_linspace_tangent(z, start, stop, num=50, endpoint=True, retstep=False, dtype=None,
                        axis=0):
    d[z] = rt.linspace(d[start], d[stop], num, endpoint, retstep, dtype, axis)


@adjoint(rt.prod_items_tangent, numba=False, checks=[
    check("{f}((s, t), (x, y), 1)", s=(), t=(), x=(), y=()),
    check("{f}(s, x, 2.0)", s=(4,), x=(4,))])
def rt_prod_items_tangent(z, tangents, iterable, start=1):
    d[tangents] = rt.prod_items_grad(d[z], iterable, start)
    d[iterable] = rt.prod_items_tangent_grad(d[z], tangents, iterable, start)


@tangent(rt.prod_items_tangent)
def rt_prod_items_tangent_tangent(z, tangents, iterable, start=1):
    d[z] = rt.prod_items_tangent(d[tangents], iterable, start) + \
        rt.prod_items_tangent2(tangents, d[iterable], iterable, start)

