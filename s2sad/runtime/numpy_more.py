"""Runtime helpers for the derivative templates of templates/numpy_more.py: differences (diff,
gradient), signals (convolve, correlate), shapes (rot90, insert, linspace, unstack,
cumulative_sum, vecdot, matvec), and math.fsum / math.prod; statistics.py has the rest.

Each is defined once (dispatch.py). The helpers of functions Numba compiles are written for
the argument forms Numba compiles (one axis, scalar bounds, 1-D signals); other forms are
`python_only`, as the primal itself then is.
"""
import math

import numpy as np

from . import core, shape
from .dispatch import by_type, is_array, is_none, is_scalar, is_tuple, jitable, python_only

__all__ = ["diff", "diff_grad", "convolve_grad_a", "convolve_grad_v", "correlate_grad_a",
           "correlate_grad_v", "gradient", "gradient_grad", "rot90", "insert_grad_arr",
           "insert_grad_values", "linspace", "linspace_grad_start", "linspace_grad_stop",
           "vecdot_grad", "matvec_grad_a", "matvec_grad_b", "unstack_grad", "cumulative_sum_grad",
           "fsum_grad", "prod_items_grad", "prod_items_tangent", "prod_items_tangent_grad",
           "prod_items_tangent2"]


# ---- differences ----------------------------------------------------------------------------

@jitable
def _diff_once(a, axis):
    b = np.swapaxes(a, axis, -1)
    return np.swapaxes(b[..., 1:] - b[..., :-1], axis, -1)


@jitable
def _diff_once_grad(g, axis):
    b = np.swapaxes(g, axis, -1)
    shape = b.shape[:-1] + (b.shape[-1] + 1,)
    out = np.zeros(shape)
    out[..., 1:] += b
    out[..., :-1] -= b
    return np.swapaxes(out, axis, -1)


@jitable
def diff(a, n=1, axis=-1):
    """numpy.diff(a, n, axis), in the form Numba compiles for any axis."""
    out = np.asarray(a) * 1.0
    for _ in range(n):
        out = _diff_once(out, axis)
    return np.ascontiguousarray(out)


@jitable
def diff_grad(g, a, n=1, axis=-1):
    """Gradient w.r.t. a of numpy.diff(a, n, axis): n times the adjoint of one difference,
    out[i] = g[i - 1] - g[i] (each missing end zero)."""
    out = np.asarray(g) * 1.0
    for _ in range(n):
        out = _diff_once_grad(out, axis)
    return np.ascontiguousarray(out)


# ---- convolve and correlate (1-D) -------------------------------------------------------------

@jitable
def _full_from(g, n, m, mode):
    """The adjoint of the full convolution (length n + m - 1) that mode `mode` cut g from."""
    full = np.zeros(n + m - 1)
    if mode == "valid":
        start = min(n, m) - 1
    elif mode == "same":
        start = (min(n, m) - 1) // 2
    else:
        start = 0
    full[start:start + g.shape[0]] = g
    return full


@jitable
def convolve_grad_a(g, a, v, mode="full"):
    """Gradient w.r.t. a of numpy.convolve(a, v, mode): the full-length adjoint correlated
    with v (z[k] = sum over i of a[i] v[k - i])."""
    full = _full_from(np.asarray(g) * 1.0, a.shape[0], v.shape[0], mode)
    return np.correlate(full, v * 1.0, "valid")


@jitable
def convolve_grad_v(g, a, v, mode="full"):
    """Gradient w.r.t. v of numpy.convolve(a, v, mode)."""
    full = _full_from(np.asarray(g) * 1.0, a.shape[0], v.shape[0], mode)
    return np.correlate(full, a * 1.0, "valid")


@jitable
def _correlate_full_from(g, n, m, mode):
    """correlate(a, v, mode) is convolve(a, v[::-1], mode) cut alike, except that NumPy's 'valid'
    and 'same' of a v longer than a are reversed; the full-length adjoint of either."""
    if m > n and mode != "full":
        return _full_from(np.asarray(g)[::-1] * 1.0, n, m, mode)[::-1].copy()
    return _full_from(np.asarray(g) * 1.0, n, m, mode)


