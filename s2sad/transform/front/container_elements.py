"""What containers.py reads of the containers it holds (part of containers.py): the container
an expression makes or names, the element a subscript reads, and the ints and keys known now:

    t = (x * y, [a, b])                 container(t)        -> Container("tuple", [t_0, ...])
    v = t[1][0]              -->        element(t[1][0])    -> the name a
    for i in range(len(t)):             static_range(...)   -> [0, 1]; key(i) -> 0, then 1

Each function takes the containers pass (`owner`: its `held`, `known`, `report`, ...).
"""
import inspect

import gast

from .. import facts, nodes, template
from . import container_values as values


def static_range(owner, iterable):
    """The values of `range(...)` with arguments known now, else None."""
    if not (isinstance(iterable, gast.Call) and nodes.dotted_parts(iterable.func) ==
            ["range"] and not iterable.keywords and 1 <= len(iterable.args) <= 3):
        return None
    args = [owner.integer(a) for a in iterable.args]
    return list(range(*args)) if None not in args else None


def integer(owner, node):
    """The int an expression of constants and unrolled loop variables has, else None."""
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, gast.Name):
        value = owner.known.get(node.id)
        return value if type(value) is int else None
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        value = owner.integer(node.operand)
        return -value if value is not None else None
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub,
                                                             gast.Mult, gast.FloorDiv)):
        a, b = owner.integer(node.left), owner.integer(node.right)
        if a is None or b is None or (isinstance(node.op, gast.FloorDiv) and b == 0):
            return None
        return {gast.Add: a + b, gast.Sub: a - b, gast.Mult: a * b}.get(
            type(node.op), a // b if b else None)
    if isinstance(node, gast.Call) and nodes.dotted_parts(node.func) == ["len"] and \
            len(node.args) == 1 and isinstance(node.args[0], gast.Name) and \
            node.args[0].id in owner.held:
        return len(owner.held[node.args[0].id].items)
    if isinstance(node, gast.Call) and nodes.dotted_parts(node.func) in (["min"], ["max"]):
        found = [owner.integer(a) for a in node.args]  # (`zip(a, b)`, desugared)
        return None if None in found or not found or node.keywords else \
            (min if node.func.id == "min" else max)(found)
    return None


def key(owner, node, like):
    """A constant subscript (int or str) known now, else None."""
    if isinstance(node, gast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, gast.Name) and type(owner.known.get(node.id)) is str:
        return owner.known[node.id]
    if isinstance(node, gast.Subscript) and owner.container(node.value, like) is not None \
            and not isinstance(node.slice, gast.Slice):  # names[0], a list of keys
        key = owner.key(node.slice, like)
        made = owner.container(node.value, like)
        item = made.item(key) if made.kind == "dict" else \
            made.items[key] if isinstance(key, int) and \
            -len(made.items) <= key < len(made.items) else None
        if isinstance(item, gast.Constant) and type(item.value) in (int, str):
            return item.value
    return owner.integer(node)


def container(owner, value, like):
    """The Container `value` makes or names (a display, dict(...), a held name, a call
    known to return a tuple), else None."""
    if isinstance(value, gast.Name):
        return owner.held.get(value.id)
    if isinstance(value, (gast.Tuple, gast.List)) and not isinstance(value.ctx, gast.Store):
        items = [owner.container(e, like) or owner.expression(e, like) for e in value.elts]
        return values.new("tuple" if isinstance(value, gast.Tuple) else "list",
                    range(len(items)), items)
    if isinstance(value, gast.Call) and nodes.dotted_parts(value.func) == ["zip"]:
        return zipped(owner, value, like)
    if isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Mult)):
        return joined(owner, value, like)   # `t + (x,)`, `pair * 2`
    if isinstance(value, gast.Call) and nodes.dotted_parts(value.func) in (
            ["tuple"], ["list"]) and len(value.args) == 1 and not value.keywords:
        inner = owner.container(value.args[0], like)  # tuple([out[k] for k in names])
        if inner is None or inner.kind == "record":
            return None
        items = list(inner.items) if inner.kind != "dict" else \
            [gast.Constant(k, None) for k in inner.keys]
        return values.new(value.func.id, range(len(items)), items)
    if isinstance(value, gast.Call) and values.class_fields(facts.REF.of(value)) is not None:
        return _record(owner, value, like)   # Result(t, y, True): a NamedTuple or dataclass
    if isinstance(value, gast.Dict):
        keys = [owner.key(k, like) if k is not None else None for k in value.keys]
        if any(not isinstance(k, str) for k in keys):
            owner.report(value, "dict keys must be strings written in the code",
                        fix="use string keys: {'w': w}")
            return None
        items = [owner.container(v, like) or owner.expression(v, like) for v in value.values]
        return values.new("dict", keys, items)
    if isinstance(value, gast.Call) and nodes.dotted_parts(value.func) == ["dict"] and \
            not value.args and all(k.arg for k in value.keywords):
        items = [owner.container(k.value, like) or owner.expression(k.value, like)
                 for k in value.keywords]
        return values.new("dict", [k.arg for k in value.keywords], items)
    if isinstance(value, gast.Subscript) and owner.container(value.value, like) is not None:
        found = owner.element(value, like)
        return found if isinstance(found, values.Container) else None
    if isinstance(value, gast.Attribute):
        owner = owner.container(value.value, like)
        found = owner.attribute(value.attr) if owner is not None else None
        return found if isinstance(found, values.Container) else None
    if owner.is_view(value):
        return values.view(owner.container(value.func.value, like), value.func.attr)
    if isinstance(value, gast.Call) and facts.USER.of(value):
        opened = owner.open_user_call(value, like)
        if isinstance(opened, values.Container):
            return opened
    if isinstance(value, gast.Call):
        count = owner.tuple_count(value)
        if count and values.nested_tuple_return(value) is not None:
            owner.report(value, f"'{facts.REF.of(value).__name__}' returns a tuple of tuples",
                        why="s2sad follows the tuples a function of yours returns one level "
                            "deep", fix="return a flat tuple (W1, b1, W2, b2) and group its "
                            "elements in the caller")
            return None
        if count:
            value = owner.expression(value, like, whole=True)
            names = [owner.fresh("_r") for _ in range(count)]
            owner.emit(gast.Assign([gast.Tuple([nodes.name(n, store=True) for n in names],
                                              gast.Store())], value, None), like)
            return values.Container("tuple", range(count), [nodes.name(n) for n in names])
    return None


