"""What containers.py follows: a tuple, list or dict known at transform time (`Container`),
and how an expression reading one is spelt with its elements (`Reads`)."""
import builtins
import dataclasses
import types

import gast
import numpy

from s2sad.runtime import rt

from .. import facts, nodes
from . import library_calls, parse
from .container_cells import cell_names, cell_read, class_fields, is_cell_spec

# NumPy functions taking a sequence of arrays first: spelt with a tuple of the elements.
SEQUENCE_FUNCTIONS = {"numpy.stack", "numpy.array", "numpy.asarray", "numpy.concatenate",
                      "numpy.vstack", "numpy.hstack", "numpy.column_stack", "numpy.row_stack",
                      "numpy.dstack"}
# How many values NumPy functions returning a tuple return.
TUPLE_RESULTS = {"numpy.linalg.slogdet": 2, "numpy.linalg.eigh": 2, "numpy.linalg.eig": 2,
                 "numpy.linalg.qr": 2, "numpy.linalg.svd": 3, "numpy.linalg.lstsq": 4,
                 "numpy.frexp": 2, "numpy.modf": 2, "numpy.divmod": 2, "divmod": 2}


def is_record(value):
    """A dataclass instance, or an object of a class of the user's (a model, a loss object, a
    benchmark problem): held as a record of its attributes (`record_fields`), read as `obj.k`."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return True
    if library_calls.distribution_of(value) is not None:
        return False    # a scipy.stats distribution: its methods are bound (library_calls.py)
    kind = type(value)
    if getattr(kind, "__getattr__", None) is not None:
        return False  # attributes made on demand (a module stand-in: pymoo's `anp`), no fields
    return hasattr(value, "__dict__") and not isinstance(value, type) and \
        kind.__module__ not in ("builtins", "numpy", "types", "functools") and \
        not callable(getattr(value, "__wrapped__", None)) and \
        not isinstance(value, (types.FunctionType, types.ModuleType, types.MethodType,
                               numpy.ndarray, numpy.generic))


def is_frozen(value):
    """A scipy.stats distribution frozen with its parameters, held as a record of them
    (library_calls.frozen_parameters; container_methods.py binds its methods)."""
    return library_calls.frozen_parameters(value) is not None


def is_static_value(value):
    """A value that is no number: a str, None or a bool, inlined as a constant."""
    return value is None or isinstance(value, (str, bytes, bool, numpy.bool_))


def record_fields(value):
    """The fields of a record: a dataclass's fields, or an object's attributes holding
    numbers, arrays, containers or constants (str, None, bools), in the order they were set;
    the others (a function, a file, a random generator) are left out, and the generated code
    cannot read them."""
    if dataclasses.is_dataclass(value):
        return tuple(f.name for f in dataclasses.fields(value))
    frozen = library_calls.frozen_parameters(value)
    if frozen is not None:
        return tuple(frozen[1])
    return tuple(name for name, item in vars(value).items()
                 if is_static_value(item) or is_record(item) or is_frozen(item) or
                 isinstance(item, (dict, list, tuple, int, float, numpy.ndarray, numpy.number)))


def tuple_count(call):
    """How many values a call returns when it returns a tuple of a length known now."""
    chain = nodes.dotted_parts(call.func)
    if chain is not None and ".".join(chain) in TUPLE_RESULTS:
        return TUPLE_RESULTS[".".join(chain)]
    counts = {len(n.value.elts) if isinstance(n.value, gast.Tuple) else None
              for n in _returns_of(call)}
    return counts.pop() if len(counts) == 1 and None not in counts else None


def _returns_of(call):
    """The `return` statements of the user function `call` calls (none for another call)."""
    func = facts.REF.of(call)
    if not facts.USER.of(call) or func is None:
        return []
    try:
        tree = parse.parse_function(func).tree
    except Exception:  # noqa: BLE001 -- its own transformation reports it
        return []
    return [n for n in nodes.walk(tree) if isinstance(n, gast.Return)]


# NumPy functions that return one array whatever their keywords (ufuncs with one output too).
ONE_ARRAY = {"numpy.asarray", "numpy.array", "numpy.ravel", "numpy.squeeze", "numpy.copy",
             "numpy.reshape", "numpy.transpose", "numpy.stack", "numpy.concatenate"}


def returns_an_array(call):
    """A call of a NumPy function that returns one array (`numpy.exp(p)`), which unpacking
    reads row by row; not one that may return a tuple (`slogdet`, `linspace(...,
    retstep=True)`, `modf`) or a list of arrays."""
    if not isinstance(call, gast.Call) or facts.USER.of(call):
        return False
    function = facts.REF.of(call)
    if isinstance(function, numpy.ufunc):
        return function.nout == 1 and not any(k.arg == "out" for k in call.keywords)
    chain = nodes.dotted_parts(call.func)
    return ".".join(chain or []) in ONE_ARRAY


def tuple_result(node):
    """`r = g(x)` of a call returning a tuple of a length known now (r is then held as its
    elements: `r[0]` reads one)."""
    return isinstance(node, gast.Assign) and len(node.targets) == 1 and \
        isinstance(node.targets[0], gast.Name) and isinstance(node.value, gast.Call) and \
        bool(tuple_count(node.value))


def nested_tuple_return(call):
    """A `return` of a tuple holding a tuple or list display in the user function `call`
    calls (`return (W1, b1), (W2, b2)`), or None."""
    return next((n for n in _returns_of(call) if isinstance(n.value, gast.Tuple) and
                 any(isinstance(e, (gast.Tuple, gast.List)) for e in n.value.elts)), None)


def is_static_spec(spec):
    """("static", value): a str, None or bool inlined, or a function given as an argument."""
    return isinstance(spec, tuple) and len(spec) == 2 and spec[0] == "static"


class Container:
    """A tuple, list or dict known now: its elements in order (each an atom or a Container)."""

    def __init__(self, kind, keys, items, fields=(), typename=None, cells=None):
        self.kind, self.keys, self.items = kind, list(keys), list(items)
        self.fields = tuple(fields)  # a NamedTuple's or a dataclass's attribute names
        self.typename = typename or kind  # a record's class, module.qualname (its methods)
        self.cells = dict(cells or {})  # key -> the cell (a parameter) a record's field is in

    def attribute(self, name):
        """The element a NamedTuple's or a dataclass's attribute reads, or None."""
        if name not in self.fields:
            return None
        return self.items[self.fields.index(name)]

    def item(self, key):
        return self.items[self.keys.index(key)] if key in self.keys else None


class Reads(nodes.Transformer):
    def __init__(self, owner, like, whole):
        self.owner, self.like, self.whole = owner, like, whole

    def visit_Subscript(self, node):
        owner = self.owner
        grown = owner.growing_read(node)
        if grown is not None:
            return gast.copy_location(grown, node)
        if owner.container(node.value, self.like) is not None:
            found = owner.element(node, self.like)
            if isinstance(found, Container):
                return owner.as_value(found, node)
            return nodes.clone(found)
        if isinstance(node.value, gast.Call) and owner.tuple_count(node.value):
            found = pick(owner, owner.container(node.value, self.like), node, self.like)
            return owner.as_value(found, node) if isinstance(found, Container) else \
                nodes.clone(found)
        return self.generic_visit(node)

    def visit_Attribute(self, node):
        owner = self.owner
        made = owner.container(node.value, self.like) if isinstance(
            node.value, (gast.Name, gast.Attribute, gast.Subscript)) or makes(node.value) or \
            isinstance(node.value, gast.Call) and facts.USER.of(node.value) else None
        if made is not None:
            found = made.attribute(node.attr)
            if found is None:
                has = f" (it has {', '.join(made.fields)})" if made.fields else ""
                owner.report(node, f"'{node.attr}' is not a field of this "
                             f"{'NamedTuple' if made.kind == 'tuple' else made.kind}{has}",
                             why="s2sad reads the fields of NamedTuples and dataclasses, and "
                                 "keys(), values() and items() of a dict where a loop, len, "
                                 "sum, max or min reads them; nothing else of a container",
                             fix="read a field, or loop over the container")
                facts.FIELD.put(node, False)  # (reported here)
                return node
            if isinstance(found, Container):
                return owner.as_value(found, node)
            return nodes.clone(found)
        return self.generic_visit(node)

    def visit_Call(self, node):
        owner = self.owner
        if facts.METHOD.of(node):  # `var.pdf(y)` of an object an argument holds
            return owner.bound_method(node, self, self.like)
        if facts.FIELD.of(node) and isinstance(node.func, gast.Attribute) and \
                node.func.attr not in VIEWS:  # `self.callback(x)` left by a test not decided
            got = self.got(node)  # (reported after containers.py), or `d.get(k, default)`
            if got is not None:
                return got
            node.args = [self.visit(a) for a in node.args]
            return node
        grown = owner.growing_read(node)
        if grown is not None:
            return gast.copy_location(grown, node)
        if any(isinstance(a, gast.Starred) for a in node.args) or \
                any(k.arg is None for k in node.keywords):
            node.args = self.spread(node.args, keep=facts.DRAW.of(node),
                                    user=facts.USER.of(node))
            node.keywords = self.spread_keywords(node.keywords)
            if facts.USER.of(node):
                owner.pack_star_arguments(node)
        if facts.USER.of(node):
            opened = owner.open_user_call(node, self.like)  # (container_calls.py)
            if opened is not None:
                return owner.as_value(opened, node) if isinstance(opened, Container) else \
                    nodes.clone(opened)
        if facts.USER.of(node):
            passed = owner.user_call(node, self.like)
            if passed is not None:
                return passed
        chain = nodes.dotted_parts(node.func)
        dotted = ".".join(chain) if chain else None
        array = owner.grown_array(dotted, node)
        if array is not None:
            return gast.copy_location(array, node)
        if dotted == "numpy.array" and len(node.args) == 1 and not node.keywords and \
                owner.holds_an_array(node.args[0]):  # np.array(v) of an array: a copy, as
            node.func = nodes.dotted("numpy.copy", node.func)  # np.copy (which Numba
            facts.REF.put(node, numpy.copy)                    # compiles for an array)
        if dotted in ("tuple", "list") and len(node.args) == 1 and not node.keywords:
            made = owner.container(node, self.like)  # tuple([d[k] for k in names])
            if made is not None:
                return owner.as_value(made, node)
        if dotted == "len" and len(node.args) == 1:
            made = owner.container(node.args[0], self.like)
            if made is not None:
                return gast.copy_location(gast.Constant(len(made.items), None), node)
        if node.args and dotted in ("sum", "max", "min", "numpy.sum") and \
                len(node.args) == 1 and not node.keywords:
            made = owner.container(node.args[0], self.like)
            if made is not None:
                return gast.copy_location(self.reduced(dotted, made, node), node)
        if facts.REF.of(node) is rt.flatten and len(node.args) == 1 and not node.keywords:
            return gast.copy_location(self.flattened(node.args[0], node), node)
        if node.args and dotted in SEQUENCE_FUNCTIONS:
            made = owner.container(node.args[0], self.like)
            if made is not None and not any(isinstance(i, Container) for i in made.items):
                node.args[0] = gast.Tuple([nodes.clone(i) for i in made.items], gast.Load())
                node.args[1:] = [self.visit(a) for a in node.args[1:]]
                node.keywords = [self.visit(k) for k in node.keywords]
                return node
        return self.generic_visit(node)

    def spread(self, args, keep=False, user=False):
        """`f(*xs)`: the arguments with a tuple or list known now spread into its elements;
        `keep`: another stays starred (a random draw, run as Python: `rs.randn(*x.shape)`);
        `user`: a call of a function of yours, given an element that is a container as
        `xs[k]`, which it takes as its leaves (`func(y, t, *args)` with args = (params,))."""
        out = []
        for argument in args:
            made = self.owner.container(argument.value, self.like) \
                if isinstance(argument, gast.Starred) else None
            if isinstance(argument, gast.Starred) and made is None and keep:
                argument.value = self.visit(argument.value)
                out.append(argument)
            elif isinstance(argument, gast.Starred) and (made is None or made.kind == "dict"):
                self.owner.report(argument, "`*` in a call needs a tuple or list known when "
                                  "the function is transformed", why="s2sad passes a known "
                                  "number of arguments", fix="pass the elements one by one")
                out.append(argument.value)
            elif isinstance(argument, gast.Starred):
                out += [gast.copy_location(gast.Subscript(nodes.clone(argument.value),
                                                          gast.Constant(k, None), gast.Load()),
                                           argument)
                        if isinstance(i, Container) and user else
                        self.owner.as_value(i, argument) if isinstance(i, Container) else
                        nodes.clone(i) for k, i in enumerate(made.items)]
            else:
                out.append(argument)
        return out

    def got(self, node):
        """`d.get(key)` / `d.get(key, default)` of a dict held now, with a key known now."""
        made = self.owner.container(node.func.value, self.like) \
            if node.func.attr == "get" and 1 <= len(node.args) <= 2 and not node.keywords \
            else None
        key = self.owner.key(node.args[0], self.like) if made is not None else None
        if made is None or made.kind != "dict" or key is None:
            return None
        found = made.item(key)
        if found is None:
            found = node.args[1] if len(node.args) == 2 else gast.Constant(None, None)
            return self.visit(found)
        return self.owner.as_value(found, node) if isinstance(found, Container) else \
            nodes.clone(found)

    def spread_keywords(self, keywords):
        """`f(x, **options)`: the keywords with a dict known now spread into its items."""
        out = []
        for keyword in keywords:
            made = self.owner.container(keyword.value, self.like) if keyword.arg is None \
                else None
            if keyword.arg is None and (made is None or made.kind != "dict"):
                self.owner.report(keyword.value, "`**` in a call needs a dict known when the "
                                  "function is transformed", why="s2sad passes arguments whose "
                                  "names it knows", fix="pass each keyword argument by name")
            elif keyword.arg is None:
                out += [gast.keyword(key, self.owner.as_value(item, keyword.value)
                                     if isinstance(item, Container) else nodes.clone(item))
                        for key, item in zip(made.keys, made.items)]
            else:
                out.append(keyword)
        return out

    def flattened(self, argument, node):
        """`s2sad.flatten(params)`: (numpy.concatenate((numpy.ravel(leaf), ...)), None), its
        leaves in rt.flatten's order; the unflatten function is only for code outside."""
        made = self.owner.container(argument, self.like)
        leaves = _flat_leaves(made) if made is not None else [self.visit(argument)]
        arrays = [isinstance(leaf, gast.Name) and self.owner.ranks.get(leaf.id, 0) > 0
                  for leaf in leaves]   # (Numba ravels a number through numpy.asarray)
        vector = call("numpy.concatenate", [gast.Tuple(
            [call("numpy.ravel", [nodes.clone(leaf) if array else
                                  call("numpy.asarray", [nodes.clone(leaf)])])
             for leaf, array in zip(leaves, arrays)], gast.Load())]) \
            if leaves else call("numpy.zeros", [gast.Constant(0, None)])
        return gast.Tuple([vector, gast.Constant(None, None)], gast.Load())

    def reduced(self, dotted, made, node):
        items = [nodes.clone(i) for i in made.items]
        if any(isinstance(i, Container) for i in made.items) or not items:
            return self.owner.as_value(made, node)
        if dotted in ("max", "min"):  # pairwise: max(max(a, b), c)
            total = items[0]
            for item in items[1:]:
                total = call(dotted, [total, item])
            return total
        if dotted == "numpy.sum":
            items = [i if isinstance(i, gast.Constant) else call("numpy.sum", [i])
                     for i in items]
        total = items[0]
        for item in items[1:]:
            total = gast.BinOp(total, gast.Add(), item)
        return total

    def visit_Name(self, node):
        made = self.owner.held.get(node.id)
        if made is not None and isinstance(node.ctx, gast.Load):
            if self.whole and made.kind in ("tuple", "list") and \
                    not any(isinstance(i, Container) for i in made.items):
                return gast.copy_location(
                    gast.Tuple([nodes.clone(i) for i in made.items], gast.Load()), node)
            return self.owner.as_value(made, node)
        return node

    def generic_visit(self, node):
        whole, self.whole = self.whole, False  # only the top of a statement's value may be a
        try:                                   # tuple display (`return t`, `a = t`)
            return super().generic_visit(node)
        finally:
            self.whole = whole


