"""Functions for test_checkpoint.py: loops under `s2sad.checkpointed(range(...))`. The test
compares each with its twin, the same source with plain `range(...)` loops."""
import math

import numpy as np

import s2sad


def scalar(x, w, n, k):
    for i in s2sad.checkpointed(range(n), every=k):
        x = math.sin(x) * w + x
    return x


def automatic(x, w, n):
    s = 0.0
    for i in s2sad.checkpointed(range(n)):
        x = math.sin(x) * w + x
        s = s + 0.01 * x * x
    return s


def array_state(x, a, n):
    for i in s2sad.checkpointed(range(n)):
        x = x + 0.01 * np.tanh(a @ x)
    return np.sum(x * x)


def stepped(x, w, first, last):
    s = 0.0
    for i in s2sad.checkpointed(range(last, first, -3), 2):
        x = math.sin(x * w) + 0.1 * i
        s = s + x * x
    return s


def with_break(x, w, n):
    for i in s2sad.checkpointed(range(n), every=3):
        x = x * w + 0.1
        if x > 3.0:
            break
        x = x + 0.01 * i
    return x


def early_return(x, w, n):
    for i in s2sad.checkpointed(range(n), every=4):
        x = x * w + 0.1
        if x > 3.0:
            return x * 2.0
    return x


def with_if(x, w, n):
    s = 0.0
    limit = 0.5
    for i in s2sad.checkpointed(range(n)):
        if x > limit:
            x = x * w
        else:
            x = math.cos(x) + w
        s = s + x
    limit = 100.0  # the backward sweep's re-runs must still see 0.5
    return s + limit


def nested(x, w, n):
    s = 0.0
    for i in s2sad.checkpointed(range(n)):
        for j in range(3):
            x = math.sin(x * w + 0.1 * j)
        s = s + x * x
    return s


def _step(x, w):
    return np.tanh(w * x) + 0.5 * x


def with_callee(x, w, n):
    for i in s2sad.checkpointed(range(n)):
        x = _step(x, w)
    return np.sum(x * x)


def writes(x, v, n):
    y = v * 1.0
    for i in s2sad.checkpointed(range(1, n), every=3):
        y[i] = y[i - 1] * 0.9 + math.sin(x * y[i])
        x = x + 0.1 * y[i]
    return np.sum(y * y) + x


def inside_a_loop(x, w, m, n):
    s = 0.0
    for k in range(m):
        x = x * 0.9 + w
        for i in s2sad.checkpointed(range(n)):
            x = math.sin(x) * w + 0.5 * x
        s = s + x
    return s


def carried_without_value(x, n):
    for i in s2sad.checkpointed(range(n)):
        if i > 0:
            x = x + previous  # noqa: F821  (assigned in the previous iteration)
        previous = x * 0.5  # noqa: F841  (read in the next iteration)
    return x


def over_rows(x, rows):
    for row in s2sad.checkpointed(rows):
        x = x + np.sum(row)
    return x


def calls_a_checkpointed_loop(x, w, n):
    y = automatic(x, w, n)  # the caller's forward sweep runs the plain-loop primal copy
    return y * x


def inactive(x, n):
    c = 1.0
    for i in s2sad.checkpointed(range(n)):
        c = c * 0.5
    return x * 2.0 + c


def not_a_loop(x):
    steps = s2sad.checkpointed(range(3))
    return x * len(steps)
