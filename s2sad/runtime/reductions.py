"""Runtime helpers for the derivative templates of reductions and scans
(templates/numpy_reductions.py).

Re-exported by s2sad.rt (generated code calls them as rt.<name>); their Numba implementations are
in rt_numba_reductions.py.

Conventions (as in s2sad.rt): `g` is the adjoint of the primal's result, with the result's shape
(reduced, or keepdims); `axis` is None, an int or a tuple of ints, negative allowed; every helper
returns a float64 array shaped like the differentiated argument, or a float for a scalar one.
"""
import numpy as np

from .core import (_is_scalar, _kept_shape, _normalize_axes, reduce_sum, reduced_size, unreduce,
                 zeros_like)

__all__ = ["prod_grad", "extremum_grad", "ptp_grad", "var_grad", "std_grad", "cumsum_grad",
           "cumprod_grad", "norm_grad", "average_grad_a", "average_grad_weights",
           "nansum_grad", "nanmean_grad", "median_grad",
           "extremum_mask", "ptp_mask", "median_mask", "prod_tangent", "cumprod_tangent",
           "norm_tangent", "average_tangent", "prod_tangent_grad", "prod_tangent2",
           "cumprod_tangent_grad", "cumprod_tangent2", "norm_tangent_grad_x",
           "norm_tangent_grad_z", "norm_tangent2", "average_tangent_grad_a",
           "average_tangent_grad_weights", "average_tangent_grad_z", "average_tangent2"]


def _axes(axis, ndim):
    """The reduced axes, normalized, as a tuple (all of them for None)."""
    return tuple(range(ndim)) if axis is None else _normalize_axes(axis, ndim)


def _to_last(x, axes):
    """x with `axes` moved last and merged into one: shape (*kept, n). Also returns what
    `_from_last` needs to undo it."""
    kept = [k for k in range(x.ndim) if k not in axes]
    order = kept + list(axes)
    moved = np.transpose(x, order)
    return moved.reshape(moved.shape[:len(kept)] + (-1,)), (moved.shape, order)


def _from_last(y, undo):
    """Inverse of _to_last: y of shape (*kept, n) back to the original layout."""
    shape, order = undo
    return np.ascontiguousarray(np.transpose(y.reshape(shape), np.argsort(order)))


def _exclusive_products(x):
    """Along the last axis, each element's product of all the others (exact with zeros):
    the exclusive cumulative product from the left times the one from the right."""
    left = np.ones_like(x)
    right = np.ones_like(x)
    left[..., 1:] = np.cumprod(x[..., :-1], axis=-1)
    right[..., :-1] = np.cumprod(x[..., :0:-1], axis=-1)[..., ::-1]
    return left * right


def prod_grad(g, a, axis):
    """Gradient w.r.t. a of z = np.prod(a, axis): g times the product of the other elements of
    each element's reduction (no division, so exact when some elements are zero)."""
    if _is_scalar(a):
        return float(g)
    a = np.asarray(a, dtype=np.float64)
    flat, undo = _to_last(a, _axes(axis, a.ndim))
    return unreduce(g, a, axis) * _from_last(_exclusive_products(flat), undo)


def _ties(hit, axis):
    """hit (a bool array: the elements reaching the extremum) divided by their count in each
    reduction, so tied elements share the gradient evenly."""
    count = np.sum(hit, axis=axis if axis is None else _axes(axis, hit.ndim), keepdims=True)
    return hit / count


def extremum_grad(g, a, z, axis):
    """Gradient w.r.t. a of z = np.max(a, axis) (or min, nanmax, nanmin): g goes to the
    elements equal to the result, split evenly among ties."""
    if _is_scalar(a):
        return float(g)
    hit = a == np.reshape(z, _kept_shape(a.shape, axis))
    return unreduce(g, a, axis) * _ties(hit, axis)


