"""`for i in s2sad.checkpointed(range(n)):` gives the gradient of the plain loop (finite
differences, JIT on and off, and the same function with `range(n)`), while its forward sweep
keeps only snapshots: no list of the generated code grows beyond about sqrt(n)."""
import ast
import importlib
import sys
import tracemalloc
import warnings

import numpy as np
import pytest

import examples_checkpoint as ex
import s2sad
from gradcheck import assert_close, check_gradient

SAME = 1e-12  # checkpointed vs plain loop, both as Python: the same operations


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """examples_checkpoint.py with `s2sad.checkpointed(r, ...)` replaced by `r`."""
    tree = ast.parse(open(ex.__file__).read())
    for node in ast.walk(tree):
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and \
                getattr(node.iter.func, "attr", None) == "checkpointed":
            node.iter = node.iter.args[0]
    directory = tmp_path_factory.mktemp("plain")
    (directory / "examples_checkpoint_plain.py").write_text(ast.unparse(tree))
    sys.path.insert(0, str(directory))
    try:
        return importlib.import_module("examples_checkpoint_plain")
    finally:
        sys.path.remove(str(directory))


_compiled = {}


def gradients(f, wrt):
    """(JIT, Python) gradient functions, shared between tests (Numba compiles once)."""
    if (f, wrt) not in _compiled:
        _compiled[f, wrt] = (s2sad.grad(f, wrt=wrt, jit=True), s2sad.grad(f, wrt=wrt, jit=False))
    return _compiled[f, wrt]


def check(f, args, plain, wrt=(0, 1)):
    """Finite differences, JIT on and off, and equal to the plain loop's gradient."""
    jit_fn, py_fn = gradients(f, wrt)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)
        check_gradient(f, args, wrt, jit_fn=jit_fn, py_fn=py_fn)
    expected = s2sad.grad(getattr(plain, f.__name__), wrt=wrt, jit=False)(*args)
    for k, (got, want) in enumerate(zip(py_fn(*args), expected)):
        assert_close(got, want, rtol=SAME, what=f"{f.__name__} #{k} vs the plain loop")


RNG = np.random.default_rng(7)


@pytest.mark.parametrize("n, every", [(50, 7), (0, 3), (1, 3), (13, 1), (13, 40), (49, 7)])
def test_a_scalar_recurrence_for_any_segment_length(n, every, plain):
    check(ex.scalar, (RNG.uniform(-1, 1), RNG.uniform(0.5, 1.0), n, every), plain)


def test_the_automatic_segment_length_and_an_array_state(plain):
    check(ex.automatic, (RNG.uniform(-1, 1), RNG.uniform(0.5, 1.0), 50), plain)
    x, a = RNG.normal(size=5), RNG.normal(size=(5, 5))
    check(ex.array_state, (x, a, 30), plain)


def test_a_range_with_a_start_and_a_negative_step(plain):
    check(ex.stepped, (RNG.uniform(-1, 1), RNG.uniform(0.5, 1.0), 2, 31), plain)


@pytest.mark.parametrize("w", [1.25, 0.5])  # exits early / runs to the end
def test_break_and_early_return_inside(w, plain):
    check(ex.with_break, (RNG.uniform(0, 1), w, 40), plain)
    check(ex.early_return, (RNG.uniform(0, 1), w, 40), plain)


def test_an_if_a_nested_loop_and_a_callee_inside(plain):
    check(ex.with_if, (RNG.uniform(-1, 1), RNG.uniform(0.5, 1.0), 30), plain)
    check(ex.nested, (RNG.uniform(-1, 1), RNG.uniform(0.5, 1.0), 20), plain)
    check(ex.with_callee, (RNG.normal(size=4), RNG.uniform(0.5, 1.0), 20), plain)
    check(ex.calls_a_checkpointed_loop, (RNG.uniform(-1, 1), RNG.uniform(0.5, 1.0), 20), plain)


def test_writes_into_an_array_carried_across_iterations(plain):
    v = RNG.normal(size=12)
    check(ex.writes, (RNG.uniform(-1, 1), v, 12), plain)
    before = v.copy()
    s2sad.grad(ex.writes, wrt=(0, 1))(0.3, v, 12)
    np.testing.assert_array_equal(v, before)


