"""Stage 7: tidy what templates produce, without changing a single value.

Filling `d[x] = d[z] * y * x ** (y - 1)` with `y = 2` gives `dz * 2 * x ** (2 - 1)`; folding the
literal arithmetic gives `dz * 2 * x`. Only rewrites that are exact in floating point are made
(`e ** 1 -> e`, `e * 1 -> e`, literal arithmetic on ints); nothing is reordered.

    dx = d_t0 * 2 * x ** (2 - 1)     -->     dx = d_t0 * 2 * x
"""
import gast

_FOLD = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b,
         gast.Mult: lambda a, b: a * b}


def tidy(function):
    """Fold literal integer arithmetic and drop `** 1` and `* 1` in the backward sweep."""
    return _Folder().visit(function)


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


class _Folder(gast.NodeTransformer):
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