def element(owner, node, like):
    """The element `node` (a subscript of a container) reads: an atom or a Container."""
    made = owner.container(node.value, like)
    if made.kind == "record":
        owner.report(node, "a dataclass instance is subscripted",
                    why="a dataclass has attributes, not items", fix="read p.field")
        return nodes.constant(0.0)
    if isinstance(node.slice, gast.Slice):
        bounds = [owner.integer(b) if b is not None else None
                  for b in (node.slice.lower, node.slice.upper, node.slice.step)]
        given = [b for b in (node.slice.lower, node.slice.upper, node.slice.step)
                 if b is not None]
        if len([b for b in bounds if b is not None]) != len(given) or made.kind == "dict":
            owner.report(node, "a slice of a container must have bounds known now",
                        fix="use constant bounds")
            return nodes.constant(0.0)
        items = made.items[slice(*bounds)]
        return values.Container(made.kind, range(len(items)), items)
    key = owner.key(node.slice, like)
    if key is not None:
        if isinstance(key, int) and made.kind != "dict":
            if not -len(made.items) <= key < len(made.items):
                owner.report(node, f"index {key} is out of range for {len(made.items)} "
                            "elements", fix="check the index")
                return nodes.constant(0.0)
            return made.items[key]
        found = made.item(key)
        if found is None:
            owner.report(node, f"the key {key!r} is not in the dict "
                        f"(it has {', '.join(map(repr, made.keys))})", fix="check the key")
            return nodes.constant(0.0)
        return found
    if made.kind == "dict" or not _alike(made.items):
        owner.report(node, "a container is indexed by a value known only when the function "
                    "runs", why="its elements are containers of different structures (or it "
                    "is a dict): s2sad picks an element's leaves by the index, one by one",
                    fix="index it with a constant or an unrolled loop's variable")
        return nodes.constant(0.0)
    index = owner.expression(node.slice, like)
    if isinstance(index, gast.Name) or isinstance(index, gast.Constant):
        return _picked(made.items, index, node)
    held = owner.fresh("_index")  # (computed once, read by every leaf's pick)
    owner.emit(nodes.assign(held, index), like)
    return _picked(made.items, nodes.name(held), node)


