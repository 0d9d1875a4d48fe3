"""Clogs: where a tape-based tool silently stops the gradient, and what s2sad does there.

Run with `.venv/bin/python examples/clog.py` (after `make demo` or `make test` built .venv).

1. `math.sqrt` on a differentiated value: in PyTorch, `math.sqrt(t)` turns a tensor into a
   Python float, so the gradient through it is lost without a word. s2sad reads the source, knows
   math.sqrt's derivative and gets it right.
2. `int()` on a differentiated value really has no useful derivative (it is piecewise constant).
   s2sad says so when it transforms the function, naming the file, line and column, with the fix.
   `s2sad check examples/clog.py:bucketed` prints the same without running anything.
"""
import math
import warnings

import numpy as np

import s2sad


def radius(x, y):
    """A distance with math.sqrt: the gradient flows through it."""
    return math.sqrt(x * x + y * y)


def bucketed(price, rate):
    """`int()` cuts the gradient: the derivative w.r.t. price ignores the number of buckets."""
    buckets = int(price * rate)
    return price * buckets + rate * rate


def bucketed_on_purpose(price, rate):
    """The same cut, declared intended: s2sad.stop_gradient silences the report."""
    buckets = s2sad.stop_gradient(int(price * rate))
    return price * buckets + rate * rate


def main():
    x, y = 3.0, 4.0
    dx, dy = s2sad.grad(radius, wrt=(0, 1))(x, y)
    print(f"math.sqrt: d radius / d(x, y) at (3, 4) = ({dx}, {dy}); exact: (0.6, 0.8)")
    assert math.isclose(dx, 0.6) and math.isclose(dy, 0.8)

    print("\nint(): the warning s2sad gives when it transforms `bucketed`:\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradient = s2sad.grad(bucketed, wrt=(0, 1))(2.5, 1.7)
    for warning in caught:
        if issubclass(warning.category, s2sad.GradientCutWarning):
            print(warning.message)
    print(f"\ngradient: {gradient}  (d/dprice = buckets = {int(2.5 * 1.7)}, the int() term "
          "contributes nothing)")

    print("\nwith strict=True the same finding is an error:")
    try:
        s2sad.grad(bucketed, strict=True)(2.5, 1.7)
    except s2sad.GradientCutError as error:
        print(str(error).splitlines()[0])

    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.GradientCutWarning)  # would raise if reported
        s2sad.grad(bucketed_on_purpose)(2.5, 1.7)
    print("\nstop_gradient(int(...)): no warning, the cut is declared intended.")
    np.testing.assert_allclose(gradient[0], int(2.5 * 1.7))


if __name__ == "__main__":
    main()
