"""Where the values Saves decides to keep go, and the code that keeps and restores them.

`Tape` is the half of `saves.Saves` that writes code: one stack per kept value and loop nest
(`_stack_x.append(x)` / `x = _stack_x.pop()`), turned into a preallocated array indexed by the
loop counter where the trip count is known before the loop; the trip counts and branch flags
of loops and `if`s; the forward sweep with its pushes, and the backward sweep's markers
expanded into loops and branches run in reverse.

    for i in range(n):                     _trips0 = len(range(n))
        s = s * numpy.sin(w[i])            _stack_s = numpy.empty(_trips0)
                                    -->    for i in range(n):
                                               _stack_s[i] = s
                                               s = s * _t1
                                           ...
                                           for i in range(n - 1, -1, -1):
                                               s = _stack_s[i]
                                               ...
"""
import gast

from .. import facts, nodes
from ..front import normalize
from ..analysis import activity, aliases, kinds, loop_shapes
from . import checkpoint, counted, ranges
from .ranges import (
    call as _call,
    is_constant as _is_constant,
    minus_one as _minus_one,
    start_step as _range_start_step,
)


class Tape:
    """The stacks, bookkeeping and code writing of `saves.Saves` (which decides what to keep:
    `defined_by`, `stable_expression` and `unfoldable` are its answers)."""

    def stack_for(self, key, base, element=None):
        """The stack for `key`, made at the first call; `element`: "float", "int" or "bool"
        when it holds numbers of that type only (counted.py may make it an array)."""
        if key not in self._stacks:
            self._stacks[key] = self.namer.fresh(base)
            self.stack_names.append(self._stacks[key])
            if element is not None:
                self.elements[self._stacks[key]] = element
        return self._stacks[key]

    def count_stacks(self, function):
        """counted.py: the stacks of numbers and arrays not preallocated become arrays indexed
        by a count of their loop's trips; their set-up code (placed after `stacks()`)."""
        elements = {stack: element for stack, element in self.elements.items()
                    if stack not in self.preallocated}
        prelude, converted = counted.count(function, elements, self.namer)
        self.preallocated.update(dict.fromkeys(converted))
        return prelude

    def stacks(self):
        return [nodes.assign(name, gast.List([], gast.Load())) for name in self.stack_names
                if name not in self.preallocated]

    def preallocate(self, function):
        """A stack pushed once per iteration of a nest of `for ... in range(...)` loops with a
        known number (a float, an int, a branch flag) becomes an array with one index per loop,
        allocated before the nest
        (`_stack_x[t, i - 1] = x`, `x = _stack_x[t, i - 1]`): no list in compiled code, and a
        push inside an `if` just leaves its slot unused in the other iterations. Each inner
        range must not change while the nest runs (its trip count is read before it)."""
        shapes, indexes, rows = {}, {}, {}
        not_floats = activity.maybe_not_float(function)  # a list keeps their dtype
        for stack, sites in self.sites.items():
            if len(sites) != 1:
                continue
            statement, outer, kept = sites[0]
            loops = self.loops_around[id(statement)]
            if not loops:
                continue
            nest = loops[0] is outer and all(self._indexable(loop, loops) for loop in loops)
            rank = kept_rank(statement, kept)
            if rank:  # an array: rows where its shape stays, else counted.py's ragged entries
                name = _saved_name(kept) or kept
                if isinstance(name, gast.Name) and name.id in not_floats:
                    continue  # (array tapes are float64 in compiled code)
                stable = isinstance(name, gast.Name) and \
                    self.loop_shapes(loops[0]).stable(name.id)
                if stable and nest and len(loops) == 1:
                    # made at the first push, shaped like the array: a row per iteration
                    empty = gast.Tuple([nodes.constant(0)] * (1 + rank), gast.Load())
                    shapes.setdefault(self.recorded[id(outer)], []).append((stack, empty))
                    rows[stack] = self.recorded[id(outer)]
                    indexes[stack] = _index_of(loops[0])
                else:
                    self.elements[stack] = ("rows" if stable else "entries", rank)
                continue
            dtype = counted.DTYPES.get(self.elements.get(stack), False)
            if dtype is False or not nest:  # a known number: a name, or an element kept
                continue
            trips = self.recorded[id(outer)]
            sizes = [nodes.name(trips)] + [_call("len", nodes.clone(self._range_before(loop)))
                                           for loop in loops[1:]]
            shape = sizes[0] if len(sizes) == 1 else gast.Tuple(sizes, gast.Load())
            shapes.setdefault(trips, []).append(
                (stack, shape if dtype is None else (shape, nodes.dotted(dtype))))
            index = [_index_of(loop) for loop in loops]
            indexes[stack] = index[0] if len(index) == 1 else gast.Tuple(index, gast.Load())
        self.preallocated.update(indexes)
        _Preallocate(indexes, shapes, rows).visit(function)

    def loop_shapes(self, loop):
        """loop_shapes.py's analysis of `loop` (made once)."""
        if ("shapes", id(loop)) not in self.recorded:
            outside = set(self.params) | {
                n for n, definitions in self.definitions.items()
                if any(d is not loop and loop not in self.loops_around[id(d)]
                       for d in definitions)}
            self.recorded[("shapes", id(loop))] = loop_shapes.LoopShapes(loop, outside)
        return self.recorded[("shapes", id(loop))]

    def _indexable(self, loop, nest):
        """A `for` over a range whose trip count the nest `nest` can read before it starts."""
        if not isinstance(loop, gast.For) or facts.EXITS.of(loop) or \
                id(loop) not in self.recorded or checkpoint.is_checkpointed(loop) or \
                not isinstance(loop.iter, gast.Call) or \
                getattr(loop.iter.func, "id", None) != "range" or \
                loop.target.id in self.assigned_in(loop):
            return False
        if loop is nest[0]:
            return True
        bounds = nodes.names(self._range_before(loop))
        return not bounds & (self.assigned_in(nest[0]) | {n.target.id for n in nest})

    def _range_before(self, loop):
        """The range of `loop` as it can be read before its nest: the temporaries of its bounds
        that are computed again from stable values put in (`range(1, _t1)` with `_t1 = n - 1`
        is `range(1, n - 1)`), whatever the bound's spelling."""
        values = nodes.values_of(self.bound_recomputation(loop) or [])
        return nodes.substituted(loop.iter, values) if values else loop.iter

    def assigned_in(self, loop):
        if ("assigned", id(loop)) not in self.recorded:
            self.recorded[("assigned", id(loop))] = {
                name for s in walk(loop.body) for name in self.defined_by(s)}
        return self.recorded[("assigned", id(loop))]

    # ---- the backward sweep: markers expanded ------------------------------------------------

    def expand(self, statements, commented=None):
        """`commented`: the origin whose comment the code just before `statements` printed."""
        out = []
        for statement in statements:
            kind = getattr(statement, "kind", None)
            if kind == "stmt":
                key = id(statement.statement)
                body = statement.body
                if key in self.renamed:   # values read for their shape: arrays of it instead
                    body = [nodes.rename(nodes.clone(s), self.renamed[key]) for s in body]
                code = self.loads.get(key, []) + self.instrument(body) + \
                    self.restores.get(key, [])
                origin = _origin(statement.statement)
                if code and origin is not commented:
                    _comment_once(out, f"grad of: {self._comment(origin)}")
                    commented = origin
                out.extend(code)
            elif kind == "restore":
                out.extend(self.restores.get(id(statement.statement), []))
            elif kind == "if":
                out.extend(self._expand_if(statement))
                commented = None
            elif kind == "loop":
                out.extend(self._expand_loop(statement, commented))
                commented = _made_for(statement.statement)
            else:
                out.append(statement)
        return out

    def _expand_if(self, marker):
        statement = marker.statement
        body, orelse = self.expand(marker.body), self.expand(marker.orelse)
        if not body and not orelse:
            return []
        flag = self.namer.numbered("_branch")
        self.recorded[id(statement)] = flag
        code = []
        if not facts.GUARD.of(statement):
            code.append(nodes.Comment(f"grad of: {self._header(statement)}"))
        test = nodes.name(flag)
        if self.region_of[id(statement)] is not None:
            if self.stable_expression(statement.test, statement):
                self.recomputed.add(flag)  # the backward sweep evaluates the test again
                test = self.unfoldable(nodes.clone(statement.test))
            else:
                element = "bool" if _is_truth(statement.test) else None
                stack = self.stack_for(("flag", flag), f"_stack{flag}", element)
                self._bookkeeping_site(stack, statement, flag)
                code.append(nodes.assign(flag, pop(stack)))
        if not body:
            test, body, orelse = gast.UnaryOp(gast.Not(), test), orelse, []
        return code + [gast.If(test, body, orelse)]

    def _expand_loop(self, marker, commented=None):
        """`commented`: for a loop the transformer made for a statement (scalar_loops.py),
        the origin already commented: the loop and its body then print no comment of it."""
        statement = marker.statement
        made = _made_for(statement)
        body, before = self.expand(marker.body, made), marker.orelse
        if not body:
            return before
        put_back = {n.id for s in self.loads.get(id(statement), []) for n in nodes.walk(s)
                    if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        # the zeros before the loop (`dx = rt.zeros_like(x)`) go first, unless they read a
        # value put back for the loop
        early, before = ([], before) if any(put_back & nodes.names(s) for s in before) \
            else (before, [])
        trips = self.namer.numbered("_trips")
        self.recorded[id(statement)] = trips
        said = self._header(statement) if made is None else self._comment(made)
        code = [] if made is not None and made is commented else \
            [nodes.Comment(f"grad of: {said}")]
        bounds_again = [nodes.clone(s) for s in self.bound_recomputation(statement) or ()]
        backwards = self._reversed_range(statement, nodes.values_of(bounds_again))
        if backwards is not None:  # `for i in range(n - 1, 0, -1)`, as a person writes it
            self.recomputed.add(trips)  # not kept: the forward sweep's count, if any, is its own
            loop = gast.For(nodes.clone(statement.target), backwards, body, [], None)
            facts.REVERSED.put(loop, statement)
            return early + code + self.loads.get(id(statement), []) + before + [loop]
        counter, first = self._counter(statement)  # may add the loads of its range's start
        code.extend(self.loads.get(id(statement), []) + before)
        if self.region_of[id(statement)] is not None:
            if self._stable_range(statement):
                self.recomputed.add(trips)  # the backward sweep counts the range again
                code.extend(bounds_again)
                code.append(nodes.assign(trips, _call("len", nodes.clone(statement.iter))))
            else:
                code.append(self.pop_count(("trips", trips), trips, statement))
        if checkpoint.is_checkpointed(statement):
            return early + code + checkpoint.backward(self, statement, counter, first + body)
        backwards = _call("range", gast.BinOp(nodes.name(trips), gast.Sub(), nodes.constant(1)),
                          _minus_one(), _minus_one())
        loop = gast.For(nodes.name(counter, store=True), backwards, first + body, [], None)
        facts.REVERSED.put(loop, statement)  # counted.py: the trips of `statement`, undone
        return early + code + [loop]

    def _reversed_range(self, loop, values):
        """The range the backward sweep runs the counter of `loop` through (ranges.py), for a
        `for` over a range of stable bounds that runs to its end; else None. `values`: name ->
        the expression it is computed again from (`_t4` -> `j + 1`: `range(d - 1, j, -1)`)."""
        if not self._stable_range(loop) or not isinstance(loop.target, gast.Name):
            return None
        return ranges.backwards(loop.iter, values)

    def _stable_range(self, loop):
        """A `for` over a range of stable bounds that runs to its end (its trip count can be
        computed again in the backward sweep)."""
        return isinstance(loop, gast.For) and not facts.EXITS.of(loop) and \
            not checkpoint.is_checkpointed(loop) and \
            (self.stable_expression(loop.iter, loop) or
             self.bound_recomputation(loop) is not None)

    def bound_recomputation(self, loop):
        """Statements computing again, before the backward loop, the names of a `for` loop's
        range that are cheap to compute from stable ones (saves.py); None if there are none."""
        return None

    def _counter(self, loop):
        """The backward loop's counter, and the statement recomputing the forward counter."""
        if not isinstance(loop, gast.For):
            return self.namer.numbered("_k"), []
        target = loop.target.id
        if self.bounds(loop) is None:
            return target, []
        k = self.namer.numbered("_k")
        return k, [nodes.assign(target, self.counter_value(loop, nodes.name(k)))]

    def bounds(self, loop):
        """The (start, step) of a `for` over a range as the backward sweep can read them, or
        None for a range from 0 by 1."""
        start, step = _range_start_step(loop.iter)
        if _is_constant(start, 0) and _is_constant(step, 1):
            return None
        if ("atoms", id(loop)) not in self.recorded:
            self.recorded[("atoms", id(loop))] = (self._bookkeeping(loop, start, "_start"),
                                                  self._bookkeeping(loop, step, "_step"))
        return self.recorded[("atoms", id(loop))]

    def counter_value(self, loop, trip):
        """The loop counter at trip number `trip` (an expression): `start + trip * step`."""
        if self.bounds(loop) is None:
            return trip
        start, step = self.bounds(loop)
        offset = gast.BinOp(trip, gast.Mult(), step)
        return offset if _is_constant(start, 0) else gast.BinOp(start, gast.Add(), offset)

    def _bookkeeping(self, loop, atom, base):
        """A range bound the backward loop needs: literals inline, names kept at loop entry."""
        if not isinstance(atom, gast.Name):
            return atom
        local = self.namer.numbered(base)
        self.recorded.setdefault(("bounds", id(loop)), []).append((local, atom))
        if self.region_of[id(loop)] is None:
            return nodes.name(local)
        stack = self.stack_for(("bounds", local), f"_stack{local}", "int")
        self._bookkeeping_site(stack, loop, local)
        self.loads[id(loop)].append(nodes.assign(local, pop(stack)))
        return nodes.name(local)

    # ---- the forward sweep -------------------------------------------------------------------

    def forward(self, statements, taped=True, previous=None):
        """The forward sweep of `statements`: the primal code with what is kept for the backward
        sweep, or (`taped=False`) the primal code alone. `previous`: the origin commented just
        before (a loop's own, for its body)."""
        out = []
        for statement in statements:
            origin = _origin(statement)
            code = self._forward_one(statement, taped)
            if taped:
                code = self.before.get(id(statement), []) + code + \
                    self.after.get(id(statement), [])
            if not code:
                continue  # a `with s2sad.grad_of(...)`: backward only
            if origin is not previous and not facts.GUARD.of(statement):
                _comment_once(out, self._header(statement) if isinstance(
                    statement, (gast.If, gast.For, gast.While)) else self._comment(origin))
            previous = origin
            out.extend(code)
        return out

    def _forward_one(self, statement, taped=True):
        in_loop = self.region_of[id(statement)] is not None
        if isinstance(statement, gast.If):
            body, orelse = self.forward(statement.body, taped), \
                self.forward(statement.orelse, taped)
            flag = self.recorded.get(id(statement)) if taped else None
            test = self.unfoldable(statement.test if taped else nodes.clone(statement.test))
            if flag is None or flag in self.recomputed:  # no flag: nothing reads it
                return [gast.If(test, body or [gast.Pass()], orelse)]
            code = [nodes.assign(flag, test)]
            if in_loop and flag not in self.recomputed:
                code.append(push(self.stack_for(("flag", flag), f"_stack{flag}"),
                                  nodes.name(flag)))
            return code + [gast.If(nodes.name(flag), body or [gast.Pass()], orelse)]
        if normalize.is_hook(statement):
            return []
        if not is_loop(statement):
            value = getattr(statement, "value", None)
            viewed = value.value.id if isinstance(value, gast.Subscript) and \
                not _is_element(statement) else aliases.view_source(value)
            if viewed in self.written and not self.final(viewed, statement):
                # a view of an array written in place later (`x[1:]`, `numpy.flip(x)`) would
                # change under our feet
                copy = gast.Assign(statement.targets, nodes.call("rt.saved", value), None)
                return [gast.copy_location(copy, statement)]
            return [statement] if taped else [nodes.clone(statement)]
        if taped and checkpoint.is_checkpointed(statement) and id(statement) in self.recorded:
            return checkpoint.forward(self, statement)
        body = self.forward(statement.body, taped, _origin(statement))
        exits = facts.EXITS.of(statement, [])
        if exits:
            body.append(checkpoint.exit_test(exits, body))
        trips = self.recorded.get(id(statement)) if taped else None
        code = self.keep_bounds(statement) if taped else []
        if trips is not None:
            if isinstance(statement, gast.For) and not exits:
                if not (in_loop and trips in self.recomputed):  # else the backward sweep
                    code.append(nodes.assign(trips, _call("len", statement.iter)))  # counts
            else:
                code.append(nodes.assign(trips, nodes.constant(0)))
                body.insert(0, nodes.assign(trips, gast.BinOp(
                    nodes.name(trips), gast.Add(), nodes.constant(1))))
        copy = (lambda node: node) if taped else nodes.clone
        loop = type(statement)(**{f: [] if f in ("body", "orelse") else copy(getattr(statement, f))
                                  for f in statement._fields})
        loop.body, loop.orelse = body or [gast.Pass()], []
        if isinstance(loop, gast.While):  # a test Numba would fold prunes what the body keeps
            loop.test = self.unfoldable(loop.test)
        if taped:
            facts.TAPED.put(loop, statement)  # counted.py: the trips of `statement`
        code.append(loop)
        if trips is not None and in_loop and trips not in self.recomputed:
            code.append(self.keep_count(("trips", trips), trips))
        return code

    def _bookkeeping_site(self, stack, statement, name):
        """Record where the bookkeeping number `name` is pushed (in the statement list holding
        `statement`), so that `preallocate` may give it an array like a kept value."""
        self.sites.setdefault(stack, []).append(
            (statement, self.region_of[id(statement)], nodes.name(name)))

    def keep_bounds(self, loop):
        """Forward: the range bounds the backward loop needs, kept at loop entry."""
        code = []
        for local, atom in self.recorded.get(("bounds", id(loop)), []):
            code.append(nodes.assign(local, atom))
            if self.region_of[id(loop)] is not None:
                code.append(self.keep_count(("bounds", local), local))
        return code

    def keep_count(self, key, name):
        """Forward: push the bookkeeping value `name` on its stack (inside loops)."""
        return push(self.stack_for(key, f"_stack{name}", "int"), nodes.name(name))

    def pop_count(self, key, name, statement=None):
        """Backward: `name = <its stack>.pop()`; `statement`: the one whose bookkeeping it is
        (pushed where it stands, `_bookkeeping_site`)."""
        stack = self.stack_for(key, f"_stack{name}", "int")
        if statement is not None:
            self._bookkeeping_site(stack, statement, name)
        return nodes.assign(name, pop(stack))

    # ---- comments ----------------------------------------------------------------------------

    def _comment(self, origin):
        if isinstance(origin, (gast.If, gast.For, gast.While, gast.With)):  # a loop bound's temp
            return f"{self.source.header(origin)}   [{self.source.where(origin)}]"
        return f"{self._segment(origin)}   [{self.source.where(origin)}]"

    def _header(self, statement):
        origin = _origin(statement)
        return f"{self.source.header(origin)}   [{self.source.where(origin)}]"

    def _segment(self, origin):
        return self.source.segment(origin)


class _Preallocate(nodes.Transformer):
    """`s.append(v)` -> `s[index] = v`, `s.pop()` -> `s[index]`, and `s = numpy.empty(shape)`
    right after the trip count of the outermost loop, for the preallocated stacks."""

    def __init__(self, indexes, shapes, rows):
        self.indexes = indexes   # stack -> its index expression
        self.shapes = shapes     # trip count of an outermost loop -> [(stack, shape or
        # (shape, dtype))]
        self.rows = rows         # stack of arrays -> its loop's trip count (rt.keep_row)

    def visit_Expr(self, node):
        call = node.value
        stack = _method_target(call, "append")
        if stack in self.rows:
            value = _saved_name(call.args[0]) or call.args[0]
            keep = nodes.call("rt.keep_row", nodes.name(stack), nodes.name(self.rows[stack]),
                              nodes.clone(self.indexes[stack]), value)
            return nodes.assign(stack, keep)
        if stack in self.indexes:
            target = gast.Subscript(nodes.name(stack), nodes.clone(self.indexes[stack]),
                                    gast.Store())
            value = call.args[0]
            if isinstance(value, gast.Call) and nodes.dotted_parts(value.func) == \
                    ["rt", "saved"] and isinstance(value.args[0], gast.Subscript):
                value = value.args[0]  # an element: the array of numbers keeps a copy
            return gast.Assign([target], value, None)
        return self.generic_visit(node)

    def visit_Call(self, node):
        stack = _method_target(node, "pop")
        if stack in self.indexes:
            return gast.Subscript(nodes.name(stack), nodes.clone(self.indexes[stack]),
                                  gast.Load())
        return self.generic_visit(node)

    def visit_Assign(self, node):
        self.generic_visit(node)
        target = node.targets[0]
        if isinstance(target, gast.Name) and target.id in self.shapes and \
                isinstance(node.value, gast.Call) and \
                getattr(node.value.func, "id", None) == "len":
            return [node] + [nodes.assign(stack, nodes.call("numpy.empty", *map(
                nodes.clone, shape if isinstance(shape, tuple) else (shape,))))
                for stack, shape in self.shapes.pop(target.id)]
        return node


def _is_truth(test):
    """Whether a branch test gives a bool: a comparison, `not`, `and`/`or` of those, or
    rt.flag around one."""
    if isinstance(test, gast.Call) and nodes.dotted_parts(test.func) == ["rt", "flag"] and \
            len(test.args) == 1:
        return _is_truth(test.args[0])
    if isinstance(test, gast.BoolOp):
        return all(_is_truth(v) for v in test.values)
    return isinstance(test, gast.Compare) or \
        isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not) or \
        isinstance(test, gast.Constant) and isinstance(test.value, bool)


