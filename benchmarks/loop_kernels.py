"""Loop kernels written the way their users write them, not the way s2sad's generator likes them
(issue 33): bounds spelled as expressions (`n - 1`, `4 * H`, `A.shape[0]`), triangular nests,
copy-back loops, a state read in one inner loop and written in a later one, a `while` with a
data-dependent trip count, a reversed range.

Each kernel is plain module-level Python/NumPy: s2sad reads its source, `numba.njit` compiles the
very same function for the forward column of `loop_shapes_benchmark.py`, and
tests/test_loop_kernels.py checks the structure of each generated gradient. `KERNELS` lists, per
kernel, its inputs (`make(rng)`, small sizes for tests and large ones for timing) and which
arguments are differentiated.
"""
import math

import numpy as np


def triangular_solve(L, b):
    """Forward substitution L x = b for a lower-triangular L, then a scalar of x."""
    n = b.shape[0]
    x = np.zeros(n)
    for i in range(n):
        s = b[i]
        for j in range(i):
            s -= L[i, j] * x[j]
        x[i] = s / L[i, i]
    return np.sum(x * x)


def heat_1d(u0, alpha, steps):
    """Explicit heat equation, fixed ends, with a copy-back loop per time step."""
    n = u0.shape[0]
    u = u0.copy()
    un = u0.copy()
    for t in range(steps):
        for i in range(1, n - 1):
            un[i] = u[i] + alpha * (u[i + 1] - 2.0 * u[i] + u[i - 1])
        for i in range(1, n - 1):
            u[i] = un[i]
    return np.sum(u * u)


def stencil_2d(u0, k, steps):
    """A 5-point diffusion stencil on a grid, with a copy-back loop nest per step."""
    nx, ny = u0.shape[0], u0.shape[1]
    u = u0.copy()
    v = u0.copy()
    for t in range(steps):
        for i in range(1, nx - 1):
            for j in range(1, ny - 1):
                v[i, j] = u[i, j] + k * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1]
                                         + u[i, j + 1] - 4.0 * u[i, j])
        for i in range(1, nx - 1):
            for j in range(1, ny - 1):
                u[i, j] = v[i, j]
    return np.sum(u * u)


def matmul_loops(A, B):
    """C = A B as three loops over the operands' shapes, then the sum of squares of C."""
    C = np.zeros((A.shape[0], B.shape[1]))
    for i in range(A.shape[0]):
        for j in range(B.shape[1]):
            acc = 0.0
            for k in range(A.shape[1]):
                acc += A[i, k] * B[k, j]
            C[i, j] = acc
    return np.sum(C * C)


def rnn_scalar(W, U, xs, h0):
    """An Elman RNN as scalar loops: the state h is read in the inner loop over j and written
    in a later loop of the same time step."""
    T = xs.shape[0]
    H = h0.shape[0]
    D = xs.shape[1]
    h = h0.copy()
    z = np.zeros(H)
    loss = 0.0
    for t in range(T):
        for r in range(H):
            s = 0.0
            for j in range(D):
                s += U[r, j] * xs[t, j]
            for j in range(H):
                s += W[r, j] * h[j]
            z[r] = s
        for j in range(H):
            h[j] = math.tanh(z[j])
            loss += h[j] * h[j]
    return loss


def lstm_scalar(W, b, xs, h0, c0):
    """A one-layer LSTM as scalar loops (gates stacked in 4 * H rows of W)."""
    T = xs.shape[0]
    D = xs.shape[1]
    H = h0.shape[0]
    h = h0.copy()
    c = c0.copy()
    z = np.zeros(4 * H)
    loss = 0.0
    for t in range(T):
        for r in range(4 * H):
            s = b[r]
            for j in range(D):
                s += W[r, j] * xs[t, j]
            for j in range(H):
                s += W[r, D + j] * h[j]
            z[r] = s
        for j in range(H):
            ig = 1.0 / (1.0 + math.exp(-z[j]))
            fg = 1.0 / (1.0 + math.exp(-z[H + j]))
            og = 1.0 / (1.0 + math.exp(-z[2 * H + j]))
            g = math.tanh(z[3 * H + j])
            c[j] = fg * c[j] + ig * g
            h[j] = og * math.tanh(c[j])
            loss += h[j] * h[j]
    return loss


