"""Benchmark: s2sad gradients of scalar loops against Numba and a hand-written Numba adjoint.

    python benchmarks/loop_benchmark.py [--n 1000000] [--repeat 5] [--n-python N]

For each loop below it measures, in one run, the best of `--repeat` timed calls after a
warm-up call:

  forward       numba.njit of the very same Python function (the primal alone)
  hand adjoint  a Numba adjoint written by hand: a forward sweep that stores x of every
                iteration in a preallocated array, then `for i in range(n - 1, -1, -1)`
  s2sad jit     s2sad.grad(f, wrt=(0, 1)), compiled by Numba (first call not timed)
  s2sad py      the same gradient with jit=False (plain Python), on a smaller n; its ratio is
                per iteration, against the Numba forward at the large n

The target is s2sad jit <= 3x the Numba forward. Before a row reports a time, s2sad's
gradient is checked (untimed) against the hand-written adjoint to 1e-10 relative, and the
hand-written adjoints are checked against central finite differences, so a wrong-but-fast
gradient cannot be reported as a result. A loop that s2sad cannot differentiate yet shows
"error" and its message is printed under the table; the exit status is then still 0. A
gradient that differs from the reference makes the exit status 1.
"""
import argparse
import math
import sys
import time
import warnings

import numba
import numpy as np

import s2sad

TARGET = 3.0          # s2sad gradient time / Numba forward time
RTOL = 1e-10          # s2sad vs hand-written adjoint


# ---------------------------------------------------------------------------------------------
# The functions that are differentiated. Plain module-level Python: s2sad reads their source,
# numba.njit compiles the very same functions for the forward column.

def rollout(x, a, n):
    """A contractive-ish scalar recurrence, summed."""
    s = 0.0
    for i in range(n):
        x = a * math.sin(x) + 0.1 * x
        s = s + x * x
    return s


def branchy(x, a, n):
    """The same kind of recurrence with a data-dependent branch in the loop body."""
    s = 0.0
    for i in range(n):
        if x > 0.0:
            x = a * math.sin(x) - 0.45
        else:
            x = 0.7 * x + 0.5 * a * math.cos(x)
        s = s + x * x
    return s


def until_budget(x, a, budget):
    """A `while` loop whose trip count depends on the values (about budget / 1.48)."""
    s = 0.0
    while s < budget:
        x = a * math.cos(x) + 0.5
        s = s + x * x + 0.5
    return s


# ---------------------------------------------------------------------------------------------
# Hand-written adjoints: forward sweep storing x per iteration, backward sweep in reverse.
# Each returns (value, d/dx, d/da).

@numba.njit
def rollout_adjoint(x, a, n):
    xs = np.empty(n + 1)
    xs[0] = x
    s = 0.0
    for i in range(n):
        x = a * math.sin(x) + 0.1 * x
        s = s + x * x
        xs[i + 1] = x
    dx = 0.0
    da = 0.0
    for i in range(n - 1, -1, -1):
        dx = dx + 2.0 * xs[i + 1]              # s = s + x * x
        xo = xs[i]                             # x = a * sin(x) + 0.1 * x
        da = da + dx * math.sin(xo)
        dx = dx * (a * math.cos(xo) + 0.1)
    return s, dx, da


@numba.njit
def branchy_adjoint(x, a, n):
    xs = np.empty(n + 1)
    xs[0] = x
    s = 0.0
    for i in range(n):
        if x > 0.0:
            x = a * math.sin(x) - 0.45
        else:
            x = 0.7 * x + 0.5 * a * math.cos(x)
        s = s + x * x
        xs[i + 1] = x
    dx = 0.0
    da = 0.0
    for i in range(n - 1, -1, -1):
        dx = dx + 2.0 * xs[i + 1]
        xo = xs[i]
        if xo > 0.0:                           # the branch taken, recomputed from stored x
            da = da + dx * math.sin(xo)
            dx = dx * (a * math.cos(xo))
        else:
            da = da + dx * 0.5 * math.cos(xo)
            dx = dx * (0.7 - 0.5 * a * math.sin(xo))
    return s, dx, da


