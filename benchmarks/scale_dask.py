"""Throughput of `s2sad.dask.value_and_grad_sum` (issue 20): rows per second of one pass of the
logistic loss's value and gradient over 4 million rows x 16 features, chunks of 250,000 rows.

    python benchmarks/scale_dask.py [--rows N] [--features N] [--chunk N]

Three setups: one process (a Python loop over the NumPy chunks calling `s2sad.value_and_grad`
and summing), and a LocalCluster of 1 and of 2 worker processes (1 thread each) with the data
made and persisted on the workers beforehand, so that a pass moves only the weights and the
chunks' gradients. Each is the best of 3 passes after a warm-up pass (which compiles); the
cluster results are checked against the one-process sum. A worker pays a fixed ~60 ms per pass
(graph, scheduling, 21 tasks) and, measured on Linux, ~30% more per row than the main thread of a
plain process: the chunk-sized temporaries of the gradient are allocated in a worker thread, with
the MALLOC_TRIM_THRESHOLD_ Dask's nanny sets. benchmarks/scale.py calls
`dask_throughput()` for its table; run alone, this prints a markdown table.
"""
import argparse
import os
import sys
import time

for _name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # one BLAS thread, as in each Dask worker

import numpy  # noqa: E402

import s2sad  # noqa: E402


def logistic(w, x, y):
    return numpy.sum(numpy.log1p(numpy.exp(-y * (x @ w))))


def best_of(call, repeat=3):
    call()  # warm-up: transforms, compiles (on every worker), starts the workers' imports
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - started)
    return min(times), result


def one_process(w, X, Y, chunk):
    """(seconds, (value, gradient)) of a Python loop over the chunks, in this process."""
    x, y = (a.compute(scheduler="threads") for a in (X, Y))  # the same numbers, in memory
    gradient = s2sad.value_and_grad(logistic)

    def loop():
        value, grad = 0.0, numpy.zeros_like(w)
        for start in range(0, len(x), chunk):
            v, g = gradient(w, x[start:start + chunk], y[start:start + chunk])
            value, grad = value + v, grad + g
        return value, grad
    return best_of(loop)


def dask_throughput(rows=4_000_000, features=16, chunk=250_000):
    """[{"setup", "rows_per_s", "vs_one_process"}] for one process, 1 worker and 2 workers."""
    import dask.array as da
    from dask.distributed import Client, LocalCluster

    from s2sad.dask import value_and_grad_sum

    rng = da.random.default_rng(0)
    X = rng.normal(size=(rows, features), chunks=(chunk, -1))
    Y = da.sign(X @ numpy.linspace(-1.0, 1.0, features) + rng.normal(size=rows, chunks=chunk))
    w = numpy.full(features, 0.1)
    seconds, expected = one_process(w, X, Y, chunk)
    results = [("one process", seconds)]
    total = value_and_grad_sum(logistic, data=("x", "y"))
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            on_workers = client.persist([X, Y])
            seconds, (value, grad) = best_of(lambda: total(w, *on_workers))
        numpy.testing.assert_allclose(value, expected[0], rtol=1e-9)
        numpy.testing.assert_allclose(grad, expected[1], rtol=1e-9)
        results.append((f"LocalCluster, {workers} worker{'s' * (workers > 1)}", seconds))
    return [{"setup": setup, "rows_per_s": rows / seconds,
             "vs_one_process": results[0][1] / seconds} for setup, seconds in results]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=4_000_000)
    parser.add_argument("--features", type=int, default=16)
    parser.add_argument("--chunk", type=int, default=250_000)
    opts = parser.parse_args(argv)
    rows = dask_throughput(opts.rows, opts.features, opts.chunk)
    print(f"{opts.rows:,} rows x {opts.features} features, chunks of {opts.chunk:,} rows, "
          f"{os.cpu_count()} cores; best of 3 passes after a warm-up\n")
    print("| setup | rows/s | ÷ one process |\n|---|---:|---:|")
    for r in rows:
        print(f"| {r['setup']} | {r['rows_per_s']:,.0f} | {r['vs_one_process']:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
