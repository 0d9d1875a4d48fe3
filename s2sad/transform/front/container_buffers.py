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
The list must be empty when the loop starts, grown by one `append` at the top of the loop's
body (not under an `if`, so that each trip adds one row), and not read inside the loop; the
loop is a `for` without `break`, `continue` or `else`, and runs at least once. After it, the
list is an array: `numpy.stack`, `numpy.array` and `numpy.asarray` of it are it, `sum` of it is
`numpy.sum(..., axis=0)`, and subscripts, `len` and loops read it as an array.
"""
import builtins

import gast
import numpy

from s2sad.runtime import rt

from .. import facts, nodes

WHY = ("s2sad makes it an array with a row per trip: it must know the number of rows when the "
       "loop starts, and each row when its trip ends")


class Frame:
    """An opaque loop being rewritten: the statements to put before it."""

    def __init__(self, loop, held):
        self.loop = loop
        self.empty = {name for name, made in held.items()
                      if made.kind == "list" and not made.items}
        self.before = []


def grow(owner, frame, node, name):
    """`name.append(item)` (the statement `node`) in the loop of `frame`: the statements that
    replace it, or None (a problem reported)."""
    loop, call = frame.loop, node.value
    problem = _problem(loop, node, name, frame)
    if problem is not None:
        owner.report(node, f"the list '{name}' grows in a loop whose trip count is known only "
                     f"when the function runs, {problem}", why=WHY,
                     fix="append once per trip at the top of a `for` loop, or preallocate an "
                         "array (ys = numpy.zeros((n, ...)); ys[i] = ...)")
        return None
    trips, row, item = owner.fresh("_trips"), owner.fresh("_row"), owner.fresh("_item")
    count = gast.Call(nodes.name("len"), [nodes.clone(loop.iter)], [])
    facts.REF.put(count, builtins.len)
    frame.before += [_like(nodes.assign(trips, _rt("some_trips", count)), loop),
                     _like(nodes.assign(row, gast.Constant(0, None)), loop)]
    first = gast.If(gast.Compare(nodes.name(row), [gast.Eq()], [gast.Constant(0, None)]),
                    [_like(nodes.assign(name, _rt("rows", nodes.name(trips), nodes.name(item))),
                           node)], [])  # (the first element gives the rows their shape)
    write = gast.Assign([gast.Subscript(nodes.name(name), nodes.name(row), gast.Store())],
                        nodes.name(item), None)
    step = nodes.assign(row, gast.BinOp(nodes.name(row), gast.Add(), gast.Constant(1, None)))
    owner.forget(name)
    owner.buffers.add(name)
    value = owner.expression(call.args[0], node, whole=True)
    return [_like(s, node) for s in (nodes.assign(item, value), first, write, step)]


def _problem(loop, node, name, frame):
    if not isinstance(loop, gast.For):
        return "a `while` loop"
    if loop.orelse or any(isinstance(n, (gast.Break, gast.Continue))
                          for s in loop.body for n in nodes.walk(s)):
        return "a loop with `break`, `continue` or `else`"
    if node not in loop.body:
        return "under an `if` or in an inner loop"
    if name not in frame.empty:
        return "not empty when the loop starts, or appended twice in a trip"
    reads = [n for s in loop.body for n in nodes.walk(s)
             if isinstance(n, gast.Name) and n.id == name]
    if len(reads) > 1:
        return "and read in the loop"
    frame.empty.discard(name)  # a second append in the trip is reported
    return None


def sequence_of(owner, dotted, call):
    """`numpy.stack(ys)` and the like of a list that became an array (`grow`), as that array;
    None for anything else."""
    if len(call.args) != 1 or call.keywords or not isinstance(call.args[0], gast.Name) or \
            call.args[0].id not in owner.buffers:
        return None
    array = nodes.name(call.args[0].id)
    if dotted in ("numpy.stack", "numpy.array", "numpy.asarray"):
        return array
    if dotted == "sum":
        total = gast.Call(nodes.dotted("numpy.sum"), [array],
                          [gast.keyword("axis", gast.Constant(0, None))])
        facts.REF.put(total, numpy.sum)
        return total
    return None


def _rt(name, *args):
    call = gast.Call(nodes.dotted(f"rt.{name}"), list(args), [])
    facts.REF.put(call, getattr(rt, name))
    return call


def _like(statement, node):
    statement = gast.copy_location(statement, node)
    facts.ORIGIN.put(statement, facts.ORIGIN.of(node, node))
    return statement
