"""Refuse in-place writes into an array that another live name also holds.

s2sad follows values by name. After `y = x` (or `y = x[1:]`, a view), `y[0] = 5.0` changes
what `x` holds too, but the backward sweep only knows that `y` changed: a later read of `x`
would get a silently wrong gradient (and a view kept for the backward sweep would be a copy).
Such a write is an error when another name that may share the array is read afterwards:

    y = x           # y and x: one array
    y[0] = 5.0      # error: x is read below and would see the write
    return np.sum(x * y)

An augmented assignment to a name known to hold an array (`tail *= 3.0`) writes into it too.
A write is fine when the other name is never read again (`x = x0; x[i] = ...` with x0 unused
later), or after the other name was given a new value. Runs on the normalized body, after
kinds.py has marked array ranks; may-alias is over-approximated, liveness is exact per path.
"""
import gast
import numpy

from s2sad.errors import Diagnostic, UnsupportedError

from .. import facts, nodes
from ..front import normalize
from . import activity, callee_writes, kinds

# Calls returning a view of (or the same array as) their first argument.
VIEWS = {numpy.reshape, numpy.ravel, numpy.transpose, numpy.asarray, numpy.squeeze,
         numpy.expand_dims, numpy.atleast_1d, numpy.atleast_2d, numpy.atleast_3d,
         numpy.swapaxes, numpy.moveaxis, numpy.diagonal, numpy.flip, numpy.fliplr,
         numpy.flipud, numpy.rot90, numpy.real, numpy.asanyarray, numpy.broadcast_to} | {
    getattr(numpy, name) for name in ("matrix_transpose", "permute_dims")
    if hasattr(numpy, name)}


def check(source, body, user_names):
    """Raise UnsupportedError listing every write into an array a live name shares (one of
    `user_names`: generated temporaries are s2sad's to keep right)."""
    problems = []
    _live(body, set())
    sharing = _Sharing(source, problems, user_names, activity.written_arrays(body))
    sharing.cells_read = _cells_read(source, body)
    sharing.block(body, {})
    if problems:
        raise UnsupportedError(sorted(problems, key=lambda d: (d.where.line, d.where.col)))


def _cells_read(source, body):
    """{id(statement): the cells (objects' fields, facts.CELLS) read after it other than as an
    argument of a function of yours}, for the statements calling one: a callee that assigns
    the field and one that reads it each get the cell itself, in place (a count goes on); a
    value read in this function would not carry the gradient out of the callee that assigned
    it. After: later in the body, or anywhere in a loop around the statement."""
    cells = facts.CELLS.of(source.tree) or {}
    if not cells:
        return {}
    order = []  # (statement, the outermost loop around it, or None)

    def flatten(statements, loop):
        for statement in statements:
            if isinstance(statement, (gast.For, gast.While, gast.If)):
                inner = loop or (statement if not isinstance(statement, gast.If) else None)
                flatten(statement.body, inner)
                flatten(statement.orelse, inner)
            else:
                order.append((statement, loop))
    flatten(body, None)
    reads = []
    for statement, _ in order:
        passed = {id(a) for n in nodes.walk(statement)
                  if isinstance(n, gast.Call) and facts.USER.of(n) for a in n.args}
        reads.append({n.id for n in nodes.walk(statement) if isinstance(n, gast.Name) and
                      n.id in cells and isinstance(n.ctx, gast.Load) and id(n) not in passed})
    out = {}
    for k, (statement, loop) in enumerate(order):
        later = set().union(*reads[k + 1:]) if k + 1 < len(order) else set()
        if loop is not None:
            later |= set().union(*(r for (_, l), r in zip(order, reads) if l is loop))
        out[id(statement)] = later
    return out


# ---- which names may hold the same array: a forward pass --------------------------------------

