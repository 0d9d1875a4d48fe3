"""The helpers every kind of generated code calls: zeros, copies, kept values, broadcasting and
reductions undone, the gradients of np.dot and @.

Each helper is defined once (dispatch.py): its type dispatch gives Numba and Python the same
implementation for the forms Numba compiles; the forms only Python runs (`python_only`) are the
general NumPy code after each dispatch.

Conventions: a "scalar" is a Python or NumPy scalar (a 0-d array is an array); every gradient
returned is float64, and a Python ``float`` where the differentiated value is a scalar.
"""
import math

import numpy as np

from . import linalg  # dot/matmul gradients of N-D operands
from . import products  # matmul gradients of stacks of matrices, compiled
from .arrays import (axis_spread_loop, axis_sum_loop, expand_to, f64, fill_loop, filled,
                     flat_copy, reduce_to, reduced_mask, summed_to_loop, total_loop)
from .dispatch import (by_type, compiled_as, constant, generate, is_array, is_axis, is_float64,
                       is_int, is_list, is_none, is_python_object, is_range, is_scalar, is_tuple,
                       jitable, loops, optional_array_rank, python_only)

__all__ = ["zeros_like", "saved", "not_finite", "checkpoint_every",
           "item", "copy", "add_at", "unbroadcast", "broadcast_like", "reduce_sum", "total",
           "unreduce", "reduced_size",
           "dot_grad_a", "dot_grad_b", "matmul_grad_a", "matmul_grad_b"]


# ---- what the general (Python-only) forms share ------------------------------------------------

def is_number(x):
    """Whether x is a scalar: not an array, and no dimensions."""
    return not isinstance(x, np.ndarray) and np.ndim(x) == 0


def shape_of(x):
    """x's shape (np.shape costs more than a whole fast path: avoided for arrays)."""
    return x.shape if isinstance(x, np.ndarray) else np.shape(x)


def axes_of(axis, ndim):
    """The axes np.sum(x, axis) reduces for x of this ndim, in range, as a tuple (all of them
    for None; `axis` an int or a sequence of ints, negative allowed)."""
    if axis is None:
        return tuple(range(ndim))
    out = []
    for ax in (axis,) if np.ndim(axis) == 0 else tuple(axis):
        ax = int(ax)
        if not -ndim <= ax < ndim:
            raise ValueError(f"axis {ax} is out of bounds for an array of dimension {ndim}")
        out.append(ax % ndim)
    return tuple(out)


def kept_shape(shape, axis):
    """The shape of np.sum(a, axis=axis, keepdims=True) for a of this shape."""
    axes = axes_of(axis, len(shape))
    return tuple(1 if k in axes else n for k, n in enumerate(shape))


# ---- values ---------------------------------------------------------------------------------

@by_type
def zeros_like(x):
    """Zero gradient for x: 0.0 for a scalar, float64 zeros of x's shape for an array, a tuple
    of those for a tuple (the tangents of a sequence argument none of whose elements varies)."""
    if is_scalar(x) or is_none(x):
        return lambda x: 0.0
    if is_array(x):
        return lambda x: np.zeros(x.shape)
    if is_range(x):   # (as _zeros_like: zeros of its length)
        return lambda x: np.zeros(len(x))
    rank = optional_array_rank(x)
    if rank is not None:  # (None: an array without elements, of the rank it will have)
        empty = "(" + "0, " * rank + ")"
        return generate("zeros_like_optional", ["x"], [
            f"return np.zeros({empty}) if x is None else np.zeros(x.shape)"], {"np": np})
    if is_tuple(x):
        # written out for the tuple's length: Numba types each element on its own
        parts = "".join(f"zeros_like(x[{k}]), " for k in range(len(x)))
        return generate("zeros_like_tuple", ["x"], [f"return ({parts})"],
                        {"zeros_like": zeros_like})
    return python_only(_zeros_like)


def _zeros_like(x):
    if isinstance(x, tuple):
        return tuple(zeros_like(e) for e in x)
    return 0.0 if is_number(x) else np.zeros(shape_of(x))


@by_type
def saved(x):
    """A value kept for the backward sweep: arrays are copied (they may change in place)."""
    if is_array(x):
        return lambda x: x.copy()
    return lambda x: x


@by_type
def not_finite(x):
    """Whether x (a number or an array) holds a NaN or an infinity."""
    if is_array(x) or is_scalar(x):
        return lambda x: not np.all(np.isfinite(x))
    return python_only(lambda x: not np.all(np.isfinite(x)))


