"""s2sad.dask.value_and_grad_sum: a loss summed over the row chunks of dask arrays, on the local
schedulers and on a LocalCluster of two worker processes with a cache directory of their own;
bad input is refused at the user's call."""
import os
import subprocess
import sys
import textwrap

import cloudpickle
import dask
import dask.array as da
import distributed
import numpy
import pytest

import s2sad
from s2sad.dask import value_and_grad_sum  # Dask is in the test extra: no skip if missing

# Workers get the loss functions by value: they need not import this module
cloudpickle.register_pickle_by_value(sys.modules[__name__])

ROWS, FEATURES, CHUNK = 1000, 5, 100


def logistic(w, x, y):
    return numpy.sum(numpy.log1p(numpy.exp(-y * (x @ w))))


def shifted(w, b, x, y):
    return numpy.sum(numpy.log1p(numpy.exp(-y * (x @ w + b))))


def squares(p, x, y, *, scale=1.0):
    r = x @ p["w"] + p["b"] - y
    return scale * numpy.sum(r * r)


def unsupported(w, x):
    try:
        s = numpy.sum(x @ w)
    except ValueError:
        s = 0.0
    return s


@pytest.fixture(scope="module")
def numbers():
    rng = numpy.random.default_rng(20)
    x = rng.normal(size=(ROWS, FEATURES))
    y = numpy.sign(rng.normal(size=ROWS))
    return rng.normal(size=FEATURES), x, y


def chunked(x, y):
    return da.from_array(x, chunks=(CHUNK, -1)), da.from_array(y, chunks=CHUNK)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """Two worker processes whose cache directory is not the test process's."""
    cache = str(tmp_path_factory.mktemp("worker-cache"))
    local = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=None, env={"S2SAD_CACHE_DIR": cache})
    client = distributed.Client(local)
    yield client, cache
    client.close()
    local.close()


def close(result, expected):
    (value, grad), (value_expected, grad_expected) = result, expected
    numpy.testing.assert_allclose(value, value_expected, rtol=1e-9)
    got, want = s2sad.api.pytrees.leaves_of(grad), s2sad.api.pytrees.leaves_of(grad_expected)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert type(a) is type(b)
        numpy.testing.assert_allclose(a, b, rtol=1e-9)


@pytest.mark.parametrize("scheduler", ["threads", "synchronous"])
def test_local_schedulers(numbers, scheduler):
    w, x, y = numbers
    with dask.config.set(scheduler=scheduler):
        result = value_and_grad_sum(logistic, data=("x", "y"))(w, *chunked(x, y))
    close(result, s2sad.value_and_grad(logistic)(w, x, y))


def test_on_a_cluster_the_workers_compile_in_their_own_cache(cluster, numbers):
    client, cache = cluster
    w, x, y = numbers
    total = value_and_grad_sum(logistic, wrt="w", data=("x", "y"))
    close(total(w, *chunked(x, y)), s2sad.value_and_grad(logistic)(w, x, y))
    assert any(n.startswith("logistic__d_w__") and n.endswith(".py") for n in os.listdir(cache))
    assert os.environ["S2SAD_CACHE_DIR"] != cache
    numba_index = [n for n in os.listdir(os.path.join(cache, "__pycache__"))
                   if n.startswith("logistic__d_w__") and n.endswith(".nbi")]
    assert numba_index  # compiled there, by the workers
    # the loss went by value: no worker imported this module
    assert not any(client.run(lambda: __name__ in sys.modules).values())


def test_tuple_wrt_and_a_keyword_container(cluster, numbers):
    w, x, y = numbers
    X, Y = chunked(x, y)
    result = value_and_grad_sum(shifted, wrt=(0, "b"), data=("x", "y"))(w, 0.25, X, Y)
    close(result, s2sad.value_and_grad(shifted, wrt=(0, 1))(w, 0.25, x, y))
    assert isinstance(result[1], tuple) and isinstance(result[1][1], float)

    p = {"w": w, "b": 0.5}
    result = value_and_grad_sum(squares, data=["x", "y"])(p, y=Y, x=X, scale=0.5)
    close(result, s2sad.value_and_grad(squares)(p, x, y, scale=0.5))
    assert list(result[1]) == ["w", "b"]


def test_without_the_jit_and_rechunked(cluster, numbers):
    w, x, y = numbers
    X = da.from_array(x, chunks=(250, 2))       # rechunked to one chunk across
    Y = da.from_array(y, chunks=70)             # and to x's rows
    result = value_and_grad_sum(logistic, data=("x", "y"), jit=False)(w, X, Y)
    close(result, s2sad.value_and_grad(logistic)(w, x, y))


def located(excinfo, *fragments):
    text = str(excinfo.value)
    assert os.path.basename(__file__) in text, text
    for fragment in fragments:
        assert fragment in text, text


def test_bad_data_names():
    with pytest.raises(s2sad.ArgumentError) as excinfo:
        value_and_grad_sum(logistic, data=("x", "z"))
    located(excinfo, "data='z' is not a parameter of logistic", "w, x, y")
    with pytest.raises(s2sad.ArgumentError) as excinfo:
        value_and_grad_sum(logistic, data=())
    located(excinfo, "data is empty")
    with pytest.raises(s2sad.ArgumentError) as excinfo:
        value_and_grad_sum(logistic, wrt=(0, "x"), data=("x", "y"))
    located(excinfo, "'x' is both in data and in wrt", "as big as the data")


def test_bad_data_arguments(numbers):
    w, x, y = numbers
    total = value_and_grad_sum(logistic, data="x")
    with pytest.raises(s2sad.ArgumentError) as excinfo:
        total(w, x, y)
    located(excinfo, "argument 'x' must be a dask array of rows, not ndarray",
            "dask.array.from_array(x, chunks=(rows, -1))")
    X, Y = chunked(x, y)
    with pytest.raises(s2sad.ArgumentError) as excinfo:
        total(w, X, Y)
    located(excinfo, "argument 'y' is a Dask collection but not in data")
    with pytest.raises(s2sad.ArgumentError) as excinfo:
        value_and_grad_sum(logistic, data=("x", "y"))(w, X, Y[:-1])
    located(excinfo, "different numbers of rows", "'x' 1000, 'y' 999")
    with pytest.raises(s2sad.UnsupportedError) as excinfo:  # transformed at the call
        value_and_grad_sum(unsupported, data="x")(w, X)
    located(excinfo, "a `try` whose body may raise")


def run(code):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120)


def test_import_s2sad_does_not_import_dask():
    done = run("""
        import sys
        import s2sad
        assert "dask" not in sys.modules
        sys.modules["dask"] = None  # as if it were not installed
        try:
            import s2sad.dask
        except ImportError as exc:
            print(exc)
    """)
    assert done.returncode == 0, done.stderr
    assert "pip install 's2sad[dask]'" in done.stdout
