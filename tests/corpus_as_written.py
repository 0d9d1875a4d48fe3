"""Code as people write it (issue 35): the spellings of published objectives and kernels
that s2sad refused or got wrong, each with the construct it exercises. tests/test_as_written.py
checks each against central finite differences, JIT on and off.

CASES: (function, rng -> arguments, wrt)
"""
import numpy as np

CASES = []
NOT_NUMBA = set()   # functions whose gradient runs as Python (with JitFallbackWarning)


# ---- tuple unpacking of any tuple-valued expression ----------------------------------------

def unpacked_shape(img):
    rows, cols = img.shape
    total = 0.0
    for i in range(rows - 1):
        for j in range(cols):
            total = total + (img[i + 1, j] - img[i, j]) ** 2
    return total / (rows * cols)


def unpacked_shape_3d(x):
    a, b, c = x.shape
    return np.sum(x ** 2) / (a * b * c)


def unpacked_shape_of_an_expression(x, w):
    n, m = (x * w).shape
    return np.sum(np.tanh(x * w)) * n + m


def _sin_and_cos(x):
    return np.sin(x), np.cos(x)


def subscripted_user_result(x):
    r = _sin_and_cos(x)
    return np.sum(r[0] * r[1]) + np.sum(r[-1])


def subscripted_numpy_result(a):
    r = np.linalg.slogdet(a)
    sign, logdet = r
    return r[1] + np.linalg.slogdet(a @ a)[1] + sign * logdet


CASES += [
    (unpacked_shape, lambda rng: (rng.normal(size=(4, 5)),), 0),
    (unpacked_shape_3d, lambda rng: (rng.normal(size=(2, 3, 4)),), 0),
    (unpacked_shape_of_an_expression, lambda rng: (rng.normal(size=(2, 3)), rng.normal()),
     (0, 1)),
    (subscripted_user_result, lambda rng: (rng.normal(size=3),), 0),
    (subscripted_numpy_result, lambda rng: (rng.normal(size=(3, 3)) + 4 * np.eye(3),), 0),
]


# ---- a transpose keeps the rank, not the shape -------------------------------------------------

def transposed_times(x, W):
    return np.sum(np.transpose(x) * W) + np.sum(x.T * W)


def transposed_twice_used(x, W):
    y = np.transpose(np.tanh(x))
    return np.sum(y * W + y)


CASES += [
    (transposed_times, lambda rng: (rng.normal(size=(3, 4)), rng.normal(size=(4, 3))), (0, 1)),
    (transposed_twice_used, lambda rng: (rng.normal(size=(3, 4)), rng.normal(size=(4, 3))),
     (0, 1)),
]


# ---- print, assert and raise run as in the user's function -------------------------------------

def printing(x):
    y = np.sin(x)
    print("y is", y)
    return np.sum(y * y)


def asserting(x):
    assert x.ndim == 1, "need a vector"
    return np.sum(x ** 2)


def raising(x, limit):
    if x.shape[0] > limit:
        raise ValueError("too long")
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] < -10.0:
            raise ValueError("out of range")
        s = s + x[i] ** 2
    return s


CASES += [
    (printing, lambda rng: (rng.normal(size=3),), 0),
    (asserting, lambda rng: (rng.normal(size=3),), 0),
    (raising, lambda rng: (rng.normal(size=4), 10), 0),
]


# ---- lambdas: given to grad, or called ---------------------------------------------------------

DATA = np.linspace(-1.0, 1.0, 7)


def _log_likelihood(p, data):
    return -np.sum((data - p[0]) ** 2) * np.exp(p[1])


lambda_objective = lambda p: -_log_likelihood(p, DATA)  # noqa: E731  (as published code has it)
_square = lambda y: y * y  # noqa: E731


def calls_a_lambda(x):
    return np.sum(_square(x) + _square(2.0 * x))


CASES += [
    (lambda_objective, lambda rng: (rng.normal(size=2),), 0),
    (calls_a_lambda, lambda rng: (rng.normal(size=3),), 0),
]


# ---- a bare call of a function of yours (a check) runs in the forward sweep --------------------

def _check_finite(x):
    if not np.all(np.isfinite(x)):
        raise ValueError("not finite")
    return 0


def checked(x):
    _check_finite(x)
    return np.sum(np.sin(x) ** 2)


CASES += [(checked, lambda rng: (rng.normal(size=3),), 0)]


# ---- calls that carry no gradient run as the user's code runs them ------------------------------
# (a cached helper: the gradient runs as Python, with one JitFallbackWarning; gammaln of data,
# which has a rule whose compiled helper Numba calls)

import functools  # noqa: E402

from scipy.special import binom, gammaln  # noqa: E402,F401  (binom: no rule, test_as_written)


@functools.lru_cache(maxsize=None)
def _lower_rows(d):
    return np.tril_indices(d)[0]


def cached_index(x):
    rows = _lower_rows(x.shape[0])
    return np.sum(x[rows] ** 2)


def poisson_nll(rate, k):
    return np.sum(rate - k * np.log(rate) + gammaln(k + 1))


CASES += [
    (cached_index, lambda rng: (rng.normal(size=4),), 0),
    (poisson_nll, lambda rng: (rng.uniform(0.5, 3.0, size=4), rng.integers(0, 5, 4) * 1.0), 0),
]
NOT_NUMBA |= {"cached_index"}


# ---- *args parameters and f(*args) calls -------------------------------------------------------

def _stack_and_multiply(W, *inputs):
    return np.sum(np.tanh(W @ np.concatenate(inputs)))


def star_parameters(W, x, h):
    return _stack_and_multiply(W, x, h) + _stack_and_multiply(W, h, x)


def star_call(W, x, h):
    pair = (x, h)
    return _stack_and_multiply(W, *pair) + np.sum(np.maximum(*pair) ** 2)


def star_at_the_top(x, *rest):
    return np.sum(x ** 2) + np.sum(rest[0] * x) * len(rest)


CASES += [
    (star_parameters, lambda rng: (rng.normal(size=(2, 4)), rng.normal(size=2),
                                   rng.normal(size=2)), (0, 1, 2)),
    (star_call, lambda rng: (rng.normal(size=(2, 4)), rng.normal(size=2), rng.normal(size=2)),
     (0, 1, 2)),
    (star_at_the_top, lambda rng: (rng.normal(size=3), rng.normal(size=3)), 0),
]
