"""Give every loop and the function one exit, and unroll loops over tuple displays.

`break`, `continue` and early `return`s become flags; what follows a possible exit runs under
`if not <flag>:`. A loop then always ends after its last iteration (its trip count is all the
backward sweep needs), and an `if` always runs one of its branches (its flag is all it needs).
When a branch always exits, what follows goes into the other branch instead of under a guard:

    def f(x, n):                            def f(x, n):
        for i in range(n):                      _returned = False
            if x > 9.0:                         _break0 = False
                break                           for i in range(n):
            if x < 0.0:              -->            if x > 9.0:
                return -x                               _break0 = True
            x = x * 2.0                             else:
        return x                                        if x < 0.0:
                                                            _result = -x
                                                            _returned = True
                                                        else:
                                                            x = x * 2.0
                                                    # (the loop exits when _break0 or _returned)
                                                if not _returned:
                                                    _result = x
                                                    _returned = True
                                                return _result

The loop keeps the flags to test after each iteration in `facts.EXITS`; the backward sweep never
reads them. `for a in (x, y, z):` becomes one copy of the body per element (each element may
have its own type, which Numba could not index at run time).
"""
import gast

from s2sad.errors import Diagnostic

from .. import facts, nodes


def mixed_returns(source):
    """Diagnostics for `return`s of a single value in a function that returns a tuple display
    elsewhere, where that value cannot be a tuple (an array, a number): the function has no
    one kind of result, and unpacking the array as the tuple would be wrong."""
    returns = [n for n in nodes.walk(source.tree) if isinstance(n, gast.Return)]
    if not any(isinstance(r.value, gast.Tuple) for r in returns):
        return []
    tuples = {n.targets[0].id for n in nodes.walk(source.tree) if isinstance(n, gast.Assign)
              and isinstance(n.targets[0], gast.Name) and
              isinstance(n.value, (gast.Tuple, gast.Call, gast.Name, gast.Subscript))}
    return [Diagnostic(
        source.loc(r), "returns a single value here and a tuple elsewhere",
        why="a differentiated function returns one kind of result; here the branch taken is "
            "not known when the function is transformed",
        fix="return the same kind in every branch, or split the function in two")
        for r in returns if r.value is not None and not isinstance(r.value, gast.Tuple) and
        not isinstance(r.value, (gast.Call, gast.Subscript)) and
        not (isinstance(r.value, gast.Name) and r.value.id in tuples)]


def single_exit(tree, namer):
    """Rewrite `tree.body` (a resolved FunctionDef) in place."""
    _Exits(tree, namer).run()
    return tree


class _Loop:
    def __init__(self, namer):
        self.namer = namer
        self.brk = None
        self.cont = None

    def break_flag(self):
        self.brk = self.brk or self.namer.numbered("_break")
        return self.brk

    def continue_flag(self):
        self.cont = self.cont or self.namer.numbered("_continue")
        return self.cont


