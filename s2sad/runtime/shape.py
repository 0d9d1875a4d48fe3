"""Runtime helpers for the derivative templates of shape and indexing functions
(templates/numpy_shape.py).

Re-exported by s2sad.rt (generated code calls them as rt.<name>); their Numba implementations are
in rt_numba_shape.py. Every helper returns float64 gradients, a Python float for a scalar
argument; a helper for a sequence argument returns a tuple, one gradient per element.
"""
import numpy as np

__all__ = ["reshape_like", "reshape_grad", "array_grad", "atleast_grads", "transpose_grad",
           "concatenate_grads", "stack_grads", "hstack_grads", "vstack_grads",
           "column_stack_grads", "dstack_grads", "split_grad", "append_grad_arr",
           "append_grad_values", "tile_grad", "repeat_grad", "flip_grad", "roll_grad",
           "diag_grad", "diagonal_grad", "take_grad", "take_along_axis_grad", "pad_grad",
           "pad_values_grad", "sort_grad", "delete_grad",
           "atleast_tangents", "delete", "repeat", "roll", "take", "sort_permute"]


def _is_scalar(x):
    return not isinstance(x, np.ndarray) and np.ndim(x) == 0


def _axis(axis, ndim):
    """axis as a non-negative int (NumPy's bounds check)."""
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for an array of dimension {ndim}")
    return axis % ndim


def reshape_like(g, like):
    """g (the adjoint of a reshaped/copied `like`) in like's shape: a float for a scalar."""
    if _is_scalar(like):
        return float(np.reshape(g, ()))
    return np.reshape(np.asarray(g, dtype=np.float64), np.shape(like))


def reshape_grad(g, a, order):
    """Adjoint of a in z = np.reshape(a, shape, order) (or np.ravel(a, order)): g in a's shape,
    read in the same order."""
    if order == "A":
        order = "F" if np.isfortran(a) else "C"
    if _is_scalar(a):
        return float(np.reshape(g, ()))
    return np.reshape(np.asarray(g, dtype=np.float64), np.shape(a), order=order)


def array_grad(g, obj):
    """Adjoint of obj in z = np.array(obj): obj's shape, or, for a (nested) sequence, a (nested)
    tuple with the gradient of each element."""
    if isinstance(obj, (tuple, list)):
        return tuple(array_grad(g[k], element) for k, element in enumerate(obj))
    return reshape_like(g, obj)


def atleast_grads(g, arys):
    """Adjoints of z = np.atleast_1d/2d/3d(*arys), one per argument (g is the tuple of the
    results' adjoints when there are several)."""
    if len(arys) == 1:
        return (reshape_like(g, arys[0]),)
    return tuple(reshape_like(part, a) for part, a in zip(g, arys))


def transpose_grad(g, a, axes):
    """Adjoint of a in z = np.transpose(a, axes): g transposed back."""
    if _is_scalar(a):
        return float(np.reshape(g, ()))
    g = np.asarray(g, dtype=np.float64)
    if axes is None:
        return np.transpose(g)
    return np.transpose(g, np.argsort([_axis(ax, g.ndim) for ax in axes]))


# ---- joining and splitting ----------------------------------------------------------------------

def _cut(g, arrays, axis, extents):
    """g cut along `axis` into consecutive pieces of the given extents, each in the shape of its
    array (the adjoints of the arrays joined into g)."""
    g = np.asarray(g, dtype=np.float64)
    out = []
    start = 0
    for a, n in zip(arrays, extents):
        piece = g[(slice(None),) * axis + (slice(start, start + n),)]
        out.append(reshape_like(piece, a))
        start += n
    return tuple(out)


def concatenate_grads(g, arrays, axis):
    """Adjoints of the arrays of z = np.concatenate(arrays, axis): g cut back into pieces."""
    if axis is None:
        return _cut(np.ravel(g), arrays, 0, [np.size(a) for a in arrays])
    axis = _axis(axis, np.ndim(g))
    return _cut(g, arrays, axis, [np.shape(a)[axis] for a in arrays])


def stack_grads(g, arrays, axis):
    """Adjoints of the arrays of z = np.stack(arrays, axis): the slices of g along axis."""
    axis = _axis(axis, np.ndim(g))
    return _cut(g, arrays, axis, [1] * len(arrays))


def hstack_grads(g, tup):
    """Adjoints of z = np.hstack(tup): along axis 0 for 0-d/1-d arrays, else axis 1."""
    if np.ndim(tup[0]) <= 1:
        return _cut(g, tup, 0, [np.size(a) for a in tup])
    return _cut(g, tup, 1, [np.shape(a)[1] for a in tup])


