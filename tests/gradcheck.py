"""Checking gradients against central finite differences, with JIT on and off."""
import numpy as np

import s2sad
from s2sad.tools.verify import finite_difference  # noqa: F401  (tests import it from here)

RTOL = 1e-6          # gradient vs finite differences, relative to max(1, |expected|)
SAME = 1e-12         # JIT on vs JIT off


def line_of(func, text):
    """The file line number of the first line of `func`'s source containing `text`."""
    lines, first = __import__("inspect").getsourcelines(func)
    return first + next(i for i, line in enumerate(lines) if text in line)


def assert_close(computed, expected, rtol=RTOL, what=""):
    computed, expected = np.asarray(computed, float), np.asarray(expected, float)
    assert computed.shape == expected.shape, f"{what}: shape {computed.shape} != {expected.shape}"
    error = np.abs(computed - expected) / np.maximum(1.0, np.abs(expected))
    assert np.all(error <= rtol), f"{what}: worst relative error {error.max():.2e}\n" \
                                  f"computed={computed}\nexpected={expected}"


def check_gradient(f, args, wrt, jit_fn=None, py_fn=None):
    """The gradient of f at args matches finite differences, JIT on and off, and on == off."""
    wrt = tuple(wrt) if isinstance(wrt, (tuple, list)) else (wrt,)
    jit_fn = jit_fn or s2sad.grad(f, wrt=wrt, jit=True)
    py_fn = py_fn or s2sad.grad(f, wrt=wrt, jit=False)
    with_jit, without = jit_fn(*args), py_fn(*args)
    names = list(__import__("inspect").signature(f).parameters)
    for k, w in enumerate(wrt):
        position = w if isinstance(w, int) else names.index(w)
        expected = finite_difference(f, args, position)
        assert_close(without[k], expected, what=f"{f.__name__} d/d{names[position]} (Python)")
        assert_close(with_jit[k], expected, what=f"{f.__name__} d/d{names[position]} (Numba)")
        assert_close(with_jit[k], without[k], rtol=SAME,
                     what=f"{f.__name__} d/d{names[position]} JIT vs Python")
        assert isinstance(with_jit[k], float) == (np.ndim(args[position]) == 0)
    return with_jit
