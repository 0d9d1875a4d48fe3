"""The problems of problems.py as users of JAX, HIPS autograd and PyTorch would write them.

JAX: `jax.jit(jax.grad(f, argnums))` on CPU in float64, time loops as `lax.scan`. autograd:
`autograd.grad(f, argnum)` over plain Python loops. PyTorch: float64 CPU tensors, the loss's
`.backward()`. Loops over particles and over the mixture components are vectorised, as a user
of these libraries would write them; loops over time steps stay loops.

    prepare(peer, problem, args, positions) -> call   # call() returns the gradients as NumPy
"""
import importlib
import os

import numpy as np

PEERS = ("JAX", "autograd", "PyTorch")
MODULES = {"JAX": "jax", "autograd": "autograd", "PyTorch": "torch"}
DT, DAMPING, H = 0.01, 0.02, 0.01   # the constants in problems.py


def missing(peer):
    """None if the peer can be imported, else why not."""
    try:
        importlib.import_module(MODULES[peer])
    except Exception as exc:  # noqa: BLE001 -- ImportError, or a broken install
        return f"{type(exc).__name__}: {exc}"
    return None


def prepare(peer, problem, args, positions):
    """A zero-argument callable computing the gradients w.r.t. `positions` with the peer, and
    a converter of its result to a tuple of NumPy values (outside the timing)."""
    return {"JAX": _jax, "autograd": _autograd, "PyTorch": _torch}[peer](problem, args, positions)


def gmm_gather(d):
    """Flat index into [exp(log diagonal) (d), lower triangle (d(d-1)/2), 0] of every entry of
    the d x d matrix Q, row-major; the triangle is stored column by column."""
    zero = d + d * (d - 1) // 2
    index = np.full((d, d), zero)
    index[np.arange(d), np.arange(d)] = np.arange(d)
    idx = d
    for j in range(d):
        for i in range(j + 1, d):
            index[i, j] = idx
            idx += 1
    return index.ravel()


# ---- JAX ------------------------------------------------------------------------------------

def _jax(problem, args, positions):
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax import lax
    from jax.scipy.special import logsumexp

    def gmm_objective(alphas, means, icf, x, wishart_gamma, wishart_m):
        n, d = x.shape
        k_count = alphas.shape[0]
        log_diag = icf[:, :d]
        diag = jnp.exp(log_diag)
        entries = jnp.concatenate([diag, icf[:, d:], jnp.zeros((k_count, 1))], axis=1)
        qs = entries[:, gmm_gather(d)].reshape(k_count, d, d)
        mahal = (x[None, :, :] - means[:, None, :]) @ jnp.swapaxes(qs, 1, 2)
        inner = alphas[:, None] + jnp.sum(log_diag, axis=1)[:, None] \
            - 0.5 * jnp.sum(mahal * mahal, axis=2)
        total = jnp.sum(logsumexp(inner, axis=0))
        prior = 0.5 * wishart_gamma ** 2 * (jnp.sum(diag * diag) + jnp.sum(icf[:, d:] ** 2)) \
            - wishart_m * jnp.sum(log_diag)
        constant = -0.5 * n * d * np.log(2.0 * np.pi)
        return constant + total - n * logsumexp(alphas) + prior

    def particle_chain(x0, v0, stiffness, target, steps):
        def step(state, _):
            x, v = state
            tension = stiffness * (x[1:] - x[:-1] - 1.0)
            force = -tension + jnp.append(tension[1:], 0.0) - DAMPING * v[1:]
            v = v.at[1:].add(DT * force)
            x = x.at[1:].add(DT * v[1:])
            return (x, v), None
        (x, v), _ = lax.scan(step, (x0, v0), None, length=steps)
        return jnp.sum((x - target) ** 2 + 0.01 * v * v)

    def lotka_volterra(alpha, beta, delta, gamma, prey0, predator0, observed, steps):
        def rates(u, w):
            return alpha * u - beta * u * w, delta * u * w - gamma * w

        def step(state, obs):
            u, w, loss = state
            k1u, k1w = rates(u, w)
            k2u, k2w = rates(u + 0.5 * H * k1u, w + 0.5 * H * k1w)
            k3u, k3w = rates(u + 0.5 * H * k2u, w + 0.5 * H * k2w)
            k4u, k4w = rates(u + H * k3u, w + H * k3w)
            u = u + H / 6.0 * (k1u + 2.0 * k2u + 2.0 * k3u + k4u)
            w = w + H / 6.0 * (k1w + 2.0 * k2w + 2.0 * k3w + k4w)
            return (u, w, loss + (u - obs[0]) ** 2 + (w - obs[1]) ** 2), None
        (_, _, loss), _ = lax.scan(step, (prey0, predator0, 0.0), observed[:steps])
        return loss

    def lstm_loss(w_x, w_h, bias, w_out, inputs, targets):
        hidden = w_h.shape[1]

        def step(state, data):
            h, c, loss = state
            x, target = data
            gates = w_x @ x + w_h @ h + bias
            i_gate = jax.nn.sigmoid(gates[:hidden])
            f_gate = jax.nn.sigmoid(gates[hidden:2 * hidden])
            o_gate = jax.nn.sigmoid(gates[2 * hidden:3 * hidden])
            c = f_gate * c + i_gate * jnp.tanh(gates[3 * hidden:])
            h = o_gate * jnp.tanh(c)
            error = w_out @ h - target
            return (h, c, loss + jnp.sum(error * error)), None
        (_, _, loss), _ = lax.scan(step, (jnp.zeros(hidden), jnp.zeros(hidden), 0.0),
                                   (inputs, targets))
        return loss

    def logistic_regression(w, b, features, labels):
        z = features @ w + b
        nll = jnp.maximum(z, 0.0) + jnp.log1p(jnp.exp(-jnp.abs(z))) - labels * z
        return jnp.mean(nll) + 1e-3 * jnp.sum(w * w)

    func = locals()[problem]
    static = tuple(i for i, a in enumerate(args) if isinstance(a, int))  # the step counts
    gradient = jax.jit(jax.grad(func, argnums=positions), static_argnums=static)
    values = [a if i in static else jnp.asarray(a, dtype=jnp.float64)
              for i, a in enumerate(args)]

    def call():
        return jax.block_until_ready(gradient(*values))
    return call, lambda grads: tuple(np.asarray(g) for g in grads)