def _flat_leaves(made):
    """The leaves of a container in rt.flatten's order: a dict's by sorted key."""
    order = sorted(range(len(made.keys)), key=lambda k: made.keys[k]) if made.kind == "dict" \
        else range(len(made.items))
    return [leaf for k in order for leaf in (_flat_leaves(made.items[k])
                                             if isinstance(made.items[k], Container) else
                                             [made.items[k]])]


def call(dotted, args):
    """A call of a builtin or NumPy function, bound to it as resolve.py binds calls."""
    call = gast.Call(nodes.dotted(dotted), args, [])
    module, _, name = dotted.rpartition(".")
    facts.REF.put(call, getattr(numpy if module else builtins, name))
    return call


def pick(owner, made, node, like):
    holder = owner.fresh("_tuple")
    owner.held[holder] = made
    return owner.element(gast.Subscript(nodes.name(holder), node.slice, gast.Load()), like)


def new(kind, keys, items):
    made = Container(kind, keys, items)
    made.fresh = True  # its elements are not held in names yet
    return made


def copy(made):
    out = Container(made.kind, made.keys, [copy(i) if isinstance(i, Container) else i
                                           for i in made.items], made.fields, made.typename,
                    made.cells)
    out.fresh = getattr(made, "fresh", False)
    out.argument = getattr(made, "argument", None)
    return out


