"""Stacks as NumPy arrays with a counter per loop, not Python lists.

A number kept in a loop whose trips `tape.preallocate` cannot index by the loop counters (an
inner range whose bounds change, `for i in range(j + 1, d)`; a bound spelled through a
temporary; a `while`), and the bookkeeping of inner loops and branches (their trip counts,
range starts and branch flags), are kept at the loop's trip number counted over the whole run.
Where trip_totals.py can count the trips before the outermost loop around them, the tape is
allocated there at its full length and each value is a plain store; otherwise (a `while`) the
room check is inline and the tape doubles only when it is full (`rt.grown`). The backward loop
counts the same trips down:

    _size0 = 0                                       # forward
    for j in range(d):
        _size0 = _size0 + len(range(j + 1, d))
    _stack_idx = numpy.empty(_size0, numpy.int64)
    for j in range(d):
        for i in range(j + 1, d):
            _stack_idx[_n0] = idx
            ...
            _n0 = _n0 + 1
    for j in ...:                                    # backward
        for i in range(d - 1, j, -1):
            _n0 = _n0 - 1
            idx = _stack_idx[_n0]

Every backward trip of a loop undoes one forward trip, the last first, so the counter meets
each trip's index again. A push inside an `if` leaves its slot unused in the other trips.
Arrays of one shape in every trip (loop_shapes.py) are kept the same way, as rows
(`rt.keep_row` at the full length, `rt.push_row` growing); arrays whose shape may change (a
state that broadcasts in its first trip, a growing slice) one after the other in one flat
array, with their offsets and shapes (`rt.entries`, `rt.push_entry`, `rt.entry`). A loop
checkpointed (its backward sweep runs the forward code again), arrays of unknown rank and any
stack used otherwise keep their lists.
"""
import gast

from .. import facts, nodes
from ..analysis import trip_totals
from . import checkpoint

# The element type of a stack of numbers -> the dtype of its array.
DTYPES = {"float": None, "int": "numpy.int64", "bool": "numpy.bool_"}


def count(function, elements, namer):
    """Turn the list stacks named in `elements` (stack -> "float", "int", "bool", ("rows",
    rank) for arrays of one shape in every trip of the loop nest, loop_shapes.py, or
    ("entries", rank) for arrays of that rank) into counted arrays where their pushes and pops
    allow it (see the module docstring). Returns (the prelude for them: each counter's 0 and
    the empty array of each stack not allocated at its full length at the top of the function;
    the stacks turned into arrays)."""
    sites = _Sites(elements)
    sites.visit_body(function.body, ())
    counters, converted = {}, {}
    for stack in sorted(sites.pushes):
        loop = _loop_of(sites, stack)
        if loop is not None:
            if id(loop) not in counters:
                counters[id(loop)] = (namer.numbered("_n"), loop)
            converted[stack] = counters[id(loop)][0]
    if not converted:
        return [], set()
    sized, placed = _size_tapes(function, sites, counters, converted, elements, namer)
    _Rewrite(converted, {s: elements[s][0] for s in converted if isinstance(elements[s], tuple)},
             sized).visit(function)
    for counter, primal in counters.values():
        growing = sorted(stack for stack, c in converted.items() if c == counter and
                         stack not in sized and not isinstance(elements[stack], tuple))
        for loop in sites.forward_loops.get(id(primal), ()):
            _append_count(loop.body, counter)
            if growing:
                loop.body.insert(0, room_check(counter, growing))
        for loop in sites.backward_loops.get(id(primal), ()):
            loop.body.insert(0, _step(counter, gast.Sub()))
    prelude = [nodes.assign(stack, _empty(elements[stack])) for stack in converted
               if stack not in placed] + \
        [nodes.assign(counter, nodes.constant(0)) for counter, _ in sorted(counters.values())]
    return prelude, set(converted)


