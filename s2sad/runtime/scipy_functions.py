"""scipy.optimize's Rosenbrock function and scipy.spatial.distance's differentiable distances
as runtime helpers (templates/scipy_optimize.py, templates/scipy_spatial.py): generated code
calls them in scipy's place (`call_as=`), and their derivatives call the `_der` forms.

scipy's own functions first validate and convert their arguments (and rosen goes through the
array-API dispatch), which neither Numba nor s2sad can read; these are the same formulas on
float arrays, one definition run as Python and compiled by Numba.

rosen(x) = sum over i of 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2, along the first axis (a
column per point when x is 2-D, as scipy's). The distances take 1-D u, v and optional
weights w (None: all ones).
"""
import numpy as np

from .dispatch import by_type, is_array, jitable

__all__ = ["rosen", "rosen_der", "rosen_hess_prod", "rosen_hess_prod_der",
           "rosen_fourth", "sqeuclidean", "euclidean", "cityblock",
           "minkowski", "cosine", "cosine_der", "cosine_weights_der", "braycurtis",
           "braycurtis_der"]


@by_type
def rosen(x):
    if is_array(x, 1):
        return lambda x: np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
    return lambda x: np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2, axis=0)


@jitable
def rosen_der(x):
    """The gradient of rosen at x (shaped like x)."""
    der = np.zeros_like(x)
    der[1:-1] = 200.0 * (x[1:-1] - x[:-2] ** 2) - \
        400.0 * (x[2:] - x[1:-1] ** 2) * x[1:-1] - 2.0 * (1.0 - x[1:-1])
    der[0] = -400.0 * x[0] * (x[1] - x[0] ** 2) - 2.0 * (1.0 - x[0])
    der[-1] = 200.0 * (x[-1] - x[-2] ** 2)
    return der


@jitable
def rosen_hess_prod(x, p):
    """The Hessian of rosen at x times p (both shaped like x): the derivative of rosen_der."""
    out = np.zeros_like(x * p)
    out[0] = (1200.0 * x[0] ** 2 - 400.0 * x[1] + 2.0) * p[0] - 400.0 * x[0] * p[1]
    out[1:-1] = -400.0 * x[:-2] * p[:-2] + \
        (202.0 + 1200.0 * x[1:-1] ** 2 - 400.0 * x[2:]) * p[1:-1] - 400.0 * x[1:-1] * p[2:]
    out[-1] = -400.0 * x[-2] * p[-2] + 200.0 * p[-1]
    return out


@jitable
def rosen_hess_prod_der(x, p, g):
    """d (g . rosen_hess_prod(x, p)) / dx (1-D x, p, g)."""
    out = np.zeros_like(x * p * g)
    out[:-1] = 2400.0 * x[:-1] * p[:-1] * g[:-1] - 400.0 * (p[:-1] * g[1:] + p[1:] * g[:-1])
    out[1:] = out[1:] - 400.0 * p[:-1] * g[:-1]
    return out


@jitable
def rosen_fourth(p, g):
    """The derivative of rosen_hess_prod_der(x, p, g) in x: a diagonal, 2400 p g."""
    out = np.zeros_like(p * g)
    out[:-1] = 2400.0 * p[:-1] * g[:-1]
    return out


@jitable
def _weighted(t, w):
    return t if w is None else t * w


@jitable
def sqeuclidean(u, v, w=None):
    return np.sum(_weighted((u - v) ** 2, w))


@jitable
def euclidean(u, v, w=None):
    return np.sqrt(sqeuclidean(u, v, w))


@jitable
def cityblock(u, v, w=None):
    return np.sum(_weighted(np.abs(u - v), w))


@jitable
def minkowski(u, v, p=2.0, w=None):
    return np.sum(_weighted(np.abs(u - v) ** p, w)) ** (1.0 / p)


@jitable
def cosine(u, v, w=None):
    uv, uu, vv = np.sum(_weighted(u * v, w)), np.sum(_weighted(u * u, w)), \
        np.sum(_weighted(v * v, w))
    return 1.0 - uv / np.sqrt(uu * vv)


@jitable
def cosine_der(u, v, w=None):
    """d cosine(u, v, w) / du (swap u and v for d/dv)."""
    uv, uu, vv = np.sum(_weighted(u * v, w)), np.sum(_weighted(u * u, w)), \
        np.sum(_weighted(v * v, w))
    root = np.sqrt(uu * vv)
    return _weighted(uv / (uu * root) * u - v / root, w)


@jitable
def cosine_weights_der(u, v, w=None):
    """d cosine(u, v, w) / dw."""
    uv, uu, vv = np.sum(_weighted(u * v, w)), np.sum(_weighted(u * u, w)), \
        np.sum(_weighted(v * v, w))
    root = np.sqrt(uu * vv)
    return 0.5 * uv / root * (u * u / uu + v * v / vv) - u * v / root


@jitable
def braycurtis(u, v, w=None):
    return np.sum(_weighted(np.abs(u - v), w)) / np.sum(_weighted(np.abs(u + v), w))


@jitable
def braycurtis_der(u, v, w=None):
    """d braycurtis(u, v, w) / du (for d/dv: the sign of u - v flips)."""
    top, bottom = np.sum(_weighted(np.abs(u - v), w)), np.sum(_weighted(np.abs(u + v), w))
    return _weighted(np.sign(u - v) / bottom - top * np.sign(u + v) / bottom ** 2, w)