def ptp_grad(g, a, axis):
    """Gradient w.r.t. a of z = np.ptp(a, axis) = max - min (ties split evenly)."""
    if _is_scalar(a):
        return 0.0
    axes = _axes(axis, np.ndim(a))
    hit_max = a == np.max(a, axis=axes, keepdims=True)
    hit_min = a == np.min(a, axis=axes, keepdims=True)
    return unreduce(g, a, axis) * (_ties(hit_max, axis) - _ties(hit_min, axis))


def var_grad(g, a, axis, ddof):
    """Gradient w.r.t. a of z = np.var(a, axis, ddof=ddof): g * 2 (a - mean) / (n - ddof)."""
    if _is_scalar(a):
        return 0.0
    a = np.asarray(a, dtype=np.float64)
    centred = a - np.mean(a, axis=_axes(axis, a.ndim), keepdims=True)
    return unreduce(g, a, axis) * centred * (2.0 / (reduced_size(a, axis) - ddof))


def std_grad(g, a, z, axis, ddof):
    """Gradient w.r.t. a of z = np.std(a, axis, ddof=ddof): var_grad with g / (2 z); zero where
    the deviation is zero (all elements equal: a kink)."""
    z = np.asarray(z, dtype=np.float64)
    safe = np.where(z > 0.0, z, 1.0)
    return var_grad(np.where(z > 0.0, np.asarray(g) / (2.0 * safe), 0.0), a, axis, ddof)


def _reverse_cumsum(g, axis):
    """sum_{i >= j} g_i along axis: the adjoint of a cumulative sum."""
    return np.flip(np.cumsum(np.flip(g, axis), axis=axis), axis)


def cumsum_grad(g, a, axis):
    """Gradient w.r.t. a of z = np.cumsum(a, axis): the reversed cumulative sum of g (axis None:
    a was flattened, g is 1-D)."""
    g = np.asarray(g, dtype=np.float64)
    if axis is None:
        out = _reverse_cumsum(g, 0)
        return float(out[0]) if _is_scalar(a) else np.ascontiguousarray(out).reshape(np.shape(a))
    if _is_scalar(a):
        return float(g[0])
    return np.ascontiguousarray(_reverse_cumsum(g, _normalize_axes(axis, g.ndim)[0]))


def cumprod_grad(g, a, axis):
    """Gradient w.r.t. a of z = np.cumprod(a, axis), exact with zeros: for z_i = a_0 ... a_i,
    dL/da_j = (a_0 ... a_{j-1}) * s_j with s_j = g_j + a_{j+1} s_{j+1} (a backward scan)."""
    a = np.asarray(a, dtype=np.float64)
    g = np.asarray(g, dtype=np.float64)
    scalar = a.ndim == 0
    if axis is None:
        x, g = a.reshape(-1), g.reshape(-1)
        ax = 0
    else:
        x = a
        ax = _normalize_axes(axis, a.ndim)[0]
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


def _safe_divide(x, y):
    """x / y, 0 where y is 0 (the subgradient chosen at a norm's kink)."""
    return x / np.where(y == 0.0, 1.0, y) * (y != 0.0)


def _norm_axes(x, ord, axis):
    """The axes np.linalg.norm(x, ord, axis) reduces, and whether it is a vector norm."""
    if axis is not None:
        axes = _normalize_axes(axis, x.ndim)
        return axes, len(axes) == 1
    if ord is None:
        return tuple(range(x.ndim)), False   # the 2-norm of x flattened
    return tuple(range(x.ndim)), x.ndim == 1


