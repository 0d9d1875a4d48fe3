"""Checkpointed loops: `for i in s2sad.checkpointed(range(n)):` in O(sqrt(n)) memory.

A plain loop's forward sweep keeps what the backward sweep reads of every iteration (saves.py):
memory grows with the trip count. A checkpointed loop's forward sweep runs the body as plain
primal code and keeps only a *snapshot* of the values the loop carries from one iteration to the
next, at the start of each segment of `_every0` iterations (ceil(sqrt(trips)), or `every=k`).
The backward sweep takes the segments from the last: it puts the segment's snapshot back, re-runs
the segment with the usual taped forward code, then runs the segment's backward body. Memory:
trips / every snapshots plus one segment's tape; time: one more forward run of the loop.

    def f(x, w, n):
        for i in s2sad.checkpointed(range(n)):
            x = numpy.sin(x) * w
        return x
becomes, called with floats (comments shortened):
    # checkpointed loop: snapshots every _every0 iterations   [f.py:2]
    _trips0 = len(range(n))
    _every0 = rt.checkpoint_every(_trips0)
    for _seg0 in range(0, _trips0, _every0):
        _snap_x.append(x)
        _end0 = min(_seg0 + _every0, _trips0)
        for i in range(_seg0, _end0):
            _t0 = numpy.sin(x)
            x = _t0 * w
    value = x
    # ---- backward sweep ----
    dw = rt.zeros_like(w)
    dx = d_result
    for _seg0 in range((_trips0 - 1) // _every0 * _every0, -1, -_every0):
        _end0 = min(_seg0 + _every0, _trips0)
        # back to the segment's snapshot; run it again, keeping what its backward sweep reads
        x = _snap_x.pop()
        for i in range(_seg0, _end0):
            _t0 = numpy.sin(x)
            _stack_x.append(x)
            x = _t0 * w
            _stack__t0.append(_t0)
        # the segment's backward sweep
        for i in range(_end0 - 1, _seg0 - 1, -1):
            _t0 = _stack__t0.pop()
            d_t0 = dx * w
            dw = dw + dx * _t0
            x = _stack_x.pop()
            dx = d_t0 * numpy.cos(x)

The snapshot holds the names the body assigns (or writes into) and reads before assigning them
in an iteration: the values carried from one iteration to the next, which must exist before the
loop. Names the body always assigns before reading them need none: the re-run assigns them, and
those a backward block reads are put back by the taped code as in a plain loop. An array the
body only writes into is put back in place (`a[...] = _snap_a.pop()`), so names sharing it see
the restored values. The names the body reads and never assigns are handed to saves.py as what
the loop reads, so the re-runs find them as they were even if later code changes them. After
the backward of segment 0 every name holds what the backward of a plain loop leaves. A loop
that can exit early (`break`, `return`) counts its trips as they run (`_trips0`).
"""
import dataclasses

import gast

from s2sad.errors import Diagnostic, UnsupportedError
from s2sad.runtime import rt

from .. import facts, nodes
from ..front import normalize
from ..analysis import activity


def is_checkpointed(loop):
    """Whether normalize.py marked this ANF loop as checkpointed."""
    return facts.CHECKPOINT.of(loop) is not None


def strip(tree):
    """`for i in rt.checkpointed(range(n)):` -> `for i in range(n):` in a resolved tree (a primal
    copy that generated callers, and Numba, call)."""
    for node in nodes.walk(tree):
        if isinstance(node, gast.For) and \
                facts.REF.of(node.iter) is rt.checkpointed:
            node.iter = node.iter.args[0]
    return tree


def exit_test(flags, body):
    """`if _break0: break` (any of the flags), at the end of the loop body `body`. When the
    body sets a flag on every path (`_returned = True` at its top level), the test is
    `rt.flag(...)`: Numba would fold it to that constant and prune the loop's back edge, which
    leaves the names defined in a branch of the body untyped."""
    test = nodes.name(flags[0]) if len(flags) == 1 else \
        gast.BoolOp(gast.Or(), [nodes.name(f) for f in flags])
    if any(isinstance(s, gast.Assign) and len(s.targets) == 1 and
           isinstance(s.targets[0], gast.Name) and s.targets[0].id in flags and
           isinstance(s.value, gast.Constant) and s.value.value is True for s in body):
        test = nodes.call("rt.flag", test)
    return gast.If(test, [gast.Break()], [])


# ---- what the re-run needs ---------------------------------------------------------------------

