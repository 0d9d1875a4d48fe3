"""NumPy reductions in the forms array code writes and Numba lacks, in compiled code: `keepdims`
(`x - np.max(x, axis=1, keepdims=True)`, a softmax's or log-sum-exp's), and `np.mean`,
`np.var` and `np.std` along an int axis (`np.mean(x, axis=0)`, `ddof` too), and all of them
over a tuple of constant axes (`np.mean(x, axis=(0, 1))`).

Numba's own np.sum takes an int or a tuple axis and np.max/np.min an int one through
reduction_axes.py; here each form is that reduction, then a reshape that puts the reduced axes
back as 1 (keepdims), or a sum divided by the count (mean, var). Axes known only at run time
give the kept shape through a mask of the reduced axes; a tuple of constant axes is spelt out
(max and min reduce one axis at a time, the highest first).
"""
import functools

import numpy as np

from .arrays import reduced_mask
from .dispatch import generate, is_array, is_axis, is_int, is_none, numba_overload

__all__ = []

def _flag(value):
    """A literal bool's value (keepdims=True), False for the default, None for anything else
    (a bool known only at run time, which decides the result's rank: not compiled)."""
    if isinstance(value, bool):
        return value    # (the default, as Numba passes an omitted argument's)
    if value is None or type(value).__name__ in ("Omitted", "NoneType"):
        return bool(getattr(value, "value", False))
    literal = getattr(value, "literal_value", None)
    return literal if isinstance(literal, bool) else None


# NumPy's parameters of each reduction, which the overload and its implementations take
PARAMETERS = {"sum": ("a", "axis=None", "dtype=None", "out=None", "keepdims=False"),
              "mean": ("a", "axis=None", "dtype=None", "out=None", "keepdims=False"),
              "max": ("a", "axis=None", "out=None", "keepdims=False"),
              "min": ("a", "axis=None", "out=None", "keepdims=False"),
              "var": ("a", "axis=None", "dtype=None", "out=None", "ddof=0", "keepdims=False"),
              "std": ("a", "axis=None", "dtype=None", "out=None", "ddof=0", "keepdims=False")}


@functools.lru_cache(maxsize=None)
def _impl(kind, nd, whole, keep):
    """Source of `kind` (sum, mean, max, min, var, std) of an array of nd dims, over all of it
    (`whole`) or the axes `axis` names when the code runs (an int, or a tuple of ints for all
    but max and min), with the reduced axes kept as 1 (`keep`)."""
    arguments = list(PARAMETERS[kind])
    if whole or nd == 1:
        lines = [_whole(kind), f"return np.full(({'1, ' * nd}), value)" if keep else
                 "return value"]
        return generate(f"{kind}_all_{nd}_{int(keep)}", arguments, lines, {})
    kept = ", ".join(f"1 if mask[{k}] else a.shape[{k}]" for k in range(nd))
    lines = [f"mask = reduced_mask(axis, {nd})", "count = 1",
             f"for k in range({nd}):", "    if mask[k]:", "        count *= a.shape[k]"]
    if kind in ("max", "min"):
        lines += [f"value = np.{kind}(a, axis=axis)"]
    else:
        lines += ["value = np.sum(a, axis=axis)"]
    if kind in ("mean", "var", "std"):
        lines += ["value = value / count"]
    if kind in ("var", "std"):
        lines += [f"centre = np.ascontiguousarray(value).reshape(({kept},))",
                  "value = np.sum((a - centre) ** 2, axis=axis) / (count - ddof)"]
    if kind == "std":
        lines += ["value = np.sqrt(value)"]
    lines += [f"return np.ascontiguousarray(value).reshape(({kept},))" if keep else
              "return value"]
    return generate(f"{kind}_axis_{nd}_{int(keep)}", arguments, lines,
                    {"reduced_mask": reduced_mask})


def _whole(kind):
    if kind in ("var", "std"):
        spread = "np.sum((a - np.mean(a)) ** 2) / (a.size - ddof)"
        return f"value = {'np.sqrt(' + spread + ')' if kind == 'std' else spread}"
    return f"value = np.{kind}(a)"


