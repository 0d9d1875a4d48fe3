"""What the backward sweep computes again instead of keeping (part of saves.py, whose `Saves`
it is a base of): a value from those it can read where it needs it, a loop's range from
values that do not change, an int counter by undoing its step, and an element read in place
where its array is kept at its writes instead (Tapenade's to-be-recorded, Enzyme's cache or
recompute with a simple cost rule: recompute what is cheap, keep a value where it changes).

    _t4 = j + 1                          # recomputed before the backward loop over i
    for i in range(_t4, d):              #   for i in range(d - 1, j, -1):
        s = s + W[r, i] * h[i]           # h[i] read in place: h is kept where it is written,
    count = count + 1                    # once per (t, i), not once per (t, r, i); `count`
                                         # put back as `count = count - 1`
"""
import gast
import numpy

from .. import facts, nodes
from ..analysis import activity, kinds
from .tape import walk

_RECOMPUTED = (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Subscript)
_CHEAP_CALLS = (abs, min, max)   # calls on numbers cheaper to compute again than to keep


class Recomputing:
    """The recomputation half of `saves.Saves` (which provides the analyses it asks:
    `_stable`, `_readers`, `definitions`, `loops_around`, `kept_before`, ...); `_maintained`
    says which values the backward sweep puts back anyway, to recompute from."""

    def _recomputation_kept(self, name, region, readers):
        """`_recomputation`, with the writes into arrays it reads in place kept (see
        `_put_back_at_writes`) when it is taken."""
        self.pending = []
        code = self._recomputation(name, region, readers)
        if code is not None:
            for write, array in self.pending:
                if (id(write), array) not in self.kept_before:
                    self._save_before(write, array, self.region_of[id(write)])
        self.pending = []
        return code


    def _recomputation(self, name, region, readers, budget=4):
        """Statements recomputing `name` in the backward sweep, if that is cheap: `name` is
        assigned once in the function, inside the loop `region`, by a number, an index (an
        element or a view) or scalar arithmetic, `abs`, `min`, `max` or a comparison on stable
        names (`_stable`), on numbers the backward sweep puts back anyway (`_maintained`:
        `_t1 = beta * u` with `u` kept) or on names that are themselves recomputed so (at most
        `budget` statements in all); or the shape of a stable array. Else None."""
        definitions = self.definitions.get(name, [])
        if region is None or len(definitions) != 1 or budget == 0:
            return None
        statement = definitions[0]
        value = statement.value
        cheap_call = isinstance(value, gast.Call) and facts.REF.of(value) in \
            _CHEAP_CALLS and not value.keywords and \
            kinds.known(value, facts.SCALARS.of(statement), facts.INTS.of(statement))[0]
        number = isinstance(value, gast.Constant) and type(value.value) in (int, float) or \
            isinstance(value, gast.Attribute) and value.attr in ("shape", "ndim", "size") and \
            isinstance(value.value, gast.Name)  # numbers, or a tuple of them: `A.shape`
        if self.region_of[id(statement)] is not region or not (cheap_call or number or
                                                                isinstance(value, _RECOMPUTED)) \
                or not isinstance(statement.targets[0], gast.Name):
            return None
        arrays = not isinstance(value, gast.Subscript) and not (cheap_call or number) and \
            kinds.rank_of(value, facts.SCALARS.of(statement), facts.INTS.of(statement),
                          facts.RANKS.of(statement, {})) != 0
        if arrays and not isinstance(value, (gast.BinOp, gast.UnaryOp)) or \
                isinstance(getattr(value, "op", None), gast.MatMult):
            return None
        code = []
        for operand in sorted(activity.names_read(value)):
            element_of = isinstance(value, gast.Subscript) and \
                operand == nodes.root_name(value)
            if self._stable(operand, statement) or \
                    self._maintained(operand, statement, readers) or element_of and (
                        self._put_back_at_writes(operand, statement, readers) or
                        self._maintained(operand, statement, readers, whole=True)):
                continue
            before = self._recomputation(operand, region, readers, budget - 1 - len(code))
            if before is None:
                return None
            code += [s for s in before if s not in code]
        if arrays and not all(isinstance(s.value, gast.Subscript) for s in code):
            return None  # arithmetic on arrays: one pass either way, recomputed or copied, but
            # not more (`x - means[k]` is recomputed, without the memory of a kept copy)
        return code + [nodes.assign(name, nodes.clone(value))]


    def _maintained(self, name, definition, readers, whole=False):
        """Whether the number `name` holds at `definition` is what it holds at the start of
        each reader's backward block (after the values put back there): the backward sweep
        puts it back before every block that reads it (kept before each reassignment, or after
        a use by each of the readers themselves), and nothing from `definition` to the reader
        (included) assigns it, in one statement list. `whole`: an array `definition` reads an
        element of, kept whole before each reassignment for blocks of its own, and never
        written into: its element is read from there again (`v[j]` in a loop over j, with v
        kept once per step, is not kept again per (step, j))."""
        if whole:
            if name in facts.SCALARS.of(definition) or name in self.kept_after_use or \
                    name in self.sharing or self.callee_writes:
                return False
        elif name not in facts.SCALARS.of(definition):
            return False
        if name not in self.wanted or name in self.unkept or \
                name in self.exposed or name in self.written or name in self.last_shape:
            return False
        block, start = self.position[id(definition)]
        for reader in readers:
            other, end = self.position.get(id(reader), (None, None))
            last = end if (id(reader), name) in self.put_back_early else end + 1
            if other is not block or end <= start or any(
                    name in self.defined_by(s) for s in walk(block[start + 1:last])):
                return False
        if name not in self.kept_after_use:
            return True  # kept before each reassignment: put back for every block after it
        return self._put_back_for(name, definition, readers)

    def _put_back_for(self, name, definition, readers):
        """Whether `name`, kept after its uses, is put back by the time each reader's block
        runs: some block reading the same value at or after the reader, in its statement list,
        puts it back (the last of a chain, `_last_of_chains`), and it is kept, not itself
        recomputed."""
        if name in self.checking:
            return False  # values computed from each other in a loop: keep them
        region = self.region_of[id(definition)]
        uses = self._readers(self.body, name, region)
        self.checking.add(name)
        pending, self.pending = self.pending, []  # a question only: nothing to keep
        try:
            if not uses or self._recomputation(name, region, uses) is not None:
                return False
        finally:
            self.pending = pending
            self.checking.discard(name)
        keeps = self._last_of_chains(uses, name)
        for reader in readers:
            block, start = self.position[id(reader)]
            if any(self.position.get(id(k), (None, None))[0] is block and
                   self.position[id(k)][1] >= start and
                   not any(name in self.defined_by(s)
                           for s in walk(block[start + 1:self.position[id(k)][1] + 1]))
                   for k in keeps):
                continue
            if name in self.planned:
                return False
        for reader in readers:  # not planned yet: the readers become its readers too
            self.reads.setdefault(id(reader), set()).add(name)
            self.shape_reads.get(id(reader), set()).discard(name)  # and read its value
        return True


    def _put_back_at_writes(self, array, definition, readers):
        """Whether the element `array[...]` that `definition` reads can be read again in place
        by the backward blocks of `readers`, with the old elements kept where the loop writes
        into it (Tapenade's to-be-recorded, at the loop where the value changes): an LSTM's
        state `h`, read in an inner loop once per (t, r, j) but written once per (t, j), is kept
        once per write. Taken when every write into `array` from the loop `definition` is in
        on (`h[j] = ...`; no other name may hold it, no callee writes into it) is kept already
        or sits in fewer loops than `definition`, and nothing writes into it between
        `definition` and each reader. The writes to keep go to `self.pending`."""
        region = self.region_of[id(definition)]
        if region is None or array in self.sharing or self.callee_writes or \
                array not in self.written:
            return False
        block, start = self.position[id(definition)]
        for reader in readers:
            other, end = self.position.get(id(reader), (None, None))
            if other is not block or end < start or any(
                    array in self.defined_by(s) for s in walk(block[start + 1:end + 1])):
                return False
        depth = len(self.loops_around[id(definition)])
        writes = [w for w in self.definitions.get(array, ())
                  if self.top[id(w)] >= self.top[id(region)]]
        for write in writes:
            if activity.written_array(write) != array or \
                    (id(write), array) not in self.kept_before and \
                    len(self.loops_around[id(write)]) >= depth:
                return False
        self.pending.extend((write, array) for write in writes)
        return True


    def _read_deeper_than_written(self, name):
        """Whether `name` is assigned once, an element of an array (`_t11 = h[j]`) read in more
        loops than any statement writing into that array."""
        definitions = self.definitions.get(name, ())
        if len(definitions) != 1 or not isinstance(definitions[0], gast.Assign) or \
                not isinstance(definitions[0].value, gast.Subscript):
            return False
        array = nodes.root_name(definitions[0].value)
        depth = len(self.loops_around[id(definitions[0])])
        return array in self.written and all(
            len(self.loops_around[id(w)]) < depth for w in self.definitions.get(array, ()))


    def _inverse(self, statement, name):
        """`n = n - e` for a statement `n = n + e` (or the other way round; `n = _t5` with
        `_t5 = n + e` just before it, as ANF writes `n += e`) of ints with `e` stable there: a
        counter (`idx += 1`) is put back by undoing its step, not kept."""
        if not isinstance(statement, gast.Assign) or activity.targets(statement) != {name} or \
                name not in facts.INTS.of(statement):
            return None
        value, at = statement.value, statement
        if isinstance(value, gast.Name) and len(self.definitions.get(value.id, ())) == 1:
            at = self.definitions[value.id][0]  # `_t5 = n + e`, right before
            block, k = self.position[id(statement)]
            if k == 0 or block[k - 1] is not at:
                return None
            value = at.value
        if not (isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Sub))
                and isinstance(value.left, gast.Name) and value.left.id == name and
                name not in nodes.names(value.right) and
                kinds.known(value.right, facts.SCALARS.of(at), facts.INTS.of(at))[1] and
                self.stable_expression(value.right, at)):
            return None
        undo = gast.Sub() if isinstance(value.op, gast.Add) else gast.Add()
        return nodes.assign(name, gast.BinOp(nodes.name(name), undo, nodes.clone(value.right)))

    def bound_recomputation(self, loop):
        """`_t4 = j + 1` for `for i in range(_t4, d)` in a loop over j: the names of a `for`
        loop's range that are not stable, computed again from stable ones (`_recomputation`)
        where the backward loop starts, so that it runs the range again instead of keeping the
        range's start and trip count at each trip of the loops around. None if some name is
        neither stable nor so computed, or all are stable."""
        if not isinstance(loop, gast.For) or self.region_of.get(id(loop)) is None:
            return None
        key = ("bounds again", id(loop))
        if key not in self.recorded:
            code = []
            for name in sorted(activity.names_read(loop.iter)):
                if self._stable(name, loop):
                    continue
                again = self._recomputation_kept(name, self.region_of[id(loop)], [loop])
                if again is None:
                    code = None
                    break
                code += [s for s in again if s not in code]
            self.recorded[key] = code or None
        return self.recorded[key]


    # ---- values read for their shape only ------------------------------------------------------

    def _shape_like_for(self, name, region, readers):
        """For `name`, assigned once in the loop `region` and read by the blocks of `readers`
        for its shape alone (`rt.unbroadcast(g, _t4)`, reverse.py), an expression of an array
        of its shape built from the values those blocks have (runtime/likes.py), or None:

            tension = stiffness * (x[1:] - x[:-1] - 1.0)    # x kept, stiffness a parameter
            _t4 = -tension                                   # read for its shape by d_t4
            ->  _t4_like = rt.broadcast_shaped(stiffness, rt.broadcast_shaped(x[1:], x[:-1]))

        Nothing is kept per trip for it, where keeping the value would."""
        if region is None or not readers or \
                not all(name in self.shape_reads.get(id(r), ()) for r in readers):
            return None
        return self._like_of_name(name, region, readers, budget=12)

    def _like_of_name(self, name, region, readers, budget):
        definitions = self.definitions.get(name, [])
        if budget == 0 or len(definitions) != 1:
            return None
        statement = definitions[0]
        if self.region_of[id(statement)] is not region or \
                not isinstance(statement, gast.Assign) or len(statement.targets) != 1 or \
                not isinstance(statement.targets[0], gast.Name):
            return None
        return self._like(statement.value, statement, region, readers, budget - 1)

    def _like(self, node, statement, region, readers, budget):
        """An array expression of `node`'s shape where `readers` run, `node` read at
        `statement`; None if some operand is neither there nor so built."""
        scalars, ints = facts.SCALARS.of(statement), facts.INTS.of(statement)
        if isinstance(node, gast.Constant) or \
                kinds.rank_of(node, scalars, ints, facts.RANKS.of(statement, {})) == 0:
            return nodes.constant(0.0)
        if isinstance(node, gast.Name):
            if self._at_hand(node.id, statement, readers):
                return nodes.name(node.id)
            return self._like_of_name(node.id, region, readers, budget)
        if isinstance(node, gast.Subscript):
            parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
            if not all(isinstance(p, gast.Slice) or isinstance(p, gast.Name) and p.id in ints or
                       isinstance(p, gast.Constant) and type(p.value) is int for p in parts) or \
                    not all(self._at_hand(n, statement, readers)
                            for n in activity.names_read(node.slice)):
                return None  # a view's shape, for basic indices at hand only
            base = self._like(node.value, statement, region, readers, budget)
            return None if base is None else \
                gast.Subscript(base, nodes.clone(node.slice), gast.Load())
        if isinstance(node, gast.UnaryOp):
            return self._like(node.operand, statement, region, readers, budget)
        operands = None
        if isinstance(node, gast.BinOp) and not isinstance(node.op, gast.MatMult):
            operands = [node.left, node.right]
        elif isinstance(node, gast.Compare):
            operands = [node.left] + node.comparators
        elif isinstance(node, gast.Call) and not node.keywords:
            ref = facts.REF.of(node)
            if kinds.is_elementwise(ref):
                operands = node.args
            elif ref in _ALLOCATIONS and len(node.args) == 1 and \
                    all(self._at_hand(n, statement, readers)
                        for n in activity.names_read(node.args[0])):
                return nodes.call("rt.shaped", nodes.clone(node.args[0]))
            elif ref is numpy.concatenate and len(node.args) in (1, 2) and \
                    isinstance(node.args[0], (gast.Tuple, gast.List)) and node.args[0].elts and \
                    (len(node.args) == 1 or isinstance(node.args[1], gast.Constant) and
                     type(node.args[1].value) is int):
                axis = node.args[1] if len(node.args) == 2 else nodes.constant(0)
                likes = [self._like(e, statement, region, readers, budget)
                         for e in node.args[0].elts]
                if any(like is None or _number(like) for like in likes):
                    return None
                joined = likes[0]
                for like in likes[1:]:
                    joined = nodes.call("rt.joined_shaped", joined, like, nodes.clone(axis))
                return joined
        if not operands:
            return None
        likes = [self._like(o, statement, region, readers, budget) for o in operands]
        if any(like is None for like in likes):
            return None
        arrays = [like for like in likes if not _number(like)]
        if not arrays:
            return None
        combined = arrays[0]
        for like in arrays[1:]:
            combined = nodes.call("rt.broadcast_shaped", combined, like)
        return combined

    def _at_hand(self, name, statement, readers):
        """Whether `name` holds, where the blocks of `readers` run, what it held at
        `statement` (a stable name, or one the backward sweep puts back)."""
        return self._stable(name, statement) or self._maintained(
            name, statement, readers, whole=name not in facts.SCALARS.of(statement))


# Calls making an array of the shape their one argument gives (an int or a tuple of ints)
_ALLOCATIONS = {numpy.zeros, numpy.ones, numpy.empty}


def _number(like):
    return isinstance(like, gast.Constant)