class _Sharing:
    def __init__(self, source, problems, user_names, written):
        self.source = source
        self.problems = problems
        self.user_names = user_names
        self.written = written  # names written into: arrays, so `row = a[i]` is then a view
        self.cells_read = {}  # objects' fields in cells read other than by passing them on
        self.reported = set()

    def block(self, statements, shares):
        for statement in statements:
            shares = self.statement(statement, shares)
        return shares

    def statement(self, statement, shares):
        if isinstance(statement, gast.If):
            return _union(self.block(statement.body, dict(shares)),
                          self.block(statement.orelse, dict(shares)))
        if isinstance(statement, (gast.For, gast.While)):
            head = shares
            while True:  # what may be shared at the head, over any number of iterations
                entry = dict(head)
                if isinstance(statement, gast.For):
                    source = statement.iter.id if isinstance(statement.iter, gast.Name) else None
                    entry = _bind(entry, statement.target.id, source)
                end = self.block(statement.body, entry)
                merged = _union(head, end)
                if merged == head:
                    return merged
                head = merged
        if not isinstance(statement, gast.Assign) or normalize.is_hook(statement):
            return shares
        if isinstance(statement.value, gast.Call) and facts.USER.of(statement.value):
            self._check_call(statement, shares)
        array = activity.written_array(statement)
        if array is not None:
            self._check_write(statement, array, shares)
            return shares
        if facts.IN_PLACE.of(statement) and \
                facts.RANKS.of(statement, {}).get(statement.targets[0].id, 0) >= 1:
            self._check_write(statement, statement.targets[0].id, shares)
            return shares   # `a += b` on an array: a still holds the same array
        for target in activity.targets(statement):
            shares = _bind(shares, target, _shared_source(statement, self.written))
        return shares

    def _check_write(self, statement, array, shares):
        later = facts.LIVE_AFTER.of(statement, set())
        others = sorted(n for n in shares.get(array, ())
                        if n in later and n in self.user_names)
        origin = facts.ORIGIN.of(statement, statement)
        if not others or id(origin) in self.reported:
            return
        self.reported.add(id(origin))
        names = " and ".join(f"`{n}`" for n in others)
        self.problems.append(Diagnostic(
            self.source.loc(origin),
            f"this writes into `{array}`, which is the same array as {names} (or a view of it)",
            why=f"{names} {'is' if len(others) == 1 else 'are'} read later and would see the "
                f"write, but s2sad follows values by name: only `{array}`'s gradient would know "
                "of it (a silently wrong gradient)",
            fix="give one of them an array of its own with `.copy()` where it is made from "
                "the other (`y = x.copy()`, `y = x[1:].copy()`), or use one name"))


    def _check_call(self, statement, shares):
        """A function of yours that writes into an array argument writes into the caller's
        array: an error when the caller reads it (or a name sharing it) afterwards."""
        call, later = statement.value, facts.LIVE_AFTER.of(statement, set())
        scalars = facts.SCALARS.of(statement, frozenset())
        callee = facts.REF.of(call)
        ranks = facts.RANKS.of(statement, {})
        for index, (where, parameter, least) in sorted(
                callee_writes.written_parameters(callee).items()):
            if index >= len(call.args) or not isinstance(call.args[index], gast.Name):
                continue
            argument = call.args[index].id
            if argument in scalars or ranks.get(argument, least) < least:
                continue  # a number, or indexed down to one: the callee's own copy
            others = sorted(n for n in {argument} | set(shares.get(argument, ()))
                            if n in later and n in self.user_names and n not in scalars)
            origin = facts.ORIGIN.of(statement, statement)
            if not others or (id(origin), index) in self.reported:
                continue
            self.reported.add((id(origin), index))
            names = " and ".join(f"`{n}`" for n in others)
            name = callee.__name__
            field = (facts.CELLS.of(self.source.tree) or {}).get(argument)
            if field is not None and argument not in self.cells_read.get(id(statement), ()):
                continue  # an object's field only passed on to functions of yours
            if field is not None:  # an object's field, read here after a call assigns it
                self.problems.append(Diagnostic(
                    self.source.loc(call if hasattr(call, "lineno") else origin),
                    f"{field} is read after the call of '{name}', which assigns it "
                    f"({where.path}:{where.line})",
                    why="s2sad follows an object's field into the function that assigns it, "
                        "not back out of it: the gradient would not go through the value "
                        "read here",
                    fix=f"read {field} before the call, or inside '{name}' (return what you "
                        "need from it)"))
                continue
            self.problems.append(Diagnostic(
                self.source.loc(call if hasattr(call, "lineno") else origin),
                f"'{name}' writes into its parameter `{parameter}` ({where.path}:{where.line}), "
                f"which is the array {names} hold{'s' if len(others) == 1 else ''} here",
                why=f"{names} {'is' if len(others) == 1 else 'are'} read after the call and "
                    f"would see the write, but s2sad follows values by name: the gradient "
                    f"would not know that the call changed {names} (a silently wrong gradient)",
                fix=f"copy inside '{name}' before writing (`{parameter} = {parameter}.copy()` "
                    f"as its first statement), pass a copy (`{name}(..., "
                    f"{call.args[index].id}.copy(), ...)`), or return the new array instead"))