def _size_tapes(function, sites, counters, converted, elements, namer):
    """Allocate, right before the outermost loop around them, the tapes whose loop's trips
    trip_totals.py can count there. Returns ({stack: the name of its length}, the stacks
    allocated there only: those of a nest at the top of the function, which need no empty
    stack at its start)."""
    sized, placed = {}, set()
    for counter, primal in sorted(counters.values()):
        stacks = sorted(s for s, c in converted.items() if c == counter)
        chain = sites.pushes[stacks[0]][0]
        if len(sites.forward_loops.get(id(primal), ())) != 1 or \
                any(sites.pushes[s][0] != chain for s in stacks) or \
                all(isinstance(elements[s], tuple) and elements[s][0] == "entries"
                    for s in stacks):
            continue  # (arrays of any shape grow as they come: no length to allocate)
        found = trip_totals.total(list(chain), namer)
        if found is None:
            continue
        code, size = found
        allocations = []
        for stack in stacks:
            sized[stack] = size
            element = elements[stack]
            if not isinstance(element, tuple):
                dtype = DTYPES[element]
                allocations.append(nodes.assign(stack, nodes.call(
                    "numpy.empty", nodes.name(size), *([nodes.dotted(dtype)] if dtype else []))))
        outer = chain[0]
        holder = next(lst for lst in nodes.statement_lists(function)
                      if any(s is outer for s in lst))
        at = next(k for k, s in enumerate(holder) if s is outer)
        holder[at:at] = code + allocations
        if holder is function.body:
            placed.update(s for s in stacks if not isinstance(elements[s], tuple))
    return sized, placed


def _empty(element):
    """The empty stack for `element`: `numpy.empty(0)` (with a dtype for ints and flags),
    `numpy.empty((0, 0))` for rows of vectors (made at the first push), `rt.entries(1)`."""
    if isinstance(element, tuple) and element[0] == "entries":
        return nodes.call("rt.entries", nodes.constant(element[1]))
    if isinstance(element, tuple):
        return nodes.call("numpy.empty",
                          gast.Tuple([nodes.constant(0)] * (1 + element[1]), gast.Load()))
    dtype = DTYPES[element]
    return nodes.call("numpy.empty", nodes.constant(0),
                      *([nodes.dotted(dtype)] if dtype else []))


def is_counter(name):
    """Whether `name` is one of the trip counters made here (`_n0`)."""
    return name.startswith("_n") and name[2:].isdigit()


def _loop_of(sites, stack):
    """The primal loop whose trips index `stack`: its one push is in a taped forward loop of
    it, every pop in a backward loop of it, and no loop around either is checkpointed; else
    None."""
    pushes, pops = sites.pushes[stack], sites.pops.get(stack, [])
    if len(pushes) != 1 or not pops:
        return None
    chains = [pushes[0]] + pops
    if any(not chain or any(_checkpointed(loop) for loop in chain) for chain in chains):
        return None
    primal = facts.TAPED.of(pushes[0][-1])
    if primal is None or any(facts.REVERSED.of(chain[-1]) is not primal
                             for chain in pops):
        return None
    return primal


def _checkpointed(loop):
    primal = facts.TAPED.of(loop) or facts.REVERSED.of(loop)
    return primal is None or checkpoint.is_checkpointed(primal)


def _append_count(body, counter):
    """`counter = counter + 1` at the end of a forward loop body, before its exit test
    (`if _break0: break`, which must stay last)."""
    at = len(body)
    if body and isinstance(body[-1], gast.If) and body[-1].body and \
            isinstance(body[-1].body[0], gast.Break):
        at -= 1
    body.insert(at, _step(counter, gast.Add()))


def _step(counter, op):
    """`_n0 = _n0 + 1` (or - 1): a plain assignment, so fold.py sees an int."""
    return nodes.assign(counter, gast.BinOp(nodes.name(counter), op, nodes.constant(1)))


class _Sites:
    """Where each stack is pushed and popped: stack -> [the loops around each site]."""

    def __init__(self, elements):
        self.elements = elements
        self.pushes, self.pops = {}, {}
        self.forward_loops, self.backward_loops = {}, {}  # id(primal loop) -> [loops]

    def visit_body(self, statements, loops):
        for statement in statements:
            if isinstance(statement, (gast.For, gast.While)):
                for fact, found in ((facts.TAPED, self.forward_loops),
                                    (facts.REVERSED, self.backward_loops)):
                    primal = fact.of(statement)
                    if primal is not None:
                        found.setdefault(id(primal), []).append(statement)
                self._expressions(statement, loops, (statement.target,) if isinstance(
                    statement, gast.For) else ())
                self.visit_body(statement.body, loops + (statement,))
                self.visit_body(statement.orelse, loops)
            elif isinstance(statement, gast.If):
                self._expressions(statement.test, loops)
                self.visit_body(statement.body, loops)
                self.visit_body(statement.orelse, loops)
            else:
                self._expressions(statement, loops)

    def _expressions(self, node, loops, skip=()):
        if isinstance(node, (gast.For, gast.While)):
            node = node.iter if isinstance(node, gast.For) else node.test
        for inner in nodes.walk(node):
            if isinstance(inner, gast.Call) and isinstance(inner.func, gast.Attribute) and \
                    isinstance(inner.func.value, gast.Name) and \
                    inner.func.value.id in self.elements:
                stack = inner.func.value.id
                if inner.func.attr == "append" and len(inner.args) == 1:
                    self.pushes.setdefault(stack, []).append(loops)
                elif inner.func.attr == "pop" and not inner.args:
                    self.pops.setdefault(stack, []).append(loops)
                else:
                    self.pushes.setdefault(stack, []).extend([(), ()])  # used otherwise
            elif isinstance(inner, gast.Name) and inner.id in self.elements and \
                    not _method_receiver(node, inner):
                self.pushes.setdefault(inner.id, []).extend([(), ()])  # used otherwise


