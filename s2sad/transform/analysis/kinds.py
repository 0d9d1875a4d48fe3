"""What the code itself shows about its values: which names hold Python scalars, which hold ints,
and the number of dimensions of the arrays (from the arguments' kinds and what each operation
does to them). Shared by reverse.py and forward.py.

    def f(x, obs, n):        # called with x a float and obs a 2-D array
        u = x                # u: scalar
        for t in range(n):   # t: int
            e = u - obs[t, 0]   # obs[t, 0]: two ints index a 2-D array -> e: scalar

A broadcasting rule needs no `rt.unbroadcast` when every other operand is a known scalar, a known
scalar is kept for the backward sweep without a copy, and an index of known ints and slices is
scattered with `+=` instead of `rt.add_at`. Nothing is guessed: what is not shown is unknown.
"""
import gast
import numpy

from s2sad.runtime import rt

from .. import facts, nodes
from ..front import container_buffers, normalize
from . import activity, result_ranks

# Reductions that return one number when called on the whole array (one argument, no axis).
FULL_REDUCTIONS = {numpy.sum, numpy.mean, numpy.prod, numpy.max, numpy.min, numpy.amax,
                   numpy.amin, numpy.var, numpy.std, numpy.ptp, numpy.nansum, numpy.nanmean,
                   numpy.median, numpy.linalg.norm, numpy.vdot}
# Calls whose result has the dimensions of their one array argument.
SAME_RANK = {numpy.copy, numpy.transpose, numpy.ascontiguousarray, numpy.negative, rt.saved,
             rt.copy}
# ... and those whose result also has its shape (a transpose keeps the rank, not the shape)
SAME_SHAPE = SAME_RANK - {numpy.transpose}
ALLOCATORS = {numpy.zeros, numpy.ones, numpy.empty}
# rt's helpers that act element by element like a ufunc (idioms.py writes them)
ELEMENTWISE_HELPERS = {rt.sigmoid}


def is_elementwise(ref):
    """Whether a call of `ref` acts element by element: a plain ufunc, or such a helper."""
    return isinstance(ref, numpy.ufunc) or ref in ELEMENTWISE_HELPERS


def mark(statements, scalars, ints, ranks=(), results=None):
    """Annotate each simple statement with what is known before it: `facts.SCALARS`,
    `facts.INTS` (sets of names) and `facts.RANKS` (name -> ndim of an array); an `if` or a
    loop with the scalars known after it (`facts.SCALARS_AFTER`). `ranks`: the
    parameters' (name, ndim) pairs. `results(call, statement)`: what a call of a user function
    returns, as `kind_of` says it (returns.py). Returns what is known after `statements`."""
    shapes = {name: object() for name in sorted(_parameter_like(statements))}
    return _mark(statements, set(scalars), set(ints), dict(ranks), results, None, shapes)[:3]


def kind_of(value, scalars, ints, ranks):
    """(is a known scalar, is a known int, ndim or None) of one ANF operation or atom."""
    scalar, integer = known(value, scalars, ints)
    rank = rank_of(value, scalars, ints, ranks)
    return scalar or rank == 0, integer, 0 if scalar else rank


