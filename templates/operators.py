"""Python operators and their NumPy ufunc spellings.

Arithmetic broadcasts, so these rules are registered with `broadcasting=True`: each contribution
is summed back to its argument's shape.
"""
import operator

import numpy

from s2sad import rt  # noqa: F401  (templates name rt's helpers; they are read, not run)

from . import adjoint, check, d, nondifferentiable


@adjoint(operator.add, numpy.add, broadcasting=True)
def add(z, x, y):
    d[x] = d[z]
    d[y] = d[z]


@adjoint(operator.sub, numpy.subtract, broadcasting=True)
def subtract(z, x, y):
    d[x] = d[z]
    d[y] = -d[z]


@adjoint(operator.mul, numpy.multiply, broadcasting=True)
def multiply(z, x, y):
    d[x] = d[z] * y
    d[y] = d[z] * x


@adjoint(operator.truediv, numpy.divide, broadcasting=True)
def divide(z, x, y):
    d[x] = d[z] / y
    d[y] = -d[z] * z / y


@adjoint(operator.pow, numpy.power, broadcasting=True, domain=(0.5, 2.0))
def power(z, x, y):
    d[x] = d[z] * y * x ** (y - 1)
    d[y] = d[z] * z * numpy.log(x)


@adjoint(operator.mod, numpy.mod, numpy.remainder, broadcasting=True)
def mod(z, x, y):
    d[x] = d[z]
    d[y] = -d[z] * numpy.floor(x / y)


@adjoint(operator.neg, numpy.negative)
def negative(z, x):
    d[x] = -d[z]


@adjoint(operator.pos, numpy.positive)
def positive(z, x):
    d[x] = d[z]


@adjoint(operator.matmul, numpy.matmul, checks=[
    check("{f}(x, y)", x=(3, 4), y=(4, 2)), check("{f}(x, y)", x=(3, 4), y=(4,)),
    check("{f}(x, y)", x=(4,), y=(4, 2)), check("{f}(x, y)", x=(2, 3, 4), y=(4, 2), numba=False)])
def matmul(z, x, y):
    d[x] = rt.matmul_grad_a(d[z], x, y)
    d[y] = rt.matmul_grad_b(d[z], x, y)


nondifferentiable(operator.floordiv, numpy.floor_divide)  # piecewise constant
