"""Runtime helpers for the statistics and interpolation rules of templates/numpy_more.py:
cov, interp, polyval, quantile/percentile and trapezoid.

Each is defined once (dispatch.py). interp's and polyval's helpers compile with Numba; cov's,
quantile's and trapezoid's run as Python (their rules say numba=False).
"""
import numpy as np

from . import core
from .arrays import f64
from .dispatch import by_type, is_none, is_scalar, jitable

__all__ = ["cov_grad_m", "cov_grad_y", "interp_slope", "interp_linear", "interp_linear_grad", "interp_slope_grad", "polyval_deriv", "polyval_deriv_grad_p", "quantile_grad_a", "quantile_grad_q", "quantile_tangent", "quantile_tangent_grad_a", "quantile_tangent_grad_q", "quantile_tangent2", "trapezoid_grad_y", "trapezoid_grad_x", "trapezoid_points_tangent", "trapezoid_points_tangent_grad_y", "trapezoid_points_tangent_grad_x"]


# ---- cov --------------------------------------------------------------------------------------

@jitable
def _observations(m, y, rowvar):
    """The variables as rows, observations as columns (what numpy.cov reads)."""
    x = np.atleast_2d(np.asarray(m) * 1.0)
    if not rowvar and x.shape[0] != 1:
        x = x.T
    return np.ascontiguousarray(x)


def _cov_parts(m, y, rowvar, bias, ddof):
    x = _observations(m, y, rowvar)
    rows = x.shape[0]
    if y is not None:
        x = np.concatenate((x, _observations(y, None, rowvar)), axis=0)
    n = x.shape[1]
    if ddof is None:
        ddof = 0 if bias else 1
    centred = x - np.sum(x, axis=1).reshape(-1, 1) / n
    return x, rows, centred, n - ddof


def _cov_grad(g, m, y, rowvar, bias, ddof, of_y):
    x, rows, centred, factor = _cov_parts(m, y, rowvar, bias, ddof)
    g2 = np.reshape(g, (x.shape[0], x.shape[0])) if np.ndim(g) else np.full((1, 1), g)
    dx = np.dot(g2 + g2.T, centred) / factor
    part = dx[rows:] if of_y else dx[:rows]
    like = y if of_y else m
    if np.ndim(like) == 2 and not rowvar and part.shape[0] != 1:
        part = part.T
    return np.reshape(part, np.shape(like)) * 1.0


def cov_grad_m(g, m, y=None, rowvar=True, bias=False, ddof=None):
    """Gradient w.r.t. m of c = numpy.cov(m, y, rowvar, bias, ddof), with x the variables'
    rows centred: (g + g^T) x / (observations - ddof)."""
    return _cov_grad(g, m, y, rowvar, bias, ddof, False)


def cov_grad_y(g, m, y=None, rowvar=True, bias=False, ddof=None):
    """Gradient w.r.t. y of numpy.cov(m, y, rowvar, bias, ddof)."""
    return _cov_grad(g, m, y, rowvar, bias, ddof, True)


# ---- interp -----------------------------------------------------------------------------------

@jitable
def _interp_cells(x, xp):
    """For each x: the cell j (xp[j] <= x <= xp[j + 1]), and whether x is below or above xp."""
    j = np.searchsorted(xp, x, "right") - 1
    j = np.minimum(np.maximum(j, 0), xp.shape[0] - 2)
    return j, x < xp[0], x > xp[-1]


@jitable
def _interp_slope(x, xp, fp):
    x = np.asarray(x) * 1.0
    j, below, above = _interp_cells(x, xp)
    slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j])
    return np.where(below | above, 0.0, slope)


@by_type
def interp_slope(x, xp, fp, left=None, right=None):
    """The derivative of numpy.interp(x, xp, fp, left, right) w.r.t. x: the slope of the cell
    each x falls in (0 outside xp)."""
    if is_scalar(x):
        return lambda x, xp, fp, left=None, right=None: \
            float(_interp_slope(np.array([x]), f64(xp), f64(fp))[0])
    return lambda x, xp, fp, left=None, right=None: _interp_slope(x, f64(xp), f64(fp))


@jitable
def _interp_weights(x, xp):
    x = np.asarray(x) * 1.0
    j, below, above = _interp_cells(x, xp)
    t = (x - xp[j]) / (xp[j + 1] - xp[j])
    return j, t, below, above


