"""A Python function object -> its gast tree, with positions in the real file.

    def f(x):                 SourceFunction(func=f, path='/abs/demo.py', first_line=12,
        return x * 2    -->                  tree=FunctionDef(name='f', ...))

Positions of every node are kept relative to the parsed snippet; `SourceFunction.loc(node)`
turns them into a file:line:col `Location` for diagnostics and source-line comments. Code put in
from another function (inline.py) keeps that function's positions, its lines moved up by
FOREIGN * k for the k-th such function (`foreign[k]`): every node made from it keeps the
mark, so its diagnostics and comments point into its own source.
"""
import dataclasses
import hashlib
import inspect
import linecache
import os
import types
import weakref

import gast

from s2sad.errors import Diagnostic, Location, UnsupportedError

FOREIGN = 1_000_000  # lines of inlined functions' code: FOREIGN * k + their own line


@dataclasses.dataclass
class SourceFunction:
    func: object
    path: str
    first_line: int      # file line of the snippet's first line
    indent: int          # columns removed by dedenting
    text: str            # the dedented snippet
    tree: gast.FunctionDef
    foreign: dict = dataclasses.field(default_factory=dict)  # k -> inlined SourceFunction
    procedure: bool = False  # returns no value anywhere (desugar.py ends it with `return None`)
    made: dict = dataclasses.field(default_factory=dict)  # functions s2sad made in it

    @property
    def name(self):
        return self.func.__name__

    @property
    def sha256(self):
        return hashlib.sha256(self.text.encode()).hexdigest()

    def _owner(self, node):
        """(the SourceFunction `node` comes from, `node` with positions in that one's snippet)."""
        k = getattr(node, "lineno", 1) // FOREIGN
        if not k or k not in self.foreign:
            return self, node
        shifted = types.SimpleNamespace(lineno=node.lineno - k * FOREIGN,
                                        col_offset=getattr(node, "col_offset", 0))
        if getattr(node, "end_lineno", None) is not None:
            shifted.end_lineno = node.end_lineno - k * FOREIGN
        if getattr(node, "end_col_offset", None) is not None:
            shifted.end_col_offset = node.end_col_offset
        return self.foreign[k], shifted

    def loc(self, node):
        owner, node = self._owner(node)
        if owner is not self:
            return owner.loc(node)
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
        owner, node = self._owner(node)
        if owner is not self:
            return owner.segment(node)
        lines = self.text.splitlines()
        first, last = node.lineno - 1, getattr(node, "end_lineno", node.lineno) - 1
        if first == last:
            return lines[first][node.col_offset:node.end_col_offset]
        parts = [lines[first][node.col_offset:]] + lines[first + 1:last]
        parts.append(lines[last][:node.end_col_offset])
        return " ".join(p.strip() for p in parts)

    def header(self, node):
        """The first line of a compound statement (`for i in range(n):`), for comments."""
        owner, node = self._owner(node)
        if owner is not self:
            return owner.header(node)
        line = self.text.splitlines()[node.lineno - 1][node.col_offset:].rstrip()
        return line if line.endswith(":") else line + " ..."

    def where(self, node):
        """Short 'file.py:line' for comments."""
        owner, node = self._owner(node)
        if owner is not self:
            return owner.where(node)
        return f"{os.path.basename(self.path)}:{self.first_line + node.lineno - 1}"


