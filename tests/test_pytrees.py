"""Containers as arguments (pytrees): results keep the argument's structure and type, in every
API; leaves are parameters named after their path; the structure is part of the
specialisation key; bad containers get located errors. The gradients themselves are checked
against finite differences in corpus_language.py (test_corpus.py)."""
import collections
import dataclasses
import warnings
from typing import NamedTuple

import numpy as np
import pytest

import s2sad
from gradcheck import check_gradient


class Point(NamedTuple):
    x: float
    y: np.ndarray


@dataclasses.dataclass(frozen=True)
class Params:
    w: np.ndarray
    b: float
    label: str = dataclasses.field(default="run", compare=False)


def mixed(p, q):
    return np.sum(p["w"] * q.y) * q.x + p["b"][0] ** 2 * p["b"][1]


def with_dataclass(params, x):
    return np.sum(np.tanh(params.w @ x + params.b))


def _mixed_args(rng):
    return ({"w": rng.normal(size=3), "b": [rng.normal(), rng.normal()]},
            Point(rng.normal(), rng.normal(size=3)))


def test_gradients_keep_structure_and_type_and_match_finite_differences():
    rng = np.random.default_rng(0)
    args = _mixed_args(rng)
    dp, dq = check_gradient(mixed, args, (0, 1))
    assert type(dp) is dict and list(dp) == ["w", "b"] and type(dp["b"]) is list
    assert type(dq) is Point and type(dq.x) is float and dq.y.shape == (3,)


def test_a_dataclass_gradient_is_a_copy_of_the_instance():
    rng = np.random.default_rng(1)
    params = Params(rng.normal(size=(2, 3)), 0.3, label="kept")
    x = rng.normal(size=3)
    for jit in (True, False):
        g = s2sad.grad(with_dataclass, jit=jit)(params, x)
        assert type(g) is Params and g.label == "kept" and g is not params
        assert g.w.shape == (2, 3) and type(g.b) is float
        assert params.b == 0.3  # the argument is untouched
    check_gradient(with_dataclass, (params, x), (0, 1))


def test_ordered_dict_and_tuple_come_back_as_given():
    def f(d, t):
        return d["a"] * t[0] + d["b"] * t[1] ** 2

    d = collections.OrderedDict(a=1.5, b=-0.5)
    gd, gt = s2sad.grad(f, wrt=("d", "t"))(d, (2.0, 3.0))
    assert type(gd) is collections.OrderedDict and gd == {"a": 2.0, "b": 9.0}
    assert type(gt) is tuple and gt == (1.5, -3.0)


def test_value_and_grad_vjp_jvp_and_jacobian_take_containers():
    def f(p, x):
        return np.tanh(p["W"] @ x) * p["s"]

    rng = np.random.default_rng(2)
    p, x = {"W": rng.normal(size=(2, 3)), "s": 1.5}, rng.normal(size=3)
    forward = s2sad.jacobian(f, mode="forward")(p, x)
    reverse = s2sad.jacobian(f, mode="reverse")(p, x)
    assert set(forward) == {"W", "s"} and forward["W"].shape == (2, 2, 3)
    assert forward["s"].shape == (2,)
    for key in forward:
        np.testing.assert_allclose(forward[key], reverse[key], rtol=1e-12)
    value, tangent = s2sad.jvp(f)(p, x, {"W": np.ones((2, 3)), "s": 1.0})
    np.testing.assert_allclose(value, f(p, x), rtol=1e-15)
    np.testing.assert_allclose(tangent, forward["W"].sum(axis=(1, 2)) + forward["s"],
                               rtol=1e-12)
    grads = s2sad.vjp(f, wrt="p")(p, x, np.array([1.0, -2.0]))
    np.testing.assert_allclose(grads["W"], forward["W"][0] - 2.0 * forward["W"][1], rtol=1e-12)

    def loss(p, x):
        return np.sum(f(p, x))

    value, g = s2sad.value_and_grad(loss, wrt="p")(p, x)
    assert value == pytest.approx(loss(p, x), rel=1e-14)
    np.testing.assert_allclose(g["W"], forward["W"].sum(axis=0), rtol=1e-12)


