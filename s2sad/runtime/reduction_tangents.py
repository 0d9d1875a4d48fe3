"""Runtime helpers for the tangents (forward mode) of reductions and scans
(templates/numpy_reductions.py), and their own derivatives, for second derivatives
(templates/runtime.py).

A reduction's tangent is np.sum(t * w, axis) with w the per-element derivative of the result;
where w only picks elements (max, ptp, median), the "mask" helpers give it and are declared
without derivative (they are locally constant). The others are tangent helpers, linear in t.

Each is defined once (dispatch.py), compiled by Numba in the forms the primals compile in (the
whole array, no `keepdims`), as in reductions.py. The second-order helpers at the end are plain
Python: no gradient that calls them compiles (their rules say numba=False).
"""
import numpy as np

from . import core
from .core import axes_of, is_number, kept_shape
from .dispatch import by_type, constant, is_array, is_int, is_none, is_scalar, is_tuple, \
    jitable, python_only
from .norms import norm_axes, norm_grad, safe_divide
from .reductions import (exclusive_products, extremum_grad, flat64, from_last, is_value,
                         median_grad, prod_grad, prod_grad_along, ptp_grad, spread_weights,
                         to_last, value, whole)

__all__ = ["extremum_mask", "ptp_mask", "median_mask", "prod_tangent", "cumprod_tangent",
           "norm_tangent", "average_tangent", "prod_tangent_grad", "prod_tangent2",
           "cumprod_tangent_grad", "cumprod_tangent2", "norm_tangent_grad_x",
           "norm_tangent_grad_z", "norm_tangent2", "average_tangent_grad_a",
           "average_tangent_grad_weights", "average_tangent_grad_z", "average_tangent2"]


def _ones_kept(a, axis):
    return np.ones(kept_shape(np.shape(a), axis))


def _is_false(t):
    """Whether the Numba type t is the constant False (a literal, or an omitted default)."""
    return constant(t) is False


@by_type
def extremum_mask(a, z, axis):
    """Which elements of a the result of np.max(a, axis) (min, nanmax, nanmin) z takes, as
    1.0 (split evenly among ties) or 0.0: the tangent of z is the sum of the tangent times
    this. Locally constant."""
    if is_scalar(a):
        return lambda a, z, axis: 1.0
    if whole(a, z, axis):
        return lambda a, z, axis: extremum_grad(1.0, a, z, axis)
    if is_array(a) and (is_int(axis) or is_tuple(axis) and all(map(is_int, axis))) and \
            (is_array(z) or a.ndim == 1 and is_scalar(z)):   # (reduction_axes.py)
        return lambda a, z, axis: extremum_grad(np.ones(np.shape(z)), a, z, axis)
    return python_only(lambda a, z, axis: extremum_grad(np.ones(np.shape(z)), a, z, axis))


@by_type
def ptp_mask(a, axis):
    """+-1.0 on the elements np.ptp(a, axis) takes (max - min, ties split evenly), 0 elsewhere.
    Locally constant."""
    if is_scalar(a):
        return lambda a, axis: 0.0
    if is_array(a) and is_none(axis):
        return lambda a, axis: ptp_grad(1.0, a, axis)
    return python_only(lambda a, axis: ptp_grad(_ones_kept(a, axis), a, axis))


@by_type
def median_mask(a, axis):
    """1.0 (0.5 each when two) on the middle elements np.median(a, axis) takes, 0 elsewhere.
    Locally constant."""
    if is_scalar(a):
        return lambda a, axis: 1.0
    if is_array(a) and is_none(axis):
        return lambda a, axis: median_grad(1.0, a, axis)
    return python_only(lambda a, axis: median_grad(_ones_kept(a, axis), a, axis))


@by_type(prefer_literal=True)
def prod_tangent(t, a, axis, keepdims=False):
    """Tangent of z = np.prod(a, axis, keepdims): the sum over each reduction of t times the
    product of the other elements (exact with zeros)."""
    if is_scalar(a) and is_value(t):
        return lambda t, a, axis, keepdims=False: value(t)
    if is_array(a) and is_array(t) and is_none(axis) and _is_false(keepdims):
        return lambda t, a, axis, keepdims=False: \
            float(np.sum(flat64(t) * exclusive_products(flat64(a))))
    if is_array(a, 2) and is_array(t, 2) and is_int(axis) and _is_false(keepdims):
        return _prod_tangent_along
    return python_only(_prod_tangent)


