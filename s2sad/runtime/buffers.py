"""Arrays with a row per loop trip or per example: a list grown in a run-time loop
(container_buffers.py), a value a loop keeps for the backward sweep (tape.py, counted.py), an
example of a batch (s2sad.vmap's loop, batch.py)."""
import numpy as np

from .dispatch import (by_type, compiled_as, constant, generate, is_array, is_tuple, jitable,
                       python_only)

__all__ = ["rows", "no_rows", "some_rows", "some_trips", "keep_row", "grown", "push_row",
           "entries", "push_entry",
           "entry", "example"]


@jitable
def rows(trips, first):
    """The array a list grown in a loop becomes (containers.py): zeros, a row shaped like
    `first` (its first element) for each of the loop's `trips`."""
    return np.zeros((trips,) + np.shape(first))


@jitable
def no_rows():
    """A list grown in a loop before its first append made its array (containers.py): None,
    which Numba types together with the array as an Optional."""
    return None


@jitable
def some_rows(count):
    """How many rows a list grown under `if`s got (its array has room for the most a loop could
    append): at least one, which its array took its shape from."""
    if count <= 0:
        raise ValueError("s2sad: a list grown in a loop got no element, so its array has no "
                         "shape to take; make sure one is appended (Python gives [] here)")
    return count


@jitable
def some_trips(trips):
    """The trip count of a loop that grows a list, which must run at least once: the array it
    becomes takes its shape from the first element."""
    if trips <= 0:
        raise ValueError("s2sad: a list grown in a loop that ran zero times has no element to "
                         "take its shape from; give the loop at least one trip")
    return trips


@jitable
def keep_row(rows, trips, k, x):
    """Keep the array `x` as row k of `rows`, the preallocated stack of a value a loop of
    `trips` iterations computes with the same shape every time (loop_shapes.py); made at the
    first push, from x's shape and type (`rows` has no element before). Returns the stack."""
    if rows.size == 0:
        rows = np.empty((trips,) + x.shape, x.dtype)
    if rows.shape[1:] != x.shape:
        raise ValueError("s2sad: a value kept for the backward sweep changed shape between "
                         "iterations; please report this as an s2sad bug", x.shape)
    rows[k] = x
    return rows


@jitable
def grown(stack, k):
    """The growable tape of a number kept in a loop whose trip count is not known before it (a
    `while`, a bound the loop changes), long enough for position k: twice as long (at least
    16), with the same first elements. Generated code calls it only when the tape is full; each
    value is a plain store `stack[k] = x`, the room check inline before it."""
    longer = np.empty(max(16, 2 * stack.shape[0], k + 1), stack.dtype)
    longer[:stack.shape[0]] = stack
    return longer


@jitable
def push_row(rows, k, x):
    """Keep the array x as row k of `rows`, the growable tape of a value of one shape in every
    trip of a loop nest (loop_shapes.py) whose trip count is not known before it; made at the
    first push from x's shape and type, twice as long when it is full. Returns the stack."""
    if rows.size == 0 and rows.shape[0] == 0:
        rows = np.empty((16,) + x.shape, x.dtype)
    if rows.shape[1:] != x.shape:
        raise ValueError("s2sad: a value kept for the backward sweep changed shape between "
                         "iterations; please report this as an s2sad bug", x.shape)
    if k >= rows.shape[0]:
        grown = np.empty((2 * rows.shape[0],) + x.shape, x.dtype)
        grown[:rows.shape[0]] = rows
        rows = grown
    rows[k] = x
    return rows


# ---- arrays of any shape, one after the other --------------------------------------------------
# A stack of arrays of one rank whose shapes may differ: (data, index, like). `data` holds their
# elements one array after the other; row 0 of `index` holds how much of `data` is used, row
# k + 1 the offset and the shape of entry k; `like`, an empty array of that rank, gives Numba
# the rank of what `entry` returns.

