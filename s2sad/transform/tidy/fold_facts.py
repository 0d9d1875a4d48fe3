"""What fold.py relies on to move an expression: which names hold private arrays or ints,
which expressions are pure, and how wide a statement prints.

    private_arrays(uses)       -> {name: "list" or number of dimensions}: tapes and new arrays
                                  no other name can see (read only one element at a time, or
                                  pushed and popped), so a write into one changes only what
                                  reads it by name
    integers(uses)             -> names that only ever hold Python ints
    movable(node, uses)        -> whether `node` is pure: it gives the same value (or the same
                                  view of the same array) wherever it is evaluated, as long as
                                  the names it reads are unchanged
    pure_call(call, uses)      -> whether a call has no effects (a NumPy ufunc without `out`,
                                  `math.*`, a few NumPy, `numpy.linalg` and `rt` functions,
                                  `len`/`float`/`int`/`abs`)
    statement_width(statement) -> about how many characters astor prints for it, without the
                                  indentation: a fold is left undone where the line would pass
                                  the width at which astor wraps it (clumsily)
"""
import math

import gast
import numpy

from ..nodes import dotted_parts


# ---- private arrays and ints -------------------------------------------------------------------

ALLOCATIONS = frozenset({("numpy", "empty"), ("numpy", "zeros"), ("numpy", "ones")})


def private_arrays(uses):
    """Tapes and other arrays no name but their own can see: assigned only a new list or a new
    NumPy array, and read only as `a[index]` giving one element (not a view), or pushed and
    popped. A write into one changes only what reads it by name. {name: "list" or the number
    of dimensions}"""
    if not uses.never_stored("len"):
        return {}
    ints = integers(uses)
    dimensions, allowed = {}, {}
    for name, values in uses.assigned.items():
        made = [v for v in values if not _pushed_onto(v, name)]
        found = {_allocation(v, uses, ints) for v in made}
        if len(found) == 1 and None not in found and len(values) == uses.stores[name] and \
                name not in uses.multiple:
            dimensions[name] = found.pop()
            allowed[name] = len(values) - len(made)  # `s = rt.grown(s, k)` reads s
    if not dimensions:
        return {}
    for node in uses.subscripts:
        name = node.value.id
        if name in dimensions and _element(node.slice, dimensions[name], ints):
            allowed[name] = allowed.get(name, 0) + 1
    for name in uses.lengths:  # `len(s)`: the room check of a growable tape
        if name in dimensions:
            allowed[name] = allowed.get(name, 0) + 1
    for node in uses.methods:
        name = node.func.value.id
        if dimensions.get(name) == "list" and not node.keywords and \
                (node.func.attr == "append" and len(node.args) == 1 or
                 node.func.attr == "pop" and not node.args):
            allowed[name] = allowed.get(name, 0) + 1
    return {n: d for n, d in dimensions.items() if allowed.get(n, 0) == uses.loads.get(n, 0)}


def _pushed_onto(value, name):
    """`rt.grown(name, k)`: the stack `name`, a longer copy made when it is full (counted.py)."""
    return isinstance(value, gast.Call) and dotted_parts(value.func) == ["rt", "grown"] and \
        len(value.args) == 2 and isinstance(value.args[0], gast.Name) and \
        value.args[0].id == name


def _allocation(value, uses, integers):
    """"list" for `[]`, the number of dimensions for `numpy.empty(shape)` (also zeros, ones;
    a dtype may follow: `numpy.empty(0, numpy.int64)`) with a shape of known length, else
    None."""
    if isinstance(value, gast.List) and not value.elts:
        return "list"
    if not (isinstance(value, gast.Call) and len(value.args) in (1, 2) and
            not value.keywords) or len(value.args) == 2 and \
            dotted_parts(value.args[1]) not in (["numpy", "int64"], ["numpy", "bool_"]):
        return None
    parts = dotted_parts(value.func)
    if parts is None or tuple(parts) not in ALLOCATIONS or not uses.never_stored("numpy"):
        return None
    shape = value.args[0]
    sizes = shape.elts if isinstance(shape, gast.Tuple) else [shape]
    return len(sizes) if all(_integral(s, integers) for s in sizes) else None


def _element(index, ndim, integers):
    """Whether `a[index]` on an array of `ndim` dimensions (or a list) is one element (a copy,
    not a view): as many indexes as dimensions, each an int."""
    if ndim == "list":
        return True
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    return len(parts) == ndim and all(_integral(p, integers) for p in parts)


INTEGER_OPS = (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod)


def _integral(node, integers):
    """Whether `node` always gives a Python int: a literal, `len(...)`, integer arithmetic, or
    a name in `integers`."""
    if isinstance(node, gast.Constant):
        return type(node.value) is int
    if isinstance(node, gast.Name):
        return node.id in integers
    if isinstance(node, gast.BinOp):
        return isinstance(node.op, INTEGER_OPS) and _integral(node.left, integers) and \
            _integral(node.right, integers)
    if isinstance(node, gast.UnaryOp):
        return isinstance(node.op, (gast.USub, gast.UAdd)) and \
            _integral(node.operand, integers)
    return isinstance(node, gast.Call) and dotted_parts(node.func) == ["len"] and \
        len(node.args) == 1 and not node.keywords


