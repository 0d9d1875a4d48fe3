"""Building blocks of the runtime helpers: plain array code that runs as Python and compiles
with Numba (see dispatch.py).

Shapes are walked with an "odometer" multi-index, so one implementation serves every ndim and
memory layout; Numba compiles it to a tight loop. Where that loop only stands in for a NumPy
call Numba lacks (np.sum over several axes), Python runs the NumPy call (`compiled_as`).
"""
import numpy as np

from .dispatch import (by_type, compiled_as, is_array, is_axis, is_float64, is_int, is_scalar,
                       is_tuple, jitable)


@jitable
def advance(idx, shape, strides, j):
    """Step the C-order multi-index idx over shape; return the moved flat offset j."""
    k = len(idx) - 1
    while k >= 0:
        idx[k] += 1
        j += strides[k]
        if idx[k] < shape[k]:
            return j
        j -= strides[k] * shape[k]
        idx[k] = 0
        k -= 1
    return j


@jitable
def filled(shape, value):
    """New float64 array of shape filled with value."""
    out = np.empty(shape)
    # ndarray.fill does not accept 0-d arrays in Numba; fill a flat view instead.
    out.reshape(out.size).fill(value)
    return out


def _flat_copy_loop(x):
    out = np.empty(x.size)
    i = 0
    for v in x.flat:
        out[i] = v
        i += 1
    return out


@compiled_as(_flat_copy_loop)
def flat_copy(x):
    """C-order float64 1-D copy of an array of any layout (0-d included)."""
    return np.ravel(x).astype(np.float64)


def _reduce_to_loop(g, shape):
    out = np.zeros(shape)
    nd = g.ndim
    extra = nd - len(shape)
    # Offset step in out per g axis: 0 for leading and broadcast (summed) axes.
    ostrides = np.zeros(nd, np.intp)
    s = 1
    for k in range(nd - 1, extra - 1, -1):
        n = shape[k - extra]
        if n == g.shape[k]:
            ostrides[k] = s
        elif n != 1:
            raise ValueError("unbroadcast: gradient shape is not a broadcast of the target shape")
        s *= n
    flat = out.reshape(out.size)
    idx = np.zeros(nd, np.intp)
    j = 0
    for v in g.flat:
        flat[j] += v
        j = advance(idx, g.shape, ostrides, j)
    return out


@compiled_as(_reduce_to_loop)
def reduce_to(g, shape):
    """Sum g (ndim >= len(shape) >= 1) down to shape, NumPy broadcasting rules: a new float64
    array."""
    extra = g.ndim - len(shape)
    if extra < 0 or any(n != 1 and n != m for n, m in zip(shape, g.shape[extra:])):
        raise ValueError("unbroadcast: gradient shape is not a broadcast of the target shape")
    axes = tuple(range(extra)) + tuple(
        extra + k for k, n in enumerate(shape) if n == 1 and g.shape[extra + k] != 1)
    return np.asarray(np.sum(g, axis=axes, dtype=np.float64)).reshape(shape)


def _expand_to_loop(src, keep, shape):
    out = np.empty(shape)
    nd = len(shape)
    sstrides = np.zeros(nd, np.intp)
    s = 1
    for k in range(nd - 1, -1, -1):
        if keep[k]:
            sstrides[k] = s
            s *= shape[k]
    if s != src.size:
        raise ValueError("unreduce: gradient shape does not match the reduced shape")
    flat = out.reshape(out.size)
    idx = np.zeros(nd, np.intp)
    j = 0
    for i in range(flat.size):
        flat[i] = src[j]
        j = advance(idx, shape, sstrides, j)
    return out


@compiled_as(_expand_to_loop)
def expand_to(src, keep, shape):
    """Broadcast flat C-order src, laid out over the axes where keep is True, to shape: a new
    float64 array."""
    kept = tuple(n if k else 1 for n, k in zip(shape, keep))
    if src.size != int(np.prod(kept)):
        raise ValueError("unreduce: gradient shape does not match the reduced shape")
    return np.broadcast_to(np.reshape(src, kept), shape).astype(np.float64)


@jitable
def norm_axis(axis, ndim):
    if axis < -ndim or axis >= ndim:
        raise ValueError("axis is out of bounds")
    return axis + ndim if axis < 0 else axis


@by_type
def reduced_mask(axis, ndim):
    """Boolean array, True on the axes reduced by np.sum(..., axis=axis)."""
    if is_int(axis):
        def impl(axis, ndim):
            mask = np.zeros(ndim, np.bool_)
            mask[norm_axis(axis, ndim)] = True
            return mask
        return impl
    if is_tuple(axis) and len(axis) == 0:
        return lambda axis, ndim: np.zeros(ndim, np.bool_)
    if is_axis(axis) and is_tuple(axis):
        def impl(axis, ndim):
            mask = np.zeros(ndim, np.bool_)
            for ax in axis:
                mask[norm_axis(ax, ndim)] = True
            return mask
        return impl
    return None


@by_type
def f64(x):
    """x as float64, contiguous (C or F) when an array."""
    if is_scalar(x):
        return lambda x: float(x)
    if is_array(x):
        if is_float64(x.dtype) and x.layout in "CF":
            return lambda x: x
        if is_float64(x.dtype):
            return lambda x: np.ascontiguousarray(x)
        return lambda x: x.astype(np.float64)
    return None
