"""Second order on containers (issue 35, item 7): `hvp`, `hessian`, `jacobian` and
`grad(grad(f))` of functions of dicts, lists, NamedTuples and dataclasses. Vectors and results
have the argument's structure; a Hessian nests as JAX nests it (H[i][j]: argument i's structure,
each of its leaves holding argument j's structure of blocks a.shape + b.shape). Every number is
checked against central finite differences of the (first-order) gradient, with the JIT on and
off agreeing to 1e-12."""
import dataclasses
import functools
import math
from typing import NamedTuple

import numpy as np
import pytest

import s2sad
from gradcheck import SAME, assert_close, finite_difference, tree_get, tree_leaves, tree_with, \
    same_structure

EPS = 1e-6
RNG = np.random.default_rng(35)
P = {"W": RNG.normal(size=(2, 3)) * 0.5, "b": RNG.normal(size=2), "c": 0.7}
X = RNG.normal(size=3)


def loss(p, x):
    return np.sum(np.tanh(p["W"] @ x + p["b"]) ** 2) * p["c"] + p["c"] ** 3


def layer(p, x):
    return np.tanh(p["W"] @ x + p["b"]) * p["c"]


class Pair(NamedTuple):
    a: np.ndarray
    s: float


@dataclasses.dataclass
class Model:
    w: np.ndarray
    scale: float
    name: str = "m"


def records(q, m, xs):
    return np.sum(np.sin(q.a * m.w) * xs[0]) * q.s + m.scale * q.s ** 2 + np.sum(xs[1] * m.w)


def cubic(x, d):
    return d["a"] * x ** 3 + d["b"] * np.sin(x * d["k"][0])


@functools.lru_cache(maxsize=None)
def made(kind, func, jit, **options):
    """One function per (kind, function, jit, options), shared by the tests; "grad(cubic)"
    stands for s2sad.grad(cubic)."""
    target = s2sad.grad(cubic) if func == "grad(cubic)" else globals()[func]
    return getattr(s2sad, kind)(target, jit=jit, **options)


def both(kind, func, *args, **options):
    """The JIT and Python results, which must agree to 1e-12; the JIT one."""
    on = made(kind, func, True, **options)(*args)
    off = made(kind, func, False, **options)(*args)
    assert same_structure(on, off)
    for (path, a), (_, b) in zip(tree_leaves(on), tree_leaves(off)):
        assert_close(a, b, rtol=SAME, what=f"{kind}({func}){list(path)} JIT vs Python")
    return on


def scaled(tree, v, t):
    """tree + t * v, leaf by leaf (v shaped like tree)."""
    out = tree
    for path, leaf in tree_leaves(tree):
        out = tree_with(out, path, leaf + t * tree_get(v, path))
    return out


def directional_fd(gradient, args, position, v):
    """Central finite differences of `gradient` (a tree) along v at args[position]."""
    def at(t):
        moved = list(args)
        moved[position] = scaled(args[position], v, t)
        return gradient(*moved)
    plus, minus = at(EPS), at(-EPS)
    return {path: (tree_get(plus, path) - tree_get(minus, path)) / (2 * EPS)
            for path, _ in tree_leaves(plus)}


def unit(tree, where, index):
    """A tree of zeros shaped like `tree`, with 1.0 at leaf `where`, element `index`."""
    out = tree
    for path, leaf in tree_leaves(tree):
        e = 0.0 if np.ndim(leaf) == 0 else np.zeros(np.shape(leaf))
        if path == where:
            if np.ndim(leaf) == 0:
                e = 1.0
            else:
                e[index] = 1.0
        out = tree_with(out, path, e)
    return out


def test_hvp_of_a_dict_has_its_structure_and_matches_finite_differences():
    v = {"W": RNG.normal(size=(2, 3)), "b": RNG.normal(size=2), "c": 0.3}
    hv = both("hvp", "loss", P, X, v)
    assert same_structure(hv, P) and isinstance(hv["c"], float)
    expected = directional_fd(s2sad.grad(loss, jit=False), (P, X), 0, v)
    for path, leaf in tree_leaves(hv):
        assert_close(leaf, expected[path], what=f"H v {list(path)}")


def test_hvp_with_the_container_as_data_and_an_array_differentiated():
    hv = both("hvp", "loss", P, X, np.ones(3), wrt=1)
    g = s2sad.grad(loss, wrt=1, jit=False)
    assert_close(hv, (g(P, X + EPS) - g(P, X - EPS)) / (2 * EPS), what="H v, x")