def of_spec(spec):
    """The Container a parameter of this structure holds, its leaves as names (the spec of
    api/pytrees.py: a leaf name, ("cell", leaf name), ("static", value), or (kind, keys,
    children, fields, type name)); a cell's field is read as `leaf[0]`."""
    if isinstance(spec, str):
        return nodes.name(spec)
    if is_cell_spec(spec):
        return cell_read(spec[1])
    if len(spec) == 2:  # ("static", value): a str, None or bool
        return gast.Constant(spec[1] if not isinstance(spec[1], numpy.bool_) else
                             bool(spec[1]), None)
    kind, keys, parts, fields, typename = spec
    cells = {key: part[1] for key, part in zip(keys, parts) if is_cell_spec(part)}
    return Container(kind, keys, [of_spec(p) for p in parts], fields, typename, cells)


def leaf_names(spec):
    if isinstance(spec, str):
        return [spec]
    if is_cell_spec(spec):
        return [spec[1]]
    return [] if len(spec) == 2 else [n for p in spec[2] for n in leaf_names(p)]


def leaf_paths(spec, path):
    """{leaf name: its path as the source spells it, params['W1'] or layers[0].b}."""
    if isinstance(spec, str):
        return {spec: path}
    if is_cell_spec(spec):
        return {spec[1]: path}
    if len(spec) == 2:
        return {}
    kind, keys, parts, fields, _ = spec
    out = {}
    for k, (key, part) in enumerate(zip(keys, parts)):
        step = f".{fields[k]}" if fields else f"[{key!r}]"
        out.update(leaf_paths(part, path + step))
    return out


