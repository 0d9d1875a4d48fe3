"""Runtime helpers for the derivatives of indexing, diagonals, deleting, sorting and padding
(templates/numpy_shape.py; `take`, `delete` and `sort_permute`, spellings the tangent templates
call, have rules of their own in templates/runtime.py): gradients gathered back or scattered
back where the result's elements came from. Reshaping, joining and repeating are in shape.py.

Each helper is defined once (dispatch.py): its type dispatch gives the forms Numba's primals
compile in (np.take with mode 'raise', np.delete without `axis`, np.sort along the last axis or
an int axis) the implementation Numba compiles and Python runs for them too; the other forms are
`python_only`: Numba declines them, so the gradient falls back to Python, as the rules declare.
diagonal_grad, pad_grad and pad_values_grad have no compiled form (Numba has no np.diagonal or
np.pad): they are plain Python. The scatters are loops only because Numba lacks `np.add.at` and
`np.put_along_axis`; Python runs those instead (`compiled_as`).

Conventions as in shape.py: float64 gradients, a Python float for a scalar argument.
"""
import numpy as np

from .arrays import norm_axis
from . import core
from .dispatch import (by_type, compiled_as, is_array, is_constant, is_int, is_list, is_none,
                       is_tuple, jitable, numba_overload, python_only)
from .shape import as3, axis_index, reshape_like

__all__ = ["diag_grad", "diagonal_grad", "take_grad", "take", "take_along_axis_grad",
           "delete_grad", "delete", "sort_grad", "sort_permute", "pad_grad", "pad_values_grad"]


# ---- diagonals ----------------------------------------------------------------------------------

@by_type
def diag_grad(g, v, k):
    """Adjoint of v in z = np.diag(v, k): the k-th diagonal of g (v 1-d), or g placed on the
    k-th diagonal of zeros (v 2-d)."""
    if is_array(v, 1) and is_array(g, 2) and is_int(k):
        def read(g, v, k):         # v went onto the k-th diagonal: read it back
            out = np.empty(v.shape[0])
            for i in range(v.shape[0]):
                out[i] = g[i + max(-k, 0), i + max(k, 0)]
            return out
        return read
    if is_array(v, 2) and is_array(g, 1) and is_int(k):
        def put(g, v, k):          # z is v's k-th diagonal: put g there
            out = np.zeros(v.shape)
            for i in range(g.shape[0]):
                out[i + max(-k, 0), i + max(k, 0)] = g[i]
            return out
        return put
    return python_only(_diag_grad)


def _diag_grad(g, v, k):
    g = np.asarray(g, dtype=np.float64)
    if np.ndim(v) == 1:
        return np.diagonal(g, k).copy()
    out = np.zeros(np.shape(v))
    i = np.arange(g.shape[0])
    out[i + max(-k, 0), i + max(k, 0)] = g
    return out


def diagonal_grad(g, a, offset, axis1, axis2):
    """Adjoint of a in z = np.diagonal(a, offset, axis1, axis2): g placed on that diagonal of
    zeros. Python only (Numba has no np.diagonal)."""
    shape = np.shape(a)
    out = np.zeros(shape)
    axis1, axis2 = axis_index(axis1, len(shape)), axis_index(axis2, len(shape))
    moved = np.moveaxis(out, (axis1, axis2), (-2, -1))  # a view: writes land in out
    i = np.arange(np.shape(g)[-1])
    moved[..., i + max(-offset, 0), i + max(offset, 0)] = g
    return out


# ---- take ---------------------------------------------------------------------------------------

@jitable
def wrap(i, n, mode):
    """Index i into a length-n axis, as np.take's mode reads it."""
    if mode == "wrap":
        return i % n
    if mode == "clip":
        return min(max(i, 0), n - 1)
    return i + n if i < 0 else i


def _scatter_lines_loop(o3, index, g3, mode):
    n = o3.shape[1]
    for p in range(o3.shape[0]):
        for j in range(index.size):
            i = wrap(index[j], n, mode)
            for q in range(o3.shape[2]):
                o3[p, i, q] += g3[p, j, q]


@compiled_as(_scatter_lines_loop)
def scatter_lines(o3, index, g3, mode):
    """Add g3[:, j, :] into o3[:, index[j], :] for each j, in place (a repeated index adds);
    index (1-d) read as np.take's mode reads it."""
    n = o3.shape[1]
    if mode == "wrap":
        index = index % n
    elif mode == "clip":
        index = np.clip(index, 0, n - 1)
    np.add.at(o3, (slice(None), index), g3)