def _mark(statements, scalars, ints, ranks, results, bound=None, shapes=None):
    """`bound`: the names that may hold a value here (updated in place); a name bound on one
    path only keeps the kind that path gives it (on the other it has no value to disagree).
    `shapes`: name -> shape class (`same_shape`)."""
    bound = set() if bound is None else bound
    shapes = {} if shapes is None else shapes
    for statement in statements:
        if isinstance(statement, gast.If):
            b1, b2 = set(bound), set(bound)
            s1, i1, r1, h1 = _mark(statement.body, set(scalars), set(ints), dict(ranks),
                                   results, b1, dict(shapes))
            s2, i2, r2, h2 = _mark(statement.orelse, set(scalars), set(ints), dict(ranks),
                                   results, b2, dict(shapes))
            scalars = (s1 & s2) | (s1 - b2) | (s2 - b1)
            ints = (i1 & i2) | (i1 - b2) | (i2 - b1)
            ranks, shapes = _merged(r1, r2, b1, b2), _merged(h1, h2, b1, b2)
            bound |= b1 | b2
            facts.SCALARS_AFTER.put(statement, frozenset(scalars))
            continue
        if isinstance(statement, (gast.For, gast.While)):
            counter = activity.loop_target(statement)
            before = set(bound)
            again = _assigned(statement.body)  # bound by the previous iteration
            for name in again:
                shapes.pop(name, None)  # a class made in the body is new at each iteration
            # Names first bound inside hold, at the head, nothing (first trip) or what the
            # previous trip left: their ranks at the head are those it ends with, if stable.
            fresh = again - before - counter
            carried, unknown = {}, set()
            while True:  # what is known at the head is known before and after each iteration
                inside = before | counter | (again - fresh) | set(carried) | unknown
                end_s, end_i, end_r, _ = _mark(statement.body, scalars | counter,
                                               ints | counter, {**ranks, **carried}, results,
                                               inside, dict(shapes))
                ends = {n: end_r.get(n) for n in fresh - unknown}
                unknown |= {n for n, r in ends.items() if r is None or carried.get(n, r) != r}
                ends = {n: r for n, r in ends.items() if n not in unknown}
                if scalars <= end_s and ints <= end_i and \
                        _agreeing(ranks, end_r) == ranks and ends == carried:
                    break
                scalars, ints, ranks = scalars & end_s, ints & end_i, _agreeing(ranks, end_r)
                carried = ends
            bound |= inside | again
            # first bound inside: after the loop, unbound (no trip) or of the kind it ends with
            facts.SCALARS_AFTER.put(statement, frozenset(scalars | (end_s - before - counter)))
            ranks.update(carried)
            continue
        facts.SCALARS.put(statement, frozenset(scalars))
        facts.INTS.put(statement, frozenset(ints))
        facts.RANKS.put(statement, dict(ranks))
        facts.SHAPES.put(statement, dict(shapes))
        if isinstance(statement, gast.Return) or activity.written_array(statement) or \
                container_buffers.is_placeholder(statement):
            continue  # (a list's placeholder: bound, with its kind, at its first append)
        value = statement.value
        parts = None    # a user function's tuple result: the kind of each element
        if results is not None and isinstance(value, gast.Call) and \
                facts.USER.of(value):
            scalar, integer, rank, parts = results(value, statement)
        else:
            scalar, integer, rank = kind_of(value, scalars, ints, ranks)
        targets = activity.targets(statement)
        bound |= targets
        shape = _shape_class(value, scalars, shapes) if len(targets) == 1 else None
        kinds = {target: (scalar, integer, rank) for target in targets} if \
            len(targets) == 1 else _unpacked(statement, parts)
        for target in targets:
            scalar, integer, rank = kinds.get(target, (False, False, None))
            (scalars.add if scalar else scalars.discard)(target)
            (ints.add if integer else ints.discard)(target)
            if rank:
                ranks[target] = rank
            else:
                ranks.pop(target, None)
            shapes[target] = shape if shape is not None else object()
    return scalars, ints, ranks, shapes


