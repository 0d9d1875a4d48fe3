"""About how many characters astor prints for a statement: fold.py leaves a fold undone where
the line would pass the width at which astor wraps it (clumsily).

    statement_width(statement) -> characters, without the indentation
"""
import gast

_PRECEDENCE = {gast.Or: 1, gast.And: 2, gast.Not: 3, gast.BitOr: 5, gast.BitXor: 6,
               gast.BitAnd: 7, gast.LShift: 8, gast.RShift: 8, gast.Add: 9, gast.Sub: 9,
               gast.Mult: 10, gast.Div: 10, gast.FloorDiv: 10, gast.Mod: 10, gast.MatMult: 10,
               gast.USub: 11, gast.UAdd: 11, gast.Invert: 11, gast.Pow: 12}
_SYMBOLS = {gast.FloorDiv: 2, gast.Pow: 2, gast.LShift: 2, gast.RShift: 2, gast.Not: 4,
            gast.Eq: 2, gast.NotEq: 2, gast.LtE: 2, gast.GtE: 2, gast.Is: 2, gast.IsNot: 6,
            gast.In: 2, gast.NotIn: 6, gast.And: 3, gast.Or: 2}
_ATOM = 13


def statement_width(statement):
    if isinstance(statement, gast.Assign):
        return sum(_width(t, 0, True) + 3 for t in statement.targets) + \
            _width(statement.value, 0, True)
    if isinstance(statement, gast.AugAssign):
        return _width(statement.target) + _SYMBOLS.get(type(statement.op), 1) + 3 + \
            _width(statement.value, 0, True)
    if isinstance(statement, gast.Return):
        return 6 + (1 + _width(statement.value, 0, True) if statement.value else 0)
    if isinstance(statement, gast.For):
        return 9 + _width(statement.target, 0, True) + _width(statement.iter, 0, True)
    return _width(statement.value, 0, True)


def _width(node, context=0, bare=False):
    """About how many characters astor prints for the expression `node` where the precedence
    `context` is needed (`bare`: a tuple without parentheses)."""
    if isinstance(node, gast.Name):
        return len(node.id)
    if isinstance(node, gast.Constant):
        return len(repr(node.value))
    if isinstance(node, gast.Attribute):
        return _width(node.value, _ATOM) + 1 + len(node.attr)
    if isinstance(node, gast.Subscript):
        return _width(node.value, _ATOM) + 2 + _width(node.slice, 0, True)
    if isinstance(node, gast.Slice):
        parts = [p for p in (node.lower, node.upper, node.step) if p is not None]
        return sum(_width(p) for p in parts) + (2 if node.step is not None else 1)
    if isinstance(node, gast.Call):
        arguments = [_width(a) for a in node.args] + \
            [(len(k.arg) + 1 if k.arg else 2) + _width(k.value) for k in node.keywords]
        return _width(node.func, _ATOM) + 2 + sum(arguments) + 2 * max(len(arguments) - 1, 0)
    if isinstance(node, (gast.Tuple, gast.List)):
        inner = sum(_width(e) for e in node.elts) + 2 * max(len(node.elts) - 1, 0)
        return inner + (0 if bare and isinstance(node, gast.Tuple) and node.elts else 2)
    if isinstance(node, gast.Starred):
        return 1 + _width(node.value, _ATOM)
    if isinstance(node, gast.BinOp):
        own = _PRECEDENCE.get(type(node.op), 9)
        left, right = (own + 1, own - 1) if isinstance(node.op, gast.Pow) else (own, own + 1)
        width = _width(node.left, left) + _SYMBOLS.get(type(node.op), 1) + 2 + \
            _width(node.right, right)
    elif isinstance(node, gast.UnaryOp):
        own = _PRECEDENCE.get(type(node.op), 11)
        width = _SYMBOLS.get(type(node.op), 1) + _width(node.operand, own)
    elif isinstance(node, gast.Compare):
        own = 4
        width = _width(node.left, own + 1) + sum(
            _SYMBOLS.get(type(op), 1) + 2 + _width(c, own + 1)
            for op, c in zip(node.ops, node.comparators))
    elif isinstance(node, gast.BoolOp):
        own = _PRECEDENCE[type(node.op)]
        width = sum(_width(v, own + 1) for v in node.values) + \
            (_SYMBOLS[type(node.op)] + 2) * (len(node.values) - 1)
    elif isinstance(node, gast.IfExp):
        own = 0
        width = _width(node.body, 1) + _width(node.test, 1) + _width(node.orelse) + 10
    else:
        return 40  # (what is not folded into: comprehensions, lambdas, ...) a guess
    return width + (2 if own < context else 0)
