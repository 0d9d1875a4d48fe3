"""Arrays with a row per loop trip or per example: a list grown in a run-time loop
(container_buffers.py), a value a loop keeps for the backward sweep (tape.py), an example of a
batch (s2sad.vmap's loop, batch.py)."""
import numpy as np

from .dispatch import compiled_as, jitable

__all__ = ["rows", "some_trips", "keep_row", "example"]


@jitable
def rows(trips, first):
    """The array a list grown in a loop becomes (containers.py): zeros, a row shaped like
    `first` (its first element) for each of the loop's `trips`."""
    return np.zeros((trips,) + np.shape(first))


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


def _example_loop(batch, k):
    return batch[k]


@compiled_as(_example_loop)
def example(batch, k):
    """Example k of a batched argument, in s2sad.vmap's loop (batch.py). Run as Python, a
    number comes out as a Python number, as a single call would have been given it (and
    `1.0 / 0.0` raises as it does there, where a NumPy float64 would warn and give inf)."""
    value = batch[k]
    return value.item() if value.ndim == 0 else value