def _typing(kind):
    def typing(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        if not (_absent(dtype) and _absent(out) and
                (isinstance(ddof, int) or is_int(ddof) or _absent(ddof))):
            return None
        return _chosen(kind, a, axis, keepdims)
    # (Numba matches the overload's parameters with the call's: NumPy's, as PARAMETERS says)
    names = [p.split("=")[0] for p in PARAMETERS[kind]]
    source = f"def {kind}_typing({', '.join(PARAMETERS[kind])}):\n" \
        f"    return typing({', '.join(f'{n}={n}' for n in names)})\n"
    scope = {"typing": typing}
    exec(source, scope)
    return scope[f"{kind}_typing"]


def _absent(value):
    """An argument not given: its default (None, or an int for ddof) or Numba's Omitted."""
    return value is None or isinstance(value, int) or is_none(value) or \
        type(value).__name__ == "Omitted"


def _chosen(kind, a, axis, keepdims):
    keep = _flag(keepdims)
    if not is_array(a) or a.ndim == 0 or keep is None:
        return None    # Numba's own forms, or its error
    axes = _axes(axis, a.ndim)
    if axes is not None and len(axes) < a.ndim:     # some axes, known now
        return None if kind == "sum" and not keep else _impl_axes(kind, a.ndim, axes, keep)
    whole = _absent(axis) or axes is not None
    if not (whole or is_int(axis) or is_axis(axis) and kind not in ("max", "min")):
        return None
    if not keep and kind in ("sum", "max", "min") and not whole:
        return None    # Numba's own (or reduction_axes.py's) already
    return _impl(kind, a.ndim, whole, keep)


def _axes(axis, nd):
    """A tuple of distinct constant axes (`axis=(0, 2)`), each in 0..nd-1, sorted; else None."""
    items = getattr(axis, "types", None) if type(axis).__name__ in ("Tuple", "UniTuple") \
        else None
    values = [getattr(t, "literal_value", None) for t in items or ()]
    if not values or not all(isinstance(v, int) and -nd <= v < nd for v in values):
        return None
    axes = sorted(v % nd for v in values)
    return tuple(axes) if len(set(axes)) == len(axes) else None


@functools.lru_cache(maxsize=None)
def _impl_axes(kind, nd, axes, keep):
    """`kind` of an array of nd dims over the constant `axes` (not all of them), the reduced
    axes kept as 1 or not: Numba's np.sum over a tuple of axes, max/min one axis at a time."""
    spelt = f"({', '.join(map(str, axes))},)"
    kept = ", ".join("1" if k in axes else f"a.shape[{k}]" for k in range(nd))
    lines = [f"count = {' * '.join(f'a.shape[{k}]' for k in axes)}"]
    if kind in ("max", "min"):
        lines += ["value = a"] + [f"value = np.{kind}(value, axis={k})" for k in reversed(axes)]
    else:
        lines += [f"value = np.sum(a, axis={spelt})"]
    if kind in ("mean", "var", "std"):
        lines += ["value = value / count"]
    if kind in ("var", "std"):
        lines += [f"value = np.sum((a - value.reshape(({kept},))) ** 2, axis={spelt}) / "
                  "(count - ddof)"]
    if kind == "std":
        lines += ["value = np.sqrt(value)"]
    lines += [f"return np.ascontiguousarray(value).reshape(({kept},))" if keep else
              "return value"]
    name = f"{kind}_axes_{nd}_{'_'.join(map(str, axes))}_{int(keep)}"
    return generate(name, list(PARAMETERS[kind]), lines, {})


for _kind, _functions in (("sum", (np.sum,)), ("mean", (np.mean,)), ("max", (np.max, np.amax)),
                          ("min", (np.min, np.amin)), ("var", (np.var,)), ("std", (np.std,))):
    for _function in _functions:
        numba_overload(_function, prefer_literal=True)(_typing(_kind))
