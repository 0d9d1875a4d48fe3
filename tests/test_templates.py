"""Every derivative rule and array method, verified from the registry (s2sad.verify): finite
differences at random inputs of several shapes, JIT on and off, and the Numba flag honest.

The Python side runs per rule; the compiled side compiles many rules' cases as one generated
function (Numba's cost is mostly per function), so the whole library compiles in a few dozen
functions instead of hundreds.
"""
import functools

import pytest

from s2sad import templates, verify

RULES = verify.registered()
BATCH = 12  # rules per compiled function


@functools.lru_cache(maxsize=None)
def _python(primal):
    return verify.check_python(primal)


@functools.lru_cache(maxsize=None)
def _compiled(batch):
    primals = RULES[batch * BATCH:(batch + 1) * BATCH]
    checked = {}
    for primal in primals:
        try:
            checked[primal] = _python(primal)
        except verify.VerificationError:
            pass  # reported by that rule's own test
    return verify.check_compiled(checked)


@pytest.mark.parametrize("index", range(len(RULES)), ids=[verify.label(p) for p in RULES])
def test_rule_matches_finite_differences(index):
    primal = RULES[index]
    assert _python(primal)                      # raises VerificationError on a mismatch
    error = _compiled(index // BATCH).get(primal)
    if error is not None:
        raise error


def test_library_covers_at_least_150_functions_and_methods():
    assert len(RULES) >= 150, f"only {len(RULES)} functions and methods have rules"


def test_every_rule_has_checks():
    missing = [verify.label(p) for p in RULES if not verify.cases(p)]
    assert not missing, f"rules without checks: {missing}"


def test_declared_kinds_are_known():
    for rule in templates.REGISTRY.values():
        assert rule.kind in ("adjoint", "nondifferentiable", "not_implemented")
