"""numpy.linalg's decompositions and what is built on them: eigh, eigvalsh, svd, svdvals, qr,
lstsq, pinv, matrix_power, and NumPy 2's vector_norm and matrix_norm.

Eigenvectors and singular vectors are differentiated with F[i, j] = 1 / (w[j] - w[i]) (w the
eigenvalues, or the squared singular values): repeated eigen- or singular values are not
supported (their vectors have no derivative; the gradient is infinite or NaN there). The rules
assume what makes the result differentiable: qr and lstsq of a matrix with at least as many rows
as columns and full column rank, pinv of a full-rank matrix, svd with full_matrices=False (or of
a square matrix). Forward mode of svd is for compute_uv=True; numpy.linalg.svdvals gives the
singular values alone.

Numba compiles eigh, eigvalsh, svd, qr, lstsq, pinv and matrix_power of one matrix (eigh and
eigvalsh without UPLO); not vector_norm, matrix_norm or svdvals (rules numba=False).
"""
import numpy

from s2sad.runtime import rt  # noqa: F401  (templates name rt's helpers; they are read, not run)

from .registry import adjoint, check, d, square, tangent
from .numpy_linalg import stacked

M = (3, 4)


def separated(n, upper=True):
    """Inputs that are n x n matrices whose lower triangle is a symmetric matrix with
    eigenvalues at least 1 apart (and, `upper`, noise above the diagonal, which eigh ignores)."""
    def generate(rng):
        q, _ = numpy.linalg.qr(rng.normal(size=(n, n)))
        w = 1.5 * numpy.arange(1, n + 1) - 2.0 + rng.uniform(0.0, 0.4, n)
        a = (q * w) @ q.T
        return a + numpy.triu(rng.uniform(-1.0, 1.0, (n, n)), 1) if upper else a
    generate.describe = f"separated({n})"
    return generate


def tall(m, n):
    """Inputs that are m x n matrices (m >= n) with well separated singular values."""
    def generate(rng):
        u, _ = numpy.linalg.qr(rng.normal(size=(m, n)))
        v, _ = numpy.linalg.qr(rng.normal(size=(n, n)))
        s = numpy.arange(n, 0, -1) * 1.0 + rng.uniform(0.0, 0.3, n)
        return (u * s) @ v.T
    generate.describe = f"tall({m}, {n})"
    return generate


# ---- symmetric eigenproblems --------------------------------------------------------------------

@adjoint(numpy.linalg.eigh, checks=[
    check("w, v = numpy.linalg.eigh(x)\nout = w", x=separated(3)),
    check("w, v = numpy.linalg.eigh(x)\nout = v * v", x=separated(3)),
    check("w, v = numpy.linalg.eigh(x)\nout = w[0] * (v[:, 1] * v[:, 1])", x=separated(4)),
    check("w, v = numpy.linalg.eigh(x, 'U')\nout = (v * v) @ w", x=separated(3), numba=False),
    check("w, v = numpy.linalg.eigh(x)\nout = v * v", x=stacked(separated(3)), numba=False)])
def eigh(z, a, UPLO="L"):
    d[a] = rt.eigh_grad(d[z][0], d[z][1], z[0], z[1], UPLO)


# dw = diag(v^T S v), dv = v (F * v^T S v), S the symmetric matrix eigh reads from d[a].
@tangent(numpy.linalg.eigh)
def eigh_tangent(z, a, UPLO="L"):
    d[z] = (numpy.sum(z[1] * (rt.hermitian_part(d[a], UPLO) @ z[1]), axis=-2),
            z[1] @ ((numpy.swapaxes(z[1], -1, -2) @ (rt.hermitian_part(d[a], UPLO) @ z[1])) *
                    rt.eig_gaps(z[0])))


@adjoint(numpy.linalg.eigvalsh, checks=[
    check("numpy.linalg.eigvalsh(x)", x=separated(3)),
    check("numpy.linalg.eigvalsh(x, UPLO='U')", x=separated(3), numba=False),
    check("numpy.linalg.eigvalsh(x)", x=stacked(separated(2)), numba=False)])
def eigvalsh(z, a, UPLO="L"):
    d[a] = rt.eigh_factor_grad(d[z], a, UPLO, 0)


