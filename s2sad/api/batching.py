"""`vmap`: a function s2sad made, called once per example of a batch, results stacked.

    per_example = s2sad.vmap(s2sad.grad(loss), in_axes=(None, 0, 0))
    G = per_example(w, X, Y)        # G[k] == grad(loss)(w, X[k], Y[k])

For `grad`, `value_and_grad`, `vjp`, `jvp` and `hvp` the batch runs in one generated loop
(runtime/batch.py) around the function's generated code: compiled with `parallel=True` when the
JIT is on, so the examples are spread over every core, and a Python loop over the same code
when it is off. The first example is called as usual first: it checks the arguments and the
output, and compiles the code the loop calls. Any other callable (`jacobian`, `hessian`, a
function of yours that calls gradient functions) is called example by example in Python.
"""
import numbers

import numpy

from s2sad.errors import InternalError
from s2sad.runtime import batch

from . import pytrees
from .calls import Transformed, argument_error, short_repr


def vmap(func, in_axes=0):
    """`func` mapped over a batch: `in_axes` is an int (every positional argument batched
    along that axis) or a tuple with an int or None (not batched) per positional argument; a
    container argument's leaves are all batched along its axis. Keyword arguments are not
    batched. Results are stacked along axis 0, each leaf of a tuple, dict or other container
    result on its own."""
    if not callable(func):
        raise argument_error(f"s2sad.vmap() takes a function, not {short_repr(func)}",
                             why="vmap calls the function once per example of a batch",
                             fix="pass what s2sad.grad, value_and_grad, vjp, jvp or hvp "
                                 "returned")
    _check_axes(in_axes)
    return Batched(func, in_axes)


class Batched:
    def __init__(self, func, in_axes):
        self.func, self.in_axes = func, in_axes
        self._loops = {}  # (Runner, argument and output structure) -> the batch loop's Runner
        self._last = None
        self.__wrapped__ = func

    def __repr__(self):
        return f"<s2sad vmap of {self.func!r}, in_axes={self.in_axes!r}>"

    def __getstate__(self):  # the loops are made again where it is unpickled
        return dict(self.__dict__, _loops={}, _last=None)

    @property
    def path(self):
        """The generated batch loop the last call ran (None before, or when examples are
        called one by one in Python)."""
        return self._last.path if self._last is not None else None

    @property
    def source(self):
        return self._last.source if self._last is not None else None

    def __call__(self, *args, **kwargs):
        axes = _axes(self.in_axes, args)
        moved = [arg if axis is None else pytrees.map_leaves(arg, _front(axis, i))
                 for i, (arg, axis) in enumerate(zip(args, axes))]
        n = _size(moved, axes)
        first = _example(moved, axes, 0)
        result = self.func(*first, **kwargs)  # checks everything, compiles what the loop calls
        if not isinstance(self.func, Transformed) or getattr(self.func, "check_nan", False):
            # check_nan explains a NaN by running the one example again: keep examples apart
            self._last = None
            return _stacked([result] + _one_by_one(self.func, moved, axes, kwargs, n, 1))
        return self._looped(result, first, moved, axes, kwargs, n)

    def _looped(self, result, first, moved, axes, kwargs, n):
        values, tail = self.func.generated_arguments(first, kwargs)
        runner = self.func.runner(values)
        example = list(values) + list(tail)
        values, tail = self.func.generated_arguments(moved, kwargs, batched=True)
        whole = list(values) + list(tail)
        raw = runner(*example)  # the outputs' structure, shapes and types
        key = (runner, _structure(tuple(example), tuple(whole)), _structure(raw, raw))
        loop = self._loops.get(key)
        if loop is None:
            loop = self._loops[key] = batch.loop(runner, example, whole, raw)
        self._last = loop
        outputs = batch.outputs(raw, n)
        try:
            loop(n, *outputs, *batch.arguments(example, whole))
        except Exception:
            # Numba's parallel loop cannot say which example failed, nor why (a SystemError):
            # call them one by one, and the first that fails raises its own error
            _one_by_one(self.func, moved, axes, kwargs, n)
            raise
        skip = len(pytrees.leaves_of(raw[0])) if self.func.drops_value else 0
        leaves = pytrees.leaves_of(result)
        if len(outputs) - skip != len(leaves):
            raise InternalError(f"vmap: {len(outputs) - skip} outputs for {len(leaves)} leaves")
        return pytrees.rebuild(result, iter(
            out.reshape((n,) + numpy.shape(leaf)) for out, leaf in zip(outputs[skip:], leaves)))


