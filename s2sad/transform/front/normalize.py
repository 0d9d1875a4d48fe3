"""One operation per statement (A-normal form).

Every statement becomes `name = <one operation on atoms>`, `array[index atoms] = atom`,
`return <atom>`, or an `if`/`for`/`while` whose bodies are normalized the same way (their tests
stay whole: they carry no gradient). An atom is a name, a literal or a tuple of atoms;
`a if c else b` becomes an `if`, and `for row in A:` a loop over `range(len(A))`. Each new
statement remembers the user statement it came from (`facts.ORIGIN`), for comments and error
locations. An element or slice read twice in one statement is one temporary (`icf[k, d:] *
icf[k, d:]` is `_t1 * _t1`, whose rule is a doubled product), unless the statement calls a
function of yours, which might write into the array between the reads, or writes into it.

    z = np.sin(x * w)                  _t0 = x * w
    x += z                      -->    z = numpy.sin(_t0)
    a, b = b, a                        x = x + z
    return np.sum(z * z)               _t1 = b
                                       _t2 = a
                                       a = _t1
                                       b = _t2
                                       _t3 = z * z
                                       _t4 = numpy.sum(_t3)
                                       return _t4
"""
import gast

from .. import facts, nodes

from s2sad.errors import Diagnostic, UnsupportedError
from s2sad.runtime import rt


def normalize(source, namer):
    """Return the ANF body of `source.tree` (a list of gast Assign/Return statements)."""
    return _Normalizer(source, namer).run()


def is_atom(node):
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return is_literal(node.operand)
    if isinstance(node, gast.Tuple):
        return all(is_atom(element) for element in node.elts)
    if isinstance(node, gast.List):  # constant lists only pass the fence
        return all(is_literal(element) for element in node.elts)
    return is_literal(node)


def is_literal(node):
    """Numbers, None, and module constants such as numpy.pi."""
    if isinstance(node, gast.Constant):
        return True
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        return is_literal(node.operand)
    return _is_module_constant(node)


def _is_module_constant(node):
    chain = []
    while isinstance(node, gast.Attribute):
        chain.append(node.attr)
        node = node.value
    return isinstance(node, gast.Name) and node.id in ("numpy", "math") and bool(chain)


