"""Module-level arrays become inputs of the generated function.

A global array (weights, a table, a mask) cannot be put in generated code as a literal, and
Numba would freeze it at compile time if the code read it as a global. So it becomes a
parameter, after the function's own, named as the source names it; the caller of the generated
code reads its current value at every call (`read`), so rebinding the global, or writing into
it between calls, is seen by the next call without transforming again. A callee's constants are
parameters of its caller too, which passes them on:

    W0 = np.linspace(-1, 1, 12).reshape(3, 4)
    def g(x):                                   def g(x, W0):
        return W0 @ x                                return W0 @ x
    def f(x):                           -->     def f(x, W0):
        return np.sum(g(x))                          return np.sum(g(x, W0))

Numbers and bools stay inlined (resolve.py): they are compile-time constants, and rebinding
one transforms again; so do an object's int fields (`self.n_var`, `self.n_constr`: sizes and
counts, which tests and loops read as constants). A module-level object's field that a method of its class assigns
(`self.n_fe += 1`) is read as a cell instead (container_cells.Cell): a new 1-element array per
call, which the caller sets the field from after the run.
"""
import inspect
import types

import gast

from s2sad.errors import Diagnostic, UnsupportedError

from .. import facts
from .. import nodes, template
from . import (container_arguments, container_cells, container_values, function_state,
               library_calls, parse)
from .resolve_values import is_generator
from .resolve import (code_names, is_constant_array, is_constant_container, is_function_value,
                      is_user_function)


def inputs(func):
    """The module constants `func` and the user functions it reaches read, in order of first
    read: a list of (name in generated code, reader); `reader()` is the current value."""
    found, seen = {}, set()
    _collect(func, found, seen, {})
    return [(name, reader) for name, (reader, _) in found.items()]


def state_cells(func):
    """{name of an input of `func` holding its functions' state (function_state.py): the
    attribute's path, `f.count`}."""
    found = {}
    _collect(func, found, set(), {})
    return {name: identity[2] for name, (_, identity) in found.items()
            if identity[0] == "state"}


def containers(func):
    """[(name in generated code, spec)] of the module tuples, lists and dicts `func` and the
    user functions it reaches read: each leaf is an input (`inputs`), and containers.py holds
    the container as those names (the spec of container_arguments.py)."""
    specs = {}
    _collect(func, {}, set(), specs)
    return list(specs.items())


def _collect(func, found, seen, specs):
    if id(func) in seen or not isinstance(func, types.FunctionType):
        return
    seen.add(id(func))
    code = func.__code__
    cells = dict(zip(code.co_freevars, func.__closure__ or ()))
    modules = []
    for name in code_names(code):
        if name in cells:
            holder, reader = cells[name], _cell_reader(cells[name])
        elif name in func.__globals__:
            holder, reader = func.__globals__, _key_reader(func.__globals__, name)
        else:
            continue
        value = reader()
        if is_constant_array(value) or is_generator(value):   # (a generator: drawn from)
            _add(found, name, reader, (id(holder), name), func)
        elif is_constant_container(value):
            _add_container(found, specs, name, reader, value, id(holder), func)
        elif isinstance(value, types.ModuleType):
            modules.append((name, value))
        elif is_user_function(value):
            _collect(value, found, seen, specs)
    for state in function_state.touched(func):  # `f.count`, `nonlocal count`: a cell per call
        _add(found, state.name, function_state.reader(state),
             ("state", id(state.owner), state.path), func)
    for module_name, module in modules:  # `tables.W0`
        for name in code_names(code):
            value = module.__dict__.get(name)
            if is_constant_array(value):
                _add(found, f"{module_name}_{name}", _key_reader(module.__dict__, name),
                     (id(module.__dict__), name), func)
            elif is_constant_container(value):
                _add_container(found, specs, f"{module_name}_{name}",
                               _key_reader(module.__dict__, name), value,
                               id(module.__dict__), func)
            elif is_user_function(value) and getattr(value, "__module__", None) == \
                    module.__name__:  # `mod.objective(x)`: what it reads, its caller passes
                _collect(value, found, seen, specs)


def _add_container(found, specs, name, reader, value, holder, func):
    """A module tuple, list or dict: one input per leaf (`T_0`, `D_w`), read through it."""
    def walk(item, base, read, seen, cell=False, field=False):
        fields, typename = (), None
        if cell:  # a field a method assigns: a new cell per call, set on the object after it
            _add(found, base, read, (holder, name, base), func)
            return container_cells.CELL, base
        if container_values.is_static_value(item) or is_function_value(item) or \
                field and type(item) is int:  # (an object's count: n_var, n_constr)
            return "static", item  # a str, None, bool or function: constant (part of the key)
        if id(item) in seen:
            return "static", None  # (an object holding itself: the loop is not followed)
        if container_values.is_record(item):
            keys = fields = container_values.record_fields(item)
            items, kind = [getattr(item, k) for k in keys], "record"
            typename = f"{type(item).__module__}.{type(item).__qualname__}"
            cells = [container_cells.is_cell(item, k, v) for k, v in zip(keys, items)]
            readers = [_cell_of(read, k) if cell else _attribute_reader(read, k)
                       for k, cell in zip(keys, cells)]
        elif container_values.is_frozen(item):  # a scipy.stats distribution: its parameters
            typename, parameters = library_calls.frozen_parameters(item)
            keys = fields = tuple(parameters)
            items, kind, cells = list(parameters.values()), "record", [False] * len(keys)
            readers = [_parameter_reader(read, k) for k in keys]
        elif isinstance(item, dict):
            keys, items, kind = list(item), list(item.values()), "dict"
        elif isinstance(item, (list, tuple)):
            keys, items = list(range(len(item))), list(item)
            kind = "list" if isinstance(item, list) else "tuple"
        else:
            _add(found, base, read, (holder, name, base), func)
            return base
        if kind != "record":
            readers = [_item_reader(read, key) for key in keys]
            cells = [False] * len(keys)
        parts = tuple(walk(child, f"{base}_{container_values.identifier(key)}", reader,
                           seen | {id(item)}, cell, kind == "record")
                      for key, child, reader, cell in zip(keys, items, readers, cells))
        return kind, tuple(keys), parts, fields, typename or kind
    specs[name] = walk(value, name, reader, frozenset())


