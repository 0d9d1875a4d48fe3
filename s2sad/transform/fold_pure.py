"""Which expressions fold.py may move: pure ones, which give the same value (or the same view
of the same array) wherever they are evaluated, as long as the names they read are unchanged.

    movable(node, uses)    -> whether the expression `node` is pure
    pure_call(call, uses)  -> whether a call has no effects (a NumPy ufunc without `out`,
                              `math.*`, a few NumPy, `numpy.linalg` and `rt` functions,
                              `len`/`float`/`int`/`abs`)
"""
import math

import gast
import numpy

from .nodes import dotted_parts

_COMPARISONS = (gast.Eq, gast.NotEq, gast.Lt, gast.LtE, gast.Gt, gast.GtE)
_ATTRIBUTES = frozenset({"shape", "ndim", "size", "T", "real", "imag"})  # reads (`.T`: a view)
# NumPy functions without effects, and how many positional arguments they may get before the
# next one would be `out` (written in place)
_NUMPY = {"sum": 2, "prod": 2, "mean": 2, "dot": 2, "vdot": 2, "inner": 2, "outer": 2,
          "matmul": 2, "trace": 2, "transpose": 2, "ravel": 2, "diag": 2, "amax": 2, "amin": 2,
          "max": 2, "min": 2, "where": 3, "expand_dims": 2}
_LINALG = frozenset({"norm", "det", "inv", "solve"})
_RT = frozenset({"unbroadcast", "unreduce", "zeros_like", "broadcast_like", "reduce_sum", "sigmoid",
                 "reshape_like", "matmul_grad_a", "matmul_grad_b", "extremum_grad"})
_BUILTINS = frozenset({"len", "float", "int", "abs"})


def movable(node, uses):
    """Whether `node` is a pure expression: evaluated later, with the names it reads
    unchanged, it gives the same value (or the same view of the same array)."""
    if isinstance(node, gast.Name):
        return isinstance(node.ctx, gast.Load)
    if isinstance(node, gast.Constant):
        value = node.value
        if isinstance(value, (bool, str)) or value is None:
            return True
        # a negative literal prints as `-2`, which parses back as a negation (DESIGN.md 5)
        return type(value) in (int, float) and math.isfinite(value) and value >= 0
    if isinstance(node, gast.BinOp):
        return movable(node.left, uses) and movable(node.right, uses)
    if isinstance(node, gast.UnaryOp):
        return movable(node.operand, uses)
    if isinstance(node, gast.Compare):
        return all(isinstance(op, _COMPARISONS) for op in node.ops) and \
            movable(node.left, uses) and all(movable(c, uses) for c in node.comparators)
    if isinstance(node, gast.Subscript):
        return isinstance(node.ctx, gast.Load) and movable(node.value, uses) and \
            movable(node.slice, uses)
    if isinstance(node, gast.Slice):
        return all(part is None or movable(part, uses)
                   for part in (node.lower, node.upper, node.step))
    if isinstance(node, gast.Tuple):
        return isinstance(node.ctx, gast.Load) and all(movable(e, uses) for e in node.elts)
    if isinstance(node, gast.Attribute):
        if node.attr in _ATTRIBUTES:
            return movable(node.value, uses)
        parts = dotted_parts(node)  # a module's constant: numpy.pi, math.inf
        return parts is not None and len(parts) == 2 and parts[0] in ("numpy", "math") and \
            uses.never_stored(parts[0]) and \
            isinstance(getattr({"numpy": numpy, "math": math}[parts[0]], parts[1], None),
                       (int, float))
    if isinstance(node, gast.Call):
        return pure_call(node, uses) and \
            all(movable(a, uses) for a in node.args) and \
            all(movable(k.value, uses) for k in node.keywords)
    return False


def pure_call(call, uses):
    """A call of a function without effects: a NumPy ufunc (no `out`), `math.*`, a few NumPy
    and `rt` functions, `len`/`float`/`int`/`abs`."""
    parts = dotted_parts(call.func)
    if parts is None or not uses.never_stored(parts[0]) or \
            any(isinstance(a, gast.Starred) for a in call.args) or \
            any(k.arg is None or k.arg in ("out", "where") for k in call.keywords):
        return False
    if len(parts) == 1:
        return parts[0] in _BUILTINS and not call.keywords
    module, function = parts[0], parts[-1]
    if len(parts) == 3:
        return parts[:2] == ["numpy", "linalg"] and function in _LINALG
    if len(parts) != 2:
        return False
    if module == "numpy":
        found = getattr(numpy, function, None)
        if isinstance(found, numpy.ufunc):
            return len(call.args) <= found.nin and not call.keywords
        return len(call.args) <= _NUMPY.get(function, -1)
    if module == "math":
        return callable(getattr(math, function, None))
    return module == "rt" and function in _RT
