"""A small function of yours is put in place of its call. The gradient is then one
generated function instead of three (the caller's, the callee's primal copy and its adjoint):
nothing runs the callee's forward sweep a second time, Numba compiles one function, and the
code reads as a person inlining it by hand would write it:

    def sigmoid(z):                             # i_gate = sigmoid(gates[:hidden])   [f.py:12]
        return 1.0 / (1.0 + np.exp(-z))   -->   i_gate = 1.0 / (1.0 + numpy.exp(-gates[:hidden]))

    i_gate = sigmoid(gates[:hidden])

A call inside an expression is first made an assignment of its own, right before its statement
(`s = s + g(x[i])` -> `g_value = g(x[i])`, `s = s + g_value`), when Python evaluates it there
anyway: before any call of a function that is not inlined, not in a `while` test, not in an
operand that is evaluated only sometimes (`and`, `or`, `a if c else b`) or many times (a
comprehension, a lambda).

Small means: defined in the same file, no closure, at most MAX_STATEMENTS statements
(MAX_STATEMENTS_ONCE for a callee the caller calls once; those in an `if` or a loop counted)
of assignments to names, `if`s and loops, and then one `return` (no other `return`, no
`with`), calling none with a rule of yours and no function of yours but small ones (inlined
into it first), and called with one positional argument per parameter. A callee
with a loop inlined so keeps its values on the caller's tape, in the caller's loops: its forward
sweep runs once. Anything else stays a call to its own generated adjoint, whose forward sweep
runs again in the backward sweep.

The callee's names are renamed apart from the caller's (its own name where it is free, else
`<callee>_<name>`). A parameter becomes the caller's argument itself where that is a name the
callee does not reassign, or an expression the callee reads once; otherwise a new name is bound
to the argument first. The callee's statements keep their own positions (parse.FOREIGN), so a
diagnostic or a `# ... [file.py:LINE]` comment inside them points into the callee; the final
assignment is the caller's statement, with the caller's comment.
"""
import gast

from s2sad.errors import S2sadError

from .. import facts, nodes
from . import container_arguments, desugar, fence, parse, resolve

MAX_STATEMENTS = 12
MAX_STATEMENTS_ONCE = 60  # for a callee called once by the caller: inlined, it adds no code
# a call of its own would not, and its forward sweep does not run again in the backward one


def inline(source, callees):
    """Put every inlinable call of `source.tree` in place, in place; returns the callees still
    called (emitted name -> function)."""
    taken = nodes.names(source.tree) | \
        {a.id for a in resolve.parameters(source.tree.args)}
    _Inliner(source, taken).block(source.tree.body)
    still = {facts.REF.of(n) for n in nodes.walk(source.tree)
             if isinstance(n, gast.Call) and facts.USER.of(n)}
    return {name: f for name, f in callees.items() if f in still}