def analyse(source, loop):
    """Set `facts.SNAPSHOT` (the names carried from one iteration to the next) and return
    the names the body reads but never assigns, which must hold their loop-time values when
    the backward sweep re-runs a segment."""
    assigned = _assigned(loop.body)
    exposed, defined = _exposed(loop.body, set(activity.loop_target(loop)))
    exposed |= set(facts.EXITS.of(loop, ())) - defined  # tested after each iteration
    carried = exposed & assigned
    missing = sorted(carried - facts.DEFINED.of(loop))
    if missing:
        origin = facts.ORIGIN.of(loop, loop)
        raise UnsupportedError([Diagnostic(
            source.loc(origin), f"'{missing[0]}' may carry a value from one iteration of this "
            "checkpointed loop to the next, but has none before the loop",
            why="the backward sweep re-runs the loop segment by segment from snapshots of the "
                "values it carries, taken at each segment's start",
            fix=f"assign '{missing[0]}' before the loop (any value of the same type)")])
    facts.SNAPSHOT.put(loop, sorted(carried))
    return exposed - assigned


def _assigned(statements):
    """Names the statements assign or write into, nested loops' counters included."""
    names = set()
    for statement in _walk(statements):
        if isinstance(statement, gast.For):
            names |= activity.loop_target(statement)
        elif isinstance(statement, gast.Assign) and not normalize.is_hook(statement):
            array = activity.written_array(statement)
            names |= {array} if array else activity.targets(statement)
    return names


def _rebound(statements):
    """Names the statements assign as a whole (not only write into)."""
    names = set()
    for statement in _walk(statements):
        if isinstance(statement, gast.For):
            names |= activity.loop_target(statement)
        elif isinstance(statement, gast.Assign) and not normalize.is_hook(statement):
            names |= activity.targets(statement)
    return names


def _exposed(statements, defined):
    """(names read before being assigned in one run of `statements`, names surely assigned
    after it), starting with `defined` assigned."""
    reads, defined = set(), set(defined)
    for statement in statements:
        if isinstance(statement, gast.If):
            reads |= _loads(statement.test) - defined
            r1, d1 = _exposed(statement.body, defined)
            r2, d2 = _exposed(statement.orelse, defined)
            reads |= r1 | r2
            defined = d1 & d2
        elif isinstance(statement, (gast.For, gast.While)):
            head = statement.iter if isinstance(statement, gast.For) else statement.test
            reads |= _loads(head) - defined
            inner, _ = _exposed(statement.body, defined | activity.loop_target(statement))
            reads |= inner  # the loop may not run: what it assigns stays uncertain
        elif normalize.is_hook(statement):
            continue  # backward only
        else:
            reads |= _loads(statement) - defined
            if isinstance(statement, gast.Assign):
                defined |= activity.targets(statement)
    return reads, defined


def _loads(node):
    return nodes.names_loaded(node)


# ---- the generated code --------------------------------------------------------------------

@dataclasses.dataclass
class _Plan:
    trips: str       # trips run (what the backward sweep replays)
    every: str       # the segment length
    first: str       # the first trip of a segment
    end: str         # one past its last trip
    bound: str       # trips the range allows (= trips, unless the loop can exit early)
    snapshot: list   # (name, stack, put back in place)


def backward(saves, loop, counter, body):
    """The backward sweep of a checkpointed loop, after its trip count is known: per segment
    from the last, snapshot back, taped re-run, backward body. `counter` and `body` are the
    plain loop's backward counter and body (saves.py)."""
    trips = saves.recorded[id(loop)]
    number = trips[len("_trips"):]
    fresh = saves.namer.fresh
    early = bool(facts.EXITS.of(loop))
    plan = _Plan(trips, fresh(f"_every{number}"), fresh(f"_seg{number}"), fresh(f"_end{number}"),
                 fresh(f"_most{number}") if early else trips, [])
    in_place = _assigned(loop.body) - _rebound(loop.body)
    for name in facts.SNAPSHOT.of(loop, ()):
        stack = saves.stack_for(("snapshot", name, id(loop)), f"_snap_{name}")
        plan.snapshot.append((name, stack, name in in_place))
    saves.recorded[("checkpoint", id(loop))] = plan
    saves.restored |= _assigned(loop.body)  # the re-run reassigns them in the backward sweep
    code = []
    if saves.region_of[id(loop)] is not None:
        code.append(saves.pop_count(("every", plan.every), plan.every))
    restores = []
    for name, stack, whole in plan.snapshot:
        value = _pop(stack)
        restores.append(nodes.assign(name, value) if not whole else gast.Assign(
            [gast.Subscript(nodes.name(name), gast.Constant(Ellipsis, None), gast.Store())],
            value, None))
    first, every, end = nodes.name(plan.first), nodes.name(plan.every), nodes.name(plan.end)
    last = gast.BinOp(gast.BinOp(_minus(nodes.name(trips), 1), gast.FloorDiv(), every),
                      gast.Mult(), nodes.name(plan.every))
    segment = [
        nodes.assign(plan.end, _call("min", gast.BinOp(first, gast.Add(), every),
                                     nodes.name(trips))),
        nodes.Comment("back to the segment's snapshot; run it again, keeping what its "
                      "backward sweep reads"),
        *restores,
        gast.For(nodes.name(loop.target.id, store=True), _segment_range(saves, loop, plan),
                 saves.forward(loop.body) or [gast.Pass()], [], None),
        nodes.Comment("the segment's backward sweep"),
        gast.For(nodes.name(counter, store=True),
                 _call("range", _minus(end, 1), _minus(first, 1), _negative(1)), body, [], None)]
    code.append(gast.For(nodes.name(plan.first, store=True),
                         _call("range", last, _negative(1),
                               gast.UnaryOp(gast.USub(), nodes.name(plan.every))),
                         segment, [], None))
    return code


