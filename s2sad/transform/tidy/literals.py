"""Exact arithmetic on what filled templates leave: integer literals folded, `** 1` and `* 1`
dropped, a tuple display indexed by a literal read as its element.

    dx = d_t0 * 2 * x ** (2 - 1)                        -->  dx = d_t0 * 2 * x
    d_t5 = rt.logdet_grad((rt.zeros_like(sign), dlogdet)[1], _t5)  -->  ...(dlogdet, _t5)

Only rewrites that are exact in floating point; nothing is reordered (exact.py makes the ones
that need folding first).
"""
import gast

from .. import nodes

_FOLD = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b,
         gast.Mult: lambda a, b: a * b}


def _int_literal(node):
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = _int_literal(node.operand)
        return None if inner is None else -inner
    return None


def _literal(value):
    if value < 0:
        return gast.UnaryOp(gast.USub(), gast.Constant(-value, None))
    return gast.Constant(value, None)


class _Folder(nodes.Transformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        left, right = _int_literal(node.left), _int_literal(node.right)
        if left is not None and right is not None and type(node.op) in _FOLD:
            return _literal(_FOLD[type(node.op)](left, right))
        if isinstance(node.op, gast.Pow) and right == 1:
            return node.left
        if isinstance(node.op, gast.Mult) and right == 1:
            return node.left
        return node

    def visit_Subscript(self, node):
        """`(a, b)[1]` -> `b`, when the elements dropped are names or zeros (no effects)."""
        self.generic_visit(node)
        index = _int_literal(node.slice)
        if isinstance(node.value, gast.Tuple) and index is not None and \
                -len(node.value.elts) <= index < len(node.value.elts) and \
                all(_pure(e) for e in node.value.elts):
            return node.value.elts[index]
        return node


def _pure(node):
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
        node.func.attr == "zeros_like" and all(_pure(a) for a in node.args)


def fold_literals(function):
    """The function with its literal arithmetic folded (see the module's docstring)."""
    return _Folder().visit(function)