class _Exits:
    def __init__(self, tree, namer):
        self.tree = tree
        self.namer = namer
        body = tree.body
        returns = [n for n in nodes.walk(tree) if isinstance(n, gast.Return)]
        self.rewrite_returns = not (len(returns) == 1 and body and body[-1] is returns[0])
        if self.rewrite_returns:
            self.returned = namer.fresh("_returned")
            sizes = {len(r.value.elts) for r in returns if isinstance(r.value, gast.Tuple)}
            self.tuple = len(sizes) == 1  # one name per element: a tuple cannot be held
            self.results = [namer.fresh(f"_result{k}") for k in range(sizes.pop())] \
                if self.tuple else [namer.fresh("_result")]

    def run(self):
        self.tree.body = _split_sequences(self.tree, self.namer)
        body, _ = self.block(self.tree.body, None)
        if self.rewrite_returns:
            first = self.tree.body[0]
            body = [_at(nodes.assign(self.returned, nodes.constant(False)), first)] + body
            body.append(_at(gast.Return(self.result(gast.Load)), self.tree.body[-1]))
        self.tree.body = body

    def result(self, ctx):
        """`_result`, or `(_result0, _result1)` when the function returns a tuple."""
        names = [gast.Name(n, ctx(), None, None) for n in self.results]
        return gast.Tuple(names, ctx()) if self.tuple else names[0]

    def block(self, statements, loop):
        """(new statements, flags they may set)."""
        out, raised = [], set()
        statements = list(statements)
        for k, statement in enumerate(statements):
            rest = statements[k + 1:]
            if isinstance(statement, gast.If) and rest:
                statement, rest = _absorb(statement, rest)
            new, exits = self.statement(statement, loop)
            out.extend(new)
            raised |= exits
            if exits and rest:
                guarded, more = self.block(rest, loop)
                raised |= more
                if guarded:
                    out.append(_guard(exits, guarded, rest[0]))
                break
            if not rest:
                break
        return out, raised

    def statement(self, node, loop):
        """([statements], flags that may be set) for one statement."""
        if isinstance(node, gast.Break):
            return [_at(nodes.assign(loop.break_flag(), nodes.constant(True)), node)], \
                {loop.brk}
        if isinstance(node, gast.Continue):
            return [_at(nodes.assign(loop.continue_flag(), nodes.constant(True)), node)], \
                {loop.cont}
        if isinstance(node, gast.Return) and self.rewrite_returns:
            new = [gast.Assign([self.result(gast.Store)], node.value, None),
                   nodes.assign(self.returned, nodes.constant(True))]
            return [_at(s, node) for s in new], {self.returned}
        if isinstance(node, gast.If):
            body, exits = self.block(node.body, loop)
            orelse, more = self.block(node.orelse, loop)
            return [_like(gast.If(node.test, body, orelse), node)], exits | more
        if isinstance(node, (gast.For, gast.While)):
            return self.loop(node, loop)
        return [node], set()

    def loop(self, node, outer):
        inner = _Loop(self.namer)
        body, raised = self.block(node.body, inner)
        escaping = raised - {inner.brk, inner.cont}
        if inner.cont:
            body = [_at(nodes.assign(inner.cont, nodes.constant(False)), node)] + body
        stops = sorted(f for f in (inner.brk, *escaping) if f)
        before = [_at(nodes.assign(inner.brk, nodes.constant(False)), node)] if inner.brk else []
        if isinstance(node, gast.For) and isinstance(node.iter, (gast.Tuple, gast.List)):
            copies = self._unrolled(node, body, stops)
        else:
            new = _like(type(node)(**{f: getattr(node, f) for f in node._fields}), node)
            new.body, new.orelse = body, []
            facts.EXITS.put(new, stops)
            copies = [new]
        after = []
        if node.orelse:
            orelse, more = self.block(node.orelse, outer)
            escaping |= more
            after = [_guard(stops, orelse, node.orelse[0])] if stops else orelse
        return before + copies + after, escaping

    def _unrolled(self, node, body, stops):
        """The copies, after binding the elements that read a name the loop rebinds: Python
        evaluates the tuple once, before the first iteration."""
        out = []
        rebound = {n.id for part in [node.target, *node.body] for n in nodes.walk(part)
                   if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        elements = []
        for element in node.iter.elts:
            if nodes.names(element) & rebound:
                item = self.namer.numbered("_item")
                out.append(_at(nodes.assign(item, element), node))
                element = nodes.name(item)
            elements.append(element)
        for k, element in enumerate(elements):
            copy = [_at(gast.Assign([nodes.clone(node.target)], element, None), node)]
            copy += nodes.clone(body)
            if k and stops:
                copy = [_guard(stops, copy, node)]
            out.extend(copy)
        return out


def _split_sequences(tree, namer):
    """`xs = [a, b * 2]` used only as `for x in xs:` -> `xs_0 = a; xs_1 = b * 2` and
    `for x in (xs_0, xs_1):`, so the loop can be unrolled over values of different types."""
    body = list(tree.body)
    stores, loads, iterated = {}, {}, {}
    for node in nodes.walk(tree):
        if isinstance(node, gast.Name):
            counts = stores if isinstance(node.ctx, gast.Store) else loads
            counts[node.id] = counts.get(node.id, 0) + 1
        if isinstance(node, gast.For) and isinstance(node.iter, gast.Name):
            iterated.setdefault(node.iter.id, []).append(node)
    for k, statement in enumerate(body):
        if not (isinstance(statement, gast.Assign) and len(statement.targets) == 1 and
                isinstance(statement.targets[0], gast.Name) and
                isinstance(statement.value, (gast.List, gast.Tuple))):
            continue
        name = statement.targets[0].id
        if stores.get(name) != 1 or loads.get(name, 0) != len(iterated.get(name, ())):
            continue
        parts = [namer.fresh(f"{name}_{i}") for i in range(len(statement.value.elts))]
        body[k] = [_at(nodes.assign(part, element), statement)
                   for part, element in zip(parts, statement.value.elts)]
        for loop in iterated[name]:
            loop.iter = gast.copy_location(
                gast.Tuple([nodes.name(part) for part in parts], gast.Load()), loop.iter)
    return [s for item in body for s in (item if isinstance(item, list) else [item])]


def _absorb(statement, rest):
    """`if c: ...exit...` followed by `rest` -> `if c: ...exit... else: <orelse> + rest`."""
    if _always_exits(statement.body):
        new = _like(gast.If(statement.test, statement.body, list(statement.orelse) + rest),
                    statement)
        return new, []
    if statement.orelse and _always_exits(statement.orelse):
        new = _like(gast.If(statement.test, list(statement.body) + rest, statement.orelse),
                    statement)
        return new, []
    return statement, rest


def _always_exits(statements):
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, (gast.Break, gast.Continue, gast.Return)):
        return True
    if isinstance(last, gast.If):
        return _always_exits(last.body) and _always_exits(last.orelse)
    return False


def _guard(flags, statements, like):
    """`if not (flags): statements`, run only when no exit happened."""
    guard = _at(gast.If(nodes.negation(sorted(flags)), statements, []), like)
    facts.GUARD.put(guard, True)
    return guard


def _at(statement, like):
    gast.copy_location(statement, like)
    facts.ORIGIN.put(statement, facts.ORIGIN.of(like, like))
    return statement


def _like(new, old):
    gast.copy_location(new, old)
    facts.carry(new, old)
    return new
