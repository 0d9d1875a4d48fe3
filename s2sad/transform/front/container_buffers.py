"""A list grown in a loop whose trip count is known only at run time (part of containers.py):
it becomes one array with a row per trip, made at the first trip (its rows are shaped like the
first element), written at each:

    ys = []                                   _trips0 = rt.some_trips(len(x))
    for v in x:                               _row0 = 0
        ys.append(f(v))             -->       for v in x:
    out = np.stack(ys)                            _item0 = f(v)
                                                  if _row0 == 0:
                                                      ys = rt.rows(_trips0, _item0)
                                                  ys[_row0] = _item0
                                                  _row0 = _row0 + 1
                                              out = ys

This is how `np.array([f(v) for v in x])` over an array works (desugar.py makes the loop).
The list may hold elements when the loop starts (they are its first rows: `xs = [x0]`), and
grow by any number of `append`s in the loop's body and its `if`s. A list that starts empty and
is read in the loop is `rt.no_rows()` (None) until its first append, so that a read before that
append types under Numba (kinds.type_placeholders gives it an array of its rank where it knows
the rank: an Optional is not what NumPy's functions take after the loop). The array has room
for the most rows a trip's paths append; where paths append different numbers, it is cut to
the rows appended after the loop (`rt.some_rows` raises when there are none: the rows took
their shape from the first). In the loop it may be read as
`xs[i]`, `xs[-k]` (the rows written so far) and `len(xs)`. The loop is a `for` without
`break`, `continue` or `else`, and runs at least once. After it, the list is an array:
`numpy.stack`, `numpy.array` and `numpy.asarray` of it are it, `sum` of it is
`numpy.sum(..., axis=0)`, and subscripts, `len` and loops read it as an array.

    xs = [x0]                                 _trips0 = rt.some_trips(len(t))
    for v in t:                               _row0 = 1
        xs.append(xs[-1] * v)       -->       xs = rt.rows(1 + 1 * _trips0, x0)
                                              xs[0] = x0
                                              for v in t:
                                                  _item0 = xs[_row0 - 1] * v
                                                  xs[_row0] = _item0
                                                  _row0 = _row0 + 1
"""
import builtins

import gast
import numpy

from s2sad.runtime import rt

from .. import facts, nodes
from .container_values import Container

WHY = ("s2sad makes it an array with a row per element: it must know the number of rows when "
       "the loop starts, and each row when it is appended")


class Frame:
    """An opaque loop being rewritten: the statements to put before it, the lists it may grow
    (those held when it starts, their elements so far all plain values) and those it grows
    (name -> the name of the row the next append writes)."""

    def __init__(self, loop, held):
        self.loop = loop
        self.initial = {name: list(made.items) for name, made in held.items()
                        if made.kind == "list" and
                        not any(isinstance(i, Container) for i in made.items)}
        self.growing = {}   # name -> its row counter
        self.trips = {}     # name -> the name holding the loop's trip count
        self.before = []
        self.after = []     # (lists whose trips append different numbers of rows: cut)
        self.uses = {}      # name -> what is wrong with its uses in the loop, or None


def grow(owner, frame, node, name):
    """`name.append(item)` (the statement `node`) in the loop of `frame`: the statements that
    replace it, or None (a problem reported)."""
    loop, call = frame.loop, node.value
    problem = _problem(loop, node, name, frame)
    if problem is not None:
        owner.report(node, f"the list '{name}' grows in a loop whose trip count is known only "
                     f"when the function runs, {problem}", why=WHY,
                     fix="append at the top of a `for` loop's body, or preallocate an "
                         "array (ys = numpy.zeros((n, ...)); ys[i] = ...)")
        return None
    out = []
    top = next(s for s in loop.body if s is node or any(n is node for n in nodes.walk(s)))
    first = not any(_appends_to(s, name) for s in loop.body[:loop.body.index(top)])
    if name not in frame.growing:
        _start(owner, frame, name)
    row, start = frame.growing[name], len(frame.initial[name])
    item = owner.fresh("_item")
    value = owner.expression(call.args[0], node, whole=True)
    out.append(nodes.assign(item, value))
    if first and not start:  # (the first element gives the rows their shape)
        out.append(gast.If(gast.Compare(nodes.name(row), [gast.Eq()], [gast.Constant(0, None)]),
                           [_like(nodes.assign(name, _rt("rows", _size(frame, name),
                                                         nodes.name(item))), node)], []))
    out.append(gast.Assign([gast.Subscript(nodes.name(name), nodes.name(row), gast.Store())],
                           nodes.name(item), None))
    out.append(nodes.assign(row, gast.BinOp(nodes.name(row), gast.Add(),
                                            gast.Constant(1, None))))
    return [_like(s, node) for s in out]


