"""Runtime helpers for the derivatives of reshaping, joining, splitting and repeating functions
(templates/numpy_shape.py; `repeat`, `roll` and `atleast_tangents`, spellings the tangent
templates call, have rules of their own in templates/runtime.py). Indexing, diagonals, sorting
and padding are in indexing.py.

Each helper is defined once (dispatch.py). Its type dispatch gives the forms Numba's primals
compile in (no `axis` for np.repeat, np.flip and np.roll; order 'C' for np.reshape) the
implementation Numba compiles and Python runs for them too; the other forms are `python_only`:
Numba declines them, so the gradient falls back to Python, as the rules declare. tile_grad has no
compiled form (Numba has no np.tile): it is plain Python.

Conventions: every helper returns float64 gradients, a Python float for a scalar argument; a
helper for a sequence argument (`concatenate_grads(g, arrays, axis)`) returns a tuple, one
gradient per element. Such a tuple's elements may differ in type (a matrix and a vector, an
array and a float): its implementation is generated for the tuple's length with constant indices
(`arrays[0]`, `arrays[1]`, ...), which Numba types one by one.
"""
import numpy as np

from .arrays import filled, norm_axis
from .dispatch import (by_type, compiled_as, generate, is_array, is_axis, is_constant,
                       is_float64, is_int, is_none, is_scalar, is_tuple, jitable,
                       python_only)
from .shape_forms import repeat_along

__all__ = ["reshape_like", "reshape_grad", "array_grad", "atleast_grads", "atleast_tangents",
           "transpose_grad", "concatenate_grads", "stack_grads", "hstack_grads", "vstack_grads",
           "column_stack_grads", "dstack_grads", "split_grad", "append_grad_arr",
           "append_grad_values", "tile_grad", "repeat_grad", "flip_grad", "roll_grad", "repeat",
           "roll"]


# ---- building blocks (also used by indexing.py) -------------------------------------------------

def _is_scalar(x):
    return not isinstance(x, np.ndarray) and np.ndim(x) == 0


def axis_index(axis, ndim):
    """axis (negative allowed) as a non-negative int, with NumPy's bounds check (Python only)."""
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for an array of dimension {ndim}")
    return axis % ndim


@by_type
def c_array(x):
    """Array x as a C-contiguous float64 array, 0-d included (np.ascontiguousarray makes a 0-d
    array 1-d): x itself when it is one already."""
    if is_array(x, 0):
        return lambda x: x.astype(np.float64)
    if is_array(x) and is_float64(x.dtype):
        return lambda x: np.ascontiguousarray(x)
    if is_array(x):
        return lambda x: np.ascontiguousarray(x).astype(np.float64)
    return None


@jitable
def as3(x, axis):
    """C-contiguous x viewed as (pre, n, post) around axis: pre/post are the sizes of the axes
    before/after it (a view: writes land in x)."""
    pre = 1
    for k in range(axis):
        pre *= x.shape[k]
    post = 1
    for k in range(axis + 1, x.ndim):
        post *= x.shape[k]
    return x.reshape((pre, x.shape[axis], post))


@jitable
def _piece(g, axis, start, stop, shape):
    """The slice start:stop of float64 g along axis as an array of `shape` (the same elements in
    the same order): along the first axis a view, as `unbroadcast` returns g itself (gradients
    from helpers are shared: the generator copies one before writing into it); else one copy,
    where `reshape_like(_slab(...))` makes two."""
    c = np.ascontiguousarray(g)
    if axis == 0:
        return c[start:stop].reshape(shape)
    view = as3(c, axis)
    out = np.empty(shape)
    out.reshape((view.shape[0], stop - start, view.shape[2]))[...] = view[:, start:stop, :]
    return out


@jitable
def _slab(g, axis, start, stop):
    """The slice start:stop of g along axis, as a C-contiguous (pre, stop - start, post) array."""
    return np.ascontiguousarray(as3(np.ascontiguousarray(g), axis)[:, start:stop, :])


# ---- reshaping and conversions ------------------------------------------------------------------

@by_type
def reshape_like(g, like):
    """g (the adjoint of a reshaped or copied `like`, as many elements) in like's shape: a float
    for a scalar, else a new float64 array."""
    if is_scalar(like):
        if is_scalar(g):
            return lambda g, like: float(g)
        if is_array(g):
            return lambda g, like: float(np.sum(g))   # its only element
    elif is_array(like):
        if is_scalar(g):
            return lambda g, like: filled(like.shape, g)
        if is_array(g, 0):
            return lambda g, like: filled(like.shape, np.sum(g))
        if is_array(g):
            # a copy: the result may be updated in place, and a C-contiguous array has one type
            return lambda g, like: np.ascontiguousarray(g).astype(np.float64).reshape(like.shape)
    return python_only(_reshape_like)