def test_leaves_are_parameters_named_after_their_path():
    def f(params, layers, x):
        params_W1 = params["W1"] @ x  # a local with a leaf's name: the leaf takes another
        return np.sum(params_W1) + layers[0].y[0] * layers[1].x

    rng = np.random.default_rng(3)
    df = s2sad.grad(f, wrt=(0, 1), jit=False)
    with warnings.catch_warnings(record=True) as caught:  # leaves it does not use
        warnings.simplefilter("always", s2sad.ZeroGradientWarning)
        df({"W1": rng.normal(size=(2, 2))}, [Point(1.0, np.ones(2)), Point(2.0, np.ones(2))],
           np.ones(2))
    unused = sorted(str(w.message).split("'")[1] for w in caught)
    assert unused == ["layers[0].x", "layers[1].y"]
    assert "defdf(params_W1_,layers_0_x,layers_0_y,layers_1_x,layers_1_y,x,d_result)" in \
        "".join(df.source.split())


def test_a_function_of_yours_given_a_container_is_specialised_on_it():
    def predict(params, x):
        if x.shape[0] == 0:     # an early return: not small, a call of its own
            return x
        out = x
        for w in params:
            out = np.sin(w * out)
        return out

    def loss(params, x):
        return np.sum(predict(params, x)) + np.sum(predict(params, 2.0 * x))

    rng = np.random.default_rng(4)
    args = ([rng.normal(size=3), rng.normal(size=3)], rng.normal(size=3))
    check_gradient(loss, args, (0, 1))
    df = s2sad.grad(loss, wrt=(0, 1), jit=False)
    df(*args)
    text = df.source
    assert "predict(params_0, params_1, x)" in text
    assert "dpredict(params_0, params_1, " in text


def test_another_structure_transforms_again():
    def f(p):
        return p["a"] * 2.0 + p["b"] * 3.0

    df = s2sad.grad(f)
    assert df({"a": 1.0, "b": 1.0}) == {"a": 2.0, "b": 3.0}
    assert df({"b": 1.0, "a": 1.0}) == {"b": 3.0, "a": 2.0}  # same leaf types, other order
    assert list(df({"b": 1.0, "a": 1.0})) == ["b", "a"]

    def g(ws):
        return sum(w * w for w in ws)

    dg = s2sad.grad(g)
    assert dg([1.0, 2.0]) == [2.0, 4.0]
    assert dg([1.0, 2.0, 3.0]) == [2.0, 4.0, 6.0]


def test_a_shape_tuple_that_is_not_differentiated_is_passed_as_it_is():
    def f(x, shape):
        return np.sum(np.reshape(x, shape)[0] ** 2)

    for jit in (True, False):
        g = s2sad.grad(f, jit=jit)(np.arange(6.0), (2, 3))
        np.testing.assert_array_equal(g, [0.0, 2.0, 4.0, 0.0, 0.0, 0.0])


def _error(func, *args, wrt=0, kind=s2sad.S2sadError):
    with pytest.raises(kind) as info:
        s2sad.grad(func, wrt=wrt, jit=False)(*args)
    return str(info.value)


def test_bad_leaves_and_keys_are_reported_at_the_call():
    def f(p):
        return p["a"] * 2.0

    text = _error(f, {"a": {1.0}}, kind=s2sad.ArgumentError)
    assert "argument 'p['a']' is a set" in text and "leave 'p' out of wrt" in text
    text = _error(f, {1: 2.0, "a": 1.0}, kind=s2sad.ArgumentError)
    assert "p has the key 1; dict keys must be strings" in text

    def g(x, config):
        return x * config["rate"]

    text = _error(g, 1.0, {"rate": print}, kind=s2sad.ArgumentError)
    assert "config['rate'] is a builtin_function_or_method" in text


def test_str_none_and_bool_leaves_are_constants_of_the_generated_code():
    def f(x, config):
        y = x * config["rate"]
        if config["mode"] == "square":
            y = y * y
        if config["shift"]:
            y = y + 1.0
        return y

    for jit in (True, False):
        df = s2sad.grad(f, jit=jit)
        assert df(3.0, {"rate": 2.0, "mode": "square", "shift": True}) == 24.0
        assert df(3.0, {"rate": 2.0, "mode": "plain", "shift": None}) == 2.0
    assert "def df(x, config_rate, d_result):" in df.source  # the others are constants


