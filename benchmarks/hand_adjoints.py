"""Hand-written Numba adjoints of the problems in problems.py: the practical speed limit.

Each adjoint runs the forward sweep once, storing what the backward sweep reads in preallocated
arrays, then the backward sweep written by hand, with BLAS (`@`) where the forward multiplies
matrices. Each returns `(value, gradient, ...)` for the parameters listed in its docstring, in
that order. `check_against_differences` compares one with central finite differences;
run.py calls it on small sizes before any time is taken.
"""
import math

import numba
import numpy as np


# ---------------------------------------------------------------------------------------------
# GMM objective, w.r.t. alphas, means, icf. The forward keeps every mahal[k] (K x n x d) and Q_k;
# the backward multiplies by the log-sum-exp weights of each row.

@numba.njit(cache=True)
def gmm_objective_adjoint(alphas, means, icf, x, wishart_gamma, wishart_m):
    n, d = x.shape
    k_count = alphas.shape[0]
    inner = np.empty((n, k_count))
    mahals = np.empty((k_count, n, d))
    qs = np.zeros((k_count, d, d))
    prior = 0.0
    for k in range(k_count):
        q = qs[k]
        log_diag = 0.0
        frobenius = 0.0
        for j in range(d):
            q[j, j] = math.exp(icf[k, j])
            log_diag += icf[k, j]
            frobenius += q[j, j] * q[j, j]
        idx = d
        for j in range(d):
            for i in range(j + 1, d):
                q[i, j] = icf[k, idx]
                frobenius += icf[k, idx] * icf[k, idx]
                idx += 1
        mahal = (x - means[k]) @ q.T
        mahals[k] = mahal
        for r in range(n):
            sqsum = 0.0
            for j in range(d):
                sqsum += mahal[r, j] * mahal[r, j]
            inner[r, k] = alphas[k] + log_diag - 0.5 * sqsum
        prior += 0.5 * wishart_gamma * wishart_gamma * frobenius - wishart_m * log_diag
    # log-sum-exp of every row; weights[k, r] is its derivative w.r.t. inner[r, k]
    weights = np.empty((k_count, n))
    total = 0.0
    for r in range(n):
        peak = inner[r, 0]
        for k in range(1, k_count):
            peak = max(peak, inner[r, k])
        norm = 0.0
        for k in range(k_count):
            weights[k, r] = math.exp(inner[r, k] - peak)
            norm += weights[k, r]
        total += peak + math.log(norm)
        for k in range(k_count):
            weights[k, r] /= norm
    alpha_peak = np.max(alphas)
    alpha_exp = np.exp(alphas - alpha_peak)
    alpha_norm = np.sum(alpha_exp)
    constant = -0.5 * n * d * math.log(2.0 * math.pi)
    value = constant + total - n * (alpha_peak + math.log(alpha_norm)) + prior

    d_alphas = -n * alpha_exp / alpha_norm
    d_means = np.empty((k_count, d))
    d_icf = np.empty_like(icf)
    gamma2 = wishart_gamma * wishart_gamma
    d_mahal = np.empty((n, d))
    for k in range(k_count):
        q = qs[k]
        mahal = mahals[k]
        weight_sum = 0.0
        for r in range(n):             # d inner[r, k] = weights[k, r]; d sqsum = -0.5 of it
            w = weights[k, r]
            weight_sum += w
            for j in range(d):
                d_mahal[r, j] = -w * mahal[r, j]
        d_alphas[k] += weight_sum
        d_q = d_mahal.T @ (x - means[k])            # mahal = centered @ q.T
        d_means[k] = -(np.sum(d_mahal, axis=0) @ q)  # d centered = d_mahal @ q, summed over rows
        for j in range(d):
            d_icf[k, j] = (weight_sum + d_q[j, j] * q[j, j] + gamma2 * q[j, j] * q[j, j]
                           - wishart_m)
        idx = d
        for j in range(d):
            for i in range(j + 1, d):
                d_icf[k, idx] = d_q[i, j] + gamma2 * icf[k, idx]
                idx += 1
    return value, d_alphas, d_means, d_icf


