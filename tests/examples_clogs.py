"""Functions for test_clogs.py: where the gradient silently stops, and where it does not."""
import math

import numpy as np

import s2sad


def int_cut(x):
    n = int(x * 10.0)
    return x * x * n


def sqrt_of_scalar(x):
    return math.sqrt(x) * 3.0


def comparison_as_number(x):
    mask = x > 0.0
    return np.sum(mask * x * x)


def comparison_fine(x):
    if np.sum(x) > 0.0:
        y = np.where(x > 0.0, x, 0.1 * x)
    else:
        y = x * 2.0
    i = np.argmax(x)
    return np.sum(y * y) + x[i]


def rounding(x):
    a = np.round(x)
    b = math.floor(x[0])
    return np.sum(a * x) + b * x[1] + np.sum(np.sign(x) * x)


def item_cut(x):
    return x[0] * x.sum().item()


def stopped(x):
    n = s2sad.stop_gradient(int(x * 10.0))
    m = int(s2sad.stop_gradient(x) * 10.0)
    s = s2sad.stop_gradient(x > 0.5) * x
    return x * x * n + m + s + s2sad.stop_gradient(x * x) * x


def integer_array(x):
    counts = np.zeros(3, dtype=np.int64)
    counts[0] = x[0] * 10.0
    out = np.zeros(3)
    out[1] = x[1]
    return np.sum(counts * x) + np.sum(out * x)


def random_draw(x):
    noise = np.random.normal(x, 1.0)
    return np.sum(noise * 0.0 + x)


def unused_parameter(x, w, n):
    return x * float(n)


def only_in_a_branch_test(x, w):
    if w > 0.0:
        return x * 2.0
    return x * 3.0


def cut_in_callee(x):
    return x * _floored(x)


def _floored(v):
    return math.floor(v * 4.0)


def cuts_twice(x):
    a = int(x)
    b = round(x * 2.0)
    return x * a * b


def floor_division(x):
    k = x // 0.25
    return x * k