def test_misuse_inside_the_function_is_a_located_error():
    def whole(p, x):
        return np.sum(p * x)

    text = _error(whole, {"a": 1.0}, np.ones(2), kind=s2sad.UnsupportedError)
    assert "'p' is a dict argument, used here as a value" in text and "numpy.asarray" in text

    def missing(p):
        return p["b"]

    text = _error(missing, {"a": 1.0}, kind=s2sad.UnsupportedError)
    assert "the key 'b' is not in the dict (it has 'a')" in text

    def field(q):
        return q.z

    text = _error(field, Point(1.0, np.ones(2)), kind=s2sad.UnsupportedError)
    assert "'z' is not a field of this NamedTuple (it has x, y)" in text
    assert text.count("error:") == 1

    def attribute_of_array(x):
        return np.sum(x.imag)

    text = _error(attribute_of_array, np.ones(2), kind=s2sad.UnsupportedError)
    assert "the array attribute `.imag` is not supported" in text


def test_a_tangent_must_have_the_structure_of_its_argument():
    def f(p):
        return p["a"] * p["b"]

    with pytest.raises(s2sad.ArgumentError) as info:
        s2sad.jvp(f, jit=False)({"a": 1.0, "b": 2.0}, {"a": 1.0})
    assert "has keys ['a'] where the argument has ['a', 'b']" in str(info.value)


def test_second_derivatives_of_containers_nest_like_the_argument():
    def f(p):
        return p["a"] ** 3 * p["b"]

    assert s2sad.hessian(f, jit=False)({"a": 1.0, "b": 2.0}) == \
        {"a": {"a": 12.0, "b": 3.0}, "b": {"a": 3.0, "b": 0.0}}
    assert s2sad.hvp(f, jit=False)({"a": 1.0, "b": 2.0}, {"a": 1.0, "b": 0.0}) == \
        {"a": 12.0, "b": 3.0}
    with pytest.raises(s2sad.ArgumentError, match="has keys"):
        s2sad.hvp(f, jit=False)({"a": 1.0, "b": 2.0}, {"a": 1.0})


def test_code_for_a_dict_argument_is_generated_at_the_first_call():
    def f(p):
        return p["a"] * 2.0

    df = s2sad.grad(f, jit=False)
    with pytest.raises(s2sad.UnsupportedError, match="'p' is indexed by a string, but it holds "
                                                     "no dict s2sad knows of here"):
        df.source
    assert df({"a": 1.0}) == {"a": 2.0}
    assert "def df(p_a, d_result):" in df.source


def flattened_weights(params, x):
    """An L2 prior over every leaf, as autograd's neural_net.py writes it with its flatten."""
    vector, _ = s2sad.flatten(params)
    return np.sum(np.tanh(params["layers"][0][0] @ x)) + np.dot(vector, vector * np.arange(
        vector.shape[0]))


def test_flatten_orders_leaves_as_autograd_and_unflatten_rebuilds_them():
    params = {"b": [np.arange(2.0), 3.0], "a": Point(1.5, np.ones((2, 2)))}
    vector, unflatten = s2sad.flatten(params)
    # dict keys sorted (as autograd's and JAX's flatten), then lists, tuples and fields in order
    assert vector.tolist() == [1.5, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 3.0]
    back = unflatten(vector * 2)
    assert list(back) == ["b", "a"] and type(back["a"]) is Point
    assert back["a"].y.shape == (2, 2) and back["b"][1] == 6.0 and np.ndim(back["b"][1]) == 0


def test_flatten_in_a_differentiated_function_is_spelt_with_the_leaves():
    rng = np.random.default_rng(3)
    params = {"layers": [(rng.normal(size=(2, 3)), rng.normal(size=2))], "scale": 0.7}
    x = rng.normal(size=3)
    check_gradient(flattened_weights, (params, x), 0)
    gradient = s2sad.grad(flattened_weights, jit=False)
    gradient(params, x)
    code = [line for line in s2sad.source(gradient).splitlines()
            if line.strip() and not line.strip().startswith("#")]
    assert not any("flatten(" in line for line in code)   # no call left: concatenate of leaves
    assert any("numpy.ravel(params_layers_0_0)" in line for line in code)
