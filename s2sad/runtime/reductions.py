"""Runtime helpers for the gradients of reductions and scans (templates/numpy_reductions.py);
their tangents are in reduction_tangents.py.

Each helper is defined once (dispatch.py). Its type dispatch gives Numba the forms compiled code
computes: the whole array, one int axis, and `keepdims` with either (reduction_axes.py and
reduction_forms.py compile the primals Numba lacks in those forms); others (a tuple of axes for
most) are `python_only`, and a gradient using them falls back to Python, as the rules declare.
The gradient of numpy.linalg.norm is in norms.py.

Conventions: `g` is the adjoint of the primal's result, with the result's shape (reduced, or
keepdims); `axis` is None, an int or a tuple of ints, negative allowed; every helper returns a
float64 array shaped like the differentiated argument, or a float for a scalar one.
"""
import functools

import numpy as np

from . import core
from .core import axes_of, is_number, kept_shape
from .arrays import filled, indices, loop_nest, norm_axis
from .reduction_axes import extremum_axes_grad, extremum_axis_loop
from . import reduction_forms  # noqa: F401  (overloads of NumPy reductions)
from .dispatch import (by_type, generate, is_array, is_axis, is_int, is_none, is_scalar,
                       is_tuple,
                       jitable, loops, python_only)

__all__ = ["prod_grad", "extremum_grad", "add_extremum_grad", "ptp_grad", "var_grad",
           "std_grad", "cumsum_grad", "cumprod_grad", "average_grad_a",
           "average_grad_weights", "nansum_grad", "nanmean_grad", "median_grad"]


# ---- building blocks (also used by reduction_tangents.py) ---------------------------------------

def is_value(t):
    """Whether the Numba type t is a scalar adjoint: a number or a 0-d array."""
    return is_scalar(t) or is_array(t, 0)


def whole(a, g, axis):
    """The form Numba compiles: an array a reduced over all its axes (axis None) to the scalar
    adjoint g (Numba types)."""
    return is_array(a) and is_none(axis) and is_value(g)


@by_type
def value(g):
    """A scalar adjoint (a number or a 0-d array) as a float."""
    if is_scalar(g):
        return lambda g: float(g)
    if is_array(g, 0):
        return lambda g: float(np.sum(g))
    return None


@jitable
def flat64(x):
    """x as a new C-order float64 1-D array."""
    return np.ravel(x).astype(np.float64)


@jitable
def exclusive_products(x):
    """For each element of 1-D x, the product of all the others (no division: exact with
    zeros): the running product from the left times the one from the right."""
    left = np.ones(x.size)
    right = np.ones(x.size)
    left[1:] = np.cumprod(x[:-1])
    right[:-1] = np.cumprod(x[:0:-1])[::-1]
    return left * right


@jitable
def shares(hit):
    """1.0 / count on the True elements of hit, 0 elsewhere (ties share evenly)."""
    return hit * (1.0 / max(np.sum(hit), 1))


def to_last(x, axes):
    """x with `axes` moved last and merged into one: shape (*kept, n). Also returns what
    `from_last` needs to undo it."""
    kept = [k for k in range(x.ndim) if k not in axes]
    order = kept + list(axes)
    moved = np.transpose(x, order)
    return moved.reshape(moved.shape[:len(kept)] + (-1,)), (moved.shape, order)


def from_last(y, undo):
    """Inverse of to_last: y of shape (*kept, n) back to the original layout."""
    shape, order = undo
    return np.ascontiguousarray(np.transpose(y.reshape(shape), np.argsort(order)))


def ties(hit, axis):
    """hit (a bool array: the elements reaching the extremum) divided by their count in each
    reduction, so tied elements share the gradient evenly."""
    count = np.sum(hit, axis=axis if axis is None else axes_of(axis, hit.ndim), keepdims=True)
    return hit / count


# ---- the helpers ------------------------------------------------------------------------------
# Each: its type dispatch, then the general form, which Python alone runs.

@by_type
def prod_grad(g, a, axis):
    """Gradient w.r.t. a of z = np.prod(a, axis): g times the product of the other elements of
    each element's reduction (no division, so exact when some elements are zero)."""
    if is_scalar(a) and is_value(g):
        return lambda g, a, axis: value(g)
    if whole(a, g, axis):
        return lambda g, a, axis: (exclusive_products(flat64(a)) * value(g)).reshape(a.shape)
    if is_array(a, 2) and is_int(axis) and is_array(g, 1):
        return prod_grad_along
    return python_only(_prod_grad)


