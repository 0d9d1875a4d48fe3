"""Numba implementations of the helpers in rt_shape.py (imported by rt_numba.py).

Sequence helpers (`concatenate_grads(g, arrays, axis)`) receive tuples whose elements may differ
in type (a matrix and a vector, an array and a float); their implementations are generated per
tuple length with constant indices (`arrays[0]`, `arrays[1]`, ...), which Numba can type.
"""
import numpy as np
from numba import njit, types
from numba.extending import overload

from . import rt
from .numba_core import _filled, _is_array, _is_none, _is_scalar, _norm_axis


def _is_int_tuple(t):
    return isinstance(t, types.UniTuple) and isinstance(t.dtype, types.Integer)


def _is_sequence(t):
    return isinstance(t, types.BaseTuple)


def _generate(name, arguments, lines, namespace):
    """An implementation compiled from source lines (a body unrolled over a tuple's elements)."""
    source = f"def {name}({', '.join(arguments)}):\n" + "".join(f"    {ln}\n" for ln in lines)
    scope = dict(namespace, np=np)
    exec(compile(source, f"<s2sad.rt_numba_shape.{name}>", "exec"), scope)
    return scope[name]


# ---------------------------------------------------------------------------
# Building blocks (jitted).

@overload(rt.reshape_like)
def _ov_reshape_like(g, like):
    if _is_scalar(like):
        if _is_scalar(g):
            return lambda g, like: float(g)
        if _is_array(g):
            return lambda g, like: float(np.sum(g))  # its only element
        return None
    if not _is_array(like):
        return None
    if _is_scalar(g):
        return lambda g, like: _filled(like.shape, g)
    if _is_array(g):
        if g.ndim == 0:
            return lambda g, like: _filled(like.shape, np.sum(g))
        # a copy: the result may be updated in place, and a C-contiguous array has one type
        return lambda g, like: np.ascontiguousarray(g).astype(np.float64).reshape(like.shape)
    return None


_like = rt.reshape_like   # g, holding as many elements as like, in like's shape


@overload(rt.reshape_grad, prefer_literal=True)
def _ov_reshape_grad(g, a, order):
    # only order 'C', written as a constant (a typing failure, not a run-time one, otherwise)
    if not (isinstance(order, types.StringLiteral) and order.literal_value == "C"):
        return None
    return lambda g, a, order: _like(g, a)


@njit(cache=True)
def _as3(x, axis):
    """C-contiguous x viewed as (pre, n, post) around axis: pre/post are the sizes of the axes
    before/after it."""
    pre = 1
    for k in range(axis):
        pre *= x.shape[k]
    post = 1
    for k in range(axis + 1, x.ndim):
        post *= x.shape[k]
    return x.reshape((pre, x.shape[axis], post))


@njit(cache=True)
def _slab(g, axis, start, stop):
    """The slice start:stop of g along axis, as a C-contiguous (pre, stop - start, post) array."""
    return np.ascontiguousarray(_as3(np.ascontiguousarray(g), axis)[:, start:stop, :])


@njit(cache=True)
def _wrap(i, n, mode):
    """Index i into a length-n axis, as np.take's mode does it."""
    if mode == "wrap":
        return i % n
    if mode == "clip":
        return min(max(i, 0), n - 1)
    return i + n if i < 0 else i


# ---------------------------------------------------------------------------
# Joining and splitting: pieces of g along one axis, unrolled over the tuple.

def _cut(name, arguments, sequence, items, axis, extent):
    """Implementation returning the tuple of pieces of g along `axis` (source text), the k-th
    piece `extent(k, t)` long (source text; t is the k-th element's type), in its element's
    shape."""
    lines = [f"ax = {axis}", "s = 0"]
    for k, t in enumerate(items):
        lines += [f"e = {extent(k, t)}",
                  f"p{k} = _like(_slab(g, ax, s, s + e), {sequence}[{k}])",
                  "s += e"]
    lines.append(f"return ({''.join(f'p{k}, ' for k in range(len(items)))})")
    return _generate(name, arguments, lines, {"_like": _like, "_slab": _slab,
                                              "_norm_axis": _norm_axis})


