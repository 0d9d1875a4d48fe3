"""map and functools.partial inside differentiated functions, written as people write them
(tests/test_functional_calls.py differentiates each)."""
import functools
from functools import partial

import numpy as np


def step(a, x, scale=1.0):
    return scale * np.tanh(a * x)


def layer(W, b, x):
    return np.tanh(W @ x + b)


def map_partial_to_array(p, xs):
    return np.sum(np.array(list(map(partial(step, p), xs))) ** 2)


def for_over_map(p, xs):
    out = 0.0
    for y in map(partial(step, p, scale=2.0), xs):
        out = out + np.sum(y * y)
    return out


def map_lambda_summed(p, xs):
    return sum(map(lambda row: np.sum(np.sin(p * row)), xs))


def map_two_sequences(p, xs, ys):
    total = 0.0
    for v in map(lambda a, b: np.dot(a, b) * p, xs, ys):
        total = total + v * v
    return total


def map_a_function_stacked(W, xs):
    hs = np.stack(list(map(np.tanh, xs @ W)))
    return np.sum(hs ** 3)


def partial_bound_to_a_name(W, b, xs):
    f = functools.partial(layer, W, b)
    total = 0.0
    for x in xs:
        total = total + np.sum(f(x) ** 2)
    return total + np.sum(f(xs[0]))


def partial_with_keyword_then_called(p, x):
    g = partial(step, scale=0.5)
    return np.sum(g(p, x)) + np.sum(g(2.0 * p, x))


def partial_reads_its_argument_where_made(p, x):
    a = p
    g = partial(step, a)
    a = 3.0 * p          # the partial keeps the value `a` had when it was made
    return np.sum(g(x)) + a


# ---- tuples joined with + and repeated with * ---------------------------------------------------

def concat_and_multiply(weights, *args):
    cat_state = np.hstack(args + (np.ones((args[0].shape[0], 1)),))
    return np.dot(cat_state, weights)


def rnn_style_update(W, x, h):
    return np.sum(np.tanh(concat_and_multiply(W, x, h)) ** 2)


def tuple_grown_by_plus(a, b):
    t = (a, b)
    u = t + (a * b,)
    return np.sum(u[2]) + np.sum(np.stack(u) ** 2)


def tuple_repeated(a, b):
    x, y, z, w = (a, b) * 2
    return np.sum(x * w + y * z)
