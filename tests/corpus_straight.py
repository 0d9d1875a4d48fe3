"""Straight-line functions the reverse mode must differentiate (scalars, arrays, calls).

Each entry of CASES: (function, argument maker(rng), wrt). Inputs stay inside each function's
domain and away from kinks.
"""
import math

import numpy as np

SCALE = 1.5
OFFSET = -0.25


# ---- scalars ----------------------------------------------------------------------------------

def poly(x):
    return 3.0 * x ** 3 - 2 * x ** 2 + x - 5


def reassign(x, c):
    x = x * c
    x = x * x
    return x + c


def trig(x):
    return math.sin(x) * math.cos(x) + math.tan(x) - math.atan(x)


def exp_log(x, y):
    return math.exp(x * y) / (1 + math.log(y)) + math.log1p(x * x)


def roots(x):
    return math.sqrt(x * x + 1) + math.tanh(x) + math.hypot(x, 2.0)


def augmented(x):
    y = x
    y += x
    y *= x
    y -= 1.0
    y /= 2.0
    y **= 2
    return y


def unary(x):
    return -x * +x - (-x) ** 3


def variable_power(x, y):
    return x ** y + 2.0 ** y


def swap(x, y):
    a, b = x, y
    a, b = b * a, a + b
    a, b = b, a
    return a * b - a / b


def chained(x):
    a = b = x * 2
    c = a * b
    a = c = c + a
    return a * c


def divisions(x):
    return x / 2 + 1 / x + x / x ** 2


def globals_and_builtins(x):
    return abs(x) * SCALE + OFFSET * x + float(x) * math.pi


def exp_sqrt(x):
    return math.exp(-x) * math.sqrt(x) + math.log(x) - math.log10(x) + math.log2(x)


def unused(x, y):
    return y * 2.0


def ints_mixed(x, n):
    k = n * 2
    return x ** k + n


# ---- user functions -----------------------------------------------------------------------

def square_plus(a, b=1.0):
    return a * a + b


def pair(a, b):
    return a * b, a - b


def nested(u):
    return square_plus(u, b=2.0) * math.sin(u)


def calls(x, y):
    s = square_plus(x) + square_plus(y, 3.0)
    p, q = pair(x, s)
    return nested(p) + q * square_plus(q)


def self_referencing_call(x):
    x = square_plus(x)
    x, y = pair(x, x)
    return x * y


def aliasing(x, y):
    s = x * y
    t = s
    u = t + s
    s = u * x
    return s + t + u


def tuple_aliasing(a, b):
    p, q = pair(a, b)
    a, b = pair(p, q)
    q, p = pair(p + a, q)
    return a * p + b + q


def keyword_only(x, *, scale=2.0, shift=0.5):
    return square_plus(x, b=shift) * scale


def make_scaled(k):
    def scaled(x):
        return x * k + math.sin(x)
    return scaled


closure = make_scaled(1.7)


# ---- arrays ---------------------------------------------------------------------------------

def issue_example(x, w):
    z = np.sin(x * w)
    return np.sum(z * z) + w ** 2


def elementwise(x):
    y = np.exp(x) * np.cos(x) + np.tan(x) / 3
    z = np.sqrt(np.abs(x) + 1) - np.log(np.tanh(x) + 2)
    return np.mean(y * z)


def broadcasting(a, b, c):
    return np.sum(a * b - c / (b + 2.0) + a ** 2)


def matmul(W, x, b):
    return np.sum(np.tanh(W @ x + b))


def matrix_product(A, B):
    C = A @ B
    return np.sum(C * C) + np.dot(np.sum(A, axis=0), np.sum(B, axis=1))


def dots(a, b, M):
    return np.dot(a, b) + np.sum(np.dot(M, a)) + np.sum(np.dot(b, M)) + np.sum(np.dot(M, M))


