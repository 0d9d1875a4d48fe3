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


# ---- generators of yours looped over (front/generators.py) -------------------------------------

LAYER_SHAPES = [(3, 2), (2, 1)]


def layers(weights):
    for m, n in LAYER_SHAPES:
        yield weights[:m * n].reshape((m, n)), weights[m * n:m * n + n]
        weights = weights[(m + 1) * n:]


def net_over_a_generator(w, x):
    h = x
    for W, b in layers(w):
        h = np.tanh(h @ W + b)
    return np.sum(h ** 2)


def make_net(layer_sizes):
    """A factory, as people write Bayesian neural nets: the generator reads the factory's
    `shapes` (a constant), the loss calls the generator (both closures)."""
    shapes = list(zip(layer_sizes[:-1], layer_sizes[1:]))

    def unpack_layers(weights):
        for m, n in shapes:
            yield weights[:m * n].reshape((m, n)), weights[m * n:m * n + n]
            weights = weights[(m + 1) * n:]

    def loss(weights, inputs, targets):
        for W, b in unpack_layers(weights):
            inputs = np.tanh(inputs @ W + b)
        return np.sum((inputs - targets) ** 2)
    return loss


NET_LOSS = make_net([2, 3, 1])


def closure_generator(weights, inputs, targets):
    return NET_LOSS(weights, inputs, targets)


def local_generator(x, scale=2.0):
    def pairs(v, step=1):
        for i in range(len(v) - step):
            yield v[i], v[i + step] * scale
    s = 0.0
    for a, b in pairs(x):
        s = s + a * b
    for a, b in pairs(x, step=2):
        s = s + np.sin(a - b)
    return s