def parse_function(func):
    """Read `func`'s source and parse it; raise a UserError when that is impossible, or when
    the source found is not the code the function runs (a wrapper made with functools.wraps,
    a file edited after it was imported)."""
    where = code_location(func)
    wrapped = inspect.unwrap(func)
    if wrapped is not func:  # inspect would read the source of the wrapped function instead
        raise UnsupportedError([Diagnostic(
            code_location(wrapped), f"'{func.__name__}' is a wrapper made by a decorator "
            f"(functools.wraps), defined at {where.path}:{where.line}",
            why="the source s2sad can read is the wrapped function's, not the code the wrapper "
                "runs, so its gradient would be of another function",
            fix=f"differentiate the undecorated function ({func.__name__}.__wrapped__) and apply "
                "what the decorator does outside it, or write the wrapper's computation in a "
                "plain def")])
    try:
        lines, first_line = inspect.getsourcelines(func)
    except (OSError, TypeError) as exc:
        raise UnsupportedError([Diagnostic(
            where, f"cannot read the source of {_describe(func)}",
            why=f"s2sad differentiates Python source, and inspect could not find it ({exc})",
            fix="define the function with `def` in a .py file (not in a REPL or exec), or "
                "register a derivative for it with @s2sad.adjoint")]) from None
    if _is_lambda(func):
        return _parse_lambda(func, lines, first_line, where)
    indent = len(lines[0]) - len(lines[0].lstrip())
    text = _dedented(lines, indent)
    try:
        module = gast.parse(text)
    except SyntaxError as exc:  # e.g. a function whose source is not a standalone def
        raise UnsupportedError([Diagnostic(
            where, f"cannot parse the source of {_describe(func)}: {exc.msg}",
            why="inspect found source text that is not a whole function definition",
            fix="define the function with a plain `def` statement")]) from None
    tree = module.body[0]
    if not isinstance(tree, gast.FunctionDef):
        kind = "an async function" if isinstance(tree, gast.AsyncFunctionDef) else "this object"
        raise UnsupportedError([Diagnostic(
            where, f"cannot differentiate {kind}",
            why="an async function returns a coroutine, not a number" if "async" in kind else
                "its source is not a function definition",
            fix="differentiate a plain `def` function")])
    tree.decorator_list = []
    if not _runs_this_source(func, tree, text):
        raise UnsupportedError([Diagnostic(
            where, f"the source of '{func.__name__}' in {where.path} is not the code it runs",
            why="the file was changed after the function was imported (or the function was "
                "built from other code), and s2sad differentiates the source it reads",
            fix="reload the module (importlib.reload) or restart Python, so that the function "
                "and its file agree")])
    return SourceFunction(func, inspect.getsourcefile(func) or where.path, first_line, indent,
                          text, tree)


_named = weakref.WeakKeyDictionary()   # lambda -> its named copy


def named(func):
    """A lambda as a function with a name, the rest as they are: `objective = lambda p: ...`
    becomes a copy of it named `objective` (`lambda_12` for one not assigned to a name, 12
    being its line), so that generated files and functions have names. The same copy for the
    same lambda."""
    if not _is_lambda(func) or func.__name__ != "<lambda>":
        return func
    if func not in _named:
        try:
            _, assigned, _, _, _ = _lambda_node(func)
        except Exception:  # noqa: BLE001 -- parse_function reports an unreadable source
            assigned = None
        name = assigned or f"lambda_{func.__code__.co_firstlineno}"
        copy = types.FunctionType(func.__code__.replace(co_name=name), func.__globals__, name,
                                  func.__defaults__, func.__closure__)
        copy.__kwdefaults__ = func.__kwdefaults__
        copy.__qualname__, copy.__module__ = func.__qualname__, func.__module__
        _named[func] = copy
    return _named[func]


def _is_lambda(func):
    code = getattr(func, "__code__", None)
    return code is not None and _qualname(code).rpartition(".")[2] == "<lambda>"


def _lambda_node(func):
    """(the Lambda node, the name it is assigned to or None, the dedented text parsed, its
    first line in the file, the columns removed) of a lambda's source."""
    lines, first_line = inspect.getsourcelines(func)
    indent = len(lines[0]) - len(lines[0].lstrip())
    text = _dedented(lines, indent)
    module = gast.parse(text)
    code = func.__code__
    line = code.co_firstlineno - first_line + 1
    params = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    columns = [p[2] - indent for p in code.co_positions() if p[0] == code.co_firstlineno
               and p[1] == code.co_firstlineno and p[2] is not None and p[3] > p[2]]
    found, assigned = [], {}
    for node in gast.walk(module):
        if isinstance(node, gast.Assign) and isinstance(node.value, gast.Lambda) and \
                len(node.targets) == 1 and isinstance(node.targets[0], gast.Name):
            assigned[id(node.value)] = node.targets[0].id
        if isinstance(node, gast.Lambda) and node.lineno == line and \
                [a.id for a in node.args.args + node.args.kwonlyargs] == params:
            found.append(node)
    if len(found) > 1 and columns:  # several on the line: the one holding the code's columns
        found = [n for n in found if n.col_offset <= min(columns) and
                 (n.end_lineno > line or max(columns) < n.end_col_offset)]
    if len(found) != 1:
        raise ValueError("the lambda is not found alone in its source line")
    return found[0], assigned.get(id(found[0])), text, first_line, indent