@jitable
def prod_grad_along(g, a, axis):
    """prod_grad of a matrix along one axis: each row's (column's) exclusive products."""
    ax = axis + 2 if axis < 0 else axis
    out = np.empty(a.shape)
    if ax == 1:
        for i in range(a.shape[0]):
            out[i, :] = exclusive_products(flat64(a[i, :])) * g[i]
    elif ax == 0:
        for j in range(a.shape[1]):
            out[:, j] = exclusive_products(flat64(a[:, j])) * g[j]
    else:
        raise ValueError("axis is out of bounds")
    return out


def _prod_grad(g, a, axis):
    if is_number(a):
        return float(g)
    a = np.asarray(a, dtype=np.float64)
    flat, undo = to_last(a, axes_of(axis, a.ndim))
    left = np.ones_like(flat)
    right = np.ones_like(flat)
    left[..., 1:] = np.cumprod(flat[..., :-1], axis=-1)
    right[..., :-1] = np.cumprod(flat[..., :0:-1], axis=-1)[..., ::-1]
    return core.unreduce(g, a, axis) * from_last(left * right, undo)


@by_type
def extremum_grad(g, a, z, axis):
    """Gradient w.r.t. a of z = np.max(a, axis) (or min, nanmax, nanmin): g goes to the
    elements equal to the result, split evenly among ties."""
    if is_scalar(a) and is_value(g):
        return lambda g, a, z, axis: value(g)
    if whole(a, g, axis) and is_value(z):
        return loops(lambda g, a, z, axis: (shares(flat64(a) == z) * value(g)).reshape(a.shape),
                     _extremum_loop(a.ndim, is_scalar(g), is_scalar(z)))
    if whole(a, g, axis):
        return lambda g, a, z, axis: (shares(flat64(a) == z) * value(g)).reshape(a.shape)
    if is_array(a, 1) and is_int(axis) and is_value(g) and is_value(z):   # (axis 0 or -1)
        return loops(_extremum_grad, _extremum_loop(1, is_scalar(g), is_scalar(z)))
    if is_array(a) and a.ndim >= 2 and is_int(axis) and is_array(g, a.ndim - 1):
        return loops(_extremum_grad, extremum_axis_loop(a.ndim))   # (reduction_axes.py)
    if is_array(a) and is_int(axis) and is_array(g, a.ndim) and is_array(z, a.ndim):
        # keepdims=True: the reduced axis, of length 1, summed away (reduction_forms.py)
        if a.ndim == 1:
            return lambda g, a, z, axis: extremum_grad(g[0], a, z[0], axis)
        return lambda g, a, z, axis: extremum_grad(np.sum(g, axis=axis), a,
                                                   np.sum(z, axis=axis), axis)
    if is_array(a) and is_tuple(axis) and len(axis) > 0 and all(map(is_int, axis)) and \
            is_array(g) and is_array(z):
        return extremum_axes_grad(a.ndim)   # (a tuple of axes: reduction_axes.py)
    return python_only(_extremum_grad)


@functools.lru_cache(maxsize=None)
def _extremum_loop(nd, g_number, z_number, into=False):
    """Numba's extremum_grad over the whole of a (nd dims): the same products as the NumPy
    form, written as two loops (one counts the ties); `into`: add_extremum_grad's, adding
    into `out` (where its shape is not a's, as `+=` would: broadcast)."""
    g, z = ("g" if g_number else "g[()]"), ("z" if z_number else "z[()]")
    index = indices(nd)
    lines = ["if out.shape != a.shape:",
             "    out += (shares(flat64(a) == z) * value(g)).reshape(a.shape)",
             "    return"] if into else []
    lines += [f"v = float({g})", f"m = {z}", "count = 0",
              *loop_nest(nd, "a.shape", [f"if a[{index}] == m:", "    count += 1"]),
              "w = 1.0 / max(count, 1)",
              "hit = (1.0 * w) * v",
              "miss = (0.0 * w) * v"]
    if into:
        lines += loop_nest(nd, "a.shape",
                           [f"out[{index}] += hit if a[{index}] == m else miss"])
        return generate("add_extremum_grad_loop", ["out", "g", "a", "z"], lines,
                        {"shares": shares, "flat64": flat64, "value": value})
    lines += ["out = np.empty(a.shape)",
              *loop_nest(nd, "a.shape", [f"out[{index}] = hit if a[{index}] == m else miss"]),
              "return out"]
    return generate("extremum_grad_loop", ["g", "a", "z", "axis"], lines, {})


