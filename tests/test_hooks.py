"""`with s2sad.grad_of(x) as dx:` runs its body in the backward sweep, with dx the gradient of
x there, and may change it (gradient clipping); JIT on and off, also in loops and callees."""
import numpy as np
import pytest

import examples_hooks as ex
import s2sad
from gradcheck import assert_close, check_gradient

X = np.array([0.3, 2.0, -1.5])
W = 1.5


def hook_lines(text, start):
    return [line for line in text.splitlines() if line.startswith(start)]


def test_a_printing_hook_sees_the_adjoint_and_leaves_the_gradient_alone(capfd):
    for jit in (False, True):
        s2sad.grad(ex.printed, jit=jit)(X, W)
    lines = hook_lines(capfd.readouterr().out, "hook dy")
    assert len(lines) == 2  # JIT on and off
    expected = 2 * X * W    # d/dy of sum(y * y)
    for line in lines:
        values = np.array([float(v) for v in line.split("[")[1].rstrip("]").split()])
        assert_close(values, expected)
    check_gradient(ex.printed, (X, W), (0, 1))  # (direct calls by FD print zeros)


@pytest.mark.parametrize("jit", [False, True])
def test_a_hook_can_clip_the_gradient(jit):
    dx, dw = s2sad.grad(ex.clipped, wrt=(0, 1), jit=jit)(X, W)
    clipped = np.clip(2 * X * W, -1.0, 1.0)
    assert_close(dx, clipped * W)
    assert_close(dw, np.sum(clipped * X))


@pytest.mark.parametrize("jit", [False, True])
def test_a_hook_in_a_loop_runs_once_per_iteration_in_reverse(jit, capfd):
    x = 0.4
    gradient = s2sad.grad(ex.in_a_loop, jit=jit)(x)
    steps = [line.split() for line in hook_lines(capfd.readouterr().out, "hook step")]
    assert [int(s[2]) for s in steps] == [2, 1, 0]
    s = [x, 3 * x, 6 * x]                      # s after each iteration
    assert [float(v[4]) for v in steps] == pytest.approx(s[::-1])
    ds = 2 * s[2]                              # 4.8 -> clipped to 2.0, then passed on
    assert float(steps[0][3]) == pytest.approx(ds)
    assert float(steps[1][3]) == pytest.approx(2.0)
    assert gradient == pytest.approx(2.0 * 3 + 2.0 * 2 + 2.0 * 1)


def test_a_hook_inside_a_callee_changes_the_callers_gradient():
    for jit in (False, True):
        dx, dw = s2sad.grad(ex.calls_a_hooked_function, wrt=(0, 1), jit=jit)(0.8, 1.1)
        expected = ex._scaled_reference(0.8, 1.1)
        assert dx == pytest.approx(expected[0]) and dw == pytest.approx(expected[1])


def test_the_forward_sweep_has_no_hook_code_and_direct_calls_still_run():
    source = s2sad.grad(ex.clipped).source
    forward = source.split("---- backward sweep ----")[0]
    assert "numpy.clip" not in forward and "grad_of" not in forward
    assert "# grad of: with s2sad.grad_of(y) as dy:" in source
    assert ex.clipped(X, W) == pytest.approx(np.sum((X * W) ** 2))  # plain call: dy is zero
    with s2sad.grad_of(X) as zero:
        assert np.all(zero == 0.0) and zero.shape == X.shape


@pytest.mark.parametrize("func, message", [
    (ex.writes_forward_value, "cannot assign 'y', which the function uses outside it"),
    (ex.other_context_manager, "the only supported `with` statement is"),
    (ex.uses_gradient_outside, "'dx' is used outside its `with s2sad.grad_of(...)` block"),
])
def test_misused_hooks_are_clear_errors(func, message):
    with pytest.raises(s2sad.UnsupportedError) as caught:
        s2sad.grad(func, jit=False)(0.5)
    assert message in str(caught.value)
    assert "examples_hooks.py:" in str(caught.value)