def norm_grad(g, x, z, ord=None, axis=None, keepdims=False):
    """Gradient w.r.t. x of z = np.linalg.norm(x, ord, axis, keepdims).

    2-norms (vector 2, matrix 'fro', ord None): x / z. Vector p-norms: sign(x) (|x| / z)^(p-1)
    (p = 1: sign(x)); +-inf: sign(x) on the largest/smallest |x|, ties split evenly. Matrix
    2/-2: u v^T of the largest/smallest singular value; 'nuc': U V^T; 1/-1 and inf/-inf: sign(x)
    on the largest/smallest column/row sum of |x|, ties split evenly. Zero where z is zero."""
    if _is_scalar(x):
        return float(g) * float(np.sign(x))   # np.linalg.norm of a number is |x|
    x = np.asarray(x, dtype=np.float64)
    axes, vector = _norm_axes(x, ord, axis)
    gk = np.reshape(g, _kept_shape(x.shape, axes))
    zk = np.reshape(z, _kept_shape(x.shape, axes))
    if ord is None or (ord == 2 and vector) or (isinstance(ord, str) and ord in ("fro", "f")):
        return gk * _safe_divide(x, zk)
    if vector:
        if ord == 0:
            return np.zeros(x.shape)               # a count of nonzeros: piecewise constant
        if np.isinf(ord):
            size = np.abs(x)
            best = np.max(size, axis=axes, keepdims=True) if ord > 0 else \
                np.min(size, axis=axes, keepdims=True)
            return gk * np.sign(x) * _ties(size == best, axes)
        return gk * np.sign(x) * _safe_divide(np.abs(x), zk) ** (ord - 1.0)
    # A matrix norm over axes (rows, columns): work on stacks with those axes last.
    rows, cols = axes
    xm = np.moveaxis(x, (rows, cols), (-2, -1))
    if isinstance(ord, str) and ord == "nuc" or ord in (2, -2):
        u, _, vt = np.linalg.svd(xm, full_matrices=False)
        if ord == 2:
            dm = u[..., :, :1] @ vt[..., :1, :]
        elif ord == -2:
            dm = u[..., :, -1:] @ vt[..., -1:, :]
        else:
            dm = u @ vt
    elif ord in (1, -1, np.inf, -np.inf):
        along = -2 if ord in (1, -1) else -1        # 1: sum each column; inf: each row
        sums = np.sum(np.abs(xm), axis=along, keepdims=True)
        best = np.max(sums, axis=(-2, -1), keepdims=True) if ord > 0 else \
            np.min(sums, axis=(-2, -1), keepdims=True)
        dm = np.sign(xm) * _ties(sums == best, (-2, -1))
    else:
        raise ValueError(f"norm_grad: invalid norm order {ord!r} for matrices")
    return np.ascontiguousarray(gk * np.moveaxis(dm, (-2, -1), (rows, cols)))


def _spread_weights(a, axis, weights):
    """The weights of np.average(a, axis, weights) broadcast to a's shape (1-D weights lie
    along axis)."""
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != np.shape(a):
        shape = [1] * np.ndim(a)
        shape[_normalize_axes(axis, np.ndim(a))[0]] = w.size
        w = w.reshape(shape)
    return np.broadcast_to(w, np.shape(a))


def _average_parts(g, z, returned):
    """(adjoint of the average, adjoint of the sum of weights, the average) from a result that
    is a tuple (average, sum of weights) when `returned`."""
    if returned:
        return g[0], g[1], z[0]
    return g, None, z


def average_grad_a(g, a, z, axis=None, weights=None, returned=False):
    """Gradient w.r.t. a of z = np.average(a, axis, weights, returned): g w / sum(w) (g / n
    without weights)."""
    g, _, _ = _average_parts(g, z, returned)
    if weights is None:
        return unreduce(g, a, axis) / reduced_size(a, axis)
    w = _spread_weights(a, axis, weights)
    total = np.sum(w, axis=_axes(axis, w.ndim), keepdims=True)
    return unreduce(g, a, axis) * w / total