@jitable
def _prod_tangent_along(t, a, axis, keepdims=False):
    """prod_tangent of a matrix along one axis, as _prod_tangent computes it."""
    ax = axis + 2 if axis < 0 else axis
    ones = np.ones(a.shape[0] if ax == 1 else a.shape[1])
    return np.sum(t * prod_grad_along(ones, a, axis), axis=ax)


def _prod_tangent(t, a, axis, keepdims=False):
    if is_number(a):
        return float(t)
    return core.reduce_sum(t * prod_grad(_ones_kept(a, axis), a, axis), axis, keepdims)


@by_type
def cumprod_tangent(t, a, axis):
    """Tangent of z = np.cumprod(a, axis), exact with zeros: the forward scan
    dz_i = dz_{i-1} a_i + z_{i-1} t_i (axis None: a and t flattened)."""
    if is_array(a) and is_array(t) and is_none(axis):
        def impl(t, a, axis):
            x, dx = flat64(a), flat64(t)
            out = np.empty(x.size)
            z = 1.0
            dz = 0.0
            for j in range(x.size):
                dz = dz * x[j] + z * dx[j]
                z = z * x[j]
                out[j] = dz
            return out
        return impl
    return python_only(_cumprod_tangent)


def _cumprod_tangent(t, a, axis):
    a = np.asarray(a, dtype=np.float64)
    t = np.asarray(t, dtype=np.float64)
    if a.ndim == 0:
        return np.reshape(t, (1,)).copy()
    if axis is None:
        x, t, ax = a.reshape(-1), t.reshape(-1), 0
    else:
        x, ax = a, axes_of(axis, a.ndim)[0]
    x, t = np.moveaxis(x, ax, -1), np.moveaxis(t, ax, -1)
    z = np.cumprod(x, axis=-1)
    out = np.empty(x.shape)
    out[..., 0] = t[..., 0]
    for j in range(1, x.shape[-1]):
        out[..., j] = out[..., j - 1] * x[..., j] + z[..., j - 1] * t[..., j]
    return np.ascontiguousarray(np.moveaxis(out, -1, ax))


@by_type(prefer_literal=True)
def norm_tangent(t, x, z, ord=None, axis=None, keepdims=False):
    """Tangent of z = np.linalg.norm(x, ord, axis, keepdims): the sum over each norm of t times
    the derivative norm_grad gives (the top singular vectors for ord 2, ...)."""
    if is_array(x) and is_none(axis) and _is_false(keepdims):
        return lambda t, x, z, ord=None, axis=None, keepdims=False: \
            float(np.sum(t * norm_grad(1.0, x, z, ord, axis, keepdims)))
    return python_only(_norm_tangent)


def _norm_tangent(t, x, z, ord=None, axis=None, keepdims=False):
    if is_number(x):
        return float(t) * float(np.sign(x))
    axes, _ = norm_axes(np.asarray(x), ord, axis)
    weights = norm_grad(np.ones(np.shape(z)), x, z, ord, axis, keepdims)
    return core.reduce_sum(t * weights, axes, keepdims)


@by_type(prefer_literal=True)
def average_tangent(ta, tw, a, weights, z, axis=None, returned=False, keepdims=False):
    """Tangent of z = np.average(a, axis, weights, returned, keepdims=keepdims), from the
    tangents ta of a and tw of weights (tw 0 when the weights are None or constant):
    (sum(ta w) + sum((a - avg) tw)) / sum(w), and sum(tw) for the returned sum of weights."""
    if is_none(axis) and _is_false(returned) and _is_false(keepdims):
        if is_scalar(a) and is_none(weights) and is_value(ta):
            return lambda ta, tw, a, weights, z, axis=None, returned=False, keepdims=False: \
                value(ta)
        if is_array(a) and is_none(weights):
            return lambda ta, tw, a, weights, z, axis=None, returned=False, keepdims=False: \
                float(np.sum(ta)) / a.size
        if is_array(a) and is_array(weights):
            return lambda ta, tw, a, weights, z, axis=None, returned=False, keepdims=False: \
                float(np.sum(ta * weights) + np.sum((a - z) * tw)) / float(np.sum(weights))
    return python_only(_average_tangent)


