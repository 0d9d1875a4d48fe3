"""Runtime helpers for numpy.linalg.matrix_power and NumPy 2's vector_norm
(templates/linalg_more.py): the powers' gradients and tangents, and vector norms over any axes
as numpy.linalg.norm's vector norms of a flattened last axis.

Each is defined once (dispatch.py); matrix_power's compile for one matrix, the rest run as
Python (vector_norm's rule says numba=False).
"""
import numpy as np

from .arrays import f64
from .dispatch import by_type, jitable, is_array, python_only
from .reduction_tangents import norm_tangent as core_norm_tangent
from .reduction_tangents import norm_tangent2, norm_tangent_grad_x, norm_tangent_grad_z
from .norms import norm_grad as core_norm_grad

__all__ = ["matrix_power_grad", "matrix_power_tangent", "matrix_power_tangent_grad_a", "matrix_power_tangent2", "vector_norm_grad", "vector_norm_tangent", "vector_norm_tangent_grad_x", "vector_norm_tangent_grad_z", "vector_norm_tangent2"]


def _stacked(matrix):
    """Python: `matrix` (a function of single matrices, first argument a stack or one matrix)
    applied to each matrix of a stack of them, the other array arguments indexed alike."""
    def apply(*args):
        first = np.asarray(args[0])
        if first.ndim <= 2:
            return matrix(*args)
        out = None
        for index in np.ndindex(first.shape[:-2]):
            part = matrix(*(a[index] if isinstance(a, np.ndarray) and a.ndim >= first.ndim - 1
                            else a for a in args))
            if out is None:
                out = np.zeros(first.shape[:-2] + np.shape(part))
            out[index] = part
        return out
    return apply


# ---- matrix_power -------------------------------------------------------------------------------

@jitable
def _powers(a, n):
    """[a^0, a^1, ..., a^n] as one (n + 1, k, k) array."""
    k = a.shape[0]
    out = np.empty((n + 1, k, k))
    out[0] = np.eye(k)
    for i in range(1, n + 1):
        out[i] = np.dot(out[i - 1], a)
    return out


@jitable
def _power_grad(g, a, n):
    """Gradient w.r.t. a of a^n (n >= 0): sum over k of (a^T)^k g (a^T)^(n-1-k)."""
    out = np.zeros(a.shape)
    if n <= 0:
        return out
    p = _powers(np.ascontiguousarray(a.T), n - 1)
    for k in range(n):
        out += np.dot(np.dot(p[k], g), p[n - 1 - k])
    return out


@jitable
def _power_tangent(t, a, n):
    """Tangent of a^n (n >= 0) along t: sum over k of a^k t a^(n-1-k)."""
    out = np.zeros(a.shape)
    if n <= 0:
        return out
    p = _powers(a, n - 1)
    for k in range(n):
        out += np.dot(np.dot(p[k], t), p[n - 1 - k])
    return out


@by_type
def matrix_power_grad(g, a, n):
    """Gradient w.r.t. a of numpy.linalg.matrix_power(a, n); for n < 0 through b = a^-1
    (db = -b da b)."""
    if is_array(a, 2):
        def matrix(g, a, n):
            a, g = f64(a), f64(g)
            if n >= 0:
                return _power_grad(g, a, n)
            b = np.linalg.inv(a)
            bt = np.ascontiguousarray(b.T)
            return -np.dot(np.dot(bt, _power_grad(g, b, -n)), bt)
        return matrix
    return python_only(_stacked(matrix_power_grad))


@by_type
def matrix_power_tangent(t, a, n):
    """Tangent of numpy.linalg.matrix_power(a, n) along t."""
    if is_array(a, 2) and is_array(t, 2):
        def matrix(t, a, n):
            a, t = f64(a), f64(t)
            if n >= 0:
                return _power_tangent(t, a, n)
            b = np.linalg.inv(a)
            return _power_tangent(-np.dot(np.dot(b, t), b), b, -n)
        return matrix
    return python_only(_stacked(matrix_power_tangent))


def _nonnegative(n):
    if n < 0:
        raise NotImplementedError("second derivatives of numpy.linalg.matrix_power are "
                                  "implemented for n >= 0")


def matrix_power_tangent_grad_a(g, t, a, n):
    """Gradient w.r.t. a of matrix_power_tangent(t, a, n) (n >= 0): each term a^k t a^(n-1-k)
    differentiated in both powers."""
    _nonnegative(n)
    a, t, g = (np.asarray(v, dtype=np.float64) for v in (a, t, g))
    p = _powers(a, max(n - 1, 0))
    out = np.zeros(a.shape)
    for k in range(n):
        out += matrix_power_grad(g @ (t @ p[n - 1 - k]).T, a, k)
        out += matrix_power_grad((p[k] @ t).T @ g, a, n - 1 - k)
    return out


