"""The gradient of numpy.linalg.norm (templates/numpy_reductions.py): vector p-norms, 0 and
+-inf, and the matrix norms (Frobenius, nuclear, +-1, +-2, +-inf), each as its `norm_grad`
docstring says. Its tangent is in reduction_tangents.py; the conventions are reductions.py's."""
import numpy as np

from .core import axes_of, is_number, kept_shape
from .dispatch import by_type, is_float64, is_int, is_none, jitable, python_only
from .reductions import flat64, shares, ties, value, whole

__all__ = ["norm_grad"]


def safe_divide(x, y):
    """x / y, 0 where y is 0 (the subgradient chosen at a norm's kink)."""
    return x / np.where(y == 0.0, 1.0, y) * (y != 0.0)


def norm_axes(x, ord, axis):
    """The axes np.linalg.norm(x, ord, axis) reduces, and whether it is a vector norm."""
    if axis is not None:
        axes = axes_of(axis, x.ndim)
        return axes, len(axes) == 1
    if ord is None:
        return tuple(range(x.ndim)), False   # the 2-norm of x flattened
    return tuple(range(x.ndim)), x.ndim == 1


@jitable
def _vector_norm_grad(x, z, ord):
    """d norm(x, ord) / dx for 1-D float64 x; zero where z is zero."""
    if ord == 0.0 or z == 0.0:
        return np.zeros(x.size)
    if ord == np.inf or ord == -np.inf:
        size = np.abs(x)
        best = size.max() if ord > 0.0 else size.min()
        return np.sign(x) * shares(size == best)
    if ord == 2.0:
        return x / z
    return np.sign(x) * (np.abs(x) / z) ** (ord - 1.0)


@jitable
def _matrix_norm_grad(x, ord):
    """d norm(x, ord) / dx for a 2-D float64 x and a numeric ord."""
    if ord == 2.0 or ord == -2.0:
        u, _, vt = np.linalg.svd(x, False)
        k = 0 if ord > 0.0 else min(x.shape[0], x.shape[1]) - 1
        return np.outer(u[:, k], vt[k, :])
    if ord == 1.0 or ord == -1.0:     # the largest/smallest column sum of |x|
        sums = np.sum(np.abs(x), axis=0)
        best = sums.max() if ord > 0.0 else sums.min()
        return np.sign(x) * shares(sums == best).reshape((1, sums.size))
    if ord == np.inf or ord == -np.inf:     # the largest/smallest row sum
        sums = np.sum(np.abs(x), axis=1)
        best = sums.max() if ord > 0.0 else sums.min()
        return np.sign(x) * shares(sums == best).reshape((sums.size, 1))
    raise ValueError("norm_grad: invalid norm order for matrices")


@by_type
def norm_grad(g, x, z, ord=None, axis=None, keepdims=False):
    """Gradient w.r.t. x of z = np.linalg.norm(x, ord, axis, keepdims).

    2-norms (vector 2, matrix 'fro', ord None): x / z. Vector p-norms: sign(x) (|x| / z)^(p-1)
    (p = 1: sign(x)); +-inf: sign(x) on the largest/smallest |x|, ties split evenly. Matrix
    2/-2: u v^T of the largest/smallest singular value; 'nuc': U V^T; 1/-1 and inf/-inf: sign(x)
    on the largest/smallest column/row sum of |x|, ties split evenly. Zero where z is zero.
    Numba: axis None and a numeric ord (none: the 2-norm of x flattened)."""
    if whole(x, g, axis) and is_none(ord):
        def two(g, x, z, ord=None, axis=None, keepdims=False):
            scale = value(g) / z if z != 0.0 else 0.0
            return (flat64(x) * scale).reshape(x.shape)
        return two
    if whole(x, g, axis) and (is_int(ord) or is_float64(ord)) and x.ndim == 1:
        return lambda g, x, z, ord=None, axis=None, keepdims=False: \
            _vector_norm_grad(flat64(x), z, float(ord)) * value(g)
    if whole(x, g, axis) and (is_int(ord) or is_float64(ord)) and x.ndim == 2:
        return lambda g, x, z, ord=None, axis=None, keepdims=False: \
            _matrix_norm_grad(np.ascontiguousarray(x).astype(np.float64), float(ord)) * value(g)
    return python_only(_norm_grad)


def _norm_grad(g, x, z, ord=None, axis=None, keepdims=False):
    if is_number(x):
        return float(g) * float(np.sign(x))   # np.linalg.norm of a number is |x|
    x = np.asarray(x, dtype=np.float64)
    axes, vector = norm_axes(x, ord, axis)
    gk = np.reshape(g, kept_shape(x.shape, axes))
    zk = np.reshape(z, kept_shape(x.shape, axes))
    if ord is None or (ord == 2 and vector) or (isinstance(ord, str) and ord in ("fro", "f")):
        return gk * safe_divide(x, zk)
    if vector:
        if ord == 0:
            return np.zeros(x.shape)               # a count of nonzeros: piecewise constant
        if np.isinf(ord):
            size = np.abs(x)
            best = np.max(size, axis=axes, keepdims=True) if ord > 0 else \
                np.min(size, axis=axes, keepdims=True)
            return gk * np.sign(x) * ties(size == best, axes)
        return gk * np.sign(x) * safe_divide(np.abs(x), zk) ** (ord - 1.0)
    # A matrix norm over axes (rows, columns): work on stacks with those axes last.
    rows, cols = axes
    xm = np.moveaxis(x, (rows, cols), (-2, -1))
    if isinstance(ord, str) and ord == "nuc" or ord in (2, -2):
        u, _, vt = np.linalg.svd(xm, full_matrices=False)
        if ord == 2:
            dm = u[..., :, :1] @ vt[..., :1, :]
        elif ord == -2:
            dm = u[..., :, -1:] @ vt[..., -1:, :]
        else:
            dm = u @ vt
    elif ord in (1, -1, np.inf, -np.inf):
        along = -2 if ord in (1, -1) else -1        # 1: sum each column; inf: each row
        sums = np.sum(np.abs(xm), axis=along, keepdims=True)
        best = np.max(sums, axis=(-2, -1), keepdims=True) if ord > 0 else \
            np.min(sums, axis=(-2, -1), keepdims=True)
        dm = np.sign(xm) * ties(sums == best, (-2, -1))
    else:
        raise ValueError(f"norm_grad: invalid norm order {ord!r} for matrices")
    return np.ascontiguousarray(gk * np.moveaxis(dm, (-2, -1), (rows, cols)))