def _parse_lambda(func, lines, first_line, where):
    """A lambda's source as the tree of the function it is: `lambda p: e` -> `def name(p):
    return e`, with the lambda's positions in its file."""
    try:
        node, _, text, first_line, indent = _lambda_node(func)
    except (SyntaxError, ValueError):
        raise UnsupportedError([Diagnostic(
            where, "cannot find this lambda in its source line",
            why="its line holds several lambdas with the same parameters, or is not a whole "
                "statement",
            fix="define the function with `def`, or give the lambda a line of its own")]) \
            from None
    body = gast.copy_location(gast.Return(node.body), node.body)
    tree = gast.FunctionDef(func.__name__, node.args, [body], [], None, None, [])
    gast.copy_location(tree, node)
    tree.end_lineno, tree.end_col_offset = node.end_lineno, node.end_col_offset
    if not _runs_this_source(func, tree, text):
        raise UnsupportedError([Diagnostic(
            where, f"the source of this lambda in {where.path} is not the code it runs",
            why="the file was changed after it was imported",
            fix="reload the module (importlib.reload) or restart Python")])
    return SourceFunction(func, inspect.getsourcefile(func) or where.path, first_line, indent,
                          text, tree)


def _dedented(lines, indent):
    """The source lines without their common indentation; a blank line stays a line (so that
    line numbers after it stay right) and a comment indented less loses its indentation."""
    return "".join("\n" if not line.strip() else
                   line[indent:] if line[:indent].isspace() or not indent else line.lstrip()
                   for line in lines)


def _runs_this_source(func, tree, text):
    """Whether the function's code is what compiling its file as it is now gives (the whole
    file: how names are bound decides the bytecode), with the same name and parameters."""
    code = func.__code__
    params = [a.id for a in list(tree.args.posonlyargs) + list(tree.args.args) +
              list(tree.args.kwonlyargs)]
    if tree.name != code.co_name or params != list(code.co_varnames[:len(params)]):
        return False
    module = _compiled_file(code.co_filename)
    if module is None:
        return True  # nothing to compare with (e.g. a notebook cell with magics)
    same_name = [c for c in _code_objects(module) if _qualname(c) == _qualname(code)]
    if not same_name:
        return True  # built from other code: the name and parameters agreed
    return any(c.co_firstlineno == code.co_firstlineno and _same_code(c, code)
               for c in same_name)


def _qualname(code):
    return getattr(code, "co_qualname", code.co_name)  # Python 3.10 has no co_qualname


_compiled = {}


def _compiled_file(path):
    """The code object of the file's current text (memoised on the text), or None."""
    text = "".join(linecache.getlines(path))
    key = (path, hashlib.sha256(text.encode()).digest())
    if key not in _compiled:
        try:
            _compiled[key] = compile(text, path, "exec", dont_inherit=True) if text else None
        except (SyntaxError, ValueError):
            _compiled[key] = None
    return _compiled[key]


def _code_objects(code):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield const
            yield from _code_objects(const)


def _same_code(a, b):
    """Same bytecode, names and constants, nested code objects included."""
    if (a.co_code, a.co_names, a.co_varnames) != (b.co_code, b.co_names, b.co_varnames):
        return False
    consts_a, consts_b = a.co_consts, b.co_consts
    if len(consts_a) != len(consts_b):
        return False
    for x, y in zip(consts_a, consts_b):
        if isinstance(x, types.CodeType) and isinstance(y, types.CodeType):
            if not _same_code(x, y):
                return False
        elif type(x) is not type(y) or repr(x) != repr(y):
            return False
    return True


def _describe(func):
    module = getattr(func, "__module__", None)
    name = getattr(func, "__qualname__", repr(func))
    return f"{module}.{name}" if module else f"'{name}'"


def code_location(func):
    code = getattr(func, "__code__", None)
    if code is None:
        return Location("<unknown>", 0)
    return Location(code.co_filename, code.co_firstlineno)
