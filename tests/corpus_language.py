"""The Python numerical code is written in (issue 17): module constants, containers,
comprehensions, closures. Each entry of CASES: (function, argument maker(rng), wrt), checked
like the other corpora (tests/test_corpus.py): central finite differences, JIT on and off.
"""
import numpy as np

# ---- module constants: inputs of the generated code, read at every call ----------------------

W0 = np.linspace(-1.0, 1.0, 12).reshape(3, 4)
BIAS = np.array([0.5, -0.25, 1.0])
STENCIL = np.array([1.0, -2.0, 1.0])
ROWS = np.array([2, 0, 1])
SCALE = 1.5


def dense(x):
    return np.tanh(W0 @ x + BIAS)


def module_matrix(x):
    return np.sum(W0 @ x) * SCALE


def module_in_callee(x):
    h = dense(x)
    return np.sum(h * h)


def module_stencil(u):
    s = 0.0
    for i in range(1, u.shape[0] - 1):
        s = s + (STENCIL[0] * u[i - 1] + STENCIL[1] * u[i] + STENCIL[2] * u[i + 1]) ** 2
    return s


def module_index_table(x):
    return np.sum(x[ROWS] * BIAS)


def module_in_loop(w, x):
    y = x
    for _ in range(3):
        y = np.sin(W0.T @ (W0 @ y) * w)
    return np.sum(y)


def _vec4(rng):
    return (rng.normal(size=4),)


CASES = [
    (module_matrix, _vec4, 0),
    (module_in_callee, _vec4, 0),
    (module_stencil, lambda rng: (rng.normal(size=7),), 0),
    (module_index_table, lambda rng: (rng.normal(size=3),), 0),
    (module_in_loop, lambda rng: (rng.uniform(0.1, 0.5), rng.normal(size=4)), (0, 1)),
]
NOT_NUMBA = set()