@jitable
def correlate_grad_a(g, a, v, mode="valid"):
    """Gradient w.r.t. a of numpy.correlate(a, v, mode) (real a, v)."""
    full = _correlate_full_from(g, a.shape[0], v.shape[0], mode)
    return np.correlate(full, v[::-1] * 1.0, "valid")


@jitable
def correlate_grad_v(g, a, v, mode="valid"):
    """Gradient w.r.t. v of numpy.correlate(a, v, mode) (real a, v)."""
    full = _correlate_full_from(g, a.shape[0], v.shape[0], mode)
    return np.correlate(full, a * 1.0, "valid")[::-1].copy()


# ---- gradient ---------------------------------------------------------------------------------

def gradient(f, varargs=(), axis=None, edge_order=1):
    """numpy.gradient(f, *varargs, axis=axis, edge_order=edge_order)."""
    return np.gradient(f, *varargs, axis=axis, edge_order=edge_order)


def gradient_grad(g, f, varargs=(), axis=None, edge_order=1):
    """Gradient w.r.t. f of numpy.gradient(f, *varargs, axis, edge_order), a linear map along
    each axis: the transpose of the difference matrix numpy.gradient applies there (read off
    numpy.gradient of the identity)."""
    f = np.asarray(f, dtype=np.float64)
    axes = tuple(range(f.ndim)) if axis is None else \
        tuple(np.atleast_1d(axis) % max(f.ndim, 1))
    parts = [g] if len(axes) == 1 and not isinstance(g, (tuple, list)) else list(g)
    spacings = list(varargs)
    if len(spacings) == 1 and len(axes) > 1:
        spacings = spacings * len(axes)
    out = np.zeros(f.shape)
    for k, ax in enumerate(axes):
        n = f.shape[ax]
        step = (spacings[k],) if spacings else ()
        matrix = np.gradient(np.eye(n), *step, axis=0, edge_order=edge_order)
        part = np.zeros(f.shape) if np.ndim(parts[k]) == 0 and parts[k] == 0 else \
            np.broadcast_to(parts[k], f.shape)
        out += np.moveaxis(np.tensordot(matrix.T, np.moveaxis(part, ax, 0), 1), 0, ax)
    return out


# ---- rot90, insert, linspace ------------------------------------------------------------------

@by_type
def rot90(m, k=1, axes=(0, 1)):
    """numpy.rot90(m, k, axes), compiled for the first two axes (either order)."""
    if is_array(m) and m.ndim >= 2:
        def first_two(m, k=1, axes=(0, 1)):
            a0, a1 = axes[0] % m.ndim, axes[1] % m.ndim
            if a0 == 0 and a1 == 1:
                return np.ascontiguousarray(np.rot90(m, k))
            if a0 == 1 and a1 == 0:
                return np.ascontiguousarray(np.rot90(m, -k))
            raise NotImplementedError("s2sad: rot90 with these axes runs as Python only")
        return python_only(lambda m, k=1, axes=(0, 1): np.rot90(m, k, axes)) \
            if m.ndim > 2 else first_two
    return python_only(lambda m, k=1, axes=(0, 1): np.rot90(m, k, axes))


def _insert_labels(arr, obj, values, axis, of_values):
    """numpy.insert of labels 1, 2, ... (of arr's or values' elements) and zeros: where each
    element of the result came from."""
    arr = np.asarray(arr)
    values = np.asarray(values)
    if of_values:
        labels_arr = np.zeros(arr.shape)
        labels_values = np.arange(1.0, values.size + 1).reshape(values.shape)
    else:
        labels_arr = np.arange(1.0, arr.size + 1).reshape(arr.shape)
        labels_values = np.zeros(values.shape)
    return np.insert(labels_arr, obj, labels_values, axis).astype(np.int64)


def _gather_labels(g, labels, size, shape):
    out = np.zeros(size + 1)
    np.add.at(out, labels.ravel(), np.broadcast_to(g, labels.shape).ravel())
    return out[1:].reshape(shape)


def insert_grad_arr(g, arr, obj, values, axis=None):
    """Gradient w.r.t. arr of numpy.insert(arr, obj, values, axis): the adjoint without the
    inserted elements, in arr's shape."""
    labels = _insert_labels(arr, obj, values, axis, False)
    return shape.reshape_like(_gather_labels(g, labels, np.size(arr), np.shape(arr)), arr)


