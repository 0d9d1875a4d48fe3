"""The seven functions of `make bench-latency` (issues 37 and 46), each with its arguments, the
positions differentiated, and the same function written for JAX (None where JAX's jit cannot
take the code as written: Python control flow on traced values).

    CASES: [(name, func, positions, make_args, jax_builder)]
    CALL_CASES: the names of the loops also timed called 10, 100 and 1000 times (issue 46)
"""
import math

import numpy as np

import latency_case
import problems


def least_squares(w, x, y):
    r = x @ w - y
    return np.sum(r * r)


def mlp(W1, b1, W2, b2, x, y):
    h = np.tanh(x @ W1 + b1)
    out = h @ W2 + b2
    return np.mean((out - y) ** 2)


def gp_nll(log_ell, log_sf, X, y):
    d = X[:, None, :] - X[None, :, :]
    K = np.exp(2.0 * log_sf) * np.exp(-0.5 * np.sum(d * d, axis=2) / np.exp(2.0 * log_ell))
    K = K + 1e-2 * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * X.shape[0] * math.log(2 * math.pi)


def scalar_loop(a, b, n):
    s = 0.0
    x = b
    for i in range(n):
        x = x + 0.01 * (a * math.sin(x) - b * x)
        s = s + x * x
    return s / n


def pendulum(y, p):
    """A damped pendulum: y = (angle, angular velocity), p = (g / length, damping)."""
    return np.array([y[1], -p[0] * np.sin(y[0]) - p[1] * y[1]])


def rk4(y0, p, dt, n):
    """n classic Runge-Kutta steps of the pendulum from y0; the loss is the time integral of
    the squared angle."""
    y = y0
    loss = 0.0
    for i in range(n):
        k1 = pendulum(y, p)
        k2 = pendulum(y + 0.5 * dt * k1, p)
        k3 = pendulum(y + 0.5 * dt * k2, p)
        k4 = pendulum(y + dt * k3, p)
        y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        loss = loss + dt * y[0] ** 2
    return loss


def _least_squares_args(rng):
    return rng.normal(size=5), rng.normal(size=(40, 5)), rng.normal(size=40)


def _mlp_args(rng):
    return (0.3 * rng.normal(size=(4, 16)), np.zeros(16), 0.3 * rng.normal(size=(16, 1)),
            np.zeros(1), rng.normal(size=(32, 4)), rng.normal(size=(32, 1)))


def _gp_args(rng):
    return 0.1, 0.2, rng.normal(size=(20, 2)), rng.normal(size=20)


def _loop_args(rng):
    return 1.3, 0.7, 500


def _rk4_args(rng):
    return np.array([1.0, 0.0]), np.array([9.81, 0.3]), 0.01, 1000


def _chain_args(rng):
    count, steps = 8, 100
    return (np.arange(count, dtype=float), 0.1 * rng.normal(size=count),
            rng.uniform(0.5, 1.5, count - 1), np.arange(count, dtype=float) * 1.05, steps)


# ---- the same functions for JAX: jnp for np, lax.fori_loop for the loops ----------------------

def _jax_least_squares(jnp, lax):
    def least_squares(w, x, y):
        r = x @ w - y
        return jnp.sum(r * r)
    return least_squares


def _jax_mlp(jnp, lax):
    def mlp(W1, b1, W2, b2, x, y):
        h = jnp.tanh(x @ W1 + b1)
        out = h @ W2 + b2
        return jnp.mean((out - y) ** 2)
    return mlp


def _jax_gp(jnp, lax):
    import jax.scipy.linalg as jsl

    def gp_nll(log_ell, log_sf, X, y):
        d = X[:, None, :] - X[None, :, :]
        K = jnp.exp(2.0 * log_sf) * jnp.exp(-0.5 * jnp.sum(d * d, axis=2)
                                            / jnp.exp(2.0 * log_ell))
        K = K + 1e-2 * jnp.eye(X.shape[0])
        L = jnp.linalg.cholesky(K)
        alpha = jsl.solve_triangular(L.T, jsl.solve_triangular(L, y, lower=True), lower=False)
        return 0.5 * y @ alpha + jnp.sum(jnp.log(jnp.diag(L))) \
            + 0.5 * X.shape[0] * math.log(2 * math.pi)
    return gp_nll


def _jax_scalar_loop(jnp, lax):
    def scalar_loop(a, b, n):
        def step(i, state):
            x, s = state
            x = x + 0.01 * (a * jnp.sin(x) - b * x)
            return x, s + x * x
        _, s = lax.fori_loop(0, n, step, (b, 0.0))
        return s / n
    return scalar_loop


def _jax_chain(jnp, lax):
    dt, damping = 0.01, 0.02

    def particle_chain(x0, v0, stiffness, target, steps):
        def step(_, state):
            x, v = state
            tension = stiffness * (x[1:] - x[:-1] - 1.0)
            force = -tension + jnp.append(tension[1:], 0.0) - damping * v[1:]
            v = v.at[1:].add(dt * force)
            x = x.at[1:].add(dt * v[1:])
            return x, v
        x, v = lax.fori_loop(0, steps, step, (x0, v0))
        return jnp.sum((x - target) ** 2 + 0.01 * v * v)
    return particle_chain


def _jax_rk4(jnp, lax):
    def pendulum(y, p):
        return jnp.array([y[1], -p[0] * jnp.sin(y[0]) - p[1] * y[1]])

    def rk4(y0, p, dt, n):
        def step(i, state):
            y, loss = state
            k1 = pendulum(y, p)
            k2 = pendulum(y + 0.5 * dt * k1, p)
            k3 = pendulum(y + 0.5 * dt * k2, p)
            k4 = pendulum(y + dt * k3, p)
            y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
            return y, loss + dt * y[0] ** 2
        _, loss = lax.fori_loop(0, n, step, (y0, 0.0))
        return loss
    return rk4


CASES = [
    ("3-line least squares", least_squares, (0,), _least_squares_args, _jax_least_squares),
    ("MLP (one hidden layer)", mlp, (0, 1, 2, 3), _mlp_args, _jax_mlp),
    ("GP negative log likelihood", gp_nll, (0, 1), _gp_args, _jax_gp),
    ("scalar loop (500 steps)", scalar_loop, (0, 1), _loop_args, _jax_scalar_loop),
    ("2-D loop (particle chain)", problems.particle_chain, (0, 1, 2), _chain_args, _jax_chain),
    ("RK4 loop (1000 steps, pendulum)", rk4, (0, 1), _rk4_args, _jax_rk4),
    ("100-line function (drone)", latency_case.drone_loss, latency_case.POSITIONS,
     latency_case.make_args, None),
]
CALL_CASES = ("scalar loop (500 steps)", "2-D loop (particle chain)",
              "RK4 loop (1000 steps, pendulum)")
