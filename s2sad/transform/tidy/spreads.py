"""The gradient of a reduction, spread over the reduced array's shape only to be
multiplied by an array of that shape, is not spread: broadcasting does it, with the same
products (order.py runs these, before and after folding).

    dz = rt.unreduce(g, z, None) * numpy.cos(z)     -->   dz = g * numpy.cos(z)
    d_t9 = rt.unreduce(dsqsum, _t9, 1)              -->   d_t9 = numpy.expand_dims(dsqsum, 1)
    dmahal = 2 * (d_t9 * mahal)                           dmahal = 2 * (d_t9 * mahal)
"""
import gast
import numpy

from .. import facts, nodes
from . import exact
from ..nodes import dotted_parts


def spread_once(node, shapes):
    """`rt.unreduce(g, a, None) * 2 * b` -> `g * 2 * b`, b being `a` or of its shape (kinds.py
    saw it): the gradient of a whole-array reduction is one number, spread over `a`'s shape only
    to be multiplied by an array of that shape, which broadcasting does for free, with the same
    products (`np.sum(np.exp(z))`). Added into the gradient of `a` (`da[k] +=
    rt.unreduce(g, a_k, None)`, which has `a`'s shape by construction), the number is spread by
    `+=` the same way."""
    factors = _factors(node)
    for holder, side in factors:
        spread = getattr(holder, side)
        if whole_spread(spread) and isinstance(spread.args[1], gast.Name) and any(
                _same_shape(getattr(h, s), spread, shapes) for h, s in factors):
            setattr(holder, side, spread.args[0])
    return node


def spread_folded(function, shapes):
    """`spread_once` on every product folding brought together, and a whole spread added into
    an array (`da[k] += rt.unreduce(g, a_k, None)`) added as the number it is: `+=` spreads it
    over what it adds into."""
    for node in nodes.walk(function):
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
            spread_once(node, shapes)
        elif isinstance(node, gast.AugAssign) and isinstance(node.op, gast.Add) and \
                whole_spread(node.value):
            node.value = node.value.args[0]
            exact.after_folding(node)  # `da[k] += -g * c` -> `da[k] -= g * c`


def spread_names_once(function, shapes):
    """`d = rt.unreduce(g, a, None)` -> `d = g` where every read of `d` is a factor of a product
    with an array of `a`'s shape (`dx = d * x + d * x` after `z = x * x; np.sum(z)`)."""
    loads, good, assigned, spreads = {}, {}, {}, {}
    for node in nodes.walk(function):
        if isinstance(node, gast.Name):
            table = loads if isinstance(node.ctx, gast.Load) else assigned
            table[node.id] = table.get(node.id, 0) + 1
        elif isinstance(node, gast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], gast.Name) and \
                (whole_spread(node.value) or _axis_spread(node.value)) and \
                isinstance(node.value.args[1], gast.Name):
            spreads[node.targets[0].id] = node
    if not spreads:
        return
    for node in nodes.walk(function):
        if not (isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult)):
            continue
        factors = [getattr(h, s) for h, s in _factors(node)]
        for factor in factors:
            if isinstance(factor, gast.Name) and factor.id in spreads and any(
                    _same_shape(f, spreads[factor.id].value, shapes) for f in factors):
                good[factor.id] = good.get(factor.id, 0) + 1
    aliases = {}
    for name, statement in spreads.items():
        if assigned.get(name) == 1 and good.get(name, 0) == loads.get(name, 0) > 0:
            statement.value = _unspread(statement.value)
            value = statement.value
            if isinstance(value, gast.Name) and assigned.get(value.id, 0) == 0:
                aliases[name] = (statement, value.id)  # `d = d_result`: read d_result itself
    if aliases:
        for node in nodes.walk(function):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
                    node.id in aliases:
                node.id = aliases[node.id][1]
        dropped = [statement for statement, _ in aliases.values()]
        for node in nodes.walk(function):
            body = getattr(node, "body", None)
            if isinstance(body, list) and any(s in dropped for s in body):
                body[:] = [s for s in body if s not in dropped]


def _factors(node):
    """(holder, field) of each factor of a product `a * b * c` (a tree of `*` only; a factor is
    counted once, where it sits: nested products are descended into)."""
    out = []
    for side in ("left", "right"):
        child = getattr(node, side)
        if isinstance(child, gast.BinOp) and isinstance(child.op, gast.Mult):
            out += _factors(child)
        else:
            out.append((node, side))
    return out


def _same_shape(node, spread, shapes):
    """`node` is the array `spread` spreads over (`rt.unreduce(g, a, None)`), or a name of its
    shape class: for the whole function (`shapes`), or where both were read (blocks.py marks
    them with the class kinds.py saw there)."""
    if _is_ufunc_call(node):   # `numpy.cos(a)` has the shape of `a` (one array argument)
        node = node.args[0]
    if not isinstance(node, gast.Name):
        return False
    array = spread.args[1]
    if node.id == array.id:
        return True
    here = facts.CLASS.of(node)
    if here is not None and here is facts.CLASS.of(spread):
        return True
    return shapes.get(node.id) is not None and shapes.get(node.id) is shapes.get(array.id)


def _is_ufunc_call(node):
    parts = dotted_parts(node.func) if isinstance(node, gast.Call) else None
    return parts is not None and len(parts) == 2 and parts[0] == "numpy" and \
        isinstance(getattr(numpy, parts[1], None), numpy.ufunc) and len(node.args) == 1 and \
        not node.keywords


def _axis_spread(node):
    """`rt.unreduce(g, a, 1)` after a reduction that removed axis 1 (blocks.py marks the rank of
    `a`): the sums of g spread along that axis."""
    return _is_call(node, "unreduce") and facts.RANK.of(node) is not None


def _unspread(spread):
    """What a product with an array of the spread's shape may read instead of the spread: `g`
    itself, or `g` with the reduced axis put back with length 1 (`numpy.expand_dims(g, 1)`),
    which broadcasts along it without an array of the whole shape."""
    g = spread.args[0]
    if whole_spread(spread) or facts.RANK.of(spread) == 1:   # g is one number
        return g
    return nodes.call("numpy.expand_dims", g, spread.args[2])


def whole_spread(node):
    """`rt.unreduce(g, a, None)`: one number spread over the shape of `a`."""
    return _is_call(node, "unreduce") and len(node.args) == 3 and not node.keywords and \
        isinstance(node.args[2], gast.Constant) and node.args[2].value is None


def _is_call(node, helper):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
        node.func.attr == helper and isinstance(node.func.value, gast.Name) and \
        node.func.value.id == "rt"
