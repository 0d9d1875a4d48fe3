"""NumPy elementwise functions (ufuncs) and what NumPy declares without a gradient.

Unary elementwise rules need no unbroadcasting; binary ones are registered with
`broadcasting=True`. Reductions, linear algebra and shape functions have their own modules.
"""
import numpy

from s2sad.runtime import rt

from .registry import adjoint, check, d, nondifferentiable, not_implemented, tangent
from .operators import binary

# ---- elementwise ----------------------------------------------------------------------------


@adjoint(numpy.sin)
def sin(z, x):
    d[x] = d[z] * numpy.cos(x)


@adjoint(numpy.cos)
def cos(z, x):
    d[x] = -d[z] * numpy.sin(x)


@adjoint(numpy.tan)
def tan(z, x):
    d[x] = d[z] * (1.0 + z * z)


@adjoint(numpy.arcsin, domain=(-0.9, 0.9))
def arcsin(z, x):
    d[x] = d[z] / numpy.sqrt(1.0 - x * x)


@adjoint(numpy.arccos, domain=(-0.9, 0.9))
def arccos(z, x):
    d[x] = -d[z] / numpy.sqrt(1.0 - x * x)


@adjoint(numpy.arctan)
def arctan(z, x):
    d[x] = d[z] / (1.0 + x * x)


@adjoint(numpy.sinh)
def sinh(z, x):
    d[x] = d[z] * numpy.cosh(x)


@adjoint(numpy.cosh)
def cosh(z, x):
    d[x] = d[z] * numpy.sinh(x)


@adjoint(numpy.tanh)
def tanh(z, x):
    d[x] = d[z] * (1.0 - z * z)


@adjoint(numpy.arcsinh)
def arcsinh(z, x):
    d[x] = d[z] / numpy.sqrt(x * x + 1.0)


@adjoint(numpy.arccosh, domain=(1.2, 3.0))
def arccosh(z, x):
    d[x] = d[z] / numpy.sqrt(x * x - 1.0)


@adjoint(numpy.arctanh, domain=(-0.9, 0.9))
def arctanh(z, x):
    d[x] = d[z] / (1.0 - x * x)


@adjoint(numpy.exp)
def exp(z, x):
    d[x] = d[z] * z


@adjoint(numpy.exp2)
def exp2(z, x):
    d[x] = d[z] * z * numpy.log(2.0)


@adjoint(numpy.expm1)
def expm1(z, x):
    d[x] = d[z] * (z + 1.0)


@adjoint(numpy.log, domain=(0.2, 3.0))
def log(z, x):
    d[x] = d[z] / x


@adjoint(numpy.log1p, domain=(-0.5, 3.0))
def log1p(z, x):
    d[x] = d[z] / (1.0 + x)


@adjoint(numpy.log2, domain=(0.2, 3.0))
def log2(z, x):
    d[x] = d[z] / (x * numpy.log(2.0))


@adjoint(numpy.log10, domain=(0.2, 3.0))
def log10(z, x):
    d[x] = d[z] / (x * numpy.log(10.0))


@adjoint(numpy.sqrt, domain=(0.2, 3.0))
def sqrt(z, x):
    d[x] = d[z] * 0.5 / z


@adjoint(numpy.cbrt, checks=[
    check("numpy.cbrt(x)", x=(), domain=(0.2, 3.0)),
    check("numpy.cbrt(x)", x=(4,), domain=(0.2, 3.0)),
    check("numpy.cbrt(x)", x=(2, 3), domain=(-3.0, -0.2))])
def cbrt(z, x):
    d[x] = d[z] / (3.0 * z * z)


@adjoint(numpy.square)
def square(z, x):
    d[x] = d[z] * 2.0 * x


@adjoint(numpy.abs, numpy.absolute, numpy.fabs)
def absolute(z, x):
    d[x] = d[z] * numpy.sign(x)


@adjoint(numpy.reciprocal, domain=(0.5, 2.0))
def reciprocal(z, x):
    d[x] = -d[z] * z * z


@adjoint(numpy.deg2rad, numpy.radians)
def deg2rad(z, x):
    d[x] = d[z] * (numpy.pi / 180.0)


@adjoint(numpy.rad2deg, numpy.degrees)
def rad2deg(z, x):
    d[x] = d[z] * (180.0 / numpy.pi)


# sinc(x) = sin(pi x) / (pi x) is not a ufunc, so it has its own checks (one input is 0).
def _with_zero(rng):
    return numpy.concatenate(([0.0], rng.uniform(-2.0, 2.0, 4)))


_with_zero.describe = "[0, 4 uniform]"


@adjoint(numpy.sinc, checks=[
    check("numpy.sinc(x)", x=()), check("numpy.sinc(x)", x=(4,)), check("numpy.sinc(x)", x=(2, 3)),
    check("numpy.sinc(x)", x=_with_zero)])