class _Normalizer:
    def __init__(self, source, namer):
        self.source = source
        self.namer = namer
        self.out = []
        self.origin = None
        self.reads = None   # this statement's element reads: gast.dump -> temporary
        self.written = set()    # the arrays it writes into: their reads stay apart
        # (tidy/in_place.py keeps the gradient of `y[i] = y[i] + c * y[i]`'s first read in place)

    def run(self):
        return self.block(self.source.tree.body)

    def block(self, statements):
        """The ANF of a statement list (a function, branch or loop body)."""
        outer, outer_origin = self.out, self.origin
        self.out = []
        for statement in statements:
            self.origin = facts.ORIGIN.of(statement, statement)
            self.reads = None if any(facts.USER.of(n)
                                     for n in nodes.walk(statement)) else {}
            self.written = _written_arrays(statement)
            self._statement(statement)
        out, self.out, self.origin = self.out, outer, outer_origin
        return out

    def emit(self, statement):
        facts.ORIGIN.put(statement, self.origin)
        gast.copy_location(statement, self.origin)
        self.out.append(statement)
        return statement

    def assign(self, name, value):
        self.emit(gast.Assign([gast.Name(name, gast.Store(), None, None)], value, None))

    def _statement(self, node):
        if isinstance(node, gast.Assign):
            self._assign(node.targets, node.value)
        elif isinstance(node, gast.AugAssign):
            if isinstance(node.target, gast.Subscript):
                index = self.index(node.target.slice)
                array = self.atom(node.target.value)
                old = self.atom(gast.Subscript(array, index, gast.Load()))
                new = self.atom(gast.BinOp(old, node.op, node.value))
                self._store(array, index, new)
            else:
                target = gast.Name(node.target.id, gast.Load(), None, None)
                self._assign([node.target], gast.BinOp(target, node.op, node.value))
                facts.IN_PLACE.put(self.out[-1], True)  # on an array, `a += b` writes into it
                # (aliases.py refuses that where another live name holds the same array)
        elif isinstance(node, gast.Return):
            value = node.value
            if isinstance(value, gast.Tuple):
                value = gast.Tuple([self.atom(e) for e in value.elts], gast.Load())
            else:
                value = self.atom(value)
            self.emit(gast.Return(value))
        elif isinstance(node, gast.If):
            self._carry(gast.If(node.test, self.block(node.body), self.block(node.orelse)), node)
        elif isinstance(node, gast.While):
            self._carry(gast.While(node.test, self.block(node.body), []), node)
        elif isinstance(node, gast.For):
            self._for(node)
        elif isinstance(node, gast.With):
            self._hook(node)
        elif is_effect(node):
            self._effect(node)
        # docstrings and `pass` vanish

    def _effect(self, node):
        """`print(a, b + 1)`, `raise ValueError("...")` or a bare call of a function of yours
        (`check(x)`): run in the forward sweep as written.
        Until the sweeps are built it is an assignment to a name nothing reads, so every
        analysis sees a plain statement; generate/effects.py writes it back as it was.

            print("y is", y + 1)     -->    _t0 = y + 1
                                            _effect0 = print("y is", _t0)   (facts.EFFECT)
        """
        if isinstance(node, gast.Expr):
            call = node.value
            kind = "print" if nodes.dotted_parts(call.func) == ["print"] else "call"
            if kind == "call" and not facts.USER.of(call) and not facts.DRAW.of(call):
                raise UnsupportedError([Diagnostic(
                    self.source.loc(node), "a bare call of a function that is not yours is not "
                    "supported", why="its result is discarded; if it changes an array in "
                    "place (np.copyto, .sort()), the gradient would not see it",
                    fix="assign its result to a variable, or call a function of yours")])
        else:
            kind, call = "raise", node.exc
            if not isinstance(call, gast.Call):  # `raise ValueError`
                call = gast.copy_location(gast.Call(call, [], []), call)
        name = self.namer.numbered("_effect")
        self.assign(name, self.operation(call))
        facts.EFFECT.put(self.out[-1], kind)

    def _carry(self, new, old):
        """Emit a compound statement, keeping the annotations exits.py put on `old`."""
        facts.carry(new, old, but=(facts.ORIGIN,))
        return self.emit(new)

    def _hook(self, node):
        """`with s2sad.grad_of(x) as dx: body` -> `x = rt.grad_of(x)`, an identity the forward
        sweep leaves out and whose adjoint block runs `body` (blocks.py)."""
        item = node.items[0]
        call = item.context_expr
        if facts.REF.of(call) is not rt.grad_of:
            raise UnsupportedError([Diagnostic(
                self.source.loc(call), "the only supported `with` statement is "
                "`with s2sad.grad_of(x) as dx:`",
                fix="move other context managers out of the differentiated function")])
        watched = call.args[0].id
        hook = gast.copy_location(gast.Call(call.func, [_load(watched)], []), call)
        facts.REF.put(hook, rt.grad_of)
        facts.HOOK.put(hook, (item.optional_vars.id, node.body))
        self.emit(gast.Assign([gast.Name(watched, gast.Store(), None, None)], hook, None))

    def _for(self, node):
        """Loops over `range(...)` keep their header; any other iterable is indexed:
        `for row in A:` -> `for _i0 in range(len(A)): row = A[_i0]`."""
        iterable = node.iter
        if facts.REF.of(iterable) is rt.checkpointed:
            return self._checkpointed(node)
        if isinstance(iterable, gast.Call) and facts.REF.of(iterable) is range:
            header = gast.Call(iterable.func, [self.atom(a) for a in iterable.args], [])
            facts.REF.put(header, range)
            self._carry(gast.For(node.target, header, self.block(node.body), [], None), node)
            return
        sequence = self.atom(iterable)
        if isinstance(sequence, gast.Name) and sequence.id in _stored([node.target, *node.body]):
            # `for e in v: v = ...` goes on over the array it started with (Python does)
            held = self.namer.numbered("_seq")
            self.assign(held, sequence)
            sequence = gast.Name(held, gast.Load(), None, None)
        count = self.atom(_builtin_call("len", len, [sequence]))
        index = self.namer.numbered("_i")
        header = _builtin_call("range", range, [count])
        outer = self.out
        self.out = []
        self.emit(gast.Assign([node.target], gast.Subscript(
            sequence, gast.Name(index, gast.Load(), None, None), gast.Load()), None))
        first, self.out = self.out, outer
        body = first + self.block(node.body)
        self._carry(gast.For(gast.Name(index, gast.Store(), None, None), header, body, [], None),
                    node)

    def _checkpointed(self, node):
        """`for i in s2sad.checkpointed(range(a, b), every=k):` -> the loop over the range, with
        `facts.CHECKPOINT` the atom of k (`None` when not given), for checkpoint.py."""
        call = node.iter
        inner = call.args[0] if call.args else call
        if facts.REF.of(inner) is not range:  # (the fence reports it by name)
            raise UnsupportedError([Diagnostic(
                self.source.loc(inner), "a checkpointed loop must be over `range(...)`",
                fix="loop over the indices: `for i in s2sad.checkpointed(range(len(xs))):`")])
        header = gast.Call(inner.func, [self.atom(a) for a in inner.args], [])
        facts.REF.put(header, range)
        every = call.args[1] if len(call.args) > 1 else \
            next((k.value for k in call.keywords if k.arg == "every"), gast.Constant(None, None))
        every = self.atom(every)
        loop = self._carry(gast.For(node.target, header, self.block(node.body), [], None), node)
        facts.CHECKPOINT.put(loop, every)

    def _assign(self, targets, value):
        first, rest = targets[0], targets[1:]
        if isinstance(first, gast.Subscript) or any(isinstance(t, gast.Subscript) for t in rest):
            atom = self.atom(value)
            for target in targets:
                self._assign_atom(target, atom)
            return
        if isinstance(first, gast.Name):
            self._assign_fresh([first.id], self.operation(value))
        elif isinstance(value, gast.Tuple) and len(value.elts) == len(first.elts):
            self._unpack(first.elts, value.elts)
        elif isinstance(value, gast.Call) and all(isinstance(t, gast.Name) for t in first.elts):
            self._assign_fresh([t.id for t in first.elts], self.operation(value))
        elif isinstance(value, gast.Call) and \
                all(isinstance(t, (gast.Name, gast.Subscript)) for t in first.elts):
            # `s[i], s[i + 1] = f(x)`: the call's values in names, then each target in turn
            temps = [self.namer.numbered("_t") for _ in first.elts]
            self._assign_fresh(temps, self.operation(value))
            self._unpack(first.elts, [_load(t) for t in temps])
            first = gast.Tuple([gast.Name(t, gast.Store(), None, None) for t in temps],
                               gast.Store())
        else:
            self._unpack_by_index(first, value)
        source_names = [first] if isinstance(first, gast.Name) else first.elts
        for target in rest:  # a = b = value: later targets copy the first
            if isinstance(target, gast.Name):
                self.assign(target.id, _load(source_names[0].id) if len(source_names) == 1
                            else gast.Tuple([_load(n.id) for n in source_names], gast.Load()))
            else:
                for name, element in zip(source_names, target.elts):
                    self.assign(element.id, _load(name.id))

    def _unpack_by_index(self, target, value):
        """`n, m = x.shape` (any value but a tuple display or a call): each target gets its
        element, `n = x.shape[0]; m = x.shape[1]`, all read before any is assigned. A value
        that is not a name, an attribute or a constant subscript of one is computed once."""
        if not _is_path(value):
            value = self.atom(value)
        parts = [gast.Subscript(nodes.clone(value), nodes.constant(k), gast.Load())
                 for k in range(len(target.elts))]
        self._unpack(target.elts, parts)

    def _assign_atom(self, target, atom):
        if isinstance(target, gast.Subscript):
            self._store(self.atom(target.value), self.index(target.slice), atom)
        elif isinstance(target, gast.Name):
            self.assign(target.id, atom)
        else:
            self._unpack(target.elts, atom.elts if isinstance(atom, gast.Tuple) else [atom])

    def _store(self, array, index, atom):
        """`array[index] = atom`, an in-place write."""
        target = gast.Subscript(array, index, gast.Store())
        self.emit(gast.Assign([target], atom, None))

    def index(self, node):
        """An index with every part reduced to an atom: `i`, `1:n`, `(i, :, _t0)`."""
        if isinstance(node, gast.Slice):
            return gast.Slice(*[None if part is None else self.atom(part)
                                for part in (node.lower, node.upper, node.step)])
        if isinstance(node, gast.Tuple):
            return gast.Tuple([self.index(part) for part in node.elts], gast.Load())
        return self.atom(node)

    def _assign_fresh(self, names, operation):
        """`names = operation`, through a temporary when a target is also read (`x = x * c`
        becomes `_t0 = x * c; x = _t0`): the backward sweep then sees the old and the new value
        under different names."""
        read = nodes.names(operation)
        if read & set(names):
            temps = [self.namer.numbered("_t") for _ in names]
            self._assign_fresh(temps, operation)
            for name, temp in zip(names, temps):
                self.assign(name, _load(temp))
        elif len(names) == 1:
            self.assign(names[0], operation)
        else:
            target = gast.Tuple([gast.Name(n, gast.Store(), None, None) for n in names],
                                gast.Store())
            self.emit(gast.Assign([target], operation, None))

    def _unpack(self, targets, values):
        """`a, b = e1, e2` and `s[i], s[i + 1] = e1, e2`: evaluate every value before
        assigning any target (`a, b = b, a`, `s[0], s[1] = s[1], s[0]`), then assign the
        targets from left to right, a subscript's index read when its turn comes."""
        assigned = {t.id for t in targets if isinstance(t, gast.Name)} | \
            {t.value.id for t in targets
             if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name)}
        atoms = []
        for value in values:
            atom = self.atom(value)
            if not isinstance(atom, (gast.Constant, gast.Tuple)) and \
                    nodes.names(atom) & assigned:
                copy = self.namer.numbered("_t")
                self.assign(copy, atom)
                atom = _load(copy)
            atoms.append(atom)
        for target, atom in zip(targets, atoms):
            if isinstance(target, gast.Subscript) and \
                    not isinstance(atom, (gast.Name, gast.Constant)):
                copy = self.namer.numbered("_t")   # (an element of a tuple: its own name)
                self.assign(copy, atom)
                atom = _load(copy)
            if isinstance(target, (gast.Name, gast.Subscript)):
                self._assign_atom(target, atom)
            elif isinstance(atom, gast.Tuple) and len(atom.elts) == len(target.elts):
                self._unpack(target.elts, atom.elts)
            else:
                raise UnsupportedError([Diagnostic(
                    self.source.loc(target), "nested tuple unpacking needs a tuple of the same "
                    "length", fix="assign each element separately")])

    def atom(self, node):
        """Reduce `node` to an atom, emitting temporaries for its operations."""
        if is_atom(node):
            if isinstance(node, gast.Tuple):
                return gast.Tuple([self.atom(e) for e in node.elts], gast.Load())
            return node
        if isinstance(node, gast.Tuple):
            return gast.Tuple([self.atom(e) for e in node.elts], gast.Load())
        if isinstance(node, gast.IfExp):
            return self._choice(node)
        if isinstance(node, gast.List):
            raise UnsupportedError([Diagnostic(
                self.source.loc(node), "a list display is supported only where its elements "
                "can be spelt one by one (assigned to a name, looped over, indexed, reduced)",
                why="s2sad keeps each element of a list in a variable of its own; a list "
                    "returned or passed on would be a container at run time",
                fix="use a tuple, or numpy.stack([...]) to build an array")])
        key = gast.dump(node) if self.reads is not None and _plain_read(node) and \
            node.value.id not in self.written else None
        if key is not None and key in self.reads:
            return _load(self.reads[key])
        operation = self.operation(node)  # inner temporaries first: numbers follow execution
        temp = self.namer.numbered("_t")
        self.assign(temp, operation)
        if key is not None:
            self.reads[key] = temp
        return _load(temp)

    def _choice(self, node):
        """`a if c else b` -> `if c: _t = a` / `else: _t = b`: only the chosen side runs."""
        temp = self.namer.numbered("_t")
        branches = []
        for side in (node.body, node.orelse):
            outer, self.out, reads = self.out, [], self.reads
            self.reads = None if reads is None else dict(reads)  # one side's are not the other's
            self.assign(temp, self.atom(side))
            branches.append(self.out)
            self.out, self.reads = outer, reads
        self.emit(gast.If(node.test, *branches))
        return _load(temp)

    def operation(self, node):
        """Reduce the operands of `node` to atoms; `node` itself stays one operation.
        Tests (comparisons, `and`, `or`, `not`) stay whole: they carry no gradient, and
        `and`/`or` must not evaluate their right side early."""
        if isinstance(node, gast.BinOp):
            return gast.BinOp(self.atom(node.left), node.op, self.atom(node.right))
        if isinstance(node, (gast.Compare, gast.BoolOp)) or (
                isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not)):
            return node
        if isinstance(node, gast.UnaryOp) and not is_atom(node):
            return gast.UnaryOp(node.op, self.atom(node.operand))
        if isinstance(node, gast.Call):
            call = gast.Call(node.func, [self.argument(a, node) for a in node.args],
                             [gast.keyword(k.arg, self.atom(k.value)) for k in node.keywords])
            facts.REF.put(call, facts.REF.of(node))
            facts.USER.put(call, facts.USER.of(node))
            facts.DRAW.put(call, facts.DRAW.of(node))
            return gast.copy_location(call, node)
        if isinstance(node, gast.Attribute):
            return gast.Attribute(self.atom(node.value), node.attr, gast.Load())
        if isinstance(node, gast.Subscript):
            return gast.Subscript(self.atom(node.value), self.index(node.slice), gast.Load())
        if isinstance(node, gast.JoinedStr):  # f"n = {n}": a message; its values are atoms
            return gast.JoinedStr([gast.FormattedValue(self.atom(v.value), v.conversion,
                                                       v.format_spec)
                                   if isinstance(v, gast.FormattedValue) else v
                                   for v in node.values])
        return self.atom(node)

    def argument(self, node, call):
        """An argument of a call as an atom; `*shape` in a random draw (`rs.randn(*x.shape)`,
        run as Python) as a starred atom."""
        if not isinstance(node, gast.Starred):
            return self.atom(_as_tuple(node))
        if facts.DRAW.of(call):
            return gast.Starred(self.atom(node.value), gast.Load())
        raise UnsupportedError([Diagnostic(
            self.source.loc(node), "`*args` in a call of a library function is supported only "
            "in random draws", why="s2sad binds a library function's arguments one by one to "
            "its derivative rule", fix="spell the arguments: np.zeros((n, m)) or f(t[0], t[1])")])


