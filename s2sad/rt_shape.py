"""Runtime helpers for the derivative templates of shape and indexing functions (templates/numpy_shape.py).

Re-exported by s2sad.rt (generated code calls them as rt.<name>); their Numba implementations are
in rt_numba_shape.py.
"""
import numpy as np  # noqa: F401

__all__ = ["concatenate_grads"]


def concatenate_grads(g, arrays, axis):
    """Adjoints of the arrays of z = np.concatenate(arrays, axis): g cut back into pieces."""
    out = []
    start = 0
    for a in arrays:
        n = a.shape[axis]
        out.append(np.ascontiguousarray(np.take(g, np.arange(start, start + n), axis=axis)))
        start += n
    return tuple(out)