# dict methods read as containers: d.keys(), d.values(), d.items()
VIEWS = ("keys", "values", "items")


def is_view(owner, node):
    """`d.keys()`, `d.values()` or `d.items()` of a dict held now."""
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
        node.func.attr in VIEWS and not node.args and not node.keywords and \
        isinstance(node.func.value, (gast.Name, gast.Attribute)) and \
        getattr(owner.container(node.func.value, None), "kind", None) == "dict"


def view(made, method):
    if method == "keys":
        items = [gast.Constant(k, None) for k in made.keys]
    elif method == "values":
        items = list(made.items)
    else:
        items = [Container("tuple", (0, 1), [gast.Constant(k, None), v])
                 for k, v in zip(made.keys, made.items)]
    return Container("list", range(len(items)), items)


def same_container(a, b):
    """The same kind, keys and elements (names compared by name: branches copy containers)."""
    if not isinstance(a, Container) or not isinstance(b, Container):
        return False
    return a.kind == b.kind and list(a.keys) == list(b.keys) and all(
        same_container(x, y) if isinstance(x, Container) else same(x, y)
        for x, y in zip(a.items, b.items))


def same(a, b):
    if isinstance(a, gast.Name) and isinstance(b, gast.Name):
        return a.id == b.id
    return a is b or (isinstance(a, gast.Constant) and isinstance(b, gast.Constant) and
                      a.value == b.value)


