"""The benchmark cases: each problem of problems.py with its sizes, inputs, the parameters
differentiated, its hand-written adjoint, and small inputs for checking that adjoint against
finite differences.

    all_cases(quick, only): every case at full size, or at small sizes (--quick)
    latency_functions(): the functions whose first call and cache load latency.py measures
"""
import dataclasses
import functools
import importlib.util
import os
import sys
import types

import numba
import numpy as np

import hand_adjoints as hand
import problems


@dataclasses.dataclass
class Case:
    name: str           # the row label, with the sizes
    func: object        # the function in problems.py
    positions: tuple    # the parameters differentiated
    adjoint: object     # the hand-written Numba adjoint: (value, grads...)
    make_args: object   # rng -> the arguments at the benchmark size
    check_args: object  # rng -> small arguments for the finite-difference check

    @property
    def problem(self):
        return self.func.__name__


@functools.lru_cache(maxsize=None)
def jit_forward(func):
    """numba.njit of `func` itself, one dispatcher per function; plain functions of its module
    that it calls (lstm_loss calls sigmoid) are compiled too, since nopython code cannot call
    Python functions."""
    names = {}
    for name in func.__code__.co_names:
        value = func.__globals__.get(name)
        if isinstance(value, types.FunctionType) and value.__module__ == func.__module__:
            names[name] = jit_forward(value)
    if names:
        func = types.FunctionType(func.__code__, {**func.__globals__, **names}, func.__name__,
                                  func.__defaults__, func.__closure__)
    return numba.njit(func)


# ---- inputs ---------------------------------------------------------------------------------

def gmm_args(d, k_count, n):
    def make(rng):
        icf = np.concatenate([rng.uniform(-0.5, 0.5, (k_count, d)),
                              0.1 * rng.normal(size=(k_count, d * (d - 1) // 2))], axis=1)
        return (rng.normal(size=k_count), rng.normal(size=(k_count, d)), icf,
                rng.normal(size=(n, d)), 1.0, 0.0)
    return make


def chain_args(count, steps):
    def make(rng):
        x0 = np.arange(count) + 0.05 * rng.normal(size=count)
        return (x0, 0.1 * rng.normal(size=count), rng.uniform(0.5, 1.5, count - 1),
                1.05 * np.arange(count), steps)
    return make


def lotka_volterra_args(steps):
    def make(rng):
        return (1.1, 0.4, 0.1, 0.4, 10.0 + rng.uniform(), 5.0 + rng.uniform(),
                rng.uniform(2.0, 20.0, (steps, 2)), steps)
    return make


def lstm_args(hidden, inputs, outputs, steps):
    def make(rng):
        scale = 1.0 / np.sqrt(hidden)
        return (scale * rng.normal(size=(4 * hidden, inputs)),
                scale * rng.normal(size=(4 * hidden, hidden)), 0.1 * rng.normal(size=4 * hidden),
                scale * rng.normal(size=(outputs, hidden)), rng.normal(size=(steps, inputs)),
                rng.normal(size=(steps, outputs)))
    return make


def logistic_args(n, features):
    def make(rng):
        x = rng.normal(size=(n, features))
        truth = rng.normal(size=features)
        labels = (rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-x @ truth))).astype(float)
        return 0.1 * rng.normal(size=features), 0.1, x, labels
    return make


# ---- the cases ------------------------------------------------------------------------------

def _cases(quick):
    """Full sizes as issue 7 asks; quick: small sizes for development."""
    gmm_sizes = [(10, 5, 200), (64, 25, 100)] if quick else [(10, 5, 1000), (64, 25, 1000)]
    steps = 100 if quick else 1000
    cases = [Case(f"gmm d={d} K={k} n={n}", problems.gmm_objective, (0, 1, 2),
                  hand.gmm_objective_adjoint, gmm_args(d, k, n), gmm_args(3, 2, 5))
             for d, k, n in gmm_sizes]
    cases += [
        Case(f"particle_chain 32x{steps}", problems.particle_chain, (0, 1, 2),
             hand.particle_chain_adjoint, chain_args(32, steps), chain_args(4, 20)),
        Case(f"lotka_volterra {steps}", problems.lotka_volterra, (0, 1, 2, 3, 4, 5),
             hand.lotka_volterra_adjoint, lotka_volterra_args(steps), lotka_volterra_args(20)),
        Case(f"lstm h=32 in=16 out=4 T={20 if quick else 100}", problems.lstm_loss,
             (0, 1, 2, 3), hand.lstm_loss_adjoint, lstm_args(32, 16, 4, 20 if quick else 100),
             lstm_args(3, 2, 2, 4)),
        Case(f"logistic_regression {'1e3' if quick else '1e5'}x20",
             problems.logistic_regression, (0, 1), hand.logistic_regression_adjoint,
             logistic_args(1000 if quick else 100_000, 20), logistic_args(30, 3)),
    ]
    return cases


def all_cases(quick=False, only=None):
    """The cases to run; `only` keeps those whose name contains it."""
    cases = _cases(quick)
    if only:
        cases = [case for case in cases if only in case.name]
    return cases


def hand_adjoint(func):
    """The hand-written adjoint of a function of problems.py (a Numba dispatcher), else None."""
    return next((case.adjoint for case in _cases(quick=True) if case.func is func), None)


DRONE = "latency_case (drone)"
DEMO = "demo loss (examples/demo.py)"


def latency_functions():
    """(name, func, positions, make_args) for the first-call and second-process measurements:
    each problem function once, at small sizes, the ~100-line function of latency_case.py and
    the `loss` of examples/demo.py with the demo's arguments."""
    import latency_case
    small = {case.problem: case for case in _cases(quick=True)}
    out = [(name, case.func, case.positions, case.make_args) for name, case in small.items()]
    out.append((DRONE, latency_case.drone_loss, latency_case.POSITIONS, latency_case.make_args))
    out.append((DEMO, demo_module().loss, (1, 2), demo_args))
    return out


def demo_module():
    """examples/demo.py imported as the module `demo` (it runs nothing at import: its main()
    is under `if __name__ == "__main__"`)."""
    if "demo" not in sys.modules:
        path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            "examples", "demo.py")
        spec = importlib.util.spec_from_file_location("demo", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["demo"] = module
        spec.loader.exec_module(module)
    return sys.modules["demo"]


def demo_args(rng):
    """The arguments demo.main() passes to loss(x, W, b, target); it differentiates W and b."""
    return rng.normal(size=4), rng.normal(size=(3, 4)), rng.normal(size=3), rng.normal(size=3)