def pairwise_energy(x, eps):
    """A softened pairwise potential over i < j, positions in rows of x."""
    n = x.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r2 = eps
            for k in range(x.shape[1]):
                d = x[i, k] - x[j, k]
                r2 += d * d
            r = math.sqrt(r2)
            e += 1.0 / r - 0.5 / (r * r2)
    return e


def while_integrator(y0, k, t_end):
    """A damped oscillator stepped with a time step that shrinks as the speed grows, until
    t_end: the trip count depends on the values."""
    x = y0[0]
    v = y0[1]
    t = 0.0
    energy = 0.0
    while t < t_end:
        dt = 0.01 / (1.0 + 0.1 * abs(v))
        a = -k * x - 0.1 * v
        v = v + dt * a
        x = x + dt * v
        t += dt
        energy += dt * (v * v + k * x * x)
    return energy


def horner(coeffs, xs):
    """Horner's rule, highest coefficient first, run with a reversed range, for many points."""
    total = 0.0
    n = coeffs.shape[0]
    for m in range(xs.shape[0]):
        p = 0.0
        for i in range(n - 1, -1, -1):
            p = p * xs[m] + coeffs[i]
        total += p * p
    return total


def hmm_forward(log_pi, log_A, log_B, obs):
    """The forward algorithm of a hidden Markov model in log space; the log likelihood."""
    S = log_pi.shape[0]
    T = obs.shape[0]
    alpha = log_pi + log_B[:, obs[0]]
    new = np.zeros(S)
    for t in range(1, T):
        for j in range(S):
            m = alpha[0] + log_A[0, j]
            for i in range(1, S):
                v = alpha[i] + log_A[i, j]
                if v > m:
                    m = v
            acc = 0.0
            for i in range(S):
                acc += math.exp(alpha[i] + log_A[i, j] - m)
            new[j] = m + math.log(acc) + log_B[j, obs[t]]
        for j in range(S):
            alpha[j] = new[j]
    m = np.max(alpha)
    return m + math.log(np.sum(np.exp(alpha - m)))


def linear_recurrence(a, b, x0):
    """y[t] = a[t] * y[t - 1] + b[t], run over the sequence; the sum of squares."""
    n = a.shape[0]
    y = np.zeros(n)
    y[0] = x0
    for t in range(1, n):
        y[t] = a[t] * y[t - 1] + b[t]
    return np.sum(y * y)


def gmm_loops(alphas, means, icf, x, wishart_gamma):
    """The ADBench GMM objective written as loops, the lower-triangular factor read from icf
    with a running counter."""
    n = x.shape[0]
    d = x.shape[1]
    K = alphas.shape[0]
    xc = np.zeros(d)
    Lxc = np.zeros(d)
    main = np.zeros(K)
    total = 0.0
    for i in range(n):
        for k in range(K):
            for c in range(d):
                xc[c] = x[i, c] - means[k, c]
            sumlog = 0.0
            for c in range(d):
                sumlog += icf[k, c]
                Lxc[c] = math.exp(icf[k, c]) * xc[c]
            idx = d
            for c in range(d):
                for r in range(c + 1, d):
                    Lxc[r] += icf[k, idx] * xc[c]
                    idx += 1
            sq = 0.0
            for c in range(d):
                sq += Lxc[c] * Lxc[c]
            main[k] = alphas[k] + sumlog - 0.5 * sq
        mx = main[0]
        for k in range(1, K):
            if main[k] > mx:
                mx = main[k]
        se = 0.0
        for k in range(K):
            se += math.exp(main[k] - mx)
        total += mx + math.log(se)
    amax = alphas[0]
    for k in range(1, K):
        if alphas[k] > amax:
            amax = alphas[k]
    ase = 0.0
    for k in range(K):
        ase += math.exp(alphas[k] - amax)
    total -= n * (amax + math.log(ase))
    prior = 0.0
    for k in range(K):
        for c in range(d):
            prior += math.exp(2.0 * icf[k, c])
        for c in range(d, icf.shape[1]):
            prior += icf[k, c] * icf[k, c]
    total += 0.5 * wishart_gamma * wishart_gamma * prior
    return total


# ---------------------------------------------------------------------------------------------
# Inputs: make(rng, size) -> args; size "small" for tests, "large" for timing.

