"""Runtime helpers for the derivative templates of numpy.linalg's square-matrix functions (inv,
solve, det, slogdet, cholesky; templates/numpy_linalg.py), and the pieces of their tangents.

Each is defined once (dispatch.py). Numba compiles them for one matrix, as the same code Python
runs for it; stacked matrices (`(..., n, n)`, wherever NumPy supports them) are `python_only`,
and a gradient using them falls back to Python, as the primal itself would.
"""
import numpy as np

from .arrays import f64, outer_product
from .dispatch import by_type, is_array, is_scalar, jitable, loops, python_only
from .linalg import c64, sum_to, swap

__all__ = ["inv_grad", "solve_grad_a", "solve_grad_b", "logdet_grad", "cholesky_grad",
           "solve_product", "solve_product_grad_m", "solve_product_grad_z", "cholesky_lower",
           "cholesky_mask"]

_NUMPY2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"


def _is_vector(a, b):
    """Whether np.linalg.solve(a, b) treats b as (a stack of) vectors."""
    return np.ndim(b) == 1 or (not _NUMPY2 and np.ndim(b) == np.ndim(a) - 1)


def _solve_adjoint(g, a, b):
    """a^-T g, with g shaped like np.linalg.solve(a, b)."""
    if _is_vector(a, b):
        return np.linalg.solve(swap(a), np.asarray(g)[..., None])[..., 0]
    return np.linalg.solve(swap(a), g)


@by_type
def inv_grad(g, z):
    """Gradient w.r.t. a of z = np.linalg.inv(a): -z^T g z^T."""
    if is_array(g, 2) and is_array(z, 2):
        def matrix(g, z):
            zt = f64(z).T
            return -np.dot(np.dot(zt, f64(g)), zt)
        return matrix
    return python_only(lambda g, z: -np.matmul(np.matmul(swap(z), g), swap(z)))


@by_type
def solve_grad_a(g, a, b, z):
    """Gradient w.r.t. a of z = np.linalg.solve(a, b): -(a^-T g) z^T."""
    if is_array(a, 2) and is_array(g) and is_array(z) and is_array(b, 1):
        return loops(lambda g, a, b, z: -np.outer(np.linalg.solve(f64(a).T, f64(g)), f64(z)),
                     lambda g, a, b, z: -outer_product(np.linalg.solve(f64(a).T, f64(g)),
                                                       f64(z)))
    if is_array(a, 2) and is_array(g) and is_array(z) and is_array(b, 2):
        return lambda g, a, b, z: -np.dot(np.linalg.solve(f64(a).T, f64(g)), f64(z).T)
    return python_only(_solve_grad_a)


def _solve_grad_a(g, a, b, z):
    gb = _solve_adjoint(g, a, b)
    if _is_vector(a, b):
        return sum_to(-gb[..., :, None] * z[..., None, :], a)
    return sum_to(-np.matmul(gb, swap(z)), a)


@by_type
def solve_grad_b(g, a, b):
    """Gradient w.r.t. b of z = np.linalg.solve(a, b): a^-T g."""
    if is_array(a, 2) and is_array(g) and (is_array(b, 1) or is_array(b, 2)):
        return lambda g, a, b: np.linalg.solve(f64(a).T, f64(g))
    return python_only(lambda g, a, b: sum_to(_solve_adjoint(g, a, b), b))


@by_type
def logdet_grad(g, a):
    """g * a^-T: the gradient w.r.t. a of log|det a| with adjoint g (of det a: g = dz * z)."""
    if is_scalar(g) and is_array(a, 2):
        return lambda g, a: np.ascontiguousarray(np.linalg.inv(f64(a)).T) * g
    return python_only(lambda g, a: np.asarray(g, dtype=np.float64)[..., None, None] *
                       swap(np.linalg.inv(a)))


@jitable
def _cholesky_grad_lower(g, factor):
    """cholesky_grad for the lower factor of one matrix. The triangles are taken by loops:
    Numba's np.tril, np.diag and 2-D array expressions were 6,600 lines of LLVM IR that every
    gradient calling this compiled to machine code again; the values are the same."""
    n = factor.shape[0]
    c = np.dot(factor.T, g)
    phi = np.zeros((n, n))
    for i in range(n):
        for j in range(i):
            phi[i, j] = c[i, j]
        phi[i, i] = 0.5 * c[i, i]
    linv = np.linalg.inv(factor)
    x = np.dot(np.dot(linv.T, phi), linv)
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(i):
            out[i, j] = x[i, j] + x[j, i]
        out[i, i] = x[i, i]
    return out