def insert_grad_values(g, arr, obj, values, axis=None):
    """Gradient w.r.t. values of numpy.insert(arr, obj, values, axis): the inserted elements'
    adjoints, summed where values was broadcast."""
    labels = _insert_labels(arr, obj, values, axis, True)
    out = _gather_labels(g, labels, np.size(values), np.shape(values))
    return float(out) if np.ndim(values) == 0 and not isinstance(values, np.ndarray) else out


@jitable
def _linspace_scalar(start, stop, num, endpoint):
    div = num - 1 if endpoint else num
    steps = np.arange(num) * 1.0
    if div > 0:
        steps = steps / div
    return start + (stop - start) * steps


@by_type
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """numpy.linspace(start, stop, num, endpoint, retstep, dtype, axis), compiled for scalar
    bounds without retstep."""
    if is_scalar(start) and is_scalar(stop) and not is_tuple(retstep) and \
            (is_none(retstep) or getattr(retstep, "value", getattr(retstep, "literal_value",
                                                                   None)) is False):
        return lambda start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0: \
            _linspace_scalar(start, stop, num, endpoint)
    return python_only(lambda start, stop, num=50, endpoint=True, retstep=False, dtype=None,
                       axis=0: np.linspace(start, stop, num, endpoint, retstep, dtype, axis))


def _linspace_weights(num, endpoint):
    div = num - 1 if endpoint else num
    return np.arange(num) / div if div > 0 else np.zeros(num)


def _linspace_grad(g, start, stop, num, endpoint, retstep, axis, of_stop):
    step_g = 0.0
    if retstep:
        g, step_g = g
    w = _linspace_weights(num, endpoint)
    ndim = np.ndim(np.broadcast(np.asarray(start), np.asarray(stop)))
    gm = np.moveaxis(np.broadcast_to(g, np.shape(g)), axis % (ndim + 1), 0) \
        if np.ndim(g) else np.zeros((num,))
    weights = w if of_stop else 1.0 - w
    out = np.tensordot(weights, gm, 1)
    div = (num - 1 if endpoint else num)
    if retstep and div > 0:
        out = out + (1.0 if of_stop else -1.0) * np.asarray(step_g) / div
    return core.unbroadcast(out, stop if of_stop else start)


def linspace_grad_start(g, start, stop, num=50, endpoint=True, retstep=False, axis=0):
    """Gradient w.r.t. start of numpy.linspace: sample k is start + (stop - start) w[k], with
    w[k] = k / (num - 1) (k / num without the endpoint)."""
    return _linspace_grad(g, start, stop, num, endpoint, retstep, axis, False)


def linspace_grad_stop(g, start, stop, num=50, endpoint=True, retstep=False, axis=0):
    """Gradient w.r.t. stop of numpy.linspace."""
    return _linspace_grad(g, start, stop, num, endpoint, retstep, axis, True)


# ---- the array-API spellings of NumPy 2 -------------------------------------------------------

def vecdot_grad(g, other, like, axis=-1):
    """Gradient w.r.t. one argument (`like`) of numpy.vecdot(x1, x2, axis=axis), `other` the
    other argument: the adjoint spread along the contracted axis times the other, summed back
    to like's shape."""
    return core.unbroadcast(np.expand_dims(np.asarray(g, dtype=np.float64), axis) * other, like)


def matvec_grad_a(g, a, b):
    """Gradient w.r.t. a (..., m, n) of numpy.matvec(a, b): g[..., :, None] b[..., None, :]."""
    g = np.asarray(g, dtype=np.float64)
    return core.unbroadcast(g[..., :, None] * np.asarray(b)[..., None, :], a)


def matvec_grad_b(g, a, b):
    """Gradient w.r.t. b (..., n) of numpy.matvec(a, b): the sum over i of a[..., i, :] g[i]."""
    g = np.asarray(g, dtype=np.float64)
    return core.unbroadcast(np.sum(np.asarray(a) * g[..., :, None], axis=-2), b)


