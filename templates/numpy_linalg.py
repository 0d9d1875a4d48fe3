"""Linear algebra: products (dot, vdot, outer, inner, tensordot, einsum, kron, cross, trace) and
numpy.linalg (inv, solve, det, slogdet, cholesky, multi_dot).

Numba compiles np.dot, np.vdot (1-D), np.outer, np.trace (2-D, offset only), np.kron, np.cross
and np.linalg.inv/solve/det/slogdet/cholesky, but not np.inner, np.tensordot or
np.linalg.multi_dot: those rules are numba=False. np.einsum with constant subscripts compiles as
s2sad's own loop nest (s2sad/runtime/products.py); keywords (`optimize=`) do not.
"""
import numpy

from s2sad.runtime import rt  # noqa: F401  (templates name rt's helpers; they are read, not run)

from .registry import adjoint, check, d, nondifferentiable, not_implemented, spd, square, tangent

NUMPY2 = numpy.lib.NumpyVersion(numpy.__version__) >= "2.0.0"


def stacked(matrices, k=2):
    """Inputs that are stacks of k matrices drawn by `matrices` (e.g. square(3))."""
    def generate(rng):
        return numpy.stack([matrices(rng) for _ in range(k)])
    generate.describe = f"stacked({matrices.describe}, {k})"
    return generate


# ---- products -----------------------------------------------------------------------------------

@adjoint(numpy.dot, checks=[
    check("numpy.dot(x, y)", x=(4,), y=(4,)), check("numpy.dot(x, y)", x=(3, 4), y=(4,)),
    check("numpy.dot(x, y)", x=(4,), y=(4, 3)), check("numpy.dot(x, y)", x=(2, 4), y=(4, 3)),
    check("numpy.dot(x, y)", x=(), y=(3,)), check("numpy.dot(x, y)", x=(2, 3), y=()),
    check("numpy.dot(x, y)", x=(2, 3, 4), y=(4,), numba=False),
    check("numpy.dot(x, y)", x=(2, 4), y=(3, 4, 2), numba=False)])
def dot(z, a, b, out=None):
    d[a] = rt.dot_grad_a(d[z], a, b)
    d[b] = rt.dot_grad_b(d[z], a, b)


@tangent(numpy.dot)
def dot_tangent(z, a, b, out=None):
    d[z] = numpy.dot(d[a], b) + numpy.dot(a, d[b])


@adjoint(numpy.vdot, checks=[
    check("numpy.vdot(x, y)", x=(4,), y=(4,)),
    check("numpy.vdot(x, y)", x=(2, 3), y=(2, 3), numba=False),
    check("numpy.vdot(x, y)", x=(2, 3), y=(6,), numba=False)])
def vdot(z, a, b, /):
    d[a] = rt.vdot_grad(d[z], b, a)
    d[b] = rt.vdot_grad(d[z], a, b)


@tangent(numpy.vdot)
def vdot_tangent(z, a, b, /):
    d[z] = numpy.vdot(d[a], b) + numpy.vdot(a, d[b])


@adjoint(numpy.outer, checks=[
    check("numpy.outer(x, y)", x=(3,), y=(4,)),
    check("numpy.outer(x, y)", x=(2, 3), y=(4,)),
    check("numpy.outer(x, y)", x=(3,), y=(2, 2)),
    check("numpy.outer(x, y)", x=(), y=(3,)), check("numpy.outer(x, y)", x=(2, 2), y=())])
def outer(z, a, b, out=None):
    d[a] = rt.outer_grad_a(d[z], a, b)
    d[b] = rt.outer_grad_b(d[z], a, b)


@tangent(numpy.outer)
def outer_tangent(z, a, b, out=None):
    d[z] = numpy.outer(d[a], b) + numpy.outer(a, d[b])