def makes(node):
    return isinstance(node, (gast.List, gast.Dict, gast.Tuple)) or \
        isinstance(node, gast.Call) and (nodes.dotted_parts(node.func) == ["dict"] or
                                         class_fields(facts.REF.of(node)) is not None)


def identifier(key):
    return str(key) if isinstance(key, int) and key >= 0 else \
        "".join(c if c.isalnum() else "_" for c in str(key))


def is_append(node):
    call = node.value
    return isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and \
        call.func.attr == "append" and isinstance(call.func.value, gast.Name)


def static_constant(node):
    """A str, None, bool or function written in a call (container_arguments.is_static_literal)."""
    return isinstance(node, gast.Constant) and (
        is_static_value(node.value) and not isinstance(node.value, bytes) or
        callable(node.value) or facts.DEFAULTED.of(node) is True)  # (a default left: kind_tests)


def interesting(node):
    """A node that makes or unpacks a container."""
    if isinstance(node, (gast.List, gast.Dict, gast.Starred)):
        return True
    if isinstance(node, gast.Call) and makes(node):
        return True   # (a dict, a NamedTuple or a dataclass made)
    if isinstance(node, gast.Call) and facts.USER.of(node) and \
            any(isinstance(a, gast.Tuple) or static_constant(a)
                for a in node.args + [k.value for k in node.keywords]):
        return True  # a tuple (as its elements) or a constant passed to a function of yours
    if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Call):
        return True
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Mult)) and \
            any(isinstance(side, gast.Tuple) for side in (node.left, node.right)):
        return True   # `t + (x,)`, `(a, b) * 2`: joined (containers.py)
    if isinstance(node, gast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
        return (isinstance(target, gast.Name) and isinstance(value, gast.Tuple)) or \
            (isinstance(target, gast.Tuple) and (isinstance(value, gast.Name) or
                                                 returns_an_array(value)))
    return isinstance(node, gast.Expr) and is_append(node)


def assigns_field(node):
    """`obj.k = ...` (container_cells.assign follows it, or reports it)."""
    return isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Store)