def type_placeholders(body):
    """Give each `xs = rt.no_rows()` placeholder (container_buffers.py: a list's array before
    its first append) an array without rows of the rank that array has, `numpy.empty((0, 0,
    0))`: Numba types a name holding None, then an array, as an Optional, and helpers typed on
    None first (rt.zeros_like in the backward sweep) would not agree with their array typing.
    Every element of the list has one shape, so the rank is one more than that of any one
    value appended whose rank `mark`'s facts show (the loop's fixpoint cannot: the rows are
    read back in the loop). Where none shows, it stays None (the primal copy calls no such
    helper). Returns the placeholders' names."""
    statements = [s for lst in nodes.statement_lists(gast.Module(body, [])) for s in lst]
    definitions = {}
    for statement in statements:
        if isinstance(statement, gast.Assign) and len(statement.targets) == 1 and \
                isinstance(statement.targets[0], gast.Name):
            definitions.setdefault(statement.targets[0].id, []).append(statement)

    def rank(name, seen):
        for statement in definitions.get(name, ()):
            value = statement.value
            if isinstance(value, gast.Name) and value.id not in seen:
                found = rank(value.id, seen | {value.id})
            elif facts.REF.of(value) is rt.rows and len(value.args) == 2 and \
                    isinstance(value.args[1], gast.Name):
                found = rank(value.args[1].id, seen | {value.args[1].id})
                found = None if found is None else found + 1
            else:
                found = rank_of(value, facts.SCALARS.of(statement, frozenset()),
                                facts.INTS.of(statement, frozenset()),
                                facts.RANKS.of(statement, {}))
            if found is not None:
                return found
        return None

    names = set()
    for placeholder in filter(container_buffers.is_placeholder, statements):
        name = placeholder.targets[0].id
        names.add(name)
        found = rank(name, {name})
        if found:
            empty = gast.Call(nodes.dotted("numpy.empty"), [gast.Tuple(
                [gast.Constant(0, None)] * found, gast.Load())], [])
            facts.REF.put(empty, numpy.empty)
            placeholder.value = empty
    return names


def _unpacked(statement, parts):
    """{name: kind} of `a, b = g(...)` from the kinds of the elements g returns."""
    target = statement.targets[0] if isinstance(statement, gast.Assign) and \
        len(statement.targets) == 1 else None
    if parts is None or not isinstance(target, gast.Tuple) or len(target.elts) != len(parts) \
            or not all(isinstance(e, gast.Name) for e in target.elts):
        return {}
    names = [e.id for e in target.elts]
    return {n: k for n, k in zip(names, parts) if names.count(n) == 1}


def _merged(a, b, bound_a, bound_b):
    """What both paths agree on, and what only the path that binds a name says of it."""
    return {**_agreeing(a, b), **{n: v for n, v in a.items() if n not in bound_b},
            **{n: v for n, v in b.items() if n not in bound_a}}


def _shape_class(value, scalars, shapes):
    """The shape class of an elementwise operation's result: that of its operands that are
    not known scalars, when they all share one (`x * x`, `numpy.tanh(a) * 2.0`); None if not
    shown (a new class)."""
    if isinstance(value, gast.Name):
        operands = [value]
    elif isinstance(value, gast.UnaryOp):
        operands = [value.operand]
    elif isinstance(value, gast.BinOp) and not isinstance(value.op, gast.MatMult):
        operands = [value.left, value.right]
    elif isinstance(value, gast.Call) and not value.keywords and value.args and (
            is_elementwise(facts.REF.of(value)) or
            facts.REF.of(value) in SAME_SHAPE):
        operands = value.args
    else:
        return None
    classes = {shapes.get(a.id) if isinstance(a, gast.Name) else None
               for a in operands if not is_scalar(a, scalars)}
    if len(classes) != 1 or None in classes:
        return None
    return classes.pop()


def same_shape(argument, others, statement):
    """Whether `argument` has the shape of the broadcast of itself and `others` (each a known
    scalar or of argument's shape class): its gradient then needs no `rt.unbroadcast`."""
    shapes = facts.SHAPES.of(statement, {})
    if not isinstance(argument, gast.Name) or shapes.get(argument.id) is None:
        return False
    return all(is_scalar(o, facts.SCALARS.of(statement)) or
               (isinstance(o, gast.Name) and shapes.get(o.id) is shapes[argument.id])
               for o in others)