@jitable
def _interp_linear(x, xp, t, has_left, has_right):
    j, w, below, above = _interp_weights(x, xp)
    out = (1.0 - w) * t[j] + w * t[j + 1]
    out = np.where(below, 0.0 if has_left else t[0], out)
    return np.where(above, 0.0 if has_right else t[-1], out)


@by_type
def interp_linear(x, xp, t, left=None, right=None):
    """numpy.interp(x, xp, t) with the values outside xp zero where left / right are given
    (they are constants): the part of interp's tangent that is linear in fp."""
    has_left, has_right = not is_none(left), not is_none(right)
    if is_scalar(x):
        return lambda x, xp, t, left=None, right=None: float(_interp_linear(
            np.array([x]), f64(xp), f64(t), has_left, has_right)[0])
    return lambda x, xp, t, left=None, right=None: _interp_linear(x, f64(xp), f64(t), has_left,
                                                                  has_right)


@jitable
def _interp_linear_grad(g, x, xp, t, has_left, has_right):
    j, w, below, above = _interp_weights(x, xp)
    g = (np.zeros(j.shape) + g).ravel()
    j, w, below, above = j.ravel(), w.ravel(), below.ravel(), above.ravel()
    out = np.zeros(t.shape[0])
    for k in range(j.shape[0]):
        if below[k]:
            if not has_left:
                out[0] += g[k]
        elif above[k]:
            if not has_right:
                out[-1] += g[k]
        else:
            out[j[k]] += (1.0 - w[k]) * g[k]
            out[j[k] + 1] += w[k] * g[k]
    return out


@by_type
def interp_linear_grad(g, x, xp, t, left=None, right=None):
    """Gradient w.r.t. t (fp) of numpy.interp(x, xp, t, left, right): each x's adjoint split
    between the two ends of its cell."""
    has_left, has_right = not is_none(left), not is_none(right)
    if is_scalar(x):
        return lambda g, x, xp, t, left=None, right=None: _interp_linear_grad(
            g, np.array([x]), f64(xp), f64(t), has_left, has_right)
    return lambda g, x, xp, t, left=None, right=None: _interp_linear_grad(
        g, x, f64(xp), f64(t), has_left, has_right)


@jitable
def _interp_slope_grad(g, x, xp, t):
    j, below, above = _interp_cells(np.asarray(x) * 1.0, xp)
    g = (np.zeros(j.shape) + g).ravel()
    j, below, above = j.ravel(), below.ravel(), above.ravel()
    out = np.zeros(t.shape[0])
    for k in range(j.shape[0]):
        if not (below[k] or above[k]):
            h = g[k] / (xp[j[k] + 1] - xp[j[k]])
            out[j[k] + 1] += h
            out[j[k]] -= h
    return out


@by_type
def interp_slope_grad(g, x, xp, t, left=None, right=None):
    """Gradient w.r.t. t (fp) of interp_slope(x, xp, t)."""
    if is_scalar(x):
        return lambda g, x, xp, t, left=None, right=None: _interp_slope_grad(
            g, np.array([x]), f64(xp), f64(t))
    return lambda g, x, xp, t, left=None, right=None: _interp_slope_grad(g, x, f64(xp), f64(t))


# ---- polyval ----------------------------------------------------------------------------------

@jitable
def _falling(power, k):
    """power (power - 1) ... (power - k + 1): the k-th derivative's factor of x^power."""
    out = 1.0
    for i in range(k):
        out *= power - i
    return out


@jitable
def polyval_deriv(p, x, k=0):
    """The k-th derivative w.r.t. x of numpy.polyval(p, x) (k=0: the polynomial itself)."""
    n = p.shape[0]
    out = np.zeros_like(np.asarray(x) * 1.0)
    for i in range(n - k):
        out = out * x + p[i] * _falling(n - 1 - i, k)
    return out


@by_type
def polyval_deriv_grad_p(g, p, x, k=0):
    """Gradient w.r.t. p of polyval_deriv(p, x, k): coefficient i multiplies the k-th derivative
    of x^(n-1-i)."""
    def grad(g, p, x, k=0):
        n = p.shape[0]
        out = np.zeros(n)
        for i in range(n - k):
            power = n - 1 - i
            out[i] = np.sum(g * _falling(power, k) * np.asarray(x) ** (power - k))
        return out
    return grad


# ---- quantile ---------------------------------------------------------------------------------

