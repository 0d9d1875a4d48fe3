"""Every derivative rule and array method, verified from the registry (s2sad.verify): finite
differences at random inputs of several shapes, JIT on and off, and the Numba flag honest."""
import pytest

from s2sad import verify

RULES = verify.registered()


@pytest.mark.parametrize("primal", RULES, ids=verify.label)
def test_rule_matches_finite_differences(primal):
    assert verify.verify(primal) >= 1