@adjoint(numpy.inner, numba=False, checks=[
    check("numpy.inner(x, y)", x=(4,), y=(4,)), check("numpy.inner(x, y)", x=(3, 4), y=(4,)),
    check("numpy.inner(x, y)", x=(2, 4), y=(3, 4)),
    check("numpy.inner(x, y)", x=(2, 3, 4), y=(5, 4)),
    check("numpy.inner(x, y)", x=(), y=(2, 3))])
def inner(z, a, b, /):
    d[a] = rt.inner_grad_a(d[z], a, b)
    d[b] = rt.inner_grad_b(d[z], a, b)


@tangent(numpy.inner)
def inner_tangent(z, a, b, /):
    d[z] = numpy.inner(d[a], b) + numpy.inner(a, d[b])


@adjoint(numpy.tensordot, numba=False, checks=[
    check("numpy.tensordot(x, y)", x=(2, 3, 4), y=(3, 4, 2)),
    check("numpy.tensordot(x, y, 1)", x=(2, 3), y=(3, 4)),
    check("numpy.tensordot(x, y, axes=0)", x=(2,), y=(3,)),
    check("numpy.tensordot(x, y, axes=([1, 0], [0, 1]))", x=(3, 4, 2), y=(4, 3, 5)),
    check("numpy.tensordot(x, y, axes=([0, 2], [2, 1]))", x=(3, 4, 2), y=(5, 2, 3)),
    check("numpy.tensordot(x, y, axes=(-1, 0))", x=(2, 3), y=(3,))])
def tensordot(z, a, b, axes=2):
    d[a] = rt.tensordot_grad_a(d[z], a, b, axes)
    d[b] = rt.tensordot_grad_b(d[z], a, b, axes)


@tangent(numpy.tensordot)
def tensordot_tangent(z, a, b, axes=2):
    d[z] = numpy.tensordot(d[a], b, axes) + numpy.tensordot(a, d[b], axes)


@adjoint(numpy.einsum, checks=[
    check("numpy.einsum('ij,jk->ik', x, y)", x=(2, 3), y=(3, 4)),
    check("numpy.einsum('ij,j->i', x, y)", x=(2, 3), y=(3,)),
    check("numpy.einsum('i,i->', x, y)", x=(3,), y=(3,)),
    check("numpy.einsum('ii->', x)", x=(3, 3)),
    check("numpy.einsum('ii->i', x)", x=(3, 3)),
    check("numpy.einsum('ij->ji', x)", x=(2, 3)),
    check("numpy.einsum('ij->i', x)", x=(2, 3)),
    check("numpy.einsum('bij,bjk->bik', x, y)", x=(2, 2, 3), y=(2, 3, 4)),
    check("numpy.einsum('ij,ij->', x, y)", x=(2, 3), y=(2, 3)),
    check("numpy.einsum('ij,jk', x, y)", x=(2, 3), y=(3, 4)),
    check("numpy.einsum('ba,ab', x, y)", x=(2, 3), y=(3, 2)),
    check("numpy.einsum('i,j,k->ijk', x, y, x)", x=(2,), y=(3,)),
    check("numpy.einsum('ij,ik->jk', x, y, optimize=True)", x=(3, 2), y=(3, 4), numba=False),
    check("numpy.einsum('...ij,...jk->...ik', x, y)", x=(2, 2, 3), y=(3, 4)),
    check("numpy.einsum('ij,ij->ij', x, y)", x=(1, 3), y=(2, 3)),
    check("numpy.einsum('ii,ij->j', x, y)", x=(3, 3), y=(3, 2)),
    check("numpy.einsum('i,->i', x, y)", x=(3,), y=())])
def einsum(z, subscripts, *operands, out=None, dtype=None, order='K', casting='safe',
           optimize=False):
    d[operands] = rt.einsum_grads(d[z], subscripts, operands)


@tangent(numpy.einsum)
def einsum_tangent(z, subscripts, *operands, out=None, dtype=None, order='K', casting='safe',
                   optimize=False):
    d[z] = rt.einsum_tangent(subscripts, operands, d[operands])


