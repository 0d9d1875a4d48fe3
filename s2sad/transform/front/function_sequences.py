"""Loops over a module-level list or tuple holding functions (layer specs), unrolled:

    LAYERS = [(np.tanh, 0.5), (relu, 1.0)]
    def net(x):                                 def net(x):
        for act, scale in LAYERS:       -->         x = LAYERS[0][0](x * LAYERS[0][1])
            x = act(x * scale)                      x = LAYERS[1][0](x * LAYERS[1][1])
        return x                                    return x

Each copy reads the element it stands for, so that resolve.py binds each call of a function
the list holds when the function is transformed, as it binds a call of a global function (the
list is part of what the gradient is specialised on: swapping one takes effect). Runs in
desugar.py, before the loops it leaves are desugared.
"""

import gast

from .. import nodes
from .resolve_values import is_function_value


def unrolled(source, node):
    """`for act, W in LAYERS:` over a module-level list or tuple holding functions (also in
    `zip(LAYERS, params)` or `enumerate(LAYERS)`): one copy of the body per element, the
    targets read as `LAYERS[k][0]`..., so that each call of a function it holds is bound
    when the function is transformed (resolve.py). None for any other statement."""
    if not isinstance(node, gast.For) or node.orelse or any(
            isinstance(n, (gast.Break, gast.Continue)) for s in node.body
            for n in nodes.walk(s)):
        return None
    iterable, target = node.iter, node.target
    call = nodes.dotted_parts(iterable.func) if isinstance(iterable, gast.Call) else None
    if call in (["zip"], ["enumerate"]) and call[0] not in source.func.__globals__ and \
            not iterable.keywords and isinstance(target, gast.Tuple):
        sources = list(iterable.args)
    else:
        call, sources = None, [iterable]
    held = [_function_sequence(source, a) for a in sources]
    count = next((len(h) for h in held if h is not None), None)
    if count is None or call == ["enumerate"] and len(sources) != 1 or \
            call == ["zip"] and len(target.elts) != len(sources):
        return None
    stored = {n.id for s in node.body for n in nodes.walk(s)
              if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
    if set(nodes.names(target)) & stored:
        return None
    if not all(isinstance(a, (gast.Name, gast.Tuple, gast.List)) for a in sources):
        return None  # (an expression would be evaluated once per copy)
    copies = []
    for k in range(count):
        values = {}
        if call == ["enumerate"]:
            _bind(target.elts[0], nodes.constant(k), values)
            _bind(target.elts[1], _item(sources[0], k), values)
        elif call == ["zip"]:
            for part, source in zip(target.elts, sources):
                _bind(part, _item(source, k), values)
        else:
            _bind(target, _item(sources[0], k), values)
        copies += [_Substitute(values).visit(nodes.clone(s)) for s in node.body]
    return copies

def _function_sequence(source, node):
    """The module-level (or closure) list or tuple `node` names, if it holds a function."""
    if not isinstance(node, gast.Name) or node.id in _locals(source):
        return None
    namespace = dict(source.func.__globals__)
    for name, cell in zip(source.func.__code__.co_freevars,
                          source.func.__closure__ or ()):
        try:
            namespace[name] = cell.cell_contents
        except ValueError:
            pass
    value = namespace.get(node.id)
    return value if isinstance(value, (list, tuple)) and _holds_function(value) else None

def _locals(source):
    tree = source.tree
    return {a.id for a in tree.args.args + tree.args.posonlyargs + tree.args.kwonlyargs} | {
        n.id for n in nodes.walk(tree) if isinstance(n, gast.Name) and
        isinstance(n.ctx, gast.Store)}


def _holds_function(value):
    if isinstance(value, (list, tuple)):
        return any(_holds_function(v) for v in value)
    return is_function_value(value)


def _item(source, k):
    if isinstance(source, (gast.Tuple, gast.List)):  # (a display: its element itself)
        return nodes.clone(source.elts[k]) if k < len(source.elts) else \
            gast.Subscript(nodes.clone(source), nodes.constant(k), gast.Load())
    return gast.Subscript(nodes.clone(source), nodes.constant(k), gast.Load())


def _bind(target, value, values):
    """{name: the expression it reads} for a loop target bound to `value`."""
    if isinstance(target, gast.Name):
        values[target.id] = value
    else:
        for j, part in enumerate(target.elts):
            _bind(part, gast.Subscript(nodes.clone(value), nodes.constant(j), gast.Load()),
                  values)


class _Substitute(nodes.Transformer):
    def __init__(self, values):
        self.values = values

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.values:
            return gast.copy_location(nodes.clone(self.values[node.id]), node)
        return node