# ---------------------------------------------------------------------------------------------
# Particle chain, w.r.t. x0, v0, stiffness. The velocity update reads only the positions at the
# start of the step, and everything is linear in v: only the positions of every step are kept.
# The backward sweep goes spring by spring (spring j joins particles j and j + 1), in loops
# without a carried dependence so that they vectorise.

@numba.njit(cache=True)
def particle_chain_adjoint(x0, v0, stiffness, target, steps):
    count = x0.shape[0]
    dt = 0.01
    damping = 0.02
    xs = np.empty((steps, count))
    x = x0.copy()
    v = v0.copy()
    for t in range(steps):
        xs[t] = x
        for i in range(1, count):
            force = -stiffness[i - 1] * (x[i] - x[i - 1] - 1.0) - damping * v[i]
            if i + 1 < count:
                force = force + stiffness[i] * (x[i + 1] - x[i] - 1.0)
            v[i] = v[i] + dt * force
        for i in range(1, count):
            x[i] = x[i] + dt * v[i]
    loss = 0.0
    dx = np.empty(count)
    dv = np.empty(count)
    for i in range(count):
        loss = loss + (x[i] - target[i]) ** 2 + 0.01 * v[i] * v[i]
        dx[i] = 2.0 * (x[i] - target[i])
        dv[i] = 0.02 * v[i]
    d_stiffness = np.zeros_like(stiffness)
    d_force = np.zeros(count)          # d_force[0] stays 0: particle 0 is pinned
    d_stretch = np.empty(count - 1)
    for t in range(steps - 1, -1, -1):
        x = xs[t]
        for i in range(1, count):          # x[i] = x[i] + dt * v[i], then v[i] += dt * force
            dv[i] += dt * dx[i]
            d_force[i] = dt * dv[i]
            dv[i] -= damping * d_force[i]
        for j in range(count - 1):         # spring j pulls particle j + 1 back, particle j on
            stretch = x[j + 1] - x[j] - 1.0
            pull = d_force[j] - d_force[j + 1]
            d_stiffness[j] += pull * stretch
            d_stretch[j] = pull * stiffness[j]
        dx[0] -= d_stretch[0]
        for i in range(1, count - 1):
            dx[i] += d_stretch[i - 1] - d_stretch[i]
        dx[count - 1] += d_stretch[count - 2]
    return loss, dx, dv, d_stiffness


# ---------------------------------------------------------------------------------------------
# Lotka–Volterra RK4, w.r.t. alpha, beta, delta, gamma, prey0, predator0. The state at the
# start of every step is kept; the backward sweep recomputes the four stages of a step.

@numba.njit(cache=True)
def _lv_rates(alpha, beta, delta, gamma, u, w):
    return alpha * u - beta * u * w, delta * u * w - gamma * w


