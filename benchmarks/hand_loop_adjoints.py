"""Hand-written Numba adjoints of the kernels in loop_kernels.py: the yardstick for s2sad's
generated gradients in the loop-shapes benchmark.

Each `<name>_adjoint` takes exactly the kernel's arguments and returns `(value, grad, ...)`: the
kernel's value, then one gradient per argument position listed in the kernel's `wrt` in
`loop_kernels.SIZES`, in that order (a float for a scalar argument, an array shaped like the
argument otherwise). Each is written the way one writes an adjoint by hand for speed: a forward
sweep that stores in preallocated arrays only what the backward sweep reads, then a backward
sweep in reverse loop order that recomputes whatever is cheap. Where the iterations are
independent (pairwise_energy, horner, the rows of gmm_loops) the backward of each one follows
its forward directly, so nothing is stored across iterations. `HAND` maps kernel names to
adjoints.
"""
import math

import numba
import numpy as np


@numba.njit
def triangular_solve_adjoint(L, b):
    """Stores the solution x (n)."""
    n = b.shape[0]
    x = np.zeros(n)
    for i in range(n):
        s = b[i]
        for j in range(i):
            s -= L[i, j] * x[j]
        x[i] = s / L[i, i]
    value = 0.0
    for i in range(n):
        value += x[i] * x[i]

    L_bar = np.zeros(L.shape)
    b_bar = np.zeros(n)
    x_bar = 2.0 * x
    for i in range(n - 1, -1, -1):
        s_bar = x_bar[i] / L[i, i]
        L_bar[i, i] -= s_bar * x[i]
        for j in range(i):
            L_bar[i, j] -= s_bar * x[j]
            x_bar[j] -= s_bar * L[i, j]
        b_bar[i] = s_bar
    return value, L_bar, b_bar


@numba.njit
def heat_1d_adjoint(u0, alpha, steps):
    """Stores the state u before every time step and after the last (steps + 1 rows of n),
    the last step in row 0, so that the backward sweep reads the rows in ascending order."""
    n = u0.shape[0]
    us = np.empty((steps + 1, n))        # us[steps - t] is u before step t
    for i in range(n):
        us[steps, i] = u0[i]
    for t in range(steps):
        u = us[steps - t]
        un = us[steps - t - 1]
        un[0] = u[0]
        un[n - 1] = u[n - 1]
        for i in range(1, n - 1):
            un[i] = u[i] + alpha * (u[i + 1] - 2.0 * u[i] + u[i - 1])
    value = 0.0
    for i in range(n):
        value += us[0, i] * us[0, i]

    # The update is symmetric, so its adjoint is the same stencil applied to u_bar, provided
    # u_bar is kept zero at the fixed ends; what flows into the ends is summed apart.
    u_bar = 2.0 * us[0]
    ends_bar = np.zeros(n)
    ends_bar[0] = u_bar[0]
    ends_bar[n - 1] = u_bar[n - 1]
    u_bar[0] = 0.0
    u_bar[n - 1] = 0.0
    prev = np.zeros(n)
    alpha_terms = np.zeros(n)     # summed per i, so the loop over i vectorises
    for t in range(steps - 1, -1, -1):
        u = us[steps - t]
        for i in range(1, n - 1):
            alpha_terms[i] += u_bar[i] * (u[i + 1] - 2.0 * u[i] + u[i - 1])
            prev[i] = u_bar[i] + alpha * (u_bar[i + 1] - 2.0 * u_bar[i] + u_bar[i - 1])
        if n > 2:
            ends_bar[0] += alpha * u_bar[1]
            ends_bar[n - 1] += alpha * u_bar[n - 2]
        u_bar, prev = prev, u_bar
    alpha_bar = 0.0
    for i in range(n):
        alpha_bar += alpha_terms[i]
    return value, u_bar + ends_bar, alpha_bar


