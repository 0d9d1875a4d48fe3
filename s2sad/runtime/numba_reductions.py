"""Numba implementations of the helpers in rt_reductions.py (imported by rt_numba.py).

Numba compiles the reductions themselves only over the whole array (no `axis`, no `keepdims`),
except np.sum and np.cumsum, which take an axis. So most overloads here handle `axis=None` only,
and return None for other forms (the gradient then falls back to Python, as the rules declare).
Arrays are worked on as flat C-order float64 copies and reshaped back at the end.
"""
import numpy as np
from numba import njit, types
from numba.extending import overload

from . import rt
from .numba_core import _filled, _flat_copy, _is_array, _is_none, _is_scalar, _norm_axis


def _value(g):
    """A scalar adjoint (a number or a 0-d array) as a float (Numba only)."""
    raise NotImplementedError("only callable from Numba-compiled code")


@overload(_value)
def _ov_value(g):
    if _is_scalar(g):
        return lambda g: float(g)
    if _is_array(g, 0):
        return lambda g: float(np.sum(g))
    return None


def _whole(a, g, axis):
    """The form every overload here supports: an array a reduced over all axes (axis None)
    to a scalar adjoint g."""
    return _is_array(a) and _is_none(axis) and (_is_scalar(g) or _is_array(g, 0))


@njit(cache=True)
def _exclusive_products(x):
    """For each element of 1-D x, the product of all the others (no division: exact with
    zeros): the running product from the left times the one from the right."""
    n = x.size
    out = np.empty(n)
    acc = 1.0
    for i in range(n):
        out[i] = acc
        acc = acc * x[i]
    acc = 1.0
    for i in range(n - 1, -1, -1):
        out[i] = out[i] * acc
        acc = acc * x[i]
    return out


@njit(cache=True)
def _shares(hit):
    """1.0 / count on the True elements of 1-D hit, 0 elsewhere (ties share evenly)."""
    count = 0
    for h in hit:
        if h:
            count += 1
    out = np.zeros(hit.size)
    for i in range(hit.size):
        if hit[i]:
            out[i] = 1.0 / count
    return out


@overload(rt.prod_grad)
def _ov_prod_grad(g, a, axis):
    if _is_scalar(a):
        return lambda g, a, axis: _value(g)
    if not _whole(a, g, axis):
        return None
    return lambda g, a, axis: (_exclusive_products(_flat_copy(a)) * _value(g)).reshape(a.shape)


@overload(rt.extremum_grad)
def _ov_extremum_grad(g, a, z, axis):
    if _is_scalar(a):
        return lambda g, a, z, axis: _value(g)
    if not _whole(a, g, axis):
        return None
    return lambda g, a, z, axis: (_shares(_flat_copy(a) == z) * _value(g)).reshape(a.shape)


@overload(rt.ptp_grad)
def _ov_ptp_grad(g, a, axis):
    if _is_scalar(a):
        return lambda g, a, axis: 0.0
    if not _whole(a, g, axis):
        return None

    def impl(g, a, axis):
        flat = _flat_copy(a)
        share = _shares(flat == flat.max()) - _shares(flat == flat.min())
        return (share * _value(g)).reshape(a.shape)
    return impl


@overload(rt.var_grad)
def _ov_var_grad(g, a, axis, ddof):
    if _is_scalar(a):
        return lambda g, a, axis, ddof: 0.0
    if not _whole(a, g, axis):
        return None

    def impl(g, a, axis, ddof):
        flat = _flat_copy(a)
        centred = flat - np.mean(flat)
        return (centred * (_value(g) * (2.0 / (flat.size - ddof)))).reshape(a.shape)
    return impl


@overload(rt.std_grad)
def _ov_std_grad(g, a, z, axis, ddof):
    if not (_is_scalar(z) or _is_array(z, 0)):
        return None

    def impl(g, a, z, axis, ddof):
        deviation = _value(z)
        # zero where the deviation is zero (all elements equal: a kink)
        scaled = _value(g) / (2.0 * deviation) if deviation > 0.0 else 0.0
        return rt.var_grad(scaled, a, axis, ddof)
    return impl


@overload(rt.cumsum_grad)
def _ov_cumsum_grad(g, a, axis):
    if _is_scalar(g):
        return lambda g, a, axis: float(g)   # Numba's np.cumsum of a number is that number
    if not _is_array(g):
        return None
    if _is_none(axis):
        if _is_scalar(a):
            return lambda g, a, axis: float(np.sum(g))
        if not _is_array(a):
            return None

        def flat(g, a, axis):
            out = _flat_copy(g)
            for i in range(out.size - 2, -1, -1):   # reversed cumulative sum
                out[i] = out[i] + out[i + 1]
            return out.reshape(a.shape)
        return flat
    if not isinstance(axis, types.Integer) or g.ndim == 0:
        return None

    def along(g, a, axis):
        # View g as (before, n, after) around the axis and sum from the end along n.
        ax = _norm_axis(axis, g.ndim)
        before = 1
        for k in range(ax):
            before *= g.shape[k]
        n = g.shape[ax]
        after = g.size // (before * n) if before * n > 0 else 0
        out = _flat_copy(g).reshape((before, n, after))
        for i in range(before):
            for j in range(n - 2, -1, -1):
                for k in range(after):
                    out[i, j, k] = out[i, j, k] + out[i, j + 1, k]
        return out.reshape(g.shape)
    return along


