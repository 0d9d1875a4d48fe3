"""The `math` module (Python floats in, floats out) and the builtins that act on numbers."""
import builtins
import math

import numpy

from s2sad.runtime import rt  # noqa: F401  (templates name rt's helpers; they are read, not run)

from .registry import adjoint, check, d, nondifferentiable, tangent

# ---- math -----------------------------------------------------------------------------------


@adjoint(math.sin)
def sin(z, x):
    d[x] = d[z] * math.cos(x)


@adjoint(math.cos)
def cos(z, x):
    d[x] = -d[z] * math.sin(x)


@adjoint(math.tan)
def tan(z, x):
    d[x] = d[z] * (1.0 + z * z)


@adjoint(math.asin, domain=(-0.9, 0.9))
def asin(z, x):
    d[x] = d[z] / math.sqrt(1.0 - x * x)


@adjoint(math.acos, domain=(-0.9, 0.9))
def acos(z, x):
    d[x] = -d[z] / math.sqrt(1.0 - x * x)


@adjoint(math.atan)
def atan(z, x):
    d[x] = d[z] / (1.0 + x * x)


@adjoint(math.sinh)
def sinh(z, x):
    d[x] = d[z] * math.cosh(x)


@adjoint(math.cosh)
def cosh(z, x):
    d[x] = d[z] * math.sinh(x)


@adjoint(math.tanh)
def tanh(z, x):
    d[x] = d[z] * (1.0 - z * z)


@adjoint(math.asinh)
def asinh(z, x):
    d[x] = d[z] / math.sqrt(x * x + 1.0)


@adjoint(math.acosh, domain=(1.2, 3.0))
def acosh(z, x):
    d[x] = d[z] / math.sqrt(x * x - 1.0)


@adjoint(math.atanh, domain=(-0.9, 0.9))
def atanh(z, x):
    d[x] = d[z] / (1.0 - x * x)


@adjoint(math.exp)
def exp(z, x):
    d[x] = d[z] * z


@adjoint(math.expm1)
def expm1(z, x):
    d[x] = d[z] * (z + 1.0)


if hasattr(math, "exp2"):  # Python >= 3.11
    @adjoint(math.exp2)
    def exp2(z, x):
        d[x] = d[z] * z * math.log(2.0)


# math.log(x) and math.log(x, base) = log(x) / log(base); Numba compiles only the first form.
@adjoint(math.log, domain=(0.2, 3.0), checks=[
    check("math.log(x)", x=()), check("math.log(x, 2.0)", x=(), numba=False),
    check("math.log(x, 10)", x=(), numba=False),
    check("math.log(x, y)", x=(), y=(), domain=(1.5, 3.0), numba=False)])
def log(z, x, base=math.e):
    d[x] = d[z] / (x * math.log(base))
    d[base] = -d[z] * z / (base * math.log(base))


@adjoint(math.log1p, domain=(-0.5, 3.0))
def log1p(z, x):
    d[x] = d[z] / (1.0 + x)


@adjoint(math.log2, domain=(0.2, 3.0))
def log2(z, x):
    d[x] = d[z] / (x * math.log(2.0))


@adjoint(math.log10, domain=(0.2, 3.0))
def log10(z, x):
    d[x] = d[z] / (x * math.log(10.0))


@adjoint(math.sqrt, domain=(0.2, 3.0))
def sqrt(z, x):
    d[x] = d[z] * 0.5 / z


if hasattr(math, "cbrt"):  # Python >= 3.11; Numba has no math.cbrt
    @adjoint(math.cbrt, numba=False, checks=[
        check("math.cbrt(x)", x=(), domain=(0.2, 3.0)),
        check("math.cbrt(x)", x=(), domain=(-3.0, -0.2))])
    def cbrt(z, x):
        d[x] = d[z] / (3.0 * z * z)


@adjoint(math.pow, domain=(0.5, 2.0), checks=[
    check("math.pow(x, y)", x=(), y=()), check("math.pow(x, 3)", x=()),
    check("math.pow(2.0, y)", y=())])
def pow(z, x, y):
    d[x] = d[z] * y * math.pow(x, y - 1.0)
    d[y] = d[z] * z * math.log(x)


@adjoint(math.atan2)
def atan2(z, y, x):
    d[y] = d[z] * x / (x * x + y * y)
    d[x] = -d[z] * y / (x * x + y * y)


@adjoint(math.hypot)
def hypot(z, x, y):
    d[x] = d[z] * x / z
    d[y] = d[z] * y / z


@adjoint(math.erf)
def erf(z, x):
    d[x] = d[z] * (2.0 / math.sqrt(math.pi)) * math.exp(-x * x)


@adjoint(math.erfc)
def erfc(z, x):
    d[x] = -d[z] * (2.0 / math.sqrt(math.pi)) * math.exp(-x * x)


