"""Local functions put in place of their calls (part of desugar.py): a nested `def` or a
`lambda` bound to a name.

    def f(x):                               def f(x):
        total = 0.0                             total = 0.0
        def add(v):                             add_v_0 = x * 2.0
            nonlocal total          -->         add_w_0 = add_v_0 * add_v_0
            w = v * v                           total = total + add_w_0
            total = total + w                   _add0 = add_w_0
            return w                            return _add0 + total
        return add(x * 2.0) + total

Its parameters and the names it assigns are renamed apart; its free names are read where it
is called, as Python's late binding reads them; the names it declares `nonlocal` are the
enclosing function's, read and assigned as they are. It must end in its only `return`.
"""
import gast

from .. import nodes


def inline(owner, call, name):
    """The value of a call of the local function `name` (desugar's `owner` holds it), its
    body run before the statement holding the call (`owner.emit`, `owner.block`)."""
    function = owner.functions[name]
    if name in owner.inlining:
        owner.report(call, f"the local function '{name}' calls itself",
                     why="local functions are put in place of their calls",
                     fix="define it at module level")
        return call
    if isinstance(function, gast.Lambda):
        params, body = function.args, [gast.Return(nodes.clone(function.body))]
    else:
        params, body = function.args, nodes.clone(function.body)
        if not body or not isinstance(body[-1], gast.Return) or body[-1].value is None or \
                any(isinstance(n, gast.Return) for s in body[:-1] for n in nodes.walk(s)):
            owner.report(function, f"the local function '{name}' must end in its only "
                         "`return` of a value",
                         why="it is put in place of each call",
                         fix="return once, at the end (assign the result in each branch)")
            return call
    names = [a.id for a in params.args]
    if params.vararg or params.kwarg or params.kwonlyargs or params.posonlyargs or \
            call.keywords or len(call.args) > len(names) or \
            len(call.args) < len(names) - len(params.defaults):
        owner.report(call, f"cannot put the call of '{name}' in place",
                     why="only positional arguments matching the parameters are supported",
                     fix="pass one positional argument per parameter")
        return call
    arguments = list(call.args) + params.defaults[len(call.args) - len(names):] \
        if len(call.args) < len(names) else list(call.args)
    shared = nonlocal_names(body)
    body = without_nonlocal(body)
    assigned = {n.id for s in body for n in nodes.walk(s) if isinstance(n, gast.Name)
                and isinstance(n.ctx, gast.Store)} - shared
    renames = {n: owner.fresh(f"{name}_{n}") for n in sorted(set(names) | assigned)}
    for param, argument in zip(names, arguments):
        owner.emit(nodes.assign(renames[param], argument), call)
    body = [nodes.rename(s, renames) for s in body]
    if isinstance(function, gast.Lambda):  # (a lambda's code is where it is called)
        for statement in body:
            for node in nodes.walk(statement):
                if isinstance(node, (gast.stmt, gast.expr)):
                    gast.copy_location(node, call)
    result = owner.fresh(f"_{name}")
    body[-1] = gast.copy_location(nodes.assign(result, body[-1].value), body[-1])
    owner.inlining.append(name)
    outer, owner.pre = owner.pre, []
    statements = owner.block(body)
    outer += statements
    owner.pre = outer
    owner.inlining.pop()
    return gast.copy_location(nodes.name(result), call)


def nonlocal_names(body):
    """The names a local function's own `nonlocal` statements declare (not a nested def's)."""
    names = set()
    for statement in body:
        if isinstance(statement, gast.Nonlocal):
            names.update(statement.names)
        elif not isinstance(statement, (gast.FunctionDef, gast.ClassDef)):
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    names |= nonlocal_names(inner)
    return names


def without_nonlocal(body):
    """`body` without its `nonlocal` statements, at any depth of its blocks."""
    kept = [s for s in body if not isinstance(s, gast.Nonlocal)]
    for statement in kept:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(statement, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt) and \
                    not isinstance(statement, gast.FunctionDef):
                setattr(statement, field, without_nonlocal(inner))
    return kept