@tangent(numpy.linalg.eigvalsh)
def eigvalsh_tangent(z, a, UPLO="L"):
    d[z] = numpy.sum(rt.eigh_factor(a, UPLO, 1) * (rt.hermitian_part(d[a], UPLO) @
                                                     rt.eigh_factor(a, UPLO, 1)), axis=-2)


# ---- singular values ----------------------------------------------------------------------------

@adjoint(numpy.linalg.svd, checks=[
    check("u, s, vh = numpy.linalg.svd(x, full_matrices=False)\nout = s", x=tall(4, 3)),
    check("u, s, vh = numpy.linalg.svd(x)\nout = (u * u) @ s + vh * vh", x=tall(3, 3)),
    check("u, s, vh = numpy.linalg.svd(x, False)\nout = u * u", x=tall(4, 2)),
    check("u, s, vh = numpy.linalg.svd(x.T, False)\nout = (vh * vh) * s[0]", x=tall(4, 3)),
    check("u, s, vh = numpy.linalg.svd(x, False)\nout = u * u", x=stacked(tall(3, 2)),
          numba=False)])
def svd(z, a, full_matrices=True, compute_uv=True, hermitian=False):
    d[a] = rt.svd_grad(d[z][0], d[z][1], d[z][2], z[0], z[1], z[2])


# With p = u^T da v and F[i, j] = 1 / (s[j]^2 - s[i]^2): ds = diag(p),
# du = u (F * (p s + s p^T)) + (1 - u u^T) da v / s, dv = v (F * (s p + p^T s)) + (1 - v v^T) da^T u / s.
@tangent(numpy.linalg.svd)
def svd_tangent(z, a, full_matrices=True, compute_uv=True, hermitian=False):
    d[z] = (z[0] @ (rt.eig_gaps(z[1] * z[1]) * (
                (numpy.swapaxes(z[0], -1, -2) @ d[a] @ numpy.swapaxes(z[2], -1, -2)) * numpy.expand_dims(z[1], -2) +
                numpy.swapaxes((numpy.swapaxes(z[0], -1, -2) @ d[a] @
                                numpy.swapaxes(z[2], -1, -2)) * numpy.expand_dims(z[1], -2), -1, -2))) +
            (d[a] @ numpy.swapaxes(z[2], -1, -2) - z[0] @ (numpy.swapaxes(z[0], -1, -2) @ d[a] @
                                                          numpy.swapaxes(z[2], -1, -2))) / numpy.expand_dims(z[1], -2),
            numpy.sum(z[0] * (d[a] @ numpy.swapaxes(z[2], -1, -2)), axis=-2),
            numpy.swapaxes(numpy.swapaxes(z[2], -1, -2) @ (rt.eig_gaps(z[1] * z[1]) * (
                numpy.swapaxes(numpy.swapaxes(z[0], -1, -2) @ d[a] @ numpy.swapaxes(z[2], -1, -2),
                               -1, -2) * numpy.expand_dims(z[1], -2) +
                numpy.swapaxes(numpy.swapaxes(numpy.swapaxes(z[0], -1, -2) @ d[a] @
                                              numpy.swapaxes(z[2], -1, -2), -1, -2) * numpy.expand_dims(z[1], -2),
                               -1, -2))) +
                (numpy.swapaxes(d[a], -1, -2) @ z[0] - numpy.swapaxes(z[2], -1, -2) @
                 numpy.swapaxes(numpy.swapaxes(z[0], -1, -2) @ d[a] @
                                numpy.swapaxes(z[2], -1, -2), -1, -2)) / numpy.expand_dims(z[1], -2), -1, -2))


@adjoint(numpy.linalg.svdvals, numba=False, checks=[
    check("numpy.linalg.svdvals(x)", x=tall(4, 3)), check("numpy.linalg.svdvals(x)", x=tall(3, 3)),
    check("numpy.linalg.svdvals(x.T)", x=tall(4, 2))])
def svdvals(z, x, /):
    d[x] = rt.svd_factor_grad(d[z], x, 1)


@tangent(numpy.linalg.svdvals)
def svdvals_tangent(z, x, /):
    d[z] = numpy.sum(rt.svd_factor(x, 0) * (d[x] @ rt.svd_factor(x, 2)), axis=-2)


