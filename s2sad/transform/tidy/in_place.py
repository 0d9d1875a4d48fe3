"""Gradient arrays updated in place, as a person writes them, with the same additions.

    accumulate_in_place(function)       `dw = dw + g` -> `dw += g`, for every gradient array no
                                        other name can see; returns those arrays' names
    keep_in_place(function)             an element's gradient taken out, zeroed and added back
                                        around code that only adds into the array stays put
    extremum_in_place(function, owners) the gradient of a max goes straight into its row

        dw_h = rt.zeros_like(w_h)                        dw_h = rt.zeros_like(w_h)
        for t in range(T - 1, -1, -1):            -->    for t in range(T - 1, -1, -1):
            dw_h = dw_h + rt.matmul_grad_a(g, w_h, h)        dw_h += rt.matmul_grad_a(g, w_h, h)
"""
import gast

from .. import facts, nodes
from ..nodes import Comment

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
    for node in nodes.walk(function):
        if isinstance(node, gast.Name):
            if isinstance(node.ctx, gast.Load):
                loads.append(node)
        elif isinstance(node, gast.Assign):
            for target in node.targets:
                if not isinstance(target, gast.Name):
                    spoiled.update(n.id for n in nodes.walk(target) if isinstance(n, gast.Name)
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
            allowed.update(id(n) for n in nodes.walk(node) if isinstance(n, gast.Name))
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


def keep_in_place(function):
    """Every element's gradient taken out, zeroed and added back in place left where it is
    (`_keep_in_place`)."""
    _keep_in_place(function, function, {})


def _keep_in_place(node, function, sharing):
    """The adjoint of an element updated from itself (`x[i] = x[i] + dt * v[i]`) takes the
    element's gradient out, zeroes it, and adds it back: when everything in between only adds
    into the array (`+=`) and reads nothing that may share its memory, the element is left
    where it is, as a person writes it.

        d_t26 = dx[i]                                 d_t26 = dx[i]
        dx[i] = 0.0                            -->    dv[i] += d_t26 * dt
        dv[i] += d_t26 * dt
        dx[i] += d_t26

    Only for one-element reads (a plain subscript: a part would be copied, `rt.copy`), so
    `d_t26` is a number either way and the sums are the same (only their order changes).
    `sharing`: array -> the names that may share its memory (`_sharing`), filled as needed."""
    for field in ("body", "orelse"):
        statements = getattr(node, field, None)
        if not isinstance(statements, list):
            continue
        index = 0
        while index < len(statements):
            if not _kept_in_place(statements, index, function, sharing):
                _keep_in_place(statements[index], function, sharing)
                index += 1


def _kept_in_place(statements, index, function, sharing):
    """Remove the zeroing and the adding back of the pattern starting at `statements[index]`,
    if it is one; whether it did."""
    taken, zeroed = statements[index], statements[index + 1:index + 2]
    if not (isinstance(taken, gast.Assign) and isinstance(taken.targets[0], gast.Name) and
            isinstance(taken.value, gast.Subscript) and
            isinstance(taken.value.value, gast.Name) and
            zeroed and _is_write(zeroed[0], taken.value, gast.Assign) and
            isinstance(zeroed[0].value, gast.Constant) and zeroed[0].value.value == 0.0):
        return False
    held, array, part = taken.targets[0].id, taken.value.value.id, taken.value
    if array not in sharing:
        sharing[array] = _sharing(function, array)
    if sharing[array] is None:
        return False
    indexes = _index_values(statements[:index])  # `_t8 = i + 1`: dF[_t8] is dF[i + 1]
    fixed = {held} | _with_values(nodes.names(part.slice), indexes)
    def again(statement):  # `_t8 = i + 1` computed again: the same value
        name = nodes.assigned_name(statement)
        return name in indexes and nodes.same(statement.value, indexes[name])
    for later in range(index + 2, len(statements)):
        statement = statements[later]
        if _is_write(statement, part, gast.AugAssign, indexes) and \
                isinstance(statement.value, gast.Name) and statement.value.id == held and \
                not _stores([s for s in statements[index + 2:later] if not again(s)],
                            _with_values(nodes.names(statement.target.slice), indexes)):
            del statements[later]
            del statements[index + 1]
            return True
        if not again(statement) and \
                not _only_adds_into(statement, array, sharing[array], fixed):
            return False
    return False


def _sharing(function, array):
    """The names other than `array` that may hold a view of it, or None when it escapes (an
    argument of a call whose result is not assigned, a loop over it). A view is made by an
    assignment to a name of anything but arithmetic, a comparison or a copy of it (or of its
    views); one element taken out to be zeroed (`d = dx[i]` then `dx[i] = 0.0`) is a number,
    and writing or adding into elements makes none."""
    names, changed = {array}, True
    while changed:
        changed = False
        for statements in nodes.statement_lists(function):
            for index, statement in enumerate(statements):
                made = _views_made(statement, statements[index + 1:index + 2], names)
                if made is None:
                    return None
                changed |= bool(made - names)
                names |= made
    return names - {array}


def _views_made(statement, following, names):
    """The names `statement` may bind to a view of an array `names` hold (None: it escapes)."""
    def reads(node):
        return node is not None and any(isinstance(n, gast.Name) and n.id in names and
                                        isinstance(n.ctx, gast.Load) for n in nodes.walk(node))
    if isinstance(statement, (gast.AugAssign, gast.Return, gast.Pass, Comment)):
        return set()
    if isinstance(statement, (gast.If, gast.While)):
        return set()  # a test reads values; the bodies are lists of their own
    if isinstance(statement, gast.For):
        return None if reads(statement.iter) else set()
    if not isinstance(statement, gast.Assign):
        return None if reads(statement) else set()
    if not reads(statement.value):
        return set()
    value = statement.value
    if isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Compare)) or _is_copy(value):
        return set()
    if all(isinstance(t, gast.Subscript) for t in statement.targets):
        return set()  # written into an array: copied
    if isinstance(value, gast.Subscript) and following and \
            _is_write(following[0], value, gast.Assign):
        return set()  # one element taken out, then zeroed: a number
    return {n.id for t in statement.targets for n in nodes.walk(t)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


def _is_copy(value):
    return _is_call(value, "copy") or _is_call(value, "saved")


def _with_values(names, values):
    """`names` and the names the values of those of them in `values` read."""
    return set(names).union(*(nodes.names(values[n]) for n in names if n in values))


def _stores(statements, names):
    """Whether one of `statements` binds one of `names`."""
    return any(isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store) and n.id in names
               for s in statements for n in nodes.walk(s))


