"""NumPy elementwise functions (ufuncs) and what NumPy declares without a gradient.

Unary elementwise rules need no unbroadcasting; binary ones are registered with
`broadcasting=True`. Reductions, linear algebra and shape functions have their own modules.
"""
import numpy

from s2sad import rt  # noqa: F401  (templates name rt's helpers; they are read, not run)

from . import adjoint, d, nondifferentiable

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


@adjoint(numpy.exp)
def exp(z, x):
    d[x] = d[z] * z


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


@adjoint(numpy.square)
def square(z, x):
    d[x] = d[z] * 2.0 * x


@adjoint(numpy.abs, numpy.absolute, numpy.fabs)
def absolute(z, x):
    d[x] = d[z] * numpy.sign(x)


@adjoint(numpy.arctan2, broadcasting=True)
def arctan2(z, y, x):
    d[y] = d[z] * x / (x * x + y * y)
    d[x] = -d[z] * y / (x * x + y * y)


# ---- no gradient, by declaration ------------------------------------------------------------

nondifferentiable(
    numpy.zeros, numpy.ones, numpy.empty, numpy.full, numpy.zeros_like, numpy.ones_like,
    numpy.empty_like, numpy.full_like, numpy.arange, numpy.shape, numpy.ndim, numpy.size,
    numpy.floor, numpy.ceil, numpy.round, numpy.rint, numpy.trunc, numpy.sign, numpy.argmax,
    numpy.argmin, numpy.argsort, numpy.isnan, numpy.isinf, numpy.isfinite, numpy.eye,
    numpy.identity,
)