# ---- qr, lstsq, pinv ----------------------------------------------------------------------------

@adjoint(numpy.linalg.qr, checks=[
    check("q, r = numpy.linalg.qr(x)\nout = q", x=tall(4, 3)),
    check("q, r = numpy.linalg.qr(x)\nout = r", x=tall(3, 3)),
    check("q, r = numpy.linalg.qr(x)\nout = q @ r[:, 0] + numpy.sum(r * r)", x=tall(5, 2)),
    check("q, r = numpy.linalg.qr(x, mode='reduced')\nout = q * r[0, 1]", x=tall(4, 2),
          numba=False),
    check("q, r = numpy.linalg.qr(x)\nout = q", x=stacked(tall(3, 2)), numba=False)])
def qr(z, a, mode="reduced"):
    d[a] = rt.qr_grad(d[z][0], d[z][1], z[0], z[1])


# X = q^T da r^-1, B = X - tril(X, -1) + tril(X, -1)^T: dq = da r^-1 - q B, dr = B r.
@tangent(numpy.linalg.qr)
def qr_tangent(z, a, mode="reduced"):
    d[z] = (d[a] @ numpy.linalg.inv(z[1]) - z[0] @ (
                numpy.swapaxes(z[0], -1, -2) @ d[a] @ numpy.linalg.inv(z[1]) -
                numpy.tril(numpy.swapaxes(z[0], -1, -2) @ d[a] @ numpy.linalg.inv(z[1]), -1) +
                numpy.swapaxes(numpy.tril(numpy.swapaxes(z[0], -1, -2) @ d[a] @
                                          numpy.linalg.inv(z[1]), -1), -1, -2)),
            (numpy.swapaxes(z[0], -1, -2) @ d[a] @ numpy.linalg.inv(z[1]) -
             numpy.tril(numpy.swapaxes(z[0], -1, -2) @ d[a] @ numpy.linalg.inv(z[1]), -1) +
             numpy.swapaxes(numpy.tril(numpy.swapaxes(z[0], -1, -2) @ d[a] @
                                       numpy.linalg.inv(z[1]), -1), -1, -2)) @ z[1])


@adjoint(numpy.linalg.lstsq, checks=[
    check("x, res, rank, sv = numpy.linalg.lstsq(a, b)\nout = x", a=tall(5, 3), b=(5,)),
    check("x, res, rank, sv = numpy.linalg.lstsq(a, b)\nout = res", a=tall(5, 3), b=(5, 2)),
    check("x, res, rank, sv = numpy.linalg.lstsq(a, b)\nout = x * sv[0] + res[0]", a=tall(4, 2),
          b=(4,)),
    check("x, res, rank, sv = numpy.linalg.lstsq(a, b)\nout = x", a=tall(3, 3), b=(3, 2)),
    check("x, res, rank, sv = numpy.linalg.lstsq(a, b, rcond=None)\nout = x", a=tall(4, 2),
          b=(4,), numba=False)])
def lstsq(z, a, b, rcond=None):
    d[a] = rt.lstsq_grad_a(d[z][0], d[z][1], d[z][3], a, b, z[0], z[1])
    d[b] = rt.lstsq_grad_b(d[z][0], d[z][1], a, b, z[0], z[1])


# dx = (a^T a)^-1 (da^T r - a^T (da x - db)), r = b - a x; d res = 2 sum(r (db - da x)).
@tangent(numpy.linalg.lstsq)
def lstsq_tangent(z, a, b, rcond=None):
    d[z] = (numpy.linalg.solve(numpy.swapaxes(a, -1, -2) @ a,
                               numpy.swapaxes(d[a], -1, -2) @ (b - a @ z[0]) -
                               numpy.swapaxes(a, -1, -2) @ (d[a] @ z[0] - d[b])),
            rt.residuals_like(2.0 * numpy.sum((b - a @ z[0]) * (d[b] - d[a] @ z[0]), axis=0),
                              z[1]),
            rt.zeros_like(z[2]),
            numpy.sum(rt.svd_factor(a, 0) * (d[a] @ rt.svd_factor(a, 2)), axis=-2))


