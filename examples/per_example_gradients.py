"""Per-example gradients of a logistic loss over 10^5 rows with `s2sad.vmap`.

    .venv/bin/python examples/per_example_gradients.py [--rows 100000] [--threads 2]

`s2sad.grad(row_loss)` is the gradient for one row; `s2sad.vmap` runs it for every row in one
generated loop, a Numba `prange` over the rows, so the rows are spread over the cores. The
example checks the result against single calls and against the gradient of the summed loss,
then clips each row's gradient to norm 1 (as differentially private SGD does) and shows the
generated batch loop.
"""
import argparse
import time

import numba
import numpy as np

import s2sad


def row_loss(w, x, y):
    """The logistic loss of one row x (features) with label y in {-1, +1}."""
    return np.log1p(np.exp(-y * np.dot(x, w)))


def total_loss(w, X, Y):
    return np.sum(np.log1p(np.exp(-Y * (X @ w))))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--threads", type=int, default=numba.config.NUMBA_NUM_THREADS)
    opts = parser.parse_args(argv)
    numba.set_num_threads(opts.threads)

    rng = np.random.default_rng(0)
    X = rng.normal(size=(opts.rows, opts.features))
    w_true = rng.normal(size=opts.features)
    Y = np.where(X @ w_true + 0.5 * rng.normal(size=opts.rows) > 0, 1.0, -1.0)
    w = 0.1 * rng.normal(size=opts.features)  # a point on the way to w_true

    per_row = s2sad.vmap(s2sad.grad(row_loss), in_axes=(None, 0, 0))
    started = time.perf_counter()
    G = per_row(w, X, Y)
    first = time.perf_counter() - started
    started = time.perf_counter()
    G = per_row(w, X, Y)
    again = time.perf_counter() - started
    print(f"per-example gradients: {G.shape} in {again * 1e3:.1f} ms on {opts.threads} "
          f"thread(s) (first call, with transformation and compilation: {first:.2f} s)")

    one_by_one = s2sad.grad(row_loss)
    rows = rng.choice(opts.rows, size=5, replace=False)
    worst = max(np.max(np.abs(G[k] - one_by_one(w, X[k], Y[k]))) for k in rows)
    summed = np.max(np.abs(G.sum(axis=0) - s2sad.grad(total_loss)(w, X, Y)))
    print(f"rows {sorted(rows.tolist())} against single calls: max difference {worst:.1e}")
    print(f"sum over rows against the gradient of the summed loss: max difference {summed:.1e}")
    assert worst < 1e-12 and summed < 1e-8 * opts.rows

    norms = np.linalg.norm(G, axis=1)
    clipped = G / np.maximum(1.0, norms)[:, None]
    print(f"gradient norms: median {np.median(norms):.3f}, max {norms.max():.3f}; clipped to 1 "
          f"and averaged: {np.round(clipped.mean(axis=0)[:4], 4)} ...")
    print(f"\nthe generated batch loop ({per_row.path}):\n")
    print(per_row.source)


if __name__ == "__main__":
    main()
