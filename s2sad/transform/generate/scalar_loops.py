"""The sum of an elementwise expression of one vector, inside a loop, becomes a loop
over its elements, as a person writing the adjoint for Numba does:

    for r in range(n):                                for r in range(n):
        _t31 = inner[r]                                   _t34 = 0.0
        _t32 = _t31 - peak                  -->           _t48 = inner.shape[1]
        _t33 = numpy.exp(_t32)                            for _e in range(_t48):
        _t34 = numpy.sum(_t33)                                _t31 = inner[r, _e]
                                                              _t32 = _t31 - peak
                                                              _t33 = numpy.exp(_t32)
                                                              _t34 = _t34 + _t33

No array is made for `inner[r] - peak` or its exponential, in the forward sweep or in the
backward one (whose gradients become numbers too: `dinner[r, _e] += ...`), and the values the
backward sweep needs are kept in the loop nest's preallocated arrays. In a loop, where such a
sum runs once per trip on a short vector, the allocations are what costs: GMM's log-sum-exp of
every row (`np.sum(np.exp(inner[r] - peak))`).

Only where every fact is shown by kinds.py, and nothing is guessed:
- the sum is `numpy.sum(t)` of one argument, in the body of a loop;
- every array the expression reads is one vector: a name of rank 1, or an element read
  `a[i, j]` of ints giving rank 1 (read as `a[i, j, _e]`), the same one throughout; every
  other operand is a known scalar or a number literal;
- the operations are `+ - * / **`, negation and NumPy ufuncs; one of them gives a float for
  any input (a division, a ufunc such as `numpy.exp`, a float literal), so the sum started at
  0.0 has the type numpy.sum gives;
- the temporaries are the transformer's own, each read once, by the expression; what runs
  between them and the sum binds none of the names the expression reads, writes into no array
  and calls no function of yours.

The sum is taken in element order, so it may differ from numpy.sum's pairwise sum in the last
bits for vectors of more than 8 elements.
"""
import gast
import numpy

from s2sad.runtime import rt

from .. import facts
from ..analysis import kinds as kinds_module
from .. import nodes

# ufuncs whose result is a float whatever the (real) input: an int vector summed gives a float
FLOAT_UFUNCS = {numpy.exp, numpy.expm1, numpy.exp2, numpy.log, numpy.log2, numpy.log10,
                numpy.log1p, numpy.sqrt, numpy.cbrt, numpy.sin, numpy.cos, numpy.tan,
                numpy.arcsin, numpy.arccos, numpy.arctan, numpy.sinh, numpy.cosh, numpy.tanh,
                numpy.arcsinh, numpy.arccosh, numpy.arctanh, numpy.true_divide}
_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)


def rewrite(body, namer, kinds, results=None):
    """Rewrite the ANF `body` in place; `kinds` = (scalars, ints, ranks) of the parameters."""
    kinds_module.mark(body, *kinds[:3], results=results)
    loads = {}
    for node in (n for statement in body for n in nodes.walk(statement)):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            loads[node.id] = loads.get(node.id, 0) + 1
    rewriter = _Rewriter(namer, loads, body)
    rewriter.statements(body)
    rewriter.hoist()