def test_hessian_of_a_dict_nests_blocks_by_leaf_paths():
    H = both("hessian", "loss", P, X)
    assert list(H) == ["W", "b", "c"] and all(list(H[k]) == ["W", "b", "c"] for k in H)
    assert H["W"]["b"].shape == (2, 3, 2) and H["b"]["W"].shape == (2, 2, 3)
    assert H["W"]["c"].shape == (2, 3) and H["c"]["W"].shape == (2, 3)
    assert isinstance(H["c"]["c"], float)
    assert_close(H["W"]["b"], np.moveaxis(H["b"]["W"], 0, -1), rtol=1e-10, what="symmetry")
    g = s2sad.grad(loss, jit=False)
    for where, index in [(("W",), (1, 2)), (("b",), (0,)), (("c",), ())]:
        column = directional_fd(g, (P, X), 0, unit(P, where, index))
        for (row,), block in [((k,), H[k][where[0]]) for k in H]:
            got = block[(Ellipsis,) + index] if index else block
            assert_close(got, column[(row,)], what=f"H[{row}][{where[0]}]{index}")
    v = {"W": RNG.normal(size=(2, 3)), "b": RNG.normal(size=2), "c": -0.4}
    hv = both("hvp", "loss", P, X, v)
    for k in H:  # H contracted with v is H v
        total = sum(np.tensordot(H[k][j], v[j], axes=np.ndim(v[j])) for j in v)
        assert_close(total, hv[k], rtol=1e-10, what=f"(H v)[{k}]")


def test_hessian_wrt_a_dict_and_an_array_gives_tuples_of_nested_blocks():
    H = both("hessian", "loss", P, X, wrt=(0, 1))
    assert H[0][1]["W"].shape == (2, 3, 3) and H[0][1]["c"].shape == (3,)
    assert H[1][0]["W"].shape == (3, 2, 3) and H[1][1].shape == (3, 3)
    gp = s2sad.grad(loss, wrt=0, jit=False)
    cross = [directional_fd(gp, (P, X), 1, e) for e in np.eye(3)]
    for k in ("W", "b", "c"):
        expected = np.stack([c[(k,)] for c in cross], axis=-1)
        assert_close(H[0][1][k], expected, what=f"H[0][1][{k}]")
        assert_close(np.moveaxis(H[1][0][k], 0, -1), expected, what=f"H[1][0][{k}]")
    assert_close(H[0][0]["W"]["b"], made("hessian", "loss", True)(P, X)["W"]["b"], rtol=1e-12)


def test_hvp_and_hessian_of_a_namedtuple_a_dataclass_and_a_list():
    q, m = Pair(RNG.normal(size=2), 0.8), Model(RNG.normal(size=2), 1.3)
    xs = [RNG.normal(size=2), RNG.normal(size=2)]
    vq, vm = Pair(RNG.normal(size=2), 0.5), Model(RNG.normal(size=2), -0.2)
    hq, hm = both("hvp", "records", q, m, xs, vq, vm, wrt=(0, 1))
    assert type(hq) is Pair and type(hm) is Model and hm.name == "m"
    gq = s2sad.grad(records, wrt=(0, 1), jit=False)
    plus = gq(scaled(q, vq, EPS), scaled(m, vm, EPS), xs)
    minus = gq(scaled(q, vq, -EPS), scaled(m, vm, -EPS), xs)
    for got, p, n in zip((hq, hm), plus, minus):
        for path, leaf in tree_leaves(got):
            assert_close(leaf, (tree_get(p, path) - tree_get(n, path)) / (2 * EPS),
                         what=f"H v {list(path)}")
    H = both("hessian", "records", q, m, xs, wrt=(0, 1))
    assert type(H[0][1]) is Pair and type(H[0][1].a) is Model
    assert H[0][1].a.w.shape == (2, 2) and isinstance(H[0][1].s.scale, float)
    along_s = directional_fd(lambda qq: gq(qq, m, xs)[1], (q,), 0, unit(q, (1,), ()))
    assert_close(H[0][1].s.w, along_s[("w",)], what="d2/dq.s dm.w")
    assert_close(H[0][1].s.scale, along_s[("scale",)], what="d2/dq.s dm.scale")


