"""Functions whose generated code tests/test_generated_code.py reads: what a person writing the
adjoint by hand would keep, and what they would not."""
import math

import numpy as np


def chain(x0, v0, stiffness, steps):
    """Springs between particles, semi-implicit Euler (benchmarks' particle_chain, shorter)."""
    count = x0.shape[0]
    x = x0.copy()
    v = v0.copy()
    for t in range(steps):
        for i in range(1, count):
            force = -stiffness[i - 1] * (x[i] - x[i - 1] - 1.0)
            if i + 1 < count:
                force = force + stiffness[i] * (x[i + 1] - x[i] - 1.0)
            v[i] = v[i] + 0.01 * force
        for i in range(1, count):
            x[i] = x[i] + 0.01 * v[i]
    loss = 0.0
    for i in range(count):
        loss = loss + x[i] * x[i] + 0.5 * v[i] * v[i]
    return loss


def scalar_loop(x, k, n):
    """`c` does not change in the loop: nothing keeps it."""
    c = -k * 0.5
    s = 0.0
    for i in range(n):
        s = s + c * x * x
        x = x * 0.9 + c
    return s


def squash(z):
    return 1.0 / (1.0 + np.exp(-z))


def recurrent(w, u, xs):
    """A small recurrent net: the weight gradients are outer products summed over steps."""
    h = np.zeros(w.shape[0])
    loss = 0.0
    for t in range(xs.shape[0]):
        h = squash(w @ h + u @ xs[t])
        loss = loss + np.sum(h * h)
    return loss


def early_return(x):
    """y is bound on two paths of three: its adjoint starts at 0.0, not zeros_like(y)."""
    if x > 0:
        y = x * x
    elif x > -1:
        y = -x
    else:
        return 3.0 * x
    return y + 1.0


def elementwise(x):
    """Every operand has x's shape: no gradient needs summing back to a smaller shape."""
    y = x * x
    z = np.tanh(y) * 2.0
    return np.sum(z * y - x)


def broadcasting(x, w):
    """x (n, 1) times w (m,) is (n, m): both gradients are sums over the broadcast axes."""
    return np.sum(np.tanh(x * w) * w)


def self_update(x, c, steps):
    """Elements updated from themselves, with reads of the same element and of a neighbour."""
    y = x.copy()
    for t in range(steps):
        for i in range(1, y.shape[0]):
            y[i] = y[i] + c * y[i] * y[i - 1]
    return np.sum(y * y)


def log_sum_exp(z, w):
    """Whole-array sums whose gradient is one number: spread by broadcasting, not by a helper."""
    peak = np.max(z)
    return peak + np.log(np.sum(np.exp(z - peak))) + 0.5 * np.sum(w[1:])


def affine(x, w, b):
    """A small callee: inlined where it is called as a statement of its own."""
    z = w @ x
    return np.tanh(z + b)


def cell(h, x, w):
    """Returns two values; `h` is reassigned, so the caller's argument is bound to a new name."""
    z = h * w + x
    h = np.tanh(z)
    return h, z * z


def branchy(z):
    """Not small: a branch. Stays a call to its own generated adjoint."""
    if z > 0.0:
        return z * z
    return -z


def network(x, w, b, v):
    """Callers of the callees above, in a loop too; `z` is also a name of the caller."""
    z = affine(x, w, b)
    total = 0.0
    h = z
    for t in range(3):
        h, square = cell(h, x[t] * 2.0, v)
        total = total + np.sum(square)
    return np.sum(h * z) + total + branchy(total * 0.1)


def midpoint(a, b, u0, w0, steps):
    """Two-stage scalar integration: products of kept states are computed again, not kept."""
    u, w = u0, w0
    loss = 0.0
    for t in range(steps):
        k1 = a * u - b * u * w
        u2 = u + 0.05 * k1
        k2 = a * u2 - b * u2 * w
        w = w + 0.1 * (b * u * w - w)
        u = u + 0.1 * k2
        loss = loss + u * u + w
    return loss


def crossed(a, b, steps):
    """Two numbers computed from each other in a loop, then products of them."""
    v, w = a, b
    total = 0.0
    for t in range(steps):
        v = w * 0.5 + a
        w = v * 0.9 - b * v
        total = total + v * w
    return total


def triangle(x, w):
    """A nest whose inner range starts where the outer counter is (its trip count changes):
    the numbers kept in it and the loops' bookkeeping go on counted arrays, not lists."""
    total = 0.0
    n = x.shape[0]
    for j in range(n):
        acc = 0.0
        for i in range(j + 1, n):
            acc = acc * w + x[i] * x[j]
            if acc > 1.0:
                acc = acc - 0.5 * acc * acc
        total = total + acc * acc
    return total


