"""Functions made by s2sad inside a differentiated function, made when it is transformed:

    def step(x):                                def step(x):
        dg = s2sad.grad(g)             -->          return x - _grad_g0(x) / _grad_g1(x)
        return x - dg(x) / s2sad.grad(dg)(x)

`_grad_g0` is `s2sad.grad(g)` and `_grad_g1` is `s2sad.grad(s2sad.grad(g))`, kept in
`source.made`; resolve.py calls them as it calls a gradient function held in a global (a
Newton step: s2sad differentiates g's tangent code again). A making call is evaluated only
when each of its arguments is known when the function is transformed: a global function, a
lambda or nested `def` that reads no local (local_values.py), a literal, or a name assigned
once to another such call. Anything else is left as it is, for resolve.py to report.
"""
import gast

from .. import nodes
from . import local_values, parse
from .functional import denoted

_UNKNOWN = object()


def rewrite(source):
    """Rewrite `source.tree` in place (desugar.py runs it first)."""
    tree = source.tree
    functions = {s.name: s for s in tree.body if isinstance(s, gast.FunctionDef)}
    functions.update({s.targets[0].id: s.value for s in tree.body if isinstance(s, gast.Assign)
                      and isinstance(s.value, gast.Lambda) and len(s.targets) == 1 and
                      isinstance(s.targets[0], gast.Name)})
    stored = {}
    for node in nodes.walk(tree):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            stored[node.id] = stored.get(node.id, 0) + 1
    params = {a.id for a in nodes.walk(tree.args) if isinstance(a, gast.Name)}
    maker = _Maker(source, functions, params, stored)
    maker.find_aliases(tree.body)
    for node in nodes.walk(tree):
        if isinstance(node, gast.Call):
            value = maker.value(node.func) if isinstance(node.func, gast.Call) else \
                maker.aliases.get(node.func.id, _UNKNOWN) \
                if isinstance(node.func, gast.Name) else _UNKNOWN
            if _is_made(value):
                node.func = gast.copy_location(nodes.name(maker.name_for(value)), node.func)
    assignments = [s for s in tree.body if isinstance(s, gast.Assign) and
                   isinstance(s.targets[0], gast.Name) and s.targets[0].id in maker.aliases]
    read = {n.id for s in tree.body if s not in assignments for n in nodes.walk(s)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
    if not read & set(maker.aliases):   # (every call now names what the aliases made)
        tree.body = [s for s in tree.body if s not in assignments] or [gast.Pass()]
    source.made.update(maker.made)


class _Maker:
    def __init__(self, source, functions, params, stored):
        self.source, self.functions = source, functions
        self.params, self.stored = params, stored
        self.aliases = {}   # local name assigned once to a making call -> what it made
        self.made = {}      # emitted name -> what it is
        self.names = {}     # id(what it is) -> emitted name

    def find_aliases(self, statements):
        """`dg = s2sad.grad(g)`: names assigned once, at the top level, to a making call."""
        for statement in statements:
            if isinstance(statement, gast.Assign) and len(statement.targets) == 1 and \
                    isinstance(statement.targets[0], gast.Name) and \
                    isinstance(statement.value, gast.Call):
                name = statement.targets[0].id
                if self.stored.get(name) == 1 and name not in self.params:
                    value = self.value(statement.value)
                    if _is_made(value):
                        self.aliases[name] = value

    def name_for(self, value):
        if id(value) not in self.names:
            func = getattr(value, "func", None)
            base = parse.named(func).__name__ if callable(func) else "function"
            base = base if base.isidentifier() else "function"
            name = nodes.fresh(f"_{getattr(value, 'kind', 'grad')}_{base}",
                               nodes.names(self.source.tree) | set(self.made))
            self.names[id(value)], self.made[name] = name, value
        return self.names[id(value)]

    def value(self, node):
        """What `node` evaluates to when the function is transformed, or _UNKNOWN."""
        if isinstance(node, gast.Constant):
            return node.value
        if isinstance(node, (gast.Tuple, gast.List)):
            items = [self.value(e) for e in node.elts]
            return _UNKNOWN if any(i is _UNKNOWN for i in items) else tuple(items)
        if isinstance(node, gast.Name) and node.id in self.aliases:
            return self.aliases[node.id]
        if isinstance(node, gast.Lambda) or isinstance(node, gast.Name) and \
                node.id in self.functions:
            function = node if isinstance(node, gast.Lambda) else self.functions[node.id]
            constant, _ = local_values.lifted(self.source, function)
            return _UNKNOWN if constant is None else constant.value
        chain = nodes.dotted_parts(node)
        if chain is not None:
            if chain[0] in self.stored or chain[0] in self.params:
                return _UNKNOWN
            found = denoted(self.source.func, chain)
            return _UNKNOWN if found is None else found
        if isinstance(node, gast.Call):
            return self._called(node)
        return _UNKNOWN

    def _called(self, call):
        maker = self.value(call.func)
        if not callable(maker) or not str(getattr(maker, "__module__", "")).startswith("s2sad."):
            return _UNKNOWN   # only s2sad's own transforms are run when transforming
        args = [self.value(a) for a in call.args]
        keywords = {k.arg: self.value(k.value) for k in call.keywords}
        if any(v is _UNKNOWN for v in args + list(keywords.values())) or None in keywords:
            return _UNKNOWN
        keywords.setdefault("jit", False)   # (made to be differentiated again, not compiled)
        try:
            return maker(*args, **keywords)
        except Exception:   # noqa: BLE001 -- left as it is: resolve.py reports the call
            return _UNKNOWN


def _is_made(value):
    return callable(getattr(value, "differentiable_function", None))
