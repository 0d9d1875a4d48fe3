"""The checked-in coverage table (docs/coverage.md) is what the registry says."""
from s2sad.tools import coverage


def test_coverage_table_is_current():
    with open(coverage.DOC) as handle:
        current = handle.read()
    assert current == coverage.table(), \
        "docs/coverage.md is stale: run `make coverage` (python -m s2sad.tools.coverage)"


def test_check_mode_reports_a_stale_table(tmp_path, capsys):
    stale = tmp_path / "coverage.md"
    stale.write_text("old\n")
    assert coverage.main(["--check", "--output", str(stale)]) == 1
    assert "stale" in capsys.readouterr().err
    assert coverage.main(["--output", str(stale)]) == 0
    assert coverage.main(["--check", "--output", str(stale)]) == 0
