"""s2sad.vmap: every batched result equals a loop of single calls, JIT on and off, and the two
agree; the compiled batch loop is a prange of the same generated code; bad in_axes are
located errors."""
import numpy
import pytest

import s2sad

rng = numpy.random.default_rng(20)
N = 64
X = rng.normal(size=(N, 3))
Y = numpy.sign(rng.normal(size=N))
W = rng.normal(size=3)


def logistic(w, x, y):
    return numpy.log1p(numpy.exp(-y * numpy.dot(x, w)))


def tree_loss(p, x):
    return numpy.sum(numpy.tanh(x * p["w"]) + p["b"] ** 2)


def two_outputs(x, a):
    return numpy.sin(x) * a, numpy.sum(x ** 2)


def scalar_ode(theta, y0):
    y = y0
    for _ in range(20):
        y = y + 0.05 * (theta[0] * y - theta[1] * y * y)
    return y


def looped(func, in_axes, args):
    """The reference: func called on each example, results stacked leaf by leaf."""
    n = next(numpy.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None)
    results = []
    for k in range(n):
        example = [a if ax is None else numpy.take(a, k, axis=ax) for a, ax in
                   zip(args, in_axes)]
        results.append(func(*example))
    return results


def assert_stacked(batched, results):
    if isinstance(results[0], tuple):
        assert isinstance(batched, tuple) and len(batched) == len(results[0])
        for i, part in enumerate(batched):
            assert_stacked(part, [r[i] for r in results])
        return
    if isinstance(results[0], dict):
        assert set(batched) == set(results[0])
        for key in batched:
            assert_stacked(batched[key], [r[key] for r in results])
        return
    expected = numpy.stack([numpy.asarray(r) for r in results])
    assert numpy.shape(batched) == expected.shape
    numpy.testing.assert_allclose(batched, expected, rtol=1e-12, atol=1e-14)


CASES = {
    "grad": (lambda jit: s2sad.grad(logistic, jit=jit), (None, 0, 0), (W, X, Y)),
    "value_and_grad": (lambda jit: s2sad.value_and_grad(logistic, wrt=(0, 2), jit=jit),
                       (None, 0, 0), (W, X, Y)),
    "axis1": (lambda jit: s2sad.grad(logistic, jit=jit), (None, 1, 0), (W, X.T.copy(), Y)),
    "ode": (lambda jit: s2sad.grad(scalar_ode, wrt=(0, 1), jit=jit), (0, 0),
            (rng.uniform(0.5, 1.5, size=(N, 2)), rng.uniform(0.1, 0.5, size=N))),
    "jvp": (lambda jit: s2sad.jvp(two_outputs, jit=jit), (0, None, 0),
            (X, 2.0, rng.normal(size=X.shape))),
    "vjp": (lambda jit: s2sad.vjp(two_outputs, jit=jit), (0, None, 0),
            (X, 2.0, (rng.normal(size=X.shape), rng.normal(size=N)))),
    "hvp": (lambda jit: s2sad.hvp(logistic, jit=jit), (None, 0, 0, 0),
            (W, X, Y, rng.normal(size=X.shape))),
}


@pytest.fixture(scope="module")
def batched_results():
    """Every case, JIT on and off: (batched result, looped reference)."""
    out = {}
    for name, (make, in_axes, args) in CASES.items():
        for jit in (True, False):
            func = make(jit)
            if name == "vjp":  # the cotangent is a tuple: take its parts one by one
                reference = [func(X[k], 2.0, (args[2][0][k], args[2][1][k])) for k in range(N)]
            else:
                reference = looped(func, in_axes, args)
            out[name, jit] = (s2sad.vmap(func, in_axes=in_axes)(*args), reference)
    return out


@pytest.mark.parametrize("jit", [True, False], ids=["jit", "python"])
@pytest.mark.parametrize("name", list(CASES))
def test_vmap_equals_a_loop_of_calls(batched_results, name, jit):
    batched, reference = batched_results[name, jit]
    assert_stacked(batched, reference)


