"""What tests/test_runtime_reductions.py and test_runtime_shape.py share: a helper call written
as text with its inputs described (`case`), made into a function Python runs and Numba
compiles, and the checks that both flavours agree or that Numba declines."""
import re

import numba
import numpy as np
import pytest
from numba.core.errors import TypingError

import sweeps
from s2sad.runtime import dispatch, rt

dispatch.install()   # the helpers' Numba side

R, B = (3, 4), (2, 3, 4)


def of(function):
    """An input computed from the inputs before it, e.g. z = np.max(a)."""
    return lambda rng, values: function(**values)


def make(rng, spec, values):
    """None: a Python float; a shape: a float64 array (() a 0-d one); "F"/"int" with a shape:
    that layout or dtype; a callable: computed (see `of`); anything else: itself."""
    if spec is None:
        return float(rng.uniform(0.5, 1.5))
    if callable(spec):
        return spec(rng, values)
    if isinstance(spec, tuple) and spec and spec[0] in ("F", "int"):
        x = rng.uniform(0.5, 1.5, spec[1:])
        return np.asfortranarray(x) if spec[0] == "F" else (10 * x).astype(np.int64)
    if isinstance(spec, tuple):
        return rng.uniform(0.5, 1.5, spec)
    return spec


def _function(call, names):
    scope = {"rt": rt, "np": np}
    exec(f"def helper({', '.join(names)}):\n    return {call}\n", scope)
    return scope["helper"]


def _inputs(inputs, seed):
    rng = np.random.default_rng(seed)
    values = {}
    for name, spec in inputs.items():
        values[name] = make(rng, spec, values)
    return values


def _label(spec):
    if isinstance(spec, np.ndarray):
        return f"array{list(spec.shape)}"
    return getattr(spec, "__name__", spec)


def case(call, **inputs):
    return pytest.param(call, inputs, id=call.replace("rt.", "") + str(
        [_label(spec) for spec in inputs.values()]))


def helpers(param):
    """The helpers a case calls, e.g. ('cross_grad_a', 'cross_grad_b')."""
    return tuple(re.findall(r"rt\.(\w+)", param.values[0]))


def sampled(cases):
    """The cases `make test` compiles (sweeps.py): of the cases of each helper (or tuple of
    helpers) the first and every third after it; S2SAD_FULL_SWEEP=1 compiles them all."""
    return sweeps.sample(cases, key=helpers)


def kind(x):
    if isinstance(x, tuple):
        return tuple(map(kind, x))
    if isinstance(x, np.ndarray):
        return ("array", x.dtype, x.shape)
    return type(x)


def leaves(x):
    if isinstance(x, tuple):
        return [leaf for part in x for leaf in leaves(part)]
    return [x]


def check_compiled_agrees(call, inputs, rtol, atol):
    """Compiled, the call gives Python's numbers and kind of result; Python's is float64."""
    values = _inputs(inputs, seed=len(call))
    helper = _function(call, list(values))
    expected = helper(*values.values())
    compiled = numba.njit(helper)(*values.values())
    assert kind(compiled) == kind(expected)
    for got, want in zip(leaves(compiled), leaves(expected)):
        if isinstance(want, np.ndarray):
            assert want.dtype == np.float64
        else:
            assert type(want) is float
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def python_result_of_declined(call, inputs):
    """What Python gives for a form Numba declines (checked to be declined)."""
    values = _inputs(inputs, seed=len(call))
    helper = _function(call, list(values))
    result = helper(*values.values())
    with pytest.raises(TypingError):
        numba.njit(helper)(*values.values())
    return result