@numba.njit
def stencil_2d_adjoint(u0, k, steps):
    """Stores the grid before every time step and after the last (steps + 1 grids), the last
    step first, so that the backward sweep reads the grids in ascending order."""
    nx, ny = u0.shape[0], u0.shape[1]
    us = np.empty((steps + 1, nx, ny))   # us[steps - t] is the grid before step t
    for i in range(nx):
        for j in range(ny):
            us[steps, i, j] = u0[i, j]
    for t in range(steps):
        u = us[steps - t]
        v = us[steps - t - 1]
        for j in range(ny):
            v[0, j] = u[0, j]
            v[nx - 1, j] = u[nx - 1, j]
        for i in range(1, nx - 1):
            v[i, 0] = u[i, 0]
            v[i, ny - 1] = u[i, ny - 1]
            for j in range(1, ny - 1):
                v[i, j] = u[i, j] + k * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1]
                                         + u[i, j + 1] - 4.0 * u[i, j])
    value = 0.0
    for i in range(nx):
        for j in range(ny):
            value += us[0, i, j] * us[0, i, j]

    # As in heat_1d: u_bar stays zero on the boundary, and the adjoint of the symmetric stencil
    # is the same stencil; what flows into the fixed boundary is summed in edge_bar.
    u_bar = 2.0 * us[0]
    edge_bar = np.zeros((nx, ny))
    for i in range(nx):
        for j in range(ny):
            if i == 0 or j == 0 or i == nx - 1 or j == ny - 1:
                edge_bar[i, j] = u_bar[i, j]
                u_bar[i, j] = 0.0
    prev = np.zeros((nx, ny))
    k_terms = np.zeros(ny)        # summed per column, so the loop over j vectorises
    for t in range(steps - 1, -1, -1):
        u = us[steps - t]
        for i in range(1, nx - 1):
            for j in range(1, ny - 1):
                k_terms[j] += u_bar[i, j] * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1]
                                             + u[i, j + 1] - 4.0 * u[i, j])
                prev[i, j] = u_bar[i, j] + k * (u_bar[i - 1, j] + u_bar[i + 1, j]
                                                + u_bar[i, j - 1] + u_bar[i, j + 1]
                                                - 4.0 * u_bar[i, j])
        if nx > 2 and ny > 2:
            for j in range(1, ny - 1):
                edge_bar[0, j] += k * u_bar[1, j]
                edge_bar[nx - 1, j] += k * u_bar[nx - 2, j]
            for i in range(1, nx - 1):
                edge_bar[i, 0] += k * u_bar[i, 1]
                edge_bar[i, ny - 1] += k * u_bar[i, ny - 2]
        u_bar, prev = prev, u_bar
    k_bar = 0.0
    for j in range(ny):
        k_bar += k_terms[j]
    return value, u_bar + edge_bar, k_bar


@numba.njit
def matmul_loops_adjoint(A, B):
    """Stores the product C (m x q); C_bar = 2 C, then A_bar = C_bar B^T and B_bar = A^T C_bar."""
    m, p = A.shape[0], A.shape[1]
    q = B.shape[1]
    C = np.zeros((m, q))
    for i in range(m):
        for k in range(p):
            a = A[i, k]
            for j in range(q):
                C[i, j] += a * B[k, j]
    value = 0.0
    for i in range(m):
        for j in range(q):
            value += C[i, j] * C[i, j]

    A_bar = np.empty((m, p))
    B_bar = np.zeros((p, q))
    for i in range(m):
        for k in range(p):
            a = A[i, k]
            s = 0.0
            for j in range(q):
                c_bar = 2.0 * C[i, j]
                s += c_bar * B[k, j]
                B_bar[k, j] += a * c_bar
            A_bar[i, k] = s
    return value, A_bar, B_bar


@numba.njit
def rnn_scalar_adjoint(W, U, xs, h0):
    """Stores the state h of every time step (T + 1 rows of H); tanh' is recomputed from h."""
    T, D = xs.shape[0], xs.shape[1]
    H = h0.shape[0]
    hs = np.empty((T + 1, H))
    for j in range(H):
        hs[0, j] = h0[j]
    loss = 0.0
    for t in range(T):
        for r in range(H):
            s = 0.0
            for j in range(D):
                s += U[r, j] * xs[t, j]
            for j in range(H):
                s += W[r, j] * hs[t, j]
            h = math.tanh(s)
            hs[t + 1, r] = h
            loss += h * h

    W_bar = np.zeros((H, H))
    U_bar = np.zeros((H, D))
    h_bar = np.zeros(H)
    z_bar = np.empty(H)
    for t in range(T - 1, -1, -1):
        for r in range(H):
            h = hs[t + 1, r]
            z_bar[r] = (h_bar[r] + 2.0 * h) * (1.0 - h * h)
        for j in range(H):
            h_bar[j] = 0.0
        for r in range(H):
            g = z_bar[r]
            for j in range(D):
                U_bar[r, j] += g * xs[t, j]
            for j in range(H):
                W_bar[r, j] += g * hs[t, j]
                h_bar[j] += g * W[r, j]
    return loss, W_bar, U_bar, h_bar


