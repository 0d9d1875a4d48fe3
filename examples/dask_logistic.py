"""Logistic regression on more data than the workers have memory, with s2sad.dask.

    python examples/dask_logistic.py [--rows 8000000] [--steps 12] [--chunk 125000]

The data (16 features; 8 million rows, 1.1 GB, by default) is never held anywhere whole: each
chunk of rows is made by a task from its own seed, labelled by a known weight vector, and
dropped once its gradient is computed. A LocalCluster of 2 worker processes with 400 MB each
runs `value_and_grad_sum`: one task per chunk computes the loss and its gradient there with the
compiled s2sad gradient, and the chunks' results are added up in a tree. Each step of gradient
descent is one such pass. Prints per step the mean loss and the rows per second (the first
step includes compiling the gradient on each worker), then the learned weights' accuracy next
to the true weights'. Needs Dask: pip install 's2sad[dask]'.
"""
import argparse
import time

import dask
import dask.array as da
import numpy as np
from dask.distributed import Client, LocalCluster

from s2sad.dask import value_and_grad_sum

FEATURES = 16
TRUE_W = np.random.default_rng(0).normal(size=FEATURES)


def loss(w, x, y):
    """Logistic loss summed over the rows of x, with labels y of +1 or -1."""
    return np.sum(np.log1p(np.exp(-y * (x @ w))))


def make_chunk(seed, rows):
    """Rows drawn from a normal distribution, labelled at random by TRUE_W's logistic model."""
    rng = np.random.default_rng([seed, 2024])
    x = rng.normal(size=(rows, FEATURES))
    p = 1.0 / (1.0 + np.exp(-(x @ TRUE_W)))
    return x, np.where(rng.random(rows) < p, 1.0, -1.0)


def dataset(rows, chunk):
    """x and y as dask arrays of row chunks, each chunk made by one task when it is needed."""
    sizes = [min(chunk, rows - start) for start in range(0, rows, chunk)]
    parts = [dask.delayed(make_chunk, nout=2)(k, n) for k, n in enumerate(sizes)]
    x = da.concatenate([da.from_delayed(p[0], (n, FEATURES), float) for p, n in zip(parts, sizes)])
    y = da.concatenate([da.from_delayed(p[1], (n,), float) for p, n in zip(parts, sizes)])
    return x, y


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=8_000_000)
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--chunk", type=int, default=125_000, help="rows per chunk")
    opts = parser.parse_args()
    with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit="400MB",
                      dashboard_address=None) as cluster, Client(cluster):
        x, y = dataset(opts.rows, opts.chunk)
        print(f"data: {x.nbytes / 1e9 + y.nbytes / 1e9:.2f} GB in {x.numblocks[0]} chunks; "
              "workers: 2 x 400 MB")
        total = value_and_grad_sum(loss, wrt="w", data=("x", "y"))
        w, rate = np.zeros(FEATURES), 4.0
        for step in range(1, opts.steps + 1):
            start = time.perf_counter()
            value, grad = total(w, x, y)
            seconds = time.perf_counter() - start
            w -= rate * grad / opts.rows  # descent on the mean loss
            print(f"step {step:3d}  mean loss {value / opts.rows:.5f}  "
                  f"{opts.rows / seconds:12,.0f} rows/s")
    x_test, y_test = make_chunk(10**9, 200_000)  # rows no step has seen
    accuracy = np.mean(np.sign(x_test @ w) == y_test)
    best = np.mean(np.sign(x_test @ TRUE_W) == y_test)
    cosine = w @ TRUE_W / np.linalg.norm(w) / np.linalg.norm(TRUE_W)
    print(f"accuracy {accuracy:.4f} (the true weights: {best:.4f}); cosine(w, true w) "
          f"{cosine:.4f}")


if __name__ == "__main__":
    main()
