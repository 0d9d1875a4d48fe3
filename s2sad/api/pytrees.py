"""Containers as arguments (pytrees): a dict with str keys, list, tuple, NamedTuple or dataclass
instance, nested in each other, with floats, ints or arrays as leaves.

The generated function takes one plain parameter per leaf, named after its path (`params_W1`
for params["W1"], `layers_0_b` for layers[0].b); its transformation is told each container
parameter's structure (a `spec`, part of the specialisation key) and holds the container as
its leaves (transform/containers.py). Around a call, the API flattens the arguments to leaves
and builds each gradient back into its argument's structure and type:

    spec := leaf name (str) | ("static", value) | ("cell", leaf name)
          | (kind, keys, children, fields, type name)

kind is "dict", "list", "tuple" or "record" (a dataclass, or any object of a class of the
user's, as its attributes of those kinds); `fields` names a NamedTuple's or a record's
attributes. A str, None or bool in a container is static: a constant of the
generated code (its value is part of the specialisation key), and the same in the gradient.
A record's field that a method of its class assigns (`self.n_fe += 1`), holding a number or a
bool, is a cell: a new 1-element array per call (container_cells.Cell), which generated code
writes in place; after the run the caller sets the attribute from it (`write_back`), so the
object changes as when the function runs.
"""
from collections import OrderedDict

import numpy

from s2sad.transform.front.container_arguments import fresh
from s2sad.transform.front.container_cells import CELL, Cell, is_cell, is_cell_spec
from s2sad.transform.front.container_values import (identifier, is_frozen, is_record,
                                                    is_static_spec, record_fields)
from s2sad.transform.front.library_calls import frozen_parameters

def is_container(value):
    return isinstance(value, (dict, list, tuple)) or is_record(value) or is_frozen(value)


def is_shape(value):
    """A tuple or list of ints only (a shape, a list of indices): passed as it is."""
    return isinstance(value, (list, tuple)) and not _fields(value) and \
        all(isinstance(v, (int, numpy.integer)) and not isinstance(v, bool) for v in value)


def _fields(value):
    fields = getattr(type(value), "_fields", None)
    return tuple(fields) if isinstance(value, tuple) and isinstance(fields, tuple) else None


def children(value):
    """(kind, keys, child values, fields, type name) of one container."""
    typename = f"{type(value).__module__}.{type(value).__qualname__}"
    if isinstance(value, dict):
        return "dict", tuple(value), tuple(value.values()), (), "dict"
    if isinstance(value, list):
        return "list", tuple(range(len(value))), tuple(value), (), "list"
    if isinstance(value, tuple):
        fields = _fields(value) or ()
        return "tuple", tuple(range(len(value))), tuple(value), fields, \
            typename if fields else "tuple"
    frozen = frozen_parameters(value)  # a frozen scipy.stats distribution: its parameters
    if frozen is not None:
        typename, parameters = frozen
        names = tuple(parameters)
        return "record", names, tuple(parameters.values()), names, typename
    names = record_fields(value)
    return "record", names, tuple(getattr(value, n) for n in names), names, typename


def flatten(value, name, taken, problems, convert, cells=None):
    """(spec, [(leaf name, leaf value)]) of an argument; leaf names avoid `taken` (and are
    added to it). `convert(leaf, path)` checks and converts each leaf, appending to `problems`
    what is wrong with it. A record's field written by its methods is a cell leaf (its value a
    new 1-element array), appended to `cells` when given."""
    leaves = []

    def walk(item, path, base, owner=None, field=None):
        if owner is not None and is_cell(owner, field, item):
            leaf = fresh(base, taken)
            converted = item if isinstance(item, (bool, numpy.bool_)) else convert(item, path)
            cell = Cell(owner, field, item,
                        numpy.float64 if isinstance(converted, float) and
                        not isinstance(item, float) else None)
            if cells is not None:
                cells.append(cell)
            leaves.append((leaf, cell.array))
            return CELL, leaf
        if is_static(item):
            return STATIC, item  # a constant of the generated code (part of the key)
        if not is_container(item):
            leaf = fresh(base, taken)
            leaves.append((leaf, convert(item, path)))
            return leaf
        kind, keys, items, fields, typename = children(item)
        bad = [k for k in keys if kind == "dict" and not isinstance(k, str)]
        if bad:
            problems.append((path, f"has the key {bad[0]!r}; dict keys must be strings"))
            keys, items = (), ()
        labels = fields or keys  # a NamedTuple's leaves are named after its fields
        parts = tuple(walk(child, path + (step(kind, key, fields),),
                           f"{base}_{identifier(label) or '_'}",
                           item if kind == "record" else None, key)
                      for key, label, child in zip(keys, labels, items))
        return kind, keys, parts, fields, typename

    spec = walk(value, (), name)
    return spec, leaves


def leaf_values(value, spec, path=()):
    """The leaves of `value` in the order of `spec`, or raise ValueError naming the first
    place where its structure differs."""
    if is_static_spec(spec):
        return []
    if is_cell_spec(spec):  # (a tangent, a vector for a record's cell: shaped like it)
        return [numpy.array([value], dtype=numpy.float64).reshape(1)]
    if isinstance(spec, str):
        if is_container(value):
            raise ValueError(f"{''.join(path) or 'it'} is a {type(value).__name__} where the "
                             "argument has a number or an array")
        return [value]
    kind, keys, parts, fields, typename = spec
    if not is_container(value) or children(value)[0] != kind:
        raise ValueError(f"{''.join(path) or 'it'} is a {type(value).__name__} where the "
                         f"argument has a {typename}")
    _, their_keys, items, _, _ = children(value)
    if tuple(their_keys) != tuple(keys):
        what = "keys" if kind in ("dict", "record") else "length"
        theirs, ours = (list(their_keys), list(keys)) if what == "keys" else \
            (len(their_keys), len(keys))
        raise ValueError(f"{''.join(path) or 'it'} has {what} {theirs} where the argument has "
                         f"{ours}")
    out = []
    for key, item, part in zip(keys, items, parts):
        out += leaf_values(item, part, path + (step(kind, key, fields),))
    return out


