"""Forward mode (jvp), vector-Jacobian products, Jacobians and second derivatives, against
central finite differences, JIT on and off (and the two runs against each other)."""
import functools

import numpy as np
import pytest

import examples_modes as ex
import s2sad
from gradcheck import SAME, assert_close, finite_difference

RNG = np.random.default_rng(7)
X3 = RNG.uniform(0.2, 0.8, 3)
W3 = RNG.uniform(0.5, 1.5, 3)
EPS = 1e-6


@functools.lru_cache(maxsize=None)
def made(kind, func, jit, **options):
    """One transformed function per (kind, function, jit, options), shared by the tests."""
    return getattr(s2sad, kind)(getattr(ex, func), jit=jit, **options)


def both(kind, func, *args, **options):
    """Call the JIT and Python versions; check they agree; return the JIT result."""
    options = dict(sorted(options.items()))
    if "wrt" in options and isinstance(options["wrt"], list):
        options["wrt"] = tuple(options["wrt"])
    on = made(kind, func, True, **options)(*args)
    off = made(kind, func, False, **options)(*args)
    _same(on, off, f"{kind}({func}) JIT vs Python")
    return on


def _same(a, b, what):
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b), what
        for x, y in zip(a, b):
            _same(x, y, what)
        return
    assert type(a) is type(b) or (np.ndim(a) == 0 and np.ndim(b) == 0), what
    assert_close(a, b, rtol=SAME, what=what)


def directional_fd(f, args, positions, tangents, eps=EPS):
    """(f(args + eps t) - f(args - eps t)) / 2 eps, element by element for tuple outputs."""
    def shifted(sign):
        moved = list(args)
        for p, t in zip(positions, tangents):
            moved[p] = moved[p] + sign * eps * t
        return f(*moved)
    plus, minus = shifted(1.0), shifted(-1.0)
    if isinstance(plus, tuple):
        return tuple((np.asarray(a) - np.asarray(b)) / (2 * eps) for a, b in zip(plus, minus))
    return (np.asarray(plus) - np.asarray(minus)) / (2 * eps)


# ---- forward mode --------------------------------------------------------------------------

@pytest.mark.parametrize("tangents", [(1.0, 0.0), (0.0, 1.0), (0.3, -0.7)])
def test_jvp_through_loops_branches_writes_and_calls(tangents):
    value, tangent = both("jvp", "loop", 0.3, 0.7, 5, *tangents, wrt=(0, 1))
    assert value == pytest.approx(ex.loop(0.3, 0.7, 5), rel=1e-12)
    expected = directional_fd(ex.loop, (0.3, 0.7, 5), (0, 1), tangents)
    assert_close(tangent, expected, what="jvp of loop")
    assert isinstance(tangent, float)


def test_jvp_through_while_break_and_continue():
    for limit in (1.5, 100.0):
        value, tangent = both("jvp", "early_exit", 0.9, limit, 1.0)
        assert value == pytest.approx(ex.early_exit(0.9, limit), rel=1e-12)
        assert_close(tangent, finite_difference(ex.early_exit, (0.9, limit), 0))


def test_jvp_of_a_function_writing_into_its_argument_leaves_the_inputs_alone():
    a, da = np.array([0.5, -0.2, 0.8]), np.array([1.0, 2.0, -1.0])
    a0, da0 = a.copy(), da.copy()
    value, tangent = both("jvp", "mutate", a, 0.7, da, 0.5, wrt=(0, 1))
    assert np.array_equal(a, a0) and np.array_equal(da, da0)
    expected = directional_fd(lambda a, b: ex.mutate(a.copy(), b), (a0, 0.7), (0, 1),
                              (da0, 0.5))
    assert_close(tangent, expected)
    assert value == pytest.approx(ex.mutate(a0.copy(), 0.7))


def test_jvp_of_array_and_tuple_outputs():
    t = RNG.normal(size=3)
    value, tangent = both("jvp", "field", X3, W3, t)
    assert_close(value, ex.field(X3, W3), rtol=1e-12)
    assert_close(tangent, directional_fd(ex.field, (X3, W3), (0,), (t,)))
    (y, s), (dy, ds) = both("jvp", "pair", X3, W3, t, wrt=1)
    expected = directional_fd(ex.pair, (X3, W3), (1,), (t,))
    assert_close(dy, expected[0])
    assert_close(ds, expected[1])
    assert isinstance(ds, float) and dy.shape == (3,)


def test_jvp_through_a_callee_returning_a_tuple():
    t = RNG.normal(size=3)
    _, tangent = both("jvp", "uses_pair", X3, W3, t)
    assert_close(tangent, directional_fd(ex.uses_pair, (X3, W3), (0,), (t,)))


def test_jvp_with_linear_algebra():
    a, b = RNG.normal(size=(3, 4)), RNG.normal(size=(4, 2))
    ta, tb = RNG.normal(size=(3, 4)), RNG.normal(size=(4, 2))
    _, tangent = both("jvp", "matrix", a, b, ta, tb, wrt=(0, 1))
    assert_close(tangent, directional_fd(ex.matrix, (a, b), (0, 1), (ta, tb)))


