"""Python operators and their NumPy ufunc spellings.

Arithmetic broadcasts, so these rules are registered with `broadcasting=True`: each contribution
is summed back to its argument's shape.
"""
import operator

import numpy

from s2sad.runtime import rt  # noqa: F401  (templates name rt's helpers; they are read, not run)

from .registry import adjoint, check, d, nondifferentiable, tangent


def binary(*extra, domain=None):
    """The default checks of a binary elementwise function (shapes that broadcast every way),
    then `extra`."""
    shapes = [((), ()), ((2, 3), (2, 3)), ((2, 3), (3,)), ((), (3,)), ((3, 1), (1, 2))]
    return [check("{f}(x, y)", x=a, y=b, domain=domain) for a, b in shapes] + list(extra)


@adjoint(operator.add, numpy.add, broadcasting=True, checks=binary(check("{f}(x, 1)", x=(3,))))
def add(z, x, y):
    d[x] = d[z]
    d[y] = d[z]


@adjoint(operator.sub, numpy.subtract, broadcasting=True,
         checks=binary(check("{f}(1, y)", y=(2, 3))))
def subtract(z, x, y):
    d[x] = d[z]
    d[y] = -d[z]


@adjoint(operator.mul, numpy.multiply, broadcasting=True,
         checks=binary(check("{f}(x, 2)", x=(2, 3))))
def multiply(z, x, y):
    d[x] = d[z] * y
    d[y] = d[z] * x


@adjoint(operator.truediv, numpy.divide, broadcasting=True, domain=(0.5, 2.0), checks=binary(
    check("{f}(x, -y)", x=(2, 3), y=(3,)), check("{f}(x, 3)", x=(3,)), check("{f}(1, y)", y=(3,))))
def divide(z, x, y):
    d[x] = d[z] / y
    d[y] = -d[z] * z / y


@adjoint(operator.pow, numpy.power, broadcasting=True, domain=(0.5, 2.0), checks=binary(
    check("{f}(x, 2)", x=(3,)), check("{f}(x, 3)", x=(2, 3), domain=(-2.0, -0.5)),
    check("{f}(x, 0.5)", x=(3,)), check("{f}(2.0, y)", y=(3,))))
def power(z, x, y):
    d[x] = d[z] * y * x ** (y - 1)
    d[y] = d[z] * z * numpy.log(x)


# mod(x, y) = x - floor(x / y) * y; inputs keep away from y = 0, where x / y jumps.
@adjoint(operator.mod, numpy.mod, numpy.remainder, broadcasting=True, domain=(0.3, 2.0),
         checks=binary(check("{f}(-x, y)", x=(2, 3), y=(3,)), check("{f}(x, -y)", x=(4,), y=()),
                       check("{f}(x, 0.7)", x=(4,)), check("{f}(3, y)", y=(4,))))
def mod(z, x, y):
    d[x] = d[z]
    d[y] = -d[z] * numpy.floor(x / y)


@adjoint(operator.neg, numpy.negative)
def negative(z, x):
    d[x] = -d[z]


@adjoint(operator.pos, numpy.positive)
def positive(z, x):
    d[x] = d[z]


# Numba compiles `x @ y` of vectors and matrices; s2sad's runtime compiles numpy.matmul and `@`
# of stacks of matrices, their batch dimensions broadcast (s2sad/runtime/products.py).
@adjoint(operator.matmul, checks=[
    check("{f}(x, y)", x=(3, 4), y=(4, 2)), check("{f}(x, y)", x=(3, 4), y=(4,)),
    check("{f}(x, y)", x=(4,), y=(4, 2)), check("{f}(x, y)", x=(2, 3, 4), y=(4, 2)),
    check("{f}(x, y)", x=(2, 1, 3, 4), y=(3, 4, 2)), check("{f}(x, y)", x=(4,), y=(2, 4, 3))])
@adjoint(numpy.matmul, checks=[
    check("{f}(x, y)", x=(3, 4), y=(4, 2)), check("{f}(x, y)", x=(2, 3, 4), y=(4, 2)),
    check("{f}(x, y)", x=(3, 4), y=(2, 4, 2)), check("{f}(x, y)", x=(2, 3, 4), y=(4,))])
def matmul(z, x, y):
    d[x] = rt.matmul_grad_a(d[z], x, y)
    d[y] = rt.matmul_grad_b(d[z], x, y)


@tangent(operator.matmul, numpy.matmul)
def matmul_tangent(z, x, y):
    d[z] = d[x] @ y + x @ d[y]


nondifferentiable(operator.floordiv, numpy.floor_divide)  # piecewise constant
nondifferentiable(operator.lt, operator.le, operator.gt, operator.ge, operator.eq,
                  operator.ne, result="discrete")  # truth values
