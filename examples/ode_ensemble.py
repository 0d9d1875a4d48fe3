"""An ensemble of 1000 Lotka–Volterra parameter fits, each with its own gradient, in one
`s2sad.vmap` call per step.

    .venv/bin/python examples/ode_ensemble.py [--members 1000] [--steps 200]

Each member starts gradient descent from its own random guess of the four rates and fits the
model's prey and predator curves to the same noisy observations. `s2sad.value_and_grad` of
the loss (an RK4 loop over time, 200 scalar steps) is batched over the members' parameters;
the observations are shared (`in_axes=None`). With the JIT on, the members run in parallel in
one compiled loop.
"""
import argparse
import time

import numpy as np

import s2sad

DT = 0.05
STEPS = 100


def rates(a, b, c, d, prey, predators):
    return a * prey - b * prey * predators, d * prey * predators - c * predators


def misfit(theta, observed):
    """Squared error between the RK4 solution for rates theta and the observed curves."""
    a, b, c, d = theta[0], theta[1], theta[2], theta[3]
    x, y = 1.0, 0.5
    total = 0.0
    for i in range(STEPS):
        k1x, k1y = rates(a, b, c, d, x, y)
        k2x, k2y = rates(a, b, c, d, x + 0.5 * DT * k1x, y + 0.5 * DT * k1y)
        k3x, k3y = rates(a, b, c, d, x + 0.5 * DT * k2x, y + 0.5 * DT * k2y)
        k4x, k4y = rates(a, b, c, d, x + DT * k3x, y + DT * k3y)
        x = x + DT / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        y = y + DT / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y)
        total = total + (x - observed[i, 0]) ** 2 + (y - observed[i, 1]) ** 2
    return total / STEPS


def observations(theta, rng):
    """The model's curves for the true rates, with 2% noise."""
    curves = np.empty((STEPS, 2))
    x, y = 1.0, 0.5
    for i in range(STEPS):  # small explicit steps: independent of the fitted RK4
        for _ in range(20):
            dx, dy = rates(*theta, x, y)
            x, y = x + DT / 20 * dx, y + DT / 20 * dy
        curves[i] = x, y
    return curves * (1.0 + 0.02 * rng.normal(size=curves.shape))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=200)
    opts = parser.parse_args(argv)
    rng = np.random.default_rng(1)
    truth = np.array([1.1, 0.4, 0.4, 0.1])
    observed = observations(truth, rng)
    thetas = truth * rng.uniform(0.5, 1.5, size=(opts.members, 4))

    fit = s2sad.vmap(s2sad.value_and_grad(misfit), in_axes=(0, None))
    started = time.perf_counter()
    losses, grads = fit(thetas, observed)
    print(f"{opts.members} members: losses and gradients {grads.shape} in "
          f"{time.perf_counter() - started:.2f} s (first call: transformation and compilation)")

    one = s2sad.grad(misfit)
    check = max(np.max(np.abs(grads[k] - one(thetas[k], observed))) for k in (0, 7, 42))
    print(f"members 0, 7, 42 against single calls: max difference {check:.1e}")
    assert check < 1e-12

    step = np.full(opts.members, 0.05)
    started = time.perf_counter()
    for it in range(opts.steps):
        trial = np.clip(thetas - step[:, None] * grads, 1e-3, None)
        new_losses, new_grads = fit(trial, observed)
        better = new_losses < losses  # per member: accept and grow the step, or shrink it
        thetas[better], losses[better], grads[better] = trial[better], new_losses[better], \
            new_grads[better]
        step = np.where(better, step * 1.2, step * 0.5)
        if it % 50 == 0 or it == opts.steps - 1:
            print(f"step {it:4d}: median loss {np.median(losses):.2e}, best {losses.min():.2e}")
    elapsed = time.perf_counter() - started
    best = thetas[np.argmin(losses)]
    print(f"{opts.steps} steps x {opts.members} members in {elapsed:.1f} s "
          f"({opts.steps * opts.members / elapsed:,.0f} gradients/s)")
    print(f"best fit {np.round(best, 3)}, true rates {truth}")


if __name__ == "__main__":
    main()