@adjoint(numpy.linalg.pinv, checks=[
    check("numpy.linalg.pinv(x)", x=tall(4, 3)), check("numpy.linalg.pinv(x.T)", x=tall(4, 2)),
    check("numpy.linalg.pinv(x)", x=tall(3, 3)),
    check("numpy.linalg.pinv(x)", x=stacked(tall(3, 2)), numba=False)])
def pinv(z, a, rcond=None, hermitian=False, *, rtol=None):
    d[a] = rt.pinv_grad(d[z], a, z)


# dz = -z da z + z z^T da^T (1 - a z) + (1 - z a) da^T z^T z.
@tangent(numpy.linalg.pinv)
def pinv_tangent(z, a, rcond=None, hermitian=False, *, rtol=None):
    d[z] = -(z @ d[a] @ z) + \
        z @ numpy.swapaxes(z, -1, -2) @ (numpy.swapaxes(d[a], -1, -2) -
                                          numpy.swapaxes(d[a], -1, -2) @ a @ z) + \
        (numpy.swapaxes(d[a], -1, -2) - z @ a @ numpy.swapaxes(d[a], -1, -2)) @ \
        numpy.swapaxes(z, -1, -2) @ z


@adjoint(numpy.linalg.matrix_power, checks=[
    check("numpy.linalg.matrix_power(x, 3)", x=(3, 3)),
    check("numpy.linalg.matrix_power(x, 1)", x=(2, 2)),
    check("numpy.linalg.matrix_power(x, 0)", x=(2, 2)),
    check("numpy.linalg.matrix_power(x, -2)", x=square(3)),
    check("numpy.linalg.matrix_power(x, n=2)", x=(2, 3, 3), numba=False)])
def matrix_power(z, a, n):
    d[a] = rt.matrix_power_grad(d[z], a, n)


@tangent(numpy.linalg.matrix_power)
def matrix_power_tangent(z, a, n):
    d[z] = rt.matrix_power_tangent(d[a], a, n)


# ---- NumPy 2's norms ----------------------------------------------------------------------------

@adjoint(numpy.linalg.vector_norm, numba=False, checks=[
    check("numpy.linalg.vector_norm(x)", x=(5,)), check("numpy.linalg.vector_norm(x)", x=M),
    check("numpy.linalg.vector_norm(x, ord=1)", x=M),
    check("numpy.linalg.vector_norm(x, axis=1, ord=3)", x=M),
    check("numpy.linalg.vector_norm(x, axis=(0, 2), keepdims=True)", x=(2, 3, 4)),
    check("numpy.linalg.vector_norm(x, ord=numpy.inf)", x=M)])
def vector_norm(z, x, /, *, axis=None, keepdims=False, ord=2):
    d[x] = rt.vector_norm_grad(d[z], x, z, axis, keepdims, ord)


@tangent(numpy.linalg.vector_norm)
def vector_norm_tangent(z, x, /, *, axis=None, keepdims=False, ord=2):
    d[z] = rt.vector_norm_tangent(d[x], x, z, axis, keepdims, ord)


@adjoint(numpy.linalg.matrix_norm, numba=False, checks=[
    check("numpy.linalg.matrix_norm(x)", x=M), check("numpy.linalg.matrix_norm(x, ord=2)", x=M),
    check("numpy.linalg.matrix_norm(x, ord='nuc')", x=M),
    check("numpy.linalg.matrix_norm(x, ord=1, keepdims=True)", x=(2, 3, 4))])
def matrix_norm(z, x, /, *, keepdims=False, ord="fro"):
    d[x] = rt.norm_grad(d[z], x, z, ord, (-2, -1), keepdims)


@tangent(numpy.linalg.matrix_norm)
def matrix_norm_tangent(z, x, /, *, keepdims=False, ord="fro"):
    d[z] = rt.norm_tangent(d[x], x, z, ord, (-2, -1), keepdims)


# ---- rules of the helpers the tangents above call (second derivatives) --------------------------

@adjoint(rt.hermitian_part, checks=[check("{f}(t, 'L')", t=(3, 3)), check("{f}(t, 'U')", t=(3, 3))])
def rt_hermitian_part(z, t, UPLO="L"):
    d[t] = rt.hermitian_part_grad(d[z], UPLO)