def matrix_power_tangent2(t, s, a, n):
    """Derivative of matrix_power_tangent(t, a, n) along s, a direction for a (n >= 0)."""
    _nonnegative(n)
    a, t, s = (np.asarray(v, dtype=np.float64) for v in (a, t, s))
    p = _powers(a, max(n - 1, 0))
    out = np.zeros(a.shape)
    for k in range(n):
        out += matrix_power_tangent(s, a, k) @ t @ p[n - 1 - k] + \
            p[k] @ t @ matrix_power_tangent(s, a, n - 1 - k)
    return out


# ---- the array-API norms ---------------------------------------------------

def _vector_layout(x, axis):
    """x with the axes vector_norm reduces flattened into a last one."""
    x = np.asarray(x, dtype=np.float64)
    axes = tuple(range(x.ndim)) if axis is None else \
        tuple(int(k) % x.ndim for k in np.atleast_1d(axis))
    rest = tuple(k for k in range(x.ndim) if k not in axes)
    moved = np.transpose(x, rest + axes)
    return moved.reshape(moved.shape[:len(rest)] + (-1,)), rest + axes, moved.shape


def _vector_back(v, order, moved_shape):
    return np.transpose(np.reshape(v, moved_shape), np.argsort(order))


def _norm_args(x, z, axis):
    xm, order, moved_shape = _vector_layout(x, axis)
    zm = np.reshape(z, xm.shape[:-1])
    return xm, zm, order, moved_shape, (None if xm.ndim == 1 else -1)


def _scalar_or(v, like):
    return float(np.reshape(v, ())) if np.ndim(like) == 0 else np.reshape(v, np.shape(like))


def vector_norm_grad(g, x, z, axis=None, keepdims=False, ord=2):
    """Gradient w.r.t. x of z = numpy.linalg.vector_norm(x, axis=axis, keepdims=keepdims,
    ord=ord): numpy.linalg.norm's vector gradient over the flattened axes."""
    xm, zm, order, moved_shape, ax = _norm_args(x, z, axis)
    out = core_norm_grad(np.reshape(g, zm.shape), xm, zm if ax else float(zm), ord, ax, False)
    return _vector_back(out, order, moved_shape)


def vector_norm_tangent(t, x, z, axis=None, keepdims=False, ord=2):
    """Tangent of numpy.linalg.vector_norm(x, ...) along t."""
    xm, zm, order, moved_shape, ax = _norm_args(x, z, axis)
    tm, _, _ = _vector_layout(np.broadcast_to(t, np.shape(x)), axis)
    return _scalar_or(core_norm_tangent(tm, xm, zm if ax else float(zm), ord, ax, False), z)


def vector_norm_tangent_grad_x(g, t, x, z, axis=None, keepdims=False, ord=2):
    """Gradient w.r.t. x of vector_norm_tangent(t, x, z, ...), z held fixed."""
    xm, zm, order, moved_shape, ax = _norm_args(x, z, axis)
    tm, _, _ = _vector_layout(np.broadcast_to(t, np.shape(x)), axis)
    out = norm_tangent_grad_x(np.reshape(g, zm.shape), tm, xm, zm if ax else float(zm), ord, ax,
                              False)
    return _vector_back(out, order, moved_shape)


def vector_norm_tangent_grad_z(g, t, x, z, axis=None, keepdims=False, ord=2):
    """Gradient w.r.t. z of vector_norm_tangent(t, x, z, ...), x held fixed."""
    xm, zm, order, moved_shape, ax = _norm_args(x, z, axis)
    tm, _, _ = _vector_layout(np.broadcast_to(t, np.shape(x)), axis)
    out = norm_tangent_grad_z(np.reshape(g, zm.shape), tm, xm, zm if ax else float(zm), ord, ax,
                              False)
    return _scalar_or(out, z)


def vector_norm_tangent2(t, tx, tz, x, z, axis=None, keepdims=False, ord=2):
    """Derivative of vector_norm_tangent(t, x, z, ...) along (tx, tz)."""
    xm, zm, order, moved_shape, ax = _norm_args(x, z, axis)
    tm, _, _ = _vector_layout(np.broadcast_to(t, np.shape(x)), axis)
    txm, _, _ = _vector_layout(np.broadcast_to(tx, np.shape(x)), axis)
    out = norm_tangent2(tm, txm, np.reshape(tz, zm.shape), xm, zm if ax else float(zm), ord, ax,
                        False)
    return _scalar_or(out, z)
