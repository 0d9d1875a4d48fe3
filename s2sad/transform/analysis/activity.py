"""Which values need a gradient, and which names hold a value where.

A value is *varied* when it depends on a `wrt` parameter, and *useful* when the returned value
depends on it; a statement is *active* when its result is both. Only active statements get an
adjoint block, and they contribute only to varied arguments. The analysis is flow-sensitive (a
name is judged at each assignment) and runs to a fixed point around loops: a value varied at the
end of a loop body is varied at its head.

    def f(x, n):                      varied  useful  active
        m = n * 2                     no      yes     no     (n is not w.r.t.)
        y = numpy.sin(x) * m          yes     yes     yes
        s = x.shape                   no      no      no     (shape carries no gradient)
        for i in range(n):
            y = y * 0.5               yes     yes     yes    (y is varied at the loop head)
        return y

Annotations, on every ANF statement:
- `s2sad_varied`: the varied names it reads; `s2sad_active`: whether it gets an adjoint (for an
  `if` or a loop: whether anything inside does, or kills);
- `s2sad_kills`, on an inactive assignment: the names it assigns whose adjoint may be nonzero
  after it; the backward sweep drops them there (the old values get no gradient from later);
- `s2sad_live`: names varied and useful just before it (a loop: at its head), whose adjoints the
  backward sweep must carry across it;
- `s2sad_defined` / `s2sad_maybe`: names certainly / possibly assigned before it (a value can be
  saved only where it exists).
An in-place write `a[i] = v` makes `a` varied when `v` is, and never kills `a`.
"""
import gast

from .. import nodes

from s2sad import templates


def analyse(body, wrt, params):
    """Annotate the ANF `body` for the parameters named in `wrt`; return the names useful at
    entry (a `wrt` parameter missing from them has a zero gradient)."""
    _varied_block(body, set(wrt))
    useful = _useful_block(body, set())
    _defined_block(body, set(params), set(params))
    return useful


# ---- forward: varied --------------------------------------------------------------------------

def _varied_block(statements, varied):
    for statement in statements:
        varied = _varied(statement, varied)
    return varied


def _varied(statement, varied):
    if isinstance(statement, gast.If):
        statement.s2sad_varied_head = set(varied)
        return _varied_block(statement.body, varied) | _varied_block(statement.orelse, varied)
    if isinstance(statement, (gast.For, gast.While)):
        counter = loop_target(statement)
        head = set(varied) - counter
        while True:
            out = _varied_block(statement.body, head) - counter
            if out <= head:
                statement.s2sad_varied_head = head
                return head
            head = head | out
    reads = names_read(statement.value)
    statement.s2sad_varied = reads & varied
    carries = bool(statement.s2sad_varied) and propagates(statement.value) and \
        not getattr(statement, "s2sad_cut", None)  # a write into an integer array (clogs.py)
    varied = set(varied)
    if isinstance(statement, gast.Return):
        return varied
    array = written_array(statement)
    if array is not None:
        carries = carries or (array in varied and not getattr(statement, "s2sad_cut", None))
        (varied.add if carries else varied.discard)(array)
    else:
        for target in targets(statement):
            (varied.add if carries else varied.discard)(target)
    statement.s2sad_result_varied = carries
    return varied


# ---- backward: useful and active ----------------------------------------------------------------

def _useful_block(statements, useful):
    for statement in reversed(statements):
        useful = _useful(statement, useful)
    return useful


def _useful(statement, useful):
    if isinstance(statement, gast.If):
        before = _useful_block(statement.body, useful) | _useful_block(statement.orelse, useful)
        statement.s2sad_active = _any_active(statement.body + statement.orelse)
        statement.s2sad_live = before & statement.s2sad_varied_head
        return before
    if isinstance(statement, (gast.For, gast.While)):
        head = set(useful)
        while True:
            before = _useful_block(statement.body, head) | useful
            if before <= head:
                break
            head = head | before
        statement.s2sad_active = _any_active(statement.body)
        statement.s2sad_live = head & statement.s2sad_varied_head
        return head
    if isinstance(statement, gast.Return):
        statement.s2sad_active = bool(statement.s2sad_varied)
        return useful | names_read(statement.value)
    useful = set(useful)
    array = written_array(statement)
    if array is not None:  # a partial write: `array` stays useful as it was
        statement.s2sad_active = statement.s2sad_result_varied and array in useful
    else:
        assigned = targets(statement)
        statement.s2sad_active = statement.s2sad_result_varied and bool(assigned & useful)
        if not statement.s2sad_active:  # its targets' later adjoints must not reach old values
            statement.s2sad_kills = assigned & useful
        useful -= assigned
    if statement.s2sad_active:
        useful |= statement.s2sad_varied
    return useful