def reductions(A):
    rows = np.sum(A, axis=1)
    cols = np.sum(A, axis=0) / 3.0
    last = np.sum(A * A, axis=-1)
    return np.sum(rows * rows) + np.mean(cols) + np.sum(last) + np.mean(A)


def mean_axis(A):
    """Numba has no numpy.mean(..., axis=...): this one runs as Python, with a warning."""
    return np.sum(np.mean(A, axis=0) ** 2) + np.sum(np.mean(A, axis=-1))


def array_reassign(x, c):
    x = x * c
    x = np.sin(x)
    x = x + x * x
    return np.sum(x)


def logistic(w, X, y):
    z = X @ w
    p = 1 / (1 + np.exp(-z))
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


def dense(x, W, b):
    return np.tanh(W @ x + b)


def mlp(x, W1, b1, W2, b2):
    h = dense(x, W1, b1)
    out = dense(h, W2, b2)
    return np.sum(out ** 2)


def scalar_and_array(s, x):
    y = s * x + np.sin(s)
    return np.sum(y * y) * s


# ---- the template library in realistic code ------------------------------------------------

def softmax_cross_entropy(logits, labels):
    m = logits.max(axis=1, keepdims=True)
    shifted = logits - m
    log_z = np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -np.mean(np.sum(labels * (shifted - log_z), axis=1))


def layer_norm(x, gain, bias):
    mu = x.mean(axis=-1, keepdims=True)
    sigma = np.sqrt(x.var(axis=-1, keepdims=True) + 1e-5)
    y = gain * (x - mu) / sigma + bias
    return np.sum(np.tanh(y) ** 2)


def gaussian_log_likelihood(a, mean, x):
    cov = a @ a.T + 3.0 * np.eye(3)
    chol = np.linalg.cholesky(cov)
    r = np.linalg.solve(chol, (x - mean).T)
    sign, logdet = np.linalg.slogdet(cov)
    return -0.5 * np.sum(r * r) - 0.5 * x.shape[0] * logdet


def shapes_pipeline(x, y):
    z = np.concatenate([x, y.T], axis=0)
    a, b = np.split(z.reshape(2, -1), 2)
    w = np.stack((a.ravel(), np.flip(b.ravel()))) + np.roll(np.tile(x[0], 2), 1)
    return np.sum(np.triu(w @ w.T) * np.clip(w.std(), 0.1, 5.0)) + np.trace(np.outer(a, b))


def batched_products(X, W, v):
    """`@`, numpy.matmul and einsum of stacks of matrices, batch dimensions broadcast."""
    H = np.tanh(X @ W)
    S = np.matmul(H, v)
    M = X[0] @ W
    T = np.einsum('kij,kjl->kil', H, W)
    return np.sum(S ** 2) + np.sum(M * H) + np.einsum('kij,j->', T, v) + \
        np.sum(np.einsum('...ij,...ij->...', H, X)) + np.einsum('ii', W[1])


def peaks_and_gathers(a, v, t):
    """numpy.max/min along an int axis (a log-sum-exp's peak), of 1, 2 and 3 dimensions, and a
    gather `a[:, index]` by an integer array with a repeated index (issue 47's GMM)."""
    peak = np.max(a, axis=0)
    lse = peak + np.log(np.sum(np.exp(a - peak), axis=0))
    low = np.amin(t, axis=-1)[:, :, None] + np.max(t, axis=1)[:, None, :]
    picked = a[:, np.array([2, 0, 2, 1])]
    return np.sum(lse) + np.max(v, axis=0) * np.sum(picked ** 2) + np.sum(np.sin(low))


def _pos(rng, *shape):
    return rng.uniform(0.5, 2.0, size=shape) if shape else float(rng.uniform(0.5, 2.0))


def _any(rng, *shape):
    return rng.normal(size=shape) if shape else float(rng.normal())