def view_source(value):
    """The name whose array the expression `value` may be a view of, by a view-making call
    or `.T` (not indexing: `_may_be_view` decides that), or None."""
    if isinstance(value, gast.Attribute) and value.attr == "T" and \
            isinstance(value.value, gast.Name):
        return value.value.id
    if isinstance(value, gast.Call) and facts.REF.of(value) in VIEWS and \
            value.args and isinstance(value.args[0], gast.Name):
        return value.args[0].id
    return None


def _shared_source(statement, written):
    """The name whose array `statement`'s single target may share, or None for a new array."""
    value = statement.value
    if len(statement.targets) != 1 or not isinstance(statement.targets[0], gast.Name):
        return None
    if isinstance(value, gast.Name):
        return value.id
    if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
        view = _may_be_view(statement, value, statement.targets[0].id in written)
        return value.value.id if view else None
    return view_source(value)


def _may_be_view(statement, subscript, written_into):
    """Basic indexing (slices, ints) gives a view unless it picks one element (assumed where
    the array's rank is not known); an index that may be an array of ints copies."""
    parts = subscript.slice.elts if isinstance(subscript.slice, gast.Tuple) else \
        [subscript.slice]
    ints = facts.INTS.of(statement, frozenset())
    for part in parts:
        if isinstance(part, gast.Slice) or (isinstance(part, gast.Constant) and
                                            (part.value is None or part.value is Ellipsis)):
            continue
        if not (isinstance(part, gast.Constant) and type(part.value) is int or
                isinstance(part, gast.Name) and part.id in ints):
            return False  # maybe an array of indices: a copy
    if written_into or any(isinstance(p, gast.Slice) for p in parts):
        return True  # (a name written into holds an array, not one element)
    rank = facts.RANKS.of(statement, {}).get(subscript.value.id)
    return rank is not None and kinds.indexed_rank(
        rank, subscript.slice, facts.SCALARS.of(statement), ints) not in (0, None)


def _bind(shares, target, source):
    """`target` now holds a new array, or (source given) the array `source` holds."""
    shares = {n: s - {target} for n, s in shares.items() if n != target}
    if source is not None and source != target:
        group = shares.get(source, frozenset()) | {source}
        shares[target] = frozenset(group)
        for name in group:
            shares[name] = shares.get(name, frozenset()) | {target}
    return {n: s for n, s in shares.items() if s}


def _union(a, b):
    return {n: a.get(n, frozenset()) | b.get(n, frozenset()) for n in set(a) | set(b)}


# ---- which names are read later: a backward pass --------------------------------------------

def _live(statements, after):
    """Names read after each statement (on some path), marked as `facts.LIVE_AFTER` on
    assignments; returns the names live before `statements`."""
    live = set(after)
    for statement in reversed(statements):
        live = _live_one(statement, live)
    return live


def _live_one(statement, after):
    if isinstance(statement, gast.If):
        return _live(statement.body, after) | _live(statement.orelse, after) | \
            activity.names_read(statement.test)
    if isinstance(statement, (gast.For, gast.While)):
        used = activity.names_read(statement.iter if isinstance(statement, gast.For)
                                   else statement.test)
        head = set(after) | used
        while True:  # the body's reads reach the head of every earlier iteration
            inside = _live(statement.body, head) - activity.loop_target(statement)
            if inside <= head:
                return head
            head |= inside
    facts.LIVE_AFTER.put(statement, frozenset(after))
    if isinstance(statement, gast.Return):
        return after | activity.names_read(statement.value)
    if not isinstance(statement, gast.Assign):
        return after | activity.names_read(statement)
    read = activity.names_read(statement.value)
    if activity.written_array(statement) is not None:
        return after | read | activity.names_read(statement.targets[0].slice)
    return (after - activity.targets(statement)) | read
