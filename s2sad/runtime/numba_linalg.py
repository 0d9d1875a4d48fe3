"""Numba implementations of the helpers in rt_linalg.py (imported by rt_numba.py).

Only the operand forms Numba's own NumPy supports are implemented (1-D and 2-D operands, one
matrix rather than a stack, default axes); for the others the overload declines (returns None)
and the gradient falls back to Python, as the primal call itself would.
"""
import numpy as np
from numba import njit, types
from numba.extending import overload

from . import rt
from .numba_core import _f64, _is_array, _is_none, _is_scalar
from .numba_shape import _is_constant


def _c64(x):
    """x as a C-contiguous float64 array (Numba only)."""
    raise NotImplementedError("only callable from Numba-compiled code")


@overload(_c64)
def _ov_c64(x):
    if not _is_array(x):
        return None
    if x.dtype == types.float64:
        if x.layout == "C":
            return lambda x: x
        return lambda x: np.ascontiguousarray(x)
    return lambda x: x.astype(np.float64)  # astype returns a C-contiguous copy


# ---- products -----------------------------------------------------------------------------------

@overload(rt.vdot_grad)
def _ov_vdot_grad(g, other, like):
    if _is_scalar(g) and _is_array(other) and _is_array(like):
        return lambda g, other, like: g * _c64(other).reshape(like.shape)
    return None


def _mat(x):
    """x as a C-contiguous float64 matrix: a scalar is 1 x 1, a vector a row (Numba only)."""
    raise NotImplementedError("only callable from Numba-compiled code")


@overload(_mat)
def _ov_mat(x):
    if _is_scalar(x):
        return lambda x: np.full((1, 1), float(x))
    if _is_array(x, 1):
        return lambda x: _c64(x).reshape((1, x.shape[0]))
    if _is_array(x, 2):
        return lambda x: _c64(x)
    return None


def _shaped_like(r, like):
    """r (a matrix) reshaped to like's shape; a float when like is a scalar (Numba only)."""
    raise NotImplementedError("only callable from Numba-compiled code")


@overload(_shaped_like)
def _ov_shaped_like(r, like):
    if _is_scalar(like):
        return lambda r, like: r.sum()
    if _is_array(like):
        return lambda r, like: r.reshape(like.shape)
    return None


@overload(rt.outer_grad_a)
def _ov_outer_grad_a(g, a, b):
    if _is_array(g, 2):
        # g @ flat(b), reshaped like a (np.outer flattens its operands)
        return lambda g, a, b: _shaped_like(np.dot(_f64(g), _mat(b).ravel()), a)
    return None


@overload(rt.outer_grad_b)
def _ov_outer_grad_b(g, a, b):
    if _is_array(g, 2):
        return lambda g, a, b: _shaped_like(np.dot(_mat(a).ravel(), _f64(g)), b)
    return None


@njit(cache=True)
def _kron_grad_2d(g, a, b, of_a):
    """Gradient w.r.t. a (of_a) or b of np.kron(a, b) for matrices a, b and g of kron's shape:
    z[i * p + k, j * q + m] = a[i, j] * b[k, m]."""
    p, q = b.shape
    out = np.zeros(a.shape) if of_a else np.zeros(b.shape)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            for k in range(p):
                for m in range(q):
                    if of_a:
                        out[i, j] += g[i * p + k, j * q + m] * b[k, m]
                    else:
                        out[k, m] += g[i * p + k, j * q + m] * a[i, j]
    return out


def _kron_ok(g, a, b):
    """Numba's np.kron: scalars, vectors and matrices (a vector counts as a row)."""
    return all(_is_scalar(x) or _is_array(x, 1) or _is_array(x, 2) for x in (g, a, b))


@overload(rt.kron_grad_a)
def _ov_kron_grad_a(g, a, b):
    if _kron_ok(g, a, b):
        return lambda g, a, b: _shaped_like(_kron_grad_2d(_mat(g), _mat(a), _mat(b), True), a)
    return None


@overload(rt.kron_grad_b)
def _ov_kron_grad_b(g, a, b):
    if _kron_ok(g, a, b):
        return lambda g, a, b: _shaped_like(_kron_grad_2d(_mat(g), _mat(a), _mat(b), False), b)
    return None


def _default_cross_axes(axisa, axisb, axisc, axis):
    """Numba only compiles np.cross with its default axes (components last)."""
    return all(isinstance(t, types.Integer) for t in (axisa, axisb, axisc)) and _is_none(axis)