def _method_receiver(tree, name):
    """Whether `name` is the `s` of an `s.append(...)` / `s.pop()` in `tree`."""
    return any(isinstance(n, gast.Attribute) and n.value is name and n.attr in ("append", "pop")
               for n in nodes.walk(tree))


class _Rewrite(nodes.Transformer):
    """`s.append(v)` -> `s[_n0] = v`, on a tape allocated at its full length or growing (the
    room check at the top of the loop's trips, `room_check`). Arrays: `s =
    rt.keep_row(s, _size0, _n0, v)` (allocated at the first row, at its full length),
    `rt.push_row` (growing), `rt.push_entry` (arrays of any shape). `s.pop()` -> `s[_n0]` (or
    `rt.entry(s, _n0)` for arrays of any shape)."""

    def __init__(self, counters, arrays, sized):
        self.counters = counters  # stack -> its counter
        self.arrays = arrays      # stack of arrays -> "rows" (one shape) or "entries" (any)
        self.sized = sized        # stack allocated at its full length -> the name of that

    def visit_Expr(self, node):
        call = node.value
        stack = _receiver(call, "append")
        if stack in self.counters:
            value = call.args[0]
            if isinstance(value, gast.Call) and nodes.dotted_parts(value.func) == \
                    ["rt", "saved"] and len(value.args) == 1:
                value = value.args[0]  # the stack keeps a copy anyway
            counter = nodes.name(self.counters[stack])
            kind = self.arrays.get(stack)
            if kind == "rows" and stack in self.sized:
                return nodes.assign(stack, nodes.call(
                    "rt.keep_row", nodes.name(stack), nodes.name(self.sized[stack]), counter,
                    value))
            if kind is not None:
                push = {"rows": "rt.push_row", "entries": "rt.push_entry"}[kind]
                return nodes.assign(stack, nodes.call(push, nodes.name(stack), counter, value))
            return gast.Assign([gast.Subscript(nodes.name(stack), counter, gast.Store())],
                               value, None)
        return self.generic_visit(node)

    def visit_Call(self, node):
        stack = _receiver(node, "pop")
        if stack in self.counters and self.arrays.get(stack) == "entries":
            return nodes.call("rt.entry", nodes.name(stack), nodes.name(self.counters[stack]))
        if stack in self.counters:
            return gast.Subscript(nodes.name(stack), nodes.name(self.counters[stack]),
                                  gast.Load())
        return self.generic_visit(node)


def _receiver(call, method):
    if isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and \
            call.func.attr == method and isinstance(call.func.value, gast.Name):
        return call.func.value.id
    return None


def room_check(counter, stacks):
    """`if _n0 >= len(s0): s0 = rt.grown(s0, _n0) ...`: at the top of a trip, room for this
    trip's values on the growable tapes of one counter. They grow together, so they are always
    as long as each other, and one test serves them all."""
    full = gast.Compare(nodes.name(counter), [gast.GtE()], [_length(nodes.name(stacks[0]))])
    return gast.If(full, [nodes.assign(stack, nodes.call("rt.grown", nodes.name(stack),
                                                         nodes.name(counter)))
                          for stack in stacks], [])


def is_room_check(statement):
    """Whether `statement` is a `room_check` (its tapes may all have gone: `pass`)."""
    return isinstance(statement, gast.If) and not statement.orelse and \
        isinstance(statement.test, gast.Compare) and \
        isinstance(statement.test.left, gast.Name) and is_counter(statement.test.left.id) and \
        all(isinstance(s, gast.Pass) or isinstance(s, gast.Assign) and
            isinstance(s.value, gast.Call) and
            nodes.dotted_parts(s.value.func) == ["rt", "grown"] for s in statement.body)


def _length(node):
    """`len(node)`."""
    return gast.Call(nodes.name("len"), [node], [])
