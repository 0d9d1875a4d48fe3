"""scipy.special's rules (templates/scipy_special.py): every rule at random points of its domain
against central finite differences, JIT on and off, the two agreeing to 1e-12; the compiled
helpers Numba runs in scipy's place against scipy itself; and whole functions using them (a
logistic regression, Poisson and negative-binomial log-likelihoods with gammaln of the data).

The compiled functions are few and shared (each costs a compile): one function calls every
elementwise rule, one every binary rule, one compiles the helpers alone.
"""
import functools
import warnings

import numba
import numpy as np
import pytest
import scipy.special as sp

import s2sad
from gradcheck import SAME, assert_close, check_gradient, finite_difference
from s2sad import d, templates
from s2sad.runtime import dispatch, rt

templates.load_library_rules(everything=True)
RNG = np.random.default_rng(36)


def uniform(low, high, shape=(3,)):
    return RNG.uniform(low, high, shape)


# ---- every rule, through one function per arity -----------------------------------------------

def unary(g0, g1, dg, pg, mg, e0, e1, ei, n0, ln, ln_tail, ni, ex, lo, le, en, b0, b1):
    out = np.sum(sp.gammaln(g0)) + np.sum(sp.gamma(g1)) + np.sum(sp.digamma(dg))
    out += np.sum(sp.psi(dg) * dg) + np.sum(sp.polygamma(2, pg)) + np.sum(sp.multigammaln(mg, 3))
    out += np.sum(sp.erf(e0) * e0) + np.sum(sp.erfc(e1)) + np.sum(sp.erfinv(ei))
    out += np.sum(sp.ndtr(n0)) + np.sum(sp.log_ndtr(ln)) + np.sum(sp.log_ndtr(ln_tail))
    out += np.sum(sp.ndtri(ni)) + np.sum(sp.expit(ex) ** 2) + np.sum(sp.logit(lo))
    out += np.sum(sp.log_expit(le)) + np.sum(sp.entr(en)) + np.sum(sp.i0(b0))
    return out + np.sum(sp.i1(b1) * b1)


UNARY = dict(g0=(0.2, 8.0), g1=(0.3, 4.0), dg=(0.3, 6.0), pg=(0.5, 4.0), mg=(2.5, 6.0),
             e0=(-2.0, 2.0), e1=(-2.0, 2.0), ei=(-0.95, 0.95), n0=(-3.0, 3.0), ln=(-5.0, 5.0),
             ln_tail=(-45.0, -20.0), ni=(0.02, 0.98), ex=(-6.0, 6.0), lo=(0.05, 0.95),
             le=(-6.0, 6.0), en=(0.1, 3.0), b0=(-4.0, 4.0), b1=(-4.0, 4.0))


def binary(a, b, x, y, u, v, p, q, s, t, w):
    out = np.sum(sp.betaln(a, b)) + np.sum(sp.xlogy(x, y)) + np.sum(sp.xlog1py(u, v))
    out += np.sum(sp.rel_entr(p, q)) + np.sum(sp.kl_div(s, t))
    return out + sp.betaln(w, 2.5) + sp.xlogy(w, 1.5)


BINARY = dict(a=((0.5, 5.0), (3,)), b=((0.5, 5.0), (2, 3)), x=((0.2, 3.0), (2, 1)),
              y=((0.2, 3.0), (3,)), u=((-1.0, 1.0), (3,)), v=((-0.5, 2.0), (3,)),
              p=((0.1, 3.0), (4,)), q=((0.1, 3.0), ()), s=((0.1, 3.0), ()),
              t=((0.1, 3.0), (2, 2)), w=((0.5, 3.0), ()))


@functools.lru_cache(maxsize=None)
def gradient(func, jit):
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)  # it must compile
        return s2sad.grad(globals()[func], wrt=tuple(range(len(FUNCTIONS[func]))), jit=jit)


FUNCTIONS = {"unary": UNARY, "binary": BINARY}


def arguments(func):
    if func == "unary":
        return [uniform(low, high) for low, high in UNARY.values()]
    return [uniform(low, high, shape) if shape else float(uniform(low, high, ()))
            for (low, high), shape in BINARY.values()]


@pytest.mark.parametrize("func", ["unary", "binary"])
def test_every_rule_matches_finite_differences_jit_on_and_off(func):
    args = arguments(func)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)
        check_gradient(globals()[func], args, tuple(range(len(args))), gradient(func, True),
                       gradient(func, False))