@numba.njit(cache=True)
def lotka_volterra_adjoint(alpha, beta, delta, gamma, prey0, predator0, observed, steps):
    h = 0.01
    us = np.empty(steps + 1)
    ws = np.empty(steps + 1)
    u = prey0
    w = predator0
    us[0] = u
    ws[0] = w
    loss = 0.0
    for t in range(steps):
        k1u, k1w = _lv_rates(alpha, beta, delta, gamma, u, w)
        k2u, k2w = _lv_rates(alpha, beta, delta, gamma, u + 0.5 * h * k1u, w + 0.5 * h * k1w)
        k3u, k3w = _lv_rates(alpha, beta, delta, gamma, u + 0.5 * h * k2u, w + 0.5 * h * k2w)
        k4u, k4w = _lv_rates(alpha, beta, delta, gamma, u + h * k3u, w + h * k3w)
        u = u + h / 6.0 * (k1u + 2.0 * k2u + 2.0 * k3u + k4u)
        w = w + h / 6.0 * (k1w + 2.0 * k2w + 2.0 * k3w + k4w)
        loss = loss + (u - observed[t, 0]) ** 2 + (w - observed[t, 1]) ** 2
        us[t + 1] = u
        ws[t + 1] = w
    grads = np.zeros(4)   # d alpha, d beta, d delta, d gamma
    du = 0.0
    dw = 0.0
    for t in range(steps - 1, -1, -1):
        du += 2.0 * (us[t + 1] - observed[t, 0])
        dw += 2.0 * (ws[t + 1] - observed[t, 1])
        u = us[t]
        w = ws[t]
        k1u, k1w = _lv_rates(alpha, beta, delta, gamma, u, w)
        u2, w2 = u + 0.5 * h * k1u, w + 0.5 * h * k1w
        k2u, k2w = _lv_rates(alpha, beta, delta, gamma, u2, w2)
        u3, w3 = u + 0.5 * h * k2u, w + 0.5 * h * k2w
        k3u, k3w = _lv_rates(alpha, beta, delta, gamma, u3, w3)
        u4, w4 = u + h * k3u, w + h * k3w
        # u_new = u + h/6 (k1u + 2 k2u + 2 k3u + k4u): u's own adjoint passes through
        dk1u, dk2u, dk3u, dk4u = h / 6.0 * du, h / 3.0 * du, h / 3.0 * du, h / 6.0 * du
        dk1w, dk2w, dk3w, dk4w = h / 6.0 * dw, h / 3.0 * dw, h / 3.0 * dw, h / 6.0 * dw
        du4, dw4 = _lv_rates_adjoint(alpha, beta, delta, gamma, u4, w4, dk4u, dk4w, grads)
        du += du4
        dw += dw4
        dk3u += h * du4
        dk3w += h * dw4
        du3, dw3 = _lv_rates_adjoint(alpha, beta, delta, gamma, u3, w3, dk3u, dk3w, grads)
        du += du3
        dw += dw3
        dk2u += 0.5 * h * du3
        dk2w += 0.5 * h * dw3
        du2, dw2 = _lv_rates_adjoint(alpha, beta, delta, gamma, u2, w2, dk2u, dk2w, grads)
        du += du2
        dw += dw2
        dk1u += 0.5 * h * du2
        dk1w += 0.5 * h * dw2
        du1, dw1 = _lv_rates_adjoint(alpha, beta, delta, gamma, u, w, dk1u, dk1w, grads)
        du += du1
        dw += dw1
    return loss, grads[0], grads[1], grads[2], grads[3], du, dw


@numba.njit(cache=True)
def _lv_rates_adjoint(alpha, beta, delta, gamma, u, w, dku, dkw, grads):
    """Adjoint of (ku, kw) = rates(u, w): adds to grads (parameters), returns (du, dw)."""
    grads[0] += dku * u
    grads[1] -= dku * u * w
    grads[2] += dkw * u * w
    grads[3] -= dkw * w
    du = dku * (alpha - beta * w) + dkw * delta * w
    dw = -dku * beta * u + dkw * (delta * u - gamma)
    return du, dw


# ---------------------------------------------------------------------------------------------
# LSTM, w.r.t. w_x, w_h, bias, w_out. The forward keeps gates, states and errors of every step;
# the backward collects each step's gate gradients, and the weight gradients are three GEMMs.