def _is_path(node):
    """A name, or an attribute or a constant subscript of a path: `x`, `x.shape`, `p.w[0]`."""
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        if isinstance(node, gast.Subscript) and not isinstance(node.slice, gast.Constant):
            return False
        node = node.value
    return isinstance(node, gast.Name)


def is_effect(statement):
    """A statement of the user's run for its effect, with no value to differentiate:
    `print(...)`, `raise SomeError(...)` (what `assert` became), or a call of a function of
    yours whose result is not used (`self.check(x)`)."""
    return isinstance(statement, gast.Raise) or isinstance(statement, gast.Expr) and \
        isinstance(statement.value, gast.Call) and not _is_docstring_like(statement)


def _is_docstring_like(statement):
    return isinstance(statement.value, gast.Constant)


def is_hook(statement):
    """The statement standing for `with s2sad.grad_of(x) as dx:` (see `_Normalizer._hook`)."""
    return isinstance(statement, gast.Assign) and \
        facts.REF.of(statement.value) is rt.grad_of


def strip_hooks(tree):
    """`tree` without its `with s2sad.grad_of(...)` blocks: a plain forward copy."""
    return _WithoutHooks().visit(tree)


class _WithoutHooks(nodes.Transformer):
    def visit_With(self, node):
        return None

    def generic_visit(self, node):
        node = super().generic_visit(node)
        if isinstance(node, (gast.If, gast.For, gast.While)) and not node.body:
            node.body = [gast.Pass()]
        return node


