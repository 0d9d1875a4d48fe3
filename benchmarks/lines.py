"""Lines of code: s2sad's generated gradient against the hand-written adjoint (issue 18).

code_lines(source) is the one counting rule, applied to both sides: non-blank lines that are
not pure comment lines, not import lines (`import ...`, `from ... import ...`), not the links
of a generated file to its callees (`name = rt.load(__name__, 'stem', 'function')`), not
decorators (`@numba.njit(...)`) and not docstrings. Physical lines: a statement wrapped over
two lines counts two.

    generated_lines(path): the generated file the benchmark call ran (`gradient.path` after the
        call) plus every file it links with rt.load, followed transitively; each file is a
        `<stem>.py` in the same directory and is counted once
    hand_lines(adjoint): the source of the hand-written adjoint in hand_adjoints.py
        (inspect.getsource) plus the helpers of hand_adjoints.py it calls, transitively
"""
import ast
import inspect
import os
import textwrap

import hand_adjoints


def _skipped_lines(tree):
    """Line numbers of imports, rt.load links, decorators and docstrings in `tree`."""
    skipped = set()

    def span(node):
        skipped.update(range(node.lineno, node.end_lineno + 1))

    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) or _is_link(node):
            span(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for decorator in node.decorator_list:
                span(decorator)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = node.body[0] if node.body else None
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                span(first)
    return skipped


def _is_link(node):
    """`name = rt.load(...)`: how a generated file links a callee's generated file."""
    return (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "load"
            and isinstance(node.value.func.value, ast.Name) and node.value.func.value.id == "rt")


def code_lines(source):
    """The lines of `source` that count as code (see the module docstring)."""
    source = textwrap.dedent(source)
    skipped = _skipped_lines(ast.parse(source))
    return sum(1 for number, line in enumerate(source.splitlines(), 1)
               if line.strip() and not line.strip().startswith("#") and number not in skipped)


def linked_stems(source):
    """The stems a generated file links with `rt.load(__name__, 'stem', 'function')`."""
    return [node.value.args[1].value for node in ast.walk(ast.parse(source))
            if _is_link(node) and len(node.value.args) >= 2
            and isinstance(node.value.args[1], ast.Constant)]


def generated_lines(path):
    """(lines, files): code lines of the generated file at `path` and of its callees' files."""
    directory = os.path.dirname(path)
    todo, seen, total = [path], set(), 0
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        with open(current) as handle:
            source = handle.read()
        total += code_lines(source)
        todo += [os.path.join(directory, stem + ".py") for stem in linked_stems(source)]
    return total, len(seen)


def hand_lines(adjoint):
    """(lines, functions): code lines of a hand-written adjoint (a Numba dispatcher or a plain
    function) and of the functions of hand_adjoints.py it calls, each counted once."""
    todo, seen, total = [adjoint], set(), 0
    while todo:
        func = todo.pop()
        func = getattr(func, "py_func", func)     # the Python function under numba.njit
        if func in seen:
            continue
        seen.add(func)
        total += code_lines(inspect.getsource(func))
        for name in func.__code__.co_names:
            called = vars(hand_adjoints).get(name)
            called = getattr(called, "py_func", called)
            if inspect.isfunction(called) and called.__module__ == hand_adjoints.__name__:
                todo.append(called)
    return total, len(seen)