def _average_tangent(ta, tw, a, weights, z, axis=None, returned=False, keepdims=False):
    avg = z[0] if returned else z
    if weights is None:
        out = core.reduce_sum(ta, axis, keepdims) / core.reduced_size(a, axis)
        return (out, np.zeros(np.shape(avg)) if np.ndim(avg) else 0.0) if returned else out
    w = spread_weights(a, axis, weights)
    tws = spread_weights(a, axis, tw) if np.ndim(tw) else float(tw)
    axes = axes_of(axis, np.ndim(a))
    a = np.asarray(a, dtype=np.float64)
    kept = np.reshape(avg, kept_shape(a.shape, axes))
    out = np.sum(ta * w + (a - kept) * tws, axis=axes, keepdims=keepdims) / \
        np.sum(w, axis=axes, keepdims=keepdims)
    out = float(out) if np.ndim(out) == 0 and not keepdims else out
    if not returned:
        return out
    total = np.sum(tws, axis=axes, keepdims=keepdims) + np.zeros(np.shape(out))
    return out, float(total) if np.ndim(total) == 0 and not keepdims else total


# ---- second order: the derivatives of the tangent helpers w.r.t. the primal's arguments (for
# second derivatives, which differentiate forward-mode code in reverse or forward mode again).
# Python only. -----------------------------------------------------------------------------------

def _scan_last(x, axis):
    """x as float64 with the scanned axis last (axis None: flattened), and how to undo it."""
    x = np.asarray(x, dtype=np.float64)
    if axis is None:
        return x.reshape(-1), None
    ax = axes_of(axis, x.ndim)[0]
    return np.moveaxis(x, ax, -1), ax


def _scan_back(y, a, ax):
    if ax is None:
        return y.reshape(np.shape(a))
    return np.ascontiguousarray(np.moveaxis(y, -1, ax))


def _exclusive_tangents(s, a, axes):
    """For each element of a, the derivative along s of the product of the other elements of
    its reduction over `axes` (exact with zeros: prefix and suffix scans)."""
    flat, undo = to_last(np.asarray(a, dtype=np.float64), axes)
    ds, _ = to_last(np.broadcast_to(np.asarray(s, dtype=np.float64), np.shape(a)), axes)
    n = flat.shape[-1]
    left, dleft = np.ones(flat.shape), np.zeros(flat.shape)
    right, dright = np.ones(flat.shape), np.zeros(flat.shape)
    for i in range(1, n):
        left[..., i] = left[..., i - 1] * flat[..., i - 1]
        dleft[..., i] = dleft[..., i - 1] * flat[..., i - 1] + left[..., i - 1] * ds[..., i - 1]
    for i in range(n - 2, -1, -1):
        right[..., i] = right[..., i + 1] * flat[..., i + 1]
        dright[..., i] = dright[..., i + 1] * flat[..., i + 1] + right[..., i + 1] * ds[..., i + 1]
    return from_last(dleft * right + left * dright, undo)


def prod_tangent_grad(g, t, a, axis):
    """Gradient w.r.t. a of prod_tangent(t, a, axis, keepdims), given its adjoint g."""
    if is_number(a):
        return 0.0
    return core.unreduce(g, a, axis) * _exclusive_tangents(t, a, axes_of(axis, np.ndim(a)))


def prod_tangent2(t, s, a, axis, keepdims=False):
    """Derivative of prod_tangent(t, a, axis, keepdims) along s (a direction for a)."""
    if is_number(a):
        return 0.0
    return core.reduce_sum(np.asarray(t) * _exclusive_tangents(s, a, axes_of(axis, np.ndim(a))),
                           axis, keepdims)


