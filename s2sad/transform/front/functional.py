"""`map` and `functools.partial`, spelt as the comprehensions, loops and calls desugar.py knows.
Runs first in desugar.py, on the parsed tree:

    for y in map(f, xs, ys):                for _m0, _m1 in zip(xs, ys):
        s = s + y                               y = f(_m0, _m1)
                                                s = s + y

    zs = list(map(partial(g, a), xs))  -->  zs = [g(a, _m0) for _m0 in xs]

    sq = map(lambda v: v * v, xs)           sq = [v * v for v in xs]

    h = partial(g, a, k=2)                  _h0 = a
    out = h(x) + h(y)                       out = g(_h0, x, k=2) + g(_h0, y, k=2)

    op = np.tanh                            (left out)
    y = op(x)                               y = np.tanh(x)

A partial's arguments are evaluated where the partial is made, as Python does: a name or
constant is read there into a variable of its own. A partial kept for anything else than calls
(returned, stored, passed on) is left for the later stages to report.
"""
import builtins
import functools

import gast

from .. import nodes


def denoted(func, chain):
    """What a dotted name denotes in `func`'s closure, globals or builtins (None if nothing)."""
    cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    try:
        value = cells[chain[0]].cell_contents if chain[0] in cells else \
            func.__globals__.get(chain[0], getattr(builtins, chain[0], None))
        for attribute in chain[1:]:
            value = getattr(value, attribute)
    except (ValueError, AttributeError):
        return None
    return value


def rewrite(tree, func):
    """Rewrite the maps and partials of the function `tree` (of `func`) in place."""
    _Functional(tree, func).run()