def test_jacobian_of_a_dict_argument_has_the_output_shape_first():
    J = both("jacobian", "layer", P, X)
    assert J["W"].shape == (2, 2, 3) and J["b"].shape == (2, 2) and J["c"].shape == (2,)
    for path, leaf in tree_leaves(P):
        for index in np.ndindex(np.shape(leaf)):
            e = unit(P, path, index)
            fd = (layer(scaled(P, e, EPS), X) - layer(scaled(P, e, -EPS), X)) / (2 * EPS)
            assert_close(tree_get(J, path)[(Ellipsis,) + index], fd,
                         what=f"J{list(path)}{index}")
    Jr = made("jacobian", "layer", False, mode="reverse")(P, X)
    for path, leaf in tree_leaves(J):
        assert_close(tree_get(Jr, path), leaf, rtol=1e-12, what=f"reverse J{list(path)}")


D = {"a": 2.0, "b": 1.5, "k": [0.7]}


def test_grad_of_grad_with_a_dict_of_data():
    d2 = both("grad", "grad(cubic)", 0.3, D)
    d1 = s2sad.grad(cubic, jit=False)
    assert_close(d2, finite_difference(d1, (0.3, D), 0), what="d2/dx2")


def test_grad_of_grad_wrt_the_dict_gives_the_mixed_derivatives_in_its_structure():
    mixed = both("grad", "grad(cubic)", 0.3, D, wrt=1)
    assert same_structure(mixed, D) and isinstance(mixed["k"][0], float)
    d1 = s2sad.grad(cubic, jit=False)
    for path, leaf in tree_leaves(D):
        expected = finite_difference(lambda v: d1(0.3, tree_with(D, path, v)), [leaf], 0)
        assert_close(tree_get(mixed, path), expected, what=f"d2/dx d{list(path)}")


def test_grad_of_grad_wrt_a_container_says_what_to_use():
    with pytest.raises(s2sad.OutputError, match="container.*hessian|hessian.*container"):
        s2sad.grad(s2sad.grad(cubic, wrt=1), jit=False)(0.3, D)


def quartic(x):
    return x ** 4


d_quartic = s2sad.grad(quartic, jit=False)


def newton_step(x):
    return x - d_quartic(x) / 12.0


def test_a_grad_called_inside_a_differentiated_function_is_differentiated():
    # d/dx (x - 4 x^3 / 12) = 1 - x^2
    assert abs(s2sad.grad(newton_step, jit=False)(0.3) - (1.0 - 0.09)) < 1e-12


def newton_inline(a):
    """grad made inside the function: inline, through a local name, of a lambda."""
    y = 1.0
    for _ in range(4):
        y = y - (y ** 3 + a * y - 2.0) / s2sad.grad(_cubic_in_y)(y, a)
    return y


def _cubic_in_y(y, a):
    return y ** 3 + a * y - 2.0


def newton_through_names(a):
    dg = s2sad.grad(_cubic_in_y, wrt=0)
    d2g = s2sad.grad(dg)
    y = 1.0
    for _ in range(3):
        y = y - dg(y, a) / d2g(y, a)
    return y * a + s2sad.grad(lambda t: math.sin(t) * t)(a)


_wavy = lambda x: x ** 4 - 3.0 * x ** 2 + x  # noqa: E731 -- lambdas, as users write them
_newton_of_lambdas = lambda x: x - s2sad.grad(_wavy)(x) / s2sad.grad(s2sad.grad(_wavy))(x)  # noqa: E731,E501


@pytest.mark.parametrize("jit", [False, True])
def test_grad_made_inside_a_differentiated_function(jit):
    for f in (newton_inline, newton_through_names, _newton_of_lambdas):
        got = s2sad.grad(f, jit=jit)(0.7)
        expected = (f(0.7 + 1e-6) - f(0.7 - 1e-6)) / 2e-6
        assert abs(got - expected) < 1e-6 * max(1.0, abs(expected)), (f.__name__, got, expected)
        assert abs(got - s2sad.grad(f, jit=not jit)(0.7)) < 1e-12


d_hessian = s2sad.hessian(quartic, jit=False)


def hessian_inside(x):
    return x - d_hessian(x)


def test_a_hessian_called_inside_a_differentiated_function_says_what_to_do_instead():
    with pytest.raises(s2sad.UnsupportedError, match="made by s2sad") as info:
        s2sad.grad(hessian_inside, jit=False)(0.3)
    assert "s2sad.hessian(f)" in str(info.value) and "pass it in" in str(info.value)
