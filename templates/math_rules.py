"""The `math` module (Python floats in, floats out) and the builtins that act on numbers."""
import builtins
import math

import numpy

from . import adjoint, d, nondifferentiable


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


@adjoint(math.exp)
def exp(z, x):
    d[x] = d[z] * z


@adjoint(math.expm1)
def expm1(z, x):
    d[x] = d[z] * (z + 1.0)


@adjoint(math.log, domain=(0.2, 3.0))
def log(z, x):
    d[x] = d[z] / x


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


@adjoint(math.pow, domain=(0.5, 2.0))
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


@adjoint(builtins.abs, math.fabs)
def fabs(z, x):
    d[x] = d[z] * numpy.sign(x)


@adjoint(builtins.float)
def to_float(z, x):
    d[x] = d[z]


nondifferentiable(math.floor, math.ceil, math.trunc, builtins.round, builtins.int,
                  builtins.len, builtins.range, math.isnan, math.isinf, math.isfinite)
