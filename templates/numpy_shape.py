"""Shape and indexing functions: reshape, transpose, concatenate, stack, split, tile, pad, ...

Most adjoints move the result's adjoint back without arithmetic (reshape it back, transpose it
back, slice it back). Sequence arguments (`numpy.concatenate((a, b))`) get one contribution per
element: their template line gives a tuple.
"""
import numpy

from s2sad import rt  # noqa: F401  (templates name rt's helpers; they are read, not run)

from . import adjoint, check, d


@adjoint(numpy.concatenate, numba=False, checks=[
    check("numpy.concatenate((x, y))", x=(3,), y=(2,)),
    check("numpy.concatenate([x, y, x], axis=1)", x=(2, 3), y=(2, 1))])
def concatenate(z, arrays, axis=0):
    d[arrays] = rt.concatenate_grads(d[z], arrays, axis)