def stable_shapes(statements):
    """{name: shape class} for the parameters never rebound and the names assigned once, at the
    top level (not in a branch or a loop), of marked `statements` ending in their `return`:
    what generated code may rely on everywhere."""
    final = facts.SHAPES.of(statements[-1], {}) if statements else {}
    stores = {}
    for statement in statements:
        for node in nodes.walk(statement):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
                stores[node.id] = stores.get(node.id, 0) + 1
    top = {t for statement in statements if isinstance(statement, gast.Assign)
           for t in activity.targets(statement)}
    return {name: shape for name, shape in final.items()
            if stores.get(name, 0) == 0 or (stores[name] == 1 and name in top)}


def _parameter_like(statements):
    """Names read before any assignment (parameters, globals): each its own shape class."""
    read = set()
    for node in statements:
        read |= nodes.names_loaded(node)
    return read


def _assigned(statements):
    names = set()
    for node in statements:
        for child in nodes.walk(node):
            if isinstance(child, gast.Assign):
                names |= activity.targets(child)
            elif isinstance(child, (gast.For, gast.While)):
                names |= activity.loop_target(child)
    return names


def _agreeing(a, b):
    return {name: rank for name, rank in a.items() if b.get(name) == rank}


def full_reduction(call):
    return facts.REF.of(call) in FULL_REDUCTIONS and \
        len(call.args) == (2 if facts.REF.of(call) is numpy.vdot else 1) and \
        all(k.arg in ("ddof", "dtype") for k in call.keywords)


def known(value, scalars, ints):
    """(is a known scalar, is a known int) for one ANF operation."""
    if isinstance(value, gast.Call) and facts.REF.of(value) is rt.grad_of:
        return known(value.args[0], scalars, ints)  # an identity (grad_of)
    if isinstance(value, gast.Call):
        head = (nodes.dotted_parts(value.func) or [None])[0]
        ref = facts.REF.of(value)
        # int(), len(), round() of one number, and min/max/abs of ints give an int
        integer = head in ("int", "len") or ref is round and len(value.args) == 1 or \
            ref in (min, max, abs) and bool(value.args) and \
            all(is_int(a, ints) for a in value.args)
        elementwise = is_elementwise(facts.REF.of(value)) or \
            facts.REF.of(value) in (abs, min, max, round)
        scalar_args = bool(value.args) and not value.keywords and \
            all(is_scalar(a, scalars) for a in value.args)
        return head in ("math", "float", "int", "len") or (elementwise and scalar_args) or \
            full_reduction(value), integer
    if isinstance(value, gast.Name):
        return value.id in scalars, value.id in ints
    if isinstance(value, gast.Constant):
        return True, type(value.value) is int
    if isinstance(value, (gast.BinOp, gast.UnaryOp)):
        operands = [a for a in gast.iter_child_nodes(value) if isinstance(a, gast.expr)]
        scalar = all(is_scalar(a, scalars) for a in operands)
        integer = all(is_int(a, ints) for a in operands) and \
            isinstance(getattr(value, "op", None), (gast.Add, gast.Sub, gast.Mult, gast.USub,
                                                  gast.Mod, gast.FloorDiv))
        return scalar, integer
    if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) \
            and value.value.id in ints:
        return True, True  # an element of x.shape
    if isinstance(value, gast.Attribute) and value.attr in ("shape", "ndim", "size"):
        return value.attr != "shape", True
    return False, False