@overload(rt.cumprod_grad)
def _ov_cumprod_grad(g, a, axis):
    if not (_is_array(a) and _is_array(g) and _is_none(axis)):
        return None

    def impl(g, a, axis):
        # z_i = a_0 ... a_i: dL/da_j = (a_0 ... a_{j-1}) s_j, s_j = g_j + a_{j+1} s_{j+1}
        x = _flat_copy(a)
        s = _flat_copy(g)
        n = x.size
        for j in range(n - 2, -1, -1):
            s[j] = s[j] + x[j + 1] * s[j + 1]
        before = 1.0
        for j in range(n):
            s[j] = before * s[j]
            before = before * x[j]
        return s.reshape(a.shape)
    return impl


@njit(cache=True)
def _vector_norm_grad(x, z, ord):
    """d norm(x, ord) / dx for 1-D float64 x (see rt.norm_grad); zero where z is zero."""
    if ord == 0.0 or z == 0.0:
        return np.zeros(x.size)
    if ord == np.inf or ord == -np.inf:
        size = np.abs(x)
        best = size.max() if ord > 0.0 else size.min()
        return np.sign(x) * _shares(size == best)
    if ord == 2.0:
        return x / z
    return np.sign(x) * (np.abs(x) / z) ** (ord - 1.0)


@njit(cache=True)
def _matrix_norm_grad(x, ord):
    """d norm(x, ord) / dx for 2-D float64 x and a numeric ord (see rt.norm_grad)."""
    if ord == 2.0 or ord == -2.0:
        u, _, vt = np.linalg.svd(x, False)
        k = 0 if ord > 0.0 else min(x.shape[0], x.shape[1]) - 1
        return np.outer(u[:, k], vt[k, :])
    if ord == 1.0 or ord == -1.0 or ord == np.inf or ord == -np.inf:
        by_column = ord == 1.0 or ord == -1.0      # 1: sum each column; inf: each row
        sums = np.sum(np.abs(x), axis=0 if by_column else 1)
        best = sums.max() if ord > 0.0 else sums.min()
        share = _shares(sums == best)
        out = np.sign(x)
        for i in range(x.shape[0]):
            for j in range(x.shape[1]):
                out[i, j] = out[i, j] * share[j if by_column else i]
        return out
    raise ValueError("norm_grad: invalid norm order for matrices")


@overload(rt.norm_grad)
def _ov_norm_grad(g, x, z, ord=None, axis=None, keepdims=False):
    # Numba's np.linalg.norm takes no axis or keepdims, and only a numeric ord.
    if not (_is_array(x) and _is_none(axis) and (_is_scalar(g) or _is_array(g, 0))):
        return None
    if _is_none(ord):
        def two(g, x, z, ord=None, axis=None, keepdims=False):
            scale = _value(g) / z if z != 0.0 else 0.0
            return (_flat_copy(x) * scale).reshape(x.shape)
        return two
    if not isinstance(ord, (types.Integer, types.Float)) or x.ndim not in (1, 2):
        return None
    if x.ndim == 1:
        return lambda g, x, z, ord=None, axis=None, keepdims=False: \
            _vector_norm_grad(_flat_copy(x), z, float(ord)) * _value(g)

    def matrix(g, x, z, ord=None, axis=None, keepdims=False):
        return _matrix_norm_grad(np.ascontiguousarray(x).astype(np.float64), float(ord)) * \
            _value(g)
    return matrix


@overload(rt.average_grad_a)
def _ov_average_grad_a(g, a, z, axis=None, weights=None, returned=False):
    # Numba's np.average takes no axis and cannot return the sum of weights.
    if _is_scalar(a) and _is_none(weights) and _is_none(axis):
        return lambda g, a, z, axis=None, weights=None, returned=False: _value(g)
    if not _whole(a, g, axis):
        return None
    if _is_none(weights):
        return lambda g, a, z, axis=None, weights=None, returned=False: \
            _filled(a.shape, _value(g) / a.size)
    if not _is_array(weights):
        return None
    return lambda g, a, z, axis=None, weights=None, returned=False: \
        (_flat_copy(weights) * (_value(g) / np.sum(weights))).reshape(a.shape)


