"""Every derivative rule and array method, verified from the registry (s2sad.tools.verify).

Python side, every check of every rule: the gradient w.r.t. every input against central finite
differences at random inputs (reverse mode), and the derivative along a random direction of all
inputs (forward mode: the tangent template, explicit or derived). Numba side, in two worker
processes: each rule's first and last compilable checks (plain, and broadcasting/keyword forms)
compiled as one function, its adjoint and its tangent, must give the Python numbers, and a rule
declared numba=False must really fail to compile. The full Numba verification (every check,
every per-check declaration) is `make verify`; it takes longer than the whole suite should.
"""
import functools
import inspect
import json
import os
import subprocess
import sys
import tempfile

import gast
import pytest

from s2sad import templates
from s2sad.tools import verify
from s2sad.transform import template
from s2sad.errors import TemplateError
from s2sad.templates import d, tangent

RULES = verify.registered()
SAMPLE = 2  # compiled checks per rule here; `make verify` compiles all
IDS = [verify.label(p) for p in RULES]


_RUNNING = []   # (the process compiling every rule, the file it writes the results to)
_VERIFY = """import json, sys
from s2sad.tools import verify
results = verify.verify_all(sample=%d, every_declaration=False, fast_compile=True,
                            modes=verify.MODES, jobs=%d)
json.dump({str(k): v for k, v in results.items()}, open(sys.argv[1], "w"))
"""


def start_compiling(jobs):
    """Start compiling every rule in `jobs` worker processes, from the moment the tests are
    collected (conftest.py): with jobs=1, the core the rest of the suite leaves idle does it.
    A process of its own, with a cache directory of its own: nothing of it runs in this
    process (whose memory some tests measure) or writes in the session's cache."""
    if not _RUNNING:
        directory = tempfile.mkdtemp(prefix="s2sad-rules-")
        out = os.path.join(directory, "results.json")
        env = dict(os.environ, S2SAD_CACHE_DIR=os.path.join(directory, "cache"))
        process = subprocess.Popen([sys.executable, "-c", _VERIFY % (SAMPLE, jobs), out],
                                   env=env)
        _RUNNING.append((process, out))


@functools.lru_cache(maxsize=None)
def _compiled():
    """{index: {"adjoint": error, "tangent": error}}: both modes compiled in the same worker
    processes, one batch per rule and mode."""
    start_compiling(jobs=2)
    process, out = _RUNNING[0]
    assert process.wait() == 0, "the process compiling the rules failed (its output is above)"
    with open(out) as results:
        return {int(k): v for k, v in json.load(results).items()}


@pytest.mark.parametrize("index", range(len(RULES)), ids=IDS)
def test_rule_matches_finite_differences(index):
    assert verify.check_python(RULES[index])   # raises VerificationError on a mismatch
    error = _compiled()[index]["adjoint"]
    assert error is None, error


@pytest.mark.parametrize("index", range(len(RULES)), ids=IDS)
def test_rule_tangent_matches_finite_differences(index):
    assert verify.check_tangent_python(RULES[index])   # raises VerificationError on a mismatch
    error = _compiled()[index]["tangent"]
    assert error is None, error


def test_library_covers_at_least_150_functions_and_methods():
    assert len(RULES) >= 150, f"only {len(RULES)} functions and methods have rules"


def test_every_rule_has_checks():
    missing = [verify.label(p) for p in RULES if not verify.cases(p)]
    assert not missing, f"rules without checks: {missing}"


def test_every_rule_has_a_tangent():
    """Forward mode needs a tangent for every adjoint rule: an explicit template, or one derived
    from an elementwise adjoint template."""
    missing = [verify.label(p) for p, rule in templates.REGISTRY.items()
               if rule.kind == "adjoint" and template.tangent_rule(p) is None]
    assert not missing, f"adjoint rules without a tangent (write a @tangent template): {missing}"


def _called(expression):
    """The functions a template expression calls (operators included), as objects."""
    import math
    import operator

    import numpy

    from s2sad.runtime import rt
    modules = {"numpy": numpy, "math": math, "rt": rt}
    binary = {gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
              gast.Div: operator.truediv, gast.Pow: operator.pow, gast.MatMult: operator.matmul,
              gast.Mod: operator.mod, gast.Eq: operator.eq, gast.NotEq: operator.ne,
              gast.Gt: operator.gt, gast.Lt: operator.lt, gast.GtE: operator.ge,
              gast.LtE: operator.le}
    for node in gast.walk(expression):
        if isinstance(node, gast.Call):
            parts = []
            func = node.func
            while isinstance(func, gast.Attribute):
                parts.insert(0, func.attr)
                func = func.value
            value = modules[func.id]
            for part in parts:
                value = getattr(value, part)
            yield value
        elif isinstance(node, gast.BinOp):
            yield binary[type(node.op)]
        elif isinstance(node, gast.Compare):
            yield from (binary[type(op)] for op in node.ops)
        elif isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
            yield operator.neg


def test_tangents_call_only_differentiable_functions():
    """Second derivatives differentiate the tangent code again (in reverse or forward mode):
    every function the tangent of a library function calls has an adjoint and a tangent rule,
    or is declared without derivative. (The rules of s2sad's own helpers serve second
    derivatives; third derivatives would need the helpers their tangents call to have rules.)"""
    from s2sad.runtime import rt
    problems = set()
    for primal in list(templates.REGISTRY) + list(templates.TANGENTS):
        rule = template.tangent_rule(primal)
        if rule is None or getattr(rt, getattr(primal, "__name__", ""), None) is primal:
            continue
        for function in _called(rule.expression):
            found = templates.rule_for(function)
            if found is not None and found.kind == "nondifferentiable":
                continue
            if found is None or found.kind != "adjoint" or \
                    template.tangent_rule(function) is None:
                problems.add(f"{verify.label(primal)} calls {verify.label(function)}")
    assert not problems, sorted(problems)


def test_malformed_tangent_template_is_reported_at_its_line():
    def primal(x):
        return x

    @tangent(primal)
    def two_lines(z, x):
        d[z] = d[x]
        d[z] = d[unknown]  # noqa: F821

    first = inspect.getsourcelines(two_lines)[1]
    try:
        with pytest.raises(TemplateError) as caught:
            template.tangent_rule(primal)
    finally:
        del templates.TANGENTS[primal]
    where = {(p.where.path, p.where.line) for p in caught.value.diagnostics}
    assert where == {(__file__, first + 3)}, caught.value
    assert "a tangent template has one line" in str(caught.value)


def test_declared_kinds_are_known():
    for rule in templates.REGISTRY.values():
        assert rule.kind in ("adjoint", "nondifferentiable", "not_implemented")