def _reshape_like(g, like):
    if _is_scalar(like):
        return float(np.reshape(g, ()))
    return np.reshape(np.asarray(g, dtype=np.float64), np.shape(like))


@by_type(prefer_literal=True)
def reshape_grad(g, a, order):
    """Adjoint of a in z = np.reshape(a, shape, order) (or np.ravel(a, order)): g in a's shape,
    read in the same order. Numba: order 'C', written as a constant (a typing failure, not a
    run-time one, otherwise)."""
    if is_constant(order, "C"):
        return lambda g, a, order: reshape_like(g, a)
    return python_only(_reshape_grad)


def _reshape_grad(g, a, order):
    if order == "A":
        order = "F" if np.isfortran(a) else "C"
    if _is_scalar(a):
        return float(np.reshape(g, ()))
    return np.reshape(np.asarray(g, dtype=np.float64), np.shape(a), order=order)


@by_type
def array_grad(g, obj):
    """Adjoint of obj in z = np.array(obj): obj's shape, or, for a (nested) sequence, a (nested)
    tuple with the gradient of each element."""
    if is_tuple(obj):
        parts = "".join(f"array_grad(g[{k}], obj[{k}]), " for k in range(len(obj)))
        return generate("array_grad_tuple", ["g", "obj"], [f"return ({parts})"],
                        {"array_grad": array_grad})
    if is_array(obj) or is_scalar(obj):
        return lambda g, obj: reshape_like(g, obj)
    return python_only(_array_grad)   # a list


def _array_grad(g, obj):
    if isinstance(obj, (tuple, list)):
        return tuple(array_grad(g[k], element) for k, element in enumerate(obj))
    return reshape_like(g, obj)


@by_type
def atleast_grads(g, arys):
    """Adjoints of z = np.atleast_1d/2d/3d(*arys), one per argument (g is the tuple of the
    results' adjoints when there are several)."""
    if is_tuple(arys) and len(arys) == 1:
        return lambda g, arys: (reshape_like(g, arys[0]),)
    if is_tuple(arys):
        parts = "".join(f"reshape_like(g[{k}], arys[{k}]), " for k in range(len(arys)))
        return generate("atleast_grads_tuple", ["g", "arys"], [f"return ({parts})"],
                        {"reshape_like": reshape_like})
    return python_only(_atleast_grads)


def _atleast_grads(g, arys):
    if len(arys) == 1:
        return (reshape_like(g, arys[0]),)
    return tuple(reshape_like(part, a) for part, a in zip(g, arys))


@by_type
def atleast_tangents(tangents, z):
    """The tangents of z = np.atleast_1d/2d/3d(*arys), each reshaped like its result (z is the
    one result, or the tuple of them)."""
    if is_tuple(tangents) and len(tangents) == 1:
        return lambda tangents, z: reshape_like(tangents[0], z)
    if is_tuple(tangents) and is_tuple(z):
        parts = "".join(f"reshape_like(tangents[{k}], z[{k}]), " for k in range(len(tangents)))
        return generate("atleast_tangents_tuple", ["tangents", "z"], [f"return ({parts})"],
                        {"reshape_like": reshape_like})
    return python_only(_atleast_tangents)


def _atleast_tangents(tangents, z):
    if len(tangents) == 1:
        return reshape_like(tangents[0], z)
    return tuple(reshape_like(t, r) for t, r in zip(tangents, z))


@jitable
def _position(axes, i, ndim):
    """Where axis i went in a permutation `axes` (negative entries allowed)."""
    for j in range(len(axes)):
        if norm_axis(axes[j], ndim) == i:
            return j
    raise ValueError("axes is not a permutation")


@by_type
def transpose_grad(g, a, axes):
    """Adjoint of a in z = np.transpose(a, axes): g transposed back."""
    if is_scalar(a):
        return lambda g, a, axes: reshape_like(g, a)
    if is_array(g, 0) and is_none(axes):
        return lambda g, a, axes: c_array(g)
    if is_array(g) and is_none(axes):
        return lambda g, a, axes: c_array(np.transpose(g))
    if is_array(g) and is_axis(axes) and is_tuple(axes) and len(axes) > 0:
        inverse = "".join(f"_position(axes, {i}, g.ndim), " for i in range(len(axes)))
        return generate("transpose_grad_axes", ["g", "a", "axes"],
                        [f"return c_array(np.transpose(g, ({inverse})))"],
                        {"_position": _position, "c_array": c_array})
    return python_only(_transpose_grad)


