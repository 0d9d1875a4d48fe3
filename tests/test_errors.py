"""Bad input gets one clear error: file:line:col, the source line with a caret, why, and fix;
every problem at once; never a traceback from inside s2sad, never a silent zero."""
import numpy as np
import pytest

import s2sad
from s2sad import templates
from examples_api import calls_unknown, flipped, recursive, unsupported_everything
from gradcheck import assert_close, finite_difference


def error_of(func, *args, **options):
    with pytest.raises(s2sad.UserError) as info:
        s2sad.grad(func, **options)(*args)
    return info.value


def test_all_unsupported_constructs_are_listed_at_once():
    error = error_of(unsupported_everything, 1.0, [1.0])
    text = str(error)
    assert text.startswith("5 problems found:")
    for where, what in [
        ("examples_api.py:37:5: error: the only supported `with` statement is", "with items:"),
        ("examples_api.py:39:5: error: not supported yet: `del`", "del items[0]"),
        ("examples_api.py:40:9: error: the operator `<<` is not supported yet", "x << 2"),
        ("examples_api.py:42:13: error: only calls of named functions", "(lambda v: v)(x)"),
        ("examples_api.py:42:13: error: not supported yet: lambda expressions", "lambda v: v"),
    ]:
        assert where in text and what in text
    assert all(d.where.path.endswith("examples_api.py") for d in error.diagnostics)
    assert "why: " in text and "fix: " in text


def test_missing_template_names_the_function_and_how_to_add_one(user_rule_for_nan_to_num):
    error = error_of(flipped, np.ones(3))
    text = str(error)
    assert isinstance(error, s2sad.TemplateError)
    assert "examples_api.py:33:19: error: no derivative template for numpy.nan_to_num" in text
    assert "np.sum(np.nan_to_num(x) * np.arange(3.0))" in text
    assert "@s2sad.adjoint(numpy.nan_to_num)" in text and "d[x] = d[result]" in text


@pytest.fixture
def user_rule_for_nan_to_num():
    """numpy.nan_to_num without its built-in rule (templates/numpy_more.py) for the test, which
    may register its own; the built-in rule is back afterwards."""
    from s2sad.templates import registry
    saved = templates.REGISTRY.pop(np.nan_to_num), templates.TANGENTS.pop(np.nan_to_num)
    registry.CHANGES[0] += 1     # transformations made with the rule are made again
    yield
    templates.REGISTRY[np.nan_to_num], templates.TANGENTS[np.nan_to_num] = saved
    registry.CHANGES[0] += 1


def test_a_user_rule_fixes_the_missing_template(user_rule_for_nan_to_num):
    # docs/rules.md, "Adding a derivative"
    @s2sad.adjoint(np.nan_to_num, checks=[s2sad.check("numpy.nan_to_num(x)", x=(3, 4))])
    def nan_to_num(z, x, copy=True, nan=0.0, posinf=None, neginf=None):
        d[x] = d[z] * np.isfinite(x)  # noqa: F821  (d is the template placeholder)
    assert s2sad.verify_rule(np.nan_to_num) == 1
    x = np.array([0.5, -1.0, 2.0])
    gradient = s2sad.grad(flipped, jit=False)(x)
    assert_close(gradient, finite_difference(flipped, (x,), 0))


def test_a_wrong_user_rule_fails_verification(user_rule_for_nan_to_num):
    @s2sad.adjoint(np.nan_to_num, checks=[s2sad.check("numpy.nan_to_num(x)", x=(3,))])
    def nan_to_num(z, x, copy=True, nan=0.0, posinf=None, neginf=None):
        d[x] = 2.0 * d[z]  # noqa: F821
    with pytest.raises(s2sad.VerificationError, match=r"numpy.nan_to_num: check "
                       r"numpy.nan_to_num\(x\)  \[x=\(3,\)\]: d/dx \(Python\) vs finite"):
        s2sad.verify_rule(np.nan_to_num)


def test_a_wrong_numba_flag_fails_verification(user_rule_for_nan_to_num):
    @s2sad.adjoint(np.nan_to_num, numba=False,
                   checks=[s2sad.check("numpy.nan_to_num(x)", x=(3,))])
    def nan_to_num(z, x, copy=True, nan=0.0, posinf=None, neginf=None):
        d[x] = d[z] * np.isfinite(x)  # noqa: F821
    assert s2sad.verify_rule(np.nan_to_num, jit=False) == 1   # the Python side is right
    with pytest.warns(s2sad.JitFallbackWarning, match="numpy.nan_to_num, which Numba cannot"):
        s2sad.grad(flipped, jit=True)(np.ones(3))  # declared: runs as Python, says why
    with pytest.raises(s2sad.VerificationError, match="declared numba=False, but Numba "
                                                      "compiled it"):
        s2sad.verify_rule(np.nan_to_num)            # but Numba does compile it


