"""Functions differentiated in forward mode, with vjp/jacobian, and to second order
(tests/test_modes.py). Small on purpose: each is compiled by Numba."""
import math

import numpy as np


def squash(x, w):
    """A user function the others call."""
    return np.tanh(x * w)


def loop(x, w, n):
    """Control flow, an in-place write, a callee: everything reverse mode supports."""
    s = 0.0
    y = np.zeros(3)
    for i in range(n):
        x = np.sin(x) * w + 1.0
        if x > 0.5:
            s = s + x ** 2
        else:
            s = s - math.exp(x)
        y[i % 3] = x * 2.0
    return s + np.sum(y * y) + squash(x, w)


def early_exit(x, limit):
    """A while loop with break and continue."""
    k = 0
    while k < 20:
        k = k + 1
        if k % 3 == 0:
            continue
        x = x * 1.1 + 0.05 * x * x
        if x > limit:
            break
    return x


def mutate(a, b):
    """Writes into its array argument: the caller's array and tangent must not change."""
    a[0] = a[1] * b
    a[2] = a[2] + b * b
    return np.sum(a * a)


def field(x, w):
    """An array output: x (3,), w (3,) -> (3,)."""
    y = np.sin(x) * w
    return y * y + np.cos(w) * x[0]


def pair(x, w):
    """A tuple output: (array, scalar)."""
    y = np.sin(x) * w
    return y * 2.0, np.sum(y * x)


def uses_pair(x, w):
    """A caller unpacking a tuple-returning callee."""
    a, b = pair(x, w)
    return np.sum(a * a) + b


def quartic(x, w):
    """A scalar function of a scalar, through a callee (second derivatives)."""
    return squash(x, w) * x ** 3 + np.sin(w * x)


def energy(x, w):
    """A scalar function of arrays with a loop (Hessians)."""
    y = np.sin(x) * w
    for i in range(3):
        y = y * x + 0.1
    return np.sum(y * y) + np.sum(w * x) ** 2


def matrix(a, b):
    """Linear algebra in forward mode."""
    c = a @ b
    return np.sum(c * c) + np.sum(np.tanh(a))
