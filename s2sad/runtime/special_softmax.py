"""scipy.special's reductions of exponentials as runtime helpers (templates/scipy_special.py):
`logsumexp` (axis, keepdims, weights `b`), `softmax` and `log_softmax`, which generated code
calls in scipy's place (`call_as=`), and `weighted`, which their derivatives call.

Python runs scipy itself. Numba compiles s2sad's own loops for a whole array (axis None) and
for one axis (an int, negative allowed): the largest element of each reduced slice is taken
out before the exponentials (log sum b e^a = m + log sum b e^(a - m)), so nothing overflows.
A tuple of axes, and `return_sign=True`, run as Python.
"""
import numpy as np

from .core import unreduce, zeros_like
from .dispatch import by_type, constant, is_array, is_int, is_none, is_scalar, is_tuple, \
    jitable, python_only

__all__ = ["logsumexp", "softmax", "log_softmax", "weighted", "kept_sum", "lse_value",
           "lse_sign", "lse_pack"]


def scipy_special():
    """scipy.special, imported where Python first needs it (not by `import s2sad`)."""
    import scipy.special
    return scipy.special


@jitable
def _shift(top):
    """The shift for a slice whose largest element is `top`: 0 when it is not finite (all
    -inf: the sum is 0 and its log -inf; +inf or NaN: the result is inf or NaN anyway)."""
    return top if np.isfinite(top) else 0.0