@numba.njit(cache=True)
def lstm_loss_adjoint(w_x, w_h, bias, w_out, inputs, targets):
    hidden = w_h.shape[1]
    steps = inputs.shape[0]
    hs = np.zeros((steps + 1, hidden))     # hs[t] is h before step t
    cs = np.zeros((steps + 1, hidden))
    acts = np.empty((steps, 4 * hidden))   # sigmoid/tanh of the gates
    tanh_cs = np.empty((steps, hidden))
    errors = np.empty((steps, targets.shape[1]))
    loss = 0.0
    for t in range(steps):
        gates = w_x @ inputs[t] + w_h @ hs[t] + bias
        for j in range(3 * hidden):
            acts[t, j] = 1.0 / (1.0 + math.exp(-gates[j]))
        for j in range(3 * hidden, 4 * hidden):
            acts[t, j] = math.tanh(gates[j])
        for j in range(hidden):
            cs[t + 1, j] = acts[t, hidden + j] * cs[t, j] + acts[t, j] * acts[t, 3 * hidden + j]
            tanh_cs[t, j] = math.tanh(cs[t + 1, j])
            hs[t + 1, j] = acts[t, 2 * hidden + j] * tanh_cs[t, j]
        errors[t] = w_out @ hs[t + 1] - targets[t]
        loss = loss + np.sum(errors[t] * errors[t])

    d_errors = 2.0 * errors
    d_gates = np.empty((steps, 4 * hidden))
    dh_next = np.zeros(hidden)
    dc = np.zeros(hidden)
    for t in range(steps - 1, -1, -1):
        dh = w_out.T @ d_errors[t] + dh_next
        for j in range(hidden):
            i_g, f_g = acts[t, j], acts[t, hidden + j]
            o_g, cand = acts[t, 2 * hidden + j], acts[t, 3 * hidden + j]
            tc = tanh_cs[t, j]
            dcj = dc[j] + dh[j] * o_g * (1.0 - tc * tc)
            d_gates[t, j] = dcj * cand * i_g * (1.0 - i_g)
            d_gates[t, hidden + j] = dcj * cs[t, j] * f_g * (1.0 - f_g)
            d_gates[t, 2 * hidden + j] = dh[j] * tc * o_g * (1.0 - o_g)
            d_gates[t, 3 * hidden + j] = dcj * i_g * (1.0 - cand * cand)
            dc[j] = dcj * f_g
        dh_next = w_h.T @ d_gates[t]
    d_w_x = d_gates.T @ inputs
    d_w_h = d_gates.T @ hs[:steps]
    d_bias = np.sum(d_gates, axis=0)
    d_w_out = d_errors.T @ hs[1:]
    return loss, d_w_x, d_w_h, d_bias, d_w_out


# ---------------------------------------------------------------------------------------------
# Logistic regression, w.r.t. w and b: d nll / d z = sigmoid(z) - label, two GEMVs.

@numba.njit(cache=True)
def logistic_regression_adjoint(w, b, features, labels):
    n = features.shape[0]
    z = features @ w + b
    total = 0.0
    dz = np.empty(n)
    for r in range(n):
        e = math.exp(-abs(z[r]))
        total += max(z[r], 0.0) + math.log1p(e) - labels[r] * z[r]
        sig = 1.0 / (1.0 + e) if z[r] >= 0.0 else e / (1.0 + e)
        dz[r] = (sig - labels[r]) / n
    value = total / n + 1e-3 * np.sum(w * w)
    dw = features.T @ dz + 2e-3 * w
    return value, dw, np.sum(dz)


# ---------------------------------------------------------------------------------------------

def central_differences(func, args, positions, eps=1e-6):
    """d func / d args[p] for p in positions, by central differences, element by element."""
    grads = []
    for p in positions:
        base = args[p]
        if np.ndim(base) == 0:
            grads.append(_difference(func, args, p, lambda v, e: v + e, float(base), eps))
            continue
        grad = np.empty(np.shape(base))
        for index in np.ndindex(grad.shape):
            def shifted(v, e, index=index):
                out = np.array(v, dtype=float)
                out[index] += e
                return out
            grad[index] = _difference(func, args, p, shifted, base, eps)
        grads.append(grad)
    return grads


def _difference(func, args, p, shift, base, eps):
    plus, minus = list(args), list(args)
    plus[p], minus[p] = shift(base, eps), shift(base, -eps)
    return (func(*plus) - func(*minus)) / (2 * eps)


def check_against_differences(name, forward, adjoint, args, positions, rtol=1e-5):
    """None if the adjoint's value and gradients agree with `forward` and central differences,
    else a description of the first disagreement."""
    value, *grads = adjoint(*args)
    expected_value = forward(*args)
    if not math.isclose(value, expected_value, rel_tol=1e-10, abs_tol=1e-12):
        return f"{name}: value {value!r} differs from the forward's {expected_value!r}"
    for p, got, expected in zip(positions, grads, central_differences(forward, args, positions)):
        scale = max(float(np.max(np.abs(expected))), 1e-8)
        error = float(np.max(np.abs(np.asarray(got) - expected))) / scale
        if error > rtol:
            return (f"{name}: gradient w.r.t. argument {p} differs from central differences "
                    f"(max error {error:.1e} of the largest component, > {rtol:g})")
    return None