@jitable
def ceil_sqrt(trips):
    """ceil(sqrt(trips)), at least 1, in integers (no rounding error for large counts)."""
    root = max(0, int(np.sqrt(max(trips, 0))))
    while root * root > trips:
        root -= 1
    while root * root < trips:
        root += 1
    return max(1, root)


@by_type
def checkpoint_every(trips, every=None):
    """The segment length of a checkpointed loop of `trips` iterations: `every` if given (at
    least 1), else ceil(sqrt(trips)), at least 1."""
    if is_none(every):
        return lambda trips, every=None: ceil_sqrt(trips)
    if is_int(every):
        def given(trips, every=None):
            if every < 1:
                raise ValueError("s2sad.checkpointed(..., every=k) needs k >= 1")
            return every
        return given
    return python_only(_checkpoint_every)


def _checkpoint_every(trips, every=None):
    if every is None:
        return ceil_sqrt(trips)
    if every < 1:
        raise ValueError("s2sad.checkpointed(..., every=k) needs k >= 1")
    return int(every)


@by_type
def item(x):
    """`x.item()`: the value as a number. Like in tape-based tools, it leaves the gradient
    behind (s2sad reports it; index instead, `x[i]`, to keep the gradient)."""
    if is_array(x):
        return lambda x: x.item()
    return lambda x: x


@by_type
def copy(x):
    """A private copy of a gradient, about to be updated in place."""
    if is_array(x):
        return lambda x: x.astype(np.float64)  # astype always copies
    if is_scalar(x):
        return lambda x: float(x)
    return python_only(lambda x: np.array(x, dtype=np.float64))


# ---- scatter ----------------------------------------------------------------------------------

def _scatter_rows_loop(a, index, g):
    for k in range(index.shape[0]):
        a[index[k]] += g[k]


def _scatter_value_loop(a, index, g):
    for k in range(index.shape[0]):
        a[index[k]] += g


@compiled_as(_scatter_rows_loop)
def scatter_rows(a, index, g):
    """a[index[k]] += g[k] for each k, a repeated index adding every time."""
    np.add.at(a, index, g)


@compiled_as(_scatter_value_loop)
def scatter_value(a, index, g):
    """a[index[k]] += g for each k, a repeated index adding every time."""
    np.add.at(a, index, g)


def _basic_index_part(t):
    """An index part `a[index] += g` adds once per element for (no array, no list)."""
    return not (is_array(t) or is_list(t) or is_python_object(t))


@by_type
def add_at(a, index, g):
    """a[index] += g, where an index repeated in an integer array adds every time."""
    if not is_array(a):
        return python_only(np.add.at)
    parts = index.types if is_tuple(index) else (index,)
    if all(map(_basic_index_part, parts)):
        def basic(a, index, g):
            a[index] += g
        return basic
    if is_array(index, 1) and is_int(index.dtype):
        if is_array(g):
            return lambda a, index, g: scatter_rows(a, index, g)
        return lambda a, index, g: scatter_value(a, index, g)
    # several integer arrays: Numba cannot index this way; the gradient runs as Python
    return python_only(np.add.at)


# ---- broadcasting undone ----------------------------------------------------------------------

@by_type
def unbroadcast(g, like):
    """Sum the gradient g of a broadcast result back to the shape of `like`."""
    if is_scalar(like):
        if is_scalar(g):
            return lambda g, like: float(g)
        if is_array(g):
            return loops(lambda g, like: float(np.sum(g)), total_loop(g.ndim, ("g", "like")))
    if not (is_array(like) and (is_scalar(g) or is_array(g))):
        return python_only(_unbroadcast)
    if is_scalar(g):
        return loops(lambda g, like: filled(like.shape, g), fill_loop(("g", "like"), "like"))
    if g.ndim == like.ndim:
        if g.ndim == 0:
            if not is_float64(g.dtype):
                return lambda g, like: g.astype(np.float64)
            return lambda g, like: g
        if not is_float64(g.dtype):
            def cast(g, like):
                if g.shape == like.shape:
                    return g.astype(np.float64)
                return reduce_to(g, like.shape)
            return loops(cast, summed_to_loop(g.ndim, like.ndim, False))

        # both branches return float64 arrays of this ndim (a non-C g makes Numba unify the
        # return type to layout 'A')
        def same(g, like):
            if g.shape == like.shape:
                return g
            return reduce_to(g, like.shape)
        return loops(same, summed_to_loop(g.ndim, like.ndim, True))
    if g.ndim == 0 or like.ndim == 0:
        return loops(lambda g, like: filled(like.shape, np.sum(g)),
                     fill_loop(("g", "like"), "like", g.ndim))
    if g.ndim > like.ndim:
        return loops(lambda g, like: reduce_to(g, like.shape),
                     summed_to_loop(g.ndim, like.ndim, False))
    return python_only(_unbroadcast)    # fewer dimensions than the target: an error


