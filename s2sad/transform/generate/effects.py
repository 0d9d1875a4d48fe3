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

Objects' fields held in cells (facts.CELLS: `self.n_fe += 1` writes `self_n_fe[0]`) change as
the user's function changes them, once per call: a generated function works on a copy of each
cell its body uses (a callee's adjoint runs its forward sweep again, and the backward sweep may
put old values back), and leaves the copy's value in the cell it was given where its forward
sweep ends (`cells`).

    # self_n_fe holds self.n_fe: work on a copy; self_n_fe_given gets its value at the end
    self_n_fe_given = self_n_fe
    self_n_fe = self_n_fe.copy()
    ...
    self_n_fe_given[0] = self_n_fe[0]
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


def cells(source, body, params, namer):
    """(statements that start the function, statements that end its forward sweep) for the
    parameters of `params` holding objects' fields in cells that `body` uses; and those
    parameters."""
    held = facts.CELLS.of(source.tree) or {}
    used = {n.id for s in body for n in nodes.walk(s) if isinstance(n, gast.Name)}
    start, end, copied = [], [], []
    for p in params:
        if p not in held or p not in used:
            continue
        given = namer.fresh(f"{p}_given")
        start += [nodes.Comment(f"{p} holds {held[p]}: work on a copy; {given} gets its value "
                                "at the end"),
                  nodes.assign(given, nodes.name(p)),
                  nodes.assign(p, gast.Call(gast.Attribute(nodes.name(p), "copy", gast.Load()),
                                            [], []))]
        end.append(gast.Assign([gast.Subscript(nodes.name(given), gast.Constant(0, None),
                                               gast.Store())],
                               gast.Subscript(nodes.name(p), gast.Constant(0, None),
                                              gast.Load()), None))
        copied.append(p)
    if end:
        end.insert(0, nodes.Comment("the objects' fields as the function leaves them"))
    return start, end, copied
