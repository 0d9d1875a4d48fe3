"""The user-facing API: grad, value_and_grad, source, wrt forms, decorators, conversions."""
import ast
import math
import os

import numpy as np
import pytest

import s2sad
from examples_api import f, g_decorated, h_decorated, returns_array, returns_tuple
from gradcheck import assert_close, finite_difference

X = np.array([0.3, -1.2, 0.7])
W = 0.9


@pytest.fixture(scope="module")
def dfw():
    return s2sad.grad(f, wrt=(0, 1))


def test_default_wrt_is_first_parameter():
    dx = s2sad.grad(f)(X, W)
    assert isinstance(dx, np.ndarray) and dx.dtype == np.float64 and dx.shape == X.shape
    assert_close(dx, finite_difference(f, (X, W), 0))


def test_wrt_tuple_names_and_mixed(dfw):
    dx, dw = dfw(X, W)
    assert isinstance(dw, float)
    assert_close(dw, finite_difference(f, (X, W), 1))
    by_name = s2sad.grad(f, wrt=("x", "w"))(X, W)
    mixed = s2sad.grad(f, wrt=(0, "w"))(X, W)
    for other in (by_name, mixed):
        assert_close(other[0], dx, rtol=1e-15)
        assert_close(other[1], dw, rtol=1e-15)
    assert_close(s2sad.grad(f, wrt="w")(X, W), dw, rtol=1e-15)
    assert_close(s2sad.grad(f, wrt=-1)(X, W), dw, rtol=1e-15)


def test_value_and_grad():
    value, dw = s2sad.value_and_grad(f, wrt="w")(X, W)
    assert value == pytest.approx(f(X, W), rel=1e-14)
    assert isinstance(value, float)
    assert_close(dw, finite_difference(f, (X, W), 1))


def test_keyword_arguments_and_int_inputs():
    dx, dw = s2sad.grad(f, wrt=(0, 1))(x=X, w=1)
    assert isinstance(dw, float)
    assert_close(dw, finite_difference(f, (X, 1.0), 1))
    ints = np.array([1, 2, 3])
    assert_close(s2sad.grad(f)(ints, W), finite_difference(f, (ints.astype(float), W), 0))


def test_decorator_forms():
    x = 0.4
    assert_close(g_decorated(x), math.exp(x) * (1 + x))
    dx, dy = h_decorated(0.5, 2.0)
    assert_close(dx, 2.0)
    assert_close(dy, 0.5 + math.cos(2.0))
    assert g_decorated.__name__ == "g_decorated"


def test_source_and_path(dfw):
    text = s2sad.source(dfw)
    assert text == dfw.source
    assert os.path.isfile(dfw.path)
    with open(dfw.path) as handle:
        assert handle.read() == text
    assert "def df(x, w, d_result):" in text
    assert "# grad of: z = np.sin(x * w)   [examples_api.py:10]" in text
    assert "# ---- forward sweep ----" in text and "# ---- backward sweep ----" in text
    ast.parse(text)  # generated code re-parses
    with pytest.raises(s2sad.ArgumentError):
        s2sad.source(f)


def test_jit_off_uses_the_same_file(dfw):
    off = s2sad.grad(f, wrt=(0, 1), jit=False)
    for a, b in zip(off(X, W), dfw(X, W)):
        assert_close(a, b, rtol=1e-12)
    assert off.path == dfw.path  # the file the last call ran


def test_adjoints_are_specialised_on_scalar_arguments():
    """A float argument is known to be a scalar: no shape bookkeeping for it."""
    gradient = s2sad.grad(f, wrt=(0, 1))
    general = gradient.source
    gradient(X, W)
    assert gradient.source != general and os.path.exists(gradient.path)
    assert gradient.source.count("rt.unbroadcast") < general.count("rt.unbroadcast")


def test_environment_switch_disables_jit(monkeypatch):
    monkeypatch.setenv("S2SAD_DISABLE_JIT", "1")
    gradient = s2sad.grad(f)
    gradient(X, W)
    assert all(runner.jit is False for runner in gradient._runners.values())


def test_transformation_happens_once(monkeypatch):
    from s2sad.transform import pipeline
    calls = []
    original = pipeline._adjoint

    def counting(func, *options):
        calls.append(func)
        return original(func, *options)
    monkeypatch.setattr(pipeline, "_adjoint", counting)
    monkeypatch.setattr(pipeline, "_done", {})
    monkeypatch.setenv("S2SAD_INDEX", "0")  # what another process filed is not this test's
    gradient = s2sad.grad(f, wrt=(0, 1), jit=False)
    gradient(X, W)
    gradient(X, W)
    s2sad.grad(f, wrt=(0, 1), jit=False)(X, W)
    assert calls == [f]


def test_generation_is_deterministic(monkeypatch):
    from s2sad.transform import pipeline
    first = pipeline.adjoint(f, (0, 1)).text
    monkeypatch.setattr(pipeline, "_done", {})
    assert pipeline.adjoint(f, (0, 1)).text == first


def test_inputs_are_not_modified_and_grads_not_shared():
    from examples_api import f as fx
    x = X.copy()
    dx = s2sad.grad(fx)(x, W)
    assert np.array_equal(x, X)
    assert dx is not x


def test_non_scalar_output_is_an_error():
    with pytest.raises(s2sad.OutputError, match=r"array of shape \(3,\)"):
        s2sad.grad(returns_array)(X)
    with pytest.raises(s2sad.UserError, match="returns a tuple"):
        s2sad.grad(returns_tuple)(1.0)


@pytest.mark.parametrize("wrt, message", [
    ("q", "does not name a parameter of f; its parameters are x, w"),
    (5, "does not name a parameter"),
    ((0, "x"), "twice"),
    ((), "empty"),
    (True, "does not name a parameter"),
])
def test_bad_wrt(wrt, message):
    with pytest.raises(s2sad.ArgumentError, match=message):
        s2sad.grad(f, wrt=wrt)


@pytest.mark.parametrize("value, message", [
    (1 + 2j, "complex"),
    (np.array([1 + 1j]), "complex array"),
    (np.array([object()]), "object array"),
    (True, "bool"),
    ("abc", "str"),
])
def test_bad_argument_types(value, message):
    with pytest.raises(s2sad.ArgumentError, match=message):
        s2sad.grad(f, jit=False)(value, W)


def test_not_a_python_function():
    with pytest.raises(s2sad.ArgumentError, match="only differentiate Python functions"):
        s2sad.grad(np.floor)  # (np.sin has a rule: s2sad differentiates a call of it)
