"""Stage 7: tidy what templates produce, without changing a single value.

Filling `d[x] = d[z] * y * x ** (y - 1)` with `y = 2` gives `dz * 2 * x ** (2 - 1)`; folding the
literal arithmetic gives `dz * 2 * x`. Only rewrites that are exact in floating point are made
(`e ** 1 -> e`, `e * 1 -> e`, literal arithmetic on ints; exact.py's after folding); nothing
is reordered. A template reading one element of a tuple result's adjoint gets that element:

    dx = d_t0 * 2 * x ** (2 - 1)                        -->  dx = d_t0 * 2 * x
    d_t5 = rt.logdet_grad((rt.zeros_like(sign), dlogdet)[1], _t5)  -->  ...(dlogdet, _t5)
"""
import gast

from . import nodes
from . import copies, counted, exact, fold, liveness, spreads, summed_first
from .nodes import Comment, dotted_parts

_FOLD = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b,
         gast.Mult: lambda a, b: a * b}


def tidy(function):
    """Fold literal integer arithmetic, drop `** 1` and `* 1`, index tuple displays,
    accumulate private gradient arrays in place, then fold single-use temporaries back into the
    expressions that read them (fold.py), and read names where temporaries copied them
    (copies.py)."""
    shapes = getattr(function, "s2sad_shapes", {})
    function = _Folder().visit(function)
    owners = accumulate_in_place(function)
    _keep_in_place(function, function, {})
    spreads.spread_names_once(function, shapes)
    _drop_dead_temporaries(function)  # (a trip count no tape needed reads what folds)
    function = fold.fold(function, owners)
    exactness = exact.Exact()
    function = exactness.visit(function)
    summed_first.rewrite(function)
    for node in nodes.walk(function):  # what folding brought together
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
            spreads.spread_once(node, shapes)
        elif isinstance(node, gast.AugAssign) and isinstance(node.op, gast.Add) and \
                spreads.whole_spread(node.value):
            node.value = node.value.args[0]  # `da[k] += g` spreads g over what it adds into
            exact.after_folding(node)        # `da[k] += -g * c` -> `da[k] -= g * c`
    liveness.drop_dead_put_backs(function)
    unkept = _drop_unread_stacks(function)
    if unkept:
        _drop_idle_counters(function)
    if unkept or exactness.doubled:  # what they kept, or what `2 * (g * w)` reads once, may
        function = fold.fold(function, owners)  # fold now
    copies.propagate(function)
    _extremum_in_place(function, owners)
    copies.drop_repeats(function)
    copies.drop_private_copies(function)
    _drop_dead_temporaries(function)
    _drop_bare_comments(function)
    return function


def _extremum_in_place(function, owners):
    """`dz[r] += rt.extremum_grad(g, z_r, peak, None)` -> `rt.add_extremum_grad(dz[r], g, z_r,
    peak)`: the gradient of a max goes into the row of a private gradient array where it
    belongs, without an array of it made first (the same additions)."""
    for statements in nodes.statement_lists(function):
        for index, statement in enumerate(statements):
            value = getattr(statement, "value", None)
            if isinstance(statement, gast.AugAssign) and isinstance(statement.op, gast.Add) and \
                    getattr(statement, "s2sad_basic", False) and \
                    isinstance(statement.target.value, gast.Name) and \
                    statement.target.value.id in owners and _is_call(value, "extremum_grad") \
                    and len(value.args) == 4 and isinstance(value.args[3], gast.Constant) and \
                    value.args[3].value is None and (getattr(value, "s2sad_rank", 0) or 0) >= 1:
                view = gast.Subscript(nodes.clone(statement.target.value),
                                      nodes.clone(statement.target.slice), gast.Load())
                call = nodes.call("rt.add_extremum_grad", view, *value.args[:3])
                statements[index] = gast.copy_location(gast.Expr(call), statement)


def _drop_bare_comments(function):
    """A `# grad of:` comment with no code under it (what it had was tidied away, or the next
    lines belong to a loop of its own comment) goes."""
    for statements in nodes.statement_lists(function):
        bare = [s for s, after in zip(statements, statements[1:] + [None])
                if isinstance(s, Comment) and s.text.startswith("grad of: ") and
                (after is None or isinstance(after, Comment))]
        if bare:
            nodes.keep_only(statements, [s for s in statements if s not in bare])