@adjoint(numpy.kron, checks=[
    check("numpy.kron(x, y)", x=(2, 3), y=(2, 2)), check("numpy.kron(x, y)", x=(2,), y=(3,)),
    check("numpy.kron(x, y)", x=(2,), y=(3, 2)),
    check("numpy.kron(x, y)", x=(2, 1, 2), y=(2, 3), numba=False),
    check("numpy.kron(x, y)", x=(), y=(3,)), check("numpy.kron(x, y)", x=(2, 2), y=())])
def kron(z, a, b):
    d[a] = rt.kron_grad_a(d[z], a, b)
    d[b] = rt.kron_grad_b(d[z], a, b)


@tangent(numpy.kron)
def kron_tangent(z, a, b):
    d[z] = numpy.kron(d[a], b) + numpy.kron(a, d[b])


@adjoint(numpy.cross, checks=[
    check("numpy.cross(x, y)", x=(3,), y=(3,)), check("numpy.cross(x, y)", x=(4, 3), y=(4, 3)),
    check("numpy.cross(x, y)", x=(4, 3), y=(3,)),
    check("numpy.cross(x, y, axisa=0, axisc=0)", x=(3, 2), y=(2, 3), numba=False),
    check("numpy.cross(x, y, axis=0)", x=(3, 2), y=(3, 1), numba=False)])