def _unbroadcast(g, like):
    if is_number(like):
        return float(np.sum(g))
    shape = shape_of(like)
    if is_number(g) or np.ndim(g) == 0:
        return np.full(shape, float(np.sum(g)))
    g = np.asarray(g)
    extra = g.ndim - len(shape)
    if extra < 0 or any(n != 1 and n != m for n, m in zip(shape, g.shape[extra:])):
        raise ValueError(f"cannot unbroadcast shape {g.shape} to {shape}")
    return reduce_to(g, shape)


@by_type
def broadcast_like(t, like):
    """The tangent t of an elementwise result, spread to the result's shape (the tangent of
    `x + c`, with only a scalar x varying, is dx everywhere in the array)."""
    if is_scalar(like) and is_scalar(t):
        return lambda t, like: float(t)
    if not is_array(like) or not (is_scalar(t) or is_array(t)):
        return python_only(_broadcast_like)
    if is_scalar(t):
        return loops(lambda t, like: filled(like.shape, t), fill_loop(("t", "like"), "like"))
    if t.ndim == like.ndim:
        def same(t, like):
            if t.shape == like.shape:
                return t.astype(np.float64)
            return np.broadcast_to(t, like.shape).astype(np.float64)
        return same
    return lambda t, like: np.broadcast_to(t, like.shape).astype(np.float64)


def _broadcast_like(t, like):
    if is_number(like):
        return float(t)
    return np.array(np.broadcast_to(t, shape_of(like)), dtype=np.float64)


# ---- reductions undone ------------------------------------------------------------------------

def _int_tuple(axis):
    """The dispatch's source for `axis`, a tuple of constants: a homogeneous tuple of ints."""
    return "(" + "".join(f"int(axis[{k}]), " for k in range(len(axis))) + ")"


@by_type(prefer_literal=True)
def reduce_sum(t, axis=None, keepdims=False):
    """np.sum(t, axis, keepdims=keepdims) in float64, a float when it is one number (the
    tangent of a sum, and of the reductions written as sums)."""
    # keepdims decides the result's type: Numba needs it constant (a literal, or the default)
    keep = constant(keepdims)
    if not isinstance(keep, bool):
        return python_only(_reduce_sum)
    if is_scalar(t):
        if keep:
            return lambda t, axis=None, keepdims=False: filled((), float(t))
        return lambda t, axis=None, keepdims=False: float(t)
    if not is_array(t):
        return python_only(_reduce_sum)
    if is_none(axis):
        if keep:
            ones = "(" + "1, " * t.ndim + ")"
            return generate("reduce_sum_kept", ["t", "axis=None", "keepdims=False"],
                            [f"return filled({ones}, np.sum(t))"], {"filled": filled})
        return loops(lambda t, axis=None, keepdims=False: float(np.sum(t)),
                     total_loop(t.ndim, ("t", "axis=None", "keepdims=False")))
    if keep and (is_axis(axis) or is_tuple(axis) and all(map(is_int, axis))) and t.ndim >= 1:
        # (reduction_forms.py's numpy.sum)
        return lambda t, axis=None, keepdims=False: f64(np.sum(t, axis=axis, keepdims=True))
    if keep:
        return python_only(_reduce_sum)
    if is_tuple(axis) and len(axis) > 0 and all(map(is_int, axis)):
        # constants typed one by one (literals): the same axes as a homogeneous tuple
        return generate("reduce_sum_axes", ["t", "axis=None", "keepdims=False"],
                        [f"return f64(np.sum(t, axis={_int_tuple(axis)}))"], {"f64": f64})
    if is_int(axis) and t.ndim >= 1:
        return loops(lambda t, axis=None, keepdims=False: f64(np.sum(t, axis=axis)),
                     axis_sum_loop(t.ndim, ("t", "axis=None", "keepdims=False")))
    if is_axis(axis):
        return lambda t, axis=None, keepdims=False: f64(np.sum(t, axis=axis))
    return python_only(_reduce_sum)


def _reduce_sum(t, axis=None, keepdims=False):
    if is_number(t) and not keepdims:
        return float(t)
    out = np.sum(t, axis=axis, keepdims=keepdims, dtype=np.float64)
    return float(out) if np.ndim(out) == 0 and not keepdims else out


@by_type
def total(items):
    """items[0] + items[1] + ... (a new value; the tangent of builtin sum(items))."""
    if is_tuple(items) and len(items) > 0:
        terms = " + ".join(f"items[{k}]" for k in range(len(items)))
        return generate("total_of_tuple", ["items"], [f"return {terms} + 0.0"], {})
    return python_only(_total)


