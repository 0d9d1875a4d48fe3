"""Stage 7: tidy what templates produce, without changing a single value.

Filling `d[x] = d[z] * y * x ** (y - 1)` with `y = 2` gives `dz * 2 * x ** (2 - 1)`; folding the
literal arithmetic gives `dz * 2 * x`. Only rewrites that are exact in floating point are made
(`e ** 1 -> e`, `e * 1 -> e`, literal arithmetic on ints); nothing is reordered. A template
reading one element of a tuple result's adjoint gets that element:

    dx = d_t0 * 2 * x ** (2 - 1)                        -->  dx = d_t0 * 2 * x
    d_t5 = rt.logdet_grad((rt.zeros_like(sign), dlogdet)[1], _t5)  -->  ...(dlogdet, _t5)
"""
import gast

from . import fold

_FOLD = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b,
         gast.Mult: lambda a, b: a * b}


def tidy(function):
    """Fold literal integer arithmetic, drop `** 1` and `* 1`, index tuple displays,
    accumulate private gradient arrays in place, then fold single-use temporaries back into the
    expressions that read them (fold.py)."""
    function = _Folder().visit(function)
    owners = accumulate_in_place(function)
    return fold.fold(function, owners)


def accumulate_in_place(function):
    """`dw = dw + g` -> `dw += g` (no new array per accumulation; it matters in loops) for every
    gradient variable that provably owns its array: created once by `rt.zeros_like`, otherwise
    only ever accumulated into, written element-wise, or returned, so no other name can see the
    array change. Returns those variables' names.

        dw_h = rt.zeros_like(w_h)                          dw_h = rt.zeros_like(w_h)
        for t in range(_trips0 - 1, -1, -1):        -->   for t in range(_trips0 - 1, -1, -1):
            dw_h = dw_h + rt.matmul_grad_a(g, w_h, h)          dw_h += rt.matmul_grad_a(g, w_h, h)
    """
    fresh, accumulations, allowed, spoiled, loads = {}, [], set(), set(), []
    for node in gast.walk(function):
        if isinstance(node, gast.Name):
            if isinstance(node.ctx, gast.Load):
                loads.append(node)
        elif isinstance(node, gast.Assign):
            for target in node.targets:
                if not isinstance(target, gast.Name):
                    spoiled.update(n.id for n in gast.walk(target) if isinstance(n, gast.Name)
                                   and isinstance(n.ctx, gast.Store))
                    continue
                name, value = target.id, node.value
                if _is_call(value, "zeros_like") and name not in fresh:
                    fresh[name] = node
                elif isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add) and \
                        isinstance(value.left, gast.Name) and value.left.id == name:
                    accumulations.append(node)
                    allowed.add(id(value.left))
                else:
                    spoiled.add(name)
        elif isinstance(node, (gast.For, gast.AugAssign)) and isinstance(node.target, gast.Name):
            spoiled.add(node.target.id)
        elif isinstance(node, gast.Return):
            allowed.update(id(n) for n in gast.walk(node) if isinstance(n, gast.Name))
        elif isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Store) and \
                isinstance(node.value, gast.Name):
            allowed.add(id(node.value))  # an element write: in place anyway
        elif _is_call(node, "copy"):
            allowed.update(id(a.value) for a in node.args if isinstance(a, gast.Subscript))
    spoiled.update(n.id for n in loads if id(n) not in allowed)  # read otherwise: may keep it
    owners = set(fresh) - spoiled
    chosen = {id(a) for a in accumulations if a.targets[0].id in owners}
    if chosen:
        _in_place(function, chosen)
    return owners


def _in_place(node, chosen):
    for field in ("body", "orelse"):
        statements = getattr(node, field, None)
        if not isinstance(statements, list):
            continue
        for index, statement in enumerate(statements):
            if id(statement) in chosen:
                statements[index] = gast.copy_location(gast.AugAssign(
                    statement.targets[0], gast.Add(), statement.value.right), statement)
            else:
                _in_place(statement, chosen)


def _is_call(node, helper):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
        node.func.attr == helper and isinstance(node.func.value, gast.Name) and \
        node.func.value.id == "rt"


def _int_literal(node):
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = _int_literal(node.operand)
        return None if inner is None else -inner
    return None


def _literal(value):
    if value < 0:
        return gast.UnaryOp(gast.USub(), gast.Constant(-value, None))
    return gast.Constant(value, None)


class _Folder(gast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        left, right = _int_literal(node.left), _int_literal(node.right)
        if left is not None and right is not None and type(node.op) in _FOLD:
            return _literal(_FOLD[type(node.op)](left, right))
        if isinstance(node.op, gast.Pow) and right == 1:
            return node.left
        if isinstance(node.op, gast.Mult) and right == 1:
            return node.left
        return node

    def visit_Subscript(self, node):
        """`(a, b)[1]` -> `b`, when the elements dropped are names or zeros (no effects)."""
        self.generic_visit(node)
        index = _int_literal(node.slice)
        if isinstance(node.value, gast.Tuple) and index is not None and \
                -len(node.value.elts) <= index < len(node.value.elts) and \
                all(_pure(e) for e in node.value.elts):
            return node.value.elts[index]
        return node


def _pure(node):
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
        node.func.attr == "zeros_like" and all(_pure(a) for a in node.args)