@adjoint(math.lgamma, checks=[
    check("math.lgamma(x)", x=(), domain=(0.2, 8.0)),
    check("math.lgamma(x)", x=(), domain=(-0.9, -0.1))])
def lgamma(z, x):
    d[x] = d[z] * rt.digamma(x)


@adjoint(math.gamma, checks=[
    check("math.gamma(x)", x=(), domain=(0.2, 5.0)),
    check("math.gamma(x)", x=(), domain=(-1.9, -1.1))])
def gamma(z, x):
    d[x] = d[z] * z * rt.digamma(x)


@adjoint(builtins.abs, math.fabs)
def fabs(z, x):
    d[x] = d[z] * numpy.sign(x)


@adjoint(math.copysign, checks=[
    check("math.copysign(x, y)", x=(), y=()), check("math.copysign(x, -1.0)", x=())])
def copysign(z, x, y):
    d[x] = d[z] * math.copysign(1.0, x) * math.copysign(1.0, y)


@adjoint(math.degrees)
def degrees(z, x):
    d[x] = d[z] * (180.0 / math.pi)


@adjoint(math.radians)
def radians(z, x):
    d[x] = d[z] * (math.pi / 180.0)


# fmod(x, y) = x - trunc(x / y) * y; Numba has no math.fmod.
@adjoint(math.fmod, numba=False, checks=[
    check("math.fmod(x, y)", x=(), y=(), domain=(0.3, 2.0)),
    check("math.fmod(-x, y)", x=(), y=(), domain=(0.3, 2.0)), check("math.fmod(x, 0.7)", x=())])
def fmod(z, x, y):
    d[x] = d[z]
    d[y] = -d[z] * math.trunc(x / y)


# ---- builtins -------------------------------------------------------------------------------


@adjoint(builtins.float)
def to_float(z, x):
    d[x] = d[z]


@tangent(builtins.float)
def to_float_tangent(z, x):
    d[z] = d[x]


@adjoint(builtins.pow, broadcasting=True, domain=(0.5, 2.0), checks=[
    check("pow(x, y)", x=(), y=()), check("pow(x, 2)", x=()),
    check("pow(x, y)", x=(3,), y=(), numba=False)])  # Numba's pow takes scalars
def builtin_pow(z, base, exp, mod=None):
    d[base] = d[z] * exp * base ** (exp - 1.0)
    d[exp] = d[z] * z * numpy.log(base)


# max/min of two values; a tie sends half the gradient to each.
@adjoint(builtins.max, checks=[
    check("max(x, y)", x=(), y=()), check("max(x, 0.0)", x=()), check("max(1.0, y)", y=())])
def builtin_max(z, a, b):
    d[a] = d[z] * (numpy.sign(a - b) + 1.0) * 0.5
    d[b] = d[z] * (numpy.sign(b - a) + 1.0) * 0.5


@tangent(builtins.max)
def builtin_max_tangent(z, a, b):
    d[z] = d[a] * (numpy.sign(a - b) + 1.0) * 0.5 + d[b] * (numpy.sign(b - a) + 1.0) * 0.5


@adjoint(builtins.min, checks=[
    check("min(x, y)", x=(), y=()), check("min(x, 0.0)", x=()), check("min(1.0, y)", y=())])
def builtin_min(z, a, b):
    d[a] = d[z] * (numpy.sign(b - a) + 1.0) * 0.5
    d[b] = d[z] * (numpy.sign(a - b) + 1.0) * 0.5


@tangent(builtins.min)
def builtin_min_tangent(z, a, b):
    d[z] = d[a] * (numpy.sign(b - a) + 1.0) * 0.5 + d[b] * (numpy.sign(a - b) + 1.0) * 0.5


# sum(iterable, start): every element gets the result's adjoint, summed to its own shape.
# Numba's builtin sum adds only scalars (a list display is spelt with its elements, but not a
# sum with a start).
@adjoint(builtins.sum, broadcasting=True, checks=[
    check("sum([x, y, x])", x=(), y=()), check("sum((x, y))", x=(), y=()),
    check("sum((x, y), 1.0)", x=(), y=()), check("sum([x, y])", x=(3,), y=(3,)),
    check("sum([x, y, x])", x=(), y=(2, 3)),
    check("sum((x, y), x)", x=(3,), y=(2, 3), numba=False)])
def builtin_sum(z, iterable, start=0):
    d[iterable] = rt.sum_grads(d[z], iterable)
    d[start] = d[z]


@tangent(builtins.sum)
def builtin_sum_tangent(z, iterable, start=0):
    d[z] = rt.total(d[iterable]) + d[start]


nondifferentiable(math.floor, math.ceil, math.trunc, builtins.round, builtins.int)
nondifferentiable(math.isnan, math.isinf, math.isfinite, builtins.bool, result="discrete")
nondifferentiable(builtins.len, builtins.range, result="shape")