def _total(items):
    out = items[0] + 0.0
    for term in items[1:]:
        out = out + term
    return out


@by_type
def unreduce(g, a, axis):
    """Adjoint of np.sum(a, axis=axis), with or without keepdims: broadcast g back to a's
    shape."""
    if is_scalar(a):
        if is_scalar(g):
            return lambda g, a, axis: float(g)
        if is_array(g, 0):
            return lambda g, a, axis: float(np.sum(g))
        return python_only(_unreduce)
    if not is_array(a) or not (is_scalar(g) or is_array(g)):
        return python_only(_unreduce)
    if is_none(axis):    # one element (keepdims: of any ndim)
        return loops(lambda g, a, axis: filled(a.shape, np.sum(g)),
                     fill_loop(("g", "a", "axis"), "a", g.ndim if is_array(g) else None))
    if a.ndim == 0 or not is_axis(axis):
        return python_only(_unreduce)
    if is_int(axis) and (a.ndim == 1 if is_scalar(g) else g.ndim in (a.ndim - 1, a.ndim)):
        spread = axis_spread_loop(a.ndim, None if is_scalar(g) else g.ndim, ("g", "a", "axis"))
        return loops(_unreduce_numpy(g), spread)
    return _unreduce_numpy(g)


def _unreduce_numpy(g):
    """unreduce's implementation for an axis (NumPy calls: what Python runs)."""
    if is_scalar(g):     # e.g. np.sum(vector, axis=0): the reduced gradient is a number
        return lambda g, a, axis: expand_to(np.full(1, float(g)), ~reduced_mask(axis, a.ndim),
                                            a.shape)
    return lambda g, a, axis: expand_to(flat_copy(g), ~reduced_mask(axis, a.ndim), a.shape)


def _unreduce(g, a, axis):
    if is_number(a):
        return float(g)
    shape = shape_of(a)
    out = np.empty(shape)
    # g has the reduced shape, or the keepdims one: both have the kept axes' elements in order
    out[...] = np.reshape(g, kept_shape(shape, axis))
    return out


@by_type
def reduced_size(a, axis):
    """Number of elements np.sum(a, axis=axis) adds per output, as a float."""
    if is_scalar(a):
        return lambda a, axis: 1.0
    if not is_array(a):
        return python_only(_reduced_size)
    if is_none(axis):
        return lambda a, axis: float(a.size)
    if a.ndim == 0 or not is_axis(axis):
        return python_only(_reduced_size)

    def impl(a, axis):
        mask = reduced_mask(axis, a.ndim)
        size = 1
        for k in range(a.ndim):
            if mask[k]:
                size *= a.shape[k]
        return float(size)
    return impl


def _reduced_size(a, axis):
    if is_number(a):
        return 1.0
    shape = shape_of(a)
    if axis is None:
        return float(np.prod(shape))
    return float(math.prod(shape[ax] for ax in axes_of(axis, len(shape))))


# ---- np.dot and @ -----------------------------------------------------------------------------
# For 1-D and 2-D operands a @ b and np.dot(a, b) have the same adjoints: one dispatch each.

# The loops Numba compiles for np.outer and a transposed matrix-vector product, with the
# helpers' parameters (a helper calling a jitable function would compile one more function).

def _outer_g_b(g, a, b):
    """np.outer(f64(g), f64(b)), for 1-D g and b."""
    out = np.empty((g.shape[0], b.shape[0]))
    for i in range(g.shape[0]):
        gi = float(g[i])
        for j in range(b.shape[0]):
            out[i, j] = gi * b[j]
    return out


def _outer_a_g(g, a, b):
    """np.outer(f64(a), f64(g)), for 1-D a and g."""
    out = np.empty((a.shape[0], g.shape[0]))
    for i in range(a.shape[0]):
        ai = float(a[i])
        for j in range(g.shape[0]):
            out[i, j] = ai * g[j]
    return out


def _matvec_t(g, a, b):
    """np.dot(f64(a).T, f64(g)), for 2-D a and 1-D g, row by row of a (contiguous reads)."""
    out = np.empty(a.shape[1])
    out[...] = 0.0
    for i in range(a.shape[0]):
        gi = float(g[i])
        for j in range(a.shape[1]):
            out[j] += a[i, j] * gi
    return out


def _float64s(*ts):
    """Whether arrays of these types need no f64(): float64, contiguous (C or F)."""
    return all(is_float64(t.dtype) and t.layout in "CF" for t in ts)


