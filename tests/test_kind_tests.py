"""Tests of what a value is, decided when the function is transformed (kind_tests.py): type
and isinstance tests, numpy.isscalar, len of a list display, in the differentiated function and
in the functions it calls; parameters left to their defaults as constants; `del name`;
comprehensions whose variable shadows their iterable; builtin sum of an array. Written the
way library code checks its arguments; every gradient against finite differences, a few
compiled too."""
import numbers

import numpy as np
import pytest

import s2sad
from gradcheck import check_gradient


class Optimum:
    def __init__(self, position):
        self.position = position


def _check_point(point, n):
    if type(point) not in [tuple, list, np.ndarray, Optimum]:
        raise ValueError(f"a point is a tuple, list or array, not {type(point)}")
    if len(point) != n:
        raise ValueError(f"expected {n} coordinates, got {len(point)}")
    if not all(isinstance(v, (float, int, np.floating)) for v in point):
        raise ValueError("coordinates are numbers")


def sphere_checked(point):
    _check_point(point, 3)
    if type(point) is Optimum:
        point = point.position
    return sum([p ** 2 for p in point]) + np.sin(point[0])


def scale_by_kind(x, w):
    if isinstance(x, np.ndarray):
        total = np.sum(w * x ** 2)
    elif isinstance(x, numbers.Number):
        total = w * x ** 2
    else:
        raise TypeError("x is a number or an array")
    if isinstance(w, (list, tuple)):
        raise TypeError("w is not a sequence")
    return total


def batch_or_one(x):
    xs = [x] if np.isscalar(x[0]) else x
    values = [np.sum(np.cos(row) * row) for row in xs]
    return values[0] if len(values) == 1 else sum(values)


def rows_shadowing(A):
    return sum([np.sum(A * A) for A in A])


def builtin_sum_of_arrays(x, A):
    return sum(x ** 2) * 0.5 + np.sum(sum(A * x))


def with_del(x):
    shifted = 1.0 + (x - 1.0) / 4.0
    del x
    return np.sum(np.sin(shifted) ** 2)


def energy(x, noise=0.0, both=False, rotate=0):
    if rotate:
        x = x[::-1]
    if noise:
        x = x + noise * np.random.randn(len(x))
    value = np.sum(x ** 2 * np.arange(1, len(x) + 1))
    if both:
        return value, np.sum(x)
    return value


def calls_energy(x):
    half = len(x) // 2
    return energy(x[:half]) + 1e-2 * np.sum(x[half:] ** 2)


class Benchmark:
    def __init__(self, n, opposite=False):
        self.n = n
        self.opposite = opposite
        self.name = "bench"

    def _validate(self, point):
        if not isinstance(point, (list, tuple, np.ndarray)):
            raise ValueError(f"{self.name}: bad point")
        if len(point) != self.n:
            raise ValueError(f"{self.name}: {len(point)} coordinates, not {self.n}")

    def __call__(self, point, validate=True):
        if validate:
            self._validate(point)
        if isinstance(self.n, int) and self.opposite:
            return -self._evaluate(point)
        return self._evaluate(point)

    def _evaluate(self, point):
        s = 0.0
        for i in range(len(point) - 1):
            s += 100.0 * (point[i + 1] - point[i] ** 2) ** 2 + (1.0 - point[i]) ** 2
        return s


def x3(rng):
    return rng.uniform(0.2, 1.5, 3)


CASES = [
    (sphere_checked, lambda rng: (x3(rng),), 0),
    (scale_by_kind, lambda rng: (x3(rng), 1.3), (0, 1)),
    (scale_by_kind, lambda rng: (0.7, 1.3), (0, 1)),
    (batch_or_one, lambda rng: (x3(rng),), 0),
    (batch_or_one, lambda rng: (rng.uniform(-1, 1, (2, 3)),), 0),
    (rows_shadowing, lambda rng: (rng.uniform(-1, 1, (2, 3)),), 0),
    (builtin_sum_of_arrays, lambda rng: (x3(rng), rng.uniform(-1, 1, (2, 3))), (0, 1)),
    (with_del, lambda rng: (x3(rng),), 0),
    (energy, lambda rng: (x3(rng),), 0),
    (calls_energy, lambda rng: (rng.uniform(-1, 1, 6),), 0),
    (Benchmark(3), lambda rng: (x3(rng),), 0),
    (Benchmark(4, opposite=True), lambda rng: (rng.uniform(-1, 1, 4),), 0),
]
COMPILED = {0, 3, 9, 10, 11}


@pytest.mark.parametrize("k", range(len(CASES)),
                         ids=[getattr(c[0], "__name__", type(c[0]).__name__) for c in CASES])
def test_gradient_matches_finite_differences(k):
    f, make_args, wrt = CASES[k]
    wrt = wrt if isinstance(wrt, tuple) else (wrt,)
    for seed in range(2):
        check_gradient(f, make_args(np.random.default_rng(seed)), wrt, jit=k in COMPILED)


def test_the_branch_not_taken_is_gone():
    text = s2sad.grad(sphere_checked, jit=False)
    text(np.ones(3))
    primal = [b for b in (text.generated.text,)][0]
    assert "Optimum" not in primal and "position" not in primal


def test_a_defaulted_parameter_given_is_a_value_again():
    g = s2sad.grad(energy, jit=False)
    x = np.array([0.5, 1.0, 2.0])
    rotated = s2sad.grad(energy, wrt=0, jit=False)(x, 0.0, False, 1)
    assert np.allclose(rotated, g(x[::-1])[::-1])


def test_a_test_on_a_value_of_unknown_kind_stays_an_error():
    def mystery(x):
        y = np.sin(x) if x[0] > 0 else np.cos(x)
        z = [y, y] if x[1] > 0 else [y]
        if type(z) is Optimum:
            return 0.0
        return np.sum(y)

    with pytest.raises(s2sad.UnsupportedError, match="Optimum"):
        s2sad.grad(mystery, jit=False)(np.ones(2))


def test_a_read_after_del_is_an_error():
    def bad(x):
        y = x * 2.0
        del y
        return y

    with pytest.raises(s2sad.UnsupportedError, match="read after `del y`"):
        s2sad.grad(bad, jit=False)(1.0)


def rosenbrock_checked(point, n=3):
    if len(point) != n:
        raise ValueError(f"declared for {n} dimensions, given {len(point)}: {point[0]:.2f}")
    s = 0.0
    for i in range(len(point) - 1):
        s += 100.0 * (point[i + 1] - point[i] ** 2) ** 2 + (1.0 - point[i]) ** 2
    return s


def test_a_raise_with_an_f_string_compiles_and_says_what_python_says():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)
        check_gradient(rosenbrock_checked, (np.array([0.5, 1.5, -0.3]),), 0)
        for jit in (True, False):
            with pytest.raises(ValueError) as info:
                s2sad.grad(rosenbrock_checked, jit=jit)(np.array([0.25, 1.0]))
            assert str(info.value) == "declared for 3 dimensions, given 2: 0.25"


def _coords(p):
    if isinstance(p, Optimum):
        return p.position
    return np.asarray(p, dtype=float)


def dims_and_helpers(x, w):
    if isinstance(x, (list, tuple)):
        x = np.array(x)
    c = _coords(x)
    if c.ndim == 1 and len(c.shape) == 1:
        return np.sum(w * c ** 2)
    return (np.sum(c), c.shape)   # (never taken for a vector: no tuple result)


def test_dimensions_and_a_helper_given_a_vector():
    check_gradient(dims_and_helpers, (np.array([0.3, -1.2, 2.0]), 1.5), (0, 1), jit=False)