def _drop_idle_counters(function):
    """A trip counter of counted.py (`_n0 = _n0 + 1`) that no stack reads any more (the stacks
    it indexed were dropped) goes."""
    counters = {n.id for n in nodes.walk(function) if isinstance(n, gast.Name) and
                counted.is_counter(n.id)}
    for statement in nodes.walk(function):
        if isinstance(statement, gast.stmt) and not _counter_statement(statement):
            for node in nodes.walk(statement):
                if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
                        not isinstance(node, gast.stmt):
                    counters.discard(node.id)
    for statements in nodes.statement_lists(function):
        keep = [s for s in statements if _counter_statement(s) not in counters]
        if len(keep) != len(statements):
            nodes.keep_only(statements, keep)


def _counter_statement(statement):
    """The counter a statement sets (`_n0 = 0`, `_n0 = _n0 + 1`, `_n0 = _n0 - 1`), or None."""
    if isinstance(statement, gast.Assign) and len(statement.targets) == 1 and \
            isinstance(statement.targets[0], gast.Name) and \
            counted.is_counter(statement.targets[0].id):
        value = statement.value
        if isinstance(value, gast.Constant) or isinstance(value, gast.BinOp) and \
                isinstance(value.left, gast.Name) and \
                value.left.id == statement.targets[0].id:
            return statement.targets[0].id
    return None


def _drop_dead_temporaries(function):
    """A temporary that nothing reads any more (`_t17 = 3 * hidden`, whose value folding put
    where it was read) goes, with what only it read, when computing it has no effect."""
    while True:
        read = nodes.names_loaded(function)
        dropped = False
        for statements in nodes.statement_lists(function):
            keep = [s for s in statements if not _dead(s, read)]
            if len(keep) != len(statements):
                nodes.keep_only(statements, keep)
                dropped = True
        if not dropped:
            return


def _dead(statement, read):
    if not (isinstance(statement, gast.Assign) and len(statement.targets) == 1):
        return False
    target = statement.targets[0]
    return isinstance(target, gast.Name) and target.id not in read and \
        (target.id.lstrip("d").startswith("_t") or copies.PROTECTED.match(target.id)) and \
        _no_effect(statement.value)


def _no_effect(node):
    """Arithmetic on names and constants, subscripts and attributes of names: nothing that
    can raise or write (a call can)."""
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    if isinstance(node, gast.BinOp):
        return not isinstance(node.op, (gast.Div, gast.FloorDiv, gast.Mod, gast.MatMult,
                                        gast.Pow)) and \
            _no_effect(node.left) and _no_effect(node.right)
    if isinstance(node, gast.UnaryOp):
        return _no_effect(node.operand)
    if isinstance(node, gast.Call) and nodes.dotted_parts(node.func) == ["len"] and \
            len(node.args) == 1 and isinstance(node.args[0], gast.Call) and \
            nodes.dotted_parts(node.args[0].func) == ["range"]:
        # a trip count (`_trips2 = len(range(1, n))`): the loop after it raises what it raises
        return all(_no_effect(a) for a in node.args[0].args) and not node.args[0].keywords
    return False


