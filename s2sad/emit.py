"""Stage 8: print generated functions as Python source, with comments, and prove the printing.

astor prints the tree; `Comment` statements become `# ...` lines (they travel through the printer
as placeholder names). The printed text is parsed back and compared with the tree: a printer bug
becomes an InternalError here, never a wrong gradient.
"""
import ast
import copy
import re

import astor
import gast

from .errors import InternalError

_MARKER = "__s2sad_comment_{}__"
_MARKER_LINE = re.compile(r"^(\s*)__s2sad_comment_(\d+)__$")


def function_source(function):
    """Source text of one gast FunctionDef that may contain Comment statements."""
    comments = []
    with_markers = _Markers(comments).visit(copy.deepcopy(function))
    text = astor.to_source(gast.gast_to_ast(with_markers), indent_with=" " * 4)
    lines = []
    for line in text.splitlines():
        match = _MARKER_LINE.match(line)
        lines.append(f"{match.group(1)}# {comments[int(match.group(2))]}" if match else line)
    text = "\n".join(lines) + "\n"
    _check_round_trip(text, function)
    return text


def _check_round_trip(text, function):
    expected = gast.gast_to_ast(_Strip().visit(copy.deepcopy(function)))
    parsed = ast.parse(text).body[0]
    if ast.dump(parsed) != ast.dump(expected):
        raise InternalError(f"the printed source of {function.name} does not parse back to the "
                            "generated tree (an astor printing problem)")


class _Markers(gast.NodeTransformer):
    def __init__(self, comments):
        self.comments = comments

    def visit_Comment(self, node):
        self.comments.append(node.text.replace("\n", " "))
        name = gast.Name(_MARKER.format(len(self.comments) - 1), gast.Load(), None, None)
        return gast.Expr(name)


class _Strip(gast.NodeTransformer):
    def visit_Comment(self, node):
        return None