def sinc(z, x):
    d[x] = d[z] * rt.sinc_grad(x)


@tangent(numpy.sinc)
def sinc_tangent(z, x):
    d[z] = d[x] * rt.sinc_grad(x)


# ---- binary elementwise (broadcasting) ------------------------------------------------------

@adjoint(numpy.arctan2, broadcasting=True, checks=binary(
    check("{f}(x, 1.0)", x=(3,)), check("{f}(2, y)", y=(2, 3))))
def arctan2(z, y, x):
    d[y] = d[z] * x / (x * x + y * y)
    d[x] = -d[z] * y / (x * x + y * y)


@adjoint(numpy.hypot, broadcasting=True, checks=binary(check("{f}(x, 3)", x=(4,))))
def hypot(z, x, y):
    d[x] = d[z] * x / z
    d[y] = d[z] * y / z


# maximum/minimum: a tie sends half the gradient to each argument.
@adjoint(numpy.maximum, broadcasting=True, checks=binary(
    check("{f}(x, 0.0)", x=(2, 3)), check("{f}(0, y)", y=(4,))))
def maximum(z, x, y):
    d[x] = d[z] * (numpy.sign(x - y) + 1.0) * 0.5
    d[y] = d[z] * (numpy.sign(y - x) + 1.0) * 0.5


@adjoint(numpy.minimum, broadcasting=True, checks=binary(
    check("{f}(x, 0.0)", x=(2, 3)), check("{f}(1, y)", y=(4,))))
def minimum(z, x, y):
    d[x] = d[z] * (numpy.sign(y - x) + 1.0) * 0.5
    d[y] = d[z] * (numpy.sign(x - y) + 1.0) * 0.5


# fmax/fmin ignore a NaN argument: the gradient goes to the argument the result equals (half
# each on a tie).
_NAN_CHECKS = [check("{f}(x, numpy.where(x > 0.0, numpy.nan, y))", x=(2, 3), y=(2, 3)),
               check("{f}(numpy.where(y > 0.0, numpy.nan, x), y)", x=(4,), y=(4,))]


@adjoint(numpy.fmax, numpy.fmin, broadcasting=True, checks=binary(
    check("{f}(x, 0.0)", x=(2, 3)), check("{f}(1, y)", y=(4,)), *_NAN_CHECKS))
def fmax(z, x, y):
    d[x] = d[z] * (z == x) * (1.0 - 0.5 * (z == y))
    d[y] = d[z] * (z == y) * (1.0 - 0.5 * (z == x))


@adjoint(numpy.float_power, broadcasting=True, domain=(0.5, 2.0), checks=binary(
    check("{f}(x, 2)", x=(3,)), check("{f}(x, 3)", x=(2, 3), domain=(-2.0, -0.5)),
    check("{f}(2.0, y)", y=(3,))))
def float_power(z, x, y):
    d[x] = d[z] * y * numpy.float_power(x, y - 1.0)
    d[y] = d[z] * z * numpy.log(x)


# fmod(x, y) = x - trunc(x / y) * y (the sign of x); mod/remainder use floor (operators.py).
@adjoint(numpy.fmod, broadcasting=True, domain=(0.3, 2.0), checks=binary(
    check("{f}(-x, y)", x=(2, 3), y=(3,)), check("{f}(x, 0.7)", x=(4,)),
    check("{f}(3, y)", y=(4,))))
def fmod(z, x, y):
    d[x] = d[z]
    d[y] = -d[z] * numpy.trunc(x / y)


@adjoint(numpy.logaddexp, broadcasting=True, checks=binary(check("{f}(x, 0.0)", x=(3,))))
def logaddexp(z, x, y):
    d[x] = d[z] * numpy.exp(x - z)
    d[y] = d[z] * numpy.exp(y - z)


@adjoint(numpy.logaddexp2, broadcasting=True, checks=binary(check("{f}(x, 1)", x=(3,))))
def logaddexp2(z, x, y):
    d[x] = d[z] * numpy.exp2(x - z)
    d[y] = d[z] * numpy.exp2(y - z)


# copysign(x, y) = |x| with the sign of y: no gradient for y.
@adjoint(numpy.copysign, broadcasting=True, checks=binary(check("{f}(x, -1.0)", x=(3,))))
def copysign(z, x, y):
    d[x] = d[z] * numpy.copysign(1.0, x) * numpy.copysign(1.0, y)


# ---- other elementwise functions ------------------------------------------------------------

