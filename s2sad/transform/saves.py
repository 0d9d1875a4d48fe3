"""What the forward sweep keeps for the backward sweep, and where it puts it back.

The backward block of a statement reads primal names (`dx = dz * numpy.cos(x)` reads x) and
must see the value they had at that statement. Two ways to get there, chosen per name:

- *save before overwrite*: where a name that already holds a value is reassigned, keep the old
  value, and put it back once the reassignment's own block has run. Used where the name holds a
  value at every reassignment (outside loops: at each one; in a loop: before the loop).
- *save after use*: a name that may not exist yet where it is reassigned (first assigned inside a
  loop or one branch) is kept right after each statement whose block reads it, and put back just
  before that block.

Outside loops a value is kept in a local (`_x_0 = x`); inside a loop on a stack, one per name
(`_stack_x.append(x)` / `x = _stack_x.pop()`). Only names some backward block reads are kept.
An `if` that has backward work records its branch (`_branch0`), a loop its trip count
(`_trips0`); on a stack when they are themselves inside a loop. A checkpointed loop
(checkpoint.py) keeps snapshots in the forward sweep and runs this taped code per segment in the
backward sweep.
"""
import collections

import gast
import numpy

from . import activity, checkpoint, kinds, nodes, normalize


class Saves:
    def __init__(self, source, body, reads, final_reads, namer, instrument=None):
        self.source = source
        self.instrument = instrument or (lambda block: block)  # nancheck.py adds checks
        self.namer = namer
        self.reads = reads
        self.wanted = set().union(final_reads, *reads.values())
        self.written = activity.written_arrays(body)
        self.exposed = _sharing_with(self.written, _simple(body)) - self.written
        self.before = collections.defaultdict(list)   # forward, before a statement
        self.after = collections.defaultdict(list)    # forward, after it
        self.restores = collections.defaultdict(list)  # backward, after its block
        self.loads = collections.defaultdict(list)    # backward, before its block
        self.stack_names = []
        self._stacks = {}
        self.sites = {}          # stack name -> [(statement, loop, kept value)]
        self.preallocated = {}   # stack name -> the loop counter indexing it
        self.restored = set()
        self.recorded = {}       # id(compound) -> its bookkeeping
        self.recomputed = set()  # branch flags and trip counts evaluated again, not kept
        self.region_of = {}      # id(statement) -> outermost enclosing loop, or None
        self.position = {}       # id(statement) -> (the statement list holding it, its index)
        self.loops_around = {}   # id(statement) -> the loops around it, outermost first
        self.definitions = collections.defaultdict(list)  # name -> statements assigning it
        self.body = body
        self.params = {a.id for a in list(source.tree.args.posonlyargs) +
                       list(source.tree.args.args) + list(source.tree.args.kwonlyargs)}
        self._regions(body, None)
        self._plan(body)

    # ---- deciding ------------------------------------------------------------------------------

    def _regions(self, statements, region, loops=()):
        for index, statement in enumerate(statements):
            self.region_of[id(statement)] = region
            self.loops_around[id(statement)] = loops
            self.position[id(statement)] = (statements, index)
            for name in self._defined_by(statement):
                self.definitions[name].append(statement)
            inner = loops + (statement,) if _is_loop(statement) else loops
            for child in _children(statement):
                self._regions(child, region or statement if _is_loop(statement) else region,
                              inner)

    def _plan(self, body):
        after_use = collections.defaultdict(set)     # region -> names kept after each use
        for statement in _walk(body):
            region = self.region_of[id(statement)]
            for name in self._defined_by(statement):
                if name not in self.wanted:
                    continue
                exists = region.s2sad_defined if region is not None else statement.s2sad_defined
                if name in exists or activity.written_array(statement) == name:
                    self._save_before(statement, name, region)
                elif region is not None or name in statement.s2sad_maybe or \
                        name in self.exposed:  # it may change: written under another name
                    after_use[id(region)].add(name)
        for name in self.params & self.exposed & self.wanted:  # `x = x0; x[0] = c`: x0 changes
            after_use[id(None)].add(name)
        regions = {id(r): r for r in (self.region_of[id(s)] for s in _walk(body))}
        for key, names in after_use.items():
            for name in sorted(names):
                self._save_after_uses(body, name, regions.get(key))

    def _defined_by(self, statement):
        if _is_loop(statement):
            return activity.loop_target(statement)
        if normalize.is_hook(statement):
            return set()  # an identity: the value stays
        if isinstance(statement, gast.Assign):
            array = activity.written_array(statement)
            return {array} if array else activity.targets(statement)
        return set()

    def _save_before(self, statement, name, region):
        array = activity.written_array(statement)
        if array is not None:  # keep the overwritten elements only
            index = statement.targets[0].slice
            part = gast.Subscript(nodes.name(name), index, gast.Load())
            kept = nodes.call("rt.saved", part)
            put_back = lambda value: gast.Assign(  # noqa: E731
                [gast.Subscript(nodes.name(name), index, gast.Store())], value, None)
            key = ("element", id(statement))
        else:
            kept = self._kept(name, statement, after=False)
            put_back = lambda value: nodes.assign(name, value)  # noqa: E731
            key = ("before", name, id(region))
            self.restored.add(name)
        self._keep(statement, region, key, name, kept, put_back, self.before, self.restores)

    def _save_after_uses(self, body, name, region):
        readers = []
        for statement in _walk(body):
            if self.region_of[id(statement)] is not region:
                continue
            reads = self.reads.get(id(statement), set())
            if _is_loop(statement) and region is None:  # the loop reads what its blocks read
                inside = set().union(*(self.reads.get(id(s), set()) for s in _walk([statement])))
                assigned = {n for s in _walk(statement.body) for n in self._defined_by(s)}
                reads = inside - assigned
            if name in reads and not self._recomputed(statement, name, body):
                readers.append(statement)
        if not readers:
            return
        self.restored.add(name)
        recompute = self._recomputation(name, region)
        if recompute is not None:  # cheaper to recompute than to keep
            for statement in readers:
                self.loads[id(statement)][:0] = [nodes.clone(s) for s in recompute]
            return
        for statement in self._last_of_chains(readers, name):
            self._keep(statement, region, ("after", name, id(region)), name,
                       self._kept(name, statement, after=True),
                       lambda value: nodes.assign(name, value), self.after, self.loads)

    def _last_of_chains(self, readers, name):
        """Readers that see the same value of `name` one after another in one block share one
        kept copy: keep it after the last of them; its block (the first to run backwards)
        puts it back for the others."""
        last = []
        for previous, statement in zip([None] + readers, readers):
            if previous is not None and self._same_value(previous, statement, name):
                last[-1] = statement
            else:
                last.append(statement)
        return last

    def _same_value(self, previous, statement, name):
        block, i = self.position.get(id(previous), (None, None))
        other, j = self.position.get(id(statement), (None, None))
        if block is None or block is not other or name in self._defined_by(statement):
            return False
        return not any(name in self._defined_by(s) for s in _walk(block[i + 1:j]))

    def _recomputation(self, name, region, budget=4):
        """Statements recomputing `name` in the backward sweep, if that is cheap: `name` is
        assigned once in the function, inside the loop `region`, by an index (an element or a
        view) or scalar arithmetic or a comparison on stable names (`_stable`) or on names that are
        themselves recomputed so (at most `budget` statements in all). Else None."""
        definitions = self.definitions.get(name, [])
        if region is None or len(definitions) != 1 or budget == 0:
            return None
        statement = definitions[0]
        value = statement.value
        if self.region_of[id(statement)] is not region or \
                not isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Subscript)) \
                or not isinstance(statement.targets[0], gast.Name):
            return None
        if not isinstance(value, gast.Subscript) and kinds.rank_of(
                value, statement.s2sad_scalars, statement.s2sad_ints,
                getattr(statement, "s2sad_ranks", {})) != 0:
            return None  # arithmetic on arrays: recomputing costs as much as keeping a copy
        code = []
        for operand in sorted(activity.names_read(value)):
            if self._stable(operand, statement):
                continue
            before = self._recomputation(operand, region, budget - 1 - len(code))
            if before is None:
                return None
            code += [s for s in before if s not in code]
        return code + [nodes.assign(name, nodes.clone(value))]

    def _stable(self, name, statement):
        """Whether `name` has, wherever the backward block of `statement` runs, the value it had
        at `statement`: a parameter never assigned or written in place, a name assigned once
        outside loops and never written in place, or the counter of an enclosing `for` loop
        (the backward loop recomputes it)."""
        if name in self.written:
            return False
        definitions = self.definitions.get(name, [])
        if not definitions:
            return True  # a parameter, or a global inlined as a constant
        if any(isinstance(d, (gast.For, gast.While)) for d in definitions):
            return any(loop.target.id == name and self._recomputed(statement, name, self.body)
                       for loop in self.loops_around.get(id(statement), ())
                       if isinstance(loop, gast.For))
        return len(definitions) == 1 and name not in self.params and \
            self.region_of[id(definitions[0])] is None

    def _unfoldable(self, test):
        """`test` with `rt.flag(...)` around what depends on constants only (the whole test, or
        an operand of `and`/`or`, which Python evaluates as a branch): Numba would fold it and
        prune the branch, leaving what the branch records (a stack, `_result`) untyped."""
        if self._constant(test):
            return nodes.call("rt.flag", test)
        if isinstance(test, gast.BoolOp):
            return gast.copy_location(
                gast.BoolOp(test.op, [self._unfoldable(v) for v in test.values]), test)
        return test

    def _constant(self, expression):
        """Whether `expression` is computed from literals only, through names assigned once."""
        if isinstance(expression, gast.Call):
            return False
        return all(self._constant_name(n) for n in activity.names_read(expression))

    def _constant_name(self, name):
        key = ("constant", name)
        if key not in self.recorded:
            self.recorded[key] = False  # (a name defined from itself is not constant)
            definitions = self.definitions.get(name, [])
            value = getattr(definitions[0], "value", None) if len(definitions) == 1 else None
            self.recorded[key] = name not in self.params and isinstance(
                value, (gast.Constant, gast.Name, gast.Compare, gast.BoolOp, gast.BinOp,
                        gast.UnaryOp)) and self._constant(value)
        return self.recorded[key]

    def _stable_expression(self, expression, statement):
        return all(self._stable(n, statement) for n in activity.names_read(expression))

    def _recomputed(self, statement, name, body):
        """A `for` counter is recomputed by the backward loop: reads inside need no save."""
        loops = self.loops_around.get(id(statement)) if body is self.body else \
            _enclosing_loops(body, statement)
        for loop in loops or ():
            if isinstance(loop, gast.For) and loop.target.id == name and \
                    name not in self._assigned_in(loop):
                return True
        return False

    def _kept(self, name, statement, after):
        """The expression that keeps `name`'s value: arrays are copied (they may be written in
        place later, and a stack holds one array layout); known scalars are kept as they are."""
        if name in getattr(statement, "s2sad_scalars", ()) and not (
                after and name in activity.targets(statement)):
            return nodes.name(name)
        if self._private(name):
            kept = nodes.name(name)
            kept.s2sad_array = True  # not a number: no preallocated float stack for it
            return kept
        return nodes.call("rt.saved", nodes.name(name))

    def _private(self, name):
        """Whether every value `name` holds is a new array no other name can see, so keeping it
        needs no copy: each assignment makes one (arithmetic, a ufunc, a copy), nothing writes
        into it, and it is only read by operations that make new values too."""
        if ("private", name) not in self.recorded:
            definitions = self.definitions.get(name, [])
            self.recorded[("private", name)] = bool(definitions) and \
                name not in self.written and \
                all(self._makes_new_array(d) for d in definitions) and \
                all(self._only_computes_from(name, s) for s in _simple(self.body))
        return self.recorded[("private", name)]

    def _makes_new_array(self, statement):
        value = getattr(statement, "value", None)
        if isinstance(value, (gast.BinOp, gast.UnaryOp)):
            return True
        if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
            return value.value.id in self.written  # copied when kept (`_forward_one`)
        return isinstance(value, gast.Call) and isinstance(
            getattr(value, "s2sad_ref", None), numpy.ufunc) and not value.keywords

    def _only_computes_from(self, name, statement):
        """`statement` reads `name` only as an operand of arithmetic, a ufunc or a reduction."""
        value = statement.value
        if name not in activity.names_read(value):
            return True
        if isinstance(value, (gast.BinOp, gast.UnaryOp)):
            return True
        return isinstance(value, gast.Call) and (
            isinstance(getattr(value, "s2sad_ref", None), numpy.ufunc) or
            kinds.full_reduction(value))

    def _keep(self, statement, region, key, name, kept, put_back, forward, backward):
        if region is None:
            local = self.namer.numbered(f"_{name.lstrip('_')}_")
            forward[id(statement)].append(nodes.assign(local, kept))
            backward[id(statement)].append(put_back(nodes.name(local)))
        else:
            stack = self._stack(key, f"_stack_{name}")
            forward[id(statement)].append(_push(stack, kept))
            backward[id(statement)].insert(0, put_back(_pop(stack)))
            self.sites.setdefault(stack, []).append((statement, region, kept))

    def _stack(self, key, base):
        if key not in self._stacks:
            self._stacks[key] = self.namer.fresh(base)
            self.stack_names.append(self._stacks[key])
        return self._stacks[key]

    def stacks(self):
        return [nodes.assign(name, gast.List([], gast.Load())) for name in self.stack_names
                if name not in self.preallocated]

    def preallocate(self, function):
        """Stacks pushed once per iteration of `for i in range(n)`, with a known float, become
        arrays allocated before the loop and indexed by `i` (`_stack_x[i] = x`,
        `x = _stack_x[i]`): about twice as fast as a list in compiled code."""
        loops = {}
        for stack, sites in self.sites.items():
            if len(sites) != 1:
                continue
            statement, loop, kept = sites[0]
            if self._indexable(loop) and any(s is statement for s in loop.body) and \
                    isinstance(kept, gast.Name) and kept.id not in statement.s2sad_ints and \
                    not getattr(kept, "s2sad_array", False):
                loops.setdefault(id(loop), []).append(stack)
                self.preallocated[stack] = loop.target.id
        _Preallocate(self.preallocated, {self.recorded[k]: v for k, v in loops.items()
                                         if k in self.recorded}).visit(function)

    def _indexable(self, loop):
        if not isinstance(loop, gast.For) or getattr(loop, "s2sad_exits", None) or \
                id(loop) not in self.recorded or checkpoint.is_checkpointed(loop):
            return False
        start, step = _range_start_step(loop.iter)
        return _is_constant(start, 0) and _is_constant(step, 1) and \
            loop.target.id not in self._assigned_in(loop)

    def _assigned_in(self, loop):
        if ("assigned", id(loop)) not in self.recorded:
            self.recorded[("assigned", id(loop))] = {
                name for s in _walk(loop.body) for name in self._defined_by(s)}
        return self.recorded[("assigned", id(loop))]

    # ---- the backward sweep: markers expanded ------------------------------------------------

    def expand(self, statements):
        out, commented = [], None
        for statement in statements:
            kind = getattr(statement, "kind", None)
            if kind == "stmt":
                key = id(statement.statement)
                code = self.loads.get(key, []) + self.instrument(statement.body) + \
                    self.restores.get(key, [])
                origin = _origin(statement.statement)
                if code and origin is not commented:
                    out.append(nodes.Comment(f"grad of: {self._comment(origin)}"))
                    commented = origin
                out.extend(code)
            elif kind == "restore":
                out.extend(self.restores.get(id(statement.statement), []))
            elif kind == "if":
                out.extend(self._expand_if(statement))
                commented = None
            elif kind == "loop":
                out.extend(self._expand_loop(statement))
                commented = None
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
        if not getattr(statement, "s2sad_guard", False):
            code.append(nodes.Comment(f"grad of: {self._header(statement)}"))
        if self.region_of[id(statement)] is not None:
            if self._stable_expression(statement.test, statement):
                self.recomputed.add(flag)  # the backward sweep evaluates the test again
                code.append(nodes.assign(flag, self._unfoldable(nodes.clone(statement.test))))
            else:
                code.append(nodes.assign(flag, _pop(self._stack(("flag", flag),
                                                                f"_stack{flag}"))))
        test = nodes.name(flag)
        if not body:
            test, body, orelse = gast.UnaryOp(gast.Not(), test), orelse, []
        return code + [gast.If(test, body, orelse)]

    def _expand_loop(self, marker):
        statement = marker.statement
        body = self.expand(marker.body)
        if not body:
            return []
        trips = self.namer.numbered("_trips")
        self.recorded[id(statement)] = trips
        counter, first = self._counter(statement)
        code = [nodes.Comment(f"grad of: {self._header(statement)}")]
        code.extend(self.loads.get(id(statement), []))
        if self.region_of[id(statement)] is not None:
            if self._stable_range(statement):
                self.recomputed.add(trips)  # the backward sweep counts the range again
                code.append(nodes.assign(trips, _call("len", nodes.clone(statement.iter))))
            else:
                code.append(self.pop_count(("trips", trips), trips))
        if checkpoint.is_checkpointed(statement):
            return code + checkpoint.backward(self, statement, counter, first + body)
        backwards = _call("range", gast.BinOp(nodes.name(trips), gast.Sub(), nodes.constant(1)),
                          _minus_one(), _minus_one())
        return code + [gast.For(nodes.name(counter, store=True), backwards, first + body, [],
                                None)]

    def _stable_range(self, loop):
        """A `for` over a range of stable bounds that runs to its end (its trip count can be
        computed again in the backward sweep)."""
        return isinstance(loop, gast.For) and not getattr(loop, "s2sad_exits", None) and \
            not checkpoint.is_checkpointed(loop) and \
            self._stable_expression(loop.iter, loop)

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
        return gast.BinOp(start, gast.Add(), gast.BinOp(trip, gast.Mult(), step))

    def _bookkeeping(self, loop, atom, base):
        """A range bound the backward loop needs: literals inline, names kept at loop entry."""
        if not isinstance(atom, gast.Name):
            return atom
        local = self.namer.numbered(base)
        self.recorded.setdefault(("bounds", id(loop)), []).append((local, atom))
        if self.region_of[id(loop)] is None:
            return nodes.name(local)
        stack = self._stack(("bounds", local), f"_stack{local}")
        self.loads[id(loop)].append(nodes.assign(local, _pop(stack)))
        return nodes.name(local)

    # ---- the forward sweep -------------------------------------------------------------------

    def forward(self, statements, taped=True):
        """The forward sweep of `statements`: the primal code with what is kept for the backward
        sweep, or (`taped=False`) the primal code alone."""
        out, previous = [], None
        for statement in statements:
            origin = _origin(statement)
            code = self._forward_one(statement, taped)
            if taped:
                code = self.before.get(id(statement), []) + code + \
                    self.after.get(id(statement), [])
            if not code:
                continue  # a `with s2sad.grad_of(...)`: backward only
            if origin is not previous and not getattr(statement, "s2sad_guard", False):
                out.append(nodes.Comment(self._header(statement) if isinstance(
                    statement, (gast.If, gast.For, gast.While)) else self._comment(origin)))
            previous = origin
            out.extend(code)
        return out

    def _forward_one(self, statement, taped=True):
        in_loop = self.region_of[id(statement)] is not None
        if isinstance(statement, gast.If):
            body, orelse = self.forward(statement.body, taped), \
                self.forward(statement.orelse, taped)
            flag = self.recorded.get(id(statement)) if taped else None
            test = self._unfoldable(statement.test if taped else nodes.clone(statement.test))
            if flag is None:
                return [gast.If(test, body or [gast.Pass()], orelse)]
            code = [nodes.assign(flag, test)]
            if in_loop and flag not in self.recomputed:
                code.append(_push(self._stack(("flag", flag), f"_stack{flag}"),
                                  nodes.name(flag)))
            return code + [gast.If(nodes.name(flag), body or [gast.Pass()], orelse)]
        if normalize.is_hook(statement):
            return []
        if not _is_loop(statement):
            value = getattr(statement, "value", None)
            if isinstance(value, gast.Subscript) and value.value.id in self.written:
                # a view of an array written in place later would change under our feet
                copy = gast.Assign(statement.targets, nodes.call("rt.saved", value), None)
                return [gast.copy_location(copy, statement)]
            return [statement] if taped else [nodes.clone(statement)]
        if taped and checkpoint.is_checkpointed(statement) and id(statement) in self.recorded:
            return checkpoint.forward(self, statement)
        body = self.forward(statement.body, taped)
        exits = getattr(statement, "s2sad_exits", [])
        if exits:
            body.append(checkpoint.exit_test(exits))
        trips = self.recorded.get(id(statement)) if taped else None
        code = self.keep_bounds(statement) if taped else []
        if trips is not None:
            if isinstance(statement, gast.For) and not exits:
                code.append(nodes.assign(trips, _call("len", statement.iter)))
            else:
                code.append(nodes.assign(trips, nodes.constant(0)))
                body.insert(0, nodes.assign(trips, gast.BinOp(
                    nodes.name(trips), gast.Add(), nodes.constant(1))))
        copy = (lambda node: node) if taped else nodes.clone
        loop = type(statement)(**{f: [] if f in ("body", "orelse") else copy(getattr(statement, f))
                                  for f in statement._fields})
        loop.body, loop.orelse = body or [gast.Pass()], []
        code.append(loop)
        if trips is not None and in_loop and trips not in self.recomputed:
            code.append(self.keep_count(("trips", trips), trips))
        return code

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
        return _push(self._stack(key, f"_stack{name}"), nodes.name(name))

    def pop_count(self, key, name):
        """Backward: `name = <its stack>.pop()`."""
        return nodes.assign(name, _pop(self._stack(key, f"_stack{name}")))

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


