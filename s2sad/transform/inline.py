"""Stage 3b: a small function of yours, called as a statement of its own, is put in place of the
call. The gradient is then one generated function instead of three (the caller's, the callee's
primal copy and its adjoint): nothing runs the callee's forward sweep a second time, Numba
compiles one function, and the code reads as a person inlining it by hand would write it:

    def sigmoid(z):                             # i_gate = sigmoid(gates[:hidden])   [f.py:12]
        return 1.0 / (1.0 + np.exp(-z))   -->   i_gate = 1.0 / (1.0 + numpy.exp(-gates[:hidden]))

    i_gate = sigmoid(gates[:hidden])

Small means: defined in the same file, no closure, at most MAX_STATEMENTS statements (those in
an `if` or a loop counted) of assignments to names, `if`s and loops, and then one `return` (no
other `return`, no `with`), calling no function of yours and none with a rule of yours (a leaf),
and called with one positional argument per parameter. A callee with a loop inlined so keeps
its values on the caller's tape, in the caller's loops: its forward sweep runs once. Anything
else stays a call to its own generated adjoint, whose forward sweep runs again in the backward
sweep.

The callee's names are renamed apart from the caller's (its own name where it is free, else
`<callee>_<name>`). A parameter becomes the caller's argument itself where that is a name the
callee does not reassign, or an expression the callee reads once; otherwise a new name is bound
to the argument first. The callee's statements keep their own positions (parse.FOREIGN), so a
diagnostic or a `# ... [file.py:LINE]` comment inside them points into the callee; the final
assignment is the caller's statement, with the caller's comment.
"""
import gast

from s2sad.errors import S2sadError

from . import desugar, fence, nodes, parse, resolve

MAX_STATEMENTS = 12


def inline(source, callees):
    """Put every inlinable call of `source.tree` in place, in place; returns the callees still
    called (emitted name -> function)."""
    taken = {n.id for n in nodes.walk(source.tree) if isinstance(n, gast.Name)} | \
        {a.id for a in resolve.parameters(source.tree.args)}
    _Inliner(source, taken).block(source.tree.body)
    still = {getattr(n, "s2sad_ref", None) for n in nodes.walk(source.tree)
             if isinstance(n, gast.Call) and getattr(n, "s2sad_user", False)}
    return {name: f for name, f in callees.items() if f in still}


