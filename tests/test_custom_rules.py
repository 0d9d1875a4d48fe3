"""Rules a user registers for their own or a third-party function (`@s2sad.adjoint(f)`,
`@s2sad.tangent(f)`): used instead of f's source, in reverse and forward mode and for second
derivatives, JIT on and off."""
import functools
import importlib
import sys
import warnings

import numpy as np
import pytest

import s2sad
from gradcheck import SAME, assert_close, check_gradient, finite_difference
from s2sad import d, templates

ex = None  # examples_custom, imported by the fixture (importing it registers its rules)


@pytest.fixture(scope="module", autouse=True)
def user_rules():
    """Register the example rules for this module only: the registry is global, and the
    library's own tests (coverage table, verification) must see only the built-in rules."""
    global ex
    templates.registry.load_library_rules(everything=True)  # (kept by the restore below)
    saved = dict(templates.REGISTRY), dict(templates.TANGENTS)
    ex = importlib.reload(sys.modules["examples_custom"]) if "examples_custom" in sys.modules \
        else importlib.import_module("examples_custom")
    yield
    templates.REGISTRY.clear()
    templates.REGISTRY.update(saved[0])
    templates.TANGENTS.clear()
    templates.TANGENTS.update(saved[1])
    templates.registry.CHANGES[0] += 1  # what was transformed with them is transformed again
    made.cache_clear()

X = np.array([0.1, -0.5, 0.9])
W = np.array([1.5, 0.3, -0.2])


@functools.lru_cache(maxsize=None)
def made(kind, func, jit, **options):
    return getattr(s2sad, kind)(getattr(ex, func), jit=jit, **options)


def test_grad_uses_the_rules_of_user_and_njit_functions():
    check_gradient(ex.model, (X, W), (0, 1), made("grad", "model", True, wrt=(0, 1)),
                   made("grad", "model", False, wrt=(0, 1)))


def test_the_rule_wins_over_the_source_and_the_file_binds_the_functions():
    text = made("grad", "model", False, wrt=(0, 1)).source
    assert "softplus = rt.load(" in text          # a generated copy: Numba compiles it
    assert "sigmoid = rt.load(" in text           # the template's own helper
    assert "cube = rt.external('examples_custom', 'cube')  # code sha256: " in text
    assert "* sigmoid(" in text and "3.0 *" in text


def test_jvp_uses_the_tangent_rules():
    t = np.array([0.3, -1.0, 0.5])
    for jit in (True, False):
        value, tangent = made("jvp", "model", jit, wrt=1)(X, W, t)
        expected = (ex.model(X, W + 1e-6 * t) - ex.model(X, W - 1e-6 * t)) / 2e-6
        assert_close(tangent, expected)
        assert value == pytest.approx(ex.model(X, W))


def test_second_derivatives_through_a_user_rule():
    v = np.array([1.0, 0.5, -0.5])
    g = s2sad.grad(ex.model, wrt=1, jit=False)
    expected = (g(X, W + 1e-6 * v) - g(X, W - 1e-6 * v)) / 2e-6
    hv = made("hvp", "model", False, wrt=1)(X, W, v)
    assert_close(hv, expected, rtol=1e-6)


def test_a_function_s2sad_cannot_read_is_imported_and_runs_as_python():
    text = made("grad", "unreadable", False).source
    assert "opaque = rt.external('examples_custom', 'opaque')" in text
    assert_close(made("grad", "unreadable", False)(X), finite_difference(ex.unreadable, (X,), 0))


def test_a_third_party_function_runs_as_python_with_one_warning():
    expected = finite_difference(ex.with_erf, (X,), 0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        on = made("grad", "with_erf", True)(X)
    assert any(issubclass(w.category, s2sad.JitFallbackWarning) and "scipy.special.erf" in
               str(w.message) for w in caught)
    off = made("grad", "with_erf", False)(X)
    assert_close(on, expected)
    assert_close(on, off, rtol=SAME)
    assert "rt.external('scipy', 'special.erf')" in made("grad", "with_erf", False).source
    _, tangent = made("jvp", "with_erf", False)(X, np.ones(3))
    assert_close(tangent, np.sum(expected))


def test_a_function_with_an_adjoint_but_no_tangent_rule_says_so_in_forward_mode():
    def lonely(x):
        return x * 2.0

    s2sad.adjoint(lonely)(lambda_template)

    def uses(x):
        return lonely(x) + 1.0

    assert s2sad.grad(uses, jit=False)(0.5) == pytest.approx(2.0)
    with pytest.raises(s2sad.TemplateError, match="no tangent template for lonely"):
        s2sad.jvp(uses, jit=False)(0.5, 1.0)


def lambda_template(z, x):
    d[x] = d[z] * 2.0


def test_a_malformed_tangent_template_is_reported_at_its_line():
    def twice(x):
        return 2.0 * x

    @s2sad.tangent(twice)
    def twice_tangent(z, x):
        d[x] = d[z]  # wrong way round

    def uses(x):
        return twice(x)

    with pytest.raises(s2sad.TemplateError, match="tangent template has one line") as info:
        s2sad.jvp(uses, jit=False)(0.5, 1.0)
    assert "test_custom_rules.py" in str(info.value)
