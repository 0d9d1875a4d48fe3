"""The problems of `make bench-arrays` (issue 47): array code, as users of autograd and JAX
write it, each with its jax.numpy twin of the same structure.

The NumPy functions are what s2sad differentiates: whole-array operations (slices,
`np.concatenate`, `@` of any rank, reductions along an axis), loops over time steps only, no
loop over particles, gates or mixture components. The MLP and the GP loss are tier_cases.py's
(the functions bench-latency and bench-compile time), imported from there.

The JAX twins are the same statements with `jnp` for `np`; a loop over time steps is a
`lax.scan` over the steps (what a JAX user writes: a Python loop under `jit` unrolls all of
them into the traced program), its body the loop's body.

    CASES: [Case(name, func, positions, make_args, jax_builder)]
    cases(quick, only): the cases at their benchmark sizes, or small ones (--quick)
"""
import dataclasses
import functools
import math

import numpy as np

import tier_cases

DT, DAMPING = 0.01, 0.02


# ---- particle chain: springs between neighbours, the first particle pinned -----------------

def chain_array(x0, v0, stiffness, target, steps):
    x = x0
    v = v0
    for t in range(steps):
        tension = stiffness * (x[1:] - x[:-1] - 1.0)
        force = -tension + np.concatenate([tension[1:], np.zeros(1)]) - DAMPING * v[1:]
        v = np.concatenate([v[:1], v[1:] + DT * force])
        x = np.concatenate([x[:1], x[1:] + DT * v[1:]])
    return np.sum((x - target) ** 2 + 0.01 * v * v)


def _jax_chain(jnp, lax):
    def chain_array(x0, v0, stiffness, target, steps):
        def step(state, _):
            x, v = state
            tension = stiffness * (x[1:] - x[:-1] - 1.0)
            force = -tension + jnp.concatenate([tension[1:], jnp.zeros(1)]) - DAMPING * v[1:]
            v = jnp.concatenate([v[:1], v[1:] + DT * force])
            x = jnp.concatenate([x[:1], x[1:] + DT * v[1:]])
            return (x, v), None
        (x, v), _ = lax.scan(step, (x0, v0), None, length=steps)
        return jnp.sum((x - target) ** 2 + 0.01 * v * v)
    return chain_array


# ---- LSTM: one layer, gates stacked [input, forget, output, candidate] ---------------------

def lstm_array(w_x, w_h, bias, w_out, inputs, targets):
    hidden = w_h.shape[1]
    h = np.zeros(hidden)
    c = np.zeros(hidden)
    loss = 0.0
    for t in range(inputs.shape[0]):
        gates = w_x @ inputs[t] + w_h @ h + bias
        i = 1.0 / (1.0 + np.exp(-gates[:hidden]))
        f = 1.0 / (1.0 + np.exp(-gates[hidden:2 * hidden]))
        o = 1.0 / (1.0 + np.exp(-gates[2 * hidden:3 * hidden]))
        g = np.tanh(gates[3 * hidden:])
        c = f * c + i * g
        h = o * np.tanh(c)
        error = w_out @ h - targets[t]
        loss = loss + np.sum(error ** 2)
    return loss


def _jax_lstm(jnp, lax):
    def lstm_array(w_x, w_h, bias, w_out, inputs, targets):
        hidden = w_h.shape[1]

        def step(state, data):
            h, c, loss = state
            x_t, target = data
            gates = w_x @ x_t + w_h @ h + bias
            i = 1.0 / (1.0 + jnp.exp(-gates[:hidden]))
            f = 1.0 / (1.0 + jnp.exp(-gates[hidden:2 * hidden]))
            o = 1.0 / (1.0 + jnp.exp(-gates[2 * hidden:3 * hidden]))
            g = jnp.tanh(gates[3 * hidden:])
            c = f * c + i * g
            h = o * jnp.tanh(c)
            error = w_out @ h - target
            return (h, c, loss + jnp.sum(error ** 2)), None
        start = (jnp.zeros(hidden), jnp.zeros(hidden), 0.0)
        (_, _, loss), _ = lax.scan(step, start, (inputs, targets))
        return loss
    return lstm_array


# ---- GMM (ADBench's objective) with every component at once --------------------------------
# icf[k]: the log of Q_k's diagonal (d entries), then its strict lower triangle column by
# column. Q_k is gathered from [exp(log diagonal), lower triangle, 0] by a flat index that
# depends on d alone, built once per d.

