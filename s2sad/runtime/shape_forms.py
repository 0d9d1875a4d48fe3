"""NumPy's shape functions in the forms array code writes and Numba lacks, in compiled code:
`numpy.repeat` along an int axis (autograd's RNN: `np.repeat(h0, n, axis=0)`), `numpy.reshape` of
an array that is not contiguous (a column slice: `w[:, :k].reshape(...)`), and `numpy.vstack` or
`numpy.concatenate` of a list grown in a loop, which has become one array (rt.stacked_rows).
reduction_forms.py does the same for reductions."""
import functools

import numpy as np

from .dispatch import by_type, generate, is_array, is_constant, is_int, numba_overload, \
    python_only

__all__ = ["stacked_rows"]


@functools.lru_cache(maxsize=None)
def repeat_along(nd, kind):
    """np.repeat(a, repeats, axis) of an array of nd dims, an int `repeats` and an int axis
    (Numba's np.repeat takes no axis), or its adjoint (kind "grad"): a seen as (before the
    axis, along it, after it), each element of the middle copied `repeats` times in turn."""
    sizes = ["pre = 1", "post = 1", f"for k in range({nd}):",
             "    if k < ax:", "        pre *= a.shape[k]",
             "    elif k > ax:", "        post *= a.shape[k]", "n = a.shape[ax]"]
    lines = [f"ax = axis + {nd} if axis < 0 else axis", *sizes]
    if kind == "grad":
        lines += ["copies = np.ascontiguousarray(g).reshape((pre, n, repeats, post))",
                  "out = np.zeros((pre, n, post))",
                  "for i in range(pre):", "    for j in range(n):",
                  "        for r in range(repeats):", "            for k in range(post):",
                  "                out[i, j, k] += copies[i, j, r, k]",
                  "return out.reshape(a.shape)"]
        return generate(f"repeat_axis_grad_{nd}", ["g", "a", "repeats", "axis"], lines, {})
    shape = ", ".join(f"a.shape[{k}] * (repeats if ax == {k} else 1)" for k in range(nd))
    lines += ["flat = np.ascontiguousarray(a).reshape((pre, n, post))",
              "out = np.empty((pre, n * repeats, post), np.float64)",
              "for i in range(pre):", "    for j in range(n):",
              "        for r in range(repeats):", "            for k in range(post):",
              "                out[i, j * repeats + r, k] = flat[i, j, k]",
              f"return out.reshape(({shape},))"]
    return generate(f"repeat_axis_{nd}", ["a", "repeats", "axis=None"], lines, {})


@numba_overload(np.repeat)
def _repeat_function(a, repeats, axis=None):
    """numpy.repeat(a, repeats, axis) in compiled code, for an int repeats and an int axis."""
    if is_array(a) and a.ndim >= 1 and is_int(repeats) and is_int(axis):
        return repeat_along(a.ndim, "value")
    return None


@numba_overload(np.reshape)
def _reshape_function(a, shape):
    """numpy.reshape of an array that is not C-contiguous (`weights[:, :k].reshape(...)`) in
    compiled code, which Numba reshapes only when it is: a C-ordered copy reshaped, the values
    NumPy's reshape gives (a view where it can, which code writing into it would tell apart)."""
    if is_array(a) and a.layout != "C":
        return lambda a, shape: np.ascontiguousarray(a).reshape(shape)
    return None


@by_type(prefer_literal=True)
def stacked_rows(rows, kind):
    """numpy.vstack (kind "vstack") or numpy.concatenate (kind "concatenate") of a list whose
    elements became the rows of one array (a list grown in a loop: container_buffers.py):
    both are reshapes of that array, which Numba's functions (taking a sequence) do not see."""
    vstack = is_constant(kind, "vstack")
    if not (is_array(rows) and (vstack or is_constant(kind, "concatenate"))) or \
            rows.ndim < (1 if vstack else 2):
        return python_only(_stacked_rows)
    if rows.ndim == 1:        # numbers stacked: a column
        return lambda rows, kind: np.ascontiguousarray(rows).reshape((rows.shape[0], 1)) \
            .astype(np.float64)
    if rows.ndim == 2 and vstack:    # vectors stacked: the array itself
        return lambda rows, kind: np.ascontiguousarray(rows).astype(np.float64)
    if rows.ndim == 2:        # vectors joined: one long vector
        return lambda rows, kind: np.ascontiguousarray(rows).reshape(rows.size) \
            .astype(np.float64)
    rest = ", ".join(f"rows.shape[{k}]" for k in range(2, rows.ndim))
    return generate(f"stacked_rows_{rows.ndim}", ["rows", "kind"],
                    [f"return np.ascontiguousarray(rows).reshape((rows.shape[0] * "
                     f"rows.shape[1], {rest})).astype(np.float64)"], {})


def _stacked_rows(rows, kind):
    function = np.vstack if kind == "vstack" else np.concatenate
    return np.asarray(function(list(rows)), dtype=np.float64)