@numba.njit
def lstm_scalar_adjoint(W, b, xs, h0, c0):
    """Stores h and c of every time step (T + 1 rows of H each) and the four activated gates
    (T rows of 4 H); tanh(c) is recomputed."""
    T, D = xs.shape[0], xs.shape[1]
    H = h0.shape[0]
    hs = np.empty((T + 1, H))
    cs = np.empty((T + 1, H))
    gates = np.empty((T, 4 * H))
    for j in range(H):
        hs[0, j] = h0[j]
        cs[0, j] = c0[j]
    z = np.empty(4 * H)
    loss = 0.0
    for t in range(T):
        for r in range(4 * H):
            s = b[r]
            for j in range(D):
                s += W[r, j] * xs[t, j]
            for j in range(H):
                s += W[r, D + j] * hs[t, j]
            z[r] = s
        for j in range(H):
            ig = 1.0 / (1.0 + math.exp(-z[j]))
            fg = 1.0 / (1.0 + math.exp(-z[H + j]))
            og = 1.0 / (1.0 + math.exp(-z[2 * H + j]))
            g = math.tanh(z[3 * H + j])
            gates[t, j] = ig
            gates[t, H + j] = fg
            gates[t, 2 * H + j] = og
            gates[t, 3 * H + j] = g
            c = fg * cs[t, j] + ig * g
            cs[t + 1, j] = c
            h = og * math.tanh(c)
            hs[t + 1, j] = h
            loss += h * h

    W_bar = np.zeros(W.shape)
    b_bar = np.zeros(4 * H)
    h_bar = np.zeros(H)
    c_bar = np.zeros(H)
    z_bar = np.empty(4 * H)
    for t in range(T - 1, -1, -1):
        for j in range(H):
            ig = gates[t, j]
            fg = gates[t, H + j]
            og = gates[t, 2 * H + j]
            g = gates[t, 3 * H + j]
            tc = math.tanh(cs[t + 1, j])
            hb = h_bar[j] + 2.0 * hs[t + 1, j]
            cb = c_bar[j] + hb * og * (1.0 - tc * tc)
            z_bar[j] = cb * g * ig * (1.0 - ig)
            z_bar[H + j] = cb * cs[t, j] * fg * (1.0 - fg)
            z_bar[2 * H + j] = hb * tc * og * (1.0 - og)
            z_bar[3 * H + j] = cb * ig * (1.0 - g * g)
            c_bar[j] = cb * fg
        for j in range(H):
            h_bar[j] = 0.0
        for r in range(4 * H):
            gz = z_bar[r]
            b_bar[r] += gz
            for j in range(D):
                W_bar[r, j] += gz * xs[t, j]
            for j in range(H):
                W_bar[r, D + j] += gz * hs[t, j]
                h_bar[j] += gz * W[r, D + j]
    return loss, W_bar, b_bar, h_bar, c_bar


@numba.njit
def pairwise_energy_adjoint(x, eps):
    """Stores nothing: each pair's term is differentiated right after it is computed."""
    n, dim = x.shape[0], x.shape[1]
    x_bar = np.zeros((n, dim))
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r2 = eps
            for k in range(dim):
                d = x[i, k] - x[j, k]
                r2 += d * d
            r = math.sqrt(r2)
            rr2 = r * r2
            e += 1.0 / r - 0.5 / rr2
            # d/dr2 of r2^-1/2 - 0.5 r2^-3/2, times 2 for d(d*d)/dd
            scale = 2.0 * (-0.5 / rr2 + 0.75 / (rr2 * r2))
            for k in range(dim):
                g = scale * (x[i, k] - x[j, k])
                x_bar[i, k] += g
                x_bar[j, k] -= g
    return e, x_bar