def _ndim(t):
    return t.ndim if _is_array(t) else 0


def _joinable(g, sequence):
    return _is_array(g) and _is_sequence(sequence) and len(sequence) > 0 and \
        all(_is_array(t) or _is_scalar(t) for t in sequence)


@overload(rt.concatenate_grads)
def _ov_concatenate_grads(g, arrays, axis):
    if not _joinable(g, arrays) or not isinstance(axis, types.Integer):
        return None
    return _cut("concatenate_grads", ["g", "arrays", "axis"], "arrays", arrays,
                "_norm_axis(axis, g.ndim)", lambda k, t: f"arrays[{k}].shape[ax]")


@overload(rt.stack_grads)
def _ov_stack_grads(g, arrays, axis):
    if not _joinable(g, arrays) or not isinstance(axis, types.Integer):
        return None
    return _cut("stack_grads", ["g", "arrays", "axis"], "arrays", arrays,
                "_norm_axis(axis, g.ndim)", lambda k, t: "1")


@overload(rt.hstack_grads)
def _ov_hstack_grads(g, tup):
    if not _joinable(g, tup):
        return None
    if _ndim(tup[0]) <= 1:   # 0-d and 1-d arrays are joined along axis 0
        return _cut("hstack_grads", ["g", "tup"], "tup", tup, "0",
                    lambda k, t: f"tup[{k}].size" if _is_array(t) else "1")
    return _cut("hstack_grads", ["g", "tup"], "tup", tup, "1",
                lambda k, t: f"tup[{k}].shape[1]")


def _stacked(name, axis, ndim):
    """The overload of vstack/column_stack/dstack_grads: arrays of fewer than ndim dimensions
    are one slice thick along axis."""
    def ov(g, tup):
        if not _joinable(g, tup):
            return None
        return _cut(name, ["g", "tup"], "tup", tup, str(axis),
                    lambda k, t: f"tup[{k}].shape[{axis}]" if _ndim(t) >= ndim else "1")
    return ov


overload(rt.vstack_grads)(_stacked("vstack_grads", 0, 2))
overload(rt.column_stack_grads)(_stacked("column_stack_grads", 1, 2))
overload(rt.dstack_grads)(_stacked("dstack_grads", 2, 3))


@overload(rt.split_grad)
def _ov_split_grad(g, ary, axis):
    if not (_is_sequence(g) and all(_is_array(t) for t in g)):
        return None
    # the pieces' adjoints may differ in layout: join C-contiguous copies (one tuple type)
    parts = "".join(f"np.ascontiguousarray(g[{k}]), " for k in range(len(g)))
    return _generate("split_grad", ["g", "ary", "axis"],
                     [f"return np.concatenate(({parts}), axis=axis)"], {})


def _append_part(first):
    """The overload of append_grad_arr (first) or append_grad_values."""
    def ov(g, arr, values, axis):
        if not _is_array(g):
            return None
        like = arr if first else values
        if _is_none(axis):
            size = "arr.size" if _is_array(arr) else "1"
            part = f"np.ravel(g)[:{size}]" if first else f"np.ravel(g)[{size}:]"
            like_name = "arr" if first else "values"
            return _generate("append_part", ["g", "arr", "values", "axis"],
                             [f"return _like(np.ascontiguousarray({part}), {like_name})"],
                             {"_like": _like})
        if not (isinstance(axis, types.Integer) and _is_array(like)):
            return None
        if first:
            def impl(g, arr, values, axis):
                ax = _norm_axis(axis, g.ndim)
                return _like(_slab(g, ax, 0, arr.shape[ax]), arr)
        else:
            def impl(g, arr, values, axis):
                ax = _norm_axis(axis, g.ndim)
                return _like(_slab(g, ax, arr.shape[ax], g.shape[ax]), values)
        return impl
    return ov


overload(rt.append_grad_arr)(_append_part(True))
overload(rt.append_grad_values)(_append_part(False))