def _check_axes(in_axes):
    items = in_axes if isinstance(in_axes, (tuple, list)) else [in_axes]
    for axis in items:
        if axis is not None and not (isinstance(axis, numbers.Integral) and
                                     not isinstance(axis, bool)):
            raise argument_error(f"in_axes={in_axes!r}: {axis!r} is not an axis",
                                 why="in_axes says, for each positional argument, along which "
                                     "axis it is batched",
                                 fix="an int for every argument, or a tuple with an int or None "
                                     "(not batched) per positional argument")
    if isinstance(in_axes, (tuple, list)) and all(a is None for a in in_axes) or in_axes is None:
        raise argument_error(f"in_axes={in_axes!r} batches no argument",
                             why="vmap maps over the batch axis of at least one argument",
                             fix="give the batched argument's axis (0 for rows)")


def _axes(in_axes, args):
    if not isinstance(in_axes, (tuple, list)):
        return [in_axes] * len(args)
    if len(in_axes) != len(args):
        raise argument_error(f"in_axes has {len(in_axes)} entries for {len(args)} positional "
                             "arguments",
                             why="in_axes says, for each positional argument, along which axis "
                                 "it is batched",
                             fix="one int or None per positional argument (keyword arguments "
                                 "are never batched)")
    return list(in_axes)


def _front(axis, position):
    """The batch axis of a leaf moved to the front, the leaf C contiguous (the loop indexes
    rows)."""
    def move(leaf):
        if not isinstance(leaf, numpy.ndarray) or not -leaf.ndim <= axis < leaf.ndim:
            shape = numpy.shape(leaf) if isinstance(leaf, numpy.ndarray) else None
            what = f"an array of shape {shape}" if shape is not None else \
                f"a {type(leaf).__name__}"
            raise argument_error(f"positional argument {position} is batched along axis "
                                 f"{axis}, but it (or a leaf of it) is {what}",
                                 why="a batched argument holds one example per index of its "
                                     "batch axis",
                                 fix=f"pass an array with that axis, or None for argument "
                                     f"{position} in in_axes (the same value for every "
                                     "example)")
        return numpy.ascontiguousarray(numpy.moveaxis(leaf, axis, 0))
    return move


def _size(moved, axes):
    sizes = {}
    for i, (arg, axis) in enumerate(zip(moved, axes)):
        if axis is not None:
            for leaf in pytrees.leaves_of(arg):
                sizes.setdefault(leaf.shape[0], i)
    if not sizes:
        raise argument_error("vmap: no positional argument is batched",
                             why="in_axes batches positional arguments only",
                             fix="pass the batched arguments by position")
    if len(sizes) > 1:
        described = ", ".join(f"{size} (argument {i})" for size, i in sizes.items())
        raise argument_error(f"vmap: the batched arguments have different batch sizes: "
                             f"{described}",
                             why="each example takes one index of every batched argument",
                             fix="batch every argument along an axis of the same length")
    n = next(iter(sizes))
    if n == 0:
        raise argument_error("vmap: the batch is empty (its batch axis has length 0)",
                             why="the shapes of the results are those of an example's, and "
                                 "there is none",
                             fix="call it with at least one example")
    return n


def _example(moved, axes, k):
    return [arg if axis is None else pytrees.map_leaves(arg, lambda leaf: leaf[k])
            for arg, axis in zip(moved, axes)]


def _one_by_one(func, moved, axes, kwargs, n, start=0):
    """func's results for examples start..n-1; an error says which example raised it."""
    results = []
    for k in range(start, n):
        try:
            results.append(func(*_example(moved, axes, k), **kwargs))
        except Exception as exc:
            exc.add_note(f"(s2sad.vmap: in example {k} of the batch)")
            raise
    return results


def _structure(example, whole):
    """What the loop's code depends on besides types: which arguments are batched, tuples."""
    if isinstance(example, tuple):
        return tuple(_structure(e, w) for e, w in zip(example, whole))
    return numpy.ndim(whole) - numpy.ndim(example)


def _stacked(results):
    columns = zip(*(pytrees.leaves_of(r) for r in results))
    return pytrees.rebuild(results[0], iter(numpy.stack(column) for column in columns))
