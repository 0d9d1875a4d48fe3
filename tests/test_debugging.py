"""Debugging generated code: traceback notes point at the original line, pdb stops in the
generated file, S2SAD_DISABLE_JIT=1 runs it as Python.

Expected line numbers are found by searching source text, never written down, so the tests
survive edits of examples_debugging.py and changes in the generated code's layout.
"""
import inspect
import io
import json
import math
import os
import pdb  # noqa: T100  (driving pdb is the point)
import re
import subprocess
import sys
from xml.etree import ElementTree

import numpy as np
import pytest
from examples_debugging import backward_fails, calls_failing_helper, forward_fails, pdb_target

import s2sad
from s2sad.runtime import tracing

SOURCE_FILE = os.path.abspath(inspect.getsourcefile(backward_fails))
EXAMPLE_DIR = os.path.join(os.path.dirname(__file__), os.pardir, "examples", "debugging")


def line_of(text, wanted, after=None):
    """1-based number of the first line of `text` whose stripped form is `wanted` (or, with
    `after`, the first line following the line that is `after`)."""
    lines = [line.strip() for line in text.splitlines()]
    if after is not None:
        return lines.index(after) + 2
    return lines.index(wanted) + 1


def original_line(wanted):
    with open(SOURCE_FILE) as handle:
        return line_of(handle.read(), wanted)


def s2sad_notes(exc):
    return [n for n in getattr(exc, "__notes__", ()) if n.startswith("s2sad:")]


def innermost_line(exc, path):
    """The line the traceback of `exc` last passed through in the file `path`."""
    tb, line = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == path:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


@pytest.fixture(scope="module")
def backward_python():
    return s2sad.grad(backward_fails, jit=False)


# ---- origin ----------------------------------------------------------------------------------

def test_origin_maps_forward_and_backward_lines(backward_python):
    backward_python(1.0)
    path, text = backward_python.path, backward_python.source
    sqrt_line = original_line("y = math.sqrt(x)")
    forward = tracing.origin(path, line_of(text, "y = math.sqrt(x)"))
    assert forward == (SOURCE_FILE, sqrt_line, "y = math.sqrt(x)", "forward")
    backward = tracing.origin(path, line_of(
        text, None, after=f"# grad of: y = math.sqrt(x)   [examples_debugging.py:{sqrt_line}]"))
    assert backward == (SOURCE_FILE, sqrt_line, "y = math.sqrt(x)", "backward")
    returned = tracing.origin(path, len(text.splitlines()))  # `return value, gradients`
    assert returned.sweep == "backward"


def test_origin_is_none_outside_generated_code(backward_python):
    backward_python(1.0)
    assert tracing.origin(SOURCE_FILE, original_line("y = math.sqrt(x)")) is None
    assert tracing.origin(backward_python.path, 1) is None  # the header: no comment above
    assert tracing.origin(backward_python.path, 10_000) is None
    assert tracing.origin("/no/such/file.py", 3) is None


# ---- traceback notes, Python mode --------------------------------------------------------------

def test_backward_sweep_error_names_generated_and_original_line(backward_python):
    with pytest.raises(ZeroDivisionError) as info:
        backward_python(0.0)  # d sqrt(x) = 0.5 / sqrt(x): divides by zero at 0
    path, text = backward_python.path, backward_python.source
    sqrt_line = original_line("y = math.sqrt(x)")
    generated = innermost_line(info.value, path)
    code = text.splitlines()[generated - 1].strip()
    assert "/" in code  # the division of the adjoint, not some other line
    assert generated > line_of(text, "# ---- backward sweep ----")
    assert s2sad_notes(info.value) == [(
        f"s2sad: raised in the generated backward sweep at {path}:{generated}\n"
        f"    {code}\n"
        f"  from the adjoint of {SOURCE_FILE}:{sqrt_line}\n"
        f"    y = math.sqrt(x)")]


def test_forward_sweep_error_names_generated_and_original_line():
    df = s2sad.grad(forward_fails, jit=False)
    with pytest.raises(IndexError) as info:
        df(np.ones(3), 5)
    path, text = df.path, df.source
    generated = innermost_line(info.value, path)
    code = text.splitlines()[generated - 1].strip()
    assert re.fullmatch(r"\w+ = x\[k\] \* 2\.0", code)  # the read, folded into its use
    assert generated < line_of(text, "# ---- backward sweep ----")
    assert s2sad_notes(info.value) == [(
        f"s2sad: raised in the generated forward sweep at {path}:{generated}\n"
        f"    {code}\n"
        f"  from {SOURCE_FILE}:{original_line('return x[k] * 2.0')}\n"
        f"    return x[k] * 2.0")]


def test_error_in_a_callee_names_the_callee_file():
    df = s2sad.grad(calls_failing_helper, jit=False)
    with pytest.raises(ZeroDivisionError) as info:
        df(0.0)
    (note,) = s2sad_notes(info.value)
    assert os.path.basename(df.path) not in note
    assert "fails_past_a_branch__d_x__" in note
    assert note.endswith(f"{SOURCE_FILE}:{original_line('root = math.sqrt(x)')}\n"
                         "    root = math.sqrt(x)")


