"""Print generated functions as Python source, with comments, and prove the printing.

astor prints the tree; `Comment` statements become `# ...` lines (they travel through the printer
as placeholder names). The printed text is parsed back and compared with the tree: a printer bug
becomes an InternalError here, never a wrong gradient.
"""
import ast
import re

import astor
import gast

from s2sad.errors import InternalError

from ..nodes import Comment, same

_MARKER = "__s2sad_comment_{}__"
_MARKER_LINE = re.compile(r"^(\s*)__s2sad_comment_(\d+)__$")


def function_source(function):
    """Source text of one gast FunctionDef that may contain Comment statements."""
    comments, replaced = [], []
    _mark_comments(function, comments, replaced)
    try:
        tree = gast.gast_to_ast(function)  # a new tree: the markers can be put back at once
    finally:
        for statements, index, comment in replaced:
            statements[index] = comment
    tree = _Negatives().visit(tree)
    text = astor.to_source(tree, indent_with=" " * 4)
    _check_round_trip(text, tree)
    lines = []
    for line in text.splitlines():
        match = _MARKER_LINE.match(line)
        lines.append(f"{match.group(1)}# {comments[int(match.group(2))]}" if match else line)
    return "\n".join(lines) + "\n"


def _mark_comments(node, comments, replaced):
    """Replace each Comment statement by a marker expression, in place, noting what to put
    back (copying the tree instead costs more than the whole printing)."""
    for field in ("body", "orelse", "finalbody"):
        statements = getattr(node, field, None)
        if not isinstance(statements, list):
            continue
        for index, statement in enumerate(statements):
            if isinstance(statement, Comment):
                comments.append(statement.text.replace("\n", " "))
                marker = gast.Name(_MARKER.format(len(comments) - 1), gast.Load(), None, None)
                replaced.append((statements, index, statement))
                statements[index] = gast.Expr(marker)
            else:
                _mark_comments(statement, comments, replaced)


class _Negatives(ast.NodeTransformer):
    """A negative number literal as a unary minus, as it reads back: astor prints
    Constant(-2) ** 2 as `-2 ** 2`, which Python reads as -(2 ** 2). (A constant folded or put
    in from a value, such as an object's int field, may be negative.)"""

    def visit_Constant(self, node):
        value = node.value
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
            return ast.copy_location(ast.UnaryOp(ast.USub(), ast.Constant(-value)), node)
        return node


def _check_round_trip(text, tree):
    """The printed text (markers still in) must parse back to the very tree printed."""
    if not same(ast.parse(text).body[0], tree):
        raise InternalError("the printed source does not parse back to the generated tree "
                            "(an astor printing problem)")