def cumprod_tangent_grad(g, t, a, axis):
    """Gradient w.r.t. a of cumprod_tangent(t, a, axis), given its adjoint g: for element m,
    dL_m S_m + L_m D_m with L the exclusive prefix products (dL along t),
    S_m = g_m + a_{m+1} S_{m+1} and D_m = t_{m+1} S_{m+1} + a_{m+1} D_{m+1}."""
    x, ax = _scan_last(a, axis)
    dx, _ = _scan_last(np.broadcast_to(np.asarray(t, dtype=np.float64), np.shape(a)), axis)
    g, _ = _scan_last(g, None if axis is None else axis)
    n = x.shape[-1]
    left, dleft = np.ones(x.shape), np.zeros(x.shape)
    for i in range(1, n):
        left[..., i] = left[..., i - 1] * x[..., i - 1]
        dleft[..., i] = dleft[..., i - 1] * x[..., i - 1] + left[..., i - 1] * dx[..., i - 1]
    big_s, big_d = np.zeros(x.shape), np.zeros(x.shape)
    big_s[..., n - 1] = g[..., n - 1]
    for m in range(n - 2, -1, -1):
        big_s[..., m] = g[..., m] + x[..., m + 1] * big_s[..., m + 1]
        big_d[..., m] = dx[..., m + 1] * big_s[..., m + 1] + x[..., m + 1] * big_d[..., m + 1]
    out = _scan_back(dleft * big_s + left * big_d, a, ax)
    return float(out.reshape(())) if np.ndim(a) == 0 else out


def cumprod_tangent2(t, s, a, axis):
    """Derivative of cumprod_tangent(t, a, axis) along s: the mixed coefficient of the scan
    z_j = z_{j-1} a_j over a + e1 t + e2 s."""
    x, ax = _scan_last(a, axis)
    dt, _ = _scan_last(np.broadcast_to(np.asarray(t, dtype=np.float64), np.shape(a)), axis)
    ds, _ = _scan_last(np.broadcast_to(np.asarray(s, dtype=np.float64), np.shape(a)), axis)
    z, zt, zs, zts = np.ones(x.shape[:-1]), np.zeros(x.shape[:-1]), np.zeros(x.shape[:-1]), \
        np.zeros(x.shape[:-1])
    out = np.empty(x.shape)
    for j in range(x.shape[-1]):
        zts = zts * x[..., j] + zt * ds[..., j] + zs * dt[..., j]
        zt, zs = zt * x[..., j] + z * dt[..., j], zs * x[..., j] + z * ds[..., j]
        z = z * x[..., j]
        out[..., j] = zts
    return out if ax is None else np.ascontiguousarray(np.moveaxis(out, -1, ax))


def _norm_partials(t, x, z, ord, axis, keepdims):
    """(d/dx, d/dz) of norm_tangent(t, x, z, ...) for a unit adjoint (x shaped, z kept
    shaped), with the kept axes' tangent T."""
    x = np.asarray(x, dtype=np.float64)
    axes, vector = norm_axes(x, ord, axis)
    zk = np.reshape(np.asarray(z, dtype=np.float64), kept_shape(x.shape, axes))
    t = np.broadcast_to(np.asarray(t, dtype=np.float64), x.shape)
    tk = np.reshape(norm_tangent(t, x, z, ord, axis, keepdims), zk.shape)
    if ord is None or (ord == 2 and vector) or (isinstance(ord, str) and ord in ("fro", "f")):
        return safe_divide(t, zk), -safe_divide(tk, zk)
    if vector and not np.isinf(ord) and ord not in (0, 1):
        scale = safe_divide(np.ones(zk.shape), zk) ** (ord - 1.0)
        return t * (ord - 1.0) * np.abs(x) ** (ord - 2.0) * scale, \
            (1.0 - ord) * safe_divide(tk, zk)
    if vector or ord in (1, -1, np.inf, -np.inf):
        return np.zeros(x.shape), np.zeros(zk.shape)   # locally constant weights
    raise NotImplementedError(f"second derivatives of numpy.linalg.norm with ord={ord!r} (a "
                              "spectral norm) are not implemented")


def norm_tangent_grad_x(g, t, x, z, ord=None, axis=None, keepdims=False):
    """Gradient w.r.t. x of norm_tangent(t, x, z, ord, axis, keepdims), z held fixed."""
    if is_number(x):
        return 0.0
    axes, _ = norm_axes(np.asarray(x), ord, axis)
    dx, _ = _norm_partials(t, x, z, ord, axis, keepdims)
    return np.reshape(g, kept_shape(np.shape(x), axes)) * dx


def norm_tangent_grad_z(g, t, x, z, ord=None, axis=None, keepdims=False):
    """Gradient w.r.t. z of norm_tangent(t, x, z, ord, axis, keepdims), x held fixed."""
    if is_number(x):
        return 0.0
    _, dz = _norm_partials(t, x, z, ord, axis, keepdims)
    out = np.reshape(g, dz.shape) * dz
    return float(out.reshape(())) if np.ndim(z) == 0 else np.reshape(out, np.shape(z))