def vstack_grads(g, tup):
    """Adjoints of z = np.vstack(tup): rows of g (0-d and 1-d arrays are one row)."""
    return _cut(g, tup, 0, [np.shape(a)[0] if np.ndim(a) >= 2 else 1 for a in tup])


def column_stack_grads(g, tup):
    """Adjoints of z = np.column_stack(tup): columns of g (0-d and 1-d arrays are one column)."""
    return _cut(g, tup, 1, [np.shape(a)[1] if np.ndim(a) >= 2 else 1 for a in tup])


def dstack_grads(g, tup):
    """Adjoints of z = np.dstack(tup): slices of g along axis 2."""
    return _cut(g, tup, 2, [np.shape(a)[2] if np.ndim(a) >= 3 else 1 for a in tup])


def split_grad(g, ary, axis):
    """Adjoint of ary in z = np.split(ary, ..., axis) (or array_split): g, a tuple of the
    pieces' adjoints, joined back."""
    return np.concatenate([np.asarray(part, dtype=np.float64) for part in g], axis=axis)


def append_grad_arr(g, arr, values, axis):
    """Adjoint of arr in z = np.append(arr, values, axis): the first part of g."""
    if axis is None:
        return reshape_like(np.ravel(g)[:np.size(arr)], arr)
    return concatenate_grads(g, (arr, values), axis)[0]


def append_grad_values(g, arr, values, axis):
    """Adjoint of values in z = np.append(arr, values, axis): the last part of g."""
    if axis is None:
        return reshape_like(np.ravel(g)[np.size(arr):], values)
    return concatenate_grads(g, (arr, values), axis)[1]


def delete_grad(g, arr, obj, axis):
    """Adjoint of arr in z = np.delete(arr, obj, axis): g where the kept elements were, zeros
    where the deleted ones were."""
    shape = np.shape(arr)
    if axis is None:
        keep = np.ones(int(np.prod(shape)), dtype=bool)
        keep[obj] = False
        out = np.zeros(keep.size)
        out[keep] = np.ravel(g)
        return reshape_like(out, arr)
    axis = _axis(axis, len(shape))
    keep = np.ones(shape[axis], dtype=bool)
    keep[obj] = False
    out = np.zeros(shape)
    out[(slice(None),) * axis + (keep,)] = g
    return out


# ---- repeating, reordering ----------------------------------------------------------------------

def tile_grad(g, A, reps):
    """Adjoint of A in z = np.tile(A, reps): the sum of g over the tiles."""
    shape = np.shape(A)
    reps = (int(reps),) if np.ndim(reps) == 0 else tuple(int(r) for r in reps)
    n = max(len(shape), len(reps))
    shape = (1,) * (n - len(shape)) + shape
    reps = (1,) * (n - len(reps)) + reps
    interleaved = [v for pair in zip(reps, shape) for v in pair]
    total = np.reshape(np.asarray(g, dtype=np.float64), interleaved).sum(
        axis=tuple(range(0, 2 * n, 2)))
    return reshape_like(total, A)


def repeat_grad(g, a, repeats, axis):
    """Adjoint of a in z = np.repeat(a, repeats, axis): the sum of g over each element's
    copies."""
    g = np.asarray(g, dtype=np.float64)
    if axis is None:
        flat, axis = np.ravel(a), 0
        g = np.ravel(g)
    else:
        flat = a
        axis = _axis(axis, np.ndim(a))
    shape = np.shape(flat)
    n = shape[axis]
    if np.ndim(repeats) == 0 or np.size(repeats) == 1:  # every element repeated r times
        r = int(np.reshape(repeats, ()))
        pre, post = int(np.prod(shape[:axis])), int(np.prod(shape[axis + 1:]))
        total = g.reshape(pre, n, r, post).sum(axis=2).reshape(shape)
    else:  # element i repeated repeats[i] times
        owner = np.repeat(np.arange(n), repeats)
        total = np.zeros(shape)
        np.add.at(total, (slice(None),) * axis + (owner,), g)
    return reshape_like(total, a)


def flip_grad(g, axis):
    """Adjoint of m in z = np.flip(m, axis): g flipped back."""
    return np.flip(np.asarray(g, dtype=np.float64), axis)


def roll_grad(g, shift, axis):
    """Adjoint of a in z = np.roll(a, shift, axis): g rolled back."""
    back = -shift if np.ndim(shift) == 0 else tuple(-s for s in shift)
    return np.roll(np.asarray(g, dtype=np.float64), back, axis)


# ---- diagonals ----------------------------------------------------------------------------------

