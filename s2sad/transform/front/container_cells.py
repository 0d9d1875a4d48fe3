"""Objects' fields assigned in differentiated code (part of containers.py): a field that a
method of the object's class assigns (`self.n_fe += 1`, `self.last = v`), holding a number or a
bool, is held in a cell, a 1-element array (`Cell`: a new one per call, made by the API or by
constants.py's reader). Generated code reads it as `cell[0]` and writes it in place; after the
run the caller sets the field from the cell (`Cell.write_back`), so the object changes as when
the function runs:

    def evaluate(self, x):                  def evaluate(self_n_fe, self_shift, x):
        self.n_fe += 1              -->         self_n_fe[0] = self_n_fe[0] + 1
        return np.sum(x - self.shift)           return np.sum(x - self_shift)

A cell's spec is ("cell", leaf name) (api/pytrees.py). A callee given the object gets the cell
itself (container_arguments.leaves_of), so a method called from another writes the same one;
generate/effects.py makes a generated function work on a copy and leave the value where its
forward sweep ends. Any other attribute assignment is a located error here (`assign`).
"""
import ast
import dataclasses
import inspect
import numbers
import textwrap
import types

import gast
import numpy

from .. import nodes


# Methods that set up an object rather than change it: their writes make no cell.
_SETUP = frozenset({"__init__", "__new__", "__post_init__", "__setstate__"})
_written = {}  # class -> the fields its methods assign on `self`


def written_fields(cls):
    """The attributes the methods of `cls` (its MRO's, set-up methods left out) assign on their
    first parameter: `self.n_fe += 1`, `self.last = v`. A method whose source cannot be read
    counts nothing. Such a field, holding a number or a bool, is passed as a cell (`is_cell`)."""
    if cls not in _written:
        found = set()
        for klass in getattr(cls, "__mro__", (cls,)):
            for name, member in vars(klass).items():
                function = getattr(member, "fget", member)  # (a property's getter too)
                if name in _SETUP or not isinstance(function, types.FunctionType):
                    continue
                found |= _assigned_on_first_parameter(function)
        _written[cls] = frozenset(found)
    return _written[cls]


def _assigned_on_first_parameter(function):
    definition = definition_of(function)
    if definition is None:
        return set()
    parameters = definition.args.posonlyargs + definition.args.args
    if not parameters:
        return set()
    first = parameters[0].arg
    return {target.attr for node in ast.walk(definition)
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign))
            for written in (node.targets if isinstance(node, ast.Assign) else [node.target])
            for target in ast.walk(written)
            if isinstance(target, ast.Attribute) and isinstance(target.ctx, ast.Store) and
            isinstance(target.value, ast.Name) and target.value.id == first}


_assigned = {}  # (function, parameter, class) -> the fields it assigns on that parameter


def assigned_fields(function, parameter, cls):
    """The fields of the object given to `parameter` (an object of `cls`) that `function`
    assigns: `parameter.k = v`, and in the methods of `cls` it calls on it and the functions
    of its module it passes it to (by position), followed through; a function whose source
    cannot be read assigns nothing."""
    key = (function, parameter, cls)
    if key not in _assigned:
        _assigned[key] = frozenset()  # (recursion: what the outer scan finds)
        _assigned[key] = frozenset(_assigned_through(function, parameter, cls))
    return _assigned[key]


def _assigned_through(function, parameter, cls):
    definition = definition_of(function)
    if definition is None:
        return set()
    found = set()
    for node in ast.walk(definition):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            for written in node.targets if isinstance(node, ast.Assign) else [node.target]:
                found |= {t.attr for t in ast.walk(written) if isinstance(t, ast.Attribute) and
                          isinstance(t.ctx, ast.Store) and isinstance(t.value, ast.Name) and
                          t.value.id == parameter}
        elif isinstance(node, ast.Call):
            called, position = None, None
            if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                    and node.func.value.id == parameter:  # self.count()
                called, position = inspect.getattr_static(cls, node.func.attr, None), 0
            elif isinstance(node.func, ast.Name):  # helper(self, x)
                called = getattr(function, "__globals__", {}).get(node.func.id)
                position = next((k for k, a in enumerate(node.args) if
                                 isinstance(a, ast.Name) and a.id == parameter), None)
            if isinstance(called, types.FunctionType) and position is not None:
                inner = definition_of(called)
                names = [a.arg for a in inner.args.posonlyargs + inner.args.args] \
                    if inner is not None else []
                if position < len(names):
                    found |= assigned_fields(called, names[position], cls)
    return found


def definition_of(function):
    """The ast FunctionDef of a function's source (a `def`, not a lambda), or None."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None
    definition = tree.body[0] if tree.body else None
    return definition if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)) \
        else None


def class_fields(cls):
    """The fields a call of the class `cls` sets, in order, when it makes a record s2sad holds
    (a NamedTuple, or a dataclass whose fields are all set by __init__), else None."""
    if not isinstance(cls, type):
        return None
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        return tuple(cls._fields)
    if dataclasses.is_dataclass(cls) and all(f.init for f in dataclasses.fields(cls)):
        return tuple(f.name for f in dataclasses.fields(cls))
    return None


def is_cell(record, field, value):
    """Whether `record.field` (holding `value`) is passed as a cell: a number or a bool that a
    method of the record's class assigns. Generated code reads it as `cell[0]` and writes it
    in place; the caller of generated code sets the attribute from the cell after the run."""
    return isinstance(value, (numbers.Real, numpy.number, numpy.bool_)) and \
        not dataclasses.is_dataclass(type(value)) and field in written_fields(type(record))


CELL = "cell"


def is_cell_spec(spec):
    """("cell", leaf name): a record's field held in a 1-element array (`is_cell`)."""
    return isinstance(spec, tuple) and len(spec) == 2 and spec[0] == CELL