def mark_cells(tree, structures):
    """Tell later stages which parameters of `tree` hold objects' fields in cells, and their
    paths (`structures`: (parameter, spec) pairs, of arguments and module objects)."""
    held = {leaf: path for name, spec in structures
            for leaf, path in leaf_paths(spec, name).items() if leaf in cell_names(spec)}
    if held:  # generated code leaves the new values in them (generate/effects.py)
        facts.CELLS.put(tree, {**(facts.CELLS.of(tree) or {}), **held})


def exits_early(loop):
    """A `break`, `continue` or `else` of this loop: it cannot be unrolled."""
    return bool(loop.orelse) or any(isinstance(n, (gast.Break, gast.Continue))
                                    for s in loop.body for n in nodes.walk(s))


def merged(owner, node, name, one, other):
    """After an `if`: a container both branches hold in the same shape, its differing elements
    assigned to one new name in each branch (`owner`: containers._Scalarize)."""
    if one.kind != other.kind or one.keys != other.keys:
        owner.report(node, f"'{name}' holds containers of different shapes after this `if`",
                     why="each element is a variable of its own, chosen now",
                     fix="give it the same elements in both branches")
        return None
    items = []
    for key, a, b in zip(one.keys, one.items, other.items):
        if isinstance(a, Container) and isinstance(b, Container):
            items.append(merged(owner, node, name, a, b))
        elif same(a, b):
            items.append(a)
        elif isinstance(a, Container) or isinstance(b, Container):
            owner.report(node, f"'{name}' holds different kinds of elements after this `if`")
            items.append(a)
        else:
            joined = owner.fresh(f"{name}_{identifier(key)}")
            node.body.append(gast.copy_location(nodes.assign(joined, nodes.clone(a)), node))
            node.orelse.append(gast.copy_location(nodes.assign(joined, nodes.clone(b)),
                                                  node))
            items.append(nodes.name(joined))
    return Container(one.kind, one.keys, items, one.fields, one.typename, one.cells)


def drop_unread_binding(statements, start, target):
    """An unrolled trip's `k = 'W'` (or `i = 2`) that nothing in the trip reads once its
    subscripts were spelt with the elements: clutter in generated code."""
    if not (isinstance(target, gast.Name) and len(statements) > start and
            isinstance(statements[start], gast.Assign) and
            isinstance(statements[start].value, gast.Constant)):
        return
    if not any(isinstance(n, gast.Name) and n.id == target.id and isinstance(n.ctx, gast.Load)
               for s in statements[start + 1:] for n in nodes.walk(s)):
        del statements[start]


def drop_dead_constants(tree):
    """`name = 'W'` or `_k0 = 1` left by unrolling, where nothing reads the name any more."""
    read = {n.id for n in nodes.walk(tree) if isinstance(n, gast.Name) and
            not isinstance(n.ctx, gast.Store)}
    read |= {n.target.id for n in nodes.walk(tree) if isinstance(n, gast.AugAssign) and
             isinstance(n.target, gast.Name)}
    for node in nodes.walk(tree):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                kept = [s for s in block if not (
                    isinstance(s, gast.Assign) and isinstance(s.value, gast.Constant) and
                    len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) and
                    s.targets[0].id not in read)]
                block[:] = kept or [gast.Pass()]
