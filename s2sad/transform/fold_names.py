"""Facts fold.py relies on about the names of a generated function: which arrays are private
(tapes and new arrays no other name can see, read only one element at a time or pushed and
popped: a write into one changes only what reads it by name) and which names only ever hold
Python ints.

    private_arrays(uses) -> {name: "list" or number of dimensions}
    integers(uses)       -> names that only hold ints
"""
import gast

from .nodes import dotted_parts

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