def halving(x, w):
    """A `while` whose trip count depends on the data keeps its numbers on a counted array."""
    y = x
    steps = 0
    while y > 0.01 and steps < 40:
        y = y * w - 0.1 * y * y
        steps = steps + 1
    return y + 0.5 * y * y


def nested_rows(x, w):
    """An array of one shape in every trip of a nest whose inner range changes: kept as the
    rows of a growing array (`rt.push_row`)."""
    total = 0.0
    for j in range(3):
        for i in range(j, 4):
            h = np.tanh(w * x + i)
            total = total + np.sum(h * h * x)
    return total


def relax(x, k):
    for j in range(3):
        x = x + 0.1 * np.sin(k * x)
        if j == 1:
            x = 0.9 * x
    return x


def relaxed(x, k, n):
    """A callee with a loop and a branch is inlined: its values are kept on the caller's tape,
    and its forward sweep runs once."""
    total = 0.0
    for t in range(n):
        x = relax(x, k)
        total = total + np.sum(x * x)
    return total


def overwrite(x, w):
    """Elements written in place in a `range` loop: the old ones are kept in an array with one
    slot per trip, and put back at the index of their own trip."""
    for i in range(4):
        x[i % 2] = w * x[i % 2 + 1]
    return np.sum(x * x)


def gate(z):
    return 1.0 / (1.0 + np.exp(-z))


def gated(w, xs):
    """A sigmoid spelled out (in a callee, inlined) is read as rt.sigmoid: the backward sweep
    keeps its result only, not exp(-z) and 1 + exp(-z)."""
    h = np.zeros(w.shape[0])
    for t in range(xs.shape[0]):
        g = gate(w @ h + xs[t])
        h = 0.9 * g
    return np.sum(h * h)


def scalar_gate(x):
    """math.exp rounds otherwise than numpy.exp: left as written."""
    return 1.0 / (1.0 + math.exp(-x)) + 1 / (np.exp(-x) + 1)


def bump(x):
    return x * np.sin(x)


def scaled(w, x):
    """Calls `bump` inside an expression, and through `predicted` (which calls it too)."""
    return bump(np.dot(x, w)) * 2.0


def calls_in_expressions(w, x, y):
    """Small callees called inside expressions, in a loop, and nested (`scaled` calls `bump`):
    all inlined; `branchy` after a call that is not inlined, or in an `and`, stays a call."""
    total = 0.0
    for i in range(x.shape[0]):
        total = total + bump(w[i]) * y[i]
    p = scaled(w, x)
    if total > 0.0 and branchy(total) > 0.0:
        total = total * 1.5
    return np.sum((p - y) ** 2) + total + branchy(total) * bump(total)


def squares(w):
    """`w * w` and `m * m`: the rule's two terms, `d * w + d * w`, are one doubled product."""
    m = np.outer(w, w)
    return np.sum(w * w) + np.sum(np.sum(m * m, axis=1))


def shared_slice(v, rows):
    """One slice read twice in a statement (`v[1:] * v[1:]`): one temporary, a doubled product;
    and log-sum-exp of each row, a loop over the row's elements (scalar_loops.py)."""
    total = 0.0
    for r in range(rows.shape[0]):
        peak = np.max(rows[r])
        total = total + peak + np.log(np.sum(np.exp(rows[r] - peak)))
    return np.sum(v[1:] * v[1:]) + total


def broadcast_chain(a, b, big):
    """`a * b` (a row) added to `big` (a matrix): the product's gradient keeps the matrix's
    shape until it is summed back to a and b, once each."""
    c = np.zeros(b.shape[0])
    for t in range(2):
        c = a * c + b * np.tanh(big[t])
    return np.sum(c * c) + np.sum(np.tanh(a * b + big))


def row_sums(m, cube, v, col):
    """Sums along one axis of squares: their gradients are the sums put back with the axis of
    length 1 (`numpy.expand_dims`), broadcast by the product, not spread to a whole array first;
    `col * m` (a column times a matrix) keeps its spread."""
    rows = np.sum(m * m, axis=1)
    last = np.sum(cube * cube, axis=-1)
    whole = np.sum(v * v, axis=0)
    mixed = np.sum(col * m, axis=1)
    return np.sum(rows * rows) + np.sum(np.sin(last)) + whole + np.sum(mixed * mixed)


def squared_distances(x, centers, scale):
    """The GMM's inner loop in small: `m`, kept for the backward sweep as a row of a tape, is
    kept after `m * m` is computed; the square still folds into its sum, one expression (which
    the compiled flavour sums without an array of the squares)."""
    total = 0.0
    for k in range(centers.shape[0]):
        m = (x - centers[k]) * scale
        s = np.sum(m * m, axis=1)
        total = total + np.sum(np.exp(-s))
    return total