@by_type
def take_grad(g, a, indices, axis, mode):
    """Adjoint of a in z = np.take(a, indices, axis, mode=mode): g scattered back; an index
    taken several times adds."""
    integer = is_int(indices) or (is_array(indices) and is_int(indices.dtype))
    if is_array(a) and integer and is_none(axis) and is_int(indices):
        def one(g, a, indices, axis, mode):
            out = np.zeros(a.size)
            out[wrap(indices, a.size, mode)] += np.sum(g)   # g: one element
            return out.reshape(a.shape)
        return one
    if is_array(a) and integer and is_none(axis):
        def flat(g, a, indices, axis, mode):
            out = np.zeros(a.size)
            index = np.ravel(indices)
            scatter_lines(out.reshape((1, a.size, 1)), index,
                          np.ravel(g).reshape((1, index.size, 1)), mode)
            return out.reshape(a.shape)
        return flat
    if is_array(a) and integer and is_int(axis):
        def along(g, a, indices, axis, mode):
            out = np.zeros(a.shape)
            o3 = as3(out, norm_axis(axis, a.ndim))
            index = np.ravel(np.asarray(indices))
            # g is laid out as (pre, indices..., post): view it as (pre, number of indices, post)
            g3 = np.ascontiguousarray(g).reshape((o3.shape[0], index.size, o3.shape[2]))
            scatter_lines(o3, index, g3, mode)
            return out
        return along
    return python_only(_take_grad)


def _take_grad(g, a, indices, axis, mode):
    shape = np.shape(a)
    out = np.zeros(shape)
    target = out.reshape(-1) if axis is None else out  # a view: writes land in out
    axis = 0 if axis is None else axis_index(axis, len(shape))
    n = target.shape[axis]
    indices = np.asarray(indices)
    if mode == "wrap":
        indices = indices % n
    elif mode == "clip":
        indices = np.clip(indices, 0, n - 1)
    np.add.at(target, (slice(None),) * axis + (indices,), g)
    return reshape_like(out, a)


@by_type
def take(a, indices, axis=None, mode="raise"):
    """np.take(a, indices, axis, mode=mode) in float64 (a float for one element). Numba: mode
    'raise' only, as a constant: a literal, which Numba tries after the plain types fail, or
    the default. Python sees a mode given as a plain string and runs the general form (the same
    numbers), chosen once per kind of arguments rather than once per index value, as a
    literal-first dispatch would."""
    if is_array(a) and is_constant(mode, "raise") and is_int(indices) and is_none(axis):
        return lambda a, indices, axis=None, mode="raise": float(np.take(a, indices))
    if is_array(a) and is_constant(mode, "raise") and is_none(axis):
        return lambda a, indices, axis=None, mode="raise": np.take(a, indices).astype(np.float64)
    if is_array(a) and is_constant(mode, "raise") and is_int(axis) and is_array(indices):
        return lambda a, indices, axis=None, mode="raise": \
            np.take(a, indices, axis=axis).astype(np.float64)
    return python_only(_take)


def _take(a, indices, axis=None, mode="raise"):
    out = np.take(a, indices, axis, mode=mode)
    return float(out) if np.ndim(out) == 0 else np.asarray(out, dtype=np.float64)


# ---- take_along_axis ----------------------------------------------------------------------------

def _scatter_along_axis_loop(out, indices, g, axis):
    nd = out.ndim
    flat_out = out.reshape(out.size)
    flat_index = np.ascontiguousarray(indices).reshape(indices.size)
    # C strides (in elements) of out and indices; 0 where a size-1 axis is broadcast
    ostrides = np.zeros(nd, np.intp)
    istrides = np.zeros(nd, np.intp)
    so = 1
    si = 1
    for k in range(nd - 1, -1, -1):
        if out.shape[k] != 1 or k == axis:
            ostrides[k] = so
        if indices.shape[k] != 1:
            istrides[k] = si
        so *= out.shape[k]
        si *= indices.shape[k]
    idx = np.zeros(nd, np.intp)
    for v in np.ascontiguousarray(g).flat:
        i = 0
        for k in range(nd):
            i += idx[k] * istrides[k]
        target = flat_index[i]
        if target < 0:
            target += out.shape[axis]
        o = target * ostrides[axis]
        for k in range(nd):
            if k != axis:
                o += idx[k] * ostrides[k]
        flat_out[o] += v      # a repeated index adds
        k = nd - 1            # next C-order multi-index of g
        while k >= 0:
            idx[k] += 1
            if idx[k] < g.shape[k]:
                break
            idx[k] = 0
            k -= 1