def test_the_generated_code_calls_the_helpers_in_scipys_place():
    text = gradient("unary", False).source
    assert "sp_gammaln = rt.gammaln  # scipy.special.gammaln, as s2sad's own code" in text
    assert "sp_psi = rt.sp_digamma" in text and "rt.external" not in text
    assert "Runs as Python" not in text


def test_forward_mode_jit_on_and_off():
    args = arguments("binary")
    direction = [np.ones_like(a) if np.ndim(a) else 1.0 for a in args]
    wrt = tuple(range(len(args)))
    on = s2sad.jvp(binary, wrt=wrt, jit=True)(*args, *direction)
    off = s2sad.jvp(binary, wrt=wrt, jit=False)(*args, *direction)
    expected = sum(np.sum(finite_difference(binary, args, k)) for k in wrt)
    assert_close(off[1], expected)
    assert_close(on[1], off[1], rtol=SAME)


def test_second_derivatives_through_the_helpers_rules():
    def f(x):
        return np.sum(sp.i1(x) + sp.multigammaln(x, 2) + sp.gammaln(x))

    x = uniform(1.5, 3.0)
    hessian = s2sad.hessian(f, jit=False)(x)
    g = s2sad.grad(f, jit=False)
    expected = np.diag((g(x + 1e-6) - g(x - 1e-6)) / 2e-6)
    assert_close(hessian, expected)


# ---- the compiled helpers against scipy ---------------------------------------------------------

HELPERS = {
    "gammaln": [uniform(0.01, 50.0, 50), uniform(-5.0, -0.01, 50)],
    "gamma": [uniform(0.05, 20.0, 50), uniform(-4.9, -0.1, 50)],
    "erf": [uniform(-6.0, 6.0, 50)], "erfc": [uniform(-6.0, 26.0, 50)],
    "erfinv": [uniform(-1.0, 1.0, 50), 1.0 - 10.0 ** uniform(-15.0, -1.0, 30),
               -10.0 ** uniform(-300.0, -1.0, 30)],
    "ndtr": [uniform(-20.0, 8.0, 50)], "log_ndtr": [uniform(-60.0, 10.0, 50)],
    "ndtri": [uniform(0.0, 1.0, 50), 10.0 ** uniform(-300.0, -1.0, 30),
              1.0 - 10.0 ** uniform(-15.0, -1.0, 30)],
    "expit": [uniform(-700.0, 700.0, 50)], "logit": [uniform(0.0, 1.0, 50)],
    "log_expit": [uniform(-700.0, 700.0, 50)], "entr": [uniform(0.0, 5.0, 50)],
    "i0": [uniform(-60.0, 60.0, 50), uniform(-700.0, 700.0, 30)],
    "i1": [uniform(-60.0, 60.0, 50), uniform(-700.0, 700.0, 30)],
}
PAIRS = {name: (uniform(0.01, 20.0, (6, 1)), uniform(0.01, 20.0, 5))
         for name in ("betaln", "xlogy", "xlog1py", "rel_entr", "kl_div")}


@numba.njit
def compiled_helpers(x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, a, b, n, v):
    return (rt.gammaln(x0), rt.gamma(x1), rt.erf(x2), rt.erfc(x3), rt.erfinv(x4), rt.ndtr(x5),
            rt.log_ndtr(x6), rt.ndtri(x7), rt.expit(x8), rt.logit(x9), rt.log_expit(x10),
            rt.entr(x11), rt.i0(x12), rt.i1(x13), rt.betaln(a, b), rt.xlogy(a, b),
            rt.xlog1py(a, b), rt.rel_entr(a, b), rt.kl_div(a, b), rt.multigammaln(v, 4),
            rt.sp_polygamma(n, v), rt.gammaln(2.5), rt.i1(-3.0), rt.xlogy(0.0, 0.0))


def test_the_compiled_helpers_agree_with_scipy():
    dispatch.install()
    inputs = [np.concatenate(HELPERS[name]) for name in HELPERS]
    a, b = PAIRS["betaln"]
    a[0, 0] = 0.0
    v = uniform(2.0, 9.0, 20)
    out = compiled_helpers(*inputs, a, b, 2, v)
    expected = [getattr(sp, name)(x) for name, x in zip(HELPERS, inputs)]
    expected += [getattr(sp, name)(a, b) for name in PAIRS]
    expected += [sp.multigammaln(v, 4), sp.polygamma(2, v), sp.gammaln(2.5), sp.i1(-3.0), 0.0]
    for name, got, want in zip([*HELPERS, *PAIRS, "multigammaln", "polygamma", "scalar gammaln",
                                "scalar i1", "xlogy(0, 0)"], out, expected):
        got, want = np.asarray(got), np.asarray(want)
        assert got.shape == want.shape, name
        np.testing.assert_array_equal(np.isfinite(got), np.isfinite(want), err_msg=name)
        finite = np.isfinite(want) & (np.abs(want) > 1e-300)   # subnormals: no digits to match
        assert_close(got[finite], want[finite], rtol=1e-12, what=name)