@overload(rt.average_grad_weights)
def _ov_average_grad_weights(g, a, z, axis=None, weights=None, returned=False):
    if not (_whole(a, g, axis) and _is_array(weights)):
        return None
    return lambda g, a, z, axis=None, weights=None, returned=False: \
        ((_flat_copy(a) - z) * (_value(g) / np.sum(weights))).reshape(weights.shape)


@overload(rt.nansum_grad)
def _ov_nansum_grad(g, a, axis):
    if _is_scalar(a):
        return lambda g, a, axis: 0.0 if np.isnan(a) else _value(g)
    if not _whole(a, g, axis):
        return None

    def impl(g, a, axis):
        share = 1.0 - np.isnan(_flat_copy(a))
        return (share * _value(g)).reshape(a.shape)
    return impl


@overload(rt.nanmean_grad)
def _ov_nanmean_grad(g, a, axis):
    if _is_scalar(a):
        return lambda g, a, axis: 0.0 if np.isnan(a) else _value(g)
    if not _whole(a, g, axis):
        return None

    def impl(g, a, axis):
        share = _shares(~np.isnan(_flat_copy(a)))
        return (share * _value(g)).reshape(a.shape)
    return impl


@overload(rt.median_grad)
def _ov_median_grad(g, a, axis):
    if _is_scalar(a):
        return lambda g, a, axis: _value(g)
    if not _whole(a, g, axis):
        return None

    def impl(g, a, axis):
        flat = _flat_copy(a)
        n = flat.size
        order = np.argsort(flat, kind="mergesort")
        share = np.zeros(n)
        middle = order[(n - 1) // 2:n // 2 + 1]   # one index (n odd) or two (n even)
        for i in middle:
            share[i] = 1.0 / middle.size
        return (share * _value(g)).reshape(a.shape)
    return impl


# ---- tangents (forward mode): whole-array forms, as the primals compile ------------------------

@overload(rt.extremum_mask)
def _ov_extremum_mask(a, z, axis):
    if _is_scalar(a):
        return lambda a, z, axis: 1.0
    if not _whole(a, z, axis):
        return None
    return lambda a, z, axis: rt.extremum_grad(1.0, a, z, axis)


@overload(rt.ptp_mask)
def _ov_ptp_mask(a, axis):
    if _is_scalar(a):
        return lambda a, axis: 0.0
    if not (_is_array(a) and _is_none(axis)):
        return None
    return lambda a, axis: rt.ptp_grad(1.0, a, axis)


@overload(rt.median_mask)
def _ov_median_mask(a, axis):
    if _is_scalar(a):
        return lambda a, axis: 1.0
    if not (_is_array(a) and _is_none(axis)):
        return None
    return lambda a, axis: rt.median_grad(1.0, a, axis)


@overload(rt.prod_tangent)
def _ov_prod_tangent(t, a, axis, keepdims=False):
    if _is_scalar(a):
        return lambda t, a, axis, keepdims=False: _value(t)
    if not (_is_array(a) and _is_none(axis)):
        return None
    return lambda t, a, axis, keepdims=False: \
        float(np.sum(_flat_copy(t) * _exclusive_products(_flat_copy(a))))


@overload(rt.cumprod_tangent)
def _ov_cumprod_tangent(t, a, axis):
    if not (_is_array(a) and _is_none(axis)):
        return None

    def impl(t, a, axis):
        x, dx = _flat_copy(a), _flat_copy(t)
        out = np.empty(x.size)
        z = 1.0
        dz = 0.0
        for j in range(x.size):
            dz = dz * x[j] + z * dx[j]
            z = z * x[j]
            out[j] = dz
        return out
    return impl


@overload(rt.norm_tangent)
def _ov_norm_tangent(t, x, z, ord=None, axis=None, keepdims=False):
    if not (_is_array(x) and _is_none(axis)):
        return None
    return lambda t, x, z, ord=None, axis=None, keepdims=False: \
        float(np.sum(t * rt.norm_grad(1.0, x, z, ord, axis, keepdims)))


@overload(rt.average_tangent)
def _ov_average_tangent(ta, tw, a, weights, z, axis=None, returned=False, keepdims=False):
    if not _is_none(axis):
        return None
    if _is_scalar(a) and _is_none(weights):
        return lambda ta, tw, a, weights, z, axis=None, returned=False, keepdims=False: \
            _value(ta)
    if not _is_array(a):
        return None
    if _is_none(weights):
        return lambda ta, tw, a, weights, z, axis=None, returned=False, keepdims=False: \
            np.sum(ta) / a.size
    if not _is_array(weights):
        return None
    return lambda ta, tw, a, weights, z, axis=None, returned=False, keepdims=False: \
        (np.sum(ta * weights) + np.sum((a - z) * tw)) / np.sum(weights)
