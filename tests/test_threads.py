"""Issue 37: any number of threads may make and call gradient functions of the same or
different functions at once, on an empty cache; each function is transformed once, and every
thread gets the numbers one thread alone gets."""
import importlib.util
import threading

import numpy as np
import pytest

import s2sad
from s2sad.transform import pipeline

SOURCE = '''
import numpy as np


def helper(x, w):
    return np.tanh(x * w) + x


def f(x, w):
    y = helper(x, w)
    s = 0.0
    for i in range(x.shape[0]):
        s = s + y[i] * w
    return s * s


def g(x, w):
    return np.sum(np.sin(helper(x, w)) * w)
'''


def _fresh_module(tmp_path, name):
    """Functions no process has transformed: a new file, so the cache has nothing for them."""
    path = tmp_path / f"{name}.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run_threads(count, work):
    results, errors = [None] * count, []

    def run(k):
        try:
            results[k] = work(k)
        except Exception as exc:  # noqa: BLE001 -- reported below, with its message
            errors.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=run, args=(k,)) for k in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    return results


@pytest.mark.parametrize("jit", [False, True])
def test_threads_share_one_gradient_function_on_an_empty_cache(tmp_path, jit):
    module = _fresh_module(tmp_path, f"threads_same_{int(jit)}")
    x = np.linspace(0.1, 0.5, 4)
    before = pipeline.STATS["transformed"]
    df = s2sad.grad(module.f, wrt=(0, 1), jit=jit)
    results = _run_threads(8, lambda k: df(x, 0.7))
    alone = s2sad.grad(module.f, wrt=(0, 1), jit=False)(x, 0.7)
    for dx, dw in results:
        assert np.allclose(dx, alone[0], rtol=1e-12) and np.isclose(dw, alone[1], rtol=1e-12)
    threaded = pipeline.STATS["transformed"] - before
    other = _fresh_module(tmp_path, f"threads_alone_{int(jit)}")
    before = pipeline.STATS["transformed"]
    s2sad.grad(other.f, wrt=(0, 1), jit=jit)(x, 0.7)
    assert threaded == pipeline.STATS["transformed"] - before  # once, not once per thread


def test_threads_with_other_wrt_and_other_functions(tmp_path):
    module = _fresh_module(tmp_path, "threads_mixed")
    x = np.linspace(0.1, 0.5, 4)

    def work(k):
        function = module.f if k % 3 else module.g
        return s2sad.value_and_grad(function, wrt=k % 2, jit=k % 4 == 1)(x, 0.7)

    results = _run_threads(12, work)
    for k, (value, gradient) in enumerate(results):
        function = module.f if k % 3 else module.g
        expected = s2sad.value_and_grad(function, wrt=k % 2, jit=False)(x, 0.7)
        assert value == pytest.approx(expected[0], rel=1e-12)
        assert np.allclose(gradient, expected[1], rtol=1e-12)


NEWTON_SOURCE = SOURCE + '''

import s2sad


def cubic(y, a):
    return y ** 3 + a * y - 2.0


def newton(a):
    y = 1.0
    for _ in range(3):
        y = y - cubic(y, a) / s2sad.grad(cubic)(y, a)
    return y


def newton_named(a):
    dcubic = s2sad.grad(cubic, wrt=0)
    y = 1.5
    for _ in range(2):
        y = y - cubic(y, a) / dcubic(y, a)
    return y * a
'''


def test_threads_transforming_a_grad_called_inside_while_others_load_files(tmp_path):
    """A transformation that makes a grad called inside the function loads a generated file
    while holding the transformation's lock; a thread loading a file for its Python call
    parses it under that lock too: they took the two locks in opposite orders (a deadlock that
    a script with 8 threads hit every time; here it depends on timing, hence the timeout)."""
    path = tmp_path / "threads_newton.py"
    path.write_text(NEWTON_SOURCE)
    spec = importlib.util.spec_from_file_location("threads_newton", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    calls = [lambda: s2sad.grad(module.newton, jit=False)(0.7),
             lambda: s2sad.grad(module.newton_named, jit=False)(0.7)]
    results, errors = {}, []

    def run(k):
        try:
            results[k] = calls[k % 2]()
        except Exception as exc:  # noqa: BLE001 -- reported below
            errors.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=run, args=(k,), daemon=True) for k in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "threads still waiting after 60 s"
    assert errors == []
    for k, value in results.items():
        assert np.allclose(value, calls[k % 2](), rtol=1e-12)