@numba.njit
def until_budget_adjoint(x, a, budget):
    # every iteration adds at least 0.5 to s, so it runs at most budget / 0.5 + 1 times
    xs = np.empty(max(int(budget / 0.5), 0) + 2)
    xs[0] = x
    s = 0.0
    n = 0
    while s < budget:
        x = a * math.cos(x) + 0.5
        s = s + x * x + 0.5
        n += 1
        xs[n] = x
    dx = 0.0
    da = 0.0
    for i in range(n - 1, -1, -1):
        dx = dx + 2.0 * xs[i + 1]
        xo = xs[i]
        da = da + dx * math.cos(xo)
        dx = dx * (-a * math.sin(xo))
    return s, dx, da


@numba.njit
def until_budget_trips(x, a, budget):
    s = 0.0
    n = 0
    while s < budget:
        x = a * math.cos(x) + 0.5
        s = s + x * x + 0.5
        n += 1
    return n


# ---------------------------------------------------------------------------------------------

class Case:
    def __init__(self, name, func, adjoint, x, a, size_arg, trips=None):
        self.name, self.func, self.adjoint = name, func, adjoint
        self.forward = numba.njit(func)
        self.x, self.a = x, a
        self.size_arg = size_arg          # n -> the function's third argument
        self.trips = trips or (lambda x, a, arg: arg)

    def args(self, n):
        return (self.x, self.a, self.size_arg(n))


CASES = [
    Case("rollout (for)", rollout, rollout_adjoint, 1.0, 0.9, lambda n: n),
    Case("branchy (for+if)", branchy, branchy_adjoint, 0.5, 0.9, lambda n: n),
    Case("until_budget (while)", until_budget, until_budget_adjoint, 0.3, 0.9,
         lambda n: 1.484 * n, until_budget_trips),
]


def best_of(call, repeat):
    """Best wall time of `repeat` calls, in ms (warm-up is the caller's job)."""
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def central_differences(f, args, eps=1e-6):
    grads = []
    for k in (0, 1):
        plus, minus = list(args), list(args)
        plus[k] += eps
        minus[k] -= eps
        grads.append((f(*plus) - f(*minus)) / (2 * eps))
    return grads


def check_hand_adjoint(case):
    """The reference itself must be right: compare with finite differences on a short loop."""
    args = case.args(200)
    _, dx, da = case.adjoint(*args)
    fx, fa = central_differences(case.forward, args)
    for got, expected in ((dx, fx), (da, fa)):
        if abs(got - expected) > 1e-6 * max(1.0, abs(expected)):
            raise SystemExit(f"{case.name}: hand-written adjoint disagrees with finite "
                             f"differences ({got!r} vs {expected!r}); fix the benchmark")


def mismatch(got, reference):
    """None if `got` equals `reference` to RTOL relative, else a description."""
    for name, g, r in zip(("d/dx", "d/da"), got, reference):
        if not (abs(g - r) <= RTOL * abs(r) or g == r):
            return (f"{name}: s2sad {float(g)!r}, hand-written adjoint {float(r)!r} "
                    f"(relative difference {abs(g - r) / max(abs(r), 1e-300):.1e} > {RTOL:g})")
    return None