# ---------------------------------------------------------------------------
# Conversions and axis permutations.

@overload(rt.array_grad)
def _ov_array_grad(g, obj):
    if _is_sequence(obj):   # one gradient per element, nested sequences recursively
        parts = "".join(f"rt.array_grad(g[{k}], obj[{k}]), " for k in range(len(obj)))
        return _generate("array_grad", ["g", "obj"], [f"return ({parts})"], {"rt": rt})
    return lambda g, obj: _like(g, obj)


@overload(rt.atleast_grads)
def _ov_atleast_grads(g, arys):
    if not _is_sequence(arys):
        return None
    if len(arys) == 1:
        return lambda g, arys: (_like(g, arys[0]),)
    parts = "".join(f"_like(g[{k}], arys[{k}]), " for k in range(len(arys)))
    return _generate("atleast_grads", ["g", "arys"], [f"return ({parts})"], {"_like": _like})


@njit(cache=True)
def _position(axes, i, ndim):
    """Where axis i went in a permutation `axes` (negative entries allowed)."""
    for j in range(len(axes)):
        if _norm_axis(axes[j], ndim) == i:
            return j
    raise ValueError("axes is not a permutation")


@overload(rt.transpose_grad)
def _ov_transpose_grad(g, a, axes):
    if _is_scalar(a):
        return lambda g, a, axes: _like(g, a)
    if not _is_array(g):
        return None
    if _is_none(axes):
        return lambda g, a, axes: np.ascontiguousarray(np.transpose(g))
    if not _is_int_tuple(axes):
        return None
    inverse = "".join(f"_position(axes, {i}, g.ndim), " for i in range(len(axes)))
    return _generate("transpose_grad", ["g", "a", "axes"],
                     [f"return np.ascontiguousarray(np.transpose(g, ({inverse})))"],
                     {"_position": _position})


# ---------------------------------------------------------------------------
# Repeating and reordering: the forms Numba's primals support (no axis).

@overload(rt.repeat_grad)
def _ov_repeat_grad(g, a, repeats, axis):
    if not (_is_none(axis) and isinstance(repeats, types.Integer) and _is_array(g)):
        return None

    def impl(g, a, repeats, axis):
        size = g.size // repeats if repeats > 0 else 0
        copies = np.ascontiguousarray(g).reshape((size, repeats))
        out = np.zeros(size)
        for i in range(size):          # element i of a (flattened) was copied repeats times
            for j in range(repeats):
                out[i] += copies[i, j]
        return _like(out, a)
    return impl


@overload(rt.flip_grad)
def _ov_flip_grad(g, axis):
    if _is_array(g) and _is_none(axis):
        return lambda g, axis: np.ascontiguousarray(np.flip(g))
    return None


@overload(rt.roll_grad)
def _ov_roll_grad(g, shift, axis):
    if _is_array(g) and _is_none(axis) and isinstance(shift, types.Integer):
        return lambda g, shift, axis: np.roll(g, -shift)
    return None


@njit(cache=True)
def _sort_scatter(g, a, axis):
    """Adjoint of np.sort(a, axis): along each line of a (pre, n, post) layout, send g back to
    where argsort took each element from."""
    a3 = _as3(np.ascontiguousarray(a), axis)
    g3 = _as3(np.ascontiguousarray(g), axis)
    out = np.zeros(a.shape)
    o3 = _as3(out, axis)
    for p in range(a3.shape[0]):
        for q in range(a3.shape[2]):
            order = np.argsort(np.ascontiguousarray(a3[p, :, q]), kind="mergesort")
            for j in range(order.size):
                o3[p, order[j], q] = g3[p, j, q]
    return out


@overload(rt.sort_grad)
def _ov_sort_grad(g, a, axis):
    if not (_is_array(g) and _is_array(a)):
        return None
    if _is_none(axis):
        return lambda g, a, axis: _sort_scatter(g, np.ravel(a), 0).reshape(a.shape)
    if isinstance(axis, types.Integer):
        return lambda g, a, axis: _sort_scatter(g, a, _norm_axis(axis, a.ndim))
    return None


