"""NumPy reductions in the forms array code writes and Numba lacks, in compiled code: `keepdims`
(`x - np.max(x, axis=1, keepdims=True)`, a softmax's or log-sum-exp's), and `np.mean`,
`np.var` and `np.std` along an int axis (`np.mean(x, axis=0)`, `ddof` too).

Numba's own np.sum takes an int axis and np.max/np.min take one through reduction_axes.py; here
each form is that reduction, then a reshape that puts the reduced axis back as 1 (keepdims), or
a sum divided by the count (mean, var). An axis known only at run time picks the kept shape by
a branch per axis of the array's rank. A tuple of axes stays as NumPy-in-Numba has it (sum
only), and the gradient of such a call runs as Python.
"""
import functools

import numpy as np

from .dispatch import generate, is_array, is_int, is_none, numba_overload

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
    (`whole`) or one int axis, with the reduced axes kept as 1 (`keep`)."""
    arguments = list(PARAMETERS[kind])
    lines = [f"nd = {nd}"]
    if whole:
        lines += [_whole(kind)]
        if keep:
            lines += [f"return np.full(({'1, ' * nd}), value)"]
        else:
            lines += ["return value"]
        return generate(f"{kind}_all_{nd}_{int(keep)}", arguments, lines, {})
    lines += ["ax = axis + nd if axis < 0 else axis",
              "if ax < 0 or ax >= nd:",
              "    raise ValueError('axis is out of bounds for array')"]
    lines += _along(kind, nd)
    if not keep:
        lines += ["return value"]
    elif nd == 1:
        lines += ["return np.full((1,), value)"]
    else:
        kept = ", ".join(f"1 if ax == {k} else a.shape[{k}]" for k in range(nd))
        lines += [f"return np.ascontiguousarray(value).reshape(({kept},))"]
    return generate(f"{kind}_axis_{nd}_{int(keep)}", arguments, lines, {})


def _whole(kind):
    if kind in ("var", "std"):
        spread = "np.sum((a - np.mean(a)) ** 2) / (a.size - ddof)"
        return f"value = {'np.sqrt(' + spread + ')' if kind == 'std' else spread}"
    return f"value = np.{kind}(a)"


def _along(kind, nd):
    """Lines leaving the reduction of `a` along `ax` in `value`."""
    if nd == 1:
        return [_whole(kind)]
    if kind in ("max", "min", "sum"):
        return [f"value = np.{kind}(a, axis=ax)"]
    lines = ["count = a.shape[ax]", "total = np.sum(a, axis=ax)"]
    if kind == "mean":
        return lines + ["value = total / count"]
    kept = ", ".join(f"1 if ax == {k} else a.shape[{k}]" for k in range(nd))
    lines += [f"centre = (total / count).reshape(({kept},))",
              "spread = np.sum((a - centre) ** 2, axis=ax) / (count - ddof)"]
    return lines + [f"value = {'np.sqrt(spread)' if kind == 'std' else 'spread'}"]


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
    whole = _absent(axis)
    if not is_array(a) or a.ndim == 0 or keep is None or not (whole or is_int(axis)):
        return None    # Numba's own forms, or its error
    if not keep and kind in ("sum", "max", "min"):
        return None    # Numba's own (or reduction_axes.py's) already
    return _impl(kind, a.ndim, whole, keep)


for _kind, _functions in (("sum", (np.sum,)), ("mean", (np.mean,)), ("max", (np.max, np.amax)),
                          ("min", (np.min, np.amin)), ("var", (np.var,)), ("std", (np.std,))):
    for _function in _functions:
        numba_overload(_function, prefer_literal=True)(_typing(_kind))
