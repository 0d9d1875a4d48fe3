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

    def f(x):                      # ---- forward sweep ----
        x = numpy.sin(x)    -->    _x_0 = x                     (save before overwrite)
        return x * x               x = numpy.sin(x)
                                   _t1 = x * x
                                   # ---- backward sweep ----
                                   dx = 2 * (d_result * x)      (reads the new x)
                                   x = _x_0                     (put back)
                                   dx = dx * numpy.cos(x)       (reads the old x)
"""
import collections

import gast

from .. import facts, nodes
from ..front import normalize
from ..analysis import activity, callee_writes, kinds
from . import checkpoint
from .recompute import Recomputing
from .tape import Tape, children, is_loop, kept_rank, pop, push, walk


class Saves(Recomputing, Tape):
    def __init__(self, source, body, reads, final_reads, namer, instrument=None,
                 shape_reads=None):
        self.source = source
        self.instrument = instrument or (lambda block: block)  # nancheck.py adds checks
        self.namer = namer
        self.reads = {key: set(names) for key, names in reads.items()}  # grows: recomputing
        # a value at a block makes that block read what it is computed from
        self.planned = set()     # names kept after their uses, planned already
        self.shape_reads = {key: set(names) for key, names in (shape_reads or {}).items()}
        self.last_shape = set()  # names read for their shape only, which the loop keeps stable
        self.checking = set()    # names `_put_back_for` is deciding (their chains may loop)
        self.wanted = set().union(final_reads, *reads.values())
        self.final_reads = set(final_reads)
        self._reads_up_to = {}   # top-level index -> names read by the blocks up to it
        self.unkept = set()      # names some reassignment does not keep (nothing reads them)
        self.initialized = set()  # stepped counters given a value before the function
        self.kept_before = set()  # (id(statement), name): kept before the statement changes it
        self.put_back_early = set()  # (id(statement), name): ... and put back before its block
        self.renamed = {}        # id(statement) -> {name: the array of its shape its block reads}
        self.pending = []        # (write, array): writes `_put_back_at_writes` wants kept
        self.written = activity.written_arrays(body)
        self.cells = facts.CELLS.of(source.tree) or {}  # objects' fields in cells
        # no array changes in place anywhere (nothing written into, no callee writing into an
        # argument): a kept array is the same value whenever it is read, so it needs no copy
        self.callee_writes = _calls_writers(body)
        self.frozen = not self.written and not self.callee_writes
        self.assignments = _simple(body)  # every assignment, inside loops and branches too
        self.sharing = _sharing_with(self.written, self.assignments)
        self.exposed = self.sharing - self.written
        for statement in self.assignments:  # `A[_t2, -3] = s` with A kept: its old elements
            if activity.written_array(statement) in self.wanted:  # are put back at the index
                index = activity.names_read(statement.targets[0].slice)  # of that trip
                self.reads.setdefault(id(statement), set()).update(index)
                self.wanted |= index
        self.before = collections.defaultdict(list)   # forward, before a statement
        self.after = collections.defaultdict(list)    # forward, after it
        self.restores = collections.defaultdict(list)  # backward, after its block
        self.loads = collections.defaultdict(list)    # backward, before its block
        self.recomputes = collections.defaultdict(list)  # backward, after the loads
        self.stack_names = []
        self._stacks = {}
        self.elements = {}       # stack name -> what it holds, for counted.py: "float", "int",
        # "bool", or ("rows" or "entries", rank) for arrays
        self.sites = {}          # stack name -> [(statement, loop, kept value)]
        self.preallocated = {}   # stack name -> its index (the loop counters)
        self.restored = set()
        self.recorded = {}       # id(compound) -> its bookkeeping
        self.recomputed = set()  # branch flags and trip counts evaluated again, not kept
        self.region_of = {}      # id(statement) -> outermost enclosing loop, or None
        self.regions = {}        # (id(body), id(region)) -> its statements (_in_region)
        self.position = {}       # id(statement) -> (the statement list holding it, its index)
        self.top = {}            # id(statement) -> index of the top-level statement holding it
        self.loops_around = {}   # id(statement) -> the loops around it, outermost first
        self.definitions = collections.defaultdict(list)  # name -> statements assigning it
        self.body = body
        self.params = {a.id for a in list(source.tree.args.posonlyargs) +
                       list(source.tree.args.args) + list(source.tree.args.kwonlyargs)}
        self._regions(body, None)
        self._plan(body)

    # ---- deciding ------------------------------------------------------------------------------

    def _regions(self, statements, region, loops=(), top=None):
        for index, statement in enumerate(statements):
            self.top[id(statement)] = index if top is None else top
            self.region_of[id(statement)] = region
            self.loops_around[id(statement)] = loops
            self.position[id(statement)] = (statements, index)
            for name in self.defined_by(statement):
                self.definitions[name].append(statement)
            inner = loops + (statement,) if is_loop(statement) else loops
            for child in children(statement):
                self._regions(child, region or statement if is_loop(statement) else region,
                              inner, self.top[id(statement)])

    def _plan(self, body):
        self.stepped = {n for n in self.wanted if self._stepped_counter(n)}
        after_use = collections.defaultdict(set)     # region -> names kept after each use
        for statement in walk(body):
            region = self.region_of[id(statement)]
            for name in self.defined_by(statement):
                if name not in self.wanted:
                    continue
                exists = facts.DEFINED.of(region if region is not None else statement)
                if name in exists or activity.written_array(statement) == name or \
                        name in self.stepped:
                    if name in self._read_after_put_back(statement):
                        self._save_before(statement, name, region)
                    else:
                        self.unkept.add(name)  # not put back here: nothing may recompute
                        # from it (`_maintained`)
                elif region is not None or name in facts.MAYBE.of(statement) or \
                        name in self.exposed:  # it may change: written under another name
                    after_use[id(region)].add(name)
        for name in self.params & self.exposed & self.wanted:  # `x = x0; x[0] = c`: x0 changes
            after_use[id(None)].add(name)
        self.kept_after_use = set().union(*after_use.values())
        regions = {id(r): r for r in (self.region_of[id(s)] for s in walk(body))}
        for key, names in after_use.items():
            # reads of an array deeper in loops than where it is written first: they decide to
            # keep it where it is written (`_put_back_at_writes`), which other reads then share
            for name in sorted(names, key=lambda n: (not self._read_deeper_than_written(n),
                                                     n)):
                self._save_after_uses(body, name, regions.get(key))
        for key, code in self.recomputes.items():  # after what they read is put back
            self.loads[key] += code

    def _stepped_counter(self, name):
        """Whether `name` is an int first assigned in a loop (`idx = d` for each k), stepped
        there by a stable amount (`idx += 1` per inner trip), and assigned nowhere else: it is
        kept where it is set (once per k), given a value (0) before the function so that it can
        be, and each step is undone in the backward sweep instead of kept per read."""
        definitions = self.definitions.get(name, ())
        if not definitions or name in self.params or name in self.exposed or \
                any(self.region_of[id(d)] is None or not isinstance(d, gast.Assign) or
                    activity.targets(d) != {name} or name not in facts.INTS.of(d) and
                    not kinds.known(d.value, facts.SCALARS.of(d), facts.INTS.of(d))[1]
                    for d in definitions):
            return False
        region = self.region_of[id(definitions[0])]
        steps = [d for d in definitions if self._inverse(d, name) is not None]
        return bool(steps) and len(steps) < len(definitions) and \
            all(self.region_of[id(d)] is region for d in definitions)

    def initial_values(self):
        """`idx = 0` for the stepped counters (`_stepped_counter`) kept where they are set."""
        code = []
        for name in sorted(self.initialized):
            code += [nodes.Comment(f"{name} is kept where it is set, and stepped back: it "
                                   "needs a value before its first setting"),
                     nodes.assign(name, nodes.constant(0))]
        return code

    def _read_after_put_back(self, statement):
        """The names some backward block reads after the one of `statement` has run (Tapenade's
        to-be-recorded): the blocks of the statements before it and, inside a loop, of every
        statement of its outermost loop (an earlier trip's), and the final gradients. The
        blocks of what comes after run before it (the `return`'s first): a value only they
        read needs no keeping where it is overwritten."""
        region = self.region_of[id(statement)]
        bound = self.top[id(region if region is not None else statement)]
        if bound not in self._reads_up_to:
            self._reads_up_to[bound] = set(self.final_reads).union(
                *(names for key, names in self.reads.items()
                  if self.top.get(key, bound + 1) <= bound))
        return self._reads_up_to[bound]

    def defined_by(self, statement):
        if is_loop(statement):
            return activity.loop_target(statement)
        if normalize.is_hook(statement):
            return set()  # an identity: the value stays
        if isinstance(statement, gast.Assign):
            array = activity.written_array(statement)
            return {array} if array else activity.targets(statement) | self._cells_written(
                statement)
        return set()

    def _cells_written(self, statement):
        """The cells (objects' fields, facts.CELLS) a call of a function of yours writes: kept
        before the call, so that its adjoint runs its forward sweep again from their values
        then (`self.n_fe += 1` in the callee: the count, and what tests it, as they were)."""
        call = statement.value
        if not self.cells or not isinstance(call, gast.Call) or not facts.USER.of(call):
            return set()
        written = callee_writes.written_parameters(facts.REF.of(call))
        return {a.id for k, a in enumerate(call.args) if k in written and
                isinstance(a, gast.Name) and a.id in self.cells}

    def _save_before(self, statement, name, region):
        self.kept_before.add((id(statement), name))
        inverse = self._inverse(statement, name)
        if inverse is not None:
            self.restores[id(statement)].append(inverse)
            self.restored.add(name)
            return
        if name in self.stepped:
            self.initialized.add(name)  # its old value is read at its first setting
        array = activity.written_array(statement)
        if array is not None:  # keep the overwritten elements only
            index = statement.targets[0].slice
            part = gast.Subscript(nodes.name(name), index, gast.Load())
            kept = nodes.call("rt.saved", part)
            put_back = lambda value: gast.Assign(  # noqa: E731
                [gast.Subscript(nodes.name(name), index, gast.Store())], value, None)
            key = ("element", id(statement))
        else:
            kept = nodes.name(name) if name in self.stepped else \
                self._kept(name, statement, after=False)  # (a stepped counter: an int)
            put_back = lambda value: nodes.assign(name, value)  # noqa: E731
            key = ("before", name, id(region))
            self.restored.add(name)
        # a cell the call writes is put back before the call's block: its adjoint reads it;
        # so is a name whose new value the block does not read (`x = numpy.concatenate((x[:1],
        # y))`), for what the block recomputes from the old one (`x[:1]`)
        early = array is None and isinstance(statement, gast.Assign) and \
            name not in self.reads.get(id(statement), ())
        if early:
            self.put_back_early.add((id(statement), name))
        after = self.loads if early or name in self._cells_written(statement) else \
            self.restores
        self._keep(statement, region, key, name, kept, put_back, self.before, after)

    def _save_after_uses(self, body, name, region):
        self.planned.add(name)
        readers = self._readers(body, name, region)
        if not readers:
            return
        if self._last_shape_serves(name, region, readers):
            return
        like = self._shape_like_for(name, region, readers)
        if like is not None and not any(isinstance(n, gast.Call) for n in nodes.walk(like)):
            like = None  # the value itself, a view at hand: recomputed as it is (`x[:1]`)
        recompute = None if like is not None else \
            self._recomputation_kept(name, region, readers)
        if like is not None:  # read for its shape only: an array of that shape, from values
            alias = self.namer.fresh(f"{name}_like")  # the readers have (recompute.py)
            for statement in readers:
                self.recomputes[id(statement)].append(nodes.assign(alias, nodes.clone(like)))
                self.renamed.setdefault(id(statement), {})[name] = alias
            return
        self.restored.add(name)
        if recompute is not None:  # cheaper to recompute than to keep
            for statement in readers:
                self.recomputes[id(statement)][:0] = [nodes.clone(s) for s in recompute]
            return
        lifted, typed = [], {}  # the statements to keep it after; one reading it for each
        for reader in readers:
            place = self._lifted(reader, name, region)
            if place not in lifted:
                lifted.append(place)
                typed[id(place)] = reader  # its kinds say what `name` holds
        for statement in self._last_of_chains(lifted, name):
            reader = typed[id(statement)]
            self._keep(statement, region, ("after", name, id(region)), name,
                       self._kept(name, reader, after=reader is statement),
                       lambda value: nodes.assign(name, value), self.after, self.loads,
                       typed=reader)

    def _lifted(self, reader, name, region):
        """The statement after which `name` is kept for the block of `reader`: the outermost
        loop around the reader, inside `region`, that does not assign `name` (its value holds
        through that loop: a state `c` computed once per step and read in an inner loop over
        j is kept once per step, after the inner loop, and put back before its backward
        loop), else the reader itself."""
        for loop in self.loops_around[id(reader)]:
            if loop is not region and region in self.loops_around[id(loop)] and \
                    name not in self.assigned_in(loop) and not checkpoint.is_checkpointed(loop):
                return loop
        return reader

    def _last_shape_serves(self, name, region, readers):
        """Whether the backward blocks of `readers` read only the shape of `name`
        (`rt.unbroadcast(g, _t6)`), assigned once, in the loop `region`, which gives it one
        shape at every iteration (loop_shapes.py): the value it holds when the loop is done
        serves every block, and none is kept."""
        definitions = self.definitions.get(name, [])
        if region is None or len(definitions) != 1 or name in self.params or \
                any(checkpoint.is_checkpointed(loop)
                    for loop in self.loops_around[id(definitions[0])]) or \
                not all(name in self.shape_reads.get(id(r), ()) for r in readers) or \
                not self.loop_shapes(region).stable(name):
            return False
        self.last_shape.add(name)
        return True

    def _readers(self, body, name, region):
        """The statements of `region` whose backward blocks read `name`."""
        readers = []
        for statement in self._in_region(body, region):
            reads = self.reads.get(id(statement), set())
            if is_loop(statement) and region is None:  # the loop reads what its blocks read
                inside = set().union(*(self.reads.get(id(s), set()) for s in walk([statement])))
                assigned = {n for s in walk(statement.body) for n in self.defined_by(s)}
                reads = (inside - assigned) | reads   # and its own (the zeros before it)
            if name in reads and not self._recomputed(statement, name, body):
                readers.append(statement)
        return readers

    def _in_region(self, body, region):
        """The statements of `body` in the loop `region` (None: outside loops), in order; the
        body's statements do not change while the plan is made."""
        key = (id(body), id(region))
        if key not in self.regions:
            self.regions[key] = [s for s in walk(body) if self.region_of[id(s)] is region]
        return self.regions[key]

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
        if block is None or block is not other or name in self.defined_by(statement):
            return False
        return not any(name in self.defined_by(s) for s in walk(block[i + 1:j]))

    def _stable(self, name, statement):
        """Whether `name` has, wherever the backward block of `statement` runs, the value it had
        at `statement`: a parameter never assigned or written in place, a name assigned once
        outside loops and never written in place, or the counter of an enclosing `for` loop
        (the backward loop recomputes it)."""
        if self.final(name, statement):
            return True
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

    def final(self, name, statement):
        """Whether nothing assigns or writes into `name` after `statement` in the forward sweep
        (every such statement comes before the top-level statement holding it, and no other
        name shares its array): then the backward block of `statement`, which runs before the
        blocks that put earlier values back, reads the value `statement` read (Tapenade's
        to-be-recorded analysis: such a value needs no record)."""
        definitions = self.definitions.get(name, [])
        if not definitions or name in self.params or name in self.exposed or \
                self._shared(name):
            return False
        at = self.top[id(statement)]
        return all(self.top[id(d)] < at for d in definitions)

    def _shared(self, name):
        """Whether another name may hold the array `name` holds (`_sharing_with`)."""
        if ("shared", name) not in self.recorded:
            self.recorded[("shared", name)] = bool(
                _sharing_with({name}, self.assignments) - {name})
        return self.recorded[("shared", name)]

    def unfoldable(self, test):
        """`test` with `rt.flag(...)` around what depends on constants only (the whole test, or
        an operand of `and`/`or`, which Python evaluates as a branch): Numba would fold it and
        prune the branch, leaving what the branch records (a stack, `_result`) untyped."""
        if self._constant(test):
            return nodes.call("rt.flag", test)
        if isinstance(test, gast.BoolOp):
            return gast.copy_location(
                gast.BoolOp(test.op, [self.unfoldable(v) for v in test.values]), test)
        return test

    def _constant(self, expression):
        """Whether `expression` is computed from literals only, through names assigned once."""
        if isinstance(expression, gast.Call):
            return False
        return all(self._constant_name(n) for n in activity.names_read(expression))

    def _constant_name(self, name):
        """Whether Numba may see `name` as a constant where a test reads it: its one
        definition is computed from literals, or one outside loops is (`v0 = 0.1` then `v0 =
        v0 * 2` later: Numba's SSA gives the first value a name of its own, a constant), or all
        of them are (`v3 = 0.1` in two loops). A parameter assigned a constant counts too: a
        `while` test's first evaluation, before the loop, reads that constant."""
        key = ("constant", name)
        if key not in self.recorded:
            self.recorded[key] = False  # (a name defined from itself is not constant)
            definitions = self.definitions.get(name, [])
            constant = [isinstance(getattr(d, "value", None), (
                gast.Constant, gast.Name, gast.Compare, gast.BoolOp, gast.BinOp,
                gast.UnaryOp)) and self._constant(d.value) for d in definitions]
            outside = [c for d, c in zip(definitions, constant) if self.region_of[id(d)] is None]
            if not definitions:
                self.recorded[key] = False
            elif len(definitions) == 1:
                self.recorded[key] = constant[0]
            else:   # one outside loops, or all of them (`v3 = 0.1` in two loops)
                self.recorded[key] = any(outside) or all(constant)
        return self.recorded[key]

    def stable_expression(self, expression, statement):
        return all(self._stable(n, statement) for n in activity.names_read(expression))

    def _recomputed(self, statement, name, body):
        """A `for` counter is recomputed by the backward loop: reads inside need no save."""
        loops = self.loops_around.get(id(statement)) if body is self.body else \
            _enclosing_loops(body, statement)
        for loop in loops or ():
            if isinstance(loop, gast.For) and loop.target.id == name and \
                    name not in self.assigned_in(loop):
                return True
        return False

    def _kept(self, name, statement, after):
        """The expression that keeps `name`'s value: arrays are copied (they may be written in
        place later, and a stack holds one array layout); known scalars are kept as they are."""
        scalars = facts.SCALARS.of(statement, ())
        if name in scalars and not (after and name in activity.targets(statement)):
            return nodes.name(name)
        if after and isinstance(statement, gast.Assign) and \
                activity.targets(statement) == {name} and kinds.kind_of(
                    statement.value, scalars, facts.INTS.of(statement),
                    facts.RANKS.of(statement, {}))[:2] == (True, False):
            return nodes.name(name)  # the statement itself makes it a float
        if self.frozen or self._private(name):
            kept = nodes.name(name)
            facts.ARRAY.put(kept, True)  # not a number: no preallocated float stack for it
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
                all(self._only_computes_from(name, s) for s in self.assignments)
        return self.recorded[("private", name)]

    def _makes_new_array(self, statement):
        value = getattr(statement, "value", None)
        if isinstance(value, (gast.BinOp, gast.UnaryOp)):
            return True
        if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
            return value.value.id in self.written  # copied when kept (`_forward_one`)
        return isinstance(value, gast.Call) and kinds.is_elementwise(
            facts.REF.of(value)) and not value.keywords

    def _only_computes_from(self, name, statement):
        """`statement` reads `name` only as an operand of arithmetic, a ufunc or a reduction."""
        value = statement.value
        if name not in activity.names_read(value):
            return True
        if isinstance(value, (gast.BinOp, gast.UnaryOp)):
            return True
        return isinstance(value, gast.Call) and (
            kinds.is_elementwise(facts.REF.of(value)) or
            kinds.full_reduction(value))

    def _keep(self, statement, region, key, name, kept, put_back, forward, backward,
              typed=None):
        if region is None:
            local = self.namer.numbered(f"_{name.lstrip('_')}_")
            forward[id(statement)].append(nodes.assign(local, kept))
            backward[id(statement)].append(put_back(nodes.name(local)))
        else:
            # a stack per place that keeps: pushed and popped at the same statement, so each
            # can become an array indexed by its loop's trips (tape.py, counted.py)
            stack = self.stack_for(key + (id(statement),), f"_stack_{name}",
                                   _element(kept, typed or statement))
            forward[id(statement)].append(push(stack, kept))
            backward[id(statement)].insert(0, put_back(pop(stack)))
            self.sites.setdefault(stack, []).append((statement, region, kept))


def _element(kept, statement):
    """"int" or "float" when the kept expression is a number (a known scalar, an element of an
    array); else None."""
    if isinstance(kept, gast.Name):
        if facts.ARRAY.of(kept):
            return None
        integer = kept.id in facts.INTS.of(statement) or isinstance(statement, gast.Assign) and \
            activity.targets(statement) == {kept.id} and \
            kinds.known(statement.value, facts.SCALARS.of(statement), facts.INTS.of(statement))[1]
        return "int" if integer else "float"
    if isinstance(kept, gast.Call) and isinstance(kept.args[0], gast.Subscript) and \
            kept_rank(statement, kept) == 0:
        return "float"
    return None


def _calls_writers(statements):
    """Whether a statement calls a function of yours that writes into one of its arguments."""
    return any(isinstance(s.value, gast.Call) and facts.USER.of(s.value) and
               callee_writes.written_parameters(facts.REF.of(s.value))
               for s in _simple(statements))


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
    return [s for s in walk(statements) if isinstance(s, gast.Assign)]






def _enclosing_loops(body, target, chain=()):
    """The loops around `target`, outermost first (None if it is not in `body`)."""
    for statement in body:
        if statement is target:
            return chain
        for child in children(statement):
            inner = chain + ((statement,) if is_loop(statement) else ())
            found = _enclosing_loops(child, target, inner)
            if found is not None:
                return found
    return None