class _Rewriter:
    def __init__(self, namer, loads, body):
        self.namer, self.loads = namer, loads
        self.stored = {n.id for s in body for n in nodes.walk(s)
                       if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        self.outer = None      # (the statement list holding the outermost loop, that loop)
        self.hoisted = []      # (statement list, loop, statements to put before the loop)

    def statements(self, statements):
        for statement in statements:
            top = self.outer is None and isinstance(statement, gast.For)
            if top:
                self.outer = (statements, statement)
            for field in ("body", "orelse"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner:
                    self.statements(inner)
            if top:
                self.outer = None
        if self.outer is None:
            return
        index = 0
        while index < len(statements):
            index = self._at(statements, index) + 1

    def hoist(self):
        for statements, loop, new in self.hoisted:
            at = next(i for i, s in enumerate(statements) if s is loop)
            statements[at:at] = new

    def _hoistable(self, array):
        """Whether `array.shape` may be read before the outermost loop: the name is bound
        there, unconditionally, and the loop does not rebind it."""
        if not isinstance(array, gast.Name):
            return False
        statements, loop = self.outer
        if any(isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store) and n.id == array.id
               for n in nodes.walk(loop)):
            return False
        before = statements[:next(i for i, s in enumerate(statements) if s is loop)]
        return array.id not in self.stored or any(
            isinstance(s, gast.Assign) and len(s.targets) == 1 and
            isinstance(s.targets[0], gast.Name) and s.targets[0].id == array.id for s in before)

    def _at(self, statements, index):
        """Rewrite the sum at `statements[index]` if it is one; the index of the last statement
        of what it became."""
        sum_statement = statements[index]
        operand = _summed_name(sum_statement)
        if operand is None:
            return index
        chain = _Chain(statements, index, self.loads)
        if not chain.take(operand) or chain.vector is None or not chain.floats or \
                not chain.clear():
            return index
        counter = self.namer.fresh("_e")
        length_name = self.namer.numbered("_t")
        loop_body = [statements[i] for i in sorted(chain.members)]
        element = gast.Tuple([*_index_parts(chain.vector), nodes.name(counter)], gast.Load()) \
            if isinstance(chain.vector, gast.Subscript) else nodes.name(counter)
        array = chain.vector.value if isinstance(chain.vector, gast.Subscript) else chain.vector
        read = gast.Subscript(nodes.clone(array), element, gast.Load())
        if isinstance(chain.vector, gast.Subscript):   # `_t31 = inner[r]` -> `inner[r, _e]`
            for statement in loop_body:
                if nodes.same(statement.value, chain.vector):
                    statement.value = nodes.clone(read)
        else:   # `_t50 = q_diag[_e]`, read where q_diag was
            name = self.namer.numbered("_t")
            _replace_reads(loop_body, chain.vector.id, name)
            loop_body.insert(0, nodes.assign(name, read))
        total = sum_statement.targets[0].id
        loop_body.append(nodes.assign(total, gast.BinOp(nodes.name(total), gast.Add(),
                                                        nodes.name(operand))))
        header = gast.Call(nodes.name("range"), [nodes.name(length_name)], [])
        facts.REF.put(header, range)
        loop = gast.For(nodes.name(counter, store=True), header, loop_body, [], None)
        shape_name = self.namer.numbered("_t")
        array, axis = chain.length()
        length = [nodes.assign(shape_name, gast.Attribute(array, "shape", gast.Load())),
                  nodes.assign(length_name, gast.Subscript(
                      nodes.name(shape_name), gast.Constant(axis, None), gast.Load()))]
        new = [nodes.assign(total, gast.Constant(0.0, None)), loop]
        for statement in [*length, *new, *loop_body]:
            facts.ORIGIN.put(statement, facts.ORIGIN.of(sum_statement, sum_statement))
            gast.copy_location(statement, sum_statement)
        if self._hoistable(array):   # the nest's trip counts are then known before it runs
            for statement in length:   # set up with the loop, and commented with it
                facts.ORIGIN.put(statement, facts.ORIGIN.of(self.outer[1], self.outer[1]))
            self.hoisted.append((*self.outer, length))
        else:
            new[1:1] = length
        kept = [s for i, s in enumerate(statements[:index]) if i not in chain.members]
        start = len(kept)
        statements[:index + 1] = kept + new
        return start + len(new) - 1


class _Chain:
    """The temporaries an elementwise expression of one vector is made of, read back from the
    statement that sums it."""

    def __init__(self, statements, end, loads):
        self.statements, self.end, self.loads = statements, end, loads
        self.members = set()      # indices of the temporaries' statements
        self.vector = None        # the Name of rank 1, or the element read `a[i, j]`
        self.floats = False
        self.reads = set()        # the names the expression reads (but its own temporaries)
        self.defined = {}
        for i, statement in enumerate(statements[:end]):
            if isinstance(statement, gast.Assign) and len(statement.targets) == 1 and \
                    isinstance(statement.targets[0], gast.Name):
                self.defined[statement.targets[0].id] = i

    def take(self, name):
        """Whether the temporary `name` is an elementwise expression of the vector (None: it is
        not such an expression, but may be the vector itself)."""
        i = self.defined.get(name)
        if i is None or not name.startswith("_t") or self.loads.get(name) != 1 or \
                i in self.members:
            return None
        statement = self.statements[i]
        value = statement.value
        ref = facts.REF.of(value) if isinstance(value, gast.Call) else None
        if isinstance(value, gast.Subscript):
            return self._element_read(value, statement, i) or None
        if isinstance(value, gast.BinOp) and isinstance(value.op, _ARITHMETIC):
            operands = [value.left, value.right]
            self.floats |= isinstance(value.op, gast.Div)
        elif isinstance(value, gast.UnaryOp) and isinstance(value.op, (gast.USub, gast.UAdd)):
            operands = [value.operand]
        elif isinstance(ref, numpy.ufunc) and ref.nout == 1 and not value.keywords and \
                len(value.args) == ref.nin:
            operands = value.args
            self.floats |= ref in FLOAT_UFUNCS
        else:
            return None
        self.members.add(i)
        return all(self._operand(a, statement) for a in operands)

    def _operand(self, node, statement):
        if isinstance(node, gast.Constant):
            self.floats |= isinstance(node.value, float)
            return type(node.value) in (int, float)
        if not isinstance(node, gast.Name):
            return False
        if kinds_module.is_scalar(node, facts.SCALARS.of(statement)):
            self.reads.add(node.id)
            return True
        taken = self.take(node.id)
        if taken is not None:
            return taken
        return facts.RANKS.of(statement).get(node.id) == 1 and self._same_vector(node)

    def _element_read(self, value, statement, i):
        """`_t = a[i, j]`: an element read of ints giving a vector, read once (by the
        expression): the loop reads `a[i, j, _e]` instead."""
        array = value.value
        rank = facts.RANKS.of(statement).get(array.id) if isinstance(array, gast.Name) else None
        parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
        if rank is None or len(parts) != rank - 1 or not all(
                isinstance(p, (gast.Name, gast.Constant)) and
                kinds_module.is_int(p, facts.INTS.of(statement)) for p in parts):
            return False
        if not self._same_vector(value):
            return False
        self.members.add(i)
        return True

    def _same_vector(self, node):
        """The vector is one: the first one met, and every other one the same."""
        for n in nodes.walk(node):
            if isinstance(n, gast.Name):
                self.reads.add(n.id)
        if self.vector is None:
            self.vector = nodes.clone(node)   # (the statements' own nodes are renamed later)
            return True
        return nodes.same(self.vector, node)

    def length(self):
        """(array, axis) whose length the vector has: `v`, 0; or `a`, 2 for `a[i, j]`."""
        vector = self.vector
        if isinstance(vector, gast.Name):
            return nodes.name(vector.id), 0
        return nodes.clone(vector.value), len(_index_parts(vector))

    def clear(self):
        """What runs between the first temporary and the sum leaves what the expression reads
        as it was."""
        first = min(self.members)
        for i in range(first, self.end):
            if i in self.members:
                continue
            statement = self.statements[i]
            if nodes.assigned_name(statement) is None:
                return False
            if statement.targets[0].id in self.reads or any(
                    isinstance(n, gast.Call) and (facts.USER.of(n) or
                                                  facts.REF.of(n) is rt.grad_of)
                    for n in nodes.walk(statement.value)):
                return False
        return True


def _summed_name(statement):
    """`t` of `s = numpy.sum(t)`, `t` a name; else None."""
    if nodes.assigned_name(statement) is None:
        return None
    value = statement.value
    if isinstance(value, gast.Call) and facts.REF.of(value) is numpy.sum and \
            len(value.args) == 1 and not value.keywords and isinstance(value.args[0], gast.Name):
        return value.args[0].id
    return None


def _index_parts(subscript):
    index = subscript.slice
    return [nodes.clone(p) for p in (index.elts if isinstance(index, gast.Tuple) else [index])]


def _replace_reads(statements, old, new):
    for statement in statements:
        for node in nodes.walk(statement.value):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
                    node.id == old:
                node.id = new
