"""The helpers every kind of generated code calls: zeros, copies, kept values, broadcasting and
reductions undone, the gradients of np.dot and @.

Conventions: a "scalar" is a Python or NumPy scalar (a 0-d array is an array); every gradient
returned is float64, and a Python ``float`` where the differentiated value is a scalar.
"""
import math  # noqa: F401

import numpy as np

from . import linalg as _linalg  # dot/matmul gradients of N-D operands

_F64 = np.dtype(np.float64)


def _is_scalar(x):
    return not isinstance(x, np.ndarray) and np.ndim(x) == 0


def _shape(x):
    # np.shape costs more than the whole unbroadcast fast path; avoid it for arrays.
    return x.shape if isinstance(x, np.ndarray) else np.shape(x)


def _as_f64(x):
    return np.asarray(x, dtype=np.float64)


def _full(shape, value):
    return np.full(shape, float(value))


def _normalize_axes(axis, ndim):
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    out = []
    for ax in axes:
        ax = int(ax)
        if not -ndim <= ax < ndim:
            raise ValueError(f"axis {ax} is out of bounds for an array of dimension {ndim}")
        out.append(ax % ndim)
    return tuple(out)


def zeros_like(x):
    """Zero gradient for x: 0.0 for a scalar, float64 zeros of x's shape for an array, a tuple
    of those for a tuple (the tangents of a sequence argument none of whose elements varies)."""
    if isinstance(x, tuple):
        return tuple(zeros_like(e) for e in x)
    if _is_scalar(x):
        return 0.0
    return np.zeros(_shape(x))


def saved(x):
    """A value kept for the backward sweep: arrays are copied (they may change in place)."""
    return x.copy() if isinstance(x, np.ndarray) else x


def not_finite(x):
    """Whether x (a number or an array) holds a NaN or an infinity."""
    return not np.all(np.isfinite(x))


def checkpoint_every(trips, every=None):
    """The segment length of a checkpointed loop of `trips` iterations: `every` if given (at
    least 1), else ceil(sqrt(trips)), at least 1."""
    if every is not None:
        if every < 1:
            raise ValueError("s2sad.checkpointed(..., every=k) needs k >= 1")
        return int(every)
    root = math.isqrt(max(trips, 0))
    return max(1, root if root * root >= trips else root + 1)


def item(x):
    """`x.item()`: the value as a Python number. Like in tape-based tools, it leaves the
    gradient behind (s2sad reports it; index instead, `x[i]`, to keep the gradient)."""
    return x.item() if isinstance(x, np.ndarray) or isinstance(x, np.generic) else x


def copy(x):
    """A private copy of a gradient, about to be updated in place."""
    return np.array(x, dtype=np.float64) if isinstance(x, np.ndarray) else float(x)


def add_at(a, index, g):
    """a[index] += g, where an index repeated in an integer array adds every time."""
    np.add.at(a, index, g)


def unbroadcast(g, like):
    """Sum the gradient g of a broadcast result back to the shape of `like`."""
    if _is_scalar(like):
        return float(np.sum(g))
    shape = _shape(like)
    if _is_scalar(g):
        return _full(shape, g)
    if g.shape == shape:
        # Hot path: no copy for float64 gradients.
        return g if g.dtype is _F64 else g.astype(np.float64, copy=False)
    if g.ndim == 0:
        return _full(shape, g)
    extra = g.ndim - len(shape)
    if extra < 0 or any(n != 1 and n != m for n, m in zip(shape, g.shape[extra:])):
        raise ValueError(f"cannot unbroadcast shape {g.shape} to {shape}")
    axes = tuple(range(extra)) + tuple(
        extra + i for i, n in enumerate(shape) if n == 1 and g.shape[extra + i] != 1)
    # np.sum returns a NumPy scalar when everything is summed; keep like's 0-d shape.
    return np.asarray(np.sum(g, axis=axes, dtype=np.float64)).reshape(shape)


def broadcast_like(t, like):
    """The tangent t of an elementwise result, spread to the result's shape (the tangent of
    `x + c`, with only a scalar x varying, is dx everywhere in the array)."""
    if _is_scalar(like):
        return float(t)
    shape = _shape(like)
    if not _is_scalar(t) and t.shape == shape:
        return t if t.dtype is _F64 else t.astype(np.float64)
    return np.array(np.broadcast_to(t, shape), dtype=np.float64)