def kept_rank(statement, kept):
    """The rank of the array a push keeps (`x`, `rt.saved(x)`, `rt.saved(x[i:j])`), when kinds.py
    knows it; None for a number or what is not known."""
    if isinstance(kept, gast.Call) and nodes.dotted_parts(kept.func) == ["rt", "saved"] and \
            len(kept.args) == 1:
        kept = kept.args[0]
    if isinstance(kept, gast.Name):
        return _rank_at(statement, kept.id)
    if isinstance(kept, gast.Subscript) and isinstance(kept.value, gast.Name):
        rank = facts.RANKS.of(statement, {}).get(kept.value.id)
        if rank is not None:
            return kinds.indexed_rank(rank, kept.slice, facts.SCALARS.of(statement),
                                      facts.INTS.of(statement))
    return None


def _saved_name(kept):
    """x of `rt.saved(x)`, else None."""
    if isinstance(kept, gast.Call) and isinstance(kept.func, gast.Attribute) and \
            kept.func.attr == "saved" and len(kept.args) == 1 and \
            isinstance(kept.args[0], gast.Name):
        return kept.args[0]
    return None


def _rank_at(statement, name):
    """The rank kinds.py knows for `name` at `statement` (or right after it, when the
    statement makes it: a value kept right after it is made), or None."""
    ranks = facts.RANKS.of(statement, {})
    rank = ranks.get(name)
    if rank is None and isinstance(statement, gast.Assign) and \
            activity.targets(statement) == {name}:
        rank = kinds.rank_of(statement.value, facts.SCALARS.of(statement), facts.INTS.of(statement),
                             ranks)
    return rank


