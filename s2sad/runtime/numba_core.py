"""Numba (nopython) implementations of the s2sad.rt helpers.

Importing this module registers an ``overload`` for every public function in
``s2sad.rt``, so jitted generated code can call ``rt.unbroadcast(...)`` etc.
Implementations are chosen at compile time from the argument types.
"""
import numpy as np
from numba import njit, types
from numba.core.errors import TypingError
from numba.extending import overload

from . import rt


def _is_scalar(t):
    return isinstance(t, (types.Number, types.Boolean))


def _is_array(t, ndim=None):
    return isinstance(t, types.Array) and (ndim is None or t.ndim == ndim)


def _is_none(t):
    return t is None or isinstance(t, (types.NoneType, types.Omitted))


def _is_axis(t):
    """An int or a homogeneous tuple of ints (the axis forms _reduced_mask accepts)."""
    if isinstance(t, types.Integer):
        return True
    if isinstance(t, types.BaseTuple) and len(t) == 0:
        return True
    return isinstance(t, types.UniTuple) and isinstance(t.dtype, types.Integer)


from . import dispatch  # noqa: E402
from .arrays import (advance as _advance, expand_to as _expand_to, f64 as _f64,  # noqa: E402,F401
                     filled as _filled, flat_copy as _flat_copy, norm_axis as _norm_axis,
                     reduce_to as _reduce_to, reduced_mask as _reduced_mask)

dispatch.install()


# ---------------------------------------------------------------------------
# Public helpers.

def _unrolled(name, arguments, expression, count, namespace):
    """An implementation returning `expression` written out for a tuple of `count` elements:
    "{k}" in it is each element's constant index (Numba types each element on its own)."""
    parts = [expression.format(k=k) for k in range(count)]
    body = f"({', '.join(parts)}{',' if count == 1 else ''})"
    scope = dict(namespace, np=np)
    exec(f"def {name}({', '.join(arguments)}):\n    return {body}\n", scope)
    return scope[name]


@overload(rt.zeros_like)
def _ov_zeros_like(x):
    if _is_scalar(x) or _is_none(x):
        return lambda x: 0.0
    if _is_array(x):
        return lambda x: np.zeros(x.shape)
    if isinstance(x, types.BaseTuple):
        return _unrolled("impl", ["x"], "zeros_like(x[{k}])", len(x),
                         {"zeros_like": rt.zeros_like})
    return None


@overload(rt.reduce_sum, prefer_literal=True)
def _ov_reduce_sum(t, axis=None, keepdims=False):
    # keepdims decides the result's type: it must be a constant (a literal, or the default)
    if isinstance(keepdims, types.Omitted):
        keepdims = keepdims.value
    if isinstance(keepdims, types.BooleanLiteral):
        keepdims = keepdims.literal_value
    if not isinstance(keepdims, bool):
        return None
    keep = keepdims
    if _is_scalar(t):
        if keep:
            return lambda t, axis=None, keepdims=False: _filled((), float(t))
        return lambda t, axis=None, keepdims=False: float(t)
    if not _is_array(t):
        return None
    if _is_none(axis):
        if keep:
            ones = "(" + "1, " * t.ndim + ")"
            scope = {"_filled": _filled, "np": np}
            exec(f"def impl(t, axis=None, keepdims=False):\n"
                 f"    return _filled({ones}, np.sum(t))\n", scope)
            return scope["impl"]
        return lambda t, axis=None, keepdims=False: float(np.sum(t))
    if keep:
        return None
    if isinstance(axis, types.BaseTuple) and len(axis) > 0 and \
            all(isinstance(a, types.Integer) for a in axis):
        # constants typed one by one (literals): the same axes as a homogeneous tuple
        same = "(" + "".join(f"axis[{k}], " for k in range(len(axis))) + ")"
        scope = {"np": np, "_f64": _f64, "types": types}
        exec(f"def impl(t, axis=None, keepdims=False):\n"
             f"    return _f64(np.sum(t, axis=_int_tuple({same})))\n", scope)
        scope["_int_tuple"] = _int_tuple
        return scope["impl"]
    if not _is_axis(axis):
        return None
    return lambda t, axis=None, keepdims=False: _f64(np.sum(t, axis=axis))


@njit(cache=True)
def _int_tuple(axes):
    return axes


