"""Runtime helpers for the derivative templates of reductions and scans
(templates/numpy_reductions.py).

Re-exported by s2sad.rt (generated code calls them as rt.<name>); their Numba implementations are
in rt_numba_reductions.py.

Conventions (as in s2sad.rt): `g` is the adjoint of the primal's result, with the result's shape
(reduced, or keepdims); `axis` is None, an int or a tuple of ints, negative allowed; every helper
returns a float64 array shaped like the differentiated argument, or a float for a scalar one.
"""
import numpy as np

from .rt import _is_scalar, _kept_shape, _normalize_axes, reduced_size, unreduce

__all__ = ["prod_grad", "extremum_grad", "ptp_grad", "var_grad", "std_grad", "cumsum_grad",
           "cumprod_grad", "norm_grad", "average_grad_a", "average_grad_weights",
           "nansum_grad", "nanmean_grad", "median_grad"]


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
