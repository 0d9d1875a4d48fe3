"""Which arrays a loop computes have the same shape at every iteration: those kept for the
backward sweep can then share one preallocated array with a row per iteration (tape.py)
instead of a list of arrays.

    for t in range(n):
        gates = w_x @ inputs[t] + w_h @ h + bias   # stable: (rows of w_x,), whatever h holds
        i_gate = sigmoid(gates[:hidden])           # stable: a slice with loop-invariant bounds
        c = f_gate * c + i_gate * candidate        # not shown stable: c had a value before the
                                                   # loop, of a shape nothing relates to this one
        y = x[:t]                                  # not stable: a bound that changes

A value's shape is shown stable when it is a known scalar; a name the loop never assigns; a
name first assigned in the loop, each of whose assignments is stable; elementwise arithmetic,
a ufunc or a call whose result's shape follows its arguments' (numpy.diag) on stable
operands; `a @ b` with the operands that decide its shape stable (a matrix times a vector: the
matrix's rows); a reduction, whole or along an axis that stays; or an index of a stable array
by ints and slices whose bounds do not change in the loop. An array the loop writes into keeps
its shape. Anything
else is not shown, and keeps its list.
"""
import gast
import numpy

from .. import facts
from . import activity, kinds


# Calls whose result's shape only depends on their arguments' shapes.
SHAPED_BY_ARGUMENTS = {numpy.diag, numpy.outer, numpy.diagonal, numpy.trace}


class LoopShapes:
    """The analysis for one loop; `outside`: the names holding a value before it (parameters,
    names assigned elsewhere in the function)."""

    def __init__(self, loop, outside):
        self.outside = outside
        self.counters = set()
        self.written = set()  # arrays the loop writes into
        self.assigned = {}  # name -> the statements assigning it in the loop (None: otherwise)
        for statement in _walk([loop]):
            if isinstance(statement, gast.For):
                self.counters |= activity.loop_target(statement)
            elif isinstance(statement, gast.While):
                continue
            elif isinstance(statement, gast.Assign):
                simple = len(statement.targets) == 1 and \
                    isinstance(statement.targets[0], gast.Name)
                for name in activity.targets(statement):
                    if simple and self.assigned.get(name, []) is not None:
                        self.assigned.setdefault(name, []).append(statement)
                    else:
                        self.assigned[name] = None  # unpacked: not followed
                array = activity.written_array(statement)
                if array is not None:  # its shape stays; its values change
                    self.written.add(array)
        self._memo = {}

    def stable(self, name):
        """Whether `name` has the same shape wherever the loop's iterations read it."""
        if name in self.counters:
            return True
        if name not in self.assigned:
            return True  # the loop never assigns it
        if name in self._memo:
            return self._memo[name]
        self._memo[name] = False  # a cycle (a value computed from itself) is not shown stable
        definitions = self.assigned[name]
        shown = definitions is not None and name not in self.outside and \
            all(self._value(d.value, d) for d in definitions)
        self._memo[name] = shown
        return shown

    def _value(self, node, statement):
        scalars = facts.SCALARS.of(statement, frozenset())
        if isinstance(node, gast.Constant):
            return True
        if isinstance(node, gast.Name):
            return node.id in scalars or self.stable(node.id)
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.MatMult):
            return self._product(node, statement)
        if isinstance(node, (gast.BinOp, gast.Compare)):
            operands = [node.left, node.right] if isinstance(node, gast.BinOp) else \
                [node.left] + node.comparators
            return all(self._value(o, statement) for o in operands)
        if isinstance(node, gast.UnaryOp):
            return self._value(node.operand, statement)
        if isinstance(node, gast.Call):
            if kinds.full_reduction(node):
                return True
            ref = facts.REF.of(node)
            if ref in kinds.FULL_REDUCTIONS and len(node.args) == 1 and \
                    [k.arg for k in node.keywords] == ["axis"] and \
                    self._invariant(node.keywords[0].value):
                return self._value(node.args[0], statement)  # along an axis that stays
            elementwise = kinds.is_elementwise(ref) or ref in kinds.SAME_RANK or \
                ref in SHAPED_BY_ARGUMENTS
            return elementwise and not node.keywords and \
                all(self._value(a, statement) for a in node.args)
        if isinstance(node, gast.Subscript):
            return isinstance(node.value, gast.Name) and self.stable(node.value.id) and \
                self._index(node.slice, statement)
        return False

    def _product(self, node, statement):
        """`a @ b`: its shape is a's rows and b's columns; a vector operand contributes none."""
        ranks = facts.RANKS.of(statement, {})
        rank = {id(o): ranks.get(o.id) if isinstance(o, gast.Name) else None
                for o in (node.left, node.right)}
        if rank[id(node.left)] is None or rank[id(node.right)] is None:
            return False
        deciding = [o for o in (node.left, node.right) if rank[id(o)] > 1] or \
            [node.left, node.right]
        return all(self._value(o, statement) for o in deciding)

    def _index(self, index, statement):
        parts = index.elts if isinstance(index, gast.Tuple) else [index]
        ints = facts.INTS.of(statement, frozenset())
        for part in parts:
            if isinstance(part, gast.Slice):
                if not all(b is None or self._invariant(b) for b in
                           (part.lower, part.upper, part.step)):
                    return False
            elif not (isinstance(part, gast.Name) and part.id in ints or
                      isinstance(part, gast.Constant) and type(part.value) is int):
                return False  # an array or a None (a new axis): not followed
        return True

    def _invariant(self, node, depth=0):
        """Whether an int expression has the same value at every iteration."""
        if isinstance(node, gast.Constant):
            return True
        if isinstance(node, gast.Name):
            if node.id in self.counters or node.id in self.written:
                return False
            definitions = self.assigned.get(node.id, ())
            if not definitions:
                return node.id not in self.assigned  # never assigned in the loop
            return depth < 8 and node.id not in self.outside and len(definitions) == 1 and \
                self._invariant(definitions[0].value, depth + 1)
        if isinstance(node, gast.BinOp):
            return self._invariant(node.left, depth) and self._invariant(node.right, depth)
        if isinstance(node, gast.UnaryOp):
            return self._invariant(node.operand, depth)
        return False


def _walk(statements):
    for statement in statements:
        yield statement
        for field in ("body", "orelse"):
            yield from _walk(getattr(statement, field, None) or [])
