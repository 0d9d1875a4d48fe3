"""Rewrites that give the same numbers to the last bit and read as
a person writes them.

    dw = dw_t * w + dw_t * w           -->   dw = 2 * (dw_t * w)      (the rule of `w * w`)
    dpeak = numpy.sum(-d_t32) + dtotal -->   dpeak = -numpy.sum(d_t32) + dtotal
    dpeak = dtotal + -numpy.sum(d_t32) -->   dpeak = dtotal - numpy.sum(d_t32)
    dgamma = dgamma + -d_t47 * w4      -->   dgamma = dgamma - d_t47 * w4
    dw = dw - -d_t5                    -->   dw = dw + d_t5
    dx += -dy * x                      -->   dx -= dy * x
    --d_t5                             -->   d_t5
"""
import gast

from .. import nodes
from ..nodes import dotted_parts


def after_folding(function):
    return Exact().visit(function)


class Exact(nodes.Transformer):
    """`dw * w + dw * w` (the two terms of `w * w`'s rule, folded together) -> `2 * (dw * w)`:
    the same number to the last bit (doubling is exact), one product fewer, and what a person
    writes. `numpy.sum(-g)` -> `-numpy.sum(g)`: the same sum of the same numbers, negated
    once instead of element by element (no array made for it). `doubled`: whether a sum of
    two terms became one (what they read may now be read once, and fold)."""
    doubled = False

    def visit_Call(self, node):
        self.generic_visit(node)
        if dotted_parts(node.func) == ["numpy", "sum"] and len(node.args) == 1 and \
                not node.keywords and isinstance(node.args[0], gast.UnaryOp) and \
                isinstance(node.args[0].op, gast.USub):
            negated = node.args[0]
            node.args = [negated.operand]
            return gast.copy_location(gast.UnaryOp(gast.USub(), node), node)
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if _negation(node) and _negation(node.operand):
            return node.operand.operand   # `--a` -> `a`
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        negated = _negated_term(node.value) if isinstance(node.op, (gast.Add, gast.Sub)) \
            else None
        if negated is not None:   # `dx += -dy * x` -> `dx -= dy * x`
            node.op = gast.Sub() if isinstance(node.op, gast.Add) else gast.Add()
            node.value = negated
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, (gast.Add, gast.Sub)):
            negated = _negated_term(node.right)
            if negated is not None:   # `a + -b` -> `a - b`, `a - -b * c` -> `a + b * c`
                op = gast.Sub() if isinstance(node.op, gast.Add) else gast.Add()
                return gast.copy_location(gast.BinOp(node.left, op, negated), node)
        if isinstance(node.op, gast.Add) and nodes.same(node.left, node.right) and not any(
                isinstance(n, gast.Call) and (dotted_parts(n.func) or [""])[0] not in
                ("numpy", "math", "rt") for n in nodes.walk(node.left)):
            self.doubled = True
            return gast.copy_location(gast.BinOp(gast.Constant(2, None), gast.Mult(),
                                                 node.left), node)
        return node


def _negation(node):
    return isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub)


def _negated_term(node):
    """`b` for `-b`, `b * c` for `-b * c` or `c * -b`, `b * c * d` for `-b * c * d`: the term
    without its sign (the same number negated: a sign flip is exact, and IEEE products round
    symmetrically); else None."""
    if _negation(node):
        return node.operand
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
        if _negation(node.right):
            return gast.BinOp(node.left, gast.Mult(), node.right.operand)
        left = _negated_term(node.left)   # `-b * c * d`: (-b * c) * d
        if left is not None:
            return gast.BinOp(left, gast.Mult(), node.right)
    return None
