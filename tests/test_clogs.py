"""Clog diagnostics: where the gradient silently stops is reported at its line, once, as a
warning (an error with strict=True); stop_gradient silences it; the gradients stay right."""
import re
import warnings

import numpy as np
import pytest

import examples_clogs as ex
import s2sad
from s2sad.api import calls
from gradcheck import check_gradient, line_of

PATH = ex.__file__


@pytest.fixture(autouse=True)
def fresh_reports():
    calls._reported.clear()  # each finding is reported once per process
    yield


def findings(func, wrt=0, jit=False, args=None):
    """The warnings s2sad gives for func (and runs the gradient on `args` if given)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = s2sad.grad(func, wrt=wrt, jit=jit)
        if args is not None:
            df(*args)
        else:
            df.generated  # transform only
            calls.report_clogs(df.generated, strict=False)
    return [w for w in caught if issubclass(w.category, s2sad.S2sadWarning)]


def test_int_on_an_active_value_is_reported_at_its_line_and_column():
    found = findings(ex.int_cut, args=(0.73,))
    assert len(found) == 1
    message = str(found[0].message)
    line = line_of(ex.int_cut, "int(")
    assert found[0].category is s2sad.GradientCutWarning
    assert found[0].filename == PATH and found[0].lineno == line
    assert re.search(rf"examples_clogs.py:{line}:9: warning: int\(x \* 10.0\) depends on 'x'",
                     message)
    assert "fix:" in message and "stop_gradient" in message


def test_math_sqrt_of_an_active_scalar_has_the_right_derivative_and_no_warning():
    assert findings(ex.sqrt_of_scalar, args=(0.6,)) == []
    for jit in (False, True):
        assert s2sad.grad(ex.sqrt_of_scalar, jit=jit)(0.6) == pytest.approx(1.5 / 0.6 ** 0.5)


def test_a_comparison_used_as_a_number_is_reported_at_the_comparison():
    found = findings(ex.comparison_as_number)
    assert len(found) == 1
    line = line_of(ex.comparison_as_number, "mask = x > 0.0")
    assert f"examples_clogs.py:{line}:12: warning: the truth value or index x > 0.0" in \
        str(found[0].message)
    assert "used as a number" in str(found[0].message)


def test_comparisons_as_tests_masks_and_indices_are_fine():
    assert findings(ex.comparison_fine) == []


def test_rounding_functions_are_each_reported():
    messages = [str(w.message) for w in findings(ex.rounding)]
    assert len(messages) == 3
    for text in ("np.round(x)", "math.floor(x[0])", "np.sign(x)"):
        assert sum(f"{text} depends on 'x'" in m for m in messages) == 1, (text, messages)


def test_item_is_reported_with_the_differentiable_alternative():
    found = findings(ex.item_cut)
    assert len(found) == 1
    assert "x.sum().item() depends on 'x'" in str(found[0].message)
    assert "x[i]" in str(found[0].message)


def test_stop_gradient_silences_and_cuts():
    assert findings(ex.stopped) == []
    x = 0.77
    n = int(x * 10.0)  # m = int(x * 10) is a constant: no gradient
    expected = 2 * x * n + 1.0 + x * x  # s = x (x > 0.5), d/dx of stop(x*x)*x = x*x
    for jit in (False, True):
        assert s2sad.grad(ex.stopped, jit=jit)(x) == pytest.approx(expected)
        assert s2sad.stop_gradient(x) == x


def test_a_write_into_an_integer_array_is_reported_and_carries_no_gradient():
    found = findings(ex.integer_array)
    assert len(found) == 1
    line = line_of(ex.integer_array, "counts[0] =")
    assert f"examples_clogs.py:{line}:5: warning:" in str(found[0].message)
    assert "'counts', an array of an integer dtype" in str(found[0].message)
    x = np.array([0.55, 0.3, 0.9])
    check_gradient(ex.integer_array, (x,), 0)


def test_floor_division_is_reported_at_its_statement():
    found = findings(ex.floor_division)
    line = line_of(ex.floor_division, "x // 0.25")
    assert len(found) == 1 and f"examples_clogs.py:{line}:5: warning: `//` (floor division) " \
        "depends on 'x'" in str(found[0].message)


def test_declared_non_differentiable_functions_are_reported():
    found = findings(ex.random_draw)
    assert len(found) == 1 and "np.random.normal(x, 1.0) depends on 'x'" in \
        str(found[0].message)


def test_a_parameter_the_output_does_not_depend_on_gives_a_zero_gradient_warning():
    found = findings(ex.unused_parameter, wrt=(0, 1))
    assert [w.category for w in found] == [s2sad.ZeroGradientWarning]
    assert "gradient w.r.t. 'w' is identically zero: the output does not depend on it" in \
        str(found[0].message)
    found = findings(ex.only_in_a_branch_test, wrt=("x", "w"))
    assert [w.category for w in found] == [s2sad.ZeroGradientWarning]


def test_a_cut_inside_a_callee_is_reported_at_the_callee_line():
    found = findings(ex.cut_in_callee)
    assert len(found) == 1
    line = line_of(ex._floored, "math.floor")
    # `_floored` is small: inlined, its `v` is the caller's `x`
    assert f"examples_clogs.py:{line}:12: warning: math.floor(v * 4.0) depends on 'x'" in \
        str(found[0].message)


def test_each_finding_is_reported_once():
    assert len(findings(ex.cuts_twice, args=(0.3,))) == 2
    assert findings(ex.cuts_twice, args=(0.4,)) == []  # the same places: not again
    assert findings(ex.cuts_twice, jit=True, args=(0.3,)) == []


def test_strict_turns_every_finding_into_one_error():
    with pytest.raises(s2sad.GradientCutError) as caught:
        s2sad.grad(ex.cuts_twice, strict=True, jit=False)(0.3)
    text = str(caught.value)
    assert text.startswith("2 problems found")
    assert text.count(": error: ") == 2 and "int(x)" in text and "round(x * 2.0)" in text
    assert isinstance(caught.value, s2sad.S2sadError)
    s2sad.grad(ex.sqrt_of_scalar, strict=True, jit=False)(0.5)  # clean: no error


def test_a_clean_example_gives_no_warning():
    import corpus_straight
    for name in ("mlp", "layer_norm", "softmax_cross_entropy", "issue_example"):
        assert findings(getattr(corpus_straight, name)) == [], name


def test_the_clog_example_runs():
    import os
    import subprocess
    import sys
    example = os.path.join(os.path.dirname(__file__), "..", "examples", "clog.py")
    result = subprocess.run([sys.executable, example], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    assert "math.sqrt: d radius / d(x, y) at (3, 4) = (0.6" in result.stdout
    assert re.search(r"examples/clog\.py:\d+:15: warning: int\(price \* rate\)", result.stdout)


def test_a_function_without_source_or_template_is_an_error_with_the_fix():
    """... where its argument carries a gradient; where none does, it is a constant (the
    gradient runs as Python: tests/corpus_as_written.py)."""
    import operator
    uses_c_function = _module_function(
        "def f(x):\n    return operator.length_hint(x) * x\n", operator=operator)
    with pytest.raises(s2sad.UserError) as caught:
        s2sad.grad(uses_c_function, jit=False)(1.0)
    text = str(caught.value)
    assert "no derivative template for operator.length_hint" in text
    assert "@s2sad.adjoint(operator.length_hint)" in text


def _module_function(text, **globals_):
    """A function defined in a real file (s2sad reads source with inspect)."""
    import importlib.util
    import tempfile
    import os
    directory = tempfile.mkdtemp(prefix="s2sad-clog-")
    path = os.path.join(directory, "made.py")
    with open(path, "w") as handle:
        handle.write(text)
    spec = importlib.util.spec_from_file_location("made_for_clogs", path)
    module = importlib.util.module_from_spec(spec)
    module.__dict__.update(globals_)
    spec.loader.exec_module(module)
    return module.f