@by_type
def cholesky_grad(g, factor, upper=False):
    """Gradient w.r.t. a of L = np.linalg.cholesky(a, upper=upper) (`factor` is L).

    NumPy reads only a's lower triangle (upper: its upper triangle), so the gradient is zero on
    the other one. With X = L^-T phi(L^T g) L^-1, phi keeping the lower triangle with the
    diagonal halved, the gradient is X + X^T below the diagonal and X on it."""
    if is_array(g, 2) and is_array(factor, 2):
        def matrix(g, factor, upper=False):
            if upper:  # u = cholesky(a^T)^T: work with the lower factor, transpose at the end
                return np.ascontiguousarray(_cholesky_grad_lower(c64(g.T), c64(factor.T)).T)
            return _cholesky_grad_lower(c64(g), c64(factor))
        return matrix
    return python_only(_cholesky_grad)


def _cholesky_grad(g, factor, upper=False):
    if upper:
        factor, g = swap(factor), swap(g)
    n = np.shape(factor)[-1]
    eye = np.eye(n)
    c = np.matmul(swap(factor), g)
    phi = np.tril(c, -1) + 0.5 * c * eye
    linv = np.linalg.inv(factor)
    x = np.matmul(np.matmul(swap(linv), phi), linv)
    out = np.tril(x + swap(x), -1) + x * eye
    return swap(out) if upper else out


# ---- tangents (forward mode) --------------------------------------------------------------------
# The pieces of the tangents of solve and cholesky, each with its own rules in
# templates/runtime.py.

def _one_solve(m, z, b):
    """The form Numba compiles (Numba types): one matrix m, and z shaped like b, 1-D or 2-D."""
    return is_array(m, 2) and is_array(z) and z.ndim in (1, 2) and is_array(b, z.ndim)


@by_type
def solve_product(m, z, b):
    """m z, with z = np.linalg.solve(a, b) and m shaped like a: a matrix product, or a
    matrix-vector product when solve treats b as (a stack of) vectors."""
    if is_array(m, 2) and is_array(z) and z.ndim in (1, 2):
        return lambda m, z, b: np.dot(np.ascontiguousarray(m), np.ascontiguousarray(z))
    return python_only(_solve_product)


def _solve_product(m, z, b):
    if _is_vector(m, b):
        return np.matmul(m, np.asarray(z)[..., None])[..., 0]
    return np.matmul(m, z)


@by_type
def solve_product_grad_m(g, m, z, b):
    """Gradient w.r.t. m of solve_product(m, z, b)."""
    if _one_solve(m, z, b) and z.ndim == 1:
        return lambda g, m, z, b: np.outer(g, z)
    if _one_solve(m, z, b):
        return lambda g, m, z, b: np.dot(np.ascontiguousarray(g), np.ascontiguousarray(z.T))
    return python_only(_solve_product_grad_m)


def _solve_product_grad_m(g, m, z, b):
    if _is_vector(m, b):
        return sum_to(np.asarray(g)[..., :, None] * np.asarray(z)[..., None, :], m)
    return sum_to(np.matmul(g, swap(z)), m)


@by_type
def solve_product_grad_z(g, m, z, b):
    """Gradient w.r.t. z of solve_product(m, z, b)."""
    if _one_solve(m, z, b):
        return lambda g, m, z, b: np.dot(np.ascontiguousarray(m.T), np.ascontiguousarray(g))
    return python_only(_solve_product_grad_z)


def _solve_product_grad_z(g, m, z, b):
    if _is_vector(m, b):
        return sum_to(np.matmul(swap(m), np.asarray(g)[..., None])[..., 0], z)
    return sum_to(np.matmul(swap(m), g), z)


@by_type
def cholesky_lower(x, upper=False):
    """x, or its (stacked) transpose when `upper`: the lower factor of
    np.linalg.cholesky(a, upper=upper), or the matrix it reads as lower triangle."""
    if is_array(x, 2):
        def matrix(x, upper=False):
            if upper:
                return c64(x.T)
            return c64(x)
        return matrix
    return python_only(_cholesky_lower)


def _cholesky_lower(x, upper=False):
    x = np.asarray(x, dtype=np.float64)
    return np.ascontiguousarray(swap(x)) if upper else x


@by_type
def cholesky_mask(factor):
    """1 below the diagonal, 1/2 on it, 0 above, shaped like `factor`: phi(S) = S * mask in
    the tangent of a Cholesky factor, dL = L phi(L^-1 dA L^-T). Depends on the shape only."""
    if is_array(factor, 2):
        def matrix(factor):
            n = factor.shape[-1]
            return np.tril(np.ones((n, n))) - 0.5 * np.eye(n)
        return matrix
    return python_only(_cholesky_mask)


def _cholesky_mask(factor):
    n = np.shape(factor)[-1]
    return np.broadcast_to(np.tril(np.ones((n, n))) - 0.5 * np.eye(n), np.shape(factor)).copy()
