"""Differential fuzzing, fast profile: random programs (fuzzgen.py) differentiated by s2sad and
checked by fuzzcheck.py against central finite differences, JIT on and off, and forward mode
against reverse mode; then every regression program in corpus_fuzz.py.

Deterministic (derandomized hypothesis, a fixed number of programs), so CI sees the same
programs every run. The long profile, >= 10,000 programs, is `make fuzz` (fuzz_long.py).
`make test` checks every regression program as Python (reverse and forward mode) and compiles
a sample: the first and every third (sweeps.py), every one whose bug names Numba or the JIT,
every pending one; `make verify` (S2SAD_FULL_SWEEP=1) compiles them all.
"""
import pytest
from hypothesis import HealthCheck, given, reject, settings

import corpus_fuzz
import fuzzcheck
import fuzzgen
import sweeps

PROGRAMS = 130         # checked as Python (reverse and forward mode)
COMPILED = 3           # also compiled by Numba (1-10 s each, the first with the runtime)


def fast(count):
    return settings(max_examples=count, derandomize=True, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck), print_blob=False,
                    report_multiple_bugs=False)


def check(program, jit):
    try:
        fuzzcheck.check(program, jit=jit, forward=True)
    except fuzzcheck.Rejected:
        reject()  # inputs too close to a kink or threshold: not a test


@fast(PROGRAMS)
@given(fuzzgen.programs())
def test_random_programs_match_finite_differences(program):
    check(program, jit=False)


@fast(COMPILED)
@given(fuzzgen.programs(statements=(3, 6), helpers=(1, 1)))
def test_random_programs_compiled_equal_python(program):
    check(program, jit=True)


COMPILED_CASES = {case.name for case in sweeps.sample(corpus_fuzz.CASES)} | {
    case.name for case in corpus_fuzz.CASES
    if case.pending or "numba" in case.bug.lower() or "jit" in case.bug.lower()}


def corpus_params():
    for case in corpus_fuzz.CASES:
        marks = [pytest.mark.xfail(strict=True, raises=fuzzcheck.FuzzFailure,
                                   reason=case.pending)] if case.pending else []
        yield pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case", list(corpus_params()))
def test_regression_programs(case):
    import numpy as np
    program = fuzzgen.Program(case.source.lstrip(), eval(case.args, {"np": np}), case.wrt)
    # Rejected here is an invalid case
    fuzzcheck.check(program, jit=case.name in COMPILED_CASES, forward=True)
