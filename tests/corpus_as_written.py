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


def formatted_messages(x, n=4):
    if len(x) != n:
        raise ValueError(f"The solution should have {n} variables, not {len(x)}!")
    s = np.sum(x ** 2)
    print(f"s = {s:.3f}")
    assert s < 1e6, f"too large: {s}"
    return s


CASES += [
    (printing, lambda rng: (rng.normal(size=3),), 0),
    (asserting, lambda rng: (rng.normal(size=3),), 0),
    (raising, lambda rng: (rng.normal(size=4), 10), 0),
    (formatted_messages, lambda rng: (rng.normal(size=4),), 0),
]
NOT_NUMBA |= {"formatted_messages"}     # Numba formats floats as "<object type:float64>"


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
# (a cached helper: run as Python in Numba's object mode, the rest compiled (cached_calls.py);
# gammaln of data, which has a rule whose compiled helper Numba calls)

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


# ---- module-level objects: their fields, properties and methods --------------------------------

class _Problem:
    """A benchmark problem as libraries write them: fields set in __init__, a property,
    methods calling each other through self, and a count of evaluations (opfunu's n_fe)."""

    def __init__(self, ndim):
        self._ndim = ndim
        self.weights = np.linspace(1.0, 2.0, ndim)
        self.shift = 0.25
        self.name = "weighted sphere"
        self.dim_changeable = True
        self.n_fe = 0

    @property
    def ndim(self):
        return self._ndim

    def check_solution(self, x):
        if not self.dim_changeable and len(x) != self._ndim:
            raise ValueError("wrong length")

    def evaluate(self, x):
        self.check_solution(x)
        self.n_fe += 1
        return np.sum(self.weights * (x - self.shift) ** 2) / self.ndim + self._tail(x)

    def _tail(self, x):
        return 0.1 * np.sum(np.cos(x))


PROBLEM = _Problem(4)


def module_object_method(x):
    return PROBLEM.evaluate(x) * 2.0


def module_object_fields(x):
    return np.sum(PROBLEM.weights * x) + PROBLEM.shift * PROBLEM.ndim


class _Model:
    """A forward model with a flag choosing what it returns (pints' `_simulate`)."""

    def __init__(self):
        self._p0 = 2.0

    def simulate(self, parameters, times):
        return self._simulate(parameters, times, False)

    def _simulate(self, parameters, times, sensitivities):
        r, k = [float(p) for p in parameters]
        if self._p0 == 0 or k < 0:
            if sensitivities:
                return np.zeros(times.shape), np.zeros((len(times), 2))
            return np.zeros(times.shape)
        decay = np.exp(-r * times)
        values = k / (1 + (k / self._p0 - 1) * decay)
        if sensitivities:
            return values, times * values
        else:
            return values


MODEL = _Model()
TIMES = np.linspace(0.0, 5.0, 6)


def flag_given_as_a_literal(p):
    return np.sum(MODEL.simulate(p, TIMES))


CASES += [
    (module_object_method, lambda rng: (rng.normal(size=4),), 0),
    (PROBLEM.evaluate, lambda rng: (rng.normal(size=4),), 0),
    (module_object_fields, lambda rng: (rng.normal(size=4),), 0),
    (flag_given_as_a_literal, lambda rng: (rng.uniform(0.2, 1.0, size=2) * [1.0, 10.0],), 0),
]


# ---- lists that start with elements and grow in loops of run-time length -----------------------

def euler_steps(p, n):
    xs = [p[0]]
    for _ in range(n):
        xs.append(xs[-1] + 0.1 * np.sin(p[1] * xs[-1]))
    return np.sum(np.array(xs) ** 2)


def two_appends_per_trip(x):
    out = [x[0] * 0.5]
    for k in range(len(x) - 1):
        a = np.tanh(x[k])
        out.append(a * x[k + 1])
        out.append(a + len(out))
    return np.sum(np.stack(out))


def hidden_states(x, W):
    hs = [x]
    for i in range(W.shape[0]):
        h = np.tanh(W[i] * hs[-1] + hs[0])
        hs.append(h)
    return np.sum(np.stack(hs)[1:] ** 2)