class _Functional:
    def __init__(self, tree, func):
        self.tree, self.func = tree, func
        self.taken = nodes.names(tree)
        self.local = {n.id for n in nodes.walk(tree)
                      if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Param))}

    def fresh(self, base):
        return nodes.fresh(base, self.taken)

    def denotes(self, node, value):
        chain = nodes.dotted_parts(node)
        return chain is not None and chain[0] not in self.local and \
            denoted(self.func, chain) is value

    def run(self):
        self.partials()
        for _, statement in self.statements():
            if isinstance(statement, gast.For):
                self.loop(statement)
        self.tree.body = [self.visit(s) for s in self.tree.body]

    # ---- partials bound to a name, then called ---------------------------------------------

    def partials(self):
        """`h = partial(g, a)` assigned once, `h` only ever called: its calls call g."""
        stores, loads, called = {}, {}, set()
        for node in nodes.walk(self.tree):
            if isinstance(node, gast.Name):
                counts = stores if isinstance(node.ctx, gast.Store) else loads
                counts[node.id] = counts.get(node.id, 0) + 1
            if isinstance(node, gast.Call):
                called.add(id(node.func))
        made = {}
        for block, statement in self.statements():
            if isinstance(statement, gast.Assign) and len(statement.targets) == 1 and \
                    isinstance(statement.targets[0], gast.Name) and \
                    stores.get(statement.targets[0].id) == 1 and \
                    self.is_partial(statement.value):
                name = statement.targets[0].id
                if all(id(n) in called for n in nodes.walk(self.tree) if isinstance(
                        n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)):
                    made[name] = (block, statement)
        for name, (block, statement) in made.items():
            call = statement.value
            held, reads = [], []
            for value in call.args[1:]:
                if isinstance(value, gast.Constant):
                    held.append(value)
                    continue
                temporary = self.fresh(f"_{name}")
                reads.append(gast.copy_location(gast.Assign(
                    [nodes.name(temporary, True)], value, None), statement))
                held.append(nodes.name(temporary))
            bound = gast.Call(call.args[0], held, call.keywords)
            at = block.index(statement)
            block[at:at + 1] = reads or [gast.copy_location(gast.Pass(), statement)]
            for node in nodes.walk(self.tree):
                if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                        node.func.id == name:
                    inner = nodes.clone(bound)
                    node.func, node.args = inner.func, inner.args + node.args
                    node.keywords = inner.keywords + node.keywords

    def statements(self):
        for block in list(nodes.statement_lists(self.tree)):
            for statement in list(block):
                yield block, statement

    def is_partial(self, node):
        return isinstance(node, gast.Call) and self.denotes(node.func, functools.partial) and \
            len(node.args) >= 1 and not any(isinstance(a, gast.Starred) for a in node.args)

    # ---- map --------------------------------------------------------------------------------

    def is_map(self, node):
        return isinstance(node, gast.Call) and self.denotes(node.func, builtins.map) and \
            len(node.args) >= 2 and not node.keywords and \
            not any(isinstance(a, gast.Starred) for a in node.args)

    def applied(self, function, count):
        """(targets, element expression) applying `function` to `count` fresh names, or None
        when it is not something to apply here (a lambda of another arity, a partial of
        expressions)."""
        names = [self.fresh("_m") for _ in range(count)]
        loads = [nodes.name(n) for n in names]
        if isinstance(function, gast.Lambda):   # its parameters renamed apart
            args = function.args
            if len(args.args) != count or args.vararg or args.kwarg or args.kwonlyargs or \
                    args.defaults:
                return None
            renamed = dict(zip((a.id for a in args.args), names))
            element = nodes.clone(function.body)
            for node in nodes.walk(element):
                if isinstance(node, gast.Name) and node.id in renamed:
                    node.id = renamed[node.id]
            return [nodes.name(n, True) for n in names], element
        if self.is_partial(function):
            if not all(isinstance(a, (gast.Name, gast.Constant, gast.Attribute))
                       for a in function.args[1:]):
                return None
            element = gast.Call(nodes.clone(function.args[0]),
                                [nodes.clone(a) for a in function.args[1:]] + loads,
                                [nodes.clone(k) for k in function.keywords])
        else:
            element = gast.Call(nodes.clone(function), loads, [])
        return [nodes.name(n, True) for n in names], element

    def parts(self, call):
        """(comprehension target, iterable, element) for `map(function, *iterables)`, or None
        if its function is not one to apply here."""
        iterables = call.args[1:]
        applied = self.applied(call.args[0], len(iterables))
        if applied is None:
            return None
        targets, element = applied
        if len(iterables) == 1:
            return targets[0], iterables[0], element
        zipped = gast.copy_location(gast.Call(nodes.name("zip"), list(iterables), []), call)
        return gast.copy_location(gast.Tuple(targets, gast.Store()), call), zipped, element

    def loop(self, node):
        parts = self.parts(node.iter) if self.is_map(node.iter) else None
        if parts is None:
            return
        target, iterable, element = parts
        node.body.insert(0, gast.copy_location(gast.Assign([node.target], element, None),
                                               node.iter))
        node.target, node.iter = target, iterable

    def visit(self, node):
        """Elsewhere: `map(...)` (or `list(map(...))`) becomes a list comprehension."""
        for field, value in gast.iter_fields(node):
            if isinstance(value, list):
                setattr(node, field, [self.visit(v) if isinstance(v, gast.AST) else v
                                      for v in value])
            elif isinstance(value, gast.AST):
                setattr(node, field, self.visit(value))
        if isinstance(node, gast.Call) and self.denotes(node.func, builtins.list) and \
                len(node.args) == 1 and isinstance(node.args[0], gast.ListComp) and \
                getattr(node.args[0], "from_map", False):
            return node.args[0]
        parts = self.parts(node) if self.is_map(node) else None
        if parts is not None:
            target, iterable, element = parts
            comprehension = gast.copy_location(gast.ListComp(element, [gast.comprehension(
                target, iterable, [], 0)]), node)
            comprehension.from_map = True
            return comprehension
        return node


def call_through_aliases(tree, func):
    """`h = helper` (or `op = np.tanh`) then `h(x)`: the call names the function itself, and the
    assignment goes. Only for a name assigned once, to a global (or closure) name or attribute
    chain that denotes a callable, and read only as the function of calls."""
    params = {a.id for a in nodes.walk(tree.args) if isinstance(a, gast.Name)}
    stored = {}
    for node in nodes.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            stored[node.id] = stored.get(node.id, 0) + 1
    called = {id(n.func) for n in nodes.walk(tree) if isinstance(n, gast.Call)}
    aliases, assignments = {}, []
    for node in nodes.walk(tree):
        if not (isinstance(node, gast.Assign) and len(node.targets) == 1 and
                isinstance(node.targets[0], gast.Name) and stored[node.targets[0].id] == 1):
            continue
        name, chain = node.targets[0].id, nodes.dotted_parts(node.value)
        if chain is None or chain[0] in stored or chain[0] in params or name in params or \
                not callable(denoted(func, chain)):
            continue
        if all(id(n) in called for n in nodes.walk(tree) if isinstance(n, gast.Name) and
               n.id == name and isinstance(n.ctx, gast.Load)):
            aliases[name] = node.value
            assignments.append(node)
    if not aliases:
        return
    for node in nodes.walk(tree):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                node.func.id in aliases:
            node.func = gast.copy_location(nodes.clone(aliases[node.func.id]), node.func)
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list) and any(s in assignments for s in block):
                block[:] = [s for s in block if s not in assignments] or [gast.Pass()]