# Functions Numba cannot compile (they fall back to Python with a JitFallbackWarning).
NOT_NUMBA = {"shapes_pipeline"}   # (mean along an axis, keepdims: runtime/reduction_forms.py)

CASES = [
    (poly, lambda r: (_any(r),), 0),
    (reassign, lambda r: (_any(r), _any(r)), (0, 1)),
    (trig, lambda r: (r.uniform(-1, 1),), 0),
    (exp_log, lambda r: (_any(r) * 0.3, _pos(r)), (0, 1)),
    (roots, lambda r: (_any(r),), 0),
    (augmented, lambda r: (_pos(r),), 0),
    (unary, lambda r: (_any(r),), 0),
    (variable_power, lambda r: (_pos(r), _any(r)), (0, 1)),
    (swap, lambda r: (_pos(r), _pos(r)), (0, 1)),
    (chained, lambda r: (_any(r),), 0),
    (divisions, lambda r: (_pos(r),), 0),
    (globals_and_builtins, lambda r: (_pos(r),), 0),
    (exp_sqrt, lambda r: (_pos(r),), 0),
    (unused, lambda r: (_any(r), _any(r)), (0, 1)),
    (ints_mixed, lambda r: (_pos(r), 2), 0),
    (calls, lambda r: (_any(r) * 0.5, _any(r) * 0.5), (0, 1)),
    (self_referencing_call, lambda r: (_any(r),), 0),
    (aliasing, lambda r: (_any(r), _any(r)), (0, 1)),
    (tuple_aliasing, lambda r: (_any(r), _any(r)), (0, 1)),
    (keyword_only, lambda r: (_any(r),), 0),
    (closure, lambda r: (_any(r),), 0),
    (issue_example, lambda r: (_any(r, 5), _any(r)), (0, 1)),
    (elementwise, lambda r: (r.uniform(-1, 1, size=(3, 4)),), 0),
    (broadcasting, lambda r: (_any(r, 3, 1), _pos(r, 4), _any(r)), (0, 1, 2)),
    (matmul, lambda r: (_any(r, 3, 4), _any(r, 4), _any(r, 3)), (0, 1, 2)),
    (matrix_product, lambda r: (_any(r, 3, 4), _any(r, 4, 2)), (0, 1)),
    (dots, lambda r: (_any(r, 3), _any(r, 3), _any(r, 3, 3)), (0, 1, 2)),
    (reductions, lambda r: (_any(r, 3, 4),), 0),
    (mean_axis, lambda r: (_any(r, 3, 4),), 0),
    (array_reassign, lambda r: (_any(r, 6), _any(r)), (0, 1)),
    (logistic, lambda r: (_any(r, 3), _any(r, 20, 3), (r.uniform(size=20) > 0.5) * 1.0), 0),
    (mlp, lambda r: (_any(r, 4), _any(r, 5, 4), _any(r, 5), _any(r, 2, 5), _any(r, 2)),
     (1, 2, 3, 4)),
    (scalar_and_array, lambda r: (_any(r), _any(r, 2, 3)), (0, 1)),
    (softmax_cross_entropy, lambda r: (_any(r, 4, 3), np.eye(3)[[0, 2, 1, 2]]), 0),
    (layer_norm, lambda r: (_any(r, 4, 5), _pos(r, 5), _any(r, 5)), (0, 1, 2)),
    (gaussian_log_likelihood, lambda r: (_any(r, 3, 3) * 0.5, _any(r, 3), _any(r, 6, 3)),
     (0, 1, 2)),
    (shapes_pipeline, lambda r: (_any(r, 2, 3), _any(r, 3, 2)), (0, 1)),
    (peaks_and_gathers, lambda r: (_any(r, 4, 3), _any(r, 5), _any(r, 2, 3, 4)), (0, 1, 2)),
    (batched_products, lambda r: (_any(r, 2, 3, 4), _any(r, 2, 4, 4) * 0.5, _any(r, 4)),
     (0, 1, 2)),
]