CASES += [
    (euler_steps, lambda rng: (rng.normal(size=2), 6), 0),
    (two_appends_per_trip, lambda rng: (rng.normal(size=4),), 0),
    (hidden_states, lambda rng: (rng.normal(size=3), rng.normal(size=(4, 3))), (0, 1)),
]


# ---- zip(*...) of what a function returns, and zip of known sequences as a value -------------

def _split_params(params):
    return params[0::2], params[1::2]


def zip_of_a_call(params):
    total = 0.0
    for w, b in zip(*_split_params(params)):
        total = total + np.tanh(w * 0.5 + b) ** 2
    return total


def zip_star_assigned(p):
    layers = [(p[0:4].reshape(2, 2), p[4:6]), (p[6:10].reshape(2, 2), p[10:12])]
    Ws, bs = zip(*layers)
    return np.sum(Ws[0] @ bs[1]) + np.sum(Ws[1] @ bs[0])


CASES += [
    (zip_of_a_call, lambda rng: (rng.normal(size=6),), 0),
    (zip_star_assigned, lambda rng: (rng.normal(size=12),), 0),
]


# ---- functions kept in a module-level list (layer specs) ----------------------------------------

def _leaky(z):
    return np.maximum(z, 0.0) + 0.01 * z


LAYER_SPECS = [(np.tanh, 0.5), (_leaky, 1.0), (np.sin, 2.0)]
ACTIVATIONS = (np.tanh, _leaky)


def layer_specs(x):
    for act, scale in LAYER_SPECS:
        x = act(x * scale)
    return np.sum(x ** 2)


def activations_zipped(x, W1, W2):
    h = x
    for act, W in zip(ACTIVATIONS, (W1, W2)):
        h = act(W @ h)
    return np.sum(h) + np.sum(LAYER_SPECS[1][0](x) * LAYER_SPECS[2][1])


CASES += [
    (layer_specs, lambda rng: (rng.normal(size=3),), 0),
    (activations_zipped, lambda rng: (rng.normal(size=3), rng.normal(size=(3, 3)),
                                      rng.normal(size=(2, 3))), (0, 1, 2)),
]


CONFIG = {"scale": 2.0, "mode": "fast", "clip": None}


def configured(x):
    if CONFIG["mode"] == "fast" and CONFIG["clip"] is None:
        return np.sum(np.tanh(x) * CONFIG["scale"])
    return np.sum(np.clip(x, -CONFIG["clip"], CONFIG["clip"]))


CASES += [(configured, lambda rng: (rng.normal(size=3),), 0)]


# ---- random numbers drawn inside the function (reparameterised samples) -------------------------

NOISE = np.random.RandomState(0)


def bbvi_objective(params):
    mean, log_std = params[:2], params[2:]
    samples = NOISE.randn(6, 2) * np.exp(log_std) + mean
    return np.mean(np.sum(samples ** 2, axis=1)) - np.sum(log_std)


# ---- objects holding callable objects (a log-density wrapping an error measure) ----------------

class _RosenbrockError:
    def __init__(self):
        self._a, self._b = 1.0, 100.0

    def __call__(self, x):
        return (self._a - x[0]) ** 2 + self._b * (x[1] - x[0] ** 2) ** 2

    def n_parameters(self):
        return 2


class _RosenbrockLogPDF:
    def __init__(self):
        self._f = _RosenbrockError()

    def __call__(self, x):
        return -np.log(1.0 + self._f(x)) * self._f.n_parameters() / 2


LOG_PDF = _RosenbrockLogPDF()


def callable_object(x):
    return LOG_PDF(x)


def wrapped_callable_objects(x):
    return LOG_PDF(x) + 0.1 * LOG_PDF._f(x)


CASES += [
    (callable_object, lambda rng: (rng.uniform(-1.0, 2.0, size=2),), 0),
    (wrapped_callable_objects, lambda rng: (rng.uniform(-1.0, 2.0, size=2),), 0),
]


def read_only_copy(x):
    v = x.copy()
    v.setflags(write=False)     # changes no value: left out
    return np.sum(v ** 3)


CASES += [(read_only_copy, lambda rng: (rng.normal(size=3),), 0)]