def _quantile_layout(a, axis):
    """a with the reduced axis last (flattened for axis None), and how to put it back."""
    a = np.asarray(a, dtype=np.float64)
    if axis is None:
        return a.reshape(1, -1)[0], None
    return np.moveaxis(a, axis, -1), axis


def _quantile_picks(a, q, axis, method, scale):
    """Sorted positions and weights of numpy.quantile(a, q / scale, axis, method): each result
    is w0 * sorted[j] + w1 * sorted[j + 1]; `slope` is d result / d q."""
    moved, _ = _quantile_layout(a, axis)
    order = np.argsort(moved, axis=-1, kind="stable")
    n = moved.shape[-1]
    qs = np.asarray(q, dtype=np.float64) / scale
    h = qs * (n - 1)
    j = np.clip(np.floor(h).astype(np.int64), 0, max(n - 2, 0))
    t = h - j
    if method == "linear":
        w1 = t
    elif method == "lower":
        w1 = np.zeros_like(t)
    elif method == "higher":
        w1 = (t > 0).astype(np.float64)
    elif method == "nearest":
        w1 = np.where(t == 0.5, j % 2, t > 0.5).astype(np.float64)
    elif method == "midpoint":
        w1 = np.where(t > 0, 0.5, 0.0)
    else:
        raise NotImplementedError(f"numpy.quantile: the derivative for method={method!r} is not "
                                  "implemented (linear, lower, higher, nearest, midpoint are)")
    if n == 1:
        j, w1 = np.zeros_like(j), np.zeros_like(t)
    rate = (n - 1) / scale if method == "linear" else 0.0
    return order, j, 1.0 - w1, w1, rate


def _result_layout(g, a, q, axis, keepdims):
    """The result's adjoint as (q's shape..., kept shape of a without the axis)."""
    a = np.asarray(a)
    kept = () if axis is None else tuple(np.delete(np.array(a.shape), axis % a.ndim))
    return np.reshape(g, np.shape(q) + kept) * 1.0


def _scatter_sorted(weights_g, order, j, w0, w1, a, q, axis):
    """Spread per-(q, kept position) amounts at sorted positions j, j + 1 back onto a."""
    moved, _ = _quantile_layout(a, axis)
    n = moved.shape[-1]
    qn = np.ndim(q)
    out_sorted = np.zeros(np.shape(q) + moved.shape)
    body = moved.shape[:-1]
    jj = np.reshape(j, np.shape(q) + (1,) * (len(body) + 1))
    shape = np.shape(q) + body + (1,)
    jj = np.broadcast_to(jj, shape)
    gw = np.reshape(weights_g, shape)
    np.put_along_axis(out_sorted, jj, gw * np.reshape(w0, np.shape(q) + (1,) * (len(body) + 1)),
                      -1)
    upper = np.minimum(jj + 1, n - 1)
    extra = np.zeros(np.shape(q) + moved.shape)
    np.put_along_axis(extra, upper, gw * np.reshape(w1, np.shape(q) + (1,) * (len(body) + 1)),
                      -1)
    out_sorted += extra
    total = np.sum(out_sorted, axis=tuple(range(qn))) if qn else out_sorted
    out = np.zeros(moved.shape)
    np.put_along_axis(out, order, total, -1)
    if axis is None:
        return out.reshape(np.shape(a))
    return np.moveaxis(out, -1, axis)


def quantile_grad_a(g, a, q, axis=None, method="linear", keepdims=False, scale=1.0):
    """Gradient w.r.t. a of numpy.quantile(a, q / scale, axis, method=method, keepdims=keepdims)
    (scale 100: numpy.percentile): each result's adjoint goes to the one or two sorted elements
    it interpolates, with their weights."""
    order, j, w0, w1, _ = _quantile_picks(a, q, axis, method, scale)
    return _scatter_sorted(_result_layout(g, a, q, axis, keepdims), order, j, w0, w1, a, q, axis)


def _sorted_gaps(a, q, axis, scale, method):
    order, j, w0, w1, rate = _quantile_picks(a, q, axis, method, scale)
    moved, _ = _quantile_layout(a, axis)
    s = np.sort(moved, axis=-1)
    n = s.shape[-1]
    body = moved.shape[:-1]
    jj = np.reshape(j, np.shape(q) + (1,) * (len(body) + 1))
    jj = np.broadcast_to(jj, np.shape(q) + body + (1,))
    s = np.broadcast_to(s, np.shape(q) + moved.shape)
    low = np.take_along_axis(s, jj, -1)[..., 0]
    high = np.take_along_axis(s, np.minimum(jj + 1, n - 1), -1)[..., 0]
    return (high - low) * rate, order, j, rate