@compiled_as(_scatter_along_axis_loop)
def scatter_along_axis(out, indices, g, axis):
    """Add g into C-contiguous out where np.take_along_axis(out, indices, axis) takes each
    element from, in place (a repeated index adds); axis in range, indices of out's ndim."""
    index = []
    for dim, n in enumerate(out.shape):
        if dim == axis:
            index.append(indices)
        else:  # the position along every other axis, broadcast against indices
            index.append(np.arange(n).reshape((1,) * dim + (n,) + (1,) * (out.ndim - dim - 1)))
    np.add.at(out, tuple(index), g)


@by_type
def take_along_axis_grad(g, arr, indices, axis):
    """Adjoint of arr in z = np.take_along_axis(arr, indices, axis): g scattered back; an index
    taken several times adds."""
    if is_array(g) and is_array(arr) and is_array(indices) and is_int(indices.dtype) and \
            is_int(axis) and arr.ndim == indices.ndim == g.ndim:
        def impl(g, arr, indices, axis):
            out = np.zeros(arr.shape)
            scatter_along_axis(out, indices, g, norm_axis(axis, arr.ndim))
            return out
        return impl
    return python_only(_take_along_axis_grad)


def _take_along_axis_grad(g, arr, indices, axis):
    shape = np.shape(arr)
    if axis is None:
        out = np.zeros(int(np.prod(shape)))
        np.add.at(out, indices, g)
        return reshape_like(out, arr)
    out = np.zeros(shape)
    scatter_along_axis(out, np.asarray(indices), g, axis_index(axis, len(shape)))
    return out


# ---- delete -------------------------------------------------------------------------------------

@jitable
def _kept_scatter(g, arr, deleted):
    """Adjoint of arr in np.delete(arr, deleted) (no axis): g where the kept elements were."""
    keep = np.ones(arr.size, np.bool_)
    keep[deleted] = False
    out = np.zeros(arr.size)
    out[keep] = np.ravel(g)
    return out.reshape(arr.shape)


@by_type
def delete_grad(g, arr, obj, axis):
    """Adjoint of arr in z = np.delete(arr, obj, axis): g where the kept elements were, zeros
    where the deleted ones were."""
    if is_array(arr) and is_array(g) and is_none(axis):   # Numba's np.delete has no axis
        if is_tuple(obj) or is_list(obj):
            return lambda g, arr, obj, axis: _kept_scatter(g, arr, np.array(obj))
        return lambda g, arr, obj, axis: _kept_scatter(g, arr, obj)
    return python_only(_delete_grad)


def _delete_grad(g, arr, obj, axis):
    shape = np.shape(arr)
    if axis is None:
        keep = np.ones(int(np.prod(shape)), dtype=bool)
        keep[obj] = False
        out = np.zeros(keep.size)
        out[keep] = np.ravel(g)
        return reshape_like(out, arr)
    axis = axis_index(axis, len(shape))
    keep = np.ones(shape[axis], dtype=bool)
    keep[obj] = False
    out = np.zeros(shape)
    out[(slice(None),) * axis + (keep,)] = g
    return out


@by_type
def delete(arr, obj, axis=None):
    """np.delete(arr, obj, axis) in float64."""
    if is_array(arr) and is_none(axis):
        return lambda arr, obj, axis=None: np.delete(arr, obj).astype(np.float64)
    return python_only(_delete)


def _delete(arr, obj, axis=None):
    return np.asarray(np.delete(arr, obj, axis), dtype=np.float64)


# ---- sorting ------------------------------------------------------------------------------------

def _sort_scatter_loop(g, a, axis):
    a3 = as3(np.ascontiguousarray(a), axis)
    g3 = as3(np.ascontiguousarray(g), axis)
    out = np.zeros(a.shape)
    o3 = as3(out, axis)
    for p in range(a3.shape[0]):
        for q in range(a3.shape[2]):
            order = np.argsort(np.ascontiguousarray(a3[p, :, q]), kind="mergesort")
            for j in range(order.size):
                o3[p, order[j], q] = g3[p, j, q]
    return out


@compiled_as(_sort_scatter_loop)
def sort_scatter(g, a, axis):
    """Adjoint of np.sort(a, axis) (axis in range, g of a's shape): g sent back to where a
    stable sort took each element from, a new float64 array."""
    out = np.zeros(np.shape(a))
    np.put_along_axis(out, np.argsort(a, axis=axis, kind="stable"), g, axis)
    return out


