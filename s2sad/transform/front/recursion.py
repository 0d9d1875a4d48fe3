"""Recursion without a base case: a function that calls itself on every path before any
`return` would only end in a RecursionError (or, compiled, a crash), so resolve.py reports it.

    def f(x):
        return f(x * 0.5) + 1.0   -->   error: 'f' calls itself on every path: the recursion
                                        has no base case (fix: `if ...: return x` first)
"""
import gast

from s2sad.errors import Diagnostic

from .. import facts, nodes


def endless(source):
    """A Diagnostic if every path through the function calls itself before returning: a
    recursion without a base case, which would only end in a RecursionError (or, compiled, a
    crash)."""
    def calls_self(node):
        return isinstance(node, gast.Call) and facts.REF.of(node) is source.func
    if not _must_recurse(source.tree.body, calls_self):
        return []
    first = next(n for n in nodes.walk(source.tree) if calls_self(n))
    name = source.tree.name
    return [Diagnostic(source.loc(first), f"'{name}' calls itself on every path: the recursion "
                       "has no base case",
                       why=f"every path through {name} reaches this call before any `return`, "
                           "so it never ends",
                       fix=f"return without calling {name} for some arguments (a base case such "
                           "as `if n == 0: return x`)")]


def _must_recurse(statements, calls_self):
    """Whether every path through `statements` makes a call for which `calls_self` holds
    before leaving them (conservative: False when unsure)."""
    for statement in statements:
        if isinstance(statement, gast.If):
            if _evaluates(statement.test, calls_self):
                return True
            if _must_recurse(statement.body, calls_self) and \
                    _must_recurse(statement.orelse, calls_self):
                return True
        elif isinstance(statement, (gast.Assign, gast.AugAssign, gast.Expr, gast.Return)):
            if _evaluates(statement.value, calls_self):
                return True
        if any(isinstance(n, gast.Return) for n in nodes.walk(statement)):
            return False  # some path may return here without the call
    return False


def _evaluates(node, calls_self):
    """Whether evaluating `node` always makes such a call (not only in one branch of `a if c
    else b`, or in the right operand of `and`/`or`)."""
    if node is None:
        return False
    if calls_self(node):
        return True
    if isinstance(node, gast.IfExp):
        return _evaluates(node.test, calls_self)
    if isinstance(node, gast.BoolOp):
        return _evaluates(node.values[0], calls_self)
    if isinstance(node, (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp,
                         gast.GeneratorExp)):
        return False
    return any(_evaluates(child, calls_self) for child in gast.iter_child_nodes(node))
