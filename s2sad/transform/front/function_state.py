"""State kept on a function of the user's, `constructL.Lparamidx`: an attribute that a function of
its module assigns is state the function carries from statement to statement and from call to
call (ADBench's GMM counts the columns it has filled this way). It is held in a cell, as the
objects' fields of container_cells.py are: a 1-element array passed in as an input, which
generated code reads as `cell[0]` and writes in place; after the run the caller sets the
attribute from it, so the function object changes as when the function runs:

    def constructL(d, icf):                         def constructL(d, icf, constructL_Lparamidx):
        constructL.Lparamidx = d            -->         constructL_Lparamidx[0] = d
        ... icf[constructL.Lparamidx:] ...              ... icf[constructL_Lparamidx[0]:] ...

Nested functions reading or assigning it are put in place of their calls by desugar.py, so they
read and write the same cell. An attribute set only at module level (`f.table = ...`) is not
state: resolve.py reads it as a constant.

A cell is a float64 array whatever it holds; an int or a bool is read back as `int(f_k[0])`,
`bool(f_k[0])`, and the attribute gets a value of its type back. Its type is the value's when
the attribute exists at the call; when it does not yet (the function sets it before reading it,
as ADBench's does), an int when the code uses it as an index, a slice bound or a `range`
argument or assigns it only ints it can see, else a float.
"""
import ast
import dataclasses
import functools
import inspect
import numbers
import types

import gast
import numpy

from s2sad.errors import Diagnostic, UnsupportedError

from .. import facts, nodes
from .container_cells import Cell, definition_of
from .known_kinds import namespace

_MISSING = object()


def cell_name(function, attribute):
    """The input holding `function.attribute` in generated code: `constructL_Lparamidx`."""
    return f"{function.__name__}_{attribute}"


def state_attributes(function):
    """The attributes of `function` that a function of its module assigns (`f.k = v`,
    `f.k += v` inside a `def`, `f` spelling the function's name there)."""
    if not isinstance(function, types.FunctionType):
        return frozenset()
    return _assigned_in_module(_module_text(function)).get(function.__name__, frozenset())


def _module_text(function):
    """The source of the module defining `function` ("" when it has none)."""
    try:
        return inspect.getsource(inspect.getmodule(function))
    except (OSError, TypeError):
        return ""


@functools.lru_cache(maxsize=32)
def _module_tree(text):
    try:
        return ast.parse(text)
    except SyntaxError:
        return ast.parse("")


@functools.lru_cache(maxsize=32)
def _assigned_in_module(text):
    """{name: attributes assigned on it inside the functions of the module `text`}."""
    tree = _module_tree(text)
    found = {}
    for definition in ast.walk(tree):
        if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(definition):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and \
                    isinstance(node.value, ast.Name):
                found.setdefault(node.value.id, set()).add(node.attr)
    return {name: frozenset(attributes) for name, attributes in found.items()}


@dataclasses.dataclass(frozen=True)
class State:
    """One piece of state a function carries: `owner.attribute` (a function and one of its
    state attributes, or a closure cell and "cell_contents"), held in the input `name`."""
    owner: object
    attribute: str
    name: str
    path: str     # as the source spells it: `constructL.Lparamidx`, `count`


def touched(func):
    """[State] that `func`'s own code (nested functions included) reads or assigns, in order
    of first use: its functions' state attributes, and the variables of an enclosing function
    it declares `nonlocal` (their closure cells)."""
    definition = definition_of(func)
    if definition is None:
        return []  # (a lambda: it assigns nothing)
    names = namespace(func)
    found = []
    for node in ast.walk(definition):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            owner = names.get(node.value.id, _MISSING)
            if isinstance(owner, types.FunctionType) and node.attr in state_attributes(owner):
                state = State(owner, node.attr, cell_name(owner, node.attr),
                              f"{node.value.id}.{node.attr}")
                if state not in found:
                    found.append(state)
    closure = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    for name in sorted(_declared_nonlocal(definition)):
        if name in closure:
            found.append(State(closure[name], "cell_contents", name, name))
    return found


def _declared_nonlocal(definition):
    """The names a function's own `nonlocal` statements declare (not its nested functions')."""
    names, todo = set(), list(definition.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Nonlocal):
            names.update(node.names)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                   ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))
    return names


def dtype(owner, attribute):
    """The type of what `owner.attribute` holds now (int64, bool_ or float64), or will hold."""
    value = getattr(owner, attribute, _MISSING)
    if value is _MISSING:
        return _dtype_when_missing(owner, attribute)
    return numpy.bool_ if isinstance(value, (bool, numpy.bool_)) else \
        numpy.int64 if isinstance(value, (numbers.Integral, numpy.integer)) else numpy.float64


def reader(state):
    """A reader of `state`: a new Cell holding its value now. The cell is float64 whatever the
    value (an int is read back as `int(f_k[0])`): the backward sweep keeps a cell a call
    writes, on tapes of floats (exact for ints below 2**53)."""
    def cell():
        value = getattr(state.owner, state.attribute, _MISSING)
        if value is _MISSING:  # (a closure cell not assigned yet: Python's error is raised)
            value = 0 if _dtype_when_missing(state.owner, state.attribute) is numpy.int64 \
                else 0.0
        return Cell(state.owner, state.attribute, value, dtype=numpy.float64)
    return cell