def centered_product(x, mu, w, lead):
    """A matrix product of rows less a mean: the mean's gradient sums the product's gradient
    over the rows before the product (`numpy.sum(dz, axis=0)`), not after; `lead` (a matrix
    of one row) keeps the sum after."""
    z = (x - mu) @ w
    y = (x - lead) @ w
    return np.sum(np.tanh(z)) + np.sum(y * y)


def log_sum_exp_rows(z, w):
    """A sum of exponentials of a row, in a loop, becomes a loop over the row's elements; the
    sum of `w * w` (nothing shows it is a float) stays numpy.sum."""
    total = 0.0
    for r in range(z.shape[0]):
        peak = np.max(z[r])
        total = total + peak + np.log(np.sum(np.exp(z[r] - peak))) + np.sum(w * w)
    return total


def growing_heads(x, n):
    """A value kept in a loop whose shape changes every trip (x[:i + 1]) keeps its entries."""
    total = 0.0
    for i in range(n):
        head = x[:i + 1]
        total = total + np.sum(np.sin(head) * head, axis=0)
    return total


def lower_factor(x, icf, d):
    """The GMM's factor in small: a diagonal of exponentials, its lower triangle written element
    by element from `icf`, then a product with its transpose. The triangle's loop header
    `range(j + 1, d)` stays one expression; the product's gradient, a new array only dq
    holds, is written into in place without a copy first; the square's gradient reads its
    factor once (`2 * (g * m)`) and folds."""
    q = np.diag(np.exp(icf[:d]))
    idx = d
    for j in range(d):
        for i in range(j + 1, d):
            q[i, j] = icf[idx]
            idx = idx + 1
    m = x @ q.T
    return np.sum(np.sum(m * m, axis=1))


def predator_rate(delta, gamma, u, w):
    """A rate of Lotka–Volterra: `delta * u * w` makes its adjoint's product `g * w` a number
    read twice (for delta and for u), which folds into both reads, as a person writes it."""
    k = delta * u * w - gamma * w
    return 3.0 * k


def _rk4_step(u, w, alpha, beta, delta, gamma, h):
    """One step of Lotka–Volterra's RK4: 14 statements, more than a callee inlined wherever it
    is called may have."""
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
    return u + h / 6.0 * (k1u + 2.0 * k2u + 2.0 * k3u + k4u), \
        w + h / 6.0 * (k1w + 2.0 * k2w + 2.0 * k3w + k4w)


def rk4_rollout(alpha, beta, delta, gamma, u, w, steps):
    """`_rk4_step` is called once: inlined (its forward sweep runs once, on the caller's tape),
    although it is longer than a callee called twice may be (`rk4_twice`)."""
    loss = 0.0
    for t in range(steps):
        u, w = _rk4_step(u, w, alpha, beta, delta, gamma, 0.01)
        loss = loss + u * u + w
    return loss


def rk4_twice(alpha, beta, delta, gamma, u, w):
    """Two calls of a long callee: each a call of its own generated adjoint."""
    u1, w1 = _rk4_step(u, w, alpha, beta, delta, gamma, 0.01)
    u2, w2 = _rk4_step(u1, w1, alpha, beta, delta, gamma, 0.02)
    return u2 * w2 + u1


def power_iteration(A, v0):
    """A `while` loop around a matrix-vector product written as loops (issue 48): v is kept
    once per step for the blocks that read it whole; v[j] is read from it again, not kept per
    (step, i, j)."""
    v = v0 / np.sqrt(np.dot(v0, v0))
    lam = 0.0
    k = 0
    while k < 6:
        w = np.zeros(A.shape[0])
        for i in range(A.shape[0]):
            s = 0.0
            for j in range(A.shape[1]):
                s += A[i, j] * v[j]
            w[i] = s
        lam = np.dot(v, w)
        v = w / np.sqrt(np.dot(w, w))
        k += 1
    return lam


def array_chain(x0, v0, stiffness, steps):
    """`chain` as array code, the way an autograd user writes it (issue 47): new arrays joined
    from slices at every step, no writes in place."""
    x, v = x0, v0
    for t in range(steps):
        tension = stiffness * (x[1:] - x[:-1] - 1.0)
        force = -tension + np.concatenate((tension[1:], np.zeros(1))) - 0.02 * v[1:]
        v = np.concatenate((v[:1], v[1:] + 0.01 * force))
        x = np.concatenate((x[:1], x[1:] + 0.01 * v[1:]))
    return np.sum((x - 1.05 * np.arange(x.shape[0])) ** 2 + 0.01 * v * v)