@numba.njit
def while_integrator_adjoint(y0, k, t_end):
    """Stores (x, v) before every step in one (cap, 2) array, doubled when full; dt, a and the
    new state are recomputed."""
    x = y0[0]
    v = y0[1]
    t = 0.0
    energy = 0.0
    states = np.empty((1024, 2))
    n = 0
    while True:
        # step until done or full; growing outside this loop keeps it tight
        cap = states.shape[0]
        while t < t_end and n < cap:
            states[n, 0] = x
            states[n, 1] = v
            n += 1
            dt = 0.01 / (1.0 + 0.1 * abs(v))
            a = -k * x - 0.1 * v
            v = v + dt * a
            x = x + dt * v
            t += dt
            energy += dt * (v * v + k * x * x)
        if t >= t_end:
            break
        grown = np.empty((2 * cap, 2))
        grown[:n] = states
        states = grown

    x_bar = 0.0
    v_bar = 0.0
    k_bar = 0.0
    for s in range(n - 1, -1, -1):
        x = states[s, 0]
        v = states[s, 1]
        den = 1.0 + 0.1 * abs(v)
        dt = 0.01 / den
        a = -k * x - 0.1 * v
        v1 = v + dt * a
        x1 = x + dt * v1
        # energy += dt * (v1 * v1 + k * x1 * x1)
        dt_bar = v1 * v1 + k * x1 * x1
        k_bar += dt * x1 * x1
        x1_bar = x_bar + 2.0 * dt * k * x1
        v1_bar = v_bar + 2.0 * dt * v1
        # x1 = x + dt * v1
        x_bar = x1_bar
        v1_bar += dt * x1_bar
        dt_bar += v1 * x1_bar
        # v1 = v + dt * a
        v_bar = v1_bar
        dt_bar += a * v1_bar
        a_bar = dt * v1_bar
        # a = -k * x - 0.1 * v
        k_bar -= x * a_bar
        x_bar -= k * a_bar
        v_bar -= 0.1 * a_bar
        # dt = 0.01 / (1 + 0.1 |v|)
        if v > 0.0:
            v_bar -= dt_bar * 0.001 / (den * den)
        elif v < 0.0:
            v_bar += dt_bar * 0.001 / (den * den)
    y0_bar = np.empty(2)
    y0_bar[0] = x_bar
    y0_bar[1] = v_bar
    return energy, y0_bar, k_bar


@numba.njit
def horner_adjoint(coeffs, xs):
    """Stores, per point, the partial Horner values p (n + 1), reused from point to point."""
    n = coeffs.shape[0]
    M = xs.shape[0]
    ps = np.empty(n + 1)
    c_bar = np.zeros(n)
    x_bar = np.empty(M)
    total = 0.0
    for m in range(M):
        x = xs[m]
        p = 0.0
        ps[n] = 0.0
        for i in range(n - 1, -1, -1):
            p = p * x + coeffs[i]
            ps[i] = p
        total += p * p
        # backward of the reversed range runs i upwards
        g = 2.0 * p
        xb = 0.0
        for i in range(n):
            c_bar[i] += g
            xb += g * ps[i + 1]
            g *= x
        x_bar[m] = xb
    return total, c_bar, x_bar


@numba.njit
def hmm_forward_adjoint(log_pi, log_A, log_B, obs):
    """Stores alpha of every time step (T x S) and the normalised weights of every
    log-sum-exp (T x S x S), which are the derivatives of new[j] w.r.t. alpha[i]."""
    S = log_pi.shape[0]
    T = obs.shape[0]
    alphas = np.empty((T, S))
    weights = np.empty((T, S, S))        # weights[t, j, i] = d alpha_t[j] / d alpha_{t-1}[i]
    for j in range(S):
        alphas[0, j] = log_pi[j] + log_B[j, obs[0]]
    for t in range(1, T):
        prev = alphas[t - 1]
        for j in range(S):
            m = prev[0] + log_A[0, j]
            for i in range(1, S):
                v = prev[i] + log_A[i, j]
                if v > m:
                    m = v
            acc = 0.0
            for i in range(S):
                e = math.exp(prev[i] + log_A[i, j] - m)
                weights[t, j, i] = e
                acc += e
            alphas[t, j] = m + math.log(acc) + log_B[j, obs[t]]
            for i in range(S):
                weights[t, j, i] /= acc
    last = alphas[T - 1]
    m = last[0]
    for j in range(1, S):
        if last[j] > m:
            m = last[j]
    a_bar = np.empty(S)
    se = 0.0
    for j in range(S):
        a_bar[j] = math.exp(last[j] - m)
        se += a_bar[j]
    value = m + math.log(se)

    for j in range(S):
        a_bar[j] /= se
    pi_bar = np.empty(S)
    A_bar = np.zeros((S, S))
    B_bar = np.zeros(log_B.shape)
    prev_bar = np.empty(S)
    for t in range(T - 1, 0, -1):
        for i in range(S):
            prev_bar[i] = 0.0
        o = obs[t]
        for j in range(S):
            g = a_bar[j]
            B_bar[j, o] += g
            for i in range(S):
                w = g * weights[t, j, i]
                A_bar[i, j] += w
                prev_bar[i] += w
        a_bar, prev_bar = prev_bar, a_bar
    for j in range(S):
        pi_bar[j] = a_bar[j]
        B_bar[j, obs[0]] += a_bar[j]
    return value, pi_bar, A_bar, B_bar