def average_grad_weights(g, a, z, axis=None, weights=None, returned=False):
    """Gradient w.r.t. weights of z = np.average(a, axis, weights, returned):
    g (a - z) / sum(w), plus the adjoint of the returned sum of weights; summed back to the
    weights' shape."""
    g, g_total, z = _average_parts(g, z, returned)
    w = _spread_weights(a, axis, weights)
    a = np.asarray(a, dtype=np.float64)
    total = np.sum(w, axis=_axes(axis, w.ndim), keepdims=True)
    full = unreduce(g, a, axis) * (a - np.reshape(z, total.shape)) / total
    if g_total is not None:
        # The sum of weights is broadcast to the average's shape: each element adds once.
        full = full + unreduce(g_total, a, axis)
    if np.shape(weights) == a.shape:
        return full
    along = _normalize_axes(axis, a.ndim)[0]
    return np.sum(full, axis=tuple(k for k in range(a.ndim) if k != along))


def nansum_grad(g, a, axis):
    """Gradient w.r.t. a of z = np.nansum(a, axis): g on the non-NaN elements, 0 on NaNs."""
    if _is_scalar(a):
        return 0.0 if np.isnan(a) else float(g)
    return np.where(np.isnan(a), 0.0, unreduce(g, a, axis))


def nanmean_grad(g, a, axis):
    """Gradient w.r.t. a of z = np.nanmean(a, axis): g / (count of non-NaN) on the non-NaN
    elements, 0 on NaNs."""
    if _is_scalar(a):
        return 0.0 if np.isnan(a) else float(g)
    valid = ~np.isnan(a)
    count = np.sum(valid, axis=_axes(axis, a.ndim), keepdims=True)
    return np.where(valid, unreduce(g, a, axis) / np.maximum(count, 1), 0.0)


