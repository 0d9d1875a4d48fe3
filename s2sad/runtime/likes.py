"""Arrays with a shape and no data, for what the backward sweep reads only for its shape.

`rt.unbroadcast(g, like)`, `rt.zeros_like(like)` and `rt.concatenate_grads(g, (a, b), axis)` read
their `like` arrays' shapes alone. Where such a value is not at hand in the backward sweep,
saves.py builds one of its shape from values that are (`x[1:]` of a kept `x`, a parameter)
instead of keeping the value at every trip of its loop:

    _t7_like = rt.joined_shaped(tension_like[1:], rt.shaped(1), 0)   # numpy.concatenate's shape
    d_t7 = rt.unbroadcast(dforce, _t7_like)

Each is a read-only view of one number with zero strides (no allocation of its size), so that
indexing it (`tension_like[1:]`) gives the shape the same index gives the value.
"""
import numpy as np

from .dispatch import by_type, constant, generate, is_array, is_int, python_only

__all__ = ["shaped", "broadcast_shaped", "joined_shaped"]


_NOTHING = np.zeros(())   # what every such array views (Numba: a constant; no allocation)


@by_type
def shaped(shape):
    """An array of `shape` (an int or a tuple of ints), without data."""
    return lambda shape: np.broadcast_to(_NOTHING, shape)


@by_type
def broadcast_shaped(a, b):
    """An array of the shape NumPy's broadcasting gives a and b (arrays), without data."""
    if not (is_array(a) and is_array(b)):
        return python_only(_broadcast_shaped)
    # written out for the ranks (Numba's np.broadcast_shapes takes ~0.1 us a call)
    rank = max(a.ndim, b.ndim)
    lines = []
    for k in range(rank):
        ka, kb = k - (rank - a.ndim), k - (rank - b.ndim)
        lines += [f"m = a.shape[{ka}]" if ka >= 0 else "m = 1",
                  f"n = b.shape[{kb}]" if kb >= 0 else "n = 1",
                  "if m != n and m != 1 and n != 1:",
                  "    raise ValueError('operands could not be broadcast together')",
                  f"e{k} = m if n == 1 else n"]
    lines.append(f"return np.broadcast_to(_NOTHING, ({''.join(f'e{k}, ' for k in range(rank))}))")
    return generate("broadcast_shaped", ["a", "b"], lines, {"np": np, "_NOTHING": _NOTHING})


def _broadcast_shaped(a, b):
    return np.broadcast_to(_NOTHING, np.broadcast_shapes(np.shape(a), np.shape(b)))


@by_type(prefer_literal=True)
def joined_shaped(a, b, axis):
    """An array of the shape numpy.concatenate((a, b), axis) has (a constant int axis), without
    data."""
    k = constant(axis)
    if is_array(a) and is_array(b) and isinstance(k, int) and is_int(axis) and \
            -a.ndim <= k < a.ndim:
        k %= a.ndim
        return generate("joined_shaped", ["a", "b", "axis"], [
            f"return np.broadcast_to(_NOTHING, a.shape[:{k}] + (a.shape[{k}] + b.shape[{k}],) + "
            f"a.shape[{k + 1}:])"], {"np": np, "_NOTHING": _NOTHING})
    return python_only(_joined_shaped)


def _joined_shaped(a, b, axis):
    shape = list(np.shape(a))
    shape[axis] += np.shape(b)[axis]
    return np.broadcast_to(_NOTHING, tuple(shape))
