"""An f-string message of a raised exception spelt with `str` and `+` (part of desugar.py), which
Numba compiles; an f-string makes the whole gradient run as Python (pipeline._python_only):

    assert x.shape[1] == n, f"got {x.shape[1]} columns, not {n}"
                                                -->
    if not x.shape[1] == n:
        raise AssertionError("got " + str(x.shape[1]) + " columns, not " + str(n))

The same message in Python: `f"{v}"` is `format(v, "")`, which is `str(v)` for numbers, strings
and arrays. Only placeholders without a format spec or a conversion other than `!s` are spelt
so; any other f-string stays one.
"""
import gast

from .. import nodes

_STR = ord("s")


def spelled_out(statement):
    """Rewrite the f-strings of a `raise` statement's exception (in place)."""
    if isinstance(statement, gast.Raise) and statement.exc is not None:
        statement.exc = _Messages().visit(statement.exc)
    return statement


class _Messages(nodes.Transformer):
    def visit_JoinedStr(self, node):
        parts = []
        for value in node.values:
            if isinstance(value, gast.Constant):
                parts.append(value)
            elif isinstance(value, gast.FormattedValue) and value.format_spec is None and \
                    value.conversion in (-1, _STR, None):
                parts.append(gast.copy_location(
                    gast.Call(gast.Name("str", gast.Load(), None, None), [value.value], []),
                    value))
            else:
                return node
        if not parts:
            return gast.copy_location(gast.Constant("", None), node)
        message = parts[0]
        if not isinstance(message, gast.Constant):
            message = gast.BinOp(gast.Constant("", None), gast.Add(), message)
        for part in parts[1:]:
            message = gast.BinOp(message, gast.Add(), part)
        return gast.copy_location(message, node)
