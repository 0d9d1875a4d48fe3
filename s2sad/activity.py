"""Stage 5: which values need a gradient.

A value is *varied* when it depends on a `wrt` parameter, and *useful* when the returned value
depends on it; a statement is *active* when its result is both. Only active statements get an
adjoint block, and they contribute only to varied arguments. The analysis is flow-sensitive: a
name is judged at each assignment, so reusing a name for a constant does not make it active.

    def f(x, n):                      varied  useful  active
        m = n * 2                     no      yes     no     (n is not w.r.t.)
        y = numpy.sin(x) * m          yes     yes     yes
        s = x.shape                   no      no      no     (shape carries no gradient)
        return y

Each ANF statement gets `s2sad_active` (bool) and `s2sad_varied` (the varied names it reads).
"""
import gast

from . import templates


def analyse(body, wrt):
    """Annotate the ANF `body` for the parameters named in `wrt`."""
    varied = set(wrt)
    for statement in body:
        reads = names_read(statement.value)
        statement.s2sad_varied = reads & varied
        carries = bool(statement.s2sad_varied) and propagates(statement.value)
        for target in targets(statement):
            (varied.add if carries else varied.discard)(target)
        statement.s2sad_result_varied = carries
    useful = set()
    for statement in reversed(body):
        if isinstance(statement, gast.Return):
            statement.s2sad_active = bool(statement.s2sad_varied)
            useful |= names_read(statement.value)
            continue
        assigned = targets(statement)
        statement.s2sad_active = statement.s2sad_result_varied and bool(assigned & useful)
        useful -= assigned
        if statement.s2sad_active:
            useful |= statement.s2sad_varied
    return body


def targets(statement):
    """Names a statement assigns."""
    if isinstance(statement, gast.Return):
        return set()
    return {node.id for target in statement.targets for node in gast.walk(target)
            if isinstance(node, gast.Name)}


def names_read(node):
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name)
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
    if isinstance(value, gast.Call):
        rule = templates.rule_for(getattr(value, "s2sad_ref", None))
        return rule is None or rule.kind != "nondifferentiable"
    return True