def _any_active(statements):
    """Whether a branch or loop body has work in the backward sweep: an adjoint block, or an
    adjoint to drop where a name gets a value without gradient (`if c: s = 0.0`)."""
    return any(getattr(s, "s2sad_active", False) or getattr(s, "s2sad_kills", None)
               for s in statements)


# ---- forward: where names hold values ---------------------------------------------------------

def _defined_block(statements, defined, maybe):
    for statement in statements:
        defined, maybe = _defined(statement, defined, maybe)
    return defined, maybe


def _defined(statement, defined, maybe):
    statement.s2sad_defined, statement.s2sad_maybe = frozenset(defined), frozenset(maybe)
    if isinstance(statement, gast.If):
        d1, m1 = _defined_block(statement.body, defined, maybe)
        d2, m2 = _defined_block(statement.orelse, defined, maybe)
        return d1 & d2, m1 | m2
    if isinstance(statement, (gast.For, gast.While)):
        counter = loop_target(statement)
        head = set(maybe) | counter
        while True:
            _, out = _defined_block(statement.body, defined | counter, head)
            if out <= head:
                break
            head |= out
        statement.s2sad_maybe = frozenset(head - counter)
        _defined_block(statement.body, defined | counter, head)  # final annotations
        return set(defined), head
    if isinstance(statement, gast.Return) or written_array(statement) is not None:
        return defined, maybe
    assigned = targets(statement)
    return defined | assigned, maybe | assigned


# ---- queries shared with the reverse pass ------------------------------------------------------

def targets(statement):
    """Names a statement assigns (the array of an in-place write is not assigned)."""
    if isinstance(statement, gast.Return) or written_array(statement) is not None:
        return set()
    if len(statement.targets) == 1 and isinstance(statement.targets[0], gast.Name):
        return {statement.targets[0].id}
    return {node.id for target in statement.targets for node in nodes.walk(target)
            if isinstance(node, gast.Name)}


def written_array(statement):
    """`a` for `a[...] = v`, else None."""
    if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Subscript):
        return statement.targets[0].value.id
    return None


def written_arrays(statements):
    """Names written into in place (`a[...] = v`) anywhere in `statements`."""
    return {written_array(s) for s in simple_statements(statements)} - {None}


def simple_statements(statements):
    """Every statement that is not an `if` or a loop, inside them too, in order."""
    for statement in statements:
        if isinstance(statement, gast.If):
            yield from simple_statements(statement.body)
            yield from simple_statements(statement.orelse)
        elif isinstance(statement, (gast.For, gast.While)):
            yield from simple_statements(statement.body)
        else:
            yield statement


def loop_target(loop):
    """The counter of a `for` loop (never differentiated), as a set."""
    return {loop.target.id} if isinstance(loop, gast.For) else set()


def names_read(node):
    return {n.id for n in nodes.walk(node) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Load) and n is not _call_root(node, n)}


def _call_root(tree, name):
    """The Name at the root of a call's function (`numpy` in numpy.sin), which is not data."""
    if isinstance(tree, gast.Call):
        func = tree.func
        while isinstance(func, gast.Attribute):
            func = func.value
        return func if func is name else None
    return None


def propagates(value):
    """Whether an operation's result can depend on its inputs' values."""
    if isinstance(value, gast.Attribute):
        return False  # .shape, .ndim, .size, .dtype
    if isinstance(value, (gast.Compare, gast.BoolOp)) or (
            isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.Not)):
        return False
    if isinstance(value, gast.Call):
        rule = templates.rule_for(getattr(value, "s2sad_ref", None))
        return rule is None or rule.kind != "nondifferentiable"
    if isinstance(value, gast.BinOp) and isinstance(value.op, gast.FloorDiv):
        return False  # piecewise constant
    return True