def _dot_a(g, a, b):
    if is_scalar(a) or is_scalar(b):
        # np.dot with a scalar operand is an elementwise product
        return lambda g, a, b: unbroadcast(g * b, a)
    if not (is_array(a) and is_array(b)):
        return None
    if a.ndim == 1 and b.ndim == 1:
        if _float64s(b):
            return lambda g, a, b: g * b
        return lambda g, a, b: f64(g * b)
    if a.ndim == 2 and b.ndim == 1:
        return loops(lambda g, a, b: np.outer(f64(g), f64(b)), _outer_g_b)
    if a.ndim == 1 and b.ndim == 2:
        if _float64s(g, b):
            return lambda g, a, b: np.dot(b, g)
        return lambda g, a, b: np.dot(f64(b), f64(g))
    if a.ndim == 2 and b.ndim == 2:
        if _float64s(g, b):
            return lambda g, a, b: np.dot(g, b.T)
        return lambda g, a, b: np.dot(f64(g), f64(b).T)
    return None


def _dot_b(g, a, b):
    if is_scalar(a) or is_scalar(b):
        return lambda g, a, b: unbroadcast(g * a, b)
    if not (is_array(a) and is_array(b)):
        return None
    if a.ndim == 1 and b.ndim == 1:
        if _float64s(a):
            return lambda g, a, b: g * a
        return lambda g, a, b: f64(g * a)
    if a.ndim == 2 and b.ndim == 1:
        return loops(lambda g, a, b: np.dot(f64(a).T, f64(g)), _matvec_t)
    if a.ndim == 1 and b.ndim == 2:
        return loops(lambda g, a, b: np.outer(f64(a), f64(g)), _outer_a_g)
    if a.ndim == 2 and b.ndim == 2:
        if _float64s(a, g):
            return lambda g, a, b: np.dot(a.T, g)
        return lambda g, a, b: np.dot(f64(a).T, f64(g))
    return None


@by_type
def dot_grad_a(g, a, b):
    """Gradient w.r.t. a of z = np.dot(a, b), given g = dz."""
    return _dot_a(g, a, b) or python_only(_dot_grad_a)


@by_type
def dot_grad_b(g, a, b):
    """Gradient w.r.t. b of z = np.dot(a, b), given g = dz."""
    return _dot_b(g, a, b) or python_only(_dot_grad_b)


@by_type
def matmul_grad_a(g, a, b):
    """Gradient w.r.t. a of z = a @ b, given g = dz (stacks of matrices broadcast)."""
    return _dot_a(g, a, b) or products.stacked_grad(g, a, b, 0, _matmul_grad_a) or \
        python_only(_matmul_grad_a)


@by_type
def matmul_grad_b(g, a, b):
    """Gradient w.r.t. b of z = a @ b, given g = dz (stacks of matrices broadcast)."""
    return _dot_b(g, a, b) or products.stacked_grad(g, a, b, 1, _matmul_grad_b) or \
        python_only(_matmul_grad_b)


def _contracted(a, b):
    """The axes np.dot contracts: a's last with b's second-to-last (its only one if 1-D)."""
    return ([a.ndim - 1], [max(b.ndim - 2, 0)])


def _dot_grad_a(g, a, b):
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(np.multiply(g, b), a)
    return linalg.tensordot_grad_a(g, a, b, _contracted(a, b))


def _dot_grad_b(g, a, b):
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(np.multiply(g, a), b)
    return linalg.tensordot_grad_b(g, a, b, _contracted(a, b))


def _matmul_grad_a(g, a, b):
    if np.ndim(a) <= 2 and np.ndim(b) <= 2:
        return _dot_grad_a(g, a, b)
    g = np.asarray(g, dtype=np.float64)
    if np.ndim(b) == 1:  # (..., n, k) @ (k,) -> (..., n)
        return unbroadcast(g[..., :, None] * b, a)
    if np.ndim(a) == 1:  # (k,) @ (..., k, m) -> (..., m)
        return unbroadcast(np.matmul(b, g[..., :, None])[..., 0], a)
    return unbroadcast(np.matmul(g, np.swapaxes(b, -1, -2)), a)


def _matmul_grad_b(g, a, b):
    if np.ndim(a) <= 2 and np.ndim(b) <= 2:
        return _dot_grad_b(g, a, b)
    g = np.asarray(g, dtype=np.float64)
    if np.ndim(b) == 1:
        return unbroadcast(np.matmul(g[..., None, :], a)[..., 0, :], b)
    if np.ndim(a) == 1:
        return unbroadcast(a[:, None] * g[..., None, :], b)
    return unbroadcast(np.matmul(np.swapaxes(a, -1, -2), g), b)