# ---- HIPS autograd --------------------------------------------------------------------------

def _autograd(problem, args, positions):
    import autograd
    import autograd.numpy as anp
    from autograd.scipy.special import logsumexp

    def gmm_objective(alphas, means, icf, x, wishart_gamma, wishart_m):
        n, d = x.shape
        k_count = alphas.shape[0]
        log_diag = icf[:, :d]
        diag = anp.exp(log_diag)
        entries = anp.concatenate([diag, icf[:, d:], anp.zeros((k_count, 1))], axis=1)
        qs = anp.reshape(entries[:, gmm_gather(d)], (k_count, d, d))
        mahal = anp.matmul(x[None, :, :] - means[:, None, :], anp.transpose(qs, (0, 2, 1)))
        inner = alphas[:, None] + anp.sum(log_diag, axis=1)[:, None] \
            - 0.5 * anp.sum(mahal * mahal, axis=2)
        total = anp.sum(logsumexp(inner, axis=0))
        prior = 0.5 * wishart_gamma ** 2 * (anp.sum(diag * diag) + anp.sum(icf[:, d:] ** 2)) \
            - wishart_m * anp.sum(log_diag)
        constant = -0.5 * n * d * np.log(2.0 * np.pi)
        return constant + total - n * logsumexp(alphas) + prior

    def particle_chain(x0, v0, stiffness, target, steps):
        x, v = x0, v0
        for t in range(steps):
            tension = stiffness * (x[1:] - x[:-1] - 1.0)
            force = -tension + anp.concatenate([tension[1:], anp.zeros(1)]) - DAMPING * v[1:]
            v = anp.concatenate([v[:1], v[1:] + DT * force])
            x = anp.concatenate([x[:1], x[1:] + DT * v[1:]])
        return anp.sum((x - target) ** 2 + 0.01 * v * v)

    def lotka_volterra(alpha, beta, delta, gamma, prey0, predator0, observed, steps):
        u, w, loss = prey0, predator0, 0.0
        for t in range(steps):
            k1u, k1w = alpha * u - beta * u * w, delta * u * w - gamma * w
            u2, w2 = u + 0.5 * H * k1u, w + 0.5 * H * k1w
            k2u, k2w = alpha * u2 - beta * u2 * w2, delta * u2 * w2 - gamma * w2
            u3, w3 = u + 0.5 * H * k2u, w + 0.5 * H * k2w
            k3u, k3w = alpha * u3 - beta * u3 * w3, delta * u3 * w3 - gamma * w3
            u4, w4 = u + H * k3u, w + H * k3w
            k4u, k4w = alpha * u4 - beta * u4 * w4, delta * u4 * w4 - gamma * w4
            u = u + H / 6.0 * (k1u + 2.0 * k2u + 2.0 * k3u + k4u)
            w = w + H / 6.0 * (k1w + 2.0 * k2w + 2.0 * k3w + k4w)
            loss = loss + (u - observed[t, 0]) ** 2 + (w - observed[t, 1]) ** 2
        return loss

    def lstm_loss(w_x, w_h, bias, w_out, inputs, targets):
        hidden = w_h.shape[1]
        h, c, loss = anp.zeros(hidden), anp.zeros(hidden), 0.0
        for t in range(inputs.shape[0]):
            gates = anp.dot(w_x, inputs[t]) + anp.dot(w_h, h) + bias
            i_gate = 1.0 / (1.0 + anp.exp(-gates[:hidden]))
            f_gate = 1.0 / (1.0 + anp.exp(-gates[hidden:2 * hidden]))
            o_gate = 1.0 / (1.0 + anp.exp(-gates[2 * hidden:3 * hidden]))
            c = f_gate * c + i_gate * anp.tanh(gates[3 * hidden:])
            h = o_gate * anp.tanh(c)
            error = anp.dot(w_out, h) - targets[t]
            loss = loss + anp.sum(error * error)
        return loss

    def logistic_regression(w, b, features, labels):
        z = anp.dot(features, w) + b
        nll = anp.maximum(z, 0.0) + anp.log1p(anp.exp(-anp.abs(z))) - labels * z
        return anp.mean(nll) + 1e-3 * anp.sum(w * w)

    gradient = autograd.grad(locals()[problem], argnum=positions)
    return (lambda: gradient(*args)), lambda grads: tuple(np.asarray(g) for g in grads)