# clip(a, a_min, a_max) (or min=, max=): each element's gradient goes to the argument its value
# came from; a bound that is None gets nothing.
@adjoint(numpy.clip, broadcasting=True, checks=[
    check("numpy.clip(x, -0.5, 0.5)", x=(3, 4)), check("numpy.clip(x, 0, 1)", x=(5,)),
    check("numpy.clip(x, None, 0.5)", x=(2, 3)), check("numpy.clip(x, -0.5, None)", x=(2, 3)),
    check("numpy.clip(x, y, 0.8)", x=(2, 3), y=(3,)),
    check("numpy.clip(x, -0.8, y)", x=(2, 3), y=(2, 1)),
    check("numpy.clip(x, y, w)", x=(2, 3), y=(2, 3), w=(3,), domain=(-1.0, 1.0)),
    check("numpy.clip(x, y - 1.0, y + 1.0)", x=(4,), y=()),
    check("numpy.clip(x, a_min=-0.5, a_max=y)", x=(3,), y=()),
    check("numpy.clip(x, min=y, max=0.5)", x=(3,), y=(), numba=False),
    check("numpy.clip(x, -0.5, 0.5)", x=(), numba=False),
    check("numpy.clip(x, y, 1.5)", x=(), y=(3,), numba=False)])
def clip(z, a, a_min=None, a_max=None, *, min=None, max=None):
    d[a] = d[z] * (z == a)
    d[a_min] = d[z] * (z == a_min) * (z != a)
    d[a_max] = d[z] * (z == a_max) * (z != a)
    d[min] = d[z] * (z == min) * (z != a)
    d[max] = d[z] * (z == max) * (z != a)


@tangent(numpy.clip)
def clip_tangent(z, a, a_min=None, a_max=None, *, min=None, max=None):
    d[z] = d[a] * (z == a) + d[a_min] * (z == a_min) * (z != a) + \
        d[a_max] * (z == a_max) * (z != a) + d[min] * (z == min) * (z != a) + \
        d[max] * (z == max) * (z != a)


# where(condition, x, y): the condition is a truth value (no gradient).
@adjoint(numpy.where, broadcasting=True, checks=[
    check("numpy.where(x > 0.0, x, y)", x=(2, 3), y=(2, 3)),
    check("numpy.where(x > 0.0, x, y)", x=(2, 3), y=(3,)),
    check("numpy.where(y > 0.0, x, y)", x=(), y=(4,)),
    check("numpy.where(x > y, x, 0.0)", x=(3,), y=(2, 1)),
    check("numpy.where(x > 0.5, 1.0, y * x)", x=(4,), y=()),
    check("numpy.where(x > 0.0, x, y)", x=(), y=())])
def where(z, condition, x=None, y=None):
    d[x] = numpy.where(condition, d[z], 0.0)
    d[y] = numpy.where(condition, 0.0, d[z])


@tangent(numpy.where)
def where_tangent(z, condition, x=None, y=None):
    d[z] = numpy.where(condition, d[x], d[y])


# ---- no gradient, by declaration ------------------------------------------------------------

nondifferentiable(
    numpy.zeros, numpy.ones, numpy.empty, numpy.zeros_like, numpy.ones_like, numpy.empty_like,
    numpy.shape, numpy.ndim, numpy.size, numpy.eye, numpy.identity, result="shape")
nondifferentiable(
    numpy.full, numpy.full_like, numpy.arange,   # the fill value or the bounds are dropped
    # piecewise constant
    numpy.floor, numpy.ceil, numpy.round, numpy.around, numpy.rint, numpy.trunc, numpy.sign,
    numpy.floor_divide,
    # random numbers
    numpy.random.rand, numpy.random.randn, numpy.random.random, numpy.random.uniform,
    numpy.random.normal, numpy.random.standard_normal, numpy.random.randint,
    numpy.random.choice, numpy.random.permutation, numpy.random.seed,
)
nondifferentiable(
    numpy.searchsorted, numpy.digitize,
    # indices and counts
    numpy.argmax, numpy.argmin, numpy.argsort, numpy.nonzero, numpy.count_nonzero,
    # truth values
    numpy.isnan, numpy.isinf, numpy.isfinite, numpy.isclose, numpy.allclose, numpy.greater,
    numpy.greater_equal, numpy.less, numpy.less_equal, numpy.equal, numpy.not_equal,
    numpy.logical_and, numpy.logical_or, numpy.logical_not, numpy.logical_xor, numpy.any,
    numpy.all, result="discrete")
nondifferentiable(numpy.fix, numpy.heaviside, numba=False)  # Numba has neither
nondifferentiable(rt.item)                        # x.item(): a Python number, as in torch
nondifferentiable(rt.stop_gradient, result="stop")  # s2sad.stop_gradient(x): intended

# ---- known gaps -----------------------------------------------------------------------------

not_implemented(numpy.fft.fft, numpy.fft.ifft, numpy.fft.rfft, note="complex results")
not_implemented(numpy.angle, numpy.imag, note="complex numbers are not supported")