def time_s2sad(case, n, repeat, jit, notes, failures):
    """(ms, first-call s) of s2sad's gradient at size n, or a short status string."""
    label = f"{case.name}, s2sad jit={'on' if jit else 'off'}"
    args = case.args(n)
    try:
        gradient = s2sad.grad(case.func, wrt=(0, 1), jit=jit)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            start = time.perf_counter()
            # first call, on a short loop: transform (+ compile, or load from the cache)
            gradient(*case.args(min(n, 1000)))
            first = time.perf_counter() - start
        fallbacks = [w for w in caught if issubclass(w.category, s2sad.JitFallbackWarning)]
        if not (jit and fallbacks):
            got = gradient(*args)          # for the check below: not timed
    except Exception as exc:  # noqa: BLE001 -- report any failure and go on
        message = f"{type(exc).__name__}:\n{exc}"
        same = [note for note in notes if note.startswith(case.name) and note.endswith(message)]
        notes.append(f"{label}: " + ("the same error as with jit=on" if same else message))
        return "error"
    if jit and fallbacks:
        notes.append(f"{label}: Numba could not compile the gradient, it ran as Python:\n"
                     f"{fallbacks[0].message}")
        return "fallback"
    _, dx, da = case.adjoint(*args)
    wrong = mismatch(got, (dx, da))
    if wrong:
        failures.append(f"{label}, n={n}: WRONG GRADIENT: {wrong}")
        return "WRONG"
    return best_of(lambda: gradient(*args), repeat), first


def cell(result, reference_ms, per_iter=1.0):
    if isinstance(result, str):
        return result
    ms = result[0] if isinstance(result, tuple) else result
    return f"{ms:9.2f} ({ms / reference_ms * per_iter:5.2f}x)"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="loop iterations (default 1e6)")
    parser.add_argument("--repeat", type=int, default=5, help="timed calls, best is kept")
    parser.add_argument("--n-python", type=int, default=None,
                        help="iterations for s2sad with jit=False (default n/100; 0 skips it)")
    opts = parser.parse_args(argv)
    n = opts.n
    n_py = max(opts.n // 100, 1) if opts.n_python is None else opts.n_python

    print(f"numba {numba.__version__}, numpy {np.__version__}, python "
          f"{sys.version.split()[0]}; best of {opts.repeat} after warm-up; times in ms\n")
    rows, notes, failures, firsts = [], [], [], []
    for case in CASES:
        check_hand_adjoint(case)
        args = case.args(n)
        trips = case.trips(*args)

        case.forward(*args)                            # compile
        forward = best_of(lambda: case.forward(*args), opts.repeat)
        case.adjoint(*args)
        hand = best_of(lambda: case.adjoint(*args), opts.repeat)
        jitted = time_s2sad(case, n, opts.repeat, True, notes, failures)
        if n_py > 0:
            py_trips = case.trips(*case.args(n_py))
            python = time_s2sad(case, n_py, opts.repeat, False, notes, failures)
            # ratio per iteration: (python ms / its iterations) / (forward ms / its iterations)
            python_cell = cell(python, forward, trips / py_trips)
        else:
            py_trips, python_cell = 0, "skipped"
        if isinstance(jitted, tuple):
            firsts.append(f"{case.name}: first s2sad call (transform, compile or load from "
                         f"cache) {jitted[1]:.2f} s")
        rows.append((case.name, trips, f"{forward:9.2f}", cell(hand, forward),
                     cell(jitted, forward), py_trips, python_cell, jitted, forward))

    header = ("loop", "n", "forward", "hand adjoint", "s2sad jit", "n py", "s2sad jit=False")
    widths = (22, 9, 10, 19, 19, 7, 26)
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(row[:7], widths)))
    print("\n(ratios: time / Numba forward time; for jit=False per iteration, since it runs on "
          "the smaller n)")

    measured = [(r[0], r[7][0] / r[8]) for r in rows if isinstance(r[7], tuple)]
    for name, ratio in measured:
        verdict = "meets" if ratio <= TARGET else "MISSES"
        print(f"{name}: s2sad gradient {ratio:.2f}x the Numba forward, {verdict} the "
              f"target <= {TARGET:g}x")
    if not measured:
        print(f"target (s2sad gradient <= {TARGET:g}x the Numba forward): not measured, s2sad "
              "produced no gradient")
    if firsts:
        print()
    for line in firsts:
        print(line)
    for note in notes:
        print("\n" + note)
    for failure in failures:
        print("\n" + failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