def _triangular(rng, n):
    L = np.tril(rng.uniform(-0.3, 0.3, (n, n)))
    L[np.diag_indices(n)] = rng.uniform(1.0, 2.0, n)
    return L, rng.standard_normal(n)


def _gmm(rng, n, d, K):
    icf = rng.standard_normal((K, d * (d + 1) // 2)) * 0.3
    return (rng.standard_normal(K), rng.standard_normal((K, d)), icf,
            rng.standard_normal((n, d)), 1.0)


def _hmm(rng, S, T):
    A = rng.uniform(0.1, 1.0, (S, S))
    B = rng.uniform(0.1, 1.0, (S, S))
    pi = rng.uniform(0.1, 1.0, S)
    obs = rng.integers(0, S, T)
    return (np.log(pi / pi.sum()), np.log(A / A.sum(1)[:, None]), np.log(B / B.sum(1)[:, None]),
            obs)


SIZES = {
    # name: (function, wrt, {"small": make, "large": make})
    "triangular_solve": (triangular_solve, (0, 1), {
        "small": lambda rng: _triangular(rng, 6), "large": lambda rng: _triangular(rng, 400)}),
    "heat_1d": (heat_1d, (0, 1), {
        "small": lambda rng: (rng.standard_normal(8), 0.2, 5),
        "large": lambda rng: (rng.standard_normal(200), 0.2, 2000)}),
    "stencil_2d": (stencil_2d, (0, 1), {
        "small": lambda rng: (rng.standard_normal((5, 6)), 0.1, 3),
        "large": lambda rng: (rng.standard_normal((64, 64)), 0.1, 100)}),
    "matmul_loops": (matmul_loops, (0, 1), {
        "small": lambda rng: (rng.standard_normal((3, 4)), rng.standard_normal((4, 5))),
        "large": lambda rng: (rng.standard_normal((80, 60)), rng.standard_normal((60, 70)))}),
    "rnn_scalar": (rnn_scalar, (0, 1, 3), {
        "small": lambda rng: (0.3 * rng.standard_normal((4, 4)), 0.3 * rng.standard_normal((4, 3)),
                              rng.standard_normal((5, 3)), rng.standard_normal(4)),
        "large": lambda rng: (0.2 * rng.standard_normal((32, 32)),
                              0.2 * rng.standard_normal((32, 16)),
                              rng.standard_normal((100, 16)), rng.standard_normal(32))}),
    "lstm_scalar": (lstm_scalar, (0, 1, 3, 4), {
        "small": lambda rng: (0.3 * rng.standard_normal((12, 6)), 0.3 * rng.standard_normal(12),
                              rng.standard_normal((4, 3)), rng.standard_normal(3),
                              rng.standard_normal(3)),
        "large": lambda rng: (0.2 * rng.standard_normal((128, 48)),
                              0.2 * rng.standard_normal(128), rng.standard_normal((100, 16)),
                              rng.standard_normal(32), rng.standard_normal(32))}),
    "pairwise_energy": (pairwise_energy, (0,), {
        "small": lambda rng: (rng.standard_normal((5, 3)), 0.5),
        "large": lambda rng: (rng.standard_normal((300, 3)), 0.5)}),
    "while_integrator": (while_integrator, (0, 1), {
        "small": lambda rng: (np.array([1.0, 0.2]), 2.0, 0.5),
        "large": lambda rng: (np.array([1.0, 0.2]), 2.0, 2000.0)}),
    "horner": (horner, (0, 1), {
        "small": lambda rng: (rng.standard_normal(5), rng.uniform(-1, 1, 4)),
        "large": lambda rng: (rng.standard_normal(20), rng.uniform(-1, 1, 20000))}),
    "hmm_forward": (hmm_forward, (0, 1, 2), {
        "small": lambda rng: _hmm(rng, 3, 6), "large": lambda rng: _hmm(rng, 10, 1000)}),
    "linear_recurrence": (linear_recurrence, (0, 1, 2), {
        "small": lambda rng: (rng.uniform(-0.9, 0.9, 7), rng.standard_normal(7), 0.5),
        "large": lambda rng: (rng.uniform(-0.9, 0.9, 100000), rng.standard_normal(100000), 0.5)}),
    "gmm_loops": (gmm_loops, (0, 1, 2), {
        "small": lambda rng: _gmm(rng, 4, 3, 2), "large": lambda rng: _gmm(rng, 1000, 10, 5)}),
}
