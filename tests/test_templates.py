"""Every derivative rule and array method, verified from the registry (s2sad.verify).

Python side, every check of every rule: the gradient w.r.t. every input against central finite
differences at random inputs. Numba side, in two worker processes: each rule's first and last
compilable checks (plain, and broadcasting/keyword forms) compiled as one function must give the
Python numbers, and a rule declared numba=False must really fail to compile. The full Numba
verification (every check, every per-check declaration) is `make verify`; it takes longer than
the whole suite should.
"""
import functools

import pytest

from s2sad import templates, verify

RULES = verify.registered()
SAMPLE = 2  # compiled checks per rule here; `make verify` compiles all


@functools.lru_cache(maxsize=None)
def _compiled():
    return verify.verify_all(sample=SAMPLE, every_declaration=False, fast_compile=True)


@pytest.mark.parametrize("index", range(len(RULES)), ids=[verify.label(p) for p in RULES])
def test_rule_matches_finite_differences(index):
    assert verify.check_python(RULES[index])   # raises VerificationError on a mismatch
    error = _compiled()[index]
    assert error is None, error


def test_library_covers_at_least_150_functions_and_methods():
    assert len(RULES) >= 150, f"only {len(RULES)} functions and methods have rules"


def test_every_rule_has_checks():
    missing = [verify.label(p) for p in RULES if not verify.cases(p)]
    assert not missing, f"rules without checks: {missing}"


def test_declared_kinds_are_known():
    for rule in templates.REGISTRY.values():
        assert rule.kind in ("adjoint", "nondifferentiable", "not_implemented")