@tangent(rt.hermitian_part)
def rt_hermitian_part_tangent(z, t, UPLO="L"):
    d[z] = rt.hermitian_part(d[t], UPLO)


def _spread(n):
    def generate(rng):
        return numpy.arange(n) * 1.0 + rng.uniform(0.0, 0.5, n)
    generate.describe = f"{n} spread values"
    return generate


@adjoint(rt.eig_gaps, checks=[check("{f}(w)", w=_spread(3)), check("{f}(w)", w=_spread(4))])
def rt_eig_gaps(z, w):
    d[w] = rt.eig_gaps_grad(d[z], w)


@tangent(rt.eig_gaps)
def rt_eig_gaps_tangent(z, w):
    d[z] = rt.eig_gaps_tangent(d[w], w)


@adjoint(rt.eigh_factor, checks=[
    check("{f}(x, 'L', 0)", x=separated(3)), check("v = {f}(x, 'L', 1)\nout = v * v",
                                                    x=separated(3))])
def rt_eigh_factor(z, a, UPLO="L", k=0):
    d[a] = rt.eigh_factor_grad(d[z], a, UPLO, k)


@tangent(rt.eigh_factor)
def rt_eigh_factor_tangent(z, a, UPLO="L", k=0):
    d[z] = rt.eigh_factor_tangent(d[a], a, UPLO, k)


@adjoint(rt.svd_factor, checks=[
    check("{f}(x, 1)", x=tall(4, 3)), check("u = {f}(x, 0)\nout = u * u", x=tall(4, 3)),
    check("v = {f}(x, 2)\nout = v * v", x=tall(3, 2))])
def rt_svd_factor(z, a, k=1):
    d[a] = rt.svd_factor_grad(d[z], a, k)


@tangent(rt.svd_factor)
def rt_svd_factor_tangent(z, a, k=1):
    d[z] = rt.svd_factor_tangent(d[a], a, k)


@adjoint(rt.residuals_like, checks=[
    check("{f}(t, numpy.ones(1))", t=()), check("{f}(t, numpy.ones(2))", t=(2,)),
    check("{f}(t, numpy.ones(0))", t=(2,))])
def rt_residuals_like(z, t, res):
    d[t] = rt.residuals_like_grad(d[z], t, res)


@tangent(rt.residuals_like)
def rt_residuals_like_tangent(z, t, res):
    d[z] = rt.residuals_like(d[t], res)


@adjoint(rt.matrix_power_tangent, numba=False, checks=[
    check("{f}(t, x, 3)", t=(3, 3), x=(3, 3)), check("{f}(t, x, 2)", t=(2, 2), x=(2, 2))])
def rt_matrix_power_tangent(z, t, a, n):
    d[t] = rt.matrix_power_grad(d[z], a, n)
    d[a] = rt.matrix_power_tangent_grad_a(d[z], t, a, n)


@tangent(rt.matrix_power_tangent)
def rt_matrix_power_tangent_tangent(z, t, a, n):
    d[z] = rt.matrix_power_tangent(d[t], a, n) + rt.matrix_power_tangent2(t, d[a], a, n)


@adjoint(rt.vector_norm_tangent, numba=False, checks=[
    check("{f}(t, x, numpy.linalg.vector_norm(x))", t=M, x=M),
    check("{f}(t, x, numpy.linalg.vector_norm(x, axis=1, ord=3), 1, False, 3)", t=M, x=M)])
def rt_vector_norm_tangent(r, t, x, z, axis=None, keepdims=False, ord=2):
    d[t] = rt.vector_norm_grad(d[r], x, z, axis, keepdims, ord)
    d[x] = rt.vector_norm_tangent_grad_x(d[r], t, x, z, axis, keepdims, ord)
    d[z] = rt.vector_norm_tangent_grad_z(d[r], t, x, z, axis, keepdims, ord)


@tangent(rt.vector_norm_tangent)
def rt_vector_norm_tangent_tangent(r, t, x, z, axis=None, keepdims=False, ord=2):
    d[r] = rt.vector_norm_tangent(d[t], x, z, axis, keepdims, ord) + \
        rt.vector_norm_tangent2(t, d[x], d[z], x, z, axis, keepdims, ord)