@by_type(prefer_literal=True)
def entries(rank):
    """An empty stack of arrays of the constant rank `rank` (for rt.push_entry, rt.entry)."""
    value = constant(rank)
    if not isinstance(value, int) or isinstance(value, bool):
        return python_only(_entries)
    like = "(" + "0, " * value + ")"
    return generate("entries", ["rank"], [
        f"return (np.empty(0), np.zeros((1, {1 + value}), np.int64), np.empty({like}))"], {})


def _entries(rank):
    return (np.empty(0), np.zeros((1, 1 + rank), np.int64), np.empty((0,) * rank))


def _push_entry_loop(stack, k, x):
    # loops, not slice assignments: Numba compiles these in a fraction of the time
    data, index, like = stack
    if k + 1 >= index.shape[0]:
        longer = np.empty((max(16, 2 * (k + 1)), index.shape[1]), np.int64)
        for i in range(index.shape[0]):
            for j in range(index.shape[1]):
                longer[i, j] = index[i, j]
        index = longer
    start = index[0, 0]
    if start + x.size > data.shape[0]:
        bigger = np.empty(max(2 * data.shape[0], start + x.size, 64))
        for i in range(start):
            bigger[i] = data[i]
        data = bigger
    index[k + 1, 0] = start
    d = 1
    for n in x.shape:
        index[k + 1, d] = n
        d += 1
    for i in range(x.size):
        data[start + i] = x.flat[i]
    index[0, 0] = start + x.size
    return data, index, like


@compiled_as(_push_entry_loop)
def push_entry(stack, k, x):
    """Keep the array x as entry k of a stack of `rt.entries`: its elements copied after the
    last ones (the arrays grow twice as long when full; as Python, in x's dtype). Returns the
    stack."""
    data, index, like = stack
    if k + 1 >= index.shape[0]:
        longer = np.zeros((max(16, 2 * (k + 1)), index.shape[1]), np.int64)
        longer[:index.shape[0]] = index
        index = longer
    start = index[0, 0]
    if data.shape[0] == 0:
        data = np.empty(max(64, 4 * x.size), x.dtype)
    elif start + x.size > data.shape[0]:
        bigger = np.empty(max(2 * data.shape[0], start + x.size), data.dtype)
        bigger[:start] = data[:start]
        data = bigger
    index[k + 1, 0] = start
    index[k + 1, 1:] = x.shape
    data[start:start + x.size] = np.ravel(x)
    index[0, 0] = start + x.size
    return data, index, like


@by_type
def entry(stack, k):
    """Entry k of a stack of `rt.entries`: a view of its elements in its shape."""
    if not is_tuple(stack) or len(stack) != 3 or not is_array(stack[2]):
        return python_only(_entry)
    rank = stack[2].ndim
    if rank == 1:  # a vector: a slice
        return lambda stack, k: stack[0][stack[1][k + 1, 0]:
                                         stack[1][k + 1, 0] + stack[1][k + 1, 1]]
    shape = "(" + "".join(f"index[k + 1, {1 + d}], " for d in range(rank)) + ")"
    size = " * ".join(f"shape[{d}]" for d in range(rank))
    return generate("entry", ["stack", "k"], [
        "data, index, like = stack",
        "start = index[k + 1, 0]",
        f"shape = {shape}",
        f"return data[start:start + {size}].reshape(shape)"], {})


def _entry(stack, k):
    data, index, like = stack
    shape = tuple(int(n) for n in index[k + 1, 1:])
    start = index[k + 1, 0]
    return data[start:start + int(np.prod(shape))].reshape(shape)


def _example_loop(batch, k):
    return batch[k]


@compiled_as(_example_loop)
def example(batch, k):
    """Example k of a batched argument, in s2sad.vmap's loop (batch.py). Run as Python, a
    number comes out as a Python number, as a single call would have been given it (and
    `1.0 / 0.0` raises as it does there, where a NumPy float64 would warn and give inf)."""
    value = batch[k]
    return value.item() if value.ndim == 0 else value