def test_a_checkpointed_loop_inside_a_plain_loop(plain):
    check(ex.inside_a_loop, (RNG.uniform(-1, 1), RNG.uniform(0.5, 1.0), 4, 10), plain)


def test_the_tape_holds_about_sqrt_n_values(plain):
    """n = 400: 20 snapshots, then one segment (20 iterations) of tape at a time."""
    gradient = s2sad.grad(ex.automatic, jit=False)
    assert longest_list(gradient, 0.3, 0.9, 400) == 20
    assert longest_list(gradient, 0.3, 0.9, 401) == 21
    peaks = [peak_memory(s2sad.grad(f, jit=False), 0.3, 0.9, 10_000)
             for f in (ex.automatic, plain.automatic)]
    assert peaks[0] < peaks[1] / 5, peaks


def test_the_generated_code_says_what_it_does():
    text = s2sad.grad(ex.automatic).source
    forward, backward = text.split("# ---- backward sweep ----")
    assert "# checkpointed loop: snapshots every _every0 iterations   [examples_checkpoint.py:" \
        in forward
    assert "_every0 = rt.checkpoint_every(_trips0)" in forward
    assert ".append(" not in forward.split("for i in range(_seg0, _end0):")[1]  # primal only
    assert "checkpointed" not in text.replace("s2sad.checkpointed(range(n))", "") \
        .replace("# checkpointed loop", "")
    assert "_snap_x.pop()" in backward
    assert s2sad.grad(ex.inactive).source.count("_snap") == 0  # no gradient through the loop
    assert ex.automatic(0.3, 0.9, 5) == pytest.approx(plain_value(0.3, 0.9, 5))


def test_unsupported_uses_are_clear_errors():
    with pytest.raises(s2sad.UnsupportedError) as caught:
        s2sad.grad(ex.over_rows)(0.5, np.ones((3, 2)))
    text = str(caught.value)
    assert f"examples_checkpoint.py:{line_of('def over_rows') + 1}:35: error: a checkpointed " \
        "loop must be over `range(...)`" in text
    assert "why: " in text and "fix: " in text and "range(len(xs))" in text
    with pytest.raises(s2sad.UnsupportedError) as caught:
        s2sad.grad(ex.carried_without_value)(0.5, 3)
    assert "'previous' may carry a value from one iteration" in str(caught.value)
    assert "fix: assign 'previous' before the loop" in str(caught.value)
    with pytest.raises(s2sad.UnsupportedError, match="supported only as what a `for` loop"):
        s2sad.grad(ex.not_a_loop)(0.5)
    assert list(s2sad.checkpointed(range(3), every=2)) == [0, 1, 2]
    for gradient in gradients(ex.scalar, (0, 1)):  # JIT on and off
        with pytest.raises(ValueError, match="every=k"):
            gradient(0.3, 0.9, 5, 0)


# ---- helpers -------------------------------------------------------------------------------

def line_of(text):
    lines = open(ex.__file__).read().splitlines()
    return next(k for k, line in enumerate(lines, 1) if text in line)


def plain_value(x, w, n):
    s = 0.0
    for _ in range(n):
        x = np.sin(x) * w + x
        s = s + 0.01 * x * x
    return s


def longest_list(gradient, *args):
    """The most values any list held during a call of a Python gradient (the stacks of the
    generated code grow by `append`)."""
    gradient(*args[:-1], 3)  # transform outside the measurement
    longest = {}

    def profile(frame, event, arg):
        if event == "c_call" and getattr(arg, "__name__", "") == "append" and \
                isinstance(getattr(arg, "__self__", None), list):
            held = arg.__self__
            longest[id(held)] = max(longest.get(id(held), 0), len(held) + 1)

    sys.setprofile(profile)
    try:
        gradient(*args)
    finally:
        sys.setprofile(None)
    return max(longest.values(), default=0)


def peak_memory(gradient, *args):
    gradient(*args[:-1], 3)  # transform outside the measurement
    tracemalloc.start()
    try:
        gradient(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
