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

A decomposition asked for one of its results returns that array alone, not its tuple: it is
read as the tuple's element, whose rule is the decomposition's.

    s = numpy.linalg.svd(a, compute_uv=False)     -->      s = numpy.linalg.svd(a, False)[1]
    r = numpy.linalg.qr(a, mode="r")              -->      r = numpy.linalg.qr(a)[1]
"""
import gast
import numpy

from s2sad.runtime import rt

from .. import facts, nodes


def rewrite(tree):
    """Replace every sigmoid spelled out in `tree`, and every decomposition asked for one
    result (in place)."""
    _Sigmoid().visit(tree)
    _OneResult().visit(tree)


class _OneResult(nodes.Transformer):
    # function -> (the option, its position, the value asking for one result, that result)
    OPTIONS = {numpy.linalg.svd: ("compute_uv", 2, False, 1), numpy.linalg.qr: ("mode", 1, "r", 1)}

    def visit_Call(self, node):
        self.generic_visit(node)
        function = facts.REF.of(node)
        if function not in self.OPTIONS or not node.args:
            return node
        option, position, value, index = self.OPTIONS[function]
        given = {k.arg: k.value for k in node.keywords}
        if len(node.args) > position:
            given[option] = node.args[position]
        asked = given.get(option)
        if not (isinstance(asked, gast.Constant) and asked.value == value and
                type(asked.value) is type(value)):
            return node
        # (svd's full_matrices=False: its singular values are the same, and its rule holds)
        call = gast.Call(node.func, [node.args[0]] + ([nodes.constant(False)]
                                                      if function is numpy.linalg.svd else []),
                         [])
        facts.REF.put(call, function)
        gast.copy_location(call, node)
        return gast.copy_location(gast.Subscript(call, nodes.constant(index), gast.Load()), node)


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