def rank_of(value, scalars, ints, ranks):
    """The number of dimensions of an ANF operation's result (0: a scalar), or None."""
    def of(atom):
        if normalize.is_literal(atom):
            return 0
        if isinstance(atom, gast.Name):
            return 0 if atom.id in scalars else ranks.get(atom.id)
        if isinstance(atom, (gast.UnaryOp, gast.BinOp, gast.Subscript)):  # in a call:
            return rank_of(atom, scalars, ints, ranks)           # numpy.exp(inner[r] - peak)
        return None

    if isinstance(value, gast.Name):
        return of(value)
    if isinstance(value, gast.UnaryOp):
        return of(value.operand)
    if isinstance(value, gast.Compare) and len(value.ops) == 1:   # elementwise, broadcast
        left, right = of(value.left), of(value.comparators[0])
        return None if left is None or right is None else max(left, right)
    if isinstance(value, gast.BinOp):
        left, right = of(value.left), of(value.right)
        if left is None or right is None:
            return None
        if isinstance(value.op, gast.MatMult):
            return result_ranks.matmul_rank(left, right)
        return max(left, right)
    if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
        return indexed_rank(ranks.get(value.value.id), value.slice, scalars, ints, ranks)
    if isinstance(value, gast.Call):
        ref = facts.REF.of(value)
        if full_reduction(value):
            return 0
        if ref is None and isinstance(value.func, gast.Attribute) and \
                value.func.attr in _SAME_RANK_METHODS and not value.args:
            return of(value.func.value)   # `x.copy()` before methods are resolved
        if ref in ALLOCATORS and len(value.args) == 1 and not value.keywords:
            shape = value.args[0]  # numpy.zeros(n), numpy.zeros((n, k)): known before its ints
            if _is_one_int(shape, scalars, ints):
                return 1
            if isinstance(shape, gast.Tuple):
                return len(shape.elts)
        args = [of(a) for a in value.args]
        if not value.keywords and args and None not in args:
            if is_elementwise(ref) or (ref in SAME_RANK and len(args) == 1):
                return max(args)
        return result_ranks.of_call(ref, value, of,
                                    lambda atom: _is_one_int(atom, scalars, ints))
    return None


_SAME_RANK_METHODS = frozenset({"copy", "conj", "conjugate"})


def indexed_rank(rank, index, scalars, ints, ranks=None):
    """Dimensions left after indexing an array of `rank` dimensions with ints, slices and
    1-D arrays (`ranks`: the names' ranks). 1-D array indices, of ints or of bools alike, take
    one dimension each and give one together (they broadcast), wherever they stand."""
    if not rank:
        return None
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    left, arrays = rank, 0
    for part in parts:
        if isinstance(part, gast.Slice):
            continue
        if _is_one_int(part, scalars, ints) or isinstance(part, gast.Name) and \
                part.id in scalars:  # a number: an int (`obs[t]` of an int array), or an
            left -= 1                # IndexError (scalars never hold comparisons' bools)
            continue
        if isinstance(part, gast.Name) and (ranks or {}).get(part.id) == 1:
            left -= 1
            arrays += 1
            continue
        return None  # a wider array index, None, an ellipsis...: not worked out
    if left < 0:
        return None  # too many indices: an IndexError
    return left + 1 if arrays else left


def _is_one_int(atom, scalars, ints):
    """An int, not a tuple of them (`ints` also holds names of shapes)."""
    return is_int(atom, ints) and (isinstance(atom, gast.Constant) or is_scalar(atom, scalars)
                                   or isinstance(atom, gast.UnaryOp))


def is_scalar(atom, scalars):
    """A literal, or a name known to hold a Python scalar."""
    return normalize.is_literal(atom) or (isinstance(atom, gast.Name) and atom.id in scalars)


def is_int(atom, ints):
    """An int literal, or a name known to hold an int."""
    if isinstance(atom, gast.Constant):
        return type(atom.value) is int
    if isinstance(atom, gast.UnaryOp) and isinstance(atom.op, gast.USub):
        return is_int(atom.operand, ints)
    return isinstance(atom, gast.Name) and atom.id in ints



def of_call(parameter_names, args, statement):
    """The kinds of a user function's parameters at a call `statement` (a key of its generated
    code): (scalars, ints, (name, ndim) pairs of arrays)."""
    known_scalars, known_ints = facts.SCALARS.of(statement), facts.INTS.of(statement)
    ranks = facts.RANKS.of(statement, {})
    return (frozenset(n for n, a in zip(parameter_names, args) if is_scalar(a, known_scalars)),
            frozenset(n for n, a in zip(parameter_names, args) if is_int(a, known_ints)),
            frozenset((n, ranks[a.id]) for n, a in zip(parameter_names, args)
                      if isinstance(a, gast.Name) and a.id in ranks))
