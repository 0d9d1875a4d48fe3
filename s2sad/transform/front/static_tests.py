"""Decide now the tests whose answer is known when the function is transformed, and keep only
the branch they take.

A test is known when it reads only constants: a literal, a name bound once to one (a str,
None or bool given to a specialised callee, `debug = False`), a record's constant field
(`self.dim_changeable`), and what `not`, `and`, `or`, `==`, `!=`, `is`, `is not`, `in` make of
them. Library code branches on such flags (`if sensitivities: return values, dvalues`); left
in, both branches would be differentiated, and a function returning a tuple in one branch and
an array in the other would have no single result:

    def _simulate(p, t, sensitivities):          def _simulate(p, t):
        sensitivities = False                        sensitivities = False
        values = p[1] * numpy.exp(-p[0] * t)         values = p[1] * numpy.exp(-p[0] * t)
        if sensitivities:                 -->        return values
            return values, t * values
        else:
            return values

`x if C else y` keeps x or y the same way.
"""
import operator

import gast

from .. import nodes

_UNKNOWN = object()
_COMPARE = {gast.Eq: operator.eq, gast.NotEq: operator.ne, gast.Is: operator.is_,
            gast.IsNot: operator.is_not, gast.In: lambda a, b: a in b,
            gast.NotIn: lambda a, b: a not in b, gast.Lt: operator.lt, gast.LtE: operator.le,
            gast.Gt: operator.gt, gast.GtE: operator.ge}


def fold(tree):
    """Rewrite `tree` (a FunctionDef) in place."""
    known = _bound_once(tree)
    tree.body = _Fold(known).block(tree.body)


def _bound_once(tree):
    """{name: value} of the names assigned exactly once in the function, at its top level, to
    a constant, and never as a parameter, loop variable or augmented target."""
    stores = {}
    for node in nodes.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
            stores[node.id] = stores.get(node.id, 0) + 1
    params = {a.id for a in list(tree.args.posonlyargs) + list(tree.args.args) +
              list(tree.args.kwonlyargs)}
    known = {}
    for statement in tree.body:
        if isinstance(statement, gast.Assign) and len(statement.targets) == 1 and \
                isinstance(statement.targets[0], gast.Name) and \
                isinstance(statement.value, gast.Constant):
            name = statement.targets[0].id
            if stores.get(name) == 1 and name not in params:
                known[name] = statement.value.value
    return known


class _Fold:
    def __init__(self, known):
        self.known = known

    def block(self, statements):
        out = []
        for statement in statements:
            out += self.statement(statement)
            if out and isinstance(out[-1], (gast.Return, gast.Raise)):
                break  # (what follows a branch kept in place of its `if` is never reached)
        return out

    def statement(self, node):
        if isinstance(node, gast.If):
            value = self.value(node.test)
            if value is not _UNKNOWN:
                taken = node.body if _truth(value) else node.orelse
                return self.block(taken)
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(node, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                setattr(node, field, self.block(inner) or [gast.Pass()])
        _Choices(self).visit(node)
        return [node]

    def value(self, node):
        """The value of `node` if it is known now, else _UNKNOWN."""
        if isinstance(node, gast.Constant):
            return node.value
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            return self.known.get(node.id, _UNKNOWN)
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
            inner = self.value(node.operand)
            return _UNKNOWN if inner is _UNKNOWN else not _truth(inner)
        if isinstance(node, gast.BoolOp):
            return self._bool(node)
        if isinstance(node, gast.Compare) and len(node.ops) == 1 and \
                type(node.ops[0]) in _COMPARE:
            left, right = self.value(node.left), self.value(node.comparators[0])
            if left is _UNKNOWN or right is _UNKNOWN:
                return _UNKNOWN
            try:
                return bool(_COMPARE[type(node.ops[0])](left, right))
            except TypeError:
                return _UNKNOWN
        return _UNKNOWN

    def _bool(self, node):
        """`a and b` / `a or b`: known when a value that decides it is known first, or all
        are known."""
        deciding = isinstance(node.op, gast.Or)
        for operand in node.values:
            value = self.value(operand)
            if value is _UNKNOWN:
                return _UNKNOWN
            if _truth(value) == deciding:
                return value
        return value


class _Choices(nodes.Transformer):
    """`x if C else y` with C known -> x or y; the statements of nested blocks are left to
    _Fold."""

    def __init__(self, fold):
        self.fold = fold

    def visit_IfExp(self, node):
        value = self.fold.value(node.test)
        if value is _UNKNOWN:
            return self.generic_visit(node)
        return self.visit(node.body if _truth(value) else node.orelse)

    def visit_If(self, node):  # (its blocks are folded as statements)
        node.test = self.visit(node.test)
        return node

    def visit_While(self, node):
        node.test = self.visit(node.test)
        return node

    def visit_For(self, node):
        node.iter = self.visit(node.iter)
        return node

    def _inside(self, node):  # (a nested function or block of its own: left as it is)
        return node

    visit_With = visit_Try = visit_FunctionDef = visit_Lambda = visit_ClassDef = _inside


def _truth(value):
    return bool(value)  # (a literal: a str, number, None or bool)