def begin(owner, frame):
    """At the start of an opaque loop: each list appended to in its body (under its `if`s too)
    becomes an array now, so that reads in the body before the appends (`xs[-1]`), and in
    either branch of an `if`, read the array."""
    for name in frame.initial:
        first = next((n for s in frame.loop.body for n in nodes.walk(s)
                      if _appends_to(n, name) and _under_ifs(frame.loop.body, n)), None)
        if first is not None and _problem(frame.loop, first, name, frame) is None:
            _start(owner, frame, name)


def _start(owner, frame, name):
    """Before the loop: its trip count, the row counter, and the array when the list holds
    elements already (those are its first rows)."""
    loop, initial = frame.loop, frame.initial[name]
    trips, row = owner.fresh("_trips"), owner.fresh("_row")
    count = gast.Call(nodes.name("len"), [nodes.clone(loop.iter)], [])
    facts.REF.put(count, builtins.len)
    frame.growing[name], frame.trips[name] = row, trips
    before = [nodes.assign(trips, _rt("some_trips", count)),
              nodes.assign(row, gast.Constant(len(initial), None))]
    if not initial and _read_in(loop, name):  # (made at the first append: no rows until
        before.append(nodes.assign(name, _rt("no_rows")))  # then, so that a read types)
    elif initial:
        before.append(nodes.assign(name, _rt("rows", _size(frame, name), nodes.clone(initial[0]))))
        before += [gast.Assign([gast.Subscript(nodes.name(name), gast.Constant(k, None),
                                               gast.Store())], nodes.clone(item), None)
                   for k, item in enumerate(initial)]
    frame.before += [_like(s, loop) for s in before]
    least, most = _appends(loop.body, name)
    if least != most:  # (rows for the most a trip may append; after it, those it did)
        cut = gast.Subscript(nodes.name(name), gast.Slice(None, _rt("some_rows", nodes.name(
            row)), None), gast.Load())
        frame.after.append(_like(nodes.assign(name, cut), loop))
    owner.forget(name)
    owner.buffers.add(name)


def _size(frame, name):
    """The rows the list has when the loop ends: its elements so far, and each trip's appends."""
    appends = _appends(frame.loop.body, name)[1]
    total = nodes.name(frame.trips[name]) if appends == 1 else \
        gast.BinOp(gast.Constant(appends, None), gast.Mult(), nodes.name(frame.trips[name]))
    start = len(frame.initial[name])
    return gast.BinOp(gast.Constant(start, None), gast.Add(), total) if start else total


def _appends(statements, name):
    """(the fewest, the most) appends to `name` a run through `statements` makes, its `if`s
    taking either branch (container_buffers does not follow appends in inner loops)."""
    least = most = 0
    for statement in statements:
        if _appends_to(statement, name):
            least, most = least + 1, most + 1
        elif isinstance(statement, gast.If):
            body, orelse = _appends(statement.body, name), _appends(statement.orelse, name)
            least, most = least + min(body[0], orelse[0]), most + max(body[1], orelse[1])
    return least, most


def _read_in(loop, name):
    """Whether the loop's body reads the list `name` other than to append to it."""
    appends = {id(n.value.func.value) for s in loop.body for n in nodes.walk(s)
               if _appends_to(n, name)}
    return any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load) and
               id(n) not in appends for s in loop.body for n in nodes.walk(s))


def _under_ifs(statements, node):
    """Whether `node` is one of `statements` or in the branches of their `if`s (not in a loop)."""
    return any(s is node or isinstance(s, gast.If) and
               (_under_ifs(s.body, node) or _under_ifs(s.orelse, node)) for s in statements)


def _appends_to(statement, name):
    call = getattr(statement, "value", None) if isinstance(statement, gast.Expr) else None
    return isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and \
        call.func.attr == "append" and isinstance(call.func.value, gast.Name) and \
        call.func.value.id == name


