"""A temporary that only copies a name is that name.

Templates pass a gradient on through a temporary (`d_t19 = dforce`), and a block that hands it
back ends with the copy the other way (`dforce = d_t19`). Read where the temporary was, the name
itself says the same, and both copies go:

        d_t19 = dforce                                 -->   d_t12 = dforce * _t17
        d_t12 = d_t19 * _t17                                 d_t17 = dforce * stiffness[i]
        d_t17 = d_t19 * stiffness[i]
        dforce = d_t19

`t = x` makes `t` another name for x's value (the same array, not a copy), so the reads of `t`
read the same thing as `x` as long as `x` is not bound again before the last of them. That is
all this checks: `t` is one of the transformer's temporaries, assigned once in the function, all
its reads come after the copy in the same statement list, and no statement up to its last read
binds `x` (the last one may: it reads `t` before it binds).

An assignment that repeats one a few statements before it, with nothing between them binding or
writing into what it reads, goes too (`drop_repeats`): the backward sweep recomputes a value
for each block that reads it (`xi = x[i]` before each), and blocks that follow each other need
it once.

A private copy of a gradient about to be written in place (`dq = rt.copy(dq)`) goes when dq
holds a new array no other name can see (`dq = numpy.transpose(rt.matmul_grad_b(...))`) and
nothing has read dq since (`drop_private_copies`).
"""

import re

import gast

from .. import nodes
from . import exact
from .fold import TEMPORARY


def propagate(function):
    """Replace the reads of each temporary that copies a name by the name, and of one that
    negates a name (`d_t33 = -d_t47`, the rule of `a - b`) by the negation (`-d_t47 * w4`, which
    exact.py makes `dgamma - d_t47 * w4`); drop the copies that become `x = x`. The copy
    `t = x` itself is left to the dead-temporary pass."""
    stores, loads, dropped = {}, {}, set()
    operands, whole = set(), set()   # names read as operands of arithmetic; used as arrays
    for node in nodes.walk(function):
        if isinstance(node, gast.Name):
            table = loads if isinstance(node.ctx, gast.Load) else stores
            table.setdefault(node.id, []).append(node)
        elif isinstance(node, (gast.BinOp, gast.UnaryOp)):
            operands.update(id(n) for n in (getattr(node, "left", None),
                                            getattr(node, "right", None),
                                            getattr(node, "operand", None)))
        elif isinstance(node, (gast.Call, gast.Subscript, gast.Attribute)):
            whole.update(n.id for n in [*getattr(node, "args", ()), getattr(node, "value", None),
                                        *(k.value for k in getattr(node, "keywords", ()))]
                         if isinstance(n, gast.Name))   # (`out=x` writes into x)
    for statements in nodes.statement_lists(function):
        for index, statement in enumerate(statements):
            copy = _copy(statement)
            if copy is None or len(stores.get(copy[0], ())) != 1:
                continue
            temporary, source, negated = copy
            reads = loads.get(temporary, [])
            if negated and (source in whole or not all(id(r) in operands for r in reads)):
                continue   # (an array a call may write into; a read the negation would cost)
            span = _span(statements[index + 1:], temporary, len(reads))
            if span is None or not _keeps(span, source):
                continue
            if negated:
                negation = _Negation(temporary, source)
                for later in span:
                    exact.after_folding(negation.visit(later))   # `a + -b * c` -> `a - b * c`
                reads = negation.made
            else:
                for read in reads:
                    read.id = source
            loads.setdefault(source, []).extend(reads)
            loads[temporary] = []
            made = span[-1]     # `x = t`, now `x = x`, goes (not a user's own `s = s`)
            if _self_copy(made):
                dropped.add(id(made))
    for statements in nodes.statement_lists(function):
        if any(id(s) in dropped for s in statements):
            nodes.keep_only(statements, [s for s in statements if id(s) not in dropped])


# adjoints.protect's copies of a seed (`_d_t34_0 = d_t34`, `_dout0 = (dx, dy)`)
PROTECTED = re.compile(r"_d\w+_\d+\Z|_dout\d+\Z")


def _copy(statement):
    """(t, x, False) for `t = x` and (t, x, True) for `t = -x`, with t a temporary, else
    None."""
    if isinstance(statement, gast.Assign) and len(statement.targets) == 1:
        target, value = statement.targets[0], statement.value
        negated = isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub)
        value = value.operand if negated else value
        if isinstance(target, gast.Name) and (TEMPORARY.match(target.id) or
                                              PROTECTED.match(target.id)) and \
                isinstance(value, gast.Name) and value.id != target.id:
            return target.id, value.id, negated
    return None


class _Negation(nodes.Transformer):
    """Each read of `temporary` becomes `-source`; `made`: the new reads of source."""
    def __init__(self, temporary, source):
        self.temporary, self.source, self.made = temporary, source, []

    def visit_Name(self, node):
        if node.id != self.temporary or not isinstance(node.ctx, gast.Load):
            return node
        self.made.append(nodes.name(self.source))
        return gast.UnaryOp(gast.USub(), self.made[-1])


def _span(following, temporary, count):
    """The statements of `following` up to the last that reads `temporary`, if they hold all
    `count` of its reads; else None."""
    seen = 0
    for position, statement in enumerate(following):
        seen += sum(isinstance(n, gast.Name) and n.id == temporary
                    for n in nodes.walk(statement))
        if seen == count:
            return following[:position + 1] if count else None
    return None


