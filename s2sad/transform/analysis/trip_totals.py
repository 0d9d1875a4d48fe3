"""How many trips a loop makes over one run, computed before the outermost loop around it starts,
so that its tapes are allocated once at their full length (counted.py) and kept with a plain
store: whatever the bounds' spelling, `range(4 * H)`, `range(1, n - 1)`, `range(A.shape[1])`,
triangular `range(i)` and `range(c + 1, d)`.

    for c in range(d):                          _size0 = 0
        _t4 = c + 1                             for c in range(d):
        for r in range(_t4, d):        -->          _size0 = _size0 + len(range(c + 1, d))
            ...                                 _stack_x = numpy.empty(_size0)

The nest must be `for` loops over `range(...)`, each inner range computable when its loop
starts from the counters of the loops around it and from values no statement of the nest
changes (directly, or through a temporary the nest assigns once from such values right before
the inner loop: `_t4` above). A level whose range does not read the counter of the level above
is multiplied, not looped over (`len(range(steps)) * len(range(1, n - 1))`). An `if` between
two levels is crossed only when the inner range cannot raise (no index, no division): the count
is then an upper bound, and the trips the `if` skips leave their slots unused. Anything else
(a `while`, a bound the nest changes) returns None: counted.py grows that tape instead.
"""
import gast

from .. import nodes

# calls that read their arguments and write nothing
_READERS = {"len", "range", "min", "max", "abs", "int", "float"}


def total(chain, namer):
    """(statements, size): code to place right before `chain[0]` that leaves in the name `size`
    how many trips `chain[-1]` makes in one run of `chain[0]`; `chain`: the loops around a
    tape's pushes, outermost first, as they stand in the forward sweep. None when it cannot
    be computed there."""
    if not all(_over_range(loop) for loop in chain) or not _nested(chain):
        return None
    changed, written = _changed(chain[0])
    counters = [loop.target.id for loop in chain]
    if len(set(counters)) != len(counters) or any(
            _assigned_besides_loop(chain[0], c) for c in counters):
        return None
    ranges = []
    for level, loop in enumerate(chain):
        crossed_if = level > 0 and not _directly_in(chain[level - 1], loop)
        if level == 0:  # evaluated where the outermost loop evaluates it: any pure range
            value = nodes.clone(loop.iter) if _pure(loop.iter) else None
        else:
            value = _resolved(loop.iter, chain, level, changed, written)
        if value is None or crossed_if and not _cannot_raise(value):
            return None
        ranges.append(value)
    renamed = _private_counters(chain, namer)
    ranges = [nodes.substituted(r, renamed) for r in ranges]
    counters = [renamed.get(c, nodes.name(c)).id for c in counters]
    size = namer.numbered("_size")
    code, value = _count(ranges, counters, 0, size, namer)
    if not _is_name(value, size):  # a closed form: `_size0 = len(range(T)) * len(range(H))`
        code.append(nodes.assign(size, value))
    return code, size


def _count(ranges, counters, level, size, namer):
    """(statements, expression): the trips of the innermost loop in one run of loop `level`."""
    length = _length(nodes.clone(ranges[level]))
    if level == len(ranges) - 1:
        return [], length
    code, inner = _count(ranges, counters, level + 1, size, namer)
    reads = set().union(*(nodes.names(s) for s in code), nodes.names(inner))
    if counters[level] not in reads:
        return code, _product(length, inner)
    accumulator = size if level == 0 else namer.numbered("_size")
    loop = gast.For(nodes.name(counters[level], store=True), nodes.clone(ranges[level]),
                    code + [nodes.assign(accumulator, gast.BinOp(
                        nodes.name(accumulator), gast.Add(), inner))], [], None)
    return [nodes.assign(accumulator, nodes.constant(0)), loop], nodes.name(accumulator)


def _product(a, b):
    """`a * b`, left to right: `a * b * c`, not `a * (b * c)`."""
    if isinstance(b, gast.BinOp) and isinstance(b.op, gast.Mult):
        return gast.BinOp(_product(a, b.left), gast.Mult(), b.right)
    return gast.BinOp(a, gast.Mult(), b)


def _is_name(node, name):
    return isinstance(node, gast.Name) and node.id == name


def _over_range(loop):
    return isinstance(loop, gast.For) and isinstance(loop.target, gast.Name) and \
        isinstance(loop.iter, gast.Call) and nodes.dotted_parts(loop.iter.func) == ["range"] \
        and 1 <= len(loop.iter.args) <= 3 and not loop.iter.keywords


def _nested(chain):
    """Each loop of the chain lies in the one before, under `if`s at most."""
    for outer, inner in zip(chain, chain[1:]):
        if _path(outer.body, inner) is None:
            return False
    return True


def _path(statements, target):
    """The statements from `statements` down to `target` (each holding the next), through
    `if`s only; None if `target` is not there."""
    for statement in statements:
        if statement is target:
            return [statement]
        if isinstance(statement, gast.If):
            for branch in (statement.body, statement.orelse):
                found = _path(branch, target)
                if found is not None:
                    return [statement] + found
    return None


def _directly_in(outer, inner):
    return any(s is inner for s in outer.body)


def _changed(loop):
    """(names the loop binds, arrays it may write into): assignments, `for` targets, subscript
    targets, and names passed to calls that might write into them."""
    changed, written = set(), set()
    for node in nodes.walk(loop):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            changed.add(node.id)
        elif isinstance(node, (gast.Assign, gast.AugAssign)):
            for target in getattr(node, "targets", None) or [node.target]:
                if isinstance(target, gast.Subscript):
                    written.add(nodes.root_name(target))
        elif isinstance(node, gast.Call) and not _reader(node):
            written.update(n.id for n in node.args + [k.value for k in node.keywords]
                           if isinstance(n, gast.Name))
    return changed, written