def _alike(items):
    """Whether run-time indexing can pick among `items`: all atoms, or all containers of one
    structure (a list of (W, b) layers), their leaves picked one by one."""
    if not any(isinstance(i, values.Container) for i in items):
        return True
    return all(isinstance(i, values.Container) and i.kind == items[0].kind and
               i.keys == items[0].keys for i in items) and \
        all(_alike([i.items[j] for i in items]) for j in range(len(items[0].items)))


def _picked(items, index, like):
    """items[index] for an index known when the function runs: for atoms, a chain of
    conditional expressions (the last item when no test holds); for containers of one
    structure, the container of their leaves picked one by one."""
    if isinstance(items[0], values.Container):
        first = items[0]
        picked = values.Container(first.kind, first.keys, [
            _picked([i.items[j] for i in items], index, like)
            for j in range(len(first.items))], first.fields, first.typename)
        picked.fresh = True
        return picked
    count = len(items)
    chosen = nodes.clone(items[-1])
    for k in range(count - 2, -1, -1):  # the last element when no test holds
        test = gast.BoolOp(gast.Or(), [
            gast.Compare(nodes.clone(index), [gast.Eq()], [gast.Constant(k, None)]),
            gast.Compare(nodes.clone(index), [gast.Eq()], [
                gast.UnaryOp(gast.USub(), gast.Constant(count - k, None))])])
        chosen = gast.IfExp(test, nodes.clone(items[k]), chosen)
    return gast.copy_location(chosen, like)


def joined(run, value, like):
    """`t + (x,)`, `args + rest`, `pair * 2` of tuples or lists known now (`run` is the
    containers pass): their elements in order; else None."""
    if isinstance(value.op, gast.Add):
        left, right = run.container(value.left, like), run.container(value.right, like)
        if left is None or right is None or left.kind != right.kind or \
                left.kind not in ("tuple", "list"):
            return None
        parts = [left, right]
    else:
        held, count = run.container(value.left, like), run.integer(value.right)
        if held is None:
            held, count = run.container(value.right, like), run.integer(value.left)
        if held is None or held.kind not in ("tuple", "list") or count is None:
            return None
        parts = [held] * max(count, 0)
    items = [item if isinstance(item, values.Container) else nodes.clone(item)
             for part in parts for item in part.items]
    return values.new(parts[0].kind if parts else "tuple", range(len(items)), items)


def _record(owner, call, like):
    """`Result(t, y, True)`: a record Container of its fields, each argument bound to its
    field as the class binds it (keywords, defaults)."""
    cls = facts.REF.of(call)
    fields = values.class_fields(cls)
    try:
        bound = inspect.signature(cls).bind(*call.args, **{k.arg: k.value for k in
                                                          call.keywords})
    except TypeError as error:
        owner.report(call, f"{cls.__name__}(...) is called with arguments it does not take: "
                     f"{error}", fix="pass one argument per field")
        return None
    bound.apply_defaults()
    items = [owner.container(v, like) or owner.expression(v, like) if isinstance(v, gast.AST)
             else template.as_node(v) for v in (bound.arguments[f] for f in fields)]
    made = values.new("record", fields, items)
    made.fields, made.typename = fields, f"{cls.__module__}.{cls.__qualname__}"
    return made


def zipped(owner, call, like):
    """`zip(a, b)` or `zip(*pairs)` of containers held now: the list of their tuples
    (`Ws, bs = zip(*layers)`); None when one is not held."""
    if call.keywords:
        return None
    parts = []
    for argument in call.args:
        if isinstance(argument, gast.Starred):
            made = owner.container(argument.value, like)
            parts += made.items if made is not None and made.kind != "dict" else [None]
        else:
            parts.append(owner.container(argument, like))
    if not parts or any(not isinstance(p, values.Container) or p.kind == "dict"
                        for p in parts):
        return None
    count = min(len(p.items) for p in parts)
    return values.new("list", range(count), [
        values.new("tuple", range(len(parts)), [p.items[k] for p in parts])
        for k in range(count)])
