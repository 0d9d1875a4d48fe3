"""State a function carries in its own attributes (`pack.offset += n`) or in the variables of
an enclosing function (`nonlocal`), as published objectives keep it (ADBench's GMM fills its
triangular factors with a counter kept on the function). The gradient matches finite
differences with the JIT on and off, and after a call the function's attribute, or the
closure's variable, holds what a call of the function itself leaves there."""
import warnings

import numpy as np
import pytest

import s2sad
from gradcheck import SAME, assert_close, finite_difference


def pack(size, entries):
    """A lower-triangular factor from packed entries: the diagonal's logarithms first, then the
    entries below it, column by column, counted with an attribute of this function."""
    pack.offset = size

    def column(j):
        below = size - j - 1
        top = np.zeros(j)
        part = entries[pack.offset:pack.offset + below]
        pack.offset += below
        return np.concatenate((top, np.exp(entries[j:j + 1]), part))
    return np.column_stack([column(j) for j in range(size)])


def pack_nonlocal(size, entries):
    """pack, its counter a variable of its own that the column function declares nonlocal."""
    offset = size

    def column(j):
        nonlocal offset
        below = size - j - 1
        part = entries[offset:offset + below]
        offset = offset + below
        return np.concatenate((np.zeros(j), np.exp(entries[j:j + 1]), part))
    return np.column_stack([column(j) for j in range(size)])


def quadratic_forms(rows, points):
    """sum over the rows of packed factors L and the points p of |L^T p|^2."""
    size = points.shape[1]
    factors = np.asarray([pack(size, row) for row in rows])
    total = 0.0
    for factor in factors:
        total = total + np.sum((points @ factor) ** 2)
    return total


def quadratic_forms_nonlocal(rows, points):
    size = points.shape[1]
    total = 0.0
    for row in rows:
        total = total + np.sum((points @ pack_nonlocal(size, row)) ** 2)
    return total


def bump(x):
    """Scales by how many times it ran: a count kept on the function across calls."""
    bump.calls += 1
    return x * bump.calls


bump.calls = 0


def bumped_twice(x):
    return np.sum(np.sin(bump(x)) + bump(x * x))


def remembered(x):
    """A float attribute assigned, read and assigned again within one call."""
    remembered.level = np.sum(x * x)
    y = np.tanh(x) * remembered.level
    remembered.level = remembered.level * 0.5
    return np.sum(y) + remembered.level


def running_total():
    total = 0.0
    count = 0

    def step(x):
        nonlocal total, count
        count += 1
        total = total + np.sum(np.cos(x))
        return total * x[0] + count
    return step


ROWS = np.random.default_rng(7).normal(size=(3, 10))   # 3 factors of size 4: 4 + 6 entries
POINTS = np.random.default_rng(8).normal(size=(5, 4))
X = np.array([0.4, -1.1, 0.7])


def _fresh_attributes():
    for name in ("offset",):
        if hasattr(pack, name):
            delattr(pack, name)
    bump.calls = 0
    if hasattr(remembered, "level"):
        del remembered.level


@pytest.mark.parametrize("f", [quadratic_forms, quadratic_forms_nonlocal])
def test_a_counter_kept_on_the_function_fills_a_factor(f):
    _fresh_attributes()
    expected = finite_difference(f, [ROWS, POINTS], 0)
    _fresh_attributes()  # (the attribute does not exist before the first call)
    python = s2sad.grad(f, jit=False)(ROWS, POINTS)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)   # it compiles
        compiled = s2sad.grad(f, jit=True)(ROWS, POINTS)
    assert_close(python, expected)
    assert_close(compiled, python, rtol=SAME)
    if f is quadratic_forms:  # the function holds what its last call left: 4 + 3 + 2 + 1
        assert pack.offset == 10 and type(pack.offset) is int


def test_the_generated_code_reads_and_writes_the_attribute_in_a_cell():
    _fresh_attributes()
    grad = s2sad.grad(quadratic_forms, jit=False)
    grad(ROWS, POINTS)
    code = "\n".join(open(path).read() for path in _generated_files(grad))
    assert "pack_offset[0] = size" in code
    assert "int(pack_offset[0])" in code
    assert "pack_offset_given[0] = pack_offset[0]" in code


def _generated_files(grad):
    import glob
    import os
    return glob.glob(os.path.join(os.path.dirname(grad.path), "*.py"))


@pytest.mark.parametrize("jit", [False, True])
def test_a_count_kept_across_calls_in_a_callee_called_twice(jit):
    """Each call of `bump` sees the count the one before left; the callee's adjoint runs
    its forward sweep again from the count it saw."""
    _fresh_attributes()
    grad = s2sad.value_and_grad(bumped_twice, jit=jit)
    for calls in (2, 4, 6):
        start = bump.calls
        value, gradient = grad(X)
        assert bump.calls == calls and type(bump.calls) is int
        bump.calls = start
        want = bumped_twice(X)
        bump.calls = start
        expected = finite_difference(lambda x: _from(start, x), [X], 0)
        bump.calls = calls
        assert value == pytest.approx(want, rel=1e-12)
        assert_close(gradient, expected)


def _from(start, x):
    bump.calls = start
    return bumped_twice(x)


@pytest.mark.parametrize("jit", [False, True])
def test_a_float_attribute_carries_the_gradient_within_a_call(jit):
    _fresh_attributes()
    gradient = s2sad.grad(remembered, jit=jit)(X)
    assert remembered.level == pytest.approx(0.5 * np.sum(X * X), rel=1e-12)
    assert_close(gradient, finite_difference(remembered, [X], 0))


@pytest.mark.parametrize("jit", [False, True])
def test_nonlocal_state_of_a_closure_is_carried_and_written_back(jit):
    step, twin = running_total(), running_total()
    grad = s2sad.grad(step, jit=jit)
    for _ in range(3):
        cells = [c.cell_contents for c in twin.__closure__]
        expected = finite_difference(lambda x: _replayed(twin, cells, x), [X], 0)
        _replayed(twin, cells, X)  # (the twin goes on as the closure does)
        assert_close(grad(X), expected)
        assert [c.cell_contents for c in step.__closure__] == \
            pytest.approx([c.cell_contents for c in twin.__closure__], rel=1e-12)
    assert step.__closure__[0].cell_contents == 3  # (count, total: sorted free names)


def _replayed(function, cells, x):
    for cell, value in zip(function.__closure__, cells):
        cell.cell_contents = value
    return function(x)


def swap_state(x):
    """Two attributes assigned in one tuple target, each value read before either is set."""
    swap_state.calls, swap_state.level = swap_state.calls + 1, np.sum(x * x) + swap_state.calls
    return swap_state.level * np.sin(x[0])


swap_state.calls = 0


@pytest.mark.parametrize("jit", [False, True])
def test_attributes_in_a_tuple_target(jit):
    swap_state.calls = 0
    expected = finite_difference(lambda x: _swapped_from(0, x), [X], 0)
    swap_state.calls = 0
    gradient = s2sad.grad(swap_state, jit=jit)(X)
    assert swap_state.calls == 1 and type(swap_state.calls) is int
    assert swap_state.level == pytest.approx(np.sum(X * X), rel=1e-12)
    assert_close(gradient, expected)


def _swapped_from(calls, x):
    swap_state.calls = calls
    return swap_state(x)