@overload(rt.cross_grad_a)
def _ov_cross_grad_a(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if _is_array(a) and _is_array(b) and _is_array(g) and \
            _default_cross_axes(axisa, axisb, axisc, axis):
        def impl(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
            if axisa != -1 or axisb != -1 or axisc != -1:
                raise ValueError("cross_grad_a: only the default axes are compiled")
            return rt.unbroadcast(np.cross(b, g), a)
        return impl
    return None


@overload(rt.cross_grad_b)
def _ov_cross_grad_b(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if _is_array(a) and _is_array(b) and _is_array(g) and \
            _default_cross_axes(axisa, axisb, axisc, axis):
        def impl(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
            if axisa != -1 or axisb != -1 or axisc != -1:
                raise ValueError("cross_grad_b: only the default axes are compiled")
            return rt.unbroadcast(np.cross(g, a), b)
        return impl
    return None


@overload(rt.trace_grad)
def _ov_trace_grad(g, a, offset=0, axis1=0, axis2=1):
    if _is_array(a, 2) and _is_scalar(g):
        def impl(g, a, offset=0, axis1=0, axis2=1):
            out = np.zeros(a.shape)
            n1, n2 = a.shape
            if axis1 % 2 > axis2 % 2:  # the diagonal of a.T
                n1, n2 = n2, n1
            for i in range(max(0, -offset), min(n1, n2 - offset)):
                if axis1 % 2 > axis2 % 2:
                    out[i + offset, i] = g
                else:
                    out[i, i + offset] = g
            return out
        return impl
    return None


# ---- numpy.linalg (one matrix; stacks fall back to Python) --------------------------------------

@overload(rt.inv_grad)
def _ov_inv_grad(g, z):
    if _is_array(g, 2) and _is_array(z, 2):
        def impl(g, z):
            zt = _f64(z).T
            return -np.dot(np.dot(zt, _f64(g)), zt)
        return impl
    return None


@overload(rt.solve_grad_a)
def _ov_solve_grad_a(g, a, b, z):
    if not (_is_array(a, 2) and _is_array(g) and _is_array(z)):
        return None
    if _is_array(b, 1):
        # -(a^-T g) z^T
        return lambda g, a, b, z: -np.outer(np.linalg.solve(_f64(a).T, _f64(g)), _f64(z))
    if _is_array(b, 2):
        return lambda g, a, b, z: -np.dot(np.linalg.solve(_f64(a).T, _f64(g)), _f64(z).T)
    return None


@overload(rt.solve_grad_b)
def _ov_solve_grad_b(g, a, b):
    if _is_array(a, 2) and _is_array(g) and _is_array(b) and b.ndim in (1, 2):
        return lambda g, a, b: np.linalg.solve(_f64(a).T, _f64(g))
    return None


@overload(rt.logdet_grad)
def _ov_logdet_grad(g, a):
    if _is_scalar(g) and _is_array(a, 2):
        return lambda g, a: np.ascontiguousarray(np.linalg.inv(_f64(a)).T) * g
    return None


@njit(cache=True)
def _cholesky_grad_lower(g, factor):
    """cholesky_grad for the lower factor of one matrix (see rt_linalg.cholesky_grad)."""
    n = factor.shape[0]
    c = np.dot(factor.T, g)
    phi = np.tril(c, -1)
    for i in range(n):
        phi[i, i] = 0.5 * c[i, i]
    linv = np.linalg.inv(factor)
    x = np.dot(np.dot(linv.T, phi), linv)
    out = np.zeros((n, n))
    for i in range(n):
        out[i, i] = x[i, i]
        for j in range(i):
            out[i, j] = x[i, j] + x[j, i]
    return out


@overload(rt.cholesky_grad)
def _ov_cholesky_grad(g, factor, upper=False):
    if _is_array(g, 2) and _is_array(factor, 2):
        def impl(g, factor, upper=False):
            if upper:
                return np.ascontiguousarray(
                    _cholesky_grad_lower(_c64(g.T), _c64(factor.T)).T)
            return _cholesky_grad_lower(_c64(g), _c64(factor))
        return impl
    return None


# ---- tangents (forward mode) ---------------------------------------------------------------------

@overload(rt.cross, prefer_literal=True)
def _ov_cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if not (_is_none(axis) and _is_array(a) and _is_array(b) and
            all(_is_constant(x, -1) for x in (axisa, axisb, axisc))):
        return None  # Numba's np.cross takes the default axes only
    return lambda a, b, axisa=-1, axisb=-1, axisc=-1, axis=None: \
        np.cross(a, b).astype(np.float64)


@overload(rt.trace, prefer_literal=True)
def _ov_trace(a, offset=0, axis1=0, axis2=1):
    if not (_is_array(a, 2) and _is_constant(axis1, 0, -2) and _is_constant(axis2, 1, -1)):
        return None  # a matrix's trace, on its axes in order
    return lambda a, offset=0, axis1=0, axis2=1: float(np.trace(a, offset))


@overload(rt.solve_product)
def _ov_solve_product(m, z, b):
    if not (_is_array(m, 2) and _is_array(z) and z.ndim in (1, 2)):
        return None
    return lambda m, z, b: np.dot(np.ascontiguousarray(m), np.ascontiguousarray(z))


@overload(rt.solve_product_grad_m)
def _ov_solve_product_grad_m(g, m, z, b):
    if not (_is_array(m, 2) and _is_array(z) and _is_array(b)):
        return None
    if b.ndim == 1:
        return lambda g, m, z, b: np.outer(g, z)
    return lambda g, m, z, b: np.dot(np.ascontiguousarray(g), np.ascontiguousarray(z.T))


@overload(rt.solve_product_grad_z)
def _ov_solve_product_grad_z(g, m, z, b):
    if not (_is_array(m, 2) and _is_array(z) and _is_array(b)):
        return None
    return lambda g, m, z, b: np.dot(np.ascontiguousarray(m.T), np.ascontiguousarray(g))


@overload(rt.cholesky_lower)
def _ov_cholesky_lower(x, upper=False):
    if not _is_array(x, 2):
        return None

    def impl(x, upper=False):
        if upper:
            return np.ascontiguousarray(x.T).astype(np.float64)
        return np.ascontiguousarray(x).astype(np.float64)
    return impl


@overload(rt.cholesky_mask)
def _ov_cholesky_mask(factor):
    if not _is_array(factor, 2):
        return None

    def impl(factor):
        n = factor.shape[-1]
        return np.tril(np.ones((n, n))) - 0.5 * np.eye(n)
    return impl