def median_grad(g, a, axis):
    """Gradient w.r.t. a of z = np.median(a, axis): g on the middle element of each sorted
    reduction, or g / 2 on each of the two middle ones when their number is even."""
    if _is_scalar(a):
        return float(g)
    a = np.asarray(a, dtype=np.float64)
    flat, undo = _to_last(a, _axes(axis, a.ndim))
    n = flat.shape[-1]
    order = np.argsort(flat, axis=-1, kind="stable")
    share = np.zeros(flat.shape)
    middle = order[..., (n - 1) // 2:n // 2 + 1]   # one index (n odd) or two (n even)
    np.put_along_axis(share, middle, 1.0 / middle.shape[-1], axis=-1)
    return unreduce(g, a, axis) * _from_last(share, undo)


# ---- tangents (forward mode) ---------------------------------------------------------------------
# A reduction's tangent is np.sum(t * w, axis) with w the per-element derivative of the result;
# where w only picks elements (max, ptp, median), the "mask" helpers give it and are declared
# without derivative (they are locally constant). The others are tangent helpers, linear in t.

def _ones_kept(a, axis):
    return np.ones(_kept_shape(np.shape(a), axis))


def extremum_mask(a, z, axis):
    """Which elements of a the result of np.max(a, axis) (min, nanmax, nanmin) z takes, as
    1.0 (split evenly among ties) or 0.0: the tangent of z is the sum of the tangent times
    this. Locally constant."""
    if _is_scalar(a):
        return 1.0
    return extremum_grad(np.ones(np.shape(z)), a, z, axis)


def ptp_mask(a, axis):
    """+-1.0 on the elements np.ptp(a, axis) takes (max - min, ties split evenly), 0 elsewhere.
    Locally constant."""
    if _is_scalar(a):
        return 0.0
    return ptp_grad(_ones_kept(a, axis), a, axis)


def median_mask(a, axis):
    """1.0 (0.5 each when two) on the middle elements np.median(a, axis) takes, 0 elsewhere.
    Locally constant."""
    if _is_scalar(a):
        return 1.0
    return median_grad(_ones_kept(a, axis), a, axis)


def prod_tangent(t, a, axis, keepdims=False):
    """Tangent of z = np.prod(a, axis, keepdims): the sum over each reduction of t times the
    product of the other elements (exact with zeros)."""
    if _is_scalar(a):
        return float(t)
    return reduce_sum(t * prod_grad(_ones_kept(a, axis), a, axis), axis, keepdims)


def cumprod_tangent(t, a, axis):
    """Tangent of z = np.cumprod(a, axis), exact with zeros: the forward scan
    dz_i = dz_{i-1} a_i + z_{i-1} t_i (axis None: a and t flattened)."""
    a = np.asarray(a, dtype=np.float64)
    t = np.asarray(t, dtype=np.float64)
    if a.ndim == 0:
        return np.reshape(t, (1,)).copy()
    if axis is None:
        x, t, ax = a.reshape(-1), t.reshape(-1), 0
    else:
        x, ax = a, _normalize_axes(axis, a.ndim)[0]
    x, t = np.moveaxis(x, ax, -1), np.moveaxis(t, ax, -1)
    z = np.cumprod(x, axis=-1)
    out = np.empty(x.shape)
    out[..., 0] = t[..., 0]
    for j in range(1, x.shape[-1]):
        out[..., j] = out[..., j - 1] * x[..., j] + z[..., j - 1] * t[..., j]
    return np.ascontiguousarray(np.moveaxis(out, -1, ax))


def norm_tangent(t, x, z, ord=None, axis=None, keepdims=False):
    """Tangent of z = np.linalg.norm(x, ord, axis, keepdims): the sum over each norm of t times
    the derivative norm_grad gives (the top singular vectors for ord 2, ...)."""
    if _is_scalar(x):
        return float(t) * float(np.sign(x))
    axes, _ = _norm_axes(np.asarray(x), ord, axis)
    weights = norm_grad(np.ones(np.shape(z)), x, z, ord, axis, keepdims)
    return reduce_sum(t * weights, axes, keepdims)


def average_tangent(ta, tw, a, weights, z, axis=None, returned=False, keepdims=False):
    """Tangent of z = np.average(a, axis, weights, returned, keepdims=keepdims), from the
    tangents ta of a and tw of weights (tw 0 when the weights are None or constant):
    (sum(ta w) + sum((a - avg) tw)) / sum(w), and sum(tw) for the returned sum of weights."""
    avg = z[0] if returned else z
    if weights is None:
        out = reduce_sum(ta, axis, keepdims) / reduced_size(a, axis)
        return (out, np.zeros(np.shape(avg)) if np.ndim(avg) else 0.0) if returned else out
    w = _spread_weights(a, axis, weights)
    tws = _spread_weights(a, axis, tw) if np.ndim(tw) else float(tw)
    axes = _axes(axis, np.ndim(a))
    a = np.asarray(a, dtype=np.float64)
    kept = np.reshape(avg, _kept_shape(a.shape, axes))
    out = np.sum(ta * w + (a - kept) * tws, axis=axes, keepdims=keepdims) / \
        np.sum(w, axis=axes, keepdims=keepdims)
    out = float(out) if np.ndim(out) == 0 and not keepdims else out
    if not returned:
        return out
    total = np.sum(tws, axis=axes, keepdims=keepdims) + np.zeros(np.shape(out))
    return out, float(total) if np.ndim(total) == 0 and not keepdims else total


# ---- second order: the derivatives of the tangent helpers w.r.t. the primal's arguments (for
# second derivatives, which differentiate forward-mode code in reverse or forward mode again) -----

def _scan_last(x, axis):
    """x as float64 with the scanned axis last (axis None: flattened), and how to undo it."""
    x = np.asarray(x, dtype=np.float64)
    if axis is None:
        return x.reshape(-1), None
    ax = _normalize_axes(axis, x.ndim)[0]
    return np.moveaxis(x, ax, -1), ax


def _scan_back(y, a, ax):
    if ax is None:
        return y.reshape(np.shape(a))
    return np.ascontiguousarray(np.moveaxis(y, -1, ax))


def _exclusive_tangents(s, a, axes):
    """For each element of a, the derivative along s of the product of the other elements of
    its reduction over `axes` (exact with zeros: prefix and suffix scans)."""
    flat, undo = _to_last(np.asarray(a, dtype=np.float64), axes)
    ds, _ = _to_last(np.broadcast_to(np.asarray(s, dtype=np.float64), np.shape(a)), axes)
    n = flat.shape[-1]
    left, dleft = np.ones(flat.shape), np.zeros(flat.shape)
    right, dright = np.ones(flat.shape), np.zeros(flat.shape)
    for i in range(1, n):
        left[..., i] = left[..., i - 1] * flat[..., i - 1]
        dleft[..., i] = dleft[..., i - 1] * flat[..., i - 1] + left[..., i - 1] * ds[..., i - 1]
    for i in range(n - 2, -1, -1):
        right[..., i] = right[..., i + 1] * flat[..., i + 1]
        dright[..., i] = dright[..., i + 1] * flat[..., i + 1] + right[..., i + 1] * ds[..., i + 1]
    return _from_last(dleft * right + left * dright, undo)


def prod_tangent_grad(g, t, a, axis):
    """Gradient w.r.t. a of prod_tangent(t, a, axis, keepdims), given its adjoint g."""
    if _is_scalar(a):
        return 0.0
    return unreduce(g, a, axis) * _exclusive_tangents(t, a, _axes(axis, np.ndim(a)))


def prod_tangent2(t, s, a, axis, keepdims=False):
    """Derivative of prod_tangent(t, a, axis, keepdims) along s (a direction for a)."""
    if _is_scalar(a):
        return 0.0
    return reduce_sum(np.asarray(t) * _exclusive_tangents(s, a, _axes(axis, np.ndim(a))), axis,
                      keepdims)


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
    axes, vector = _norm_axes(x, ord, axis)
    zk = np.reshape(np.asarray(z, dtype=np.float64), _kept_shape(x.shape, axes))
    t = np.broadcast_to(np.asarray(t, dtype=np.float64), x.shape)
    tk = np.reshape(norm_tangent(t, x, z, ord, axis, keepdims), zk.shape)
    if ord is None or (ord == 2 and vector) or (isinstance(ord, str) and ord in ("fro", "f")):
        return _safe_divide(t, zk), -_safe_divide(tk, zk)
    if vector and not np.isinf(ord) and ord not in (0, 1):
        scale = _safe_divide(np.ones(zk.shape), zk) ** (ord - 1.0)
        return t * (ord - 1.0) * np.abs(x) ** (ord - 2.0) * scale, \
            (1.0 - ord) * _safe_divide(tk, zk)
    if vector or ord in (1, -1, np.inf, -np.inf):
        return np.zeros(x.shape), np.zeros(zk.shape)   # locally constant weights
    raise NotImplementedError(f"second derivatives of numpy.linalg.norm with ord={ord!r} (a "
                              "spectral norm) are not implemented")


def norm_tangent_grad_x(g, t, x, z, ord=None, axis=None, keepdims=False):
    """Gradient w.r.t. x of norm_tangent(t, x, z, ord, axis, keepdims), z held fixed."""
    if _is_scalar(x):
        return 0.0
    axes, _ = _norm_axes(np.asarray(x), ord, axis)
    dx, _ = _norm_partials(t, x, z, ord, axis, keepdims)
    return np.reshape(g, _kept_shape(np.shape(x), axes)) * dx


def norm_tangent_grad_z(g, t, x, z, ord=None, axis=None, keepdims=False):
    """Gradient w.r.t. z of norm_tangent(t, x, z, ord, axis, keepdims), x held fixed."""
    if _is_scalar(x):
        return 0.0
    _, dz = _norm_partials(t, x, z, ord, axis, keepdims)
    out = np.reshape(g, dz.shape) * dz
    return float(out.reshape(())) if np.ndim(z) == 0 else np.reshape(out, np.shape(z))


def norm_tangent2(t, tx, tz, x, z, ord=None, axis=None, keepdims=False):
    """Derivative of norm_tangent(t, x, z, ...) along (tx, tz), directions for x and z."""
    if _is_scalar(x):
        return 0.0
    axes, _ = _norm_axes(np.asarray(x), ord, axis)
    dx, dz = _norm_partials(t, x, z, ord, axis, keepdims)
    out = reduce_sum(np.asarray(tx) * dx, axes, True) + \
        np.reshape(tz, dz.shape) * dz
    return float(out.reshape(())) if np.ndim(z) == 0 else np.reshape(out, np.shape(z))


def _average_second(ta, tw, a, weights, z, axis, returned, keepdims):
    if returned:
        raise NotImplementedError("second derivatives of numpy.average with returned=True are "
                                  "not implemented")
    if weights is None:
        return None
    w = _spread_weights(a, axis, weights)
    tws = _spread_weights(a, axis, tw) if np.ndim(tw) else np.zeros(np.shape(a))
    axes = _axes(axis, np.ndim(a))
    total = np.sum(w, axis=axes, keepdims=True)
    tangent = np.reshape(average_tangent(ta, tw, a, weights, z, axis, False, keepdims),
                         total.shape)
    return w, tws, axes, total, tangent


def average_tangent_grad_a(g, ta, tw, a, weights, z, axis=None, returned=False, keepdims=False):
    """Gradient w.r.t. a of average_tangent(...), z held fixed: g tw / sum(w)."""
    parts = _average_second(ta, tw, a, weights, z, axis, returned, keepdims)
    if parts is None:
        return zeros_like(a)
    _, tws, axes, total, _ = parts
    return unreduce(g, a, axis) * tws / total


def average_tangent_grad_weights(g, ta, tw, a, weights, z, axis=None, returned=False,
                                 keepdims=False):
    """Gradient w.r.t. weights of average_tangent(...): g (ta - T) / sum(w), summed back to
    the weights' shape."""
    parts = _average_second(ta, tw, a, weights, z, axis, returned, keepdims)
    w, _, axes, total, tangent = parts
    full = unreduce(g, a, axis) * (np.broadcast_to(ta, np.shape(a)) - tangent) / total
    if np.shape(weights) == np.shape(a):
        return full
    along = _normalize_axes(axis, np.ndim(a))[0]
    return np.sum(full, axis=tuple(k for k in range(np.ndim(a)) if k != along))


def average_tangent_grad_z(g, ta, tw, a, weights, z, axis=None, returned=False, keepdims=False):
    """Gradient w.r.t. z (the average) of average_tangent(...), a held fixed:
    -g sum(tw) / sum(w)."""
    parts = _average_second(ta, tw, a, weights, z, axis, returned, keepdims)
    if parts is None:
        return zeros_like(z)
    _, tws, axes, total, _ = parts
    out = -np.asarray(g) * np.reshape(np.sum(tws, axis=axes, keepdims=True) / total, np.shape(g))
    return float(out) if np.ndim(z) == 0 else np.reshape(out, np.shape(z))


def average_tangent2(ta, tw, a, weights, z, sa, sw, sz, axis=None, returned=False,
                     keepdims=False):
    """Derivative of average_tangent(ta, tw, a, weights, z, ...) along (sa, sw, sz),
    directions for a, weights and z."""
    parts = _average_second(ta, tw, a, weights, z, axis, returned, keepdims)
    if parts is None:
        return zeros_like(z)
    w, tws, axes, total, tangent = parts
    sws = _spread_weights(a, axis, sw) if np.ndim(sw) else np.zeros(np.shape(a))
    szk = np.reshape(sz, total.shape)
    out = np.sum(np.asarray(sa) * tws + (np.broadcast_to(ta, np.shape(a)) - tangent) * sws,
                 axis=axes, keepdims=True) / total - szk * np.sum(tws, axis=axes,
                                                                  keepdims=True) / total
    return float(out.reshape(())) if np.ndim(z) == 0 else np.reshape(out, np.shape(z))