def _keeps(span, name):
    """Whether no statement of `span` binds `name`, but the last, if it is a simple assignment
    (it evaluates its value, reading the temporary, before it binds)."""
    *before, last = span
    if any(_binds(statement, name) for statement in before):
        return False
    return not _binds(last, name) or isinstance(last, (gast.Assign, gast.AugAssign)) and \
        not any(_binds(part, name) for part in nodes.walk(last.value))


def _binds(tree, name):
    return any(isinstance(n, gast.Name) and n.id == name and
               not isinstance(n.ctx, gast.Load) for n in nodes.walk(tree))


def _self_copy(statement):
    return isinstance(statement, gast.Assign) and len(statement.targets) == 1 and \
        isinstance(statement.targets[0], gast.Name) and \
        isinstance(statement.value, gast.Name) and \
        statement.targets[0].id == statement.value.id


def drop_repeats(function):
    """Drop `n = E` where the same `n = E` came before it in its statement list and the
    statements between are assignments that neither bind `n` or a name E reads, nor write into
    an array E reads; E reads names, elements and attributes only (no call)."""
    for statements in nodes.statement_lists(function):
        seen = {}       # name -> (the value of a repeatable assignment to it, the names
        keep = []       # that assignment depends on)
        for statement in statements:
            key = _repeatable(statement)
            if key is not None and key[0] in seen and nodes.same(seen[key[0]][0], key[1]):
                continue
            if not isinstance(statement, (gast.Assign, gast.AugAssign, nodes.Comment)) or \
                    any(isinstance(n, gast.Call) and (nodes.dotted_parts(n.func) or [""])[0]
                        not in ("numpy", "math", "rt") for n in nodes.walk(statement)):
                seen = {}   # a branch, a loop, a call of a generated function: start again
            else:
                changed = {n.id for t in _targets(statement) for n in nodes.walk(t)
                           if isinstance(n, gast.Name)}
                seen = {k: known for k, known in seen.items() if not known[1] & changed}
            if key is not None:
                seen[key[0]] = key[1:]
            keep.append(statement)
        if len(keep) != len(statements):
            nodes.keep_only(statements, keep)


def _repeatable(statement):
    """(n, E, names it depends on) of `n = E` with E free of calls and of n, else None."""
    if nodes.assigned_name(statement) is None:
        return None
    value, target = statement.value, statement.targets[0].id
    inside = list(nodes.walk(value))
    if any(isinstance(n, (gast.Call, gast.Lambda, gast.NamedExpr)) or
           isinstance(n, gast.expr) and not isinstance(n, _PLAIN) for n in inside):
        return None
    names = {n.id for n in inside if isinstance(n, gast.Name)}
    if target in names:
        return None
    return target, value, names | {target}


_PLAIN = (gast.Name, gast.Constant, gast.Subscript, gast.Attribute, gast.BinOp, gast.UnaryOp,
          gast.Tuple, gast.Slice, gast.Compare)


def _targets(statement):
    """What an assignment binds or writes into: its targets (the array of an element)."""
    if isinstance(statement, gast.Assign):
        return statement.targets
    if isinstance(statement, gast.AugAssign):
        return [statement.target]
    return []


# rt helpers that always return a new float64 array (or a float): what rt.copy would make
_NEW_ARRAYS = frozenset({("rt", "matmul_grad_a"), ("rt", "matmul_grad_b")})


def drop_private_copies(function):
    """Drop `n = rt.copy(n)` where n's last assignment in the same statement list made a new
    float64 array (a view of one: `numpy.transpose` of it) and no statement since mentions n:
    no other name can hold that array, so writing into it changes nothing else."""
    for statements in nodes.statement_lists(function):
        if not any(_copied_to_itself(s) for s in statements):
            continue
        new = set()   # names holding an array only they refer to
        keep = []
        for statement in statements:
            name = _copied_to_itself(statement)
            if name is not None and name in new:
                continue
            mentioned = nodes.names(statement)
            new -= mentioned
            made = _assigned_new(statement)
            if made is not None:
                new.add(made)
            keep.append(statement)
        if len(keep) != len(statements):
            nodes.keep_only(statements, keep)


def _copied_to_itself(statement):
    """n for `n = rt.copy(n)`, else None."""
    name = nodes.assigned_name(statement)
    if name is not None and _call_of(statement.value, ("rt", "copy")) and \
            len(statement.value.args) == 1 and \
            getattr(statement.value.args[0], "id", None) == name:
        return name
    return None


def _assigned_new(statement):
    """n for `n = E`, E a new array that only n refers to, n not read by E."""
    name = nodes.assigned_name(statement)
    if name is None:
        return None
    value = statement.value
    while _call_of(value, ("numpy", "transpose")) and len(value.args) == 1:
        value = value.args[0]   # a view of the new array: still the only one to see it
    if _call_of(value, *_NEW_ARRAYS) and name not in nodes.names(statement.value):
        return name
    return None


def _call_of(node, *functions):
    return isinstance(node, gast.Call) and not node.keywords and \
        tuple(nodes.dotted_parts(node.func) or ()) in functions
