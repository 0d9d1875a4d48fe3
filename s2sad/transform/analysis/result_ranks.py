"""The number of dimensions a NumPy call returns, from its arguments' (kinds.rank_of's table
for calls that are not elementwise).

    q = numpy.diag(q_diag)           # q_diag 1-D -> q 2-D
    s = numpy.sum(m, axis=1)         # m 2-D -> s 1-D
    z = numpy.dot(W, x)              # 2-D, 1-D -> 1-D

Each entry says what NumPy itself does; anything not shown by the call (an axis held in a
name that is not a known int, a shape built at run time) gives None, unknown, never a guess:
a wrong rank would drop an `rt.unbroadcast` that is needed.
"""
import numpy

from s2sad.runtime import rt

_REDUCTIONS = {numpy.sum, numpy.mean, numpy.prod, numpy.max, numpy.min, numpy.amax,
               numpy.amin, numpy.var, numpy.std, numpy.nansum, numpy.nanmean, numpy.median,
               numpy.ptp, numpy.all, numpy.any}
_SAME_AS_FIRST = {numpy.triu, numpy.tril, numpy.zeros_like, numpy.ones_like, numpy.empty_like,
                  numpy.full_like, numpy.flip, numpy.fliplr, numpy.flipud, numpy.roll,
                  numpy.sort, numpy.linalg.inv, numpy.nan_to_num, numpy.real, numpy.imag,
                  numpy.conj, numpy.round, numpy.around}
_ELEMENTWISE_ALL = {numpy.where, numpy.clip}   # broadcast every argument


def of_call(ref, call, ranks_of, is_int):
    """The rank of `call` (a gast.Call of `ref`), or None. `ranks_of(atom)`: an argument's
    rank (0 for a scalar) or None; `is_int(atom)`: a known int."""
    args, keywords = call.args, {k.arg: k.value for k in call.keywords}
    if None in keywords:
        return None  # **kwargs
    ranks = [ranks_of(a) for a in args]
    first = ranks[0] if ranks else None
    if ref in _REDUCTIONS:
        return _reduced(first, args[1:], keywords, is_int)
    if ref in (numpy.cumsum, numpy.cumprod):
        axis = args[1] if len(args) > 1 else keywords.get("axis")
        return None if first is None else first if _given(axis) else 1
    if ref in (numpy.array, numpy.asarray) and len(args) == 1 and \
            set(keywords) <= {"dtype"} and hasattr(args[0], "elts"):
        return _nested_rank(args[0], ranks_of)
    if keywords and ref not in (numpy.reshape, numpy.diag):
        return None
    if ref is numpy.diag:
        return {1: 2, 2: 1}.get(first)
    if ref is rt.rows and len(ranks) == 2:  # (a list grown in a loop: a row per element)
        return None if ranks[1] is None else ranks[1] + 1
    if ref is numpy.outer:
        return 2
    if ref in (numpy.dot, numpy.matmul) and len(ranks) == 2 and None not in ranks:
        left, right = ranks
        if ref is numpy.dot and 0 in ranks:
            return max(ranks)
        return matmul_rank(left, right)
    if ref is numpy.inner and ranks == [1, 1]:
        return 0
    if ref is numpy.trace and first == 2 and len(args) == 1:
        return 0
    if ref is numpy.linalg.det and first == 2:
        return 0
    if ref is numpy.linalg.solve and ranks[:1] == [2] and len(ranks) == 2:
        return ranks[1]
    if ref in _SAME_AS_FIRST and args:
        return first
    if ref in _ELEMENTWISE_ALL and args and None not in ranks:
        return max(ranks)
    if ref is numpy.ravel:
        return 1 if first is not None else None
    if ref in (numpy.linspace, numpy.arange):
        return 1 if args and all(r == 0 for r in ranks[:2]) else None
    if ref is numpy.full and len(args) == 2 and ranks[1] == 0:
        return _length_of_shape(args[0], is_int)
    if ref in (numpy.eye, numpy.identity):
        return 2
    if ref is numpy.reshape:
        shape = args[1] if len(args) > 1 else keywords.get("newshape",
                                                           keywords.get("shape"))
        return _length_of_shape(shape, is_int)
    if ref is numpy.expand_dims and len(args) == 2 and is_int(args[1]) and first is not None:
        return first + 1
    if ref in (numpy.stack, numpy.concatenate) and len(args) == 1 and \
            hasattr(args[0], "elts") and args[0].elts:
        parts = {ranks_of(e) for e in args[0].elts}
        if len(parts) != 1 or None in parts:
            return None
        rank = parts.pop()
        return rank + 1 if ref is numpy.stack else (rank or None)
    return None


def matmul_rank(left, right):
    """The rank of `a @ b` for operands of these ranks (None: an error at run time, or stacks
    of matrices, which are not worked out)."""
    if left == 0 or right == 0:
        return None
    if left == 1 and right == 1:
        return 0
    if left <= 2 and right <= 2:
        return left + right - 2
    return None


def _reduced(rank, rest, keywords, is_int):
    """A reduction of an array of `rank` dimensions over `axis` (positional or keyword)."""
    if rank is None or set(keywords) - {"axis", "keepdims", "dtype", "ddof"}:
        return None
    axis = rest[0] if rest else keywords.get("axis")
    keep = keywords.get("keepdims")
    if keep is not None:
        if not hasattr(keep, "value") or not isinstance(keep.value, bool):
            return None
        if keep.value:
            return rank
    if not _given(axis):
        return 0
    if is_int(axis):
        return rank - 1 if rank >= 1 else None
    if hasattr(axis, "elts") and all(is_int(e) for e in axis.elts):
        constants = [getattr(e, "value", None) for e in axis.elts]
        if None in constants or len(set(constants)) != len(constants):
            return None
        return rank - len(constants) if rank >= len(constants) else None
    return None


def _given(axis):
    return axis is not None and not (hasattr(axis, "value") and axis.value is None
                                     and not hasattr(axis, "elts"))


def _length_of_shape(shape, is_int):
    if shape is None:
        return None
    if hasattr(shape, "elts"):
        return len(shape.elts) if all(is_int(e) for e in shape.elts) else None
    return 1 if is_int(shape) else None


def _nested_rank(literal, ranks_of):
    """The rank of numpy.array of a (nested) list or tuple display whose innermost elements
    all have one known rank: `[2, 0, 0]` -> 1, `[[a, b], [c, d]]` -> 2 (None if ragged)."""
    if not hasattr(literal, "elts"):
        return ranks_of(literal)
    if not literal.elts:
        return 1
    parts = {_nested_rank(e, ranks_of) for e in literal.elts}
    if len(parts) != 1 or None in parts:
        return None
    return parts.pop() + 1
