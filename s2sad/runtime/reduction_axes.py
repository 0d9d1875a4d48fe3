"""numpy.max/amax/min/amin along one int axis in compiled code, and their gradient (issue 47:
a log-sum-exp's `peak = np.max(a, axis=0)`).

Numba's own np.max and np.min take no `axis`; `numba_overload` gives compiled code a loop nest
for an array and an int `axis` (negative allowed, known only at run time): one nest per axis of
the array's rank, the result of that axis chosen by a branch. NaN propagates as in NumPy. The
gradient `extremum_axis_loop` splits each result's adjoint evenly among the elements equal to it
(ties), the same products as reductions._extremum_grad, which Python runs.
"""
import functools

import numpy as np

from .arrays import indices, reduced_mask
from .dispatch import generate, is_array, is_int, numba_overload

__all__ = []


def _without(nd, ax, names):
    """The index (or shape) of a's result: `names` of a's nd dims but the ax-th."""
    kept = [names[k] for k in range(nd) if k != ax]
    return ", ".join(kept) + ("," if len(kept) == 1 else "")


def _nest(nd, body, indent=1):
    """Loops over a's nd dims (i0 outer), then `body`, indented `indent` levels."""
    pad = "    " * indent
    lines = [f"{pad}{'    ' * k}for i{k} in range(a.shape[{k}]):" for k in range(nd)]
    return lines + [pad + "    " * nd + line for line in body]


@functools.lru_cache(maxsize=None)
def _extremum_loop(nd, largest):
    """`numpy.max(a, axis)` (or min) for a of nd >= 2 dims and a run-time int axis."""
    names = [f"i{k}" for k in range(nd)]
    shape = [f"a.shape[{k}]" for k in range(nd)]
    beyond = ">" if largest else "<"
    lines = ["ax = axis + nd if axis < 0 else axis",
             "if ax < 0 or ax >= nd:",
             "    raise ValueError('axis is out of bounds for array')",
             "if a.shape[ax] == 0:",
             "    raise ValueError('zero-size array to reduction operation which has no "
             "identity')"]
    for ax in range(nd):
        at = _without(nd, ax, names)
        lines += [f"if ax == {ax}:",
                  f"    out = np.empty(({_without(nd, ax, shape)}), a.dtype)",
                  *_nest(nd, [f"v = a[{indices(nd)}]",
                              f"if i{ax} == 0 or v {beyond} out[{at}] or v != v:",
                              f"    if i{ax} == 0 or out[{at}] == out[{at}]:",
                              f"        out[{at}] = v"]),
                  "    return out"]
    lines.append("return np.empty((" + ", ".join(["0"] * (nd - 1)) + ",), a.dtype)")
    return generate(f"{'max' if largest else 'min'}_axis_{nd}", ["a", "axis=None"],
                    [f"nd = {nd}", *lines], {})


def _typing(largest):
    def typing(a, axis=None):
        if not (is_array(a) and is_int(axis)):
            return None    # Numba's own (no axis), or its error
        if a.ndim == 1:
            if largest:
                return lambda a, axis=None: np.max(a)
            return lambda a, axis=None: np.min(a)
        return _extremum_loop(a.ndim, largest)
    return typing


for _function in {np.max, np.amax}:
    numba_overload(_function)(_typing(True))
for _function in {np.min, np.amin}:
    numba_overload(_function)(_typing(False))


@functools.lru_cache(maxsize=None)
def extremum_axis_loop(nd):
    """Numba's extremum_grad(g, a, z, axis) for a of nd >= 2 dims and g, z of nd - 1 dims (the
    result of numpy.max/min along the int `axis`): two passes, the first counting the ties."""
    names = [f"i{k}" for k in range(nd)]
    lines = [f"ax = axis + {nd} if axis < 0 else axis",
             "out = np.zeros(a.shape)",
             "count = np.zeros(z.shape)"]
    for ax in range(nd):
        at = _without(nd, ax, names)
        lines += [f"if ax == {ax}:",
                  *_nest(nd, [f"if a[{indices(nd)}] == z[{at}]:",
                              f"    count[{at}] += 1.0"]),
                  *_nest(nd, [f"if a[{indices(nd)}] == z[{at}]:",
                              f"    out[{indices(nd)}] = g[{at}] / count[{at}]",
                              "else:",
                              f"    out[{indices(nd)}] = 0.0 * g[{at}]"]),
                  "    return out"]
    lines.append("return out")
    return generate(f"extremum_axis_grad_{nd}", ["g", "a", "z", "axis"], lines, {})


@functools.lru_cache(maxsize=None)
def extremum_axes_grad(nd):
    """extremum_grad(g, a, z, axis) for a of nd dims and a tuple of axes, g and z reduced over
    them (kept as 1 or not): g goes to the elements equal to their result, ties split evenly."""
    kept = ", ".join(f"1 if mask[{k}] else a.shape[{k}]" for k in range(nd))
    lines = [f"mask = reduced_mask(axis, {nd})",
             f"hit = a == np.ascontiguousarray(z).reshape(({kept},))",
             "count = np.sum(hit, axis=axis, keepdims=True)",
             f"return np.ascontiguousarray(g).reshape(({kept},)) * hit / count"]
    return generate(f"extremum_axes_grad_{nd}", ["g", "a", "z", "axis"], lines,
                    {"reduced_mask": reduced_mask})
