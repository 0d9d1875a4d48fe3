"""`s2sad show --types`: the generated file for arguments of given types (transforms only, no
Numba compile)."""
import numpy as np
import pytest

import s2sad
from s2sad.tools import cli

SOURCE = '''import numpy


def f(x, y):
    z = x * y
    return numpy.sin(z) + y


def h(x, i):
    a = x[i]
    b = a * a
    return b + numpy.sum(x)
'''


@pytest.fixture
def example(tmp_path):
    path = tmp_path / "typed_example.py"
    path.write_text(SOURCE)
    return str(path)


def run(capsys, *argv):
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def backward(out):
    return out.split("# ---- backward sweep ----")[1]


def test_scalar_types_drop_the_shape_bookkeeping(capsys, example):
    status, general, err = run(capsys, "show", f"{example}:f", "--wrt", "x,y")
    assert status == 0 and not err
    assert "dx = rt.unbroadcast(dz * y, x)" in general
    status, typed, err = run(capsys, "show", f"{example}:f", "--wrt", "x,y", "--types", "f8, f8")
    assert status == 0 and not err
    assert "def df(x, y, d_result):" in typed
    assert "rt.unbroadcast" not in typed and "rt.zeros_like" not in typed
    assert "dx = dz * y" in backward(typed) and "dy = d_result + dz * x" in backward(typed)
    # a differentiated int is converted to float: the same file as for floats
    _, as_ints, _ = run(capsys, "show", f"{example}:f", "--wrt", "x,y", "--types", "int, i8")
    assert as_ints == typed


def test_fewer_entries_and_unknown_ones_leave_parameters_unknown(capsys, example):
    _, general, _ = run(capsys, "show", f"{example}:f", "--wrt", "x,y")
    _, unknown, _ = run(capsys, "show", f"{example}:f", "--wrt", "x,y", "--types", "?, _")
    _, empty, _ = run(capsys, "show", f"{example}:f", "--wrt", "x,y", "--types", "")
    assert unknown == general == empty
    _, x_only, _ = run(capsys, "show", f"{example}:f", "--wrt", "x,y", "--types", "float64")
    assert "rt.unbroadcast(d_result, y)" in general
    # x a float: sin(x * y) has y's shape, so y's gradient needs no sum over broadcast axes
    assert x_only != general and "dy = d_result + dz * x" in x_only


def test_an_array_rank_lets_an_indexed_element_be_a_scalar(capsys, example):
    _, int_only, _ = run(capsys, "show", f"{example}:h", "--types", "?, i8")
    # x[i] may be a row: the result may be an array, summed back against numpy.sum(x)
    assert "rt.unreduce(rt.unbroadcast(d_result, _t0), x, None)" in int_only
    for spec in ("f8[:], i8", "float64[::1], int64", "array(float64, 1d, C), int"):
        status, ranked, err = run(capsys, "show", f"{example}:h", "--types", spec)
        assert status == 0 and not err
        assert "da = 2 * (d_result * a)" in ranked and "rt.unbroadcast" not in ranked, spec
        assert "dx[i] += da" in ranked
    # x[i] of a matrix is a row, b a row, numpy.sum(x) a number: its gradient is the sum of
    # the seed over the row (no rt.unbroadcast), and dx[i] takes the row's gradient
    _, matrix, _ = run(capsys, "show", f"{example}:h", "--types", "f8[:, :], i8")
    assert "dx = rt.unreduce(numpy.sum(d_result), x, None)" in matrix
    assert "rt.unbroadcast" not in matrix and "dx[i] += da" in matrix


def test_path_and_forward_mode_follow_the_types(capsys, example):
    _, general, _ = run(capsys, "show", f"{example}:h", "--path")
    _, typed, _ = run(capsys, "show", f"{example}:h", "--types", "f8[:], i8", "--path")
    assert typed.strip().endswith(".py") and typed != general
    _, forward, _ = run(capsys, "show", f"{example}:h", "--types", "f8[:], i8", "--mode",
                        "forward", "--path")
    assert forward.strip().endswith(".py") and forward not in (typed, general)


def test_the_path_is_the_file_a_call_with_such_arguments_runs(capsys, example, monkeypatch):
    monkeypatch.setenv("S2SAD_DISABLE_JIT", "1")
    function = cli.load_target(f"{example}:h")
    gradient = s2sad.grad(function)
    gradient(np.ones(3), 1)
    _, out, _ = run(capsys, "show", f"{example}:h", "--types", "f8[:], i8", "--path")
    assert out.strip() == gradient.path


def test_a_bad_entry_names_it_and_lists_what_is_accepted(capsys, example):
    status, out, err = run(capsys, "show", f"{example}:f", "--types", "f8, f9")
    assert status == 2 and not out
    assert "s2sad: error: --types: entry 2 'f9' is not a type s2sad knows; accepted:" in err
    assert "f8, float64, float" in err and "f8[:, :]" in err and "? or _" in err
    status, _, err = run(capsys, "show", f"{example}:f", "--types", "f8[:, ;]")
    assert status == 2 and "entry 1 'f8[:, ;]' is not a type" in err
    status, _, err = run(capsys, "show", f"{example}:f", "--types", "f8,,f8")
    assert status == 2 and "entry 2 is empty" in err
    status, _, err = run(capsys, "show", f"{example}:f", "--types", "f8[:, :")
    assert status == 2 and "a bracket is not closed" in err
    status, _, err = run(capsys, "show", f"{example}:f", "--types", "b1")
    assert status == 2 and "'x' is b1, a bool, and cannot be differentiated" in err


def test_more_entries_than_parameters_names_the_parameters(capsys, example):
    status, out, err = run(capsys, "show", f"{example}:f", "--types", "f8, f8[:, :], i8")
    assert status == 2 and not out
    assert "s2sad: error: --types has 3 entries but f takes 2 parameters: x, y" in err


def test_commas_inside_brackets_do_not_split():
    types = cli.parse_types("f8, f8[:, :], i8, ?, array(float32, 3d, F), b1")
    assert [(t.dtype, t.ndim) for t in types] == [
        ("float", 0), ("float", 2), ("int", 0), (None, None), ("float", 3), ("bool", 0)]


def test_kinds_are_those_a_call_works_out():
    def k(x, w, n, flag, rest):
        return x

    types = cli.parse_types("i8, f8[:, :], int32, bool")
    scalars, ints, ranks, structures = cli.argument_kinds(k, (0, 1), types)
    assert scalars == {"x", "n"}          # x is differentiated: converted to float
    assert ints == {"n"}                  # a bool is not a number to a call; rest is unknown
    assert ranks == {("w", 2)}
    assert structures == ()               # containers are not described by --types