def quantile_grad_q(g, a, q, axis=None, method="linear", keepdims=False, scale=1.0):
    """Gradient w.r.t. q of numpy.quantile(a, q / scale, ...): the slope of the interpolation,
    (sorted[j + 1] - sorted[j]) (n - 1) / scale, for the linear method (0 for the others)."""
    slope, _, _, _ = _sorted_gaps(a, q, axis, scale, method)
    g = _result_layout(g, a, q, axis, keepdims)
    out = np.sum(g * slope, axis=tuple(range(np.ndim(q), np.ndim(slope))))
    return float(out) if np.ndim(q) == 0 else out


def quantile_tangent(ta, tq, a, q, axis=None, method="linear", keepdims=False, scale=1.0):
    """Tangent of numpy.quantile(a, q / scale, axis, method=method, keepdims=keepdims) along ta
    (for a) and tq (for q)."""
    order, j, w0, w1, _ = _quantile_picks(a, q, axis, method, scale)
    moved, _ = _quantile_layout(a, axis)
    tmoved, _ = _quantile_layout(np.broadcast_to(ta, np.shape(a)), axis)
    ts = np.take_along_axis(tmoved, order, -1)
    n = moved.shape[-1]
    body = moved.shape[:-1]
    jj = np.broadcast_to(np.reshape(j, np.shape(q) + (1,) * (len(body) + 1)),
                         np.shape(q) + body + (1,))
    ts = np.broadcast_to(ts, np.shape(q) + moved.shape)
    w0b = np.reshape(w0, np.shape(q) + (1,) * len(body))
    w1b = np.reshape(w1, np.shape(q) + (1,) * len(body))
    out = w0b * np.take_along_axis(ts, jj, -1)[..., 0] + \
        w1b * np.take_along_axis(ts, np.minimum(jj + 1, n - 1), -1)[..., 0]
    slope, _, _, _ = _sorted_gaps(a, q, axis, scale, method)
    out = out + np.reshape(tq, np.shape(tq) + (1,) * len(body)) * slope
    return _quantile_result(out, a, q, axis, keepdims)


def _quantile_result(out, a, q, axis, keepdims):
    if keepdims:
        a = np.asarray(a)
        kept = (1,) * a.ndim if axis is None else tuple(
            1 if k == axis % a.ndim else n for k, n in enumerate(a.shape))
        out = np.reshape(out, np.shape(q) + kept)
    return float(out) if np.ndim(out) == 0 else out


def quantile_tangent_grad_a(g, ta, tq, a, q, axis=None, method="linear", keepdims=False,
                            scale=1.0):
    """Gradient w.r.t. a of quantile_tangent (the sort order held): tq times the slope, whose
    elements are linear in a."""
    order, j, _, _, rate = _quantile_picks(a, q, axis, method, scale)
    moved, _ = _quantile_layout(a, axis)
    body = moved.shape[:-1]
    g = _result_layout(g, a, q, axis, keepdims)
    weighted = g * np.reshape(tq, np.shape(tq) + (1,) * len(body)) * rate
    ones = np.ones(np.shape(j))
    return _scatter_sorted(weighted, order, j, -ones, ones, a, q, axis)


def quantile_tangent_grad_q(g, ta, a, q, axis=None, method="linear", keepdims=False, scale=1.0):
    """Gradient w.r.t. q of quantile_tangent(ta, tq, a, q): the interpolation weights of ta
    move with q (the linear method)."""
    g = _result_layout(g, a, q, axis, keepdims)
    out = np.sum(g * _tq_slope(np.ones(np.shape(q)), ta, a, q, axis, method, scale),
                 axis=tuple(range(np.ndim(q), np.ndim(g))))
    return float(out) if np.ndim(q) == 0 else out


def quantile_tangent2(ta, tq, a, q, sa, sq, axis=None, method="linear", keepdims=False,
                      scale=1.0):
    """Derivative of quantile_tangent(ta, tq, a, q) along sa and sq, directions for a and q
    (the sort order held: the slope that multiplies tq moves with a, the weights of ta with
    q)."""
    return _quantile_result(_tq_slope(tq, sa, a, q, axis, method, scale) +
                            _tq_slope(sq, ta, a, q, axis, method, scale), a, q, axis, keepdims)