@by_type
def add_extremum_grad(out, g, a, z):
    """`out += extremum_grad(g, a, z, None)` in place, without making the gradient's array:
    `out`, of a's shape, is a view of a gradient (tidy/in_place.py writes `da[i] += ...` so)."""
    if is_array(out) and is_array(a) and out.ndim == a.ndim and is_value(g) and is_value(z):
        def add(out, g, a, z):
            out += (shares(flat64(a) == z) * value(g)).reshape(a.shape)
        return loops(add, _extremum_loop(a.ndim, is_scalar(g), is_scalar(z), into=True))
    return python_only(_add_extremum_grad)


def _add_extremum_grad(out, g, a, z):
    out += extremum_grad(g, a, z, None)


def _extremum_grad(g, a, z, axis):
    if is_number(a):
        return float(g)
    hit = a == np.reshape(z, kept_shape(a.shape, axis))
    return core.unreduce(g, a, axis) * ties(hit, axis)


@by_type
def ptp_grad(g, a, axis):
    """Gradient w.r.t. a of z = np.ptp(a, axis) = max - min (ties split evenly)."""
    if is_scalar(a):
        return lambda g, a, axis: 0.0
    if whole(a, g, axis):
        def impl(g, a, axis):
            flat = flat64(a)
            share = shares(flat == flat.max()) - shares(flat == flat.min())
            return (share * value(g)).reshape(a.shape)
        return impl
    return python_only(_ptp_grad)


def _ptp_grad(g, a, axis):
    axes = axes_of(axis, np.ndim(a))
    hit_max = a == np.max(a, axis=axes, keepdims=True)
    hit_min = a == np.min(a, axis=axes, keepdims=True)
    return core.unreduce(g, a, axis) * (ties(hit_max, axis) - ties(hit_min, axis))


@by_type
def var_grad(g, a, axis, ddof):
    """Gradient w.r.t. a of z = np.var(a, axis, ddof=ddof): g * 2 (a - mean) / (n - ddof)."""
    if is_scalar(a):
        return lambda g, a, axis, ddof: 0.0
    if whole(a, g, axis):
        def impl(g, a, axis, ddof):
            flat = flat64(a)
            centred = flat - np.mean(flat)
            return (centred * (value(g) * (2.0 / (flat.size - ddof)))).reshape(a.shape)
        return impl
    if is_array(a) and is_axis(axis) and (is_array(g) or is_scalar(g)):
        def along(g, a, axis, ddof):   # (axes: reduction_forms.py's numpy.mean)
            centred = a - np.mean(a, axis=axis, keepdims=True)
            return core.unreduce(g, a, axis) * centred * (
                2.0 / (core.reduced_size(a, axis) - ddof))
        return along
    return python_only(_var_grad)


def _var_grad(g, a, axis, ddof):
    a = np.asarray(a, dtype=np.float64)
    centred = a - np.mean(a, axis=axes_of(axis, a.ndim), keepdims=True)
    return core.unreduce(g, a, axis) * centred * (2.0 / (core.reduced_size(a, axis) - ddof))


@by_type
def std_grad(g, a, z, axis, ddof):
    """Gradient w.r.t. a of z = np.std(a, axis, ddof=ddof): var_grad with g / (2 z); zero where
    the deviation is zero (all elements equal: a kink)."""
    if is_value(z) and is_value(g):
        def impl(g, a, z, axis, ddof):
            deviation = value(z)
            scaled = value(g) / (2.0 * deviation) if deviation > 0.0 else 0.0
            return var_grad(scaled, a, axis, ddof)
        return impl
    if is_array(z) and is_array(g):
        def along(g, a, z, axis, ddof):
            positive = z > 0.0
            return var_grad(np.where(positive, g / (2.0 * np.where(positive, z, 1.0)), 0.0),
                            a, axis, ddof)
        return along
    return python_only(_std_grad)


def _std_grad(g, a, z, axis, ddof):
    z = np.asarray(z, dtype=np.float64)
    safe = np.where(z > 0.0, z, 1.0)
    return var_grad(np.where(z > 0.0, np.asarray(g) / (2.0 * safe), 0.0), a, axis, ddof)


@jitable
def _reverse_cumsum(x):
    """sum_{i >= j} x_i for 1-D x: the adjoint of a cumulative sum."""
    return np.cumsum(x[::-1])[::-1].copy()