def _transpose_grad(g, a, axes):
    if _is_scalar(a):
        return float(np.reshape(g, ()))
    g = np.asarray(g, dtype=np.float64)
    if axes is None:
        return np.transpose(g)
    return np.transpose(g, np.argsort([axis_index(ax, g.ndim) for ax in axes]))


# ---- joining and splitting: pieces of g along one axis, written out for the tuple ---------------

def _joinable(g, sequence):
    """Whether g (an array) was joined from `sequence`, a tuple of arrays and numbers (types)."""
    return is_array(g) and is_tuple(sequence) and len(sequence) > 0 and \
        all(is_array(t) or is_scalar(t) for t in sequence)


def _cut(name, arguments, sequence, items, axis, extent, float64):
    """Implementation returning the tuple of pieces of g along `axis` (source text), the k-th
    piece `extent(k, t)` long (source text; t is the k-th element's type), each in its
    element's shape; `float64`: g's dtype is."""
    lines = [f"ax = {axis}", "s = 0"]
    for k, t in enumerate(items):
        piece = f"_piece(g, ax, s, s + e, {sequence}[{k}].shape)" if is_array(t) and \
            float64 else f"reshape_like(_slab(g, ax, s, s + e), {sequence}[{k}])"
        lines += [f"e = {extent(k, t)}", f"p{k} = {piece}", "s += e"]
    lines.append(f"return ({''.join(f'p{k}, ' for k in range(len(items)))})")
    return generate(name, arguments, lines, {"reshape_like": reshape_like, "_slab": _slab,
                                             "_piece": _piece, "norm_axis": norm_axis})


def _ndim(t):
    return t.ndim if is_array(t) else 0


def _cut_general(g, arrays, axis, extents):
    """g cut along `axis` into consecutive pieces of the given extents, each in the shape of its
    array (the adjoints of the arrays joined into g): the forms only Python runs."""
    g = np.asarray(g, dtype=np.float64)
    out = []
    start = 0
    for a, n in zip(arrays, extents):
        piece = g[(slice(None),) * axis + (slice(start, start + n),)]
        out.append(reshape_like(piece, a))
        start += n
    return tuple(out)


@by_type
def concatenate_grads(g, arrays, axis):
    """Adjoints of the arrays of z = np.concatenate(arrays, axis): g cut back into pieces."""
    if _joinable(g, arrays) and is_int(axis):
        return _cut("concatenate_grads_tuple", ["g", "arrays", "axis"], "arrays", arrays,
                    "norm_axis(axis, g.ndim)", lambda k, t: f"arrays[{k}].shape[ax]",
                    is_float64(g.dtype))
    return python_only(_concatenate_grads)


def _concatenate_grads(g, arrays, axis):
    if axis is None:
        return _cut_general(np.ravel(g), arrays, 0, [np.size(a) for a in arrays])
    axis = axis_index(axis, np.ndim(g))
    return _cut_general(g, arrays, axis, [np.shape(a)[axis] for a in arrays])


@by_type
def stack_grads(g, arrays, axis):
    """Adjoints of the arrays of z = np.stack(arrays, axis): the slices of g along axis."""
    if _joinable(g, arrays) and is_int(axis):
        return _cut("stack_grads_tuple", ["g", "arrays", "axis"], "arrays", arrays,
                    "norm_axis(axis, g.ndim)", lambda k, t: "1", is_float64(g.dtype))
    return python_only(_stack_grads)


def _stack_grads(g, arrays, axis):
    axis = axis_index(axis, np.ndim(g))
    return _cut_general(g, arrays, axis, [1] * len(arrays))


@by_type
def hstack_grads(g, tup):
    """Adjoints of z = np.hstack(tup): along axis 0 for 0-d/1-d arrays, else axis 1."""
    if _joinable(g, tup) and _ndim(tup[0]) <= 1:
        return _cut("hstack_grads_tuple", ["g", "tup"], "tup", tup, "0",
                    lambda k, t: f"tup[{k}].size" if is_array(t) else "1", is_float64(g.dtype))
    if _joinable(g, tup):
        return _cut("hstack_grads_tuple", ["g", "tup"], "tup", tup, "1",
                    lambda k, t: f"tup[{k}].shape[1]", is_float64(g.dtype))
    return python_only(_hstack_grads)


def _hstack_grads(g, tup):
    if np.ndim(tup[0]) <= 1:
        return _cut_general(g, tup, 0, [np.size(a) for a in tup])
    return _cut_general(g, tup, 1, [np.shape(a)[1] for a in tup])


