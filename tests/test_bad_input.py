"""Every bad input of tests/corpus_bad_input.py gets one s2sad error at the right line, with a
caret, why and fix; every input accepted by design gets the right result. Also: a global or a
callee rebound after a gradient was made gives a new gradient, never a stale one."""
import importlib.util
import os
import re
import sys
import textwrap
import warnings

import numpy as np
import pytest

import s2sad
from corpus_bad_input import CALL, CALL_COLUMN, CASES, HEADER
from gradcheck import assert_close

CARET = re.compile(r"^\s+\|\s*\^+\s*$", re.MULTILINE)


def write_module(directory, name, source, call):
    """The case's module file: HEADER, the source from line 2, then `run()` on the last two
    lines. Returns (path, line of the call)."""
    body = textwrap.dedent(source).strip("\n")
    lines = [HEADER] + (body.splitlines() if body else []) + ["", "", "def run():",
                                                              f"    return {call}", ""]
    path = os.path.join(directory, f"{name}.py")
    with open(path, "w") as handle:
        handle.write("\n".join(lines))
    return path, len(lines) - 1


def import_module(path, name):
    spec = importlib.util.spec_from_file_location(f"bad_input_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def load(tmp_path):
    def load_case(case):
        path, call_line = write_module(str(tmp_path), case.name, case.source, case.call)
        module = import_module(path, case.name)
        if case.edit is not None:  # the file changes under the running program
            with open(path) as handle:
                text = handle.read()
            with open(path, "w") as handle:
                handle.write(text.replace(*case.edit))
        return module, path, call_line
    yield load_case
    for name in [n for n in sys.modules if n.startswith("bad_input_")]:
        del sys.modules[name]


ERRORS = [c for c in CASES if c.error is not None]
ACCEPTED = [c for c in CASES if c.error is None]
# Known gaps in files other than those this corpus was written with: strict, so that a fix
# shows up as an unexpected pass.
KNOWN_GAPS = {}  # case name -> why it does not pass yet (a strict xfail)


def with_gaps(cases):
    return [pytest.param(c, id=c.name, marks=pytest.mark.xfail(reason=KNOWN_GAPS[c.name],
                                                               strict=True))
            if c.name in KNOWN_GAPS else pytest.param(c, id=c.name) for c in cases]


@pytest.mark.parametrize("case", with_gaps(ERRORS))
def test_bad_input_gives_one_located_error(case, load):
    module, path, call_line = load(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.S2sadWarning)
        with pytest.raises(s2sad.S2sadError) as info:
            module.run()
    error = info.value
    text = str(error)
    assert isinstance(error, case.error), f"{type(error).__name__}:\n{text}"
    assert not isinstance(error, s2sad.InternalError), text
    for fragment in case.fragments:
        assert fragment in text, f"{fragment!r} not in:\n{text}"
    assert len(error.diagnostics) == case.count, text
    line, column = (call_line, CALL_COLUMN) if case.at == CALL else case.at
    first = error.diagnostics[0]
    expected_file = path if case.caret else first.where.path
    assert (first.where.path, first.where.line, first.where.col + 1) == \
        (expected_file, line, column), text
    header = f"{os.path.basename(first.where.path)}:{line}:{column}: error: "
    assert header in text, text
    for diagnostic in error.diagnostics:
        assert diagnostic.why and diagnostic.fix, f"no why or fix:\n{diagnostic.render()}"
        assert diagnostic.where is not None, diagnostic.render()
    rendered = first.render()
    assert "  why: " in rendered and "  fix: " in rendered
    assert bool(CARET.search(rendered)) == case.caret, rendered


@pytest.mark.parametrize("case", with_gaps(ACCEPTED))
def test_accepted_input_gives_the_right_result(case, load):
    module, _, _ = load(case)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = module.run()
    expected = eval(case.expect, vars(module))
    if isinstance(expected, tuple):
        assert isinstance(result, tuple) and len(result) == len(expected)
        for r, e in zip(result, expected):
            assert_close(r, e, rtol=1e-12)
    else:
        assert type(result) is type(expected) or not isinstance(expected, list)
        assert_close(result, expected, rtol=1e-12)
    categories = [w.category for w in caught if issubclass(w.category, s2sad.S2sadWarning)]
    if case.warns is not None:
        assert case.warns in categories, categories
    else:
        assert not [c for c in categories if c is not s2sad.JitFallbackWarning], categories


def test_case_names_are_unique():
    assert len({c.name for c in CASES}) == len(CASES)


# ---- rebinding what a gradient was made from --------------------------------------------------

REBOUND = """
SCALE = 2.0

def helper(x):
    return x * x

def other_helper(x):
    return x * x * x

def f(x):
    return helper(x) * SCALE
"""


@pytest.mark.parametrize("jit", [False, True])
def test_a_rebound_global_number_gives_a_new_gradient(jit, load):
    case = CASES[0].__class__("rebound_global_" + str(jit), REBOUND, call="None")
    module, _, _ = load(case)
    gradient = s2sad.grad(module.f, jit=jit)
    assert gradient(1.5) == pytest.approx(2.0 * 2 * 1.5)
    module.SCALE = 5.0
    assert gradient(1.5) == pytest.approx(5.0 * 2 * 1.5)
    assert s2sad.grad(module.f, jit=jit)(1.5) == pytest.approx(5.0 * 2 * 1.5)


def test_a_rebound_callee_gives_a_new_gradient(load):
    case = CASES[0].__class__("rebound_callee", REBOUND, call="None")
    module, _, _ = load(case)
    gradient = s2sad.grad(module.f, jit=False)
    first_path = None
    assert gradient(1.5) == pytest.approx(2.0 * 2 * 1.5)
    first_path = gradient.path
    module.helper = module.other_helper
    assert gradient(1.5) == pytest.approx(2.0 * 3 * 1.5 ** 2)
    assert gradient.path != first_path
    assert s2sad.value_and_grad(module.f, jit=False)(1.5)[1] == pytest.approx(2.0 * 3 * 1.5 ** 2)
    assert s2sad.jvp(module.f, jit=False)(1.5, 1.0)[1] == pytest.approx(2.0 * 3 * 1.5 ** 2)


def test_second_derivatives_follow_a_rebound_global(load):
    case = CASES[0].__class__("rebound_second", REBOUND, call="None")
    module, _, _ = load(case)
    second = s2sad.grad(s2sad.grad(module.f, jit=False), jit=False)
    assert second(1.5) == pytest.approx(2.0 * 2)
    hvp = s2sad.hvp(module.f, jit=False)
    assert hvp(1.5, 1.0) == pytest.approx(2.0 * 2)
    module.SCALE = 5.0
    assert second(1.5) == pytest.approx(5.0 * 2)
    assert hvp(1.5, 1.0) == pytest.approx(5.0 * 2)


def test_stale_checks_cost_little(load):
    """The check runs on every call: it must stay small next to the call itself."""
    from s2sad.transform.front import global_state
    case = CASES[0].__class__("state_cost", REBOUND, call="None")
    module, _, _ = load(case)
    state = global_state.global_state(module.f)
    assert [name for _, name, _ in state] == ["__code__", "helper", "__code__", "SCALE"]
    assert global_state.same_state(state, global_state.global_state(module.f))
    module.SCALE = float("nan")
    nan_state = global_state.global_state(module.f)
    assert not global_state.same_state(state, nan_state)
    assert global_state.same_state(nan_state, global_state.global_state(module.f))  # nan == nan
    assert np.isnan(module.SCALE)


# ---- the command line: bad targets are usage errors, never tracebacks ------------------------

@pytest.mark.parametrize("text, message", [
    ("def f(x)\n    return x\n", "SyntaxError: expected ':' (target.py, line 1)"),
    ("raise RuntimeError('boom')\ndef f(x):\n    return x\n",
     "RuntimeError: boom (target.py, line 1)"),
])
def test_cli_target_that_cannot_be_imported(text, message, tmp_path, capsys):
    from s2sad.tools import cli
    (tmp_path / "target.py").write_text(text)
    status = cli.main(["show", f"{tmp_path / 'target.py'}:f"])
    err = capsys.readouterr().err
    assert status == 2 and f"s2sad: error: cannot load {tmp_path / 'target.py'}: {message}" in err


def test_cli_check_reports_a_differentiated_count(tmp_path, capsys):
    from s2sad.tools import cli
    (tmp_path / "target.py").write_text(textwrap.dedent("""
        def f(x, n):
            s = 0.0
            for i in range(n):
                s = s + x
            return s
        """))
    status = cli.main(["check", f"{tmp_path / 'target.py'}:f", "--wrt", "x,n"])
    out = capsys.readouterr().out
    assert status == 1
    assert "target.py:4:14: error: 'n' is differentiated but used as a count" in out
    assert "fix: leave 'n' out of wrt" in out


def test_the_per_call_watch_sees_every_rebinding(load):
    """The call path tests identities only (resolve.Watch); each way of changing what f reads
    must fail that test, so that the full comparison runs."""
    from s2sad.transform.front import global_state
    case = CASES[0].__class__("watch", REBOUND, call="None")
    module, _, _ = load(case)
    watch = global_state.Watch(global_state.global_state(module.f))
    assert watch.unchanged()
    module.SCALE = 2.0 + 0.0 * module.SCALE  # an equal number, another object: looked at again
    assert not watch.unchanged()
    watch = global_state.Watch(global_state.global_state(module.f))
    module.helper = module.other_helper
    assert not watch.unchanged()
    watch = global_state.Watch(global_state.global_state(module.f))
    module.f.__code__ = module.other_helper.__code__
    assert not watch.unchanged()

    def outer():
        def inner(x):
            return x * factor * abs(x)
        factor = 2.0
        return inner
    inner = outer()
    watch = global_state.Watch(global_state.global_state(inner))
    assert watch.unchanged()
    inner.__closure__[0].cell_contents = 3.0
    assert not watch.unchanged()
    watch = global_state.Watch(global_state.global_state(inner))
    inner.__globals__["abs"] = lambda v: v  # a global now shadows the builtin
    try:
        assert not watch.unchanged()
    finally:
        del inner.__globals__["abs"]
    assert watch.unchanged()