def _reader(call):
    parts = nodes.dotted_parts(call.func)
    if parts is None:
        return False
    if len(parts) == 1:
        return parts[0] in _READERS
    return parts[0] in ("math",) or parts[0] == "numpy" and \
        not any(k.arg == "out" for k in call.keywords) and \
        parts[-1] not in ("copyto", "put", "place", "putmask", "fill")


def _assigned_besides_loop(loop, name):
    """Whether a statement in `loop` binds `name` other than the `for` loops over it."""
    for node in nodes.walk(loop):
        if isinstance(node, gast.Assign) and name in {
                n.id for t in node.targets for n in nodes.walk(t)
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}:
            return True
    return False


def _resolved(expression, chain, level, changed, written, depth=8):
    """`expression` (read where loop `level` starts) as an expression of values known there
    without running the nest: counters of the loops above, values the nest does not change,
    and temporaries the nest assigns once from those before the loop; None if it is not."""
    if depth == 0:
        return None
    values = {}
    for node in nodes.walk(expression):
        if isinstance(node, gast.Attribute) and node.attr in ("shape", "size", "ndim") and \
                isinstance(node.value, gast.Name) and node.value.id not in changed:
            continue  # the shape of an array written in place stays
        if not isinstance(node, gast.Name) or node.id in values:
            continue
        name = node.id
        if name in [loop.target.id for loop in chain[:level]]:
            continue
        if name not in changed:
            if name in written and not _only_shape_read(expression, name):
                return None
            continue
        definition = _single_definition(chain, level, name)
        if definition is None:
            return None
        found = _resolved(definition.value, chain, definition.level, changed, written,
                          depth - 1)
        if found is None:
            return None
        values[name] = found
    if not _pure(expression):
        return None
    return nodes.substituted(expression, values)


class _Definition:
    def __init__(self, value, level):
        self.value, self.level = value, level


def _single_definition(chain, level, name):
    """The one `name = value` of the nest that binds `name`, if it stands on the way down from
    a loop above `level` to the next loop of the chain, before that way goes on (so its value
    holds when loop `level` starts); with the level whose counters it may read."""
    found = [node for node in nodes.walk(chain[0]) if isinstance(node, gast.Assign) and
             any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store)
                 for t in node.targets for n in nodes.walk(t))]
    if len(found) != 1 or len(found[0].targets) != 1 or \
            not isinstance(found[0].targets[0], gast.Name):
        return None
    statement = found[0]
    for above in range(level):
        statements = chain[above].body
        for step in _path(statements, chain[above + 1]):
            index = next(k for k, s in enumerate(statements) if s is step)
            if any(s is statement for s in statements[:index]):
                return _Definition(statement.value, above + 1)
            if isinstance(step, gast.If):
                statements = step.body if _path(step.body, chain[above + 1]) is not None \
                    else step.orelse
    return None


def _pure(expression):
    """Reads only: arithmetic, comparisons, names, constants, attributes, indexes and the calls
    of `_READERS`."""
    for node in nodes.walk(expression):
        if isinstance(node, gast.Call):
            parts = nodes.dotted_parts(node.func)
            if parts is None or len(parts) != 1 or parts[0] not in _READERS:
                return False
        elif not isinstance(node, (gast.BinOp, gast.UnaryOp, gast.Name, gast.Constant,
                                   gast.Attribute, gast.Subscript, gast.Tuple, gast.Slice,
                                   gast.Compare, gast.BoolOp, gast.IfExp, gast.expr_context,
                                   gast.operator, gast.unaryop, gast.cmpop, gast.boolop,
                                   gast.Load)):
            return False
    return True


def _cannot_raise(expression):
    """No index, division or call but len/range/min/max/abs of such: safe to evaluate where
    the loop it bounds would not run."""
    for node in nodes.walk(expression):
        if isinstance(node, gast.Subscript):
            if not (isinstance(node.value, gast.Attribute) and node.value.attr == "shape"):
                return False
        elif isinstance(node, gast.BinOp) and isinstance(
                node.op, (gast.Div, gast.FloorDiv, gast.Mod, gast.Pow)):
            return False
    return True


def _only_shape_read(expression, name):
    """Every read of `name` in `expression` is `name.shape`, `name.size`, `name.ndim` or
    `len(name)`."""
    allowed = set()
    for node in nodes.walk(expression):
        if isinstance(node, gast.Attribute) and node.attr in ("shape", "size", "ndim"):
            allowed.add(id(node.value))
        elif isinstance(node, gast.Call) and nodes.dotted_parts(node.func) == ["len"] and \
                len(node.args) == 1:
            allowed.add(id(node.args[0]))
    return all(id(n) in allowed for n in nodes.walk(expression)
               if isinstance(n, gast.Name) and n.id == name)


def _private_counters(chain, namer):
    """Counters the counting loop may not reuse: name -> a fresh name to count with instead.
    After the nest, a counter holds the same value whether or not the counting loop ran first
    (both run the same ranges); only a read in the nest outside the counter's own loop (its
    value from the trip before) could tell, and then the counting loop gets its own name."""
    renamed = {}
    for loop in chain[1:-1]:
        name = loop.target.id
        inside = {id(n) for n in nodes.walk(loop)}
        if any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load) and
               id(n) not in inside for n in nodes.walk(chain[0])):
            renamed[name] = nodes.name(namer.fresh(f"_{name}"))
    return renamed


def _length(node):
    """`len(node)`."""
    return gast.Call(nodes.name("len"), [node], [])
