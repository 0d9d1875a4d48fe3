"""Transitional: what numba_shape.py still imports, until its helpers are defined once in
shape.py (dispatch.py). Every other helper registers itself with `dispatch.install()`."""
from numba import types

from .arrays import filled as _filled, norm_axis as _norm_axis  # noqa: F401


def _is_scalar(t):
    return isinstance(t, (types.Number, types.Boolean))


def _is_array(t, ndim=None):
    return isinstance(t, types.Array) and (ndim is None or t.ndim == ndim)


def _is_none(t):
    return t is None or isinstance(t, (types.NoneType, types.Omitted))

