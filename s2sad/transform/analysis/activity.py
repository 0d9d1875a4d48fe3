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
- `facts.VARIED`: the varied names it reads; `facts.ACTIVE`: whether it gets an adjoint (for an
  `if` or a loop: whether anything inside does, or kills);
- `facts.KILLS`, on an inactive assignment: the names it assigns whose adjoint may be nonzero
  after it; the backward sweep drops them there (the old values get no gradient from later);
- `facts.LIVE`: names varied and useful just before it (a loop: at its head), whose adjoints the
  backward sweep must carry across it;
- `facts.DEFINED` / `facts.MAYBE`: names certainly / possibly assigned before it (a value can be
  saved only where it exists).
An in-place write `a[i] = v` makes `a` varied when `v` is, and never kills `a`.
"""
import gast

from .. import facts, nodes

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
        facts.VARIED_HEAD.put(statement, set(varied))
        return _varied_block(statement.body, varied) | _varied_block(statement.orelse, varied)
    if isinstance(statement, (gast.For, gast.While)):
        counter = loop_target(statement)
        head = set(varied) - counter
        while True:
            out = _varied_block(statement.body, head) - counter
            if out <= head:
                facts.VARIED_HEAD.put(statement, head)
                return head
            head = head | out
    reads = names_read(statement.value)
    facts.VARIED.put(statement, reads & varied)
    carries = bool(facts.VARIED.of(statement)) and propagates(statement.value) and \
        not facts.CUT.of(statement)  # a write into an integer array (clogs.py)
    varied = set(varied)
    if isinstance(statement, gast.Return):
        return varied
    array = written_array(statement)
    if array is not None:
        carries = carries or (array in varied and not facts.CUT.of(statement))
        (varied.add if carries else varied.discard)(array)
    else:
        for target in targets(statement):
            (varied.add if carries else varied.discard)(target)
    facts.RESULT_VARIED.put(statement, carries)
    return varied


# ---- backward: useful and active ----------------------------------------------------------------

def _useful_block(statements, useful):
    for statement in reversed(statements):
        useful = _useful(statement, useful)
    return useful


def _useful(statement, useful):
    if isinstance(statement, gast.If):
        before = _useful_block(statement.body, useful) | _useful_block(statement.orelse, useful)
        facts.ACTIVE.put(statement, _any_active(statement.body + statement.orelse))
        facts.LIVE.put(statement, before & facts.VARIED_HEAD.of(statement))
        return before
    if isinstance(statement, (gast.For, gast.While)):
        head = set(useful)
        while True:
            before = _useful_block(statement.body, head) | useful
            if before <= head:
                break
            head = head | before
        facts.ACTIVE.put(statement, _any_active(statement.body))
        facts.LIVE.put(statement, head & facts.VARIED_HEAD.of(statement))
        return head
    if isinstance(statement, gast.Return):
        facts.ACTIVE.put(statement, bool(facts.VARIED.of(statement)))
        return useful | names_read(statement.value)
    useful = set(useful)
    array = written_array(statement)
    if array is not None:  # a partial write: `array` stays useful as it was
        facts.ACTIVE.put(statement, facts.RESULT_VARIED.of(statement) and array in useful)
    else:
        assigned = targets(statement)
        facts.ACTIVE.put(statement, facts.RESULT_VARIED.of(statement) and bool(assigned & useful))
        if not facts.ACTIVE.of(statement):  # its targets' later adjoints must not reach old values
            facts.KILLS.put(statement, assigned & useful)
        useful -= assigned
    if facts.ACTIVE.of(statement):
        useful |= facts.VARIED.of(statement)
    return useful


def _any_active(statements):
    """Whether a branch or loop body has work in the backward sweep: an adjoint block, or an
    adjoint to drop where a name gets a value without gradient (`if c: s = 0.0`)."""
    return any(facts.ACTIVE.of(s) or facts.KILLS.of(s)
               for s in statements)


# ---- forward: where names hold values ---------------------------------------------------------

def _defined_block(statements, defined, maybe):
    for statement in statements:
        defined, maybe = _defined(statement, defined, maybe)
    return defined, maybe


def _defined(statement, defined, maybe):
    facts.DEFINED.put(statement, frozenset(defined))
    facts.MAYBE.put(statement, frozenset(maybe))
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
        facts.MAYBE.put(statement, frozenset(head - counter))
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
        rule = templates.rule_for(facts.REF.of(value))
        return rule is None or rule.kind != "nondifferentiable"
    if isinstance(value, gast.BinOp) and isinstance(value.op, gast.FloorDiv):
        return False  # piecewise constant
    return True


# Calls that take an array of indices after their first argument (numpy's and rt's names).
_TAKING_INDICES = frozenset({"take", "put", "take_along_axis", "put_along_axis", "add_at",
                             "compress", "choose", "delete", "insert"})


# Calls whose result is an array of bools.
_PREDICATES = frozenset({"isnan", "isinf", "isfinite", "logical_and", "logical_or",
                         "logical_not", "logical_xor", "isclose", "signbit", "greater",
                         "greater_equal", "less", "less_equal", "equal", "not_equal"})


def maybe_not_float(tree):
    """The names that may hold ints or bools in `tree`: those used as an index (in a
    subscript's index, or as an index argument of `numpy.take`-like calls) and those assigned
    a comparison or a predicate (`w > 0.0`, `numpy.isnan(x)`). A tape of float64 (Numba's
    rows and entries) cannot keep them."""
    found = set()
    for node in nodes.walk(tree):
        if isinstance(node, gast.Subscript):
            found |= {n.id for n in nodes.walk(node.slice) if isinstance(n, gast.Name)}
        elif isinstance(node, gast.Call) and (nodes.dotted_parts(node.func) or [""])[-1] in \
                _TAKING_INDICES:
            found |= {a.id for a in node.args[1:] if isinstance(a, gast.Name)}
        elif isinstance(node, gast.Assign) and (
                isinstance(node.value, (gast.Compare, gast.BoolOp)) or
                isinstance(node.value, gast.UnaryOp) and isinstance(node.value.op, gast.Not) or
                isinstance(node.value, gast.Call) and
                (nodes.dotted_parts(node.value.func) or [""])[-1] in _PREDICATES):
            found |= targets(node)
    return found
