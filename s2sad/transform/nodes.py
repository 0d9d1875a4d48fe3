"""Small constructors and queries for the gast nodes the generator builds."""
import ast
import math
from collections import deque

import gast
import numpy

_AST = ast.AST   # gast nodes are ast nodes


class Comment(gast.stmt):
    """A `# text` line in generated code (printed by the emitter)."""
    _fields = ("text",)


def walk(tree):
    """Every node of `tree` but the leaves that say which context or operator (`Load`, `Add`,
    read as `.ctx`, `.op`), breadth first: gast.walk (ast.walk) without its two layers of
    generators per node and without those leaves, about half the nodes (walking took a third
    of a transformation)."""
    todo = deque((tree,))
    take, push, extend = todo.popleft, todo.append, todo.extend
    children = _CHILDREN
    while todo:
        node = take()
        for field in children[node.__class__]:
            value = getattr(node, field, None)
            if isinstance(value, list):
                extend([item for item in value if isinstance(item, _AST)])
            elif isinstance(value, _AST):
                push(value)
        yield node


def walk_own(statement):
    """walk() of a statement that stops at the statements nested in it: they are yielded, and
    what they hold is not (for passes that sum up nested statements once each)."""
    todo = [statement]
    take, extend = todo.pop, todo.extend
    children = _CHILDREN
    while todo:
        node = take()
        yield node
        if node is not statement and isinstance(node, gast.stmt):
            continue
        for field in children[node.__class__]:
            value = getattr(node, field, None)
            if isinstance(value, list):
                extend([item for item in value if isinstance(item, _AST)])
            elif isinstance(value, _AST):
                todo.append(value)


# fields that hold no node walk() yields: names and flags, and the context and operator leaves
_LEAF_FIELDS = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "type_comment",
                          "kind", "level", "module", "is_async", "conversion"})
class _Children(dict):
    """node class -> the fields walk() looks into, found at the first node of the class."""
    def __missing__(self, cls):
        self[cls] = tuple(f for f in cls._fields if f not in _LEAF_FIELDS)
        return self[cls]


_CHILDREN = _Children()


class Transformer(gast.NodeTransformer):
    """gast.NodeTransformer that looks into the fields walk() looks into (not the context and
    operator leaves) and finds each node class's visitor once: the passes written as
    transformers took a fifth of a transformation, most of it in ast's generic_visit."""
    def visit(self, node):
        key = (self.__class__, node.__class__)
        method = _VISITORS.get(key)
        if method is None:
            method = _VISITORS[key] = getattr(self.__class__, "visit_" + key[1].__name__,
                                              self.__class__.generic_visit)
        return method(self, node)

    def generic_visit(self, node):
        for field in _CHILDREN[node.__class__]:
            old = getattr(node, field, None)
            if isinstance(old, list):
                new = []
                for value in old:
                    if isinstance(value, _AST):
                        value = self.visit(value)
                        if value is None:
                            continue
                        if not isinstance(value, _AST):
                            new.extend(value)
                            continue
                    new.append(value)
                old[:] = new
            elif isinstance(old, _AST):
                value = self.visit(old)
                if value is None:
                    delattr(node, field)
                else:
                    setattr(node, field, value)
        return node


_VISITORS = {}    # (transformer class, node class) -> its visit_ method or generic_visit


def same(a, b):
    """Whether two trees are equal field by field, locations aside: what comparing their
    `ast.dump`s says, without printing either (the dumps took a tenth of a transformation)."""
    todo = [(a, b)]
    while todo:
        x, y = todo.pop()
        if x.__class__ is not y.__class__:
            return False
        if isinstance(x, list):
            if len(x) != len(y):
                return False
            todo.extend(zip(x, y))
        elif isinstance(x, _AST):
            todo.extend((getattr(x, f, None), getattr(y, f, None)) for f in x._fields)
        elif repr(x) != repr(y):
            return False   # repr, as dump: 1 is not 1.0, -0.0 is not 0.0, nan is nan
    return True


def keep_only(statements, kept):
    """`statements[:] = kept`, with a `pass` where only comments (or nothing) are left: a
    block of comments alone is not Python."""
    statements[:] = kept
    if all(isinstance(s, Comment) for s in statements):
        statements.append(gast.Pass())


def name(identifier, store=False):
    return gast.Name(identifier, gast.Store() if store else gast.Load(), None, None)


def assign(target, value):
    return gast.Assign([name(target, store=True)], value, None)


def assigned_name(statement):
    """`n` of a statement `n = value`; None for any other statement."""
    if isinstance(statement, gast.Assign) and len(statement.targets) == 1 and \
            isinstance(statement.targets[0], gast.Name):
        return statement.targets[0].id
    return None


def call(dotted, *args):
    """`rt.zeros_like(x)` from ("rt.zeros_like", x)."""
    module, attribute = dotted.split(".")
    return gast.Call(gast.Attribute(name(module), attribute, gast.Load()), list(args), [])