def _stacked(name, g, tup, axis, ndim, general):
    """The dispatch of vstack/column_stack/dstack_grads: arrays of fewer than ndim dimensions
    are one slice thick along axis."""
    if _joinable(g, tup):
        return _cut(name, ["g", "tup"], "tup", tup, str(axis),
                    lambda k, t: f"tup[{k}].shape[{axis}]" if _ndim(t) >= ndim else "1",
                    is_float64(g.dtype))
    return python_only(general)


def _stacked_general(g, tup, axis, ndim):
    return _cut_general(g, tup, axis, [np.shape(a)[axis] if np.ndim(a) >= ndim else 1
                                       for a in tup])


@by_type
def vstack_grads(g, tup):
    """Adjoints of z = np.vstack(tup): rows of g (0-d and 1-d arrays are one row)."""
    return _stacked("vstack_grads_tuple", g, tup, 0, 2,
                    lambda g, tup: _stacked_general(g, tup, 0, 2))


@by_type
def column_stack_grads(g, tup):
    """Adjoints of z = np.column_stack(tup): columns of g (0-d and 1-d arrays are one column);
    of a matrix `tup` (a sequence of rows to NumPy), the matrix of them: g's transpose."""
    if is_array(tup, 2) and is_array(g, 2):
        return lambda g, tup: np.ascontiguousarray(g.T).astype(np.float64)
    if is_array(tup, 1) and is_array(g, 2):    # numbers: one row of g
        return lambda g, tup: g[0, :].astype(np.float64)
    return _stacked("column_stack_grads_tuple", g, tup, 1, 2,
                    lambda g, tup: _stacked_general(g, tup, 1, 2))


@by_type
def dstack_grads(g, tup):
    """Adjoints of z = np.dstack(tup): slices of g along axis 2."""
    return _stacked("dstack_grads_tuple", g, tup, 2, 3,
                    lambda g, tup: _stacked_general(g, tup, 2, 3))


@by_type
def split_grad(g, ary, axis):
    """Adjoint of ary in z = np.split(ary, ..., axis) (or array_split): g, a tuple of the
    pieces' adjoints, joined back."""
    if is_tuple(g) and all(is_array(t) for t in g):
        # the pieces' adjoints may differ in layout: join C-contiguous copies (one tuple type)
        parts = "".join(f"c_array(g[{k}]), " for k in range(len(g)))
        return generate("split_grad_tuple", ["g", "ary", "axis"],
                        [f"return np.concatenate(({parts}), axis=axis)"], {"c_array": c_array})
    return python_only(_split_grad)


def _split_grad(g, ary, axis):
    return np.concatenate([np.asarray(part, dtype=np.float64) for part in g], axis=axis)


def _append_part(g, arr, values, axis, first):
    """The dispatch of append_grad_arr (first) or append_grad_values: the part of g that came
    from arr (the first) or from values (the last)."""
    like = "arr" if first else "values"
    if is_array(g) and is_none(axis) and (is_array(arr) or is_scalar(arr)):
        size = "arr.size" if is_array(arr) else "1"
        part = f"np.ravel(g)[:{size}]" if first else f"np.ravel(g)[{size}:]"
        return generate(f"append_grad_{like}_flat", ["g", "arr", "values", "axis"],
                        [f"return reshape_like(np.ascontiguousarray({part}), {like})"],
                        {"reshape_like": reshape_like})
    if is_array(g) and is_int(axis) and is_array(arr) and is_array(values):
        if first:
            def impl(g, arr, values, axis):
                ax = norm_axis(axis, g.ndim)
                return reshape_like(_slab(g, ax, 0, arr.shape[ax]), arr)
        else:
            def impl(g, arr, values, axis):
                ax = norm_axis(axis, g.ndim)
                return reshape_like(_slab(g, ax, arr.shape[ax], g.shape[ax]), values)
        return impl
    return python_only(_append_grad_arr if first else _append_grad_values)


@by_type
def append_grad_arr(g, arr, values, axis):
    """Adjoint of arr in z = np.append(arr, values, axis): the first part of g."""
    return _append_part(g, arr, values, axis, first=True)


def _append_grad_arr(g, arr, values, axis):
    if axis is None:
        return reshape_like(np.ravel(g)[:np.size(arr)], arr)
    return _concatenate_grads(g, (arr, values), axis)[0]


@by_type
def append_grad_values(g, arr, values, axis):
    """Adjoint of values in z = np.append(arr, values, axis): the last part of g."""
    return _append_part(g, arr, values, axis, first=False)


