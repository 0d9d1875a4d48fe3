"""The sampling of the long sweeps (sweeps.py): every group is checked, the sample is fixed, and
`make verify` runs every file that samples, with the full sweep."""
import os
import re

import pytest

import sweeps

HERE = os.path.dirname(__file__)


def test_a_sample_keeps_the_first_and_every_third_of_each_group(monkeypatch):
    monkeypatch.setattr(sweeps, "FULL", False)
    cases = ["a0", "b0", "a1", "a2", "a3", "c0", "b1", "a4"]
    assert sweeps.sample(cases, key=lambda case: case[0]) == ["a0", "b0", "a3", "c0"]
    assert sweeps.sample(cases) == ["a0", "a2", "b1"]
    assert sweeps.sample(cases, every=1) == cases
    assert sweeps.sample([]) == []


@pytest.mark.parametrize("every", [2, 3, 5])
def test_every_group_is_in_the_sample(monkeypatch, every):
    monkeypatch.setattr(sweeps, "FULL", False)
    cases = [(k % 7, k) for k in range(40)]
    kept = sweeps.sample(cases, key=lambda case: case[0], every=every)
    assert {group for group, _ in kept} == set(range(7))
    assert len(kept) < len(cases) and kept == sorted(kept, key=lambda case: case[1])


def test_the_full_sweep_keeps_every_case(monkeypatch):
    monkeypatch.setattr(sweeps, "FULL", True)
    cases = ["a0", "b0", "a1", "a2", "a3"]
    assert sweeps.sample(cases, key=lambda case: case[0]) == cases


def _samples(name):
    """Whether the test file `name` samples (imports sweeps.py or runtime_forms.py)."""
    with open(os.path.join(HERE, name)) as source:
        return re.search(r"^(import sweeps|from runtime_forms import)", source.read(),
                         re.MULTILINE) is not None


def test_make_verify_runs_every_file_that_samples():
    sampling = {name for name in os.listdir(HERE) if name.startswith("test_") and
                name.endswith(".py") and name != "test_sweeps.py" and _samples(name)}
    with open(os.path.join(HERE, os.pardir, "Makefile")) as makefile:
        text = makefile.read().replace("\\\n", " ")
    listed = re.search(r"^SWEEPS\s*:?=(.*)$", text, re.MULTILINE).group(1).split()
    assert sampling and {os.path.basename(path) for path in listed} == sampling
    verify = re.search(r"^verify:.*\n((?:\t.*\n)+)", text, re.MULTILINE).group(1)
    assert "S2SAD_FULL_SWEEP=1 $(PY) -m pytest $(SWEEPS)" in verify