@jitable
def _max_kept(a, axis):
    """The shift of every slice of `a` along `axis` (an int), that axis kept with size 1."""
    c = np.ascontiguousarray(np.swapaxes(a, axis, -1))
    n = c.shape[-1]
    rows = c.reshape((c.size // max(n, 1), n))
    top = np.empty(rows.shape[0])
    for i in range(rows.shape[0]):
        best = -np.inf
        for j in range(n):
            if rows[i, j] > best or np.isnan(rows[i, j]):
                best = rows[i, j]
        top[i] = _shift(best)
    return np.swapaxes(top.reshape(c.shape[:-1] + (1,)), axis, -1)


@jitable
def _times(x, b):
    return x if b is None else x * b


@jitable
def _lse_all(a, b):
    """log sum b e^a over the whole array."""
    m = _shift(np.max(a)) if a.size else 0.0
    return np.log(np.sum(_times(np.exp(a - m), b))) + m


@jitable
def _lse_axis(a, axis, b):
    """log sum b e^a over `axis` (an int); the axis dropped."""
    axis = axis % a.ndim
    kept = _max_kept(a, axis)
    total = np.sum(_times(np.exp(a - kept), b), axis=axis)
    return np.log(total) + np.sum(kept, axis=axis)


def _scipy_logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    return scipy_special().logsumexp(a, axis=axis, b=b, keepdims=keepdims,
                                     return_sign=return_sign)


@by_type
def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """scipy.special.logsumexp: log(sum(b * exp(a), axis)), computed without overflow."""
    keep, signed = constant(keepdims), constant(return_sign)
    if signed is not False or not isinstance(keep, bool) or \
            not (is_none(b) or is_scalar(b) or is_array(b)):
        return python_only(_scipy_logsumexp)
    if is_scalar(a) and is_none(axis) and not keep:
        return lambda a, axis=None, b=None, keepdims=False, return_sign=False: \
            float(a) + np.log(_times(1.0, b))
    if not is_array(a) or a.ndim == 0 or not (is_none(axis) or is_int(axis)):
        return python_only(_scipy_logsumexp)
    if is_none(axis):
        ones = (1,) * a.ndim
        if keep:
            return lambda a, axis=None, b=None, keepdims=False, return_sign=False: \
                np.full(ones, _lse_all(a, b))
        return lambda a, axis=None, b=None, keepdims=False, return_sign=False: \
            _lse_all(a, b)
    if keep:
        def kept_axis(a, axis=None, b=None, keepdims=False, return_sign=False):
            return _lse_axis(a, axis, b).reshape(_max_kept(a, axis % a.ndim).shape)
        return kept_axis
    return lambda a, axis=None, b=None, keepdims=False, return_sign=False: \
        _lse_axis(a, axis, b)


@jitable
def _log_softmax_all(x):
    return x - _lse_all(x, None)


@jitable
def _log_softmax_axis(x, axis):
    axis = axis % x.ndim
    kept = _max_kept(x, axis)
    shifted = x - kept
    total = np.sum(np.exp(shifted), axis=axis)
    return shifted - np.log(total).reshape(kept.shape)


def _dispatch_softmax(x, axis, name, whole, along):
    """The implementation of scipy.special.<name>(x, axis): `whole` (axis None) or `along`
    (an int axis) compiled; Python runs scipy."""
    def library(x, axis=None):
        return getattr(scipy_special(), name)(x, axis=axis)
    if not is_array(x) or x.ndim == 0 or not (is_none(axis) or is_int(axis)):
        return python_only(library)
    if is_none(axis):
        return lambda x, axis=None: whole(x)
    return lambda x, axis=None: along(x, axis)


@by_type
def log_softmax(x, axis=None):
    """scipy.special.log_softmax: x - logsumexp(x, axis, keepdims=True)."""
    return _dispatch_softmax(x, axis, "log_softmax", _log_softmax_all, _log_softmax_axis)


@jitable
def _softmax_all(x):
    return np.exp(_log_softmax_all(x))


@jitable
def _softmax_axis(x, axis):
    return np.exp(_log_softmax_axis(x, axis))


@by_type
def softmax(x, axis=None):
    """scipy.special.softmax: exp(x) / sum(exp(x), axis), without overflow."""
    return _dispatch_softmax(x, axis, "softmax", _softmax_all, _softmax_axis)


@by_type
def weighted(x, b):
    """x * b, or x when b is None (logsumexp's weights, given or not)."""
    if is_none(b):
        return lambda x, b: x
    return lambda x, b: x * b


@jitable
def _kept_sum_axis(t, axis):
    c = np.ascontiguousarray(np.swapaxes(t, axis % t.ndim, -1)).astype(np.float64)
    n = c.shape[-1]
    rows = c.reshape((c.size // max(n, 1), n))
    for i in range(rows.shape[0]):
        total = 0.0
        for j in range(n):
            total += rows[i, j]
        for j in range(n):
            rows[i, j] = total
    return np.ascontiguousarray(np.swapaxes(c, axis % t.ndim, -1))


def _kept_sum_numpy(t, axis):
    return np.broadcast_to(np.sum(t, axis=axis, keepdims=True), np.shape(t)).astype(np.float64)


@by_type
def kept_sum(t, axis):
    """The sum of t over `axis` (None: all of it) spread back over the summed elements: t's
    shape. (Linear, and its own adjoint: what softmax's derivatives subtract.)"""
    if is_scalar(t):
        return lambda t, axis: float(t)
    if not is_array(t) or not (is_none(axis) or is_int(axis) and t.ndim > 0):
        return python_only(_kept_sum_numpy)
    if is_none(axis):
        return lambda t, axis: np.full(t.shape, np.sum(t) * 1.0)
    return lambda t, axis: _kept_sum_axis(t, axis)


# logsumexp(..., return_sign=True) returns (log|sum|, sign): its rule reads the two through
# these, which are the value itself (and a sign of 1) for the plain result.

@by_type
def lse_value(z):
    """log|sum b e^a|: z, or z[0] of (value, sign)."""
    if is_tuple(z):
        return lambda z: z[0]
    return lambda z: z


@by_type
def lse_sign(z, a, axis):
    """The sign of sum b e^a, spread over a's shape (1.0 without return_sign)."""
    if is_tuple(z):
        return lambda z, a, axis: unreduce(z[1], a, axis)
    return lambda z, a, axis: 1.0


@by_type
def lse_pack(t, z):
    """A tangent of logsumexp's result shaped as z: t, or (t, 0) for (value, sign)."""
    if is_tuple(z):
        return lambda t, z: (t, zeros_like(z[1]))
    return lambda t, z: t