class _Inliner:
    def __init__(self, source, taken):
        self.source = source
        self.taken = taken
        self.plans = {}   # function -> parsed-and-resolved callee, or None (not inlinable)
        self.inlining = frozenset()   # the callees whose calls are being put in place
        self.arities, self.returns_tuple = {}, {}   # of the callees that are inlined
        self.sites = {}   # function -> how many calls of it the caller's tree holds
        for node in nodes.walk(source.tree):
            if isinstance(node, gast.Call) and facts.USER.of(node):
                ref = facts.REF.of(node)
                self.sites[ref] = self.sites.get(ref, 0) + 1

    def _limit(self, func):
        return MAX_STATEMENTS_ONCE if self.sites.get(func) == 1 else MAX_STATEMENTS

    def block(self, statements):
        index = 0
        while index < len(statements):
            statement = statements[index]
            for field in ("body", "orelse"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    self.block(inner)
            hoisted = self._hoisted(statement)
            if hoisted:     # inlined next, one by one
                statements[index:index] = hoisted
                continue
            replacement = self._inlined(statement)
            if replacement is None:
                index += 1
                continue
            statements[index:index + 1] = replacement
            index += len(replacement)

    def _hoisted(self, statement):
        """`s = s + g(x[i])` -> `g_value = g(x[i])` (returned) and `s = s + g_value`: the
        calls of small callees inside an expression, each made an assignment of its own, in the
        order Python evaluates them, up to the first call that might change what the others
        read (a call of a function that is not inlined); not from a `while` test (evaluated
        again at each trip) or from an operand evaluated only sometimes (`and`, `or`, `x if c
        else y`). Only an expression evaluated once, before anything else the statement does."""
        if isinstance(statement, (gast.Assign, gast.AugAssign, gast.Return)):
            field = "value"
        elif isinstance(statement, gast.If):
            field = "test"
        elif isinstance(statement, gast.For):
            field = "iter"
        else:
            return []
        expression = getattr(statement, field)
        if expression is None or (isinstance(statement, gast.Assign) and
                                  all(_plain_target(t) for t in statement.targets) and
                                  self._will_inline(expression, tuples=True)):
            return []   # the whole value: inlined in place
        calls = []
        _evaluation_order(expression, calls)
        hoisted = []
        for call, parent, place in calls:
            if not self._will_inline(call, tuples=False):
                if _pure(call):
                    continue
                break
            name = self._numbered(f"{facts.REF.of(call).__name__}_value")
            assign = gast.copy_location(
                gast.Assign([nodes.name(name, store=True)], call, None), statement)
            facts.ORIGIN.put(assign, _origin(statement))   # one comment: the statement's
            hoisted.append(assign)
            value = gast.copy_location(nodes.name(name), call)
            if parent is None:
                setattr(statement, field, value)
            else:
                field_name, position = place
                if position is None:
                    setattr(parent, field_name, value)
                else:
                    getattr(parent, field_name)[position] = value
        return hoisted

    def _will_inline(self, call, tuples):
        """Whether `call` is one `_inlined` puts in place (returning a tuple too if `tuples`),
        without parsing the callee again once that is known."""
        if not (isinstance(call, gast.Call) and facts.USER.of(call)):
            return False
        if facts.REF.of(call) not in self.plans and self._inlinable(call) is None:
            return False
        return self._inlinable(call, parse=False) is not None and \
            (tuples or not self.returns_tuple.get(facts.REF.of(call), False))

    def _inlinable(self, call, parse=True):
        """The parsed callee if `call` (an expression) is a call `_inlined` puts in place."""
        if not (isinstance(call, gast.Call) and facts.USER.of(call) and
                not call.keywords and not any(isinstance(a, gast.Starred) for a in call.args)):
            return None
        if not parse:
            return self.plans.get(facts.REF.of(call)) and \
                len(call.args) == self.arities[facts.REF.of(call)] or None
        callee = self._callee(facts.REF.of(call))
        if callee is None or len(call.args) != len(resolve.parameters(callee.tree.args)):
            return None
        return callee

    def _numbered(self, base):
        name, k = base, 1
        while name in self.taken:
            k += 1
            name = f"{base}{k}"
        self.taken.add(name)
        return name

    def _inlined(self, statement):
        """The statements replacing `statement`, or None."""
        if not (isinstance(statement, gast.Assign) and len(statement.targets) == 1 and
                _plain_target(statement.targets[0])):
            return None
        call = statement.value
        callee = self._inlinable(call)  # parsed again for each call: its own nodes
        if callee is None:
            return None
        tree = callee.tree
        params = [a.id for a in resolve.parameters(tree.args)]
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
        for node in _with_origins(tree):
            if getattr(node, "lineno", parse.FOREIGN) < parse.FOREIGN:  # not a callee's own
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
                names[param] = self._fresh(param, facts.REF.of(call).__name__)
                out.append(gast.copy_location(gast.Assign(
                    [nodes.name(names[param], store=True)], argument, None), statement))
                facts.ORIGIN.put(out[-1], _origin(statement))
        for name in sorted(assigned - set(params)):
            names[name] = self._fresh(name, facts.REF.of(call).__name__)
        _Rename(names, values).visit(tree)
        body = _body(tree)
        out += body[:-1]
        result = gast.Assign(statement.targets, body[-1].value, None)
        facts.ORIGIN.put(result, _origin(statement))
        out.append(gast.copy_location(result, statement))
        return out

    def _callee(self, func):
        """The callee parsed and resolved, if it is small enough to inline; else None."""
        if self.plans.get(func, True) is None:
            return None
        code, caller = getattr(func, "__code__", None), self.source.func
        if code is None or func is caller or code.co_freevars or \
                code.co_filename != caller.__code__.co_filename or _method(func):
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
        simple = bool(body) and _size(body[:-1]) <= self._limit(func) and \
            isinstance(body[-1], gast.Return) and body[-1].value is not None and \
            all(_simple(s) for s in body[:-1])
        if not simple or args.vararg or args.kwarg or args.kwonlyargs or \
                _may_write_in_place(body, {a.id for a in resolve.parameters(args)}) or \
                fence.find_problems(callee):
            self.plans[func] = None
            return None
        resolution = resolve.resolve(callee)
        if resolution.diagnostics or resolution.externals or resolution.callees and (
                func in self.inlining or not self._leaf(callee)):
            self.plans[func] = None
            return None
        self.plans[func] = True
        self.arities[func] = len(resolve.parameters(args))
        self.returns_tuple[func] = isinstance(_body(tree)[-1].value, gast.Tuple)
        return callee

    def _leaf(self, callee):
        """Whether `callee` calls no function of yours once its own small callees are put in
        place (in `callee`'s tree, their positions kept in the caller's source), and is still
        small."""
        inner = _Inliner(self.source, {n.id for n in nodes.walk(callee.tree)
                                       if isinstance(n, gast.Name)} |
                         {a.id for a in resolve.parameters(callee.tree.args)})
        inner.plans, inner.inlining = self.plans, self.inlining | {callee.func}
        inner.arities, inner.returns_tuple = self.arities, self.returns_tuple
        body = _body(callee.tree)
        inner.block(body)
        callee.tree.body = body
        left = any(isinstance(n, gast.Call) and facts.USER.of(n)
                   for n in nodes.walk(callee.tree))
        return not left and _size(body[:-1]) <= self._limit(callee.func) and \
            all(_simple(s) for s in body[:-1])

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


class _Rename(nodes.Transformer):
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
    return not any(isinstance(n, gast.Call) and facts.USER.of(n)
                   for n in nodes.walk(expression))


def _with_origins(tree):
    """Every node of `tree`, and of the statements its statements come from (facts.ORIGIN: a
    callee's statement that a callee of its own replaced), each once."""
    seen, out = set(), []
    for node in nodes.walk(tree):
        for part in [node] + ([] if node is facts.ORIGIN.of(node, node) else
                              list(nodes.walk(facts.ORIGIN.of(node)))):
            if id(part) not in seen:
                seen.add(id(part))
                out.append(part)
    return out


def _origin(statement):
    return facts.ORIGIN.of(statement, statement)


def _evaluation_order(node, found, parent=None, place=None):
    """Append (call, its parent, (field, index)) for the calls in `node` that are evaluated
    every time `node` is, in the order Python evaluates them (a call after its arguments)."""
    if isinstance(node, (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp,
                         gast.GeneratorExp)):
        found.append((node, parent, place))   # evaluated later, or many times: a barrier
        return
    if isinstance(node, gast.BoolOp):
        _evaluation_order(node.values[0], found, node, ("values", 0))
        found.append((node, parent, place))   # the rest only sometimes
        return
    if isinstance(node, gast.IfExp):
        _evaluation_order(node.test, found, node, ("test", None))
        found.append((node, parent, place))
        return
    for field in node._fields:
        value = getattr(node, field, None)
        if isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, gast.AST):
                    _evaluation_order(item, found, node, (field, i))
        elif isinstance(value, gast.AST):
            _evaluation_order(value, found, node, (field, None))
    if isinstance(node, gast.Call):
        found.append((node, parent, place))


