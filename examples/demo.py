"""s2sad demo: differentiate a small NumPy model, show the generated adjoint, check it.

Run with `make demo` (or `python examples/demo.py` inside the virtual environment).
"""
import time

import numpy as np

import s2sad
from s2sad.transform import pipeline  # the callee adjoints the gradient calls


def layer(x, W, b):
    """One dense layer with a tanh activation."""
    return np.tanh(W @ x + b)


def loss(x, W, b, target):
    """Squared error of a one-layer network, plus an L2 penalty on the weights."""
    h = layer(x, W, b)
    err = h - target
    return np.sum(err * err) + 0.01 * np.sum(W ** 2)


def bounce(height, drag, steps):
    """A ball dropped from `height`, with air drag, bouncing off the floor: a loop with a
    data-dependent branch. Returns the mean height over the flight."""
    y, v, total = height, 0.0, 0.0
    for i in range(steps):
        v = v - 0.01 * (9.81 + drag * v * abs(v))
        y = y + 0.01 * v
        if y < 0.0:
            y = -y
            v = -0.9 * v
        total = total + y
    return total / steps


def finite_differences(f, args, wrt, eps=1e-6):
    """Central differences of f w.r.t. args[wrt], one element at a time."""
    x = np.array(args[wrt], dtype=float)
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[index] += eps
        minus[index] -= eps
        grad[index] = (f(*args[:wrt], plus, *args[wrt + 1:])
                       - f(*args[:wrt], minus, *args[wrt + 1:])) / (2 * eps)
    return grad


def main():
    rng = np.random.default_rng(0)
    x, W, b = rng.normal(size=4), rng.normal(size=(3, 4)), rng.normal(size=3)
    target = rng.normal(size=3)
    args = (x, W, b, target)

    dloss = s2sad.grad(loss, wrt=("W", "b"))
    start = time.perf_counter()
    dW, db = dloss(*args)
    first = time.perf_counter() - start
    start = time.perf_counter()
    dloss(*args)
    again = time.perf_counter() - start

    print(f"Generated adjoint of loss, in {dloss.path}:\n")
    print(s2sad.source(dloss))
    print("It calls the adjoint of `layer`, generated into its own file:\n")
    print(pipeline.adjoint(layer, (1, 2)).text)

    worst = 0.0
    for position, computed in ((1, dW), (2, db)):
        expected = finite_differences(loss, args, position)
        worst = max(worst, np.max(np.abs(computed - expected) / np.maximum(1.0, np.abs(expected))))
    print(f"dloss/dW =\n{dW}\ndloss/db = {db}")
    print(f"max relative difference from central finite differences: {worst:.1e}")
    print(f"first call (transform, then the generated Python while Numba compiles it in the "
          f"background, or the compiled code from the cache): {first:.2f} s, "
          f"next call: {again * 1e6:.0f} us")
    if worst > 1e-6:
        raise SystemExit("gradient check FAILED")
    print("gradient check passed\n")

    dbounce = s2sad.grad(bounce, wrt=("height", "drag"))
    dh, dd = dbounce(2.0, 0.3, 500)
    print("Loops and branches: the adjoint of `bounce` replays the loop backwards and the branch "
          "taken at each step:\n")
    print(s2sad.source(dbounce))
    expected = [finite_differences(lambda h, d: bounce(h, d, 500), (2.0, 0.3), k)
                for k in (0, 1)]
    error = max(abs(dh - expected[0]), abs(dd - expected[1]))
    print(f"dbounce/dheight = {dh:.6f}, dbounce/ddrag = {dd:.6f} "
          f"(finite differences: {float(expected[0]):.6f}, {float(expected[1]):.6f})")
    if error > 1e-6:
        raise SystemExit("gradient check FAILED")
    print("gradient check passed")


if __name__ == "__main__":
    main()
