"""A gradient function pickled after its first call carries its generated files: another
process, with a cache directory of its own, runs it without transforming again (the way a
process pool or a Dask worker gets it)."""
import os
import pickle
import subprocess
import sys
import textwrap

import numpy

import s2sad

HERE = os.path.dirname(os.path.abspath(__file__))


def logistic(w, x, y):
    return numpy.sum(numpy.log1p(numpy.exp(-y * (x @ w))))


def linear(p, x):
    return numpy.sum((x @ p["w"] + p["b"]) ** 2)


def helper(x):
    """Not small (an early return): its own generated adjoint, which must travel too."""
    if x.shape[0] == 0:
        return x
    return numpy.sin(x) * x


def calls_helper(x):
    return numpy.sum(helper(x) ** 2)


CHILD = textwrap.dedent("""
    import pickle, sys
    import numpy
    from s2sad.transform import pipeline

    def refuse(*args, **kwargs):
        raise AssertionError("transformed again")

    if sys.argv[2] == "no-transform":
        pipeline.gradient = pipeline.adjoint = pipeline.tangent = refuse
    with open(sys.argv[1], "rb") as handle:
        function, args, expected = pickle.load(handle)
    result = function(*args)

    def leaves(r):
        if isinstance(r, (tuple, list)):
            return [leaf for item in r for leaf in leaves(item)]
        if isinstance(r, dict):
            return [leaf for item in r.values() for leaf in leaves(item)]
        return [numpy.asarray(r)]
    for a, b in zip(leaves(result), leaves(expected)):
        numpy.testing.assert_allclose(a, b, rtol=1e-12)
    print("ok")
""")


def run_child(tmp_path, function, args, expected, mode="no-transform"):
    blob = tmp_path / "function.pkl"
    with open(blob, "wb") as handle:
        pickle.dump((function, args, expected), handle)
    cache = tmp_path / "worker-cache"
    env = dict(os.environ, S2SAD_CACHE_DIR=str(cache),
               PYTHONPATH=os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", CHILD, str(blob), mode], env=env,
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"
    return cache


def test_gradient_travels_with_its_generated_files(tmp_path):
    rng = numpy.random.default_rng(3)
    args = (rng.normal(size=3), rng.normal(size=(6, 3)), numpy.sign(rng.normal(size=6)))
    function = s2sad.value_and_grad(logistic)
    expected = function(*args)
    cache = run_child(tmp_path, function, args, expected)
    names = sorted(n for n in os.listdir(cache) if n.endswith(".py"))
    assert names == [os.path.basename(r.path) for r in function._runners.values()]


def test_callees_and_containers_travel_too(tmp_path):
    rng = numpy.random.default_rng(4)
    function = s2sad.grad(calls_helper)
    x = rng.normal(size=5)
    expected = function(x)
    cache = run_child(tmp_path, function, (x,), expected)
    names = os.listdir(cache)
    assert any(n.startswith("calls_helper__d_x__") for n in names)
    assert any(n.startswith("helper__d_x__") for n in names)  # the callee's adjoint
    tree = s2sad.grad(linear)
    args = ({"w": rng.normal(size=3), "b": 0.5}, rng.normal(size=(4, 3)))
    run_child(tmp_path, tree, args, tree(*args))


def test_before_its_first_call_it_transforms_where_it_is_called(tmp_path):
    function = s2sad.grad(logistic, jit=False)
    rng = numpy.random.default_rng(5)
    args = (rng.normal(size=3), rng.normal(size=(6, 3)), numpy.ones(6))
    expected = s2sad.grad(logistic)(*args)
    run_child(tmp_path, function, args, expected, mode="transform")


def test_second_derivatives_pickle(tmp_path):
    rng = numpy.random.default_rng(6)
    args = (rng.normal(size=3), rng.normal(size=(6, 3)), numpy.ones(6), rng.normal(size=3))
    function = s2sad.hvp(logistic)
    run_child(tmp_path, function, args, function(*args), mode="transform")


def test_a_batched_gradient_pickles(tmp_path):
    rng = numpy.random.default_rng(7)
    batched = s2sad.vmap(s2sad.grad(logistic), in_axes=(None, 0, 0))
    args = (rng.normal(size=3), rng.normal(size=(4, 6, 3)), numpy.ones((4, 6)))
    run_child(tmp_path, batched, args, batched(*args))