@by_type
def sort_grad(g, a, axis):
    """Adjoint of a in z = np.sort(a, axis): g sent back to where each sorted element came
    from."""
    if is_array(g) and is_array(a) and is_none(axis):
        return lambda g, a, axis: sort_scatter(g, np.ravel(a), 0).reshape(a.shape)
    if is_array(g) and is_array(a) and is_int(axis):
        return lambda g, a, axis: sort_scatter(g, a, norm_axis(axis, a.ndim))
    return python_only(_sort_grad)


def _sort_grad(g, a, axis):
    order = np.argsort(a, axis=axis, kind="stable")
    if axis is None:
        out = np.zeros(np.size(a))
        out[order] = np.ravel(g)
        return reshape_like(out, a)
    out = np.zeros(np.shape(a))
    np.put_along_axis(out, order, g, axis)
    return out


def _sorted_like_loop(t, a):
    n = a.shape[-1]
    rows = a.size // n
    keys = np.ascontiguousarray(a).reshape((rows, n))
    values = np.ascontiguousarray(t).astype(np.float64).reshape((rows, n))
    out = np.empty((rows, n))
    for r in range(rows):
        order = np.argsort(keys[r], kind="mergesort")
        for i in range(n):
            out[r, i] = values[r, order[i]]
    return out.reshape(t.shape)


@compiled_as(_sorted_like_loop)
def sorted_like(t, a):
    """t reordered the way a stable sort along the last axis reorders a (same shapes), a new
    float64 array."""
    order = np.argsort(a, axis=-1, kind="stable")
    return np.take_along_axis(np.asarray(t, dtype=np.float64), order, -1)


@by_type(prefer_literal=True)
def sort_permute(t, a, axis=-1):
    """t reordered the way np.sort(a, axis) reorders a (stably): the tangent of the sort.
    Locally constant in a. Numba sorts along the last axis only."""
    if is_array(a) and is_array(t) and is_constant(axis, -1, a.ndim - 1):
        return lambda t, a, axis=-1: sorted_like(t, a)
    return python_only(_sort_permute)


def _sort_permute(t, a, axis=-1):
    order = np.argsort(a, axis=axis, kind="stable")
    if axis is None:
        return np.asarray(np.ravel(t), dtype=np.float64)[order]
    return np.asarray(np.take_along_axis(np.asarray(t, dtype=np.float64), order, axis))


# ---- padding: Python only (Numba has no np.pad) -------------------------------------------------

def pad_grad(g, array, pad_width, mode):
    """Adjoint of array in z = np.pad(array, pad_width, mode): the unpadded middle of g.
    Only mode='constant' is supported."""
    if mode != "constant":
        raise NotImplementedError(f"the derivative of numpy.pad is implemented for "
                                  f"mode='constant' only, not mode={mode!r}")
    shape = np.shape(array)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.intp), (len(shape), 2))
    index = tuple(slice(int(before), int(before) + n) for (before, _), n in zip(widths, shape))
    return reshape_like(np.asarray(g, dtype=np.float64)[index], array)


def pad_values_grad(g, array, pad_width, constant_values):
    """Adjoint of a scalar constant_values in z = np.pad(array, pad_width, constant_values=...):
    the sum of g over the padding."""
    if np.ndim(constant_values) != 0:
        raise NotImplementedError("the derivative of numpy.pad with respect to constant_values "
                                  "is implemented for one scalar value only")
    return float(np.sum(g) - np.sum(pad_grad(g, array, pad_width, "constant")))


# ---- the adjoint of a gather `a[s, index]`: a slice, then an integer array ------------------

@numba_overload(core.add_at)
def _add_at_slice_then_array(a, index, g):
    """Compiled `rt.add_at(da, (s, index), g)` (core.add_at gives Numba none): the adjoint of
    `a[:, index]`, index an integer array of one dimension; a repeated index adds every time,
    as numpy.add.at, which Python runs. (core.add_at's own overload declines this form.)"""
    from numba.core import types
    if not (is_array(a) and a.ndim >= 2 and is_tuple(index) and len(index.types) == 2 and
            isinstance(index.types[0], types.SliceType) and is_array(index.types[1], 1) and
            is_int(index.types[1].dtype)):
        return None
    if is_array(g, a.ndim):
        def rows(a, index, g):
            cut, picked = index
            for k in range(picked.shape[0]):
                a[cut, picked[k]] += g[:, k]
        return rows
    if is_array(g) or is_tuple(g) or is_list(g):
        return None
    def value(a, index, g):
        cut, picked = index
        for k in range(picked.shape[0]):
            a[cut, picked[k]] += g
    return value