@functools.lru_cache(maxsize=None)
def tril_index(d):
    """index[i * d + j]: where Q[i, j] is in [diagonal (d), lower triangle, 0]."""
    index = np.full((d, d), d + d * (d - 1) // 2)
    index[np.arange(d), np.arange(d)] = np.arange(d)
    rows, cols = np.tril_indices(d, -1)
    order = np.lexsort((rows, cols))            # column by column, as icf stores them
    index[rows[order], cols[order]] = d + np.arange(rows.size)
    return index.ravel()


def logsumexp(a):
    """log(sum(exp(a), axis=0)), shifted by the peak of each column."""
    peak = np.max(a, axis=0)
    return peak + np.log(np.sum(np.exp(a - peak), axis=0))


def gmm_array(alphas, means, icf, x, wishart_gamma, wishart_m):
    n, d = x.shape
    k_count = alphas.shape[0]
    log_diag = icf[:, :d]
    diag = np.exp(log_diag)
    entries = np.concatenate([diag, icf[:, d:], np.zeros((k_count, 1))], axis=1)
    qs = entries[:, tril_index(d)].reshape(k_count, d, d)
    centered = x[None, :, :] - means[:, None, :]                 # (K, n, d)
    mahal = centered @ np.transpose(qs, (0, 2, 1))               # (K, n, d)
    inner = alphas[:, None] + np.sum(log_diag, axis=1)[:, None] \
        - 0.5 * np.sum(mahal * mahal, axis=2)                    # (K, n)
    total = np.sum(logsumexp(inner))
    alpha_lse = logsumexp(alphas)
    prior = 0.5 * wishart_gamma ** 2 * (np.sum(diag * diag) + np.sum(icf[:, d:] ** 2)) \
        - wishart_m * np.sum(log_diag)
    constant = -0.5 * n * d * math.log(2.0 * math.pi)
    return constant + total - n * alpha_lse + prior


def _jax_gmm(jnp, lax):
    def logsumexp(a):
        peak = jnp.max(a, axis=0)
        return peak + jnp.log(jnp.sum(jnp.exp(a - peak), axis=0))

    def gmm_array(alphas, means, icf, x, wishart_gamma, wishart_m):
        n, d = x.shape
        k_count = alphas.shape[0]
        log_diag = icf[:, :d]
        diag = jnp.exp(log_diag)
        entries = jnp.concatenate([diag, icf[:, d:], jnp.zeros((k_count, 1))], axis=1)
        qs = entries[:, tril_index(d)].reshape(k_count, d, d)
        centered = x[None, :, :] - means[:, None, :]
        mahal = centered @ jnp.transpose(qs, (0, 2, 1))
        inner = alphas[:, None] + jnp.sum(log_diag, axis=1)[:, None] \
            - 0.5 * jnp.sum(mahal * mahal, axis=2)
        total = jnp.sum(logsumexp(inner))
        alpha_lse = logsumexp(alphas)
        prior = 0.5 * wishart_gamma ** 2 * (jnp.sum(diag * diag) + jnp.sum(icf[:, d:] ** 2)) \
            - wishart_m * jnp.sum(log_diag)
        constant = -0.5 * n * d * math.log(2.0 * math.pi)
        return constant + total - n * alpha_lse + prior
    return gmm_array


# ---- the cases -------------------------------------------------------------------------------

@dataclasses.dataclass
class Case:
    name: str
    func: object          # the NumPy function s2sad differentiates
    positions: tuple      # the parameters differentiated
    make_args: object     # rng -> the arguments
    jax_builder: object   # (jnp, lax) -> the JAX twin
    jax_loop: str         # how the twin runs the loop over time ("" when there is none)


def _inputs(maker, *sizes):
    """cases.py's input maker of `make bench` (chain, LSTM, GMM), imported when called: cases.py
    imports Numba, which the fresh processes of the first calls must not have loaded before
    s2sad does (they get their inputs from a file)."""
    def make(rng):
        import cases
        return getattr(cases, maker)(*sizes)(rng)
    return make


def cases(quick=False, only=None):
    steps, gmm_n = (100, 200) if quick else (1000, 1000)
    lstm_steps = 20 if quick else 100
    tiers = {case[0]: case for case in tier_cases.CASES}
    out = [
        Case(f"particle chain 32x{steps}", chain_array, (0, 1, 2),
             _inputs("chain_args", 32, steps), _jax_chain, "lax.scan"),
        Case(f"LSTM D16 H32 T{lstm_steps}", lstm_array, (0, 1, 2, 3),
             _inputs("lstm_args", 32, 16, 4, lstm_steps), _jax_lstm, "lax.scan"),
        Case(f"GMM d=10 K=5 n={gmm_n}", gmm_array, (0, 1, 2),
             _inputs("gmm_args", 10, 5, gmm_n), _jax_gmm, ""),
        Case(f"GMM d=64 K=25 n={gmm_n}", gmm_array, (0, 1, 2),
             _inputs("gmm_args", 64, 25, gmm_n), _jax_gmm, ""),
    ]
    for label, key in (("MLP", "MLP (one hidden layer)"),
                       ("GP negative log likelihood", "GP negative log likelihood")):
        name, func, positions, make_args, jax_builder = tiers[key]
        out.append(Case(f"{label} (tier_cases.py)", func, positions, make_args, jax_builder,
                        ""))
    return [case for case in out if not only or only.lower() in case.name.lower()]
