"""Stage 1: a Python function object -> its gast tree, with positions in the real file.

    def f(x):                 SourceFunction(func=f, path='/abs/demo.py', first_line=12,
        return x * 2    -->                  tree=FunctionDef(name='f', ...))

Positions of every node are kept relative to the parsed snippet; `SourceFunction.loc(node)`
turns them into a file:line:col `Location` for diagnostics and source-line comments.
"""
import dataclasses
import hashlib
import inspect
import os

import gast

from .errors import Diagnostic, Location, UnsupportedError


@dataclasses.dataclass
class SourceFunction:
    func: object
    path: str
    first_line: int      # file line of the snippet's first line
    indent: int          # columns removed by dedenting
    text: str            # the dedented snippet
    tree: gast.FunctionDef

    @property
    def name(self):
        return self.func.__name__

    @property
    def sha256(self):
        return hashlib.sha256(self.text.encode()).hexdigest()

    def loc(self, node):
        line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0)
        end_line = getattr(node, "end_lineno", line)
        end_col = getattr(node, "end_col_offset", None)
        if end_line != line:
            end_col = None
        return Location(self.path, self.first_line + line - 1, col + self.indent,
                        None if end_col is None else end_col + self.indent)

    def segment(self, node):
        """The node's source text on one line (for comments in generated code)."""
        lines = self.text.splitlines()
        first, last = node.lineno - 1, getattr(node, "end_lineno", node.lineno) - 1
        if first == last:
            return lines[first][node.col_offset:node.end_col_offset]
        parts = [lines[first][node.col_offset:]] + lines[first + 1:last]
        parts.append(lines[last][:node.end_col_offset])
        return " ".join(p.strip() for p in parts)

    def header(self, node):
        """The first line of a compound statement (`for i in range(n):`), for comments."""
        line = self.text.splitlines()[node.lineno - 1][node.col_offset:].rstrip()
        return line if line.endswith(":") else line + " ..."

    def where(self, node):
        """Short 'file.py:line' for comments."""
        return f"{os.path.basename(self.path)}:{self.first_line + node.lineno - 1}"


def parse_function(func):
    """Read `func`'s source and parse it; raise a UserError when that is impossible."""
    where = code_location(func)
    try:
        lines, first_line = inspect.getsourcelines(func)
    except (OSError, TypeError) as exc:
        raise UnsupportedError([Diagnostic(
            where, f"cannot read the source of {_describe(func)}",
            why=f"s2sad differentiates Python source, and inspect could not find it ({exc})",
            fix="define the function with `def` in a .py file (not in a REPL or exec), or "
                "register a derivative for it with @s2sad.adjoint")]) from None
    if func.__name__ == "<lambda>":
        raise UnsupportedError([Diagnostic(
            where, "cannot differentiate a lambda",
            why="a lambda's source cannot be located reliably inside its line",
            fix="define the function with `def`")])
    indent = len(lines[0]) - len(lines[0].lstrip())
    text = "".join(line[indent:] if line[:indent].isspace() or not indent else line.lstrip()
                   for line in lines)
    try:
        module = gast.parse(text)
    except SyntaxError as exc:  # e.g. a function whose source is not a standalone def
        raise UnsupportedError([Diagnostic(
            where, f"cannot parse the source of {_describe(func)}: {exc.msg}",
            fix="define the function with a plain `def` statement")]) from None
    tree = module.body[0]
    if not isinstance(tree, gast.FunctionDef):
        kind = "an async function" if isinstance(tree, gast.AsyncFunctionDef) else "this object"
        raise UnsupportedError([Diagnostic(
            where, f"cannot differentiate {kind}", fix="differentiate a plain `def` function")])
    tree.decorator_list = []
    return SourceFunction(func, inspect.getsourcefile(func) or where.path, first_line, indent,
                          text, tree)


def _describe(func):
    module = getattr(func, "__module__", None)
    name = getattr(func, "__qualname__", repr(func))
    return f"{module}.{name}" if module else f"'{name}'"


def code_location(func):
    code = getattr(func, "__code__", None)
    if code is None:
        return Location("<unknown>", 0)
    return Location(code.co_filename, code.co_firstlineno)