@overload(rt.total)
def _ov_total(items):
    if not isinstance(items, types.BaseTuple) or len(items) == 0:
        return None
    terms = " + ".join(f"items[{k}]" for k in range(len(items)))
    scope = {}
    exec(f"def impl(items):\n    return {terms} + 0.0\n", scope)
    return scope["impl"]


@overload(rt.unbroadcast)
def _ov_unbroadcast(g, like):
    if _is_scalar(like):
        if _is_scalar(g):
            return lambda g, like: float(g)
        if _is_array(g):
            return lambda g, like: float(np.sum(g))
        return None
    if not _is_array(like):
        return None
    if _is_scalar(g):
        return lambda g, like: _filled(like.shape, g)
    if not _is_array(g):
        return None
    if g.ndim == like.ndim:
        if g.dtype != types.float64:
            if g.ndim == 0:
                return lambda g, like: g.astype(np.float64)

            def impl(g, like):
                if g.shape == like.shape:
                    return g.astype(np.float64)
                return _reduce_to(g, like.shape)
            return impl
        if g.ndim == 0:
            return lambda g, like: g

        # Both branches return float64 arrays of this ndim; a non-C g makes
        # Numba unify the return type to layout 'A'.
        def impl(g, like):
            if g.shape == like.shape:
                return g
            return _reduce_to(g, like.shape)
        return impl
    if g.ndim == 0:
        return lambda g, like: _filled(like.shape, np.sum(g))
    if like.ndim == 0:
        return lambda g, like: _filled(like.shape, np.sum(g))
    if g.ndim > like.ndim:
        return lambda g, like: _reduce_to(g, like.shape)
    raise TypingError(f"unbroadcast: gradient {g} has fewer dimensions than target {like}")


@overload(rt.unreduce)
def _ov_unreduce(g, a, axis):
    if _is_scalar(a):
        if _is_scalar(g):
            return lambda g, a, axis: float(g)
        if _is_array(g, 0):
            return lambda g, a, axis: float(np.sum(g))
        return None
    if not _is_array(a) or not (_is_scalar(g) or _is_array(g)):
        return None
    if _is_none(axis):
        if _is_scalar(g) or _is_array(g):  # one element (keepdims: any ndim)
            return lambda g, a, axis: _filled(a.shape, np.sum(g))
        return None
    if a.ndim == 0 or not _is_axis(axis):
        return None
    if _is_scalar(g):
        # e.g. np.sum(vector, axis=0): the reduced gradient is a plain number.
        def impl(g, a, axis):
            return _expand_to(np.full(1, float(g)), ~_reduced_mask(axis, a.ndim), a.shape)
        return impl

    def impl(g, a, axis):
        return _expand_to(_flat_copy(g), ~_reduced_mask(axis, a.ndim), a.shape)
    return impl


@overload(rt.reduced_size)
def _ov_reduced_size(a, axis):
    if _is_scalar(a):
        return lambda a, axis: 1.0
    if not _is_array(a):
        return None
    if _is_none(axis):
        return lambda a, axis: float(a.size)
    if a.ndim == 0 or not _is_axis(axis):
        return None

    def impl(a, axis):
        mask = _reduced_mask(axis, a.ndim)
        size = 1
        for k in range(a.ndim):
            if mask[k]:
                size *= a.shape[k]
        return float(size)
    return impl


def _ov_dot_grad_a(g, a, b):
    if _is_scalar(a) or _is_scalar(b):
        # np.dot with a scalar operand is an elementwise product.
        return lambda g, a, b: rt.unbroadcast(g * b, a)
    if not (_is_array(a) and _is_array(b)):
        return None
    if a.ndim == 1 and b.ndim == 1:
        return lambda g, a, b: _f64(g * b)
    if a.ndim == 2 and b.ndim == 1:
        return lambda g, a, b: np.outer(_f64(g), _f64(b))
    if a.ndim == 1 and b.ndim == 2:
        return lambda g, a, b: np.dot(_f64(b), _f64(g))
    if a.ndim == 2 and b.ndim == 2:
        return lambda g, a, b: np.dot(_f64(g), _f64(b).T)
    return None