def _as_tuple(argument):
    """A list display passed to a function is read as a tuple (NumPy accepts both; Numba and
    the templates' per-element gradients want a tuple)."""
    if isinstance(argument, (gast.List, gast.Tuple)) and \
            not all(is_literal(e) for e in argument.elts):
        return gast.Tuple([_as_tuple(e) for e in argument.elts], gast.Load())
    return argument


def _stored(nodes_):
    """Names (re)bound anywhere in these nodes."""
    return {n.id for node in nodes_ for n in nodes.walk(node)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


def _builtin_call(name, function, args):
    call = gast.Call(gast.Name(name, gast.Load(), None, None), args, [])
    facts.REF.put(call, function)
    return call


def _load(name):
    return gast.Name(name, gast.Load(), None, None)


def _plain_read(node):
    """`a[i, 1:n]`: an element or slice of a name at an index of names and literals."""
    if not (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)):
        return False
    parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
    bounds = [b for p in parts for b in ((p.lower, p.upper, p.step)
                                         if isinstance(p, gast.Slice) else (p,))]
    return all(b is None or isinstance(b, (gast.Name, gast.Constant)) or
               isinstance(b, gast.UnaryOp) and isinstance(b.operand, gast.Constant)
               for b in bounds)


def _written_arrays(statement):
    """The names of the arrays a simple statement writes elements of."""
    targets = statement.targets if isinstance(statement, gast.Assign) else \
        [statement.target] if isinstance(statement, gast.AugAssign) else []
    return {t.value.id for t in targets
            if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name)}