class _Preallocate(gast.NodeTransformer):
    """`s.append(v)` -> `s[i] = v`, `s.pop()` -> `s[i]`, and `s = numpy.empty(_trips0)` right
    after the trip count, for the preallocated stacks."""

    def __init__(self, counters, stacks_by_trips):
        self.counters = counters
        self.stacks_by_trips = stacks_by_trips

    def visit_Expr(self, node):
        call = node.value
        stack = _method_target(call, "append")
        if stack in self.counters:
            target = gast.Subscript(nodes.name(stack), nodes.name(self.counters[stack]),
                                    gast.Store())
            return gast.Assign([target], call.args[0], None)
        return self.generic_visit(node)

    def visit_Call(self, node):
        stack = _method_target(node, "pop")
        if stack in self.counters:
            return gast.Subscript(nodes.name(stack), nodes.name(self.counters[stack]),
                                  gast.Load())
        return self.generic_visit(node)

    def visit_Assign(self, node):
        self.generic_visit(node)
        target = node.targets[0]
        if isinstance(target, gast.Name) and target.id in self.stacks_by_trips and \
                isinstance(node.value, gast.Call) and \
                getattr(node.value.func, "id", None) == "len":
            return [node] + [nodes.assign(stack, nodes.call("numpy.empty", nodes.name(target.id)))
                             for stack in self.stacks_by_trips[target.id]]
        return node


