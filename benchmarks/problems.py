"""The benchmark problems, written as ordinary Python/NumPy (loops where natural).

s2sad differentiates these functions from their source and `numba.njit` compiles the very same
functions for the forward column; the peers (JAX, autograd, PyTorch) get their own spellings of
the same mathematics in `peers.py`. Each function returns a scalar loss.
"""
import math

import numpy as np


# ---------------------------------------------------------------------------------------------
# ADBench Gaussian mixture model objective. icf[k] holds the log of the diagonal of the inverse
# Cholesky factor Q_k (first d entries), then its strictly lower triangle, column by column.

def gmm_objective(alphas, means, icf, x, wishart_gamma, wishart_m):
    n = x.shape[0]
    d = x.shape[1]
    k_count = alphas.shape[0]
    inner = np.zeros((n, k_count))
    prior = 0.0
    for k in range(k_count):
        q_diag = np.exp(icf[k, :d])
        q = np.diag(q_diag)
        idx = d
        for j in range(d):
            for i in range(j + 1, d):
                q[i, j] = icf[k, idx]
                idx = idx + 1
        centered = x - means[k]
        mahal = centered @ q.T
        sqsum = np.sum(mahal * mahal, axis=1)
        inner[:, k] = alphas[k] + np.sum(icf[k, :d]) - 0.5 * sqsum
        frobenius = np.sum(q_diag * q_diag) + np.sum(icf[k, d:] * icf[k, d:])
        prior = prior + 0.5 * wishart_gamma * wishart_gamma * frobenius
        prior = prior - wishart_m * np.sum(icf[k, :d])
    total = 0.0
    for r in range(n):  # log-sum-exp of every row, shifted by its maximum
        peak = np.max(inner[r])
        total = total + peak + np.log(np.sum(np.exp(inner[r] - peak)))
    alpha_peak = np.max(alphas)
    alpha_lse = alpha_peak + np.log(np.sum(np.exp(alphas - alpha_peak)))
    constant = -0.5 * n * d * math.log(2.0 * math.pi)
    return constant + total - n * alpha_lse + prior


# ---------------------------------------------------------------------------------------------
# A chain of particles on a line joined by springs, the first one pinned, integrated with
# semi-implicit (symplectic) Euler; the loss is the squared distance of the final positions to
# a target shape plus a little kinetic energy.

def particle_chain(x0, v0, stiffness, target, steps):
    count = x0.shape[0]
    x = x0.copy()
    v = v0.copy()
    dt = 0.01
    damping = 0.02
    for t in range(steps):
        for i in range(1, count):
            force = -stiffness[i - 1] * (x[i] - x[i - 1] - 1.0) - damping * v[i]
            if i + 1 < count:
                force = force + stiffness[i] * (x[i + 1] - x[i] - 1.0)
            v[i] = v[i] + dt * force
        for i in range(1, count):
            x[i] = x[i] + dt * v[i]
    loss = 0.0
    for i in range(count):
        loss = loss + (x[i] - target[i]) ** 2 + 0.01 * v[i] * v[i]
    return loss


# ---------------------------------------------------------------------------------------------
# Lotka–Volterra predator/prey, four classic RK4 steps per time step, in scalar code; the loss
# is the squared misfit to observations at every step.

def lotka_volterra(alpha, beta, delta, gamma, prey0, predator0, observed, steps):
    h = 0.01
    u = prey0
    w = predator0
    loss = 0.0
    for t in range(steps):
        k1u = alpha * u - beta * u * w
        k1w = delta * u * w - gamma * w
        u2 = u + 0.5 * h * k1u
        w2 = w + 0.5 * h * k1w
        k2u = alpha * u2 - beta * u2 * w2
        k2w = delta * u2 * w2 - gamma * w2
        u3 = u + 0.5 * h * k2u
        w3 = w + 0.5 * h * k2w
        k3u = alpha * u3 - beta * u3 * w3
        k3w = delta * u3 * w3 - gamma * w3
        u4 = u + h * k3u
        w4 = w + h * k3w
        k4u = alpha * u4 - beta * u4 * w4
        k4w = delta * u4 * w4 - gamma * w4
        u = u + h / 6.0 * (k1u + 2.0 * k2u + 2.0 * k3u + k4u)
        w = w + h / 6.0 * (k1w + 2.0 * k2w + 2.0 * k3w + k4w)
        loss = loss + (u - observed[t, 0]) ** 2 + (w - observed[t, 1]) ** 2
    return loss


# ---------------------------------------------------------------------------------------------
# One LSTM layer (hidden size = w_h.shape[1]) over a sequence, with a linear read-out trained
# against targets at every step. Gates are stacked as [input, forget, output, candidate].

def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def lstm_loss(w_x, w_h, bias, w_out, inputs, targets):
    hidden = w_h.shape[1]
    h = np.zeros(hidden)
    c = np.zeros(hidden)
    loss = 0.0
    for t in range(inputs.shape[0]):
        gates = w_x @ inputs[t] + w_h @ h + bias
        i_gate = sigmoid(gates[:hidden])
        f_gate = sigmoid(gates[hidden:2 * hidden])
        o_gate = sigmoid(gates[2 * hidden:3 * hidden])
        candidate = np.tanh(gates[3 * hidden:])
        c = f_gate * c + i_gate * candidate
        h = o_gate * np.tanh(c)
        error = w_out @ h - targets[t]
        loss = loss + np.sum(error * error)
    return loss


# ---------------------------------------------------------------------------------------------
# Logistic regression: mean negative log-likelihood plus a small L2 penalty.

def logistic_regression(w, b, features, labels):
    z = features @ w + b
    # log(1 + exp(z)) - y z, written stably
    nll = np.maximum(z, 0.0) + np.log1p(np.exp(-np.abs(z))) - labels * z
    return np.mean(nll) + 1e-3 * np.sum(w * w)