def test_the_tangent_code_is_readable():
    text = made("jvp", "loop", False, wrt=(0, 1)).source
    assert "def jvp_loop(x, w, n, dx, dw):" in text
    assert "for i in range(n):" in text and "if x > 0.5:" in text
    assert "dy[_t" in text                        # the in-place write, mirrored
    assert "squash_value = numpy.tanh(" in text   # the small callee, inlined
    assert "jvp_squash" not in text
    assert "# x = np.sin(x) * w + 1.0   [examples_modes.py:" in text
    assert "_stack" not in text                   # nothing saved in forward mode


def test_jvp_checks_its_tangents():
    f = made("jvp", "field", False)
    with pytest.raises(s2sad.ArgumentError, match="shape"):
        f(X3, W3, np.ones(4))
    with pytest.raises(s2sad.ArgumentError, match="tangent"):
        f()


# ---- vjp and jacobian ------------------------------------------------------------------------

def test_vjp_of_an_array_output_is_the_transposed_jacobian_times_the_cotangent():
    u = RNG.normal(size=3)
    dx, dw = both("vjp", "field", X3, W3, u, wrt=(0, 1))
    for position, grad in ((0, dx), (1, dw)):
        expected = finite_difference(lambda x, w: float(np.dot(u, ex.field(x, w))), (X3, W3),
                                     position)
        assert_close(grad, expected)


def test_vjp_of_a_tuple_output_takes_a_tuple_cotangent():
    u, c = RNG.normal(size=3), 0.7
    dw = both("vjp", "pair", X3, W3, (u, c), wrt=1)
    expected = finite_difference(
        lambda x, w: float(np.dot(u, ex.pair(x, w)[0]) + c * ex.pair(x, w)[1]), (X3, W3), 1)
    assert_close(dw, expected)


def test_vjp_checks_the_cotangent_against_the_output():
    with pytest.raises(s2sad.ArgumentError, match="shape"):
        made("vjp", "field", False)(X3, W3, np.ones(2))
    with pytest.raises(s2sad.ArgumentError, match="structure"):
        made("vjp", "pair", False, wrt=1)(X3, W3, np.ones(3))


@pytest.mark.parametrize("mode", ["forward", "reverse", None])
def test_jacobian_forward_and_reverse_agree_with_finite_differences(mode):
    jx, jw = both("jacobian", "field", X3, W3, wrt=(0, 1), mode=mode)
    for position, block in ((0, jx), (1, jw)):
        columns = [directional_fd(ex.field, (X3, W3), (position,), (e,)) for e in np.eye(3)]
        assert_close(block, np.stack(columns, axis=-1), what=f"jacobian ({mode})")
        assert block.shape == (3, 3)


def test_jacobian_of_a_tuple_output_has_one_block_per_output():
    (jy, js) = both("jacobian", "pair", X3, W3, mode="reverse")
    assert jy.shape == (3, 3) and js.shape == (3,)
    assert_close(js, finite_difference(lambda x, w: ex.pair(x, w)[1], (X3, W3), 0))


# ---- second order ------------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def second(jit, wrt):
    return s2sad.grad(s2sad.grad(ex.quartic), wrt=wrt, jit=jit)


@pytest.mark.parametrize("wrt", [0, 1])
def test_grad_of_grad_through_a_user_function(wrt):
    d1 = s2sad.grad(ex.quartic, jit=False)
    on, off = second(True, wrt)(0.3, 0.7), second(False, wrt)(0.3, 0.7)
    assert_close(on, off, rtol=SAME)
    expected = finite_difference(lambda x, w: d1(x, w), (0.3, 0.7), wrt, eps=1e-5)
    assert_close(on, expected, rtol=1e-6)
    assert isinstance(on, float)


def test_third_derivative():
    third = s2sad.grad(second(False, 0), jit=False)
    expected = finite_difference(lambda x, w: second(False, 0)(x, w), (0.3, 0.7), 0, eps=1e-5)
    assert_close(third(0.3, 0.7), expected, rtol=1e-6)


def test_grad_of_grad_needs_a_scalar_parameter():
    with pytest.raises(s2sad.OutputError, match="hessian"):
        s2sad.grad(s2sad.grad(ex.energy), jit=False)(X3, W3)


def test_hvp_and_hessian_against_finite_differences_of_the_gradient():
    g = s2sad.grad(ex.energy, wrt=(0, 1), jit=False)
    v = RNG.normal(size=3)
    hv = both("hvp", "energy", X3, W3, v)
    expected = (g(X3 + EPS * v, W3)[0] - g(X3 - EPS * v, W3)[0]) / (2 * EPS)
    assert_close(hv, expected, rtol=1e-6)
    H = both("hessian", "energy", X3, W3)
    assert H.shape == (3, 3)
    assert_close(H @ v, hv, rtol=1e-10)
    assert_close(H, H.T, rtol=1e-10)
    blocks = both("hessian", "energy", X3, W3, wrt=(0, 1))
    cross = np.stack([(g(X3, W3 + EPS * e)[0] - g(X3, W3 - EPS * e)[0]) / (2 * EPS)
                      for e in np.eye(3)], axis=-1)
    assert_close(blocks[0][1], cross, rtol=1e-6)
    assert_close(blocks[0][0], H, rtol=1e-12)
    assert_close(blocks[1][0], cross.T, rtol=1e-6)


def test_hessian_of_a_scalar_function_is_a_float():
    h = both("hessian", "quartic", 0.3, 0.7)
    assert isinstance(h, float)
    d1 = s2sad.grad(ex.quartic, jit=False)
    assert_close(h, finite_difference(lambda x, w: d1(x, w), (0.3, 0.7), 0, eps=1e-5))