# ---- PyTorch --------------------------------------------------------------------------------

def _torch(problem, args, positions):
    import torch
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))

    def gmm_objective(alphas, means, icf, x, wishart_gamma, wishart_m):
        n, d = x.shape
        k_count = alphas.shape[0]
        log_diag = icf[:, :d]
        diag = torch.exp(log_diag)
        entries = torch.cat([diag, icf[:, d:], torch.zeros(k_count, 1, dtype=x.dtype)], dim=1)
        qs = entries[:, gather].reshape(k_count, d, d)
        mahal = (x[None, :, :] - means[:, None, :]) @ qs.transpose(1, 2)
        inner = alphas[:, None] + log_diag.sum(dim=1)[:, None] - 0.5 * (mahal * mahal).sum(2)
        total = torch.logsumexp(inner, dim=0).sum()
        prior = 0.5 * wishart_gamma ** 2 * ((diag * diag).sum() + (icf[:, d:] ** 2).sum()) \
            - wishart_m * log_diag.sum()
        constant = -0.5 * n * d * np.log(2.0 * np.pi)
        return constant + total - n * torch.logsumexp(alphas, dim=0) + prior

    def particle_chain(x0, v0, stiffness, target, steps):
        x, v = x0, v0
        zero = torch.zeros(1, dtype=x0.dtype)
        for t in range(steps):
            tension = stiffness * (x[1:] - x[:-1] - 1.0)
            force = -tension + torch.cat([tension[1:], zero]) - DAMPING * v[1:]
            v = torch.cat([v[:1], v[1:] + DT * force])
            x = torch.cat([x[:1], x[1:] + DT * v[1:]])
        return torch.sum((x - target) ** 2 + 0.01 * v * v)

    def lotka_volterra(alpha, beta, delta, gamma, prey0, predator0, observed, steps):
        u, w, loss = prey0, predator0, 0.0
        for t in range(steps):
            k1u, k1w = alpha * u - beta * u * w, delta * u * w - gamma * w
            u2, w2 = u + 0.5 * H * k1u, w + 0.5 * H * k1w
            k2u, k2w = alpha * u2 - beta * u2 * w2, delta * u2 * w2 - gamma * w2
            u3, w3 = u + 0.5 * H * k2u, w + 0.5 * H * k2w
            k3u, k3w = alpha * u3 - beta * u3 * w3, delta * u3 * w3 - gamma * w3
            u4, w4 = u + H * k3u, w + H * k3w
            k4u, k4w = alpha * u4 - beta * u4 * w4, delta * u4 * w4 - gamma * w4
            u = u + H / 6.0 * (k1u + 2.0 * k2u + 2.0 * k3u + k4u)
            w = w + H / 6.0 * (k1w + 2.0 * k2w + 2.0 * k3w + k4w)
            loss = loss + (u - observed[t, 0]) ** 2 + (w - observed[t, 1]) ** 2
        return loss

    def lstm_loss(w_x, w_h, bias, w_out, inputs, targets):
        hidden = w_h.shape[1]
        h = torch.zeros(hidden, dtype=w_x.dtype)
        c = torch.zeros(hidden, dtype=w_x.dtype)
        loss = 0.0
        for t in range(inputs.shape[0]):
            gates = w_x @ inputs[t] + w_h @ h + bias
            i_gate = torch.sigmoid(gates[:hidden])
            f_gate = torch.sigmoid(gates[hidden:2 * hidden])
            o_gate = torch.sigmoid(gates[2 * hidden:3 * hidden])
            c = f_gate * c + i_gate * torch.tanh(gates[3 * hidden:])
            h = o_gate * torch.tanh(c)
            error = w_out @ h - targets[t]
            loss = loss + torch.sum(error * error)
        return loss

    def logistic_regression(w, b, features, labels):
        z = features @ w + b
        nll = torch.clamp(z, min=0.0) + torch.log1p(torch.exp(-torch.abs(z))) - labels * z
        return torch.mean(nll) + 1e-3 * torch.sum(w * w)

    if problem == "gmm_objective":
        gather = torch.from_numpy(gmm_gather(args[3].shape[1]))
    func = locals()[problem]
    values = [a if isinstance(a, int) else
              torch.tensor(a, dtype=torch.float64, requires_grad=i in positions)
              for i, a in enumerate(args)]
    params = [values[i] for i in positions]

    def call():
        for p in params:
            p.grad = None
        func(*values).backward()
        return tuple(p.grad for p in params)
    return call, lambda grads: tuple(g.numpy().copy() for g in grads)