def _ov_dot_grad_b(g, a, b):
    if _is_scalar(a) or _is_scalar(b):
        return lambda g, a, b: rt.unbroadcast(g * a, b)
    if not (_is_array(a) and _is_array(b)):
        return None
    if a.ndim == 1 and b.ndim == 1:
        return lambda g, a, b: _f64(g * a)
    if a.ndim == 2 and b.ndim == 1:
        return lambda g, a, b: np.dot(_f64(a).T, _f64(g))
    if a.ndim == 1 and b.ndim == 2:
        return lambda g, a, b: np.outer(_f64(a), _f64(g))
    if a.ndim == 2 and b.ndim == 2:
        return lambda g, a, b: np.dot(_f64(a).T, _f64(g))
    return None


overload(rt.dot_grad_a)(_ov_dot_grad_a)
overload(rt.dot_grad_b)(_ov_dot_grad_b)
# For 1-D/2-D operands a @ b and np.dot(a, b) have the same adjoints.
overload(rt.matmul_grad_a)(_ov_dot_grad_a)
overload(rt.matmul_grad_b)(_ov_dot_grad_b)


@overload(rt.saved)
def _ov_saved(x):
    if _is_array(x):
        return lambda x: x.copy()
    return lambda x: x


@njit(cache=True)
def _array_not_finite(x):
    for v in x.flat:
        if not np.isfinite(v):
            return True
    return False


@overload(rt.not_finite)
def _ov_not_finite(x):
    if _is_array(x):
        return lambda x: _array_not_finite(x)
    if _is_scalar(x):
        return lambda x: not np.isfinite(x)
    return None


@overload(rt.flag)
def _ov_flag(test):
    return lambda test: test


@overload(rt.stop_gradient)
def _ov_stop_gradient(x):
    return lambda x: x


@njit(cache=True)
def _ceil_sqrt(trips):
    root = max(0, int(np.sqrt(max(trips, 0))))
    while root * root > trips:
        root -= 1
    while root * root < trips:
        root += 1
    return max(1, root)


@overload(rt.checkpoint_every)
def _ov_checkpoint_every(trips, every=None):
    if _is_none(every):
        return lambda trips, every=None: _ceil_sqrt(trips)
    if not isinstance(every, types.Integer):
        return None

    def given(trips, every=None):
        if every < 1:
            raise ValueError("s2sad.checkpointed(..., every=k) needs k >= 1")
        return every
    return given


@overload(rt.item)
def _ov_item(x):
    if _is_array(x):
        return lambda x: x.item()
    return lambda x: x


@overload(rt.broadcast_like)
def _ov_broadcast_like(t, like):
    if _is_scalar(like):
        if _is_scalar(t):
            return lambda t, like: float(t)
        return None
    if not _is_array(like):
        return None
    if _is_scalar(t):
        return lambda t, like: _filled(like.shape, t)
    if not _is_array(t):
        return None
    if t.ndim == like.ndim:
        def same(t, like):
            if t.shape == like.shape:
                return t.astype(np.float64)
            return np.broadcast_to(t, like.shape).astype(np.float64)
        return same
    return lambda t, like: np.broadcast_to(t, like.shape).astype(np.float64)


@overload(rt.copy)
def _ov_copy(x):
    if _is_array(x):
        return lambda x: x.astype(np.float64)  # astype always copies
    if _is_scalar(x):
        return lambda x: float(x)
    return None


def _has_array(index):
    parts = index.types if isinstance(index, types.BaseTuple) else (index,)
    return any(isinstance(p, types.Array) for p in parts)


@overload(rt.add_at)
def _ov_add_at(a, index, g):
    if not _is_array(a):
        return None
    if not _has_array(index):
        def basic(a, index, g):
            a[index] += g
        return basic
    if isinstance(index, types.Array) and index.ndim == 1 and \
            isinstance(index.dtype, types.Integer):
        if _is_array(g):
            def rows(a, index, g):
                for k in range(index.shape[0]):
                    a[index[k]] += g[k]
            return rows
        def scalar_rows(a, index, g):
            for k in range(index.shape[0]):
                a[index[k]] += g
        return scalar_rows
    return None  # several integer arrays: Numba cannot index this way; the caller falls back


# Overloads for the template library's helpers, one module per area.
from . import numba_reductions, numba_linalg, numba_shape  # noqa: E402,F401
from . import numba_special  # noqa: E402,F401