# ---------------------------------------------------------------------------
# Diagonals and indexing.

@overload(rt.diag_grad)
def _ov_diag_grad(g, v, k):
    if not (_is_array(g, 2) or _is_array(g, 1)) or not _is_array(v):
        return None
    if v.ndim == 1:
        def impl(g, v, k):         # v went onto the k-th diagonal: read it back
            out = np.empty(v.shape[0])
            for i in range(v.shape[0]):
                out[i] = g[i + max(-k, 0), i + max(k, 0)]
            return out
        return impl
    if v.ndim == 2:
        def impl(g, v, k):         # z is v's k-th diagonal: put g there
            out = np.zeros(v.shape)
            for i in range(g.shape[0]):
                out[i + max(-k, 0), i + max(k, 0)] = g[i]
            return out
        return impl
    return None


@overload(rt.take_grad)
def _ov_take_grad(g, a, indices, axis, mode):
    if not _is_array(a):
        return None
    scalar_index = isinstance(indices, types.Integer)
    if not (scalar_index or (_is_array(indices) and isinstance(indices.dtype, types.Integer))):
        return None
    if _is_none(axis):
        if scalar_index:
            def impl(g, a, indices, axis, mode):
                out = np.zeros(a.size)
                out[_wrap(indices, a.size, mode)] += np.sum(g)   # g: one element
                return out.reshape(a.shape)
            return impl

        def impl(g, a, indices, axis, mode):
            out = np.zeros(a.size)
            flat_index = np.ravel(indices)
            flat_g = np.ravel(g)
            for j in range(flat_index.size):   # a repeated index adds
                out[_wrap(flat_index[j], a.size, mode)] += flat_g[j]
            return out.reshape(a.shape)
        return impl
    if not isinstance(axis, types.Integer):
        return None

    def impl(g, a, indices, axis, mode):
        ax = _norm_axis(axis, a.ndim)
        out = np.zeros(a.shape)
        o3 = _as3(out, ax)
        flat_index = np.ravel(np.asarray(indices))
        n = a.shape[ax]
        # g is laid out as (pre, indices..., post): view it as (pre, number of indices, post)
        g3 = np.ascontiguousarray(g).reshape((o3.shape[0], flat_index.size, o3.shape[2]))
        for p in range(o3.shape[0]):
            for j in range(flat_index.size):
                i = _wrap(flat_index[j], n, mode)
                for q in range(o3.shape[2]):
                    o3[p, i, q] += g3[p, j, q]
        return out
    return impl


@overload(rt.take_along_axis_grad)
def _ov_take_along_axis_grad(g, arr, indices, axis):
    if not (_is_array(g) and _is_array(arr) and _is_array(indices)
            and isinstance(axis, types.Integer) and arr.ndim == indices.ndim == g.ndim):
        return None

    def impl(g, arr, indices, axis):
        nd = arr.ndim
        ax = _norm_axis(axis, nd)
        out = np.zeros(arr.shape)
        flat_out = out.reshape(out.size)
        flat_index = np.ascontiguousarray(indices).reshape(indices.size)
        # C strides (in elements) of out and indices; 0 where a size-1 axis is broadcast
        ostrides = np.zeros(nd, np.intp)
        istrides = np.zeros(nd, np.intp)
        so = 1
        si = 1
        for k in range(nd - 1, -1, -1):
            if arr.shape[k] != 1 or k == ax:
                ostrides[k] = so
            if indices.shape[k] != 1:
                istrides[k] = si
            so *= arr.shape[k]
            si *= indices.shape[k]
        idx = np.zeros(nd, np.intp)
        for v in np.ascontiguousarray(g).flat:
            i = 0
            for k in range(nd):
                i += idx[k] * istrides[k]
            target = flat_index[i]
            if target < 0:
                target += arr.shape[ax]
            o = target * ostrides[ax]
            for k in range(nd):
                if k != ax:
                    o += idx[k] * ostrides[k]
            flat_out[o] += v      # a repeated index adds
            k = nd - 1            # next C-order multi-index of g
            while k >= 0:
                idx[k] += 1
                if idx[k] < g.shape[k]:
                    break
                idx[k] = 0
                k -= 1
        return out
    return impl