@numba.njit
def linear_recurrence_adjoint(a, b, x0):
    """Stores the sequence y (n)."""
    n = a.shape[0]
    y = np.empty(n)
    y[0] = x0
    for t in range(1, n):
        y[t] = a[t] * y[t - 1] + b[t]
    value = 0.0
    for t in range(n):
        value += y[t] * y[t]

    a_bar = np.zeros(n)
    b_bar = np.zeros(n)
    g = 0.0
    for t in range(n - 1, 0, -1):
        g += 2.0 * y[t]
        a_bar[t] = g * y[t - 1]
        b_bar[t] = g
        g *= a[t]
    g += 2.0 * y[0]
    return value, a_bar, b_bar, g


@numba.njit
def gmm_loops_adjoint(alphas, means, icf, x, wishart_gamma):
    """Stores exp(icf) of the diagonals (K x d) for the whole run and, per data row, xc and Lxc
    of every component (K x d each) and exp(main - max) (K); each row's backward follows its
    forward."""
    n, d = x.shape[0], x.shape[1]
    K = alphas.shape[0]
    qdiag = np.empty((K, d))
    sumlogs = np.empty(K)
    for k in range(K):
        s = 0.0
        for c in range(d):
            s += icf[k, c]
            qdiag[k, c] = math.exp(icf[k, c])
        sumlogs[k] = s
    xc = np.empty((K, d))
    Lxc = np.empty((K, d))
    main = np.empty(K)
    ew = np.empty(K)
    L_bar = np.empty(d)
    xc_bar = np.empty(d)
    alphas_bar = np.zeros(K)
    means_bar = np.zeros((K, d))
    icf_bar = np.zeros(icf.shape)
    total = 0.0
    for i in range(n):
        # forward of row i
        for k in range(K):
            for c in range(d):
                xc[k, c] = x[i, c] - means[k, c]
                Lxc[k, c] = qdiag[k, c] * xc[k, c]
            idx = d
            for c in range(d):
                for r in range(c + 1, d):
                    Lxc[k, r] += icf[k, idx] * xc[k, c]
                    idx += 1
            sq = 0.0
            for c in range(d):
                sq += Lxc[k, c] * Lxc[k, c]
            main[k] = alphas[k] + sumlogs[k] - 0.5 * sq
        mx = main[0]
        for k in range(1, K):
            if main[k] > mx:
                mx = main[k]
        se = 0.0
        for k in range(K):
            ew[k] = math.exp(main[k] - mx)
            se += ew[k]
        total += mx + math.log(se)
        # backward of row i: main_bar[k] is the log-sum-exp weight
        for k in range(K):
            w = ew[k] / se
            alphas_bar[k] += w
            for c in range(d):
                L_bar[c] = -w * Lxc[k, c]
                xc_bar[c] = L_bar[c] * qdiag[k, c]
                icf_bar[k, c] += w + xc_bar[c] * xc[k, c]
            idx = d
            for c in range(d):
                for r in range(c + 1, d):
                    icf_bar[k, idx] += L_bar[r] * xc[k, c]
                    xc_bar[c] += L_bar[r] * icf[k, idx]
                    idx += 1
            for c in range(d):
                means_bar[k, c] -= xc_bar[c]
    # - n * logsumexp(alphas)
    amax = alphas[0]
    for k in range(1, K):
        if alphas[k] > amax:
            amax = alphas[k]
    ase = 0.0
    for k in range(K):
        ase += math.exp(alphas[k] - amax)
    total -= n * (amax + math.log(ase))
    for k in range(K):
        alphas_bar[k] -= n * math.exp(alphas[k] - amax) / ase
    # Wishart-style prior
    g2 = wishart_gamma * wishart_gamma
    prior = 0.0
    for k in range(K):
        for c in range(d):
            e2 = math.exp(2.0 * icf[k, c])
            prior += e2
            icf_bar[k, c] += g2 * e2
        for c in range(d, icf.shape[1]):
            prior += icf[k, c] * icf[k, c]
            icf_bar[k, c] += g2 * icf[k, c]
    total += 0.5 * g2 * prior
    return total, alphas_bar, means_bar, icf_bar


HAND = {
    "triangular_solve": triangular_solve_adjoint,
    "heat_1d": heat_1d_adjoint,
    "stencil_2d": stencil_2d_adjoint,
    "matmul_loops": matmul_loops_adjoint,
    "rnn_scalar": rnn_scalar_adjoint,
    "lstm_scalar": lstm_scalar_adjoint,
    "pairwise_energy": pairwise_energy_adjoint,
    "while_integrator": while_integrator_adjoint,
    "horner": horner_adjoint,
    "hmm_forward": hmm_forward_adjoint,
    "linear_recurrence": linear_recurrence_adjoint,
    "gmm_loops": gmm_loops_adjoint,
}