def names(node):
    """Every identifier in a tree."""
    return _names(node, False)


def names_loaded(node):
    """Every identifier a tree reads (a Name in Load context)."""
    return _names(node, True)


def _names(tree, loaded):
    # walk() inlined: the passes ask this of whole functions, a dozen times per transformation
    found = set()
    todo = [tree]
    take, push, extend = todo.pop, todo.append, todo.extend
    children, name, load = _CHILDREN, gast.Name, gast.Load
    while todo:
        node = take()
        cls = node.__class__
        if cls is name:
            if not loaded or node.ctx.__class__ is load:
                found.add(node.id)
            if node.annotation is not None:
                push(node.annotation)
            continue
        for field in children[cls]:
            value = getattr(node, field, None)
            if value.__class__ is list:
                extend([item for item in value if isinstance(item, _AST)])
            elif isinstance(value, _AST):
                push(value)
    return found


def dotted(path, like=None):
    """`numpy.linalg.norm` as a Name/Attribute chain (at `like`'s position if given)."""
    parts = path.split(".")
    node = name(parts[0])
    for part in parts[1:]:
        node = gast.Attribute(node, part, gast.Load())
    return gast.copy_location(node, like) if like is not None else node


def dotted_parts(node):
    """['np', 'linalg', 'norm'] for the expression np.linalg.norm; None if not a dotted name."""
    parts = []
    while isinstance(node, gast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, gast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def clone(node):
    """A deep copy of a gast tree that keeps positions and s2sad annotations (referenced
    objects such as `facts.REF` functions are shared, not copied, and so are the context and
    operator leaves, which have no fields to change)."""
    if isinstance(node, list):
        return [clone(n) for n in node]
    if not isinstance(node, _AST):
        return node
    cls = node.__class__
    new = cls.__new__(cls)   # no constructor: it checked each field again (a third of the time)
    new.__dict__.update(node.__dict__)
    for field in _CHILDREN[cls]:
        value = getattr(node, field, None)
        if isinstance(value, list):
            setattr(new, field, [clone(v) for v in value])
        elif isinstance(value, _AST):
            setattr(new, field, clone(value))
    if isinstance(node, gast.Compare):
        new.ops = list(node.ops)
    return new


def constant(value):
    return gast.Constant(value, None)


def negation(flags):
    """`not (a or b)` for flag names, as a test."""
    test = name(flags[0]) if len(flags) == 1 else \
        gast.BoolOp(gast.Or(), [name(f) for f in flags])
    return gast.UnaryOp(gast.Not(), test)


def root_name(node):
    """The name a chain of subscripts and attributes starts from (`p` in `p["a"][0].w`), or
    None when it starts from something else."""
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def fresh(prefix, taken):
    """`prefix` + the first number that makes a name not in `taken` (which gets it)."""
    k = 0
    while f"{prefix}{k}" in taken:
        k += 1
    taken.add(f"{prefix}{k}")
    return f"{prefix}{k}"


def statement_lists(node):
    """Every non-empty statement list under `node` (bodies, `else`s, `finally`s, handlers),
    each before the lists nested in it."""
    for field in ("body", "orelse", "finalbody"):
        statements = getattr(node, field, None)
        if isinstance(statements, list) and statements and isinstance(statements[0], gast.stmt):
            yield statements
            for statement in statements:
                yield from statement_lists(statement)
    for handler in getattr(node, "handlers", ()):
        yield from statement_lists(handler)


def values_of(statements):
    """name -> its value, for assignments computed one after the other (each value with the
    names before it put in)."""
    values = {}
    for statement in statements:
        values[statement.targets[0].id] = substituted(statement.value, values)
    return values


def substituted(expression, values):
    """A copy of `expression` with the names of `values` replaced by (copies of) their values."""
    if isinstance(expression, gast.Name) and expression.id in values:
        return clone(values[expression.id])
    copy = clone(expression)
    for node in walk(copy):
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, gast.Name) and value.id in values:
                setattr(node, field, clone(values[value.id]))
            elif isinstance(value, list):
                value[:] = [clone(values[v.id]) if isinstance(v, gast.Name) and
                            v.id in values else v for v in value]
    return copy


def number_node(value):
    """A literal for a real number; negatives as unary minus (astor prints Constant(-2)**2 as
    -2 ** 2)."""
    if isinstance(value, numpy.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return dotted("numpy.nan", None)
    if isinstance(value, float) and math.isinf(value):
        inf = dotted("numpy.inf", None)
        return inf if value > 0 else gast.UnaryOp(gast.USub(), inf)
    if value < 0:
        return gast.UnaryOp(gast.USub(), gast.Constant(-value, None))
    return gast.Constant(value, None)


def rename(tree, names):
    """`tree` with each Name whose id is a key of `names` given its value as id (in place;
    returned for use in expressions)."""
    for node in walk(tree):
        if isinstance(node, gast.Name) and node.id in names:
            node.id = names[node.id]
    return tree
