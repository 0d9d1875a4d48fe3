"""`print(...)`, `raise ...` and bare calls of the user's functions written back as the user
wrote them, once the sweeps are built.

normalize.py holds each as an assignment to a name nothing reads (facts.EFFECT), so that every
analysis sees a plain, inactive statement: no adjoint, nothing kept. The forward sweep runs it
where the user's function did; the backward sweep has nothing for it.

    _effect0 = print("y is", y)             -->    print("y is", y)
    _effect1 = ValueError("too long")       -->    raise ValueError("too long")
    _effect2 = check(x)                     -->    check(x)

`quiet`: a callee's adjoint, which runs the callee's forward sweep again after the caller's
forward sweep ran its primal copy, prints nothing (a print runs once per call of the user's
function); it still raises where the primal copy would have raised.
"""
import gast

from .. import facts, nodes


def restore(function, quiet=False):
    """Write every effect of `function` back as a statement, in place."""
    for statements in nodes.statement_lists(function):
        kept = []
        for statement in statements:
            kind = facts.EFFECT.of(statement)
            if kind is None:
                kept.append(statement)
                continue
            if kind == "print" and quiet:
                continue
            written = gast.Raise(statement.value, None) if kind == "raise" else \
                gast.Expr(statement.value)
            facts.ORIGIN.put(written, facts.ORIGIN.of(statement))
            kept.append(gast.copy_location(written, statement))
        if len(kept) != len(statements) or any(a is not b for a, b in zip(kept, statements)):
            nodes.keep_only(statements, kept)