class Cell:
    """One record field passed as a cell: a new 1-element array holding its value (int64,
    float64 or bool, by the value's type; float64 when `dtype` says so), and `write_back()`
    sets the field from it after generated code ran."""

    def __init__(self, record, field, value, dtype=None):
        self.record, self.field, self.start = record, field, value
        if dtype is None:
            dtype = numpy.bool_ if isinstance(value, (bool, numpy.bool_)) else \
                numpy.int64 if isinstance(value, (numbers.Integral, numpy.integer)) else \
                numpy.float64
        self.array = numpy.array([value], dtype=dtype)

    def reset(self):
        """The value it started with (before generated code runs again on the same call)."""
        self.array[0] = self.start

    def write_back(self):
        """Set the field to the cell's value, of the type the field held."""
        kind = type(self.start)
        value = self.array[0]
        setattr(self.record, self.field, bool(value) if kind is bool else
                int(value) if kind is int else float(value) if kind is float else
                kind(value))


def cell_read(leaf, store=False):
    """`leaf[0]`: the value of the record field held in the cell `leaf`."""
    return gast.Subscript(nodes.name(leaf), gast.Constant(0, None),
                          gast.Store() if store else gast.Load())


def cell_names(spec):
    """The leaves of `spec` that are cells."""
    if is_cell_spec(spec):
        return [spec[1]]
    if isinstance(spec, str) or len(spec) == 2:
        return []
    return [n for p in spec[2] for n in cell_names(p)]


def _spelt(target):
    """`self.n_fe`, as the source spells an attribute target."""
    chain = nodes.dotted_parts(target)
    return f"`{'.'.join(chain)}`" if chain else f"`.{target.attr}`"


def assign(scalarize, node, made=None):
    """`obj.k = v` (`node.value` spelt already; `made`: the container it makes, if any) or
    `obj.k += v`, of an object `scalarize` (containers._Scalarize) holds now whose field k is a
    cell: `obj_k[0] = v`, `obj_k[0] = obj_k[0] + v`; anything else is reported."""
    target = node.target if isinstance(node, gast.AugAssign) else node.targets[0]
    if isinstance(node, gast.Assign) and (len(node.targets) > 1 or made is not None):
        scalarize.report(node, "an attribute is assigned a container, or together with other "
                         "names", why="s2sad writes one number into an object's field",
                         fix=f"assign a number to {_spelt(target)} in a statement of its own")
        return
    leaf = _cell(scalarize, target, node)
    if leaf is None:
        return
    value = node.value if isinstance(node, gast.Assign) else \
        gast.BinOp(cell_read(leaf), node.op, scalarize.expression(node.value, node))
    scalarize.emit(gast.Assign([cell_read(leaf, store=True)], value, None), node)


def _cell(scalarize, target, like):
    """The cell holding the field `target` (obj.k) assigns, or None (reported)."""
    owner = scalarize.container(target.value, like) if isinstance(
        target.value, (gast.Name, gast.Attribute, gast.Subscript)) else None
    spelt = _spelt(target)
    if owner is None or owner.kind != "record":
        scalarize.report(target, f"assignment to an attribute, {spelt}, of a value that is "
                         "not an object s2sad follows",
                         why="s2sad writes the fields of objects passed to the function (or "
                             "read from the module) that the methods of their class assign",
                         fix="keep the value in a local variable, or return it")
        return None
    leaf = owner.cells.get(target.attr)
    if leaf is not None:
        return leaf
    name = owner.typename.rpartition(".")[2]
    if target.attr not in owner.fields:
        scalarize.report(target, f"{spelt}: '{target.attr}' is not a field of this {name} "
                         "when the function is called",
                         why="s2sad passes an object as the fields it has at the call; a field "
                             "the differentiated code adds is not among them",
                         fix=f"give it a value in {name}.__init__ (self.{target.attr} = 0.0), "
                             "or use a local variable")
        return None
    item = owner.attribute(target.attr)
    holds = f"holds a {item.kind}" if hasattr(item, "items") else \
        "holds a str, None or a constant" if isinstance(item, gast.Constant) else \
        "holds an array, or no method of its class assigns it"
    scalarize.report(target, f"assignment to {spelt}, a field of {name} that s2sad passes as "
                     "a value, not in a cell", why="s2sad writes back a field that holds a "
                     "number or a bool and that a method of the object's class assigns "
                     f"(`self.n += 1` in a method): '{target.attr}' {holds}",
                     fix="keep the new value in a local variable and return it, or assign a "
                         "number field inside a method of the class")
    return None