def test_malformed_template_is_reported_at_the_template(user_rule_for_nan_to_num):
    @s2sad.adjoint(np.nan_to_num)
    def nan_to_num(z, x):
        d[x] = d[z] * unknown  # noqa: F821
    with pytest.raises(s2sad.TemplateError, match="malformed derivative template: "
                                                  "unknown name 'unknown'") as info:
        s2sad.grad(flipped, jit=False)(np.ones(3))
    assert info.value.diagnostics[0].where.path == __file__


def test_a_declared_gap_says_it_is_not_implemented():
    text = str(error_of(calls_unknown, np.ones(4)))
    assert "no derivative template for numpy.fft.fft" in text
    assert "not implemented yet" in text and "@s2sad.adjoint(numpy.fft.fft)" in text


def test_mutual_recursion_is_rejected():
    text = str(error_of(recursive, 1.0))
    assert "error: 'ping' calls itself (directly or through other functions)" in text
    assert "mutual recursion is not" in text


def test_function_without_source():
    namespace = {}
    exec("def k(x):\n    return x * 2\n", namespace)
    text = str(error_of(namespace["k"], 1.0))
    assert "cannot read the source of 'k'" in text and "fix: define the function" in text


def test_lambdas_given_to_grad_are_found_in_their_line():
    assert s2sad.grad(lambda x: x * 2, jit=False)(1.0) == 2.0
    pair = (lambda x: x * 2, lambda x: x * 3)  # same parameters, same line: told by columns
    assert s2sad.grad(pair[1], jit=False)(1.0) == 3.0


def test_global_array_write():
    """A module constant is an input of the gradient: writing into it is refused, located."""
    import examples_api
    examples_api.WEIGHTS = np.ones(3)
    try:
        def writes_global(x):
            WEIGHTS[0] = 2.0  # noqa: F821
            return np.sum(x * WEIGHTS)  # noqa: F821
        writes_global.__globals__["WEIGHTS"] = np.ones(3)
        text = str(error_of(writes_global, np.ones(3)))
        assert "writes into the module constant 'WEIGHTS'" in text
        assert "fix: write into a copy" in text
    finally:
        del examples_api.WEIGHTS


def test_every_error_is_an_s2sad_error():
    assert issubclass(s2sad.UserError, s2sad.S2sadError)
    assert issubclass(s2sad.ArgumentError, s2sad.S2sadError)
    assert issubclass(s2sad.OutputError, s2sad.S2sadError)
    assert issubclass(s2sad.InternalError, s2sad.S2sadError)


def test_a_bug_in_a_stage_is_an_internal_error(monkeypatch):
    from examples_api import f
    from s2sad.transform import pipeline
    from s2sad.transform.front import normalize

    def broken(source, namer):
        raise KeyError("boom")
    monkeypatch.setattr(normalize, "normalize", broken)
    monkeypatch.setattr(pipeline, "_done", {})
    with pytest.raises(s2sad.InternalError, match="this is a bug in s2sad") as info:
        s2sad.grad(f, wrt=1)(np.ones(2), 0.5)
    assert "transforming f failed: KeyError" in str(info.value)


def unknown_method(x):
    return x.cumulate() + x.imag


def test_unknown_array_methods_and_attributes_are_reported_together():
    text = str(error_of(unknown_method, np.ones(3)))
    assert text.startswith("2 problems found:")
    assert "the array method `.cumulate(...)` is not supported" in text
    assert "the array attribute `.imag` is not supported" in text
    assert "docs/coverage.md" in text


def method_chain(x, w):
    y = (x * w).T.reshape(2, 3)
    return y.sum(axis=0).dot(w[:, 0]) + x.mean() + x.max() ** 2


def test_methods_and_attributes_become_numpy_calls():
    x, w = np.random.default_rng(1).uniform(0.5, 1.5, (2, 3, 2))
    gradient = s2sad.grad(method_chain, wrt=(0, 1), jit=False)
    for k, g in enumerate(gradient(x, w)):
        assert_close(g, finite_difference(method_chain, (x, w), k))
    source = gradient.source
    assert "_t1 = numpy.transpose(" in source and "= numpy.reshape(_t1, (2, 3))" in source