def _tq_slope(tq, sa, a, q, axis, method, scale):
    order, j, _, _, rate = _quantile_picks(a, q, axis, method, scale)
    moved, _ = _quantile_layout(a, axis)
    smoved, _ = _quantile_layout(np.broadcast_to(sa, np.shape(a)), axis)
    ss = np.take_along_axis(smoved, order, -1)
    n = moved.shape[-1]
    body = moved.shape[:-1]
    jj = np.broadcast_to(np.reshape(j, np.shape(q) + (1,) * (len(body) + 1)),
                         np.shape(q) + body + (1,))
    ss = np.broadcast_to(ss, np.shape(q) + moved.shape)
    gap = np.take_along_axis(ss, np.minimum(jj + 1, n - 1), -1)[..., 0] - \
        np.take_along_axis(ss, jj, -1)[..., 0]
    return np.reshape(tq, np.shape(tq) + (1,) * len(body)) * gap * rate


# ---- trapezoid --------------------------------------------------------------------------------

def _trapezoid_weights(n, x, dx, ndim, axis):
    """Per-sample weights along the axis: dx/2 (1, 2, ..., 2, 1), or from the sample points x
    (half the widths of the neighbouring intervals)."""
    if x is None:
        w = np.full(n, float(dx))
        w[0] = w[-1] = 0.5 * dx
        return w.reshape((n,) + (1,) * ((-1 - axis) % ndim)) if ndim > 1 else w
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1:
        h = np.diff(x)
        w = np.zeros(n)
        w[:-1] += 0.5 * h
        w[1:] += 0.5 * h
        return w.reshape((n,) + (1,) * ((-1 - axis) % ndim)) if ndim > 1 else w
    h = np.moveaxis(np.diff(x, axis=axis), axis, -1)
    w = np.zeros(h.shape[:-1] + (n,))
    w[..., :-1] += 0.5 * h
    w[..., 1:] += 0.5 * h
    return np.moveaxis(w, -1, axis)


def trapezoid_grad_y(g, y, x=None, dx=1.0, axis=-1):
    """Gradient w.r.t. y of numpy.trapezoid(y, x, dx, axis): the adjoint spread with each
    sample's weight."""
    y = np.asarray(y, dtype=np.float64)
    w = _trapezoid_weights(y.shape[axis], x, dx, y.ndim, axis)
    return core.unbroadcast(np.expand_dims(np.asarray(g, dtype=np.float64), axis) * w, y)


def trapezoid_grad_x(g, y, x, dx=1.0, axis=-1):
    """Gradient w.r.t. x (the sample points) of numpy.trapezoid(y, x, dx, axis): the result is
    the sum of (x[i+1] - x[i]) (y[i] + y[i+1]) / 2."""
    y = np.asarray(y, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    ym = np.moveaxis(y, axis, -1)
    avg = 0.5 * (ym[..., 1:] + ym[..., :-1])
    gm = np.asarray(g, dtype=np.float64)[..., None] * avg
    out = np.zeros(ym.shape)
    out[..., 1:] += gm
    out[..., :-1] -= gm
    out = np.moveaxis(out, -1, axis)
    if x.ndim == 1:
        return np.sum(np.moveaxis(out, axis, -1).reshape(-1, x.shape[0]), axis=0)
    return core.unbroadcast(out, x)


def trapezoid_points_tangent(y, tx, axis=-1):
    """The part of numpy.trapezoid(y, x, dx, axis)'s tangent from tx, the tangent of the sample
    points x (0.0 when x is None or constant): numpy.trapezoid(y, tx), linear in tx."""
    if np.ndim(tx) == 0:
        return 0.0 if np.ndim(y) <= 1 else np.zeros(np.delete(np.shape(y), axis % np.ndim(y)))
    return np.trapezoid(y, tx, 1.0, axis)


def trapezoid_points_tangent_grad_y(g, y, tx, axis=-1):
    """Gradient w.r.t. y of trapezoid_points_tangent(y, tx, axis)."""
    if np.ndim(tx) == 0:
        return np.zeros(np.shape(y))
    return trapezoid_grad_y(g, y, tx, 1.0, axis)


def trapezoid_points_tangent_grad_x(g, y, tx, axis=-1):
    """Gradient w.r.t. tx of trapezoid_points_tangent(y, tx, axis)."""
    if np.ndim(tx) == 0:
        return 0.0
    return trapezoid_grad_x(g, y, tx, 1.0, axis)