def _append_grad_values(g, arr, values, axis):
    if axis is None:
        return reshape_like(np.ravel(g)[np.size(arr):], values)
    return _concatenate_grads(g, (arr, values), axis)[1]


# ---- repeating and reordering: Numba's primals have no axis -------------------------------------

def tile_grad(g, A, reps):
    """Adjoint of A in z = np.tile(A, reps): the sum of g over the tiles. Python only (Numba has
    no np.tile)."""
    shape = np.shape(A)
    reps = (int(reps),) if np.ndim(reps) == 0 else tuple(int(r) for r in reps)
    n = max(len(shape), len(reps))
    shape = (1,) * (n - len(shape)) + shape
    reps = (1,) * (n - len(reps)) + reps
    interleaved = [v for pair in zip(reps, shape) for v in pair]
    total = np.reshape(np.asarray(g, dtype=np.float64), interleaved).sum(
        axis=tuple(range(0, 2 * n, 2)))
    return reshape_like(total, A)


def _copies_summed_loop(g, size, repeats):
    copies = np.ascontiguousarray(g).reshape((size, repeats))
    out = np.zeros(size)
    for i in range(size):
        for j in range(repeats):
            out[i] += copies[i, j]
    return out


@compiled_as(_copies_summed_loop)
def copies_summed(g, size, repeats):
    """g (C order) as `size` runs of `repeats` consecutive copies: the sum of each run, a new
    float64 array."""
    return np.ravel(g).reshape((size, repeats)).sum(axis=1, dtype=np.float64)


@by_type
def repeat_grad(g, a, repeats, axis):
    """Adjoint of a in z = np.repeat(a, repeats, axis): the sum of g over each element's
    copies."""
    if is_array(g) and is_none(axis) and is_int(repeats):
        # element i of a (flattened) was copied repeats times
        if is_array(a):
            return lambda g, a, repeats, axis: reshape_like(copies_summed(g, a.size, repeats), a)
        if is_scalar(a):
            return lambda g, a, repeats, axis: reshape_like(copies_summed(g, 1, repeats), a)
    if is_array(g) and is_array(a, g.ndim) and a.ndim >= 1 and is_int(axis) and \
            is_int(repeats):
        return repeat_along(a.ndim, "grad")
    return python_only(_repeat_grad)


def _repeat_grad(g, a, repeats, axis):
    g = np.asarray(g, dtype=np.float64)
    if axis is None:
        flat, axis = np.ravel(a), 0
        g = np.ravel(g)
    else:
        flat = a
        axis = axis_index(axis, np.ndim(a))
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


@by_type
def flip_grad(g, axis):
    """Adjoint of m in z = np.flip(m, axis): g flipped back."""
    if is_array(g, 0) and is_none(axis):
        return lambda g, axis: c_array(g)
    if is_array(g) and is_none(axis):
        return lambda g, axis: c_array(np.flip(g))
    return python_only(_flip_grad)


def _flip_grad(g, axis):
    return np.flip(np.asarray(g, dtype=np.float64), axis)


@by_type
def roll_grad(g, shift, axis):
    """Adjoint of a in z = np.roll(a, shift, axis): g rolled back."""
    if is_array(g) and is_none(axis) and is_int(shift):
        return lambda g, shift, axis: c_array(np.roll(g, -shift))
    return python_only(_roll_grad)


def _roll_grad(g, shift, axis):
    back = -shift if np.ndim(shift) == 0 else tuple(-s for s in shift)
    return np.roll(np.asarray(g, dtype=np.float64), back, axis)


# ---- tangents: spellings of NumPy functions Numba compiles with every argument given ------------

@by_type
def repeat(a, repeats, axis=None):
    """np.repeat(a, repeats, axis) in float64."""
    if is_array(a) and is_none(axis):
        return lambda a, repeats, axis=None: np.repeat(a, repeats).astype(np.float64)
    if is_array(a) and a.ndim >= 1 and is_int(axis) and is_int(repeats):
        return repeat_along(a.ndim, "value")
    return python_only(_repeat)


def _repeat(a, repeats, axis=None):
    return np.asarray(np.repeat(a, repeats, axis), dtype=np.float64)


@by_type
def roll(a, shift, axis=None):
    """np.roll(a, shift, axis) in float64."""
    if is_array(a) and is_none(axis):
        return lambda a, shift, axis=None: np.roll(a, shift).astype(np.float64)
    return python_only(_roll)


def _roll(a, shift, axis=None):
    return np.asarray(np.roll(a, shift, axis), dtype=np.float64)