@by_type
def cumsum_grad(g, a, axis):
    """Gradient w.r.t. a of z = np.cumsum(a, axis): the reversed cumulative sum of g (axis None:
    a was flattened, g is 1-D)."""
    if is_scalar(g):
        return lambda g, a, axis: float(g)   # Numba's np.cumsum of a number is that number
    if is_array(g) and is_scalar(a):
        return lambda g, a, axis: float(np.sum(g))   # g has one element
    if is_array(g) and is_array(a) and is_none(axis):
        return lambda g, a, axis: _reverse_cumsum(flat64(g)).reshape(a.shape)
    if is_array(g) and is_int(axis) and g.ndim > 0:
        def along(g, a, axis):
            # g seen as (before, n, after) around the axis, summed from the end along n
            ax = norm_axis(axis, g.ndim)
            before = 1
            for k in range(ax):
                before *= g.shape[k]
            n = g.shape[ax]
            out = flat64(g).reshape((before, n, g.size // (before * n) if before * n else 0))
            for j in range(n - 2, -1, -1):
                out[:, j, :] += out[:, j + 1, :]
            return out.reshape(g.shape)
        return along
    return python_only(_cumsum_grad)


def _cumsum_grad(g, a, axis):
    g = np.asarray(g, dtype=np.float64)
    if axis is None:
        out = _reverse_cumsum(g.reshape(-1))
        return float(out[0]) if is_number(a) else out.reshape(np.shape(a))
    if is_number(a):
        return float(g[0])
    ax = axes_of(axis, g.ndim)[0]
    return np.ascontiguousarray(np.flip(np.cumsum(np.flip(g, ax), axis=ax), ax))


@by_type
def cumprod_grad(g, a, axis):
    """Gradient w.r.t. a of z = np.cumprod(a, axis), exact with zeros: for z_i = a_0 ... a_i,
    dL/da_j = (a_0 ... a_{j-1}) * s_j with s_j = g_j + a_{j+1} s_{j+1} (a backward scan)."""
    if is_array(a) and is_array(g) and is_none(axis):
        def impl(g, a, axis):
            x = flat64(a)
            s = flat64(g)
            for j in range(x.size - 2, -1, -1):
                s[j] = s[j] + x[j + 1] * s[j + 1]
            before = np.ones(x.size)
            before[1:] = np.cumprod(x[:-1])
            return (before * s).reshape(a.shape)
        return impl
    return python_only(_cumprod_grad)


def _cumprod_grad(g, a, axis):
    a = np.asarray(a, dtype=np.float64)
    g = np.asarray(g, dtype=np.float64)
    scalar = a.ndim == 0
    if axis is None:
        x, g = a.reshape(-1), g.reshape(-1)
        ax = 0
    else:
        x = a
        ax = axes_of(axis, a.ndim)[0]
    x, g = np.moveaxis(x, ax, -1), np.moveaxis(g, ax, -1)
    n = x.shape[-1]
    s = np.empty_like(g)
    s[..., n - 1] = g[..., n - 1]
    for j in range(n - 2, -1, -1):
        s[..., j] = g[..., j] + x[..., j + 1] * s[..., j + 1]
    before = np.ones_like(x)
    before[..., 1:] = np.cumprod(x[..., :-1], axis=-1)
    out = np.moveaxis(before * s, -1, ax)
    if scalar:
        return float(out[0])
    return np.ascontiguousarray(out).reshape(a.shape)


# ---- average, NaN-aware reductions, median ----------------------------------------------------

def spread_weights(a, axis, weights):
    """The weights of np.average(a, axis, weights) broadcast to a's shape (1-D weights lie
    along axis)."""
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != np.shape(a):
        shape = [1] * np.ndim(a)
        shape[axes_of(axis, np.ndim(a))[0]] = w.size
        w = w.reshape(shape)
    return np.broadcast_to(w, np.shape(a))


def _average_parts(g, z, returned):
    """(adjoint of the average, adjoint of the sum of weights, the average) from a result that
    is a tuple (average, sum of weights) when `returned`."""
    if returned:
        return g[0], g[1], z[0]
    return g, None, z


@by_type
def average_grad_a(g, a, z, axis=None, weights=None, returned=False):
    """Gradient w.r.t. a of z = np.average(a, axis, weights, returned): g w / sum(w) (g / n
    without weights)."""
    if is_scalar(a) and is_none(weights) and is_none(axis) and is_value(g):
        return lambda g, a, z, axis=None, weights=None, returned=False: value(g)
    if whole(a, g, axis) and is_none(weights):
        return lambda g, a, z, axis=None, weights=None, returned=False: \
            filled(a.shape, value(g) / a.size)
    if whole(a, g, axis) and is_array(weights):
        return lambda g, a, z, axis=None, weights=None, returned=False: \
            (flat64(weights) * (value(g) / np.sum(weights))).reshape(a.shape)
    return python_only(_average_grad_a)


def _average_grad_a(g, a, z, axis=None, weights=None, returned=False):
    g, _, _ = _average_parts(g, z, returned)
    if weights is None:
        return core.unreduce(g, a, axis) / core.reduced_size(a, axis)
    w = spread_weights(a, axis, weights)
    total = np.sum(w, axis=axes_of(axis, w.ndim), keepdims=True)
    return core.unreduce(g, a, axis) * w / total


@by_type
def average_grad_weights(g, a, z, axis=None, weights=None, returned=False):
    """Gradient w.r.t. weights of z = np.average(a, axis, weights, returned):
    g (a - z) / sum(w), plus the adjoint of the returned sum of weights; summed back to the
    weights' shape."""
    if whole(a, g, axis) and is_array(weights):
        return lambda g, a, z, axis=None, weights=None, returned=False: \
            ((flat64(a) - z) * (value(g) / np.sum(weights))).reshape(weights.shape)
    return python_only(_average_grad_weights)


def _average_grad_weights(g, a, z, axis=None, weights=None, returned=False):
    g, g_total, z = _average_parts(g, z, returned)
    w = spread_weights(a, axis, weights)
    a = np.asarray(a, dtype=np.float64)
    total = np.sum(w, axis=axes_of(axis, w.ndim), keepdims=True)
    full = core.unreduce(g, a, axis) * (a - np.reshape(z, total.shape)) / total
    if g_total is not None:
        # The sum of weights is broadcast to the average's shape: each element adds once.
        full = full + core.unreduce(g_total, a, axis)
    if np.shape(weights) == a.shape:
        return full
    along = axes_of(axis, a.ndim)[0]
    return np.sum(full, axis=tuple(k for k in range(a.ndim) if k != along))


@by_type
def nansum_grad(g, a, axis):
    """Gradient w.r.t. a of z = np.nansum(a, axis): g on the non-NaN elements, 0 on NaNs."""
    if is_scalar(a) and is_value(g):
        return lambda g, a, axis: 0.0 if np.isnan(a) else value(g)
    if whole(a, g, axis):
        return lambda g, a, axis: \
            ((1.0 - np.isnan(flat64(a))) * value(g)).reshape(a.shape)
    return python_only(_nansum_grad)


def _nansum_grad(g, a, axis):
    if is_number(a):
        return 0.0 if np.isnan(a) else float(g)
    return np.where(np.isnan(a), 0.0, core.unreduce(g, a, axis))


@by_type
def nanmean_grad(g, a, axis):
    """Gradient w.r.t. a of z = np.nanmean(a, axis): g / (count of non-NaN) on the non-NaN
    elements, 0 on NaNs."""
    if is_scalar(a) and is_value(g):
        return lambda g, a, axis: 0.0 if np.isnan(a) else value(g)
    if whole(a, g, axis):
        return lambda g, a, axis: (shares(~np.isnan(flat64(a))) * value(g)).reshape(a.shape)
    return python_only(_nanmean_grad)


def _nanmean_grad(g, a, axis):
    if is_number(a):
        return 0.0 if np.isnan(a) else float(g)
    valid = ~np.isnan(a)
    count = np.sum(valid, axis=axes_of(axis, a.ndim), keepdims=True)
    return np.where(valid, core.unreduce(g, a, axis) / np.maximum(count, 1), 0.0)


@by_type
def median_grad(g, a, axis):
    """Gradient w.r.t. a of z = np.median(a, axis): g on the middle element of each sorted
    reduction, or g / 2 on each of the two middle ones when their number is even."""
    if is_scalar(a) and is_value(g):
        return lambda g, a, axis: value(g)
    if whole(a, g, axis):
        def impl(g, a, axis):
            flat = flat64(a)
            n = flat.size
            middle = np.argsort(flat, kind="mergesort")[(n - 1) // 2:n // 2 + 1]  # 1 or 2
            share = np.zeros(n)
            share[middle] = value(g) / middle.size
            return share.reshape(a.shape)
        return impl
    return python_only(_median_grad)


def _median_grad(g, a, axis):
    if is_number(a):
        return float(g)
    a = np.asarray(a, dtype=np.float64)
    flat, undo = to_last(a, axes_of(axis, a.ndim))
    n = flat.shape[-1]
    order = np.argsort(flat, axis=-1, kind="stable")
    share = np.zeros(flat.shape)
    middle = order[..., (n - 1) // 2:n // 2 + 1]   # one index (n odd) or two (n even)
    np.put_along_axis(share, middle, 1.0 / middle.shape[-1], axis=-1)
    return core.unreduce(g, a, axis) * from_last(share, undo)