def _is_element(statement):
    """`statement` reads one element of an array (kinds.py knows the rank and the ints)."""
    value = statement.value
    rank = facts.RANKS.of(statement, {}).get(value.value.id)
    return rank is not None and kinds.indexed_rank(
        rank, value.slice, facts.SCALARS.of(statement), facts.INTS.of(statement)) == 0


def _index_of(loop):
    """The iteration number of `for i in range(a, b, s)` from i: `i`, `i - a`, `(i - a) // s`."""
    start, step = _range_start_step(loop.iter)
    index = nodes.name(loop.target.id)
    if not _is_constant(start, 0):
        index = gast.BinOp(index, gast.Sub(), nodes.clone(start))
    if not _is_constant(step, 1):
        index = gast.BinOp(index, gast.FloorDiv(), nodes.clone(step))
    return index


def _method_target(call, method):
    if isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and \
            call.func.attr == method and isinstance(call.func.value, gast.Name):
        return call.func.value.id
    return None


def _comment_once(out, text):
    """Comment the code about to be added to `out`, unless the last comment there already says
    the same (the statements desugar.py made of one, `a, b` of `for a, b in zip(...)`)."""
    last = next((s for s in reversed(out) if isinstance(s, nodes.Comment)), None)
    if last is None or last.text != text:
        out.append(nodes.Comment(text))


def _origin(statement):
    return facts.ORIGIN.of(statement, statement)


def _made_for(loop):
    """The statement scalar_loops.py made a loop for; None for a loop of the source."""
    origin = _origin(loop)
    return None if isinstance(origin, (gast.For, gast.While)) else origin


def walk(statements):
    """Every statement, in forward order, compounds before their contents."""
    for statement in statements:
        yield statement
        for child in children(statement):
            yield from walk(child)


def is_loop(statement):
    return isinstance(statement, (gast.For, gast.While))


def push(stack, value):
    return gast.Expr(gast.Call(gast.Attribute(nodes.name(stack), "append", gast.Load()),
                               [value], []))


def pop(stack):
    return gast.Call(gast.Attribute(nodes.name(stack), "pop", gast.Load()), [], [])


def children(statement):
    if isinstance(statement, gast.If):
        return [statement.body, statement.orelse]
    if is_loop(statement):
        return [statement.body]
    return []