def _method_target(call, method):
    if isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and \
            call.func.attr == method and isinstance(call.func.value, gast.Name):
        return call.func.value.id
    return None


def _origin(statement):
    return getattr(statement, "s2sad_origin", statement)


def _sharing_with(written, statements):
    """Names that may hold the same array as one of `written`, through assignments of one
    name to another (`_t0 = x * c; x = _t0` makes `_t0` the array `x` is later written into)."""
    parent = {}

    def root(name):
        while parent.get(name, name) != name:
            name = parent[name]
        return name
    for statement in statements:
        target, value = statement.targets[0], statement.value
        if isinstance(target, gast.Name) and isinstance(value, gast.Name):
            parent.setdefault(value.id, value.id)
            parent[root(target.id)] = root(value.id)
    roots = {root(name) for name in written}
    return {name for name in parent if root(name) in roots}


def _simple(statements):
    return [s for s in _walk(statements) if isinstance(s, gast.Assign)]


def _walk(statements):
    """Every statement, in forward order, compounds before their contents."""
    for statement in statements:
        yield statement
        for child in _children(statement):
            yield from _walk(child)


def _children(statement):
    if isinstance(statement, gast.If):
        return [statement.body, statement.orelse]
    if _is_loop(statement):
        return [statement.body]
    return []


def _enclosing_loops(body, target, chain=()):
    """The loops around `target`, outermost first (None if it is not in `body`)."""
    for statement in body:
        if statement is target:
            return chain
        for child in _children(statement):
            inner = chain + ((statement,) if _is_loop(statement) else ())
            found = _enclosing_loops(child, target, inner)
            if found is not None:
                return found
    return None


def _is_loop(statement):
    return isinstance(statement, (gast.For, gast.While))


def _push(stack, value):
    return gast.Expr(gast.Call(gast.Attribute(nodes.name(stack), "append", gast.Load()),
                               [value], []))


def _pop(stack):
    return gast.Call(gast.Attribute(nodes.name(stack), "pop", gast.Load()), [], [])


def _call(function, *args):
    return gast.Call(nodes.name(function), list(args), [])


def _minus_one():
    return gast.UnaryOp(gast.USub(), nodes.constant(1))


def _range_start_step(call):
    args = call.args
    if len(args) == 1:
        return nodes.constant(0), nodes.constant(1)
    return args[0], args[2] if len(args) > 2 else nodes.constant(1)


def _is_constant(atom, value):
    return isinstance(atom, gast.Constant) and atom.value == value and \
        type(atom.value) is type(value)
