"""The `s2sad` command, through main(argv) and once as a real subprocess."""
import os
import re
import subprocess
import sys

import pytest

from s2sad.tools import cli

HERE = os.path.dirname(__file__)
EXAMPLES = os.path.join(HERE, "examples_api.py")


def run(capsys, *argv):
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_show_prints_the_generated_adjoint(capsys):
    status, out, err = run(capsys, "show", f"{EXAMPLES}:f", "--wrt", "x,w")
    assert status == 0 and not err
    assert "def df(x, w, d_result):" in out and "# ---- backward sweep ----" in out
    assert "\033[" not in out  # plain when not a terminal


def test_show_forward_mode_prints_the_tangent_code(capsys):
    status, out, err = run(capsys, "show", f"{EXAMPLES}:f", "--wrt", "x,w", "--mode", "forward")
    assert status == 0 and not err
    assert "def jvp_f(x, w, dx, dw):" in out and "backward sweep" not in out


def test_show_accepts_double_colon_and_module_targets(capsys):
    _, by_file, _ = run(capsys, "show", f"{EXAMPLES}::f")
    _, by_module, _ = run(capsys, "show", "examples_api:f")
    assert "def df(x, w, d_result):" in by_file and "def df(x, w, d_result):" in by_module


def test_show_path_names_a_real_file(capsys):
    status, out, _ = run(capsys, "show", f"{EXAMPLES}:f", "--path")
    assert status == 0 and os.path.isfile(out.strip()) and out.strip().endswith(".py")


def test_no_optimize_keeps_what_templates_produced(capsys):
    _, tidy, _ = run(capsys, "show", f"{EXAMPLES}:g_decorated")
    _, raw, _ = run(capsys, "show", f"{EXAMPLES}:g_decorated", "--no-optimize")
    assert "def dg_decorated(" in raw and "def dg_decorated(" in tidy


def test_bad_targets_are_usage_errors_with_a_suggestion(capsys):
    status, _, err = run(capsys, "show", f"{EXAMPLES}:ff")
    assert status == 2 and "no function 'ff' in" in err and "did you mean 'f'?" in err
    status, _, err = run(capsys, "show", "no/such/file.py:f")
    assert status == 2 and "no such file: no/such/file.py" in err
    status, _, err = run(capsys, "show", f"{EXAMPLES}:f", "--wrt", "q")
    assert status == 2 and "has no parameter 'q'; its parameters are x, w" in err
    status, _, err = run(capsys, "show", "nocolon")
    assert status == 2 and "bad target" in err


def test_an_untransformable_function_prints_the_diagnostic(capsys):
    status, _, err = run(capsys, "show", f"{EXAMPLES}:unsupported_everything")
    assert status == 1 and "examples_api.py:37:5: error: the only supported `with`" in err


CLOGS = os.path.join(HERE, "examples_clogs.py")


def test_check_prints_each_finding_with_file_line_col(capsys):
    status, out, _ = run(capsys, "check", f"{CLOGS}:cuts_twice")
    assert status == 1
    found = [line for line in out.splitlines() if ": warning: " in line]
    assert len(found) == 2
    assert re.match(r".*examples_clogs\.py:\d+:9: warning: int\(x\) depends on 'x'", found[0])
    assert "round(x * 2.0)" in found[1]
    assert "s2sad check: 2 warnings, 0 errors in cuts_twice" in out


def test_check_is_clean_on_a_clean_function_and_compares_with_finite_differences(capsys):
    status, out, _ = run(capsys, "check", f"{CLOGS}:sqrt_of_scalar", "--fd", "(0.6,)")
    assert status == 0
    assert "s2sad check: 0 warnings, 0 errors" in out
    assert re.search(r"finite differences, d/dx: worst relative error \S+ at x \(ok", out)
    status, out, _ = run(capsys, "check", f"{CLOGS}:only_in_a_branch_test", "--wrt", "x,w",
                         "--fd", "0.3, np.float64(0.5)", "--no-jit")
    assert status == 1  # a zero-gradient warning; both gradients agree with FD
    assert "gradient w.r.t. 'w' is identically zero" in out and out.count("(ok,") == 2


def test_check_reports_unsupported_code_as_errors_and_bad_fd_as_usage(capsys):
    status, out, _ = run(capsys, "check", f"{EXAMPLES}:unsupported_everything")
    assert status == 1 and "examples_api.py:37:5: error: the only supported `with`" in out
    status, _, err = run(capsys, "check", f"{CLOGS}:int_cut", "--fd", "(0.3,")
    assert status == 2 and "--fd" in err and "SyntaxError" in err


def test_check_fd_catches_a_wrong_gradient(capsys, monkeypatch):
    from s2sad.tools import check
    monkeypatch.setattr(check, "FD_TOLERANCE", -1.0)  # everything "disagrees"
    status, out, _ = run(capsys, "check", f"{CLOGS}:sqrt_of_scalar", "--fd", "0.6")
    assert status == 1 and "DISAGREES" in out


def test_templates_lists_rules_with_kind_and_source(capsys):
    status, out, _ = run(capsys, "templates", "numpy.linalg.")
    assert status == 0
    lines = out.splitlines()
    assert any(line.startswith("numpy.linalg.slogdet") and "template" in line and
               "templates/numpy_linalg.py:" in line for line in lines)
    assert any(line.startswith("numpy.linalg.eigvals ") and "not implemented" in line
               for line in lines)
    status, out, _ = run(capsys, "templates", "x.sum")
    assert "means numpy.sum" in out
    assert run(capsys, "templates", "no-such-rule")[0] == 1


def test_cache_shows_and_clears(capsys, tmp_path, monkeypatch):
    from s2sad.runtime import cache
    monkeypatch.setattr(cache, "cache_dir", lambda: str(tmp_path))
    (tmp_path / "f__d_x__0123.py").write_text("x = 1\n")
    status, out, _ = run(capsys, "cache")
    assert status == 0 and f"{tmp_path}: 1 generated files" in out
    status, out, _ = run(capsys, "cache", "--clear")
    assert status == 0 and "removed 1 generated files" in out and not list(tmp_path.iterdir())


def test_help_everywhere(capsys):
    for argv in (["--help"], ["show", "--help"], ["check", "--help"], ["templates", "--help"],
                 ["cache", "--help"]):
        with pytest.raises(SystemExit) as info:
            cli.main(argv)
        assert info.value.code == 0
        assert "usage: s2sad" in capsys.readouterr().out


def test_version_prints_the_package_version(capsys):
    from s2sad.version import __version__
    with pytest.raises(SystemExit) as info:     # argparse's version action exits, as --help
        cli.main(["--version"])
    out, err = capsys.readouterr()
    assert info.value.code == 0 and not err
    assert out == f"s2sad {__version__}\n" and re.fullmatch(r"\d+\.\d+\.\d+\S*", __version__)


def test_python_dash_m_in_a_real_process():
    result = subprocess.run([sys.executable, "-m", "s2sad", "show", f"{EXAMPLES}:f"],
                            capture_output=True, text=True, cwd=HERE, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "def df(x, w, d_result):" in result.stdout