def _drop_unread_stacks(function):
    """A value kept on a stack that the backward sweep no longer reads once tidied (it was kept
    for its shape: `rt.unreduce(g, _t29, None)` became `g`), or that each pop puts back only
    for another value to be put back before any read (`v = _stack_v_1[i]` in a branch, then
    `v = _stack_v[i]` after it), is kept no more: its pushes, pops (`x = _stack_x.pop()` or
    `x = _stack_x[t]`) and the stack go. Whether any went."""
    body = function.body
    start = next((k for k, s in enumerate(body) if isinstance(s, Comment) and
                  "backward sweep" in s.text), None)
    if start is None:
        return False
    read = {n.id for s in body[start:] for n in nodes.walk(s)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
    own, pops = {}, {}  # stack -> ids of the statements that only handle it; its pops
    for statements in nodes.statement_lists(function):
        for statement in statements:
            stack, popped = _stack_statement(statement)
            if stack is not None:
                own.setdefault(stack, set()).add(id(statement))
                if popped is not None:
                    pops.setdefault(stack, []).append((statement, popped))
    used = set()  # stacks read anywhere else
    for statements in nodes.statement_lists(function):
        for statement in statements:
            if _stack_statement(statement)[0] is None and \
                    not isinstance(statement, (gast.If, gast.For, gast.While)):
                used |= nodes.names(statement) & own.keys()
    overwritten = _Overwritten(function)
    dead = {stack for stack in own if stack not in used and  # no pop left: dead too
            all(popped not in read or overwritten(statement, popped)
                for statement, popped in pops.get(stack, ()))}
    if not dead:
        return False
    gone = set().union(*(own[stack] for stack in dead))
    for statements in nodes.statement_lists(function):
        if any(id(s) in gone for s in statements):
            nodes.keep_only(statements, [s for s in statements if id(s) not in gone])
    for statements in nodes.statement_lists(function):  # room checks of tapes that went
        checks = [s for s in statements if counted.is_room_check(s)]
        for check in checks:
            if check.body:  # test the length of a tape that is still there
                check.test.comparators = [gast.Call(nodes.name("len"), [nodes.name(
                    check.body[0].targets[0].id)], [])]
        if any(not c.body for c in checks):
            nodes.keep_only(statements, [s for s in statements if s not in checks or s.body])
    return True


class _Overwritten:
    """`overwritten(statement, name)`: whether the value `statement` gives `name` is assigned
    over before anything reads it, on the way from `statement` to the end of its branch and
    after it (not across a loop's next trip)."""

    def __init__(self, function):
        self.function = function
        self.where, self.owner = {}, {}  # id(statement) -> (its list, index); id(list) -> node
        for node in [function] + [n for n in nodes.walk(function)
                                  if isinstance(n, (gast.If, gast.For, gast.While))]:
            for field in ("body", "orelse"):
                statements = getattr(node, field, None)
                if isinstance(statements, list):
                    self.owner[id(statements)] = node
                    for k, statement in enumerate(statements):
                        self.where[id(statement)] = (statements, k)

    def __call__(self, statement, name):
        statements, k = self.where[id(statement)]
        while True:
            for later in statements[k + 1:]:
                if name in nodes.names(later):
                    return isinstance(later, gast.Assign) and len(later.targets) == 1 and \
                        isinstance(later.targets[0], gast.Name) and \
                        later.targets[0].id == name and name not in _names_in(later.value)
            owner = self.owner[id(statements)]
            if not isinstance(owner, gast.If):
                return owner is self.function  # a loop's next trip may read it
            statements, k = self.where[id(owner)]


def _names_in(expression):
    return nodes.names(expression)


def _stack_statement(statement):
    """(the stack, the name a pop assigns or None) of a statement that only declares a stack,
    pushes to it or pops from it: `_stack_x = []`, `_stack_x = numpy.empty(...)`,
    `_stack_x = rt.keep_row(_stack_x, ...)` (or rt.push...), `_stack_x.append(x)`,
    `_stack_x[t] = x`, `x = _stack_x.pop()`, `x = _stack_x[t]`, `x = rt.entry(_stack_x, _n0)`,
    `_stack_x = rt.grown(_stack_x, _n0)` (in a room check, counted.py);
    (None, None) for any other."""
    if isinstance(statement, gast.Expr) and _stack_call(statement.value, "append"):
        return statement.value.func.value.id, None
    if not (isinstance(statement, gast.Assign) and len(statement.targets) == 1):
        return None, None
    target, value = statement.targets[0], statement.value
    if _is_stack(target):
        return target.id, None
    if isinstance(target, gast.Subscript) and _is_stack(target.value):
        return target.value.id, None
    if isinstance(target, gast.Name):
        if _stack_call(value, "pop"):
            return value.func.value.id, target.id
        if isinstance(value, gast.Subscript) and _is_stack(value.value):
            return value.value.id, target.id
        if isinstance(value, gast.Call) and dotted_parts(value.func) == ["rt", "entry"] and \
                value.args and _is_stack(value.args[0]):
            return value.args[0].id, target.id
    return None, None


def _is_stack(node):
    return isinstance(node, gast.Name) and node.id.startswith("_stack")


def _stack_call(node, method):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
        node.func.attr == method and isinstance(node.func.value, gast.Name) and \
        node.func.value.id.startswith("_stack")



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


class _Folder(nodes.Transformer):
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