def test_annotate_adds_one_note_and_never_raises(backward_python):
    with pytest.raises(ZeroDivisionError) as info:
        backward_python(0.0)
    tracing.annotate(info.value)  # as a second runner on the way out would
    assert len(s2sad_notes(info.value)) == 1
    bare = ValueError("no traceback")
    tracing.annotate(bare)
    assert not hasattr(bare, "__notes__")

    class Hostile(Exception):
        def add_note(self, note):
            raise RuntimeError("broken")
    try:
        raise Hostile()
    except Hostile as exc:
        exc.__traceback__ = info.value.__traceback__  # a generated frame, so a note is due
        tracing.annotate(exc)  # must swallow the RuntimeError


def test_errors_not_from_generated_code_get_no_note():
    with pytest.raises(ValueError) as info:
        backward_fails(-1.0)  # the user's function run directly: math domain error
    tracing.annotate(info.value)
    assert not s2sad_notes(info.value)


# ---- JIT: the error surfaces, with a note on how to see the line -----------------------------

def test_compiled_error_says_how_to_see_the_line():
    df = s2sad.grad(backward_fails, jit=True)
    with pytest.raises(ZeroDivisionError) as info:
        df(0.0)
    (note,) = s2sad_notes(info.value)
    assert "compiled by Numba" in note and "jit=False" in note
    assert "S2SAD_DISABLE_JIT=1" in note and df.path in note


def test_disable_jit_env_runs_python(monkeypatch):
    monkeypatch.setenv("S2SAD_DISABLE_JIT", "1")
    df = s2sad.grad(backward_fails)  # no jit argument: the environment decides
    with pytest.raises(ZeroDivisionError) as info:
        df(0.0)
    (note,) = s2sad_notes(info.value)
    assert note.startswith(f"s2sad: raised in the generated backward sweep at {df.path}:")
    assert innermost_line(info.value, df.path) is not None  # a Python frame in the file


# ---- pdb ---------------------------------------------------------------------------------------

def run_pdb(function, args, commands):
    out = io.StringIO()
    debugger = pdb.Pdb(stdin=io.StringIO("\n".join(commands) + "\n"), stdout=out,
                       nosigint=True, readrc=False)
    result = debugger.runcall(function, *args)
    return result, out.getvalue()


def test_pdb_stops_at_a_backward_line_and_prints_an_adjoint():
    x, w = 0.3, 0.9
    df = s2sad.grad(pdb_target, jit=False)
    expected_dx = 1.0 + 2.0 * w * math.sin(x) * w * math.cos(x)
    assert df(x, w) == pytest.approx(expected_dx, rel=1e-14)  # writes the file df.path names
    path, text = df.path, df.source
    comment = next(line.strip() for line in text.splitlines()
                   if line.strip().startswith("# grad of: y = w * math.sin(x)"))
    line = line_of(text, None, after=comment)  # dy is complete: z = y * y is done
    result, out = run_pdb(df, (x, w), [f"break {path}:{line}", "continue", "p dy", "continue"])
    stop = f"> {path}({line})d{pdb_target.__name__}()\n-> {text.splitlines()[line - 1].strip()}"
    assert stop in out  # stopped in the generated file, at that line
    printed = re.search(r"^\(Pdb\) (\S+)$", out.split(stop)[1], re.MULTILINE)
    assert float(printed[1]) == pytest.approx(2.0 * w * math.sin(x), rel=1e-14)
    assert result == pytest.approx(expected_dx, rel=1e-14)


# ---- examples/debugging ---------------------------------------------------------------------

def test_debug_example_runs_and_lists_backward_lines():
    script = os.path.join(EXAMPLE_DIR, "debug_backward.py")
    result = subprocess.run([sys.executable, script], capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    path = re.search(r"^generated file: (\S+)$", result.stdout, re.MULTILINE)[1]
    listed = re.findall(rf"^  {re.escape(path)}:(\d+)   grad of: ", result.stdout, re.MULTILINE)
    assert listed and "dloss/dw =" in result.stdout
    with open(path) as handle:
        lines = handle.read().splitlines()
    for line in map(int, listed):  # each listed line follows a `# grad of:` comment
        assert lines[line - 2].strip().startswith("# grad of:")


def test_ide_configurations_run_the_example_without_jit():
    with open(os.path.join(EXAMPLE_DIR, "vscode", "launch.json")) as handle:
        configurations = json.load(handle)["configurations"]
    backward = next(c for c in configurations if c["name"] == "Python: s2sad backward pass")
    assert backward["program"].endswith("examples/debugging/debug_backward.py")
    for configuration in configurations:
        assert configuration["env"]["S2SAD_DISABLE_JIT"] == "1"
        assert configuration["justMyCode"] is False
    tree = ElementTree.parse(os.path.join(EXAMPLE_DIR, "pycharm", "Debug_backward.run.xml"))
    configuration = tree.getroot().find("configuration")
    assert configuration.get("type") == "PythonConfigurationType"
    env = {e.get("name"): e.get("value") for e in configuration.iter("env")}
    assert env["S2SAD_DISABLE_JIT"] == "1"
    script = next(o.get("value") for o in configuration.iter("option")
                  if o.get("name") == "SCRIPT_NAME")
    assert script == "$PROJECT_DIR$/examples/debugging/debug_backward.py"