def diag_grad(g, v, k):
    """Adjoint of v in z = np.diag(v, k): the k-th diagonal of g (v 1-d), or g placed on the
    k-th diagonal of zeros (v 2-d)."""
    g = np.asarray(g, dtype=np.float64)
    if np.ndim(v) == 1:
        return np.diagonal(g, k).copy()
    out = np.zeros(np.shape(v))
    i = np.arange(g.shape[0])
    out[i + max(-k, 0), i + max(k, 0)] = g
    return out


def diagonal_grad(g, a, offset, axis1, axis2):
    """Adjoint of a in z = np.diagonal(a, offset, axis1, axis2): g placed on that diagonal of
    zeros."""
    shape = np.shape(a)
    out = np.zeros(shape)
    axis1, axis2 = _axis(axis1, len(shape)), _axis(axis2, len(shape))
    moved = np.moveaxis(out, (axis1, axis2), (-2, -1))  # a view: writes land in out
    i = np.arange(np.shape(g)[-1])
    moved[..., i + max(-offset, 0), i + max(offset, 0)] = g
    return out


# ---- indexing -----------------------------------------------------------------------------------

def take_grad(g, a, indices, axis, mode):
    """Adjoint of a in z = np.take(a, indices, axis, mode=mode): g scattered back; an index
    taken several times adds."""
    shape = np.shape(a)
    out = np.zeros(shape)
    target = out.reshape(-1) if axis is None else out  # a view: writes land in out
    axis = 0 if axis is None else _axis(axis, len(shape))
    n = target.shape[axis]
    indices = np.asarray(indices)
    if mode == "wrap":
        indices = indices % n
    elif mode == "clip":
        indices = np.clip(indices, 0, n - 1)
    np.add.at(target, (slice(None),) * axis + (indices,), g)
    return reshape_like(out, a)


def take_along_axis_grad(g, arr, indices, axis):
    """Adjoint of arr in z = np.take_along_axis(arr, indices, axis): g scattered back; an index
    taken several times adds."""
    shape = np.shape(arr)
    if axis is None:
        out = np.zeros(int(np.prod(shape)))
        np.add.at(out, indices, g)
        return reshape_like(out, arr)
    axis = _axis(axis, len(shape))
    index = []
    for dim, n in enumerate(shape):
        if dim == axis:
            index.append(np.asarray(indices))
        else:  # the position along every other axis, broadcast against indices
            index.append(np.arange(n).reshape((1,) * dim + (n,) + (1,) * (len(shape) - dim - 1)))
    out = np.zeros(shape)
    np.add.at(out, tuple(index), g)
    return out


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


def sort_grad(g, a, axis):
    """Adjoint of a in z = np.sort(a, axis): g sent back to where each sorted element came
    from."""
    order = np.argsort(a, axis=axis, kind="stable")
    if axis is None:
        out = np.zeros(np.size(a))
        out[order] = np.ravel(g)
        return reshape_like(out, a)
    out = np.zeros(np.shape(a))
    np.put_along_axis(out, order, g, axis)
    return out


# ---- tangents (forward mode) --------------------------------------------------------------------
# Spellings of NumPy functions that Numba compiles with every argument given (the tangent
# templates pass defaults explicitly); each has its own rules in templates/runtime.py.

def atleast_tangents(tangents, z):
    """The tangents of z = np.atleast_1d/2d/3d(*arys), each reshaped like its result (z is the
    one result, or the tuple of them)."""
    if len(tangents) == 1:
        return reshape_like(tangents[0], z)
    return tuple(reshape_like(t, r) for t, r in zip(tangents, z))


def delete(arr, obj, axis=None):
    """np.delete(arr, obj, axis) in float64."""
    return np.asarray(np.delete(arr, obj, axis), dtype=np.float64)


def repeat(a, repeats, axis=None):
    """np.repeat(a, repeats, axis) in float64."""
    return np.asarray(np.repeat(a, repeats, axis), dtype=np.float64)


def roll(a, shift, axis=None):
    """np.roll(a, shift, axis) in float64."""
    return np.asarray(np.roll(a, shift, axis), dtype=np.float64)


def take(a, indices, axis=None, mode="raise"):
    """np.take(a, indices, axis, mode=mode) in float64 (a float for one element)."""
    out = np.take(a, indices, axis, mode=mode)
    return float(out) if np.ndim(out) == 0 else np.asarray(out, dtype=np.float64)


def sort_permute(t, a, axis=-1):
    """t reordered the way np.sort(a, axis) reorders a (stably): the tangent of the sort.
    Locally constant in a."""
    order = np.argsort(a, axis=axis, kind="stable")
    if axis is None:
        return np.asarray(np.ravel(t), dtype=np.float64)[order]
    return np.asarray(np.take_along_axis(np.asarray(t, dtype=np.float64), order, axis))