def _problem(loop, node, name, frame):
    if not isinstance(loop, gast.For):
        return "a `while` loop"
    if loop.orelse or any(isinstance(n, (gast.Break, gast.Continue))
                          for s in loop.body for n in nodes.walk(s)):
        return "a loop with `break`, `continue` or `else`"
    if not _under_ifs(loop.body, node):
        return "in an inner loop"
    if name not in frame.initial:
        return "not a list when the loop starts, or holding lists or dicts"
    if name not in frame.uses:  # (judged once, before an append of it is rewritten)
        frame.uses[name] = _uses_problem(loop, name)
    return frame.uses[name]


def _uses_problem(loop, name):
    """What is wrong with how the loop uses the list `name` other than appending, or None."""
    allowed = set()  # the reads the array answers as the list would: x[i], x[-k], len(x)
    for n in (n for s in loop.body for n in nodes.walk(s)):
        if _appends_to(n, name) or isinstance(n, gast.Subscript) or \
                isinstance(n, gast.Call) and nodes.dotted_parts(n.func) == ["len"]:
            target = n.value.func.value if isinstance(n, gast.Expr) else \
                n.value if isinstance(n, gast.Subscript) else (n.args or [None])[0]
            allowed.add(id(target))
    reads = [n for s in loop.body for n in nodes.walk(s)
             if isinstance(n, gast.Name) and n.id == name and id(n) not in allowed]
    if reads:
        return "and used in the loop other than as x[i], x[-k] or len(x), or assigned"
    if any(isinstance(n, gast.Subscript) and isinstance(n.slice, gast.Slice) and
           isinstance(n.value, gast.Name) and n.value.id == name
           for s in loop.body for n in nodes.walk(s)):
        return "and sliced in the loop"
    return None


def read_in_loop(frames, node):
    """`x[-k]` or `len(x)` of a list growing in a loop being rewritten, as its array reads it
    so far (`x[_row0 - k]`, `_row0`); None for anything else."""
    if isinstance(node, gast.Subscript):
        name = node.value.id if isinstance(node.value, gast.Name) else None
    elif isinstance(node, gast.Call) and nodes.dotted_parts(node.func) == ["len"] and \
            len(node.args) == 1 and isinstance(node.args[0], gast.Name):
        name = node.args[0].id
    else:
        return None
    row = next((f.growing[name] for f in reversed(frames) if name in f.growing), None)
    if row is None:
        return None
    if isinstance(node, gast.Call):
        return nodes.name(row)
    index = node.slice
    if isinstance(index, gast.UnaryOp) and isinstance(index.op, gast.USub) and \
            isinstance(index.operand, gast.Constant):
        back = gast.BinOp(nodes.name(row), gast.Sub(), gast.Constant(index.operand.value, None))
        return gast.Subscript(nodes.name(name), back, gast.Load())
    return None


def sequence_of(owner, dotted, call):
    """`numpy.stack(ys)` and the like of a list that became an array (`grow`), as that array
    (`numpy.vstack(ys)`, `numpy.concatenate(ys)`: reshaped, rt.stacked_rows); None for
    anything else."""
    if len(call.args) != 1 or call.keywords or not isinstance(call.args[0], gast.Name) or \
            call.args[0].id not in owner.buffers:
        return None
    array = nodes.name(call.args[0].id)
    if dotted in ("numpy.stack", "numpy.array", "numpy.asarray"):
        return array
    if dotted in ("numpy.vstack", "numpy.row_stack", "numpy.concatenate"):  # (reshapes of it)
        kind = "concatenate" if dotted == "numpy.concatenate" else "vstack"
        return _rt("stacked_rows", array, gast.Constant(kind, None))
    if dotted == "sum":
        total = gast.Call(nodes.dotted("numpy.sum"), [array],
                          [gast.keyword("axis", gast.Constant(0, None))])
        facts.REF.put(total, numpy.sum)
        return total
    return None


def is_placeholder(statement):
    """`xs = rt.no_rows()`: a list's array before its first append (no value, no kind yet)."""
    return isinstance(statement, gast.Assign) and isinstance(statement.value, gast.Call) and \
        facts.REF.of(statement.value) is rt.no_rows


def _rt(name, *args):
    call = gast.Call(nodes.dotted(f"rt.{name}"), list(args), [])
    facts.REF.put(call, getattr(rt, name))
    return call


def _like(statement, node):
    statement = gast.copy_location(statement, node)
    facts.ORIGIN.put(statement, facts.ORIGIN.of(node, node))
    return statement