def _index_values(statements):
    """temporary -> its value, for the temporaries of index arithmetic (`_t8 = i + 1`) that
    `statements` assign and nothing after them in `statements` changes."""
    values = {}
    for statement in statements:
        if isinstance(statement, Comment):
            continue
        stored = {n.id for n in nodes.walk(statement) if isinstance(n, gast.Name) and
                  isinstance(n.ctx, gast.Store)}
        values = {k: v for k, v in values.items() if k not in stored and
                  not nodes.names(v) & stored}
        name = nodes.assigned_name(statement)
        if name is not None and name.startswith("_t") and \
                isinstance(statement.value, (gast.BinOp, gast.UnaryOp)) and \
                all(isinstance(n, (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp,
                                   gast.operator, gast.unaryop, gast.Load))
                    for n in nodes.walk(statement.value)) and name not in nodes.names(
                        statement.value):
            values[name] = statement.value
    return values


def _is_write(statement, part, kind, indexes=None):
    """`statement` is `array[index] = ...` (kind Assign) or `array[index] += ...` (AugAssign,
    Add) for the array and index of the subscript `part` (`indexes`: temporaries of index
    arithmetic, compared by their values)."""
    if kind is gast.Assign:
        if not (isinstance(statement, gast.Assign) and len(statement.targets) == 1):
            return False
        target = statement.targets[0]
    else:
        if not (isinstance(statement, gast.AugAssign) and isinstance(statement.op, gast.Add)):
            return False
        target = statement.target
    if not (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) and
            target.value.id == part.value.id):
        return False
    if nodes.same(target.slice, part.slice):
        return True
    return bool(indexes) and nodes.same(nodes.substituted(target.slice, indexes),
                                        nodes.substituted(part.slice, indexes))


def _only_adds_into(statement, array, shared, fixed):
    """A simple statement that reads nothing of `array` (nor of the names `shared` with it)
    and uses it only as the target of `array[...] += value`, and rebinds none of the names
    `fixed`."""
    if isinstance(statement, Comment):
        return True
    if not isinstance(statement, (gast.Assign, gast.AugAssign, gast.Expr)):
        return False
    targets = statement.targets if isinstance(statement, gast.Assign) else \
        [getattr(statement, "target", None)]
    for target in targets:
        if target is None:
            continue
        stored = {n.id for n in nodes.walk(target) if isinstance(n, gast.Name)
                  and isinstance(n.ctx, gast.Store)}
        if stored & (fixed | {array}):
            return False
    allowed = set()
    if isinstance(statement, gast.AugAssign) and isinstance(statement.op, gast.Add) and \
            isinstance(statement.target, gast.Subscript) and \
            isinstance(statement.target.value, gast.Name):
        allowed.add(id(statement.target.value))
    return not any(isinstance(n, gast.Name) and (n.id == array and id(n) not in allowed or
                                                 n.id in shared) for n in nodes.walk(statement))


def extremum_in_place(function, owners):
    """`dz[r] += rt.extremum_grad(g, z_r, peak, None)` -> `rt.add_extremum_grad(dz[r], g, z_r,
    peak)`: the gradient of a max goes into the row of a private gradient array where it
    belongs, without an array of it made first (the same additions)."""
    for statements in nodes.statement_lists(function):
        for index, statement in enumerate(statements):
            value = getattr(statement, "value", None)
            if isinstance(statement, gast.AugAssign) and isinstance(statement.op, gast.Add) and \
                    facts.BASIC.of(statement) and \
                    isinstance(statement.target.value, gast.Name) and \
                    statement.target.value.id in owners and _is_call(value, "extremum_grad") \
                    and len(value.args) == 4 and isinstance(value.args[3], gast.Constant) and \
                    value.args[3].value is None and (facts.RANK.of(value, 0) or 0) >= 1:
                view = gast.Subscript(nodes.clone(statement.target.value),
                                      nodes.clone(statement.target.slice), gast.Load())
                call = nodes.call("rt.add_extremum_grad", view, *value.args[:3])
                statements[index] = gast.copy_location(gast.Expr(call), statement)


def _is_call(node, helper):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
        node.func.attr == helper and isinstance(node.func.value, gast.Name) and \
        node.func.value.id == "rt"