@pytest.mark.parametrize("name", list(CASES))
def test_jit_on_equals_jit_off(batched_results, name):
    compiled, _ = batched_results[name, True]
    python, _ = batched_results[name, False]
    assert len(_leaves(compiled)) == len(_leaves(python))
    for a, b in zip(_leaves(compiled), _leaves(python)):
        assert numpy.shape(a) == numpy.shape(b)
        numpy.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def _leaves(value):
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def test_containers_batched_and_shared():
    params = {"w": numpy.ones(4), "b": 0.3}
    x = rng.normal(size=(4, 7))
    per_column = s2sad.vmap(s2sad.grad(tree_loss), in_axes=(None, 1))(params, x)
    reference = [s2sad.grad(tree_loss)(params, x[:, k].copy()) for k in range(7)]
    assert_stacked(per_column, reference)
    batch = {"w": rng.normal(size=(5, 4)), "b": rng.normal(size=5)}
    per_param = s2sad.vmap(s2sad.grad(tree_loss), in_axes=(0, None))(batch, x[:, 0].copy())
    reference = [s2sad.grad(tree_loss)({"w": batch["w"][k], "b": batch["b"][k]}, x[:, 0].copy())
                 for k in range(5)]
    assert_stacked(per_param, reference)


def test_other_callables_loop_in_python():
    jac = s2sad.jacobian(two_outputs)
    batched = s2sad.vmap(jac, in_axes=(0, None))(X[:4], 2.0)
    assert_stacked(batched, [jac(X[k], 2.0) for k in range(4)])
    grad = s2sad.grad(logistic)

    def mine(w, x, y):  # a function of the user's that calls a gradient function
        return grad(w, x, y) * 2.0
    assert_stacked(s2sad.vmap(mine, in_axes=(None, 0, 0))(W, X[:5], Y[:5]),
                   [mine(W, X[k], Y[k]) for k in range(5)])


def test_compiled_loop_is_a_prange_of_the_generated_code(batched_results):
    func = CASES["grad"][0](True)
    batched = s2sad.vmap(func, in_axes=(None, 0, 0))
    batched(W, X, Y)
    (loop,) = batched._loops.values()
    with open(loop.path) as handle:
        text = handle.read()
    assert "for k in prange(n):" in text
    assert "result = dlogistic(w, rt.example(x, k), rt.example(y, k), d_result)" in text
    from s2sad.runtime import jit
    dispatcher = getattr(jit.load(loop.path, jit.JIT), "batched")
    assert dispatcher.targetoptions.get("parallel") is True
    assert loop.jit  # compiled, no fallback


@pytest.mark.parametrize("in_axes, args, message", [
    ((0, 0), (W, X, Y), "in_axes has 2 entries for 3 positional arguments"),
    ((None, None, None), (W, X, Y), "batches no argument"),
    ((None, 0, 0), (W, X, Y[:10]), "different batch sizes: 64 (argument 1), 10 (argument 2)"),
    ((0, 0, 0), (1.5, X, Y), "positional argument 0 is batched along axis 0, but it (or a "
                              "leaf of it) is a float"),
    ((None, 2, 0), (W, X, Y), "positional argument 1 is batched along axis 2"),
    (("rows", 0, 0), (W, X, Y), "'rows' is not an axis"),
    ((None, 0, 0), (W, X[:0], Y[:0]), "the batch is empty"),
])
def test_bad_in_axes_are_located_errors(in_axes, args, message):
    with pytest.raises(s2sad.ArgumentError) as info:
        s2sad.vmap(s2sad.grad(logistic), in_axes=in_axes)(*args)
    text = str(info.value)
    assert message in text
    assert "test_vmap.py" in text  # located at the user's call


def test_not_a_function():
    with pytest.raises(s2sad.ArgumentError, match="takes a function"):
        s2sad.vmap(3.0)


def ratio(a, b):
    return a / b


@pytest.mark.parametrize("jit", [True, False], ids=["jit", "python"])
def test_an_example_that_fails_is_named(jit):
    """Numba's parallel loop cannot say which example raised, nor what: s2sad finds it."""
    batched = s2sad.vmap(s2sad.grad(ratio, wrt=(0, 1), jit=jit), in_axes=0)
    numpy.testing.assert_allclose(batched(numpy.array([1.0, 2.0]), numpy.array([2.0, 4.0]))[1],
                                  [-0.25, -0.125])
    with pytest.raises(ZeroDivisionError) as info:
        batched(numpy.array([1.0, 2.0, 3.0]), numpy.array([1.0, 0.0, 4.0]))
    assert "(s2sad.vmap: in example 1 of the batch)" in info.value.__notes__