# ---- whole functions ------------------------------------------------------------------------

def logistic_loss(w, X, y):
    """Negative log-likelihood of a logistic regression, labels y in {0, 1}."""
    z = X @ w
    return -np.sum(y * sp.log_expit(z) + (1.0 - y) * sp.log_expit(-z)) + \
        0.1 * np.sum(sp.expit(z) ** 2)


def poisson_nll(log_rate, k):
    """Poisson negative log-likelihood: gammaln of the data (counts) is a constant."""
    rate = np.exp(log_rate)
    return np.sum(rate - sp.xlogy(k, rate) + sp.gammaln(k + 1.0))


def negative_binomial_nll(r, p, k):
    """Negative-binomial negative log-likelihood in (r, p): gammaln of the data and of r."""
    return -np.sum(sp.gammaln(k + r) - sp.gammaln(k + 1.0) - sp.gammaln(r)
                   + r * np.log(p) + sp.xlog1py(k, -p))


def test_logistic_regression():
    X, y = RNG.normal(size=(20, 3)), (RNG.uniform(size=20) > 0.5).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)
        check_gradient(logistic_loss, (RNG.normal(size=3), X, y), 0)


def test_poisson_and_negative_binomial_likelihoods():
    k = RNG.poisson(3.0, size=12).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)
        check_gradient(poisson_nll, (RNG.normal(size=12), k), 0)
        check_gradient(negative_binomial_nll, (2.5, 0.4, k), (0, 1))


def test_a_user_rule_for_a_scipy_function_replaces_the_built_in_one():
    saved = dict(templates.REGISTRY)
    try:
        @s2sad.adjoint(sp.erfc)
        def erfc(z, x):
            d[x] = -d[z] * 2.0 / np.sqrt(np.pi) * np.exp(-x * x)

        def f(x):
            return np.sum(sp.erfc(x))

        text = s2sad.grad(f, jit=False).source
        assert "sp_erfc = rt.external('scipy.special', 'erfc')" in text   # scipy's, as Python
    finally:
        templates.REGISTRY.clear()
        templates.REGISTRY.update(saved)
        templates.registry.CHANGES[0] += 1


# ---- logsumexp, softmax, log_softmax ------------------------------------------------------------

def softmax_cross_entropy(W, X, labels, weights):
    """Mean cross-entropy of a linear classifier, with logsumexp over classes, plus the other
    spellings (softmax, log_softmax, weights b=, keepdims, axis None) in a regulariser."""
    logits = X @ W
    picked = np.sum(logits * labels, axis=1)
    loss = np.mean(sp.logsumexp(logits, axis=1) - picked)
    loss += 0.1 * np.sum(sp.softmax(logits, axis=-1) * sp.log_softmax(logits, axis=1) * labels)
    loss += 0.01 * sp.logsumexp(W) + 0.01 * np.sum(sp.logsumexp(logits, 0, b=weights,
                                                                  keepdims=True))
    return loss + 0.01 * np.sum(sp.log_softmax(W) * sp.softmax(W))


def test_softmax_cross_entropy_with_logsumexp():
    X = RNG.normal(size=(6, 4))
    labels = np.eye(3)[RNG.integers(0, 3, 6)]
    args = (RNG.normal(size=(4, 3)), X, labels, uniform(0.5, 2.0, (6, 1)))
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)
        check_gradient(softmax_cross_entropy, args, (0, 3))
    assert "sp_logsumexp = rt.logsumexp" in s2sad.grad(softmax_cross_entropy, jit=False).source


def test_logsumexp_over_a_tuple_of_axes_runs_as_python():
    def f(x):
        return np.sum(sp.logsumexp(x, axis=(0, 2)))

    x = RNG.normal(size=(2, 3, 4))
    with pytest.warns(s2sad.JitFallbackWarning):
        got = s2sad.grad(f)(x)
    assert_close(got, finite_difference(f, (x,), 0))