def unstack_grad(g, x, axis=0):
    """Gradient w.r.t. x of numpy.unstack(x, axis=axis): the pieces' adjoints stacked (an
    unused piece's adjoint may be 0.0)."""
    x = np.asarray(x)
    shape = np.delete(np.array(x.shape), axis % x.ndim)
    return np.stack([np.broadcast_to(piece, tuple(shape)) for piece in g], axis=axis) * 1.0


def cumulative_sum_grad(g, x, axis=None, include_initial=False):
    """Gradient w.r.t. x of numpy.cumulative_sum(x, axis=axis, include_initial=...): the
    adjoint summed from the end (the initial zero's adjoint dropped)."""
    g = np.asarray(g, dtype=np.float64)
    axis = 0 if axis is None else axis
    if include_initial:
        g = np.delete(g, 0, axis=axis)
    return np.flip(np.cumsum(np.flip(g, axis), axis=axis), axis) * 1.0


# ---- math.fsum and math.prod ------------------------------------------------------------------

def fsum_grad(g, iterable):
    """Gradient w.r.t. the elements of math.fsum(iterable): g for each (an array's gradient
    is an array)."""
    if isinstance(iterable, np.ndarray):
        return np.full(iterable.shape, float(g))
    return tuple(float(g) for _ in iterable)


def _leave_one_out(values):
    """For each i, the product of the other values (exact with zeros)."""
    n = len(values)
    before = np.ones(n)
    after = np.ones(n)
    for i in range(1, n):
        before[i] = before[i - 1] * values[i - 1]
        after[n - 1 - i] = after[n - i] * values[n - i]
    return before * after


def _as_items(values, like):
    if isinstance(like, np.ndarray):
        return np.asarray(values, dtype=np.float64).reshape(like.shape)
    return tuple(float(v) for v in values)


def prod_items_grad(g, iterable, start=1):
    """Gradient w.r.t. the elements of math.prod(iterable, start=start): g times start times
    the product of the others."""
    values = np.asarray(list(np.ravel(iterable)) if isinstance(iterable, np.ndarray)
                        else list(iterable), dtype=np.float64)
    return _as_items(float(g) * start * _leave_one_out(values), iterable)


def prod_items_tangent(tangents, iterable, start=1):
    """Tangent of math.prod(iterable, start=start) along the elements' tangents."""
    t = np.ravel(np.asarray(tangents, dtype=np.float64)) if isinstance(tangents, np.ndarray) \
        else np.array([float(v) for v in tangents])
    values = np.ravel(np.asarray(iterable, dtype=np.float64)) if \
        isinstance(iterable, np.ndarray) else np.array([float(v) for v in iterable])
    return float(start * np.sum(t * _leave_one_out(values)))


def _pair_products(values):
    """P[i, k]: the product of the values other than i and k (0 on the diagonal)."""
    n = len(values)
    out = np.zeros((n, n))
    for i in range(n):
        for k in range(n):
            if i != k:
                out[i, k] = math.prod(values[m] for m in range(n) if m not in (i, k))
    return out


def prod_items_tangent_grad(g, tangents, iterable, start=1):
    """Gradient w.r.t. the elements of prod_items_tangent(tangents, iterable, start)."""
    t = np.ravel(np.asarray(tangents, dtype=np.float64)) if isinstance(tangents, np.ndarray) \
        else np.array([float(v) for v in tangents])
    values = np.ravel(np.asarray(iterable, dtype=np.float64)) if \
        isinstance(iterable, np.ndarray) else np.array([float(v) for v in iterable])
    return _as_items(float(g) * start * (t @ _pair_products(values)), iterable)


def prod_items_tangent2(tangents, directions, iterable, start=1):
    """Derivative of prod_items_tangent(tangents, iterable, start) along directions for the
    elements."""
    t = np.ravel(np.asarray(tangents, dtype=np.float64)) if isinstance(tangents, np.ndarray) \
        else np.array([float(v) for v in tangents])
    s = np.ravel(np.asarray(directions, dtype=np.float64)) if \
        isinstance(directions, np.ndarray) else np.array([float(v) for v in directions])
    values = np.ravel(np.asarray(iterable, dtype=np.float64)) if \
        isinstance(iterable, np.ndarray) else np.array([float(v) for v in iterable])
    return float(start * (t @ _pair_products(values) @ s))
