"""Functions for the API, error and cache tests (they need real source files)."""
import math

import numpy as np

import s2sad


def f(x, w):
    z = np.sin(x * w)
    return np.sum(z * z) + w ** 2


@s2sad.grad
def g_decorated(x):
    return x * math.exp(x)


@s2sad.grad(wrt=(0, 1))
def h_decorated(x, y):
    return x * y + math.sin(y)


def returns_array(x):
    return x * 2.0


def returns_tuple(x):
    return x, x


def flipped(x):
    return np.sum(np.nan_to_num(x) * np.arange(3.0))


def unsupported_everything(x, items):
    with items:
        x = -x
    del items[0]
    x = x << 2
    y = [v for v in x]
    return (lambda v: v)(x) + y


def recursive(x):
    return ping(x * 0.5)


def calls_unknown(x):
    return np.fft.fft(x)


def ping(x):
    if x < 0.1:
        return x
    return pong(x * 0.5, 2.0)


def pong(x, y):
    return ping(x * y)