def _item_reader(read, key):
    return lambda: read()[key]


def _parameter_reader(read, name):
    return lambda: library_calls.frozen_parameters(read())[1][name]


def _attribute_reader(read, name):
    return lambda: getattr(read(), name)


def _cell_of(read, name):
    """A reader of the field `name` that a method assigns: a new Cell holding its value now,
    which the caller of generated code passes (its array) and writes back after the run."""
    def cell():
        record = read()
        return container_cells.Cell(record, name, getattr(record, name))
    return cell


def _add(found, name, reader, identity, func):
    known = found.get(name)
    if known is None:
        found[name] = (reader, identity)
    elif known[1] != identity:
        raise UnsupportedError([Diagnostic(
            parse.code_location(func), f"two different module constants are named '{name}' in "
            f"the functions '{func.__name__}' reaches",
            why="each becomes an input of the generated code under its own name",
            fix="rename one of them")])


def _key_reader(namespace, name):
    return lambda: namespace.get(name)


def _cell_reader(cell):
    def read():
        try:
            return cell.cell_contents
        except ValueError:  # not assigned yet
            return None
    return read


def attach(source, names, callee_inputs):
    """Make `names` parameters of `source.tree` (after its own) and pass each remaining call of
    a user function the constants that callee reads (`callee_inputs`: function -> names), after
    its other arguments, all by position. Returns {function: the copy its calls now name, whose
    signature takes them}."""
    tree = source.tree
    assigned = {n.id for n in nodes.walk(tree) if isinstance(n, gast.Name)
                and isinstance(n.ctx, gast.Store)}
    params = {a.id for a in tree.args.args + tree.args.posonlyargs + tree.args.kwonlyargs}
    clashes = [n for n in names if n in assigned | params]
    if clashes:
        raise UnsupportedError([Diagnostic(
            source.loc(tree), f"'{source.name}' has a local variable '{clashes[0]}', and a "
            f"function it calls reads a module constant of the same name",
            why="the constant is passed down to that function under its own name",
            fix="rename the local variable or the constant")])
    held = {name for name, _ in containers(source.func)}
    cells = facts.CELLS.of(tree) or {}  # (a function's state: written, function_state.py)
    writes = [node for node in nodes.walk(tree) if isinstance(node, gast.Subscript)
              and isinstance(node.ctx, gast.Store) and _root(node) in set(names) | held and
              _root(node) not in cells]
    if writes:
        name = _root(writes[0])
        raise UnsupportedError([Diagnostic(
            source.loc(writes[0]), f"writes into the module constant '{name}'",
            why="a differentiated function reads module constants; the gradient would run on a "
                "copy, so the global would not change as it does when the function runs",
            fix=f"write into a copy (w = {name}.copy(), then w[...] = ...), or pass the "
                "array as an argument")])
    args = tree.args
    for name in names:
        param = gast.copy_location(gast.Name(name, gast.Param(), None, None), tree)
        if args.kwonlyargs:  # after every parameter of the function's own
            args.kwonlyargs.append(param)
            args.kw_defaults.append(None)
        else:
            args.args.append(param)
    if names:  # the defaults would shift onto the constants: every call passes every argument
        args.defaults = []
    state = {n: path for n, path in state_cells(source.func).items() if n in names}
    if state:  # (cells of functions' state, passed on to the callees that use them)
        facts.CELLS.put(tree, {**state, **(facts.CELLS.of(tree) or {})})
    copies = {}
    for call in nodes.walk(tree):
        if isinstance(call, gast.Call) and facts.USER.of(call):
            passed = callee_inputs.get(facts.REF.of(call), ())
            if not passed:
                continue
            try:  # every argument by position, defaults filled in, then the constants
                call.args = template.bind_positional(call)
            except TypeError:
                continue  # a bad call: reported where it is differentiated
            call.keywords = []
            call.args += [gast.copy_location(nodes.name(n), call) for n in passed]
            copies[facts.REF.of(call)] = taking_constants(facts.REF.of(call), passed)
            facts.REF.put(call, copies[facts.REF.of(call)])
    return copies


_copies = {}  # (function, constants) -> a copy whose signature takes them


def taking_constants(func, names):
    """`func` as its generated code is called: every parameter by position (its defaults
    filled in by the caller), then its constants."""
    key = (func, func.__code__, tuple(names))
    if key not in _copies:
        positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
        own = [p.replace(default=p.empty, kind=positional)
               for p in inspect.signature(func).parameters.values()]
        _copies[key] = container_arguments.copy_function(
            func, own + [inspect.Parameter(n, positional) for n in names])
    return _copies[key]


def _root(node):
    while isinstance(node, gast.Subscript):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None
