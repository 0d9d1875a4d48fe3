"""An idiom a function spells out is read as the function it computes.

`1.0 / (1.0 + numpy.exp(-z))` is the logistic sigmoid. Differentiated operation by operation,
its adjoint is `-(-dy * y / (1.0 + e) * e)` with `e = exp(-z)`: the backward sweep needs `e` and
`1.0 + e` besides `y`, so a loop keeps three arrays where one would do (the LSTM's three gates:
six arrays per step), and for z below -709 it gives `0 * inf`, a NaN. A person writes
`dz = dy * y * (1 - y)`. The expression becomes `rt.sigmoid(z)`, whose body is that very
expression (the same values, bit for bit) and whose rule is that derivative.

Only `numpy.exp` forms are read so (`math.exp` may round its last bit otherwise than NumPy's),
with the literal 1 (int or float) in both places, in either order around `+`.

    y = 1.0 / (1.0 + numpy.exp(-z))      -->      y = rt.sigmoid(z)
"""
import gast
import numpy

from s2sad.runtime import rt

from .. import facts, nodes


def rewrite(tree):
    """Replace every sigmoid spelled out in `tree` (in place)."""
    _Sigmoid().visit(tree)


class _Sigmoid(nodes.Transformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        argument = _sigmoid_argument(node)
        if argument is None:
            return node
        call = gast.Call(nodes.dotted("rt.sigmoid"), [argument], [])
        facts.REF.put(call, rt.sigmoid)
        return gast.copy_location(call, node)


def _sigmoid_argument(node):
    """`z` for `1.0 / (1.0 + numpy.exp(-z))` (or `numpy.exp(-z) + 1`), else None."""
    if not (isinstance(node.op, gast.Div) and _is_one(node.left) and
            isinstance(node.right, gast.BinOp) and isinstance(node.right.op, gast.Add)):
        return None
    left, right = node.right.left, node.right.right
    exp = right if _is_one(left) else left if _is_one(right) else None
    if not (isinstance(exp, gast.Call) and facts.REF.of(exp) is numpy.exp and
            len(exp.args) == 1 and not exp.keywords):
        return None
    negated = exp.args[0]
    if isinstance(negated, gast.UnaryOp) and isinstance(negated.op, gast.USub):
        return negated.operand
    return None


def _is_one(node):
    return isinstance(node, gast.Constant) and type(node.value) in (int, float) and \
        node.value == 1