def _pure(node):
    """A NumPy, math or builtin call (it changes nothing the other calls read)."""
    ref = facts.REF.of(node)
    return isinstance(node, gast.Call) and not facts.USER.of(node) and \
        ref is not None and resolve.canonical_name(ref) is not None


def _may_write_in_place(body, params):
    """Whether an augmented assignment of the callee (`tail *= 3.0`) may write into an array
    it was given: its name is a parameter, or is ever bound to something other than a new
    value (a number or arithmetic), such as a slice of a parameter. Such a callee stays a call
    (callee_writes.py reports what it writes into)."""
    fresh = (gast.Constant, gast.BinOp, gast.UnaryOp, gast.Compare, gast.BoolOp)
    augmented, bound = set(), {}
    for node in (n for s in body for n in nodes.walk(s)):
        if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
            augmented.add(node.target.id)
        elif isinstance(node, gast.Assign):
            for target in node.targets:
                for name in (target.elts if isinstance(target, gast.Tuple) else [target]):
                    if isinstance(name, gast.Name):
                        bound.setdefault(name.id, []).append(
                            isinstance(node.value, fresh) and not isinstance(target, gast.Tuple))
        elif isinstance(node, (gast.For, gast.While)) and isinstance(
                getattr(node, "target", None), gast.Name):
            bound.setdefault(node.target.id, []).append(False)
    return any(name in params or not all(bound.get(name, [False])) for name in augmented)


def _method(func):
    """A function defined in a class: its `self` is an object whose class decides what
    `self.name` reads (resolve.py needs the class), so it is transformed on its own."""
    parts = getattr(container_arguments.original(func), "__qualname__", "").split(".")
    return len(parts) > 1 and parts[-2] != "<locals>"