def norm_tangent2(t, tx, tz, x, z, ord=None, axis=None, keepdims=False):
    """Derivative of norm_tangent(t, x, z, ...) along (tx, tz), directions for x and z."""
    if is_number(x):
        return 0.0
    axes, _ = norm_axes(np.asarray(x), ord, axis)
    dx, dz = _norm_partials(t, x, z, ord, axis, keepdims)
    out = core.reduce_sum(np.asarray(tx) * dx, axes, True) + \
        np.reshape(tz, dz.shape) * dz
    return float(out.reshape(())) if np.ndim(z) == 0 else np.reshape(out, np.shape(z))


def _average_second(ta, tw, a, weights, z, axis, returned, keepdims):
    if returned:
        raise NotImplementedError("second derivatives of numpy.average with returned=True are "
                                  "not implemented")
    if weights is None:
        return None
    w = spread_weights(a, axis, weights)
    tws = spread_weights(a, axis, tw) if np.ndim(tw) else np.zeros(np.shape(a))
    axes = axes_of(axis, np.ndim(a))
    total = np.sum(w, axis=axes, keepdims=True)
    tangent = np.reshape(average_tangent(ta, tw, a, weights, z, axis, False, keepdims),
                         total.shape)
    return w, tws, axes, total, tangent


def average_tangent_grad_a(g, ta, tw, a, weights, z, axis=None, returned=False, keepdims=False):
    """Gradient w.r.t. a of average_tangent(...), z held fixed: g tw / sum(w)."""
    parts = _average_second(ta, tw, a, weights, z, axis, returned, keepdims)
    if parts is None:
        return core.zeros_like(a)
    _, tws, axes, total, _ = parts
    return core.unreduce(g, a, axis) * tws / total


def average_tangent_grad_weights(g, ta, tw, a, weights, z, axis=None, returned=False,
                                 keepdims=False):
    """Gradient w.r.t. weights of average_tangent(...): g (ta - T) / sum(w), summed back to
    the weights' shape."""
    parts = _average_second(ta, tw, a, weights, z, axis, returned, keepdims)
    w, _, axes, total, tangent = parts
    full = core.unreduce(g, a, axis) * (np.broadcast_to(ta, np.shape(a)) - tangent) / total
    if np.shape(weights) == np.shape(a):
        return full
    along = axes_of(axis, np.ndim(a))[0]
    return np.sum(full, axis=tuple(k for k in range(np.ndim(a)) if k != along))


def average_tangent_grad_z(g, ta, tw, a, weights, z, axis=None, returned=False, keepdims=False):
    """Gradient w.r.t. z (the average) of average_tangent(...), a held fixed:
    -g sum(tw) / sum(w)."""
    parts = _average_second(ta, tw, a, weights, z, axis, returned, keepdims)
    if parts is None:
        return core.zeros_like(z)
    _, tws, axes, total, _ = parts
    out = -np.asarray(g) * np.reshape(np.sum(tws, axis=axes, keepdims=True) / total, np.shape(g))
    return float(out) if np.ndim(z) == 0 else np.reshape(out, np.shape(z))


def average_tangent2(ta, tw, a, weights, z, sa, sw, sz, axis=None, returned=False,
                     keepdims=False):
    """Derivative of average_tangent(ta, tw, a, weights, z, ...) along (sa, sw, sz),
    directions for a, weights and z."""
    parts = _average_second(ta, tw, a, weights, z, axis, returned, keepdims)
    if parts is None:
        return core.zeros_like(z)
    w, tws, axes, total, tangent = parts
    sws = spread_weights(a, axis, sw) if np.ndim(sw) else np.zeros(np.shape(a))
    szk = np.reshape(sz, total.shape)
    out = np.sum(np.asarray(sa) * tws + (np.broadcast_to(ta, np.shape(a)) - tangent) * sws,
                 axis=axes, keepdims=True) / total - szk * np.sum(tws, axis=axes,
                                                                  keepdims=True) / total
    return float(out.reshape(())) if np.ndim(z) == 0 else np.reshape(out, np.shape(z))