def cross(z, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    d[a] = rt.cross_grad_a(d[z], a, b, axisa, axisb, axisc, axis)
    d[b] = rt.cross_grad_b(d[z], a, b, axisa, axisb, axisc, axis)


@tangent(numpy.cross)
def cross_tangent(z, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    d[z] = rt.cross(d[a], b, axisa, axisb, axisc, axis) + rt.cross(a, d[b], axisa, axisb, axisc,
                                                                   axis)


@adjoint(numpy.trace, checks=[
    check("numpy.trace(x)", x=(3, 3)), check("numpy.trace(x)", x=(2, 4)),
    check("numpy.trace(x, 1)", x=(3, 4)), check("numpy.trace(x, offset=-1)", x=(3, 3)),
    check("numpy.trace(x, -5)", x=(3, 3)),
    check("numpy.trace(x)", x=(3, 3, 2), numba=False),
    check("numpy.trace(x, 1, 0, 2)", x=(3, 2, 4), numba=False),
    check("numpy.trace(x, axis1=-1, axis2=-2)", x=(2, 3, 3), numba=False)])
def trace(z, a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    d[a] = rt.trace_grad(d[z], a, offset, axis1, axis2)


@tangent(numpy.trace)
def trace_tangent(z, a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    d[z] = rt.trace(d[a], offset, axis1, axis2)


# ---- numpy.linalg -------------------------------------------------------------------------------

@adjoint(numpy.linalg.inv, checks=[
    check("numpy.linalg.inv(x)", x=square(3)), check("numpy.linalg.inv(x)", x=square(1)),
    check("numpy.linalg.inv(x)", x=stacked(square(2)), numba=False)])
def inv(z, a):
    d[a] = rt.inv_grad(d[z], z)


@tangent(numpy.linalg.inv)
def inv_tangent(z, a):
    d[z] = -(z @ (d[a] @ z))


@adjoint(numpy.linalg.solve, checks=[
    check("numpy.linalg.solve(x, y)", x=square(3), y=(3,)),
    check("numpy.linalg.solve(x, y)", x=square(3), y=(3, 2)),
    check("numpy.linalg.solve(x, y)", x=stacked(square(3)), y=(3,), numba=False),
    check("numpy.linalg.solve(x, y)", x=stacked(square(3)), y=(3, 2), numba=False),
    check("numpy.linalg.solve(x, y)", x=square(3), y=(2, 3, 2), numba=False)])
def solve(z, a, b):
    d[a] = rt.solve_grad_a(d[z], a, b, z)
    d[b] = rt.solve_grad_b(d[z], a, b)


# dz = a^-1 (db - da z), the products taken the way solve reads b (vectors or matrices).
@tangent(numpy.linalg.solve)
def solve_tangent(z, a, b):
    d[z] = rt.solve_product(numpy.linalg.inv(a), d[b] - rt.solve_product(d[a], z, b), b)


@adjoint(numpy.linalg.det, checks=[
    check("numpy.linalg.det(x)", x=square(3)), check("numpy.linalg.det(x)", x=square(2)),
    check("numpy.linalg.det(x)", x=stacked(square(3)), numba=False)])
def det(z, a):
    d[a] = rt.logdet_grad(d[z] * z, a)


@tangent(numpy.linalg.det)
def det_tangent(z, a):
    d[z] = z * rt.trace(numpy.linalg.solve(a, d[a]), 0, -2, -1)


@adjoint(numpy.linalg.slogdet, checks=[
    check("sign, out = numpy.linalg.slogdet(x)", x=square(3)),
    check("sign, out = numpy.linalg.slogdet(x)\nout = out * sign", x=square(2)),
    check("sign, out = numpy.linalg.slogdet(x)", x=stacked(square(3)), numba=False)])
def slogdet(z, a):
    d[a] = rt.logdet_grad(d[z][1], a)


@tangent(numpy.linalg.slogdet)
def slogdet_tangent(z, a):
    d[z] = (rt.zeros_like(z[0]), rt.trace(numpy.linalg.solve(a, d[a]), 0, -2, -1))


@adjoint(numpy.linalg.cholesky, checks=[
    check("numpy.linalg.cholesky(x)", x=spd(3)), check("numpy.linalg.cholesky(x)", x=spd(1)),
    check("numpy.linalg.cholesky(x)", x=stacked(spd(2)), numba=False),
    *([check("numpy.linalg.cholesky(x, upper=True)", x=spd(3), numba=False)] if NUMPY2 else [])])
def cholesky(z, a, /, *, upper=False):
    d[a] = rt.cholesky_grad(d[z], z, upper)


# dL = L phi(L^-1 dA L^-T), phi keeping the lower triangle with the diagonal halved; NumPy reads
# only a's lower triangle (upper=True: the upper one, and the factor is transposed).
@tangent(numpy.linalg.cholesky)
def cholesky_tangent(z, a, /, *, upper=False):
    d[z] = rt.cholesky_lower(rt.cholesky_lower(z, upper) @ (numpy.linalg.solve(
        rt.cholesky_lower(z, upper), numpy.swapaxes(numpy.linalg.solve(
            rt.cholesky_lower(z, upper),
            numpy.tril(rt.cholesky_lower(d[a], upper)) +
            numpy.swapaxes(numpy.tril(rt.cholesky_lower(d[a], upper), -1), -1, -2)), -1, -2)) *
        rt.cholesky_mask(z)), upper)


@adjoint(numpy.linalg.multi_dot, numba=False, checks=[
    check("numpy.linalg.multi_dot([x, y, w])", x=(2, 3), y=(3, 3), w=(3, 2)),
    check("numpy.linalg.multi_dot((x, y))", x=(2, 3), y=(3, 4)),
    check("numpy.linalg.multi_dot([z, y, x, w])", x=(3, 2), y=(4, 3), z=(4,), w=(2,)),
    check("numpy.linalg.multi_dot([x, y, y, x])", x=(3,), y=(3, 3))])
def multi_dot(z, arrays, *, out=None):
    d[arrays] = rt.multi_dot_grads(d[z], arrays)


@tangent(numpy.linalg.multi_dot)
def multi_dot_tangent(z, arrays, *, out=None):
    d[z] = rt.multi_dot_tangent(arrays, d[arrays])


# ---- numpy.linalg's array-API spellings (NumPy 2; Numba compiles none of them but matmul, which
# s2sad's runtime compiles: s2sad/runtime/products.py) ------------------------------------------

if NUMPY2:
    @adjoint(numpy.linalg.outer, numba=False, checks=[
        check("numpy.linalg.outer(x, y)", x=(3,), y=(4,))])
    def linalg_outer(z, x1, x2, /):
        d[x1] = rt.outer_grad_a(d[z], x1, x2)
        d[x2] = rt.outer_grad_b(d[z], x1, x2)

    @tangent(numpy.linalg.outer)
    def linalg_outer_tangent(z, x1, x2, /):
        d[z] = numpy.linalg.outer(d[x1], x2) + numpy.linalg.outer(x1, d[x2])

    @adjoint(numpy.linalg.matmul, checks=[
        check("numpy.linalg.matmul(x, y)", x=(3, 4), y=(4, 2)),
        check("numpy.linalg.matmul(x, y)", x=(2, 3, 4), y=(4,))])
    def linalg_matmul(z, x1, x2, /):
        d[x1] = rt.matmul_grad_a(d[z], x1, x2)
        d[x2] = rt.matmul_grad_b(d[z], x1, x2)

    @tangent(numpy.linalg.matmul)
    def linalg_matmul_tangent(z, x1, x2, /):
        d[z] = numpy.linalg.matmul(d[x1], x2) + numpy.linalg.matmul(x1, d[x2])

    @adjoint(numpy.linalg.tensordot, numba=False, checks=[
        check("numpy.linalg.tensordot(x, y)", x=(2, 3, 4), y=(3, 4, 2)),
        check("numpy.linalg.tensordot(x, y, axes=([0], [1]))", x=(3, 2), y=(4, 3))])
    def linalg_tensordot(z, x1, x2, /, *, axes=2):
        d[x1] = rt.tensordot_grad_a(d[z], x1, x2, axes)
        d[x2] = rt.tensordot_grad_b(d[z], x1, x2, axes)

    @tangent(numpy.linalg.tensordot)
    def linalg_tensordot_tangent(z, x1, x2, /, *, axes=2):
        d[z] = numpy.linalg.tensordot(d[x1], x2, axes=axes) + \
            numpy.linalg.tensordot(x1, d[x2], axes=axes)

    @adjoint(numpy.linalg.trace, numba=False, checks=[
        check("numpy.linalg.trace(x)", x=(3, 3)),
        check("numpy.linalg.trace(x, offset=-1)", x=(2, 3, 4))])
    def linalg_trace(z, x, /, *, offset=0, dtype=None):
        d[x] = rt.trace_grad(d[z], x, offset, -2, -1)

    @tangent(numpy.linalg.trace)
    def linalg_trace_tangent(z, x, /, *, offset=0, dtype=None):
        d[z] = rt.trace(d[x], offset, -2, -1)

    @adjoint(numpy.linalg.cross, numba=False, checks=[
        check("numpy.linalg.cross(x, y)", x=(2, 3), y=(3,)),
        check("numpy.linalg.cross(x, y, axis=0)", x=(3, 2), y=(3, 2))])
    def linalg_cross(z, x1, x2, /, *, axis=-1):
        d[x1] = rt.cross_grad_a(d[z], x1, x2, axis, axis, axis, None)
        d[x2] = rt.cross_grad_b(d[z], x1, x2, axis, axis, axis, None)

    @tangent(numpy.linalg.cross)
    def linalg_cross_tangent(z, x1, x2, /, *, axis=-1):
        d[z] = rt.cross(d[x1], x2, axis, axis, axis, None) + rt.cross(x1, d[x2], axis, axis, axis,
                                                                      None)


nondifferentiable(numpy.linalg.matrix_rank, result="discrete")  # an integer
not_implemented(numpy.linalg.eig, numpy.linalg.eigvals,
                note="general (non-symmetric) eigenproblems have complex results; "
                     "numpy.linalg.eigh and eigvalsh are differentiable (templates/linalg_more.py)")