def forward(saves, loop):
    """The forward sweep of a checkpointed loop: snapshots at segment starts, primal body."""
    plan = saves.recorded[("checkpoint", id(loop))]
    origin = facts.ORIGIN.of(loop, loop)
    code = [nodes.Comment(f"checkpointed loop: snapshots every {plan.every} iterations   "
                          f"[{saves.source.where(origin)}]")]
    code += saves.keep_bounds(loop)
    code.append(nodes.assign(plan.bound, _call("len", loop.iter)))
    every = facts.CHECKPOINT.of(loop)
    given = [] if isinstance(every, gast.Constant) and every.value is None else [every]
    code.append(nodes.assign(plan.every, nodes.call("rt.checkpoint_every",
                                                    nodes.name(plan.bound), *given)))
    exits = facts.EXITS.of(loop)
    body = saves.forward(loop.body, taped=False)
    if exits:  # count the trips as they run, and stop where the plain loop stops
        code.append(nodes.assign(plan.trips, nodes.constant(0)))
        body.insert(0, nodes.assign(plan.trips, gast.BinOp(
            nodes.name(plan.trips), gast.Add(), nodes.constant(1))))
        body.append(exit_test(exits, body))
    scalars = _scalars_at_head(loop)
    segment = [_push(stack, nodes.name(name) if name in scalars else
                     nodes.call("rt.saved", nodes.name(name)))
               for name, stack, _ in plan.snapshot]
    segment.append(nodes.assign(plan.end, _call("min", gast.BinOp(
        nodes.name(plan.first), gast.Add(), nodes.name(plan.every)), nodes.name(plan.bound))))
    segment.append(gast.For(nodes.name(loop.target.id, store=True),
                            _segment_range(saves, loop, plan), body or [gast.Pass()], [], None))
    if exits:
        segment.append(exit_test(exits, ()))  # (a flag the segment loop set: tested)
    code.append(gast.For(nodes.name(plan.first, store=True),
                         _call("range", nodes.constant(0), nodes.name(plan.bound),
                               nodes.name(plan.every)), segment, [], None))
    if saves.region_of[id(loop)] is not None:
        code += [saves.keep_count(("trips", plan.trips), plan.trips),
                 saves.keep_count(("every", plan.every), plan.every)]
    return code


def _segment_range(saves, loop, plan):
    """`range(_seg0, _end0)`, or the counters of those trips for another start or step."""
    first, end = nodes.name(plan.first), nodes.name(plan.end)
    if saves.bounds(loop) is None:
        return _call("range", first, end)
    step = saves.bounds(loop)[1]
    return _call("range", saves.counter_value(loop, first), saves.counter_value(loop, end), step)


def _scalars_at_head(loop):
    """Names known to hold Python scalars at the top of the body (kept without a copy)."""
    for statement in _walk(loop.body):
        if not isinstance(statement, (gast.If, gast.For, gast.While)):
            return facts.SCALARS.of(statement, frozenset())
    return frozenset()


def _walk(statements):
    for statement in statements:
        yield statement
        if isinstance(statement, gast.If):
            yield from _walk(statement.body)
            yield from _walk(statement.orelse)
        elif isinstance(statement, (gast.For, gast.While)):
            yield from _walk(statement.body)


def _push(stack, value):
    return gast.Expr(gast.Call(gast.Attribute(nodes.name(stack), "append", gast.Load()),
                               [value], []))


def _pop(stack):
    return gast.Call(gast.Attribute(nodes.name(stack), "pop", gast.Load()), [], [])


def _call(function, *args):
    return gast.Call(nodes.name(function), list(args), [])


def _minus(expression, k):
    return gast.BinOp(expression, gast.Sub(), nodes.constant(k))


def _negative(k):
    return gast.UnaryOp(gast.USub(), nodes.constant(k))