@njit(cache=True)
def _delete_grad(g, arr, deleted):
    """Adjoint of arr in np.delete(arr, deleted) (no axis): g where the kept elements were."""
    keep = np.ones(arr.size, np.bool_)
    keep[deleted] = False
    out = np.zeros(arr.size)
    out[keep] = np.ravel(g)
    return out.reshape(arr.shape)


@overload(rt.delete_grad)
def _ov_delete_grad(g, arr, obj, axis):
    if not (_is_array(arr) and _is_array(g) and _is_none(axis)):
        return None  # Numba's np.delete has no axis
    if isinstance(obj, (types.List, types.BaseTuple)):
        return lambda g, arr, obj, axis: _delete_grad(g, arr, np.array(obj))
    return lambda g, arr, obj, axis: _delete_grad(g, arr, obj)


# ---- tangents (forward mode) ---------------------------------------------------------------------

@overload(rt.atleast_tangents)
def _ov_atleast_tangents(tangents, z):
    if not _is_sequence(tangents):
        return None
    if len(tangents) == 1:
        return lambda tangents, z: rt.reshape_like(tangents[0], z)
    if not _is_sequence(z):
        return None
    parts = [f"reshape_like(tangents[{k}], z[{k}])" for k in range(len(tangents))]
    return _generate("atleast_tangents", ["tangents", "z"], [f"return ({', '.join(parts)},)"],
                     {"reshape_like": rt.reshape_like})


@overload(rt.delete)
def _ov_delete(arr, obj, axis=None):
    if not (_is_array(arr) and _is_none(axis)):
        return None
    return lambda arr, obj, axis=None: np.delete(arr, obj).astype(np.float64)


@overload(rt.repeat)
def _ov_repeat(a, repeats, axis=None):
    if not (_is_array(a) and _is_none(axis)):
        return None
    return lambda a, repeats, axis=None: np.repeat(a, repeats).astype(np.float64)


@overload(rt.roll)
def _ov_roll(a, shift, axis=None):
    if not (_is_array(a) and _is_none(axis)):
        return None
    return lambda a, shift, axis=None: np.roll(a, shift).astype(np.float64)


def _is_constant(t, *values):
    """Whether the Numba type t is a constant (a literal, or an omitted argument's default)
    among `values`: the forms an overload compiles are decided when typing, never at run time."""
    if isinstance(t, types.Omitted):
        t = t.value
    if isinstance(t, types.Literal):
        t = t.literal_value
    return isinstance(t, (int, str)) and not isinstance(t, bool) and t in values


@overload(rt.take, prefer_literal=True)
def _ov_take(a, indices, axis=None, mode="raise"):
    if not (_is_array(a) and _is_constant(mode, "raise")):
        return None
    if isinstance(indices, types.Integer) and _is_none(axis):
        def one(a, indices, axis=None, mode="raise"):
            _raise_mode(mode)
            return float(np.take(a, indices))
        return one
    if _is_none(axis):
        def flat(a, indices, axis=None, mode="raise"):
            _raise_mode(mode)
            return np.take(a, indices).astype(np.float64)
        return flat
    if not (isinstance(axis, types.Integer) and _is_array(indices)):
        return None

    def along(a, indices, axis=None, mode="raise"):
        _raise_mode(mode)
        return np.take(a, indices, axis=axis).astype(np.float64)
    return along


@njit(cache=True)
def _raise_mode(mode):
    if mode != "raise":
        raise ValueError("rt.take: Numba supports mode='raise' only")


@overload(rt.sort_permute, prefer_literal=True)
def _ov_sort_permute(t, a, axis=-1):
    if not (_is_array(a) and _is_array(t) and _is_constant(axis, -1, a.ndim - 1)):
        return None  # Numba sorts along the last axis only

    def impl(t, a, axis=-1):
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
    return impl