def integers(uses):
    """Names that only ever hold Python ints: each of their stores is a `for` over a `range`
    or an assignment of an int expression (the largest such set: by induction over the run,
    a name read before any store raises instead). Empty if the function rebinds `range`."""
    if not uses.never_stored("range"):
        return set()
    integers = set(uses.stores) - set(uses.stored) - uses.multiple
    changed = True
    while changed:
        changed = False
        for name in list(integers):
            if not all(_integral(v, integers) for v in uses.assigned.get(name, ())):
                integers.discard(name)
                changed = True
    return integers


# ---- pure expressions --------------------------------------------------------------------------

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


# ---- printed width -----------------------------------------------------------------------------

_PRECEDENCE = {gast.Or: 1, gast.And: 2, gast.Not: 3, gast.BitOr: 5, gast.BitXor: 6,
               gast.BitAnd: 7, gast.LShift: 8, gast.RShift: 8, gast.Add: 9, gast.Sub: 9,
               gast.Mult: 10, gast.Div: 10, gast.FloorDiv: 10, gast.Mod: 10, gast.MatMult: 10,
               gast.USub: 11, gast.UAdd: 11, gast.Invert: 11, gast.Pow: 12}
_SYMBOLS = {gast.FloorDiv: 2, gast.Pow: 2, gast.LShift: 2, gast.RShift: 2, gast.Not: 4,
            gast.Eq: 2, gast.NotEq: 2, gast.LtE: 2, gast.GtE: 2, gast.Is: 2, gast.IsNot: 6,
            gast.In: 2, gast.NotIn: 6, gast.And: 3, gast.Or: 2}
_ATOM = 13


def statement_width(statement):
    if isinstance(statement, gast.Assign):
        return sum(_width(t, 0, True) + 3 for t in statement.targets) + \
            _width(statement.value, 0, True)
    if isinstance(statement, gast.AugAssign):
        return _width(statement.target) + _SYMBOLS.get(type(statement.op), 1) + 3 + \
            _width(statement.value, 0, True)
    if isinstance(statement, gast.Return):
        return 6 + (1 + _width(statement.value, 0, True) if statement.value else 0)
    if isinstance(statement, gast.For):
        return 9 + _width(statement.target, 0, True) + _width(statement.iter, 0, True)
    return _width(statement.value, 0, True)


def _width(node, context=0, bare=False):
    """About how many characters astor prints for the expression `node` where the precedence
    `context` is needed (`bare`: a tuple without parentheses)."""
    if isinstance(node, gast.Name):
        return len(node.id)
    if isinstance(node, gast.Constant):
        return len(repr(node.value))
    if isinstance(node, gast.Attribute):
        return _width(node.value, _ATOM) + 1 + len(node.attr)
    if isinstance(node, gast.Subscript):
        return _width(node.value, _ATOM) + 2 + _width(node.slice, 0, True)
    if isinstance(node, gast.Slice):
        parts = [p for p in (node.lower, node.upper, node.step) if p is not None]
        return sum(_width(p) for p in parts) + (2 if node.step is not None else 1)
    if isinstance(node, gast.Call):
        arguments = [_width(a) for a in node.args] + \
            [(len(k.arg) + 1 if k.arg else 2) + _width(k.value) for k in node.keywords]
        return _width(node.func, _ATOM) + 2 + sum(arguments) + 2 * max(len(arguments) - 1, 0)
    if isinstance(node, (gast.Tuple, gast.List)):
        inner = sum(_width(e) for e in node.elts) + 2 * max(len(node.elts) - 1, 0)
        return inner + (0 if bare and isinstance(node, gast.Tuple) and node.elts else 2)
    if isinstance(node, gast.Starred):
        return 1 + _width(node.value, _ATOM)
    if isinstance(node, gast.BinOp):
        own = _PRECEDENCE.get(type(node.op), 9)
        left, right = (own + 1, own - 1) if isinstance(node.op, gast.Pow) else (own, own + 1)
        width = _width(node.left, left) + _SYMBOLS.get(type(node.op), 1) + 2 + \
            _width(node.right, right)
    elif isinstance(node, gast.UnaryOp):
        own = _PRECEDENCE.get(type(node.op), 11)
        width = _SYMBOLS.get(type(node.op), 1) + _width(node.operand, own)
    elif isinstance(node, gast.Compare):
        own = 4
        width = _width(node.left, own + 1) + sum(
            _SYMBOLS.get(type(op), 1) + 2 + _width(c, own + 1)
            for op, c in zip(node.ops, node.comparators))
    elif isinstance(node, gast.BoolOp):
        own = _PRECEDENCE[type(node.op)]
        width = sum(_width(v, own + 1) for v in node.values) + \
            (_SYMBOLS[type(node.op)] + 2) * (len(node.values) - 1)
    elif isinstance(node, gast.IfExp):
        own = 0
        width = _width(node.body, 1) + _width(node.test, 1) + _width(node.orelse) + 10
    else:
        return 40  # (what is not folded into: comprehensions, lambdas, ...) a guess
    return width + (2 if own < context else 0)