def rewrite(source):
    """`f.k` -> `f_k[0]` in `source.tree` (loads and stores, nested functions included) for the
    state attributes of the functions the code names; records the cells (facts.CELLS) so that
    generated code works on a copy and leaves the new value in the cell it was given."""
    names = namespace(source.func)
    local = {n.id for n in nodes.walk(source.tree) if isinstance(n, gast.Name) and
             isinstance(n.ctx, (gast.Store, gast.Param))} | \
        {a.id for a in nodes.walk(source.tree.args) if isinstance(a, gast.Name)}
    held, problems = {}, []

    class _Rewrite(nodes.Transformer):
        def visit_Attribute(self, node):
            self.generic_visit(node)
            if not isinstance(node.value, gast.Name) or node.value.id in local:
                return node
            owner = names.get(node.value.id, _MISSING)
            if not isinstance(owner, types.FunctionType) or \
                    node.attr not in state_attributes(owner):
                return node
            name = cell_name(owner, node.attr)
            held[name] = f"{node.value.id}.{node.attr}"
            value = getattr(owner, node.attr, 0)
            if not isinstance(value, (numbers.Real, numpy.bool_)) and not problems:
                problems.append(Diagnostic(
                    source.loc(node), f"`{held[name]}` holds a {type(value).__name__}",
                    why="s2sad carries a function's attributes that hold a number or a bool "
                        "from call to call, in a cell",
                    fix="keep the value in a local variable, or return it"))
            return _cell_access(name, node.ctx, dtype(owner, node.attr), node)

    _Rewrite().visit(source.tree)
    if problems:
        raise UnsupportedError(problems)
    _closure_cells(source, held)
    if held:
        facts.CELLS.put(source.tree, {**(facts.CELLS.of(source.tree) or {}), **held})
    return held


def _dtype_when_missing(function, attribute):
    if not isinstance(function, types.FunctionType):
        return numpy.float64
    return _dtype_in_module(_module_text(function), function.__name__, attribute)


@functools.lru_cache(maxsize=64)
def _dtype_in_module(text, name, attribute):
    tree = _module_tree(text)
    used_as_int, assigned = False, []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_spells(t, name, attribute) for t in targets):
                assigned.append(node.value)
        elif isinstance(node, ast.Subscript):
            used_as_int |= any(_spells(n, name, attribute) for n in ast.walk(node.slice))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id == "range":
            used_as_int |= any(_spells(n, name, attribute) for a in node.args
                               for n in ast.walk(a))
    if used_as_int or assigned and all(_int_valued(v) for v in assigned):
        return numpy.int64
    return numpy.float64


def _cell_access(name, ctx, held_type, like):
    """`name[0]`, the cell `name`'s value, to store into or to read; read as `int(...)` or
    `bool(...)` where it holds one (so tapes keep it as an int, and it can index)."""
    cell = gast.copy_location(nodes.name(name), like)
    facts.STATE.put(cell, True)
    access = gast.copy_location(gast.Subscript(cell, gast.Constant(0, None), ctx), like)
    kind = {numpy.int64: "int", numpy.bool_: "bool"}.get(held_type)
    if isinstance(ctx, gast.Load) and kind is not None:
        access = gast.copy_location(gast.Call(gast.copy_location(
            gast.Name(kind, gast.Load(), None, None), like), [access], []), like)
    return access


def _closure_cells(source, held):
    """`nonlocal count` in the function itself: `count` -> `count[0]`, its closure cell's value
    in a cell of its own (an input), written back to the closure cell after the run."""
    tree = source.tree
    declared = {n for s in tree.body if isinstance(s, gast.Nonlocal) for n in s.names}
    closure = dict(zip(source.func.__code__.co_freevars, source.func.__closure__ or ()))
    declared &= set(closure)
    if not declared:
        return
    tree.body = [s for s in tree.body if not isinstance(s, gast.Nonlocal)]
    types_of = {name: dtype(closure[name], "cell_contents") for name in declared}

    class _Rewrite(nodes.Transformer):
        def visit_Name(self, node):
            if node.id not in declared or isinstance(node.ctx, gast.Param):
                return node
            held[node.id] = node.id
            return _cell_access(node.id, node.ctx, types_of[node.id], node)

    _Rewrite().visit(tree)


def _spells(node, name, attribute):
    return isinstance(node, ast.Attribute) and node.attr == attribute and \
        isinstance(node.value, ast.Name) and node.value.id == name


def _int_valued(node):
    """An expression that is an int by its spelling: an int literal, len(), int(), .size,
    .ndim, .shape[k], or arithmetic (+ - * // %) of those."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, numbers.Integral) and not isinstance(node.value, bool)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in ("len", "int")
    if isinstance(node, ast.Attribute):
        return node.attr in ("size", "ndim")
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult,
                                                            ast.FloorDiv, ast.Mod)):
        return _int_valued(node.left) and _int_valued(node.right)
    return False
