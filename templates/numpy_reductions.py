"""NumPy reductions and scans: sum, mean, prod, max/min, var/std, cumsum/cumprod, norms.

A reduction's adjoint maps the result's adjoint back onto the argument's shape (`rt.unreduce`
puts the reduced axes back); `axis` may be an int, a tuple or negative, and `keepdims` keeps the
reduced axes in the result.
"""
import numpy

from s2sad import rt  # noqa: F401  (templates name rt's helpers; they are read, not run)

from . import adjoint, check, d

R = (3, 4)


@adjoint(numpy.sum, checks=[
    check("numpy.sum(x)", x=R), check("numpy.sum(x, axis=0)", x=R),
    check("numpy.sum(x, axis=-1)", x=(2, 3, 4)),
    check("numpy.sum(x, axis=(0, 2))", x=(2, 3, 4)),
    check("numpy.sum(x, axis=1, keepdims=True)", x=R, numba=False)])
def sum(z, a, axis=None, keepdims=False):
    d[a] = rt.unreduce(d[z], a, axis)


@adjoint(numpy.mean, checks=[
    check("numpy.mean(x)", x=R), check("numpy.mean(x, axis=0)", x=R, numba=False),
    check("numpy.mean(x, axis=(0, -1), keepdims=True)", x=(2, 3, 4), numba=False)])
def mean(z, a, axis=None, keepdims=False):
    d[a] = rt.unreduce(d[z], a, axis) / rt.reduced_size(a, axis)