def rebuild(like, leaves):
    """A container shaped and typed like `like` holding the next values of the iterator
    `leaves` (a leaf of `like` takes one)."""
    if is_static(like):
        return like  # a str, None or bool: the same in the gradient
    if not is_container(like):
        return next(leaves)
    kind, keys, items, fields, _ = children(like)
    built = [_scalar(next(leaves)) if kind == "record" and is_cell(like, key, item) else
             rebuild(item, leaves) for key, item in zip(keys, items)]
    if kind == "dict":
        return type(like)(zip(keys, built)) if type(like) in (dict, OrderedDict) else \
            dict(zip(keys, built))
    if kind == "list":
        return built
    if kind == "tuple":
        return type(like)(*built) if fields else tuple(built)
    if is_frozen(like):  # a frozen distribution's gradient: by its parameters' names
        return dict(zip(keys, built))
    return _record_like(like, dict(zip(keys, built)))


def _scalar(leaf):
    """A cell's leaf (its gradient, shaped (1,)) as a float; anything else as it is."""
    if isinstance(leaf, numpy.ndarray) and leaf.shape == (1,):
        return float(leaf[0])
    return leaf


def _record_like(like, values):
    """A copy of the dataclass instance `like` with its fields set to `values` (frozen ones
    and those outside __init__ included)."""
    made = object.__new__(type(like))
    if hasattr(like, "__dict__"):
        made.__dict__.update(like.__dict__)
    for key, value in values.items():
        object.__setattr__(made, key, value)
    return made


def leaves_of(value):
    """The leaves of any value in the order `flatten` and `rebuild` walk them (static leaves
    left out, as `rebuild` keeps them); a value that is no container is its one leaf."""
    if is_static(value):
        return []
    if not is_container(value):
        return [value]
    kind, keys, items, _, _ = children(value)
    return [leaf for key, child in zip(keys, items)
            for leaf in ([child] if kind == "record" and is_cell(value, key, child) else
                         leaves_of(child))]


def map_leaves(value, function):
    """`value` rebuilt with `function(leaf)` for each of its leaves."""
    return rebuild(value, iter([function(leaf) for leaf in leaves_of(value)]))


def leaf_names(spec):
    if is_static_spec(spec):
        return []
    if isinstance(spec, str):
        return [spec]
    if is_cell_spec(spec):
        return [spec[1]]
    return [name for part in spec[2] for name in leaf_names(part)]


STATIC = "static"


def is_static(value):
    """A leaf that is no number: a str, None or a bool, inlined as a constant."""
    return value is None or isinstance(value, (str, bytes, bool, numpy.bool_))




def step(kind, key, fields=()):
    """One step of a path as Python spells it: `['W1']`, `[0]`, `.b`."""
    if fields:
        return f".{fields[key] if isinstance(key, int) else key}"
    return f"[{key!r}]"


class Layout:
    """How one call's arguments are flattened: the generated function's parameter names (one
    per leaf), the container parameters' specs (part of the specialisation key), and for each
    differentiated parameter the span of its leaves and its value (to build its gradient
    back into the same structure)."""

    def __init__(self, names, structures, spans, originals, positions):
        self.names, self.structures = names, structures
        self.spans = [spans[i] for i in positions]
        self.likes = [originals[i] for i in positions]
        self.positions = [k for i in positions for k in range(*spans[i])]
        self.plain = not structures

    def gather(self, grads):
        """Per differentiated parameter: its leaves' gradients, in its structure."""
        if self.plain:
            return list(grads)
        out, k = [], 0
        for (start, stop), like in zip(self.spans, self.likes):
            part = grads[k:k + stop - start]
            k += stop - start
            out.append(rebuild(like, iter(part)) if is_container(like) else part[0])
        return out

    def split(self, given, what):
        """Per differentiated parameter, `given` (a tangent, a vector: one per parameter,
        shaped like it) as leaves, checked against its structure; raises ValueError naming
        `what` and the first difference."""
        leaves = []
        for value, like, (start, stop) in zip(given, self.likes, self.spans):
            if not is_container(like):
                leaves.append(value)
                continue
            spec, _ = flatten(like, "", set(), [], lambda leaf, path: leaf)
            try:
                leaves += leaf_values(value, spec)
            except ValueError as exc:
                raise ValueError(f"{what}: {exc}") from None
        return leaves


class Arguments(list):
    """The generated function's arguments, with the `pytrees.Layout` that says how the
    function's own arguments were flattened into them, and the cells among them: the fields of
    objects that the function's methods assign (`self.n_fe += 1`), which generated code writes
    in place and `write_back` sets on the objects after a run."""

    def __init__(self, values, layout, cells=()):
        super().__init__(values)
        self.layout = layout
        self.cells = list(cells)

    def __add__(self, more):
        return Arguments(list(self) + list(more), self.layout,
                         self.cells + list(getattr(more, "cells", ())))

    def reset(self):
        """Each cell back to the value it was made with: before generated code runs again on
        these arguments (a Jacobian, a Hessian), so the objects change once per call."""
        for cell in self.cells:
            cell.reset()

    def write_back(self):
        """After a successful run: each object's field set to what generated code left in its
        cell, as the function would have left it."""
        for cell in self.cells:
            cell.write_back()


def plain_layout(names, values, positions):
    spans = [(k, k + 1) for k in range(len(values))]
    return Layout(list(names), (), spans, values, positions)
