"""Stage 7, after folding: rewrites that give the same numbers to the last bit and read as
a person writes them.

    dw = dw_t * w + dw_t * w           -->   dw = 2 * (dw_t * w)      (the rule of `w * w`)
    dpeak = numpy.sum(-d_t32) + dtotal -->   dpeak = -numpy.sum(d_t32) + dtotal
    dpeak = dtotal + -numpy.sum(d_t32) -->   dpeak = dtotal - numpy.sum(d_t32)
"""
import gast

from . import nodes
from .nodes import dotted_parts


def after_folding(function):
    return _Exact().visit(function)


class _Exact(nodes.Transformer):
    """`dw * w + dw * w` (the two terms of `w * w`'s rule, folded together) -> `2 * (dw * w)`:
    the same number to the last bit (doubling is exact), one product fewer, and what a person
    writes. `numpy.sum(-g)` -> `-numpy.sum(g)`: the same sum of the same numbers, negated
    once instead of element by element (no array made for it)."""
    def visit_Call(self, node):
        self.generic_visit(node)
        if dotted_parts(node.func) == ["numpy", "sum"] and len(node.args) == 1 and \
                not node.keywords and isinstance(node.args[0], gast.UnaryOp) and \
                isinstance(node.args[0].op, gast.USub):
            negated = node.args[0]
            node.args = [negated.operand]
            return gast.copy_location(gast.UnaryOp(gast.USub(), node), node)
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.Add) and isinstance(node.right, gast.UnaryOp) and \
                isinstance(node.right.op, gast.USub):   # `a + -b` -> `a - b`: the same number
            return gast.copy_location(gast.BinOp(node.left, gast.Sub(), node.right.operand),
                                      node)
        if isinstance(node.op, gast.Add) and nodes.same(node.left, node.right) and not any(
                isinstance(n, gast.Call) and (dotted_parts(n.func) or [""])[0] not in
                ("numpy", "math", "rt") for n in nodes.walk(node.left)):
            return gast.copy_location(gast.BinOp(gast.Constant(2, None), gast.Mult(),
                                                 node.left), node)
        return node
