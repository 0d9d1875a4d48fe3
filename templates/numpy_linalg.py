"""Linear algebra: products (dot, matmul, outer, inner, einsum, trace) and numpy.linalg."""
import numpy

from s2sad import rt  # noqa: F401  (templates name rt's helpers; they are read, not run)

from . import adjoint, check, d, square


@adjoint(numpy.dot, checks=[
    check("numpy.dot(x, y)", x=(4,), y=(4,)), check("numpy.dot(x, y)", x=(3, 4), y=(4,)),
    check("numpy.dot(x, y)", x=(4,), y=(4, 3)), check("numpy.dot(x, y)", x=(2, 4), y=(4, 3)),
    check("numpy.dot(x, y)", x=(), y=(3,), numba=False)])
def dot(z, a, b):
    d[a] = rt.dot_grad_a(d[z], a, b)
    d[b] = rt.dot_grad_b(d[z], a, b)


@adjoint(numpy.linalg.slogdet, checks=[
    check("sign, out = numpy.linalg.slogdet(x)", x=square(3))])
def slogdet(z, a):
    d[a] = d[z][1] * numpy.linalg.inv(a).T