def reduce_sum(t, axis=None, keepdims=False):
    """np.sum(t, axis, keepdims=keepdims) in float64, a float when it is one number (the
    tangent of a sum, and of the reductions written as sums)."""
    if _is_scalar(t) and not keepdims:
        return float(t)
    out = np.sum(t, axis=axis, keepdims=keepdims, dtype=np.float64)
    return float(out) if np.ndim(out) == 0 and not keepdims else out


def total(items):
    """items[0] + items[1] + ... (a new value; the tangent of builtin sum(items))."""
    out = items[0] + 0.0
    for item in items[1:]:
        out = out + item
    return out


def _kept_shape(shape, axis):
    """The shape of np.sum(a, axis=axis, keepdims=True) for a of this shape."""
    if axis is None:
        return (1,) * len(shape)
    axes = _normalize_axes(axis, len(shape))
    return tuple(1 if k in axes else n for k, n in enumerate(shape))


def unreduce(g, a, axis):
    """Adjoint of np.sum(a, axis=axis), with or without keepdims: broadcast g back to a's
    shape."""
    if _is_scalar(a):
        return float(g)
    shape = _shape(a)
    out = np.empty(shape)
    # g has the reduced shape, or the keepdims one: both have the kept axes' elements in order.
    out[...] = np.reshape(g, _kept_shape(shape, axis))
    return out


def reduced_size(a, axis):
    """Number of elements np.sum(a, axis=axis) adds per output, as a float."""
    if _is_scalar(a):
        return 1.0
    shape = _shape(a)
    if axis is None:
        return float(np.prod(shape))
    size = 1
    for ax in _normalize_axes(axis, len(shape)):
        size *= shape[ax]
    return float(size)


def dot_grad_a(g, a, b):
    """Gradient w.r.t. a of z = np.dot(a, b), given g = dz."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        # np.dot with a scalar operand is an elementwise product.
        return unbroadcast(np.multiply(g, b), a)
    if a.ndim == 1 and b.ndim == 1:
        return _as_f64(np.multiply(g, b))
    if a.ndim == 2 and b.ndim == 1:
        return _as_f64(np.outer(g, b))
    if a.ndim == 1 and b.ndim == 2:
        return _as_f64(np.dot(b, g))
    if a.ndim == 2 and b.ndim == 2:
        return _as_f64(np.dot(g, b.T))
    # N-D: np.dot contracts a's last axis with b's second-to-last (its only one if 1-D).
    return _linalg.tensordot_grad_a(g, a, b, ([a.ndim - 1], [max(b.ndim - 2, 0)]))


def dot_grad_b(g, a, b):
    """Gradient w.r.t. b of z = np.dot(a, b), given g = dz."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(np.multiply(g, a), b)
    if a.ndim == 1 and b.ndim == 1:
        return _as_f64(np.multiply(g, a))
    if a.ndim == 2 and b.ndim == 1:
        return _as_f64(np.dot(a.T, g))
    if a.ndim == 1 and b.ndim == 2:
        return _as_f64(np.outer(a, g))
    if a.ndim == 2 and b.ndim == 2:
        return _as_f64(np.dot(a.T, g))
    return _linalg.tensordot_grad_b(g, a, b, ([a.ndim - 1], [max(b.ndim - 2, 0)]))


def matmul_grad_a(g, a, b):
    """Gradient w.r.t. a of z = a @ b, given g = dz (stacks of matrices broadcast)."""
    if np.ndim(a) > 2 or np.ndim(b) > 2:
        g = np.asarray(g, dtype=np.float64)
        if np.ndim(b) == 1:  # (..., n, k) @ (k,) -> (..., n)
            return unbroadcast(g[..., :, None] * b, a)
        if np.ndim(a) == 1:  # (k,) @ (..., k, m) -> (..., m)
            return unbroadcast(np.matmul(b, g[..., :, None])[..., 0], a)
        return unbroadcast(np.matmul(g, np.swapaxes(b, -1, -2)), a)
    return dot_grad_a(g, a, b)


def matmul_grad_b(g, a, b):
    """Gradient w.r.t. b of z = a @ b, given g = dz (stacks of matrices broadcast)."""
    if np.ndim(a) > 2 or np.ndim(b) > 2:
        g = np.asarray(g, dtype=np.float64)
        if np.ndim(b) == 1:
            return unbroadcast(np.matmul(g[..., None, :], a)[..., 0, :], b)
        if np.ndim(a) == 1:
            return unbroadcast(a[:, None] * g[..., None, :], b)
        return unbroadcast(np.matmul(np.swapaxes(a, -1, -2), g), b)
    return dot_grad_b(g, a, b)