class _Inliner:
    def __init__(self, source, taken):
        self.source = source
        self.taken = taken
        self.plans = {}   # function -> parsed-and-resolved callee, or None (not inlinable)

    def block(self, statements):
        index = 0
        while index < len(statements):
            statement = statements[index]
            for field in ("body", "orelse"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    self.block(inner)
            replacement = self._inlined(statement)
            if replacement is None:
                index += 1
                continue
            statements[index:index + 1] = replacement
            index += len(replacement)

    def _inlined(self, statement):
        """The statements replacing `statement`, or None."""
        if not (isinstance(statement, gast.Assign) and len(statement.targets) == 1 and
                _plain_target(statement.targets[0])):
            return None
        call = statement.value
        if not (isinstance(call, gast.Call) and getattr(call, "s2sad_user", False) and
                not call.keywords and
                not any(isinstance(a, gast.Starred) for a in call.args)):
            return None
        callee = self._callee(call.s2sad_ref)  # parsed again for each call: its own nodes
        if callee is None:
            return None
        tree = callee.tree
        params = [a.id for a in resolve.parameters(tree.args)]
        if len(call.args) != len(params):
            return None
        body = _body(tree)
        returned = body[-1].value
        target = statement.targets[0]
        if isinstance(returned, gast.Tuple) != isinstance(target, gast.Tuple) or (
                isinstance(target, gast.Tuple) and len(target.elts) != len(returned.elts)):
            return None  # a tuple held in a name stays a call's result
        assigned = {n.id for s in body for n in nodes.walk(s)
                    if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        reads = {}
        for s in body:
            for n in nodes.walk(s):
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                    reads[n.id] = reads.get(n.id, 0) + 1
        self.taken |= set(reads) - assigned - set(params)  # numpy, math, builtins: not renamed to
        k = self._foreign(callee)
        for node in nodes.walk(tree):
            if hasattr(node, "lineno"):
                node.lineno += k * parse.FOREIGN
                if getattr(node, "end_lineno", None) is not None:
                    node.end_lineno += k * parse.FOREIGN
        names, values, out = {}, {}, []
        for param, argument in zip(params, call.args):
            if param not in assigned and isinstance(argument, gast.Name):
                names[param] = argument.id
            elif param not in assigned and reads.get(param, 0) <= 1 and _movable(argument):
                values[param] = argument
            else:
                names[param] = self._fresh(param, call.s2sad_ref.__name__)
                out.append(gast.copy_location(gast.Assign(
                    [nodes.name(names[param], store=True)], argument, None), statement))
        for name in sorted(assigned - set(params)):
            names[name] = self._fresh(name, call.s2sad_ref.__name__)
        _Rename(names, values).visit(tree)
        body = _body(tree)
        out += body[:-1]
        result = gast.Assign(statement.targets, body[-1].value, None)
        out.append(gast.copy_location(result, statement))
        return out

    def _callee(self, func):
        """The callee parsed and resolved, if it is small enough to inline; else None."""
        if self.plans.get(func, True) is None:
            return None
        code, caller = getattr(func, "__code__", None), self.source.func
        if code is None or func is caller or code.co_freevars or \
                code.co_filename != caller.__code__.co_filename:
            self.plans[func] = None
            return None
        try:
            callee = parse.parse_function(func)
            desugar.desugar(callee)  # loops over sequences, zip, enumerate: as in the caller
        except S2sadError:
            self.plans[func] = None
            return None
        tree = callee.tree
        args = tree.args
        body = _body(tree)
        simple = bool(body) and _size(body[:-1]) <= MAX_STATEMENTS and \
            isinstance(body[-1], gast.Return) and body[-1].value is not None and \
            all(_simple(s) for s in body[:-1])
        if not simple or args.vararg or args.kwarg or args.kwonlyargs or \
                fence.find_problems(callee):
            self.plans[func] = None
            return None
        resolution = resolve.resolve(callee)
        if resolution.diagnostics or resolution.callees or resolution.externals:
            self.plans[func] = None
            return None
        self.plans[func] = True
        return callee

    def _foreign(self, callee):
        """The k under which `callee`'s positions are kept in the caller's source."""
        for k, known in self.source.foreign.items():
            if known.func is callee.func:
                return k
        k = len(self.source.foreign) + 1
        self.source.foreign[k] = callee
        return k

    def _fresh(self, name, callee_name):
        for candidate in (name, f"{callee_name}_{name}"):
            if candidate not in self.taken:
                self.taken.add(candidate)
                return candidate
        k = 1
        while f"{callee_name}_{name}_{k}" in self.taken:
            k += 1
        self.taken.add(f"{callee_name}_{name}_{k}")
        return f"{callee_name}_{name}_{k}"


class _Rename(gast.NodeTransformer):
    def __init__(self, names, values):
        self.names, self.values = names, values

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.values:
            return nodes.clone(self.values[node.id])
        if node.id in self.names:
            node.id = self.names[node.id]
        return node


def _body(tree):
    """The function's statements without its docstring."""
    body = list(tree.body)
    if body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    return body


def _simple(statement):
    """An assignment to names (no element writes: the callee changes no array), or an `if` or
    a loop of such statements (with `break` and `continue`, but no `return` inside and no
    `else` on a loop)."""
    if isinstance(statement, gast.Assign):
        return all(_plain_target(t) for t in statement.targets)
    if isinstance(statement, gast.AugAssign):
        return isinstance(statement.target, gast.Name)
    if isinstance(statement, gast.If):
        return all(_simple(s) for s in statement.body + statement.orelse)
    if isinstance(statement, (gast.For, gast.While)):
        return not statement.orelse and all(_simple(s) for s in statement.body) and \
            (isinstance(statement, gast.While) or _plain_target(statement.target))
    return isinstance(statement, (gast.Pass, gast.Break, gast.Continue))


def _size(statements):
    """The number of statements, those inside an `if` or a loop included."""
    return sum(1 + _size(getattr(s, "body", [])) + _size(getattr(s, "orelse", []))
               for s in statements)


def _plain_target(target):
    if isinstance(target, gast.Name):
        return True
    return isinstance(target, gast.Tuple) and all(isinstance(e, gast.Name) for e in target.elts)


def _movable(expression):
    """An argument that may be evaluated where the callee reads it instead of at the call: it
    calls no function of yours (NumPy and math calls change nothing)."""
    return not any(isinstance(n, gast.Call) and getattr(n, "s2sad_user", False)
                   for n in nodes.walk(expression))
