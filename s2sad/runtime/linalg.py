"""Runtime helpers for the derivative templates of linear algebra (templates/numpy_linalg.py).

Re-exported by s2sad.rt (generated code calls them as rt.<name>); their Numba implementations are
in rt_numba_linalg.py. `g` is always the adjoint of the primal's result. Stacked matrices
(`(..., n, n)`) are supported wherever NumPy supports them.
"""
import string

import numpy as np

__all__ = ["vdot_grad", "outer_grad_a", "outer_grad_b", "inner_grad_a", "inner_grad_b",
           "tensordot_grad_a", "tensordot_grad_b", "trace_grad", "einsum_grads",
           "kron_grad_a", "kron_grad_b", "cross_grad_a", "cross_grad_b", "inv_grad",
           "solve_grad_a", "solve_grad_b", "logdet_grad", "cholesky_grad", "multi_dot_grads",
           "cross", "trace", "solve_product", "solve_product_grad_m", "solve_product_grad_z",
           "cholesky_lower", "cholesky_mask", "einsum_tangent", "einsum_tangent_grads",
           "multi_dot_tangent", "multi_dot_tangent_grads", "einsum_tangent2",
           "multi_dot_tangent2"]


def _result(x, like):
    """x as the gradient of `like`: a float for a scalar, else a float64 array of like's shape."""
    if np.ndim(like) == 0 and not isinstance(like, np.ndarray):
        return float(np.sum(x))
    return np.array(np.reshape(x, np.shape(like)), dtype=np.float64)


def _swap(x):
    """Transpose of the last two axes (of each matrix of a stack)."""
    return np.swapaxes(x, -1, -2)


def _sum_to(x, like):
    """Sum a broadcast gradient x back to the shape of `like` (NumPy broadcasting rules)."""
    shape = np.shape(like)
    extra = x.ndim - len(shape)
    x = np.sum(x, axis=tuple(range(extra))) if extra > 0 else x
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and x.shape[i] != 1)
    return _result(np.sum(x, axis=axes, keepdims=True) if axes else x, like)


# ---- products -----------------------------------------------------------------------------------

def vdot_grad(g, other, like):
    """Gradient w.r.t. one operand (shaped `like`) of z = np.vdot(a, b): g * the other operand,
    flattened and reshaped like it (vdot flattens both operands)."""
    return _result(g * np.reshape(other, np.shape(like)), like)


def outer_grad_a(g, a, b):
    """Gradient w.r.t. a of z = np.outer(a, b) (operands are flattened): g @ b, reshaped."""
    return _result(np.dot(g, np.ravel(b)), a)


def outer_grad_b(g, a, b):
    """Gradient w.r.t. b of z = np.outer(a, b) (operands are flattened): a @ g, reshaped."""
    return _result(np.dot(np.ravel(a), g), b)


def _tensordot_axes(axes, nda, ndb):
    """np.tensordot's `axes` as two lists of non-negative axes of a and b."""
    if np.ndim(axes) == 0:
        n = int(axes)
        return list(range(nda - n, nda)), list(range(n))
    axes_a, axes_b = axes
    axes_a = [axes_a] if np.ndim(axes_a) == 0 else list(axes_a)
    axes_b = [axes_b] if np.ndim(axes_b) == 0 else list(axes_b)
    return [int(i) % nda for i in axes_a], [int(i) % ndb for i in axes_b]


def tensordot_grad_a(g, a, b, axes=2):
    """Gradient w.r.t. a of z = np.tensordot(a, b, axes): g contracted with b over b's free
    axes, then the axes put back in a's order."""
    axes_a, axes_b = _tensordot_axes(axes, np.ndim(a), np.ndim(b))
    free_a = [i for i in range(np.ndim(a)) if i not in axes_a]
    free_b = [j for j in range(np.ndim(b)) if j not in axes_b]
    g = np.asarray(g, dtype=np.float64)
    r = np.tensordot(g, b, axes=(list(range(len(free_a), g.ndim)), free_b))
    # r's axes: a's free axes, then the contracted axes of a, in the order of b's axes.
    source = free_a + [axes_a[axes_b.index(j)] for j in sorted(axes_b)]
    return _result(np.transpose(r, np.argsort(source)), a)


def tensordot_grad_b(g, a, b, axes=2):
    """Gradient w.r.t. b of z = np.tensordot(a, b, axes): a contracted with g over a's free
    axes, then the axes put back in b's order."""
    axes_a, axes_b = _tensordot_axes(axes, np.ndim(a), np.ndim(b))
    free_a = [i for i in range(np.ndim(a)) if i not in axes_a]
    free_b = [j for j in range(np.ndim(b)) if j not in axes_b]
    g = np.asarray(g, dtype=np.float64)
    r = np.tensordot(a, g, axes=(free_a, list(range(len(free_a)))))
    # r's axes: the contracted axes of b, in the order of a's axes, then b's free axes.
    source = [axes_b[axes_a.index(i)] for i in sorted(axes_a)] + free_b
    return _result(np.transpose(r, np.argsort(source)), b)


def inner_grad_a(g, a, b):
    """Gradient w.r.t. a of z = np.inner(a, b) (a product when either is a scalar)."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return _sum_to(np.asarray(np.multiply(g, b)), a)
    return tensordot_grad_a(g, a, b, ([np.ndim(a) - 1], [np.ndim(b) - 1]))


def inner_grad_b(g, a, b):
    """Gradient w.r.t. b of z = np.inner(a, b) (a product when either is a scalar)."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return _sum_to(np.asarray(np.multiply(g, a)), b)
    return tensordot_grad_b(g, a, b, ([np.ndim(a) - 1], [np.ndim(b) - 1]))


def kron_grad_a(g, a, b):
    """Gradient w.r.t. a of z = np.kron(a, b): g seen as blocks g[i, k] (i over a, k over b),
    each block contracted with b."""
    g4, nd = _kron_blocks(g, a, b)
    b_ = np.reshape(b, (1,) * (nd - np.ndim(b)) + np.shape(b))
    return _result(np.tensordot(g4, b_, axes=(list(range(1, 2 * nd, 2)), list(range(nd)))), a)


def kron_grad_b(g, a, b):
    """Gradient w.r.t. b of z = np.kron(a, b): the blocks of g weighted by a and summed."""
    g4, nd = _kron_blocks(g, a, b)
    a_ = np.reshape(a, (1,) * (nd - np.ndim(a)) + np.shape(a))
    return _result(np.tensordot(g4, a_, axes=(list(range(0, 2 * nd, 2)), list(range(nd)))), b)


def _kron_blocks(g, a, b):
    """g of np.kron(a, b) reshaped to (a0, b0, a1, b1, ...): axis k of z is (i_k, j_k)."""
    nd = max(np.ndim(a), np.ndim(b))
    sa = (1,) * (nd - np.ndim(a)) + np.shape(a)
    sb = (1,) * (nd - np.ndim(b)) + np.shape(b)
    return np.reshape(g, [n for pair in zip(sa, sb) for n in pair]), nd


def cross_grad_a(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Gradient w.r.t. a of z = np.cross(a, b) (3-vectors): cross(b, g)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    return _cross_grad(np.moveaxis(np.asarray(b), axisb, -1), g, axisc, a, axisa, True)


def cross_grad_b(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Gradient w.r.t. b of z = np.cross(a, b) (3-vectors): cross(g, a)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    return _cross_grad(np.moveaxis(np.asarray(a), axisa, -1), g, axisc, b, axisb, False)


def _cross_grad(other, g, axisc, like, axis, first):
    """cross(other, g) (first) or cross(g, other), components last, summed back to `like`
    with its components on `axis`."""
    if other.shape[-1] != 3 or np.shape(like)[axis] != 3:
        raise NotImplementedError("the gradient of numpy.cross is implemented for 3-vectors")
    g = np.moveaxis(np.asarray(g, dtype=np.float64), axisc, -1)
    r = np.cross(other, g) if first else np.cross(g, other)
    # Components back to `axis` of like, counted from the end (r may have extra leading axes).
    return _sum_to(np.moveaxis(r, -1, (axis % np.ndim(like)) - np.ndim(like)), like)


# ---- einsum -------------------------------------------------------------------------------------

def _einsum_labels(subscripts, ndims):
    """([labels of each operand], output labels) for np.einsum, with `...` spelled out as
    letters unused elsewhere and an implicit output made explicit."""
    spec = subscripts.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    inputs = inputs.split(",")
    if len(inputs) != len(ndims):
        raise ValueError(f"einsum: {len(inputs)} operand subscripts for {len(ndims)} operands")
    spare = [c for c in string.ascii_letters if c not in spec]
    widths = [nd - (len(s) - 3) for s, nd in zip(inputs, ndims) if "..." in s]
    width = max(widths, default=0)
    ellipsis = "".join(spare[:width])
    inputs = [s.replace("...", ellipsis[width - (nd - (len(s) - 3)):]) if "..." in s else s
              for s, nd in zip(inputs, ndims)]
    if arrow:
        output = output.replace("...", ellipsis)
    else:  # implicit: broadcast axes first, then the labels used once, in alphabetical order
        named = "".join(s for s in spec.split(",")).replace("...", "")
        output = ellipsis + "".join(sorted(c for c in set(named) if named.count(c) == 1))
    return inputs, output


def einsum_grads(g, subscripts, operands):
    """Gradients of z = np.einsum(subscripts, *operands) w.r.t. each operand, as a tuple.

    Operand k's gradient is an einsum of g with the other operands giving operand k's distinct
    labels; labels only operand k has are broadcast, broadcast (size-1) axes summed, and a
    label repeated within the operand (`ii`) puts the gradient on that diagonal."""
    labels, output = _einsum_labels(subscripts, [np.ndim(o) for o in operands])
    g = np.asarray(g, dtype=np.float64)
    grads = []
    for k, operand in enumerate(operands):
        own = labels[k]
        others = [o for j, o in enumerate(operands) if j != k]
        other_labels = [s for j, s in enumerate(labels) if j != k]
        available = set(output).union(*other_labels)
        distinct = "".join(dict.fromkeys(own))
        kept = "".join(c for c in distinct if c in available)
        r = np.einsum(",".join([output] + other_labels) + "->" + kept, g, *others)
        shape = np.shape(operand)
        size = {c: shape[own.index(c)] for c in distinct}
        # axes the operand has with size 1 where the others have more were broadcast: sum them
        summed = tuple(i for i, c in enumerate(kept) if size[c] == 1 and r.shape[i] != 1)
        if summed:
            r = np.sum(r, axis=summed, keepdims=True)
        missing = tuple(i for i, c in enumerate(distinct) if c not in available)
        r = np.broadcast_to(np.expand_dims(r, missing), [size[c] for c in distinct])
        if len(distinct) == len(own):
            grads.append(_result(r, operand))
            continue
        out = np.zeros(shape)
        grid = np.indices(r.shape, sparse=True)
        out[tuple(grid[distinct.index(c)] for c in own)] = r
        grads.append(out)
    return tuple(grads)


# ---- trace --------------------------------------------------------------------------------------

def trace_grad(g, a, offset=0, axis1=0, axis2=1):
    """Gradient w.r.t. a of z = np.trace(a, offset, axis1, axis2): g on that diagonal."""
    out = np.zeros(np.shape(a))
    view = np.moveaxis(out, (axis1, axis2), (-2, -1))
    n1, n2 = view.shape[-2:]
    i = np.arange(max(0, -offset), max(0, min(n1, n2 - offset)))
    view[..., i, i + offset] = np.asarray(g, dtype=np.float64)[..., None]
    return out


# ---- numpy.linalg -------------------------------------------------------------------------------

def inv_grad(g, z):
    """Gradient w.r.t. a of z = np.linalg.inv(a): -z^T g z^T."""
    zt = _swap(z)
    return -np.matmul(np.matmul(zt, g), zt)


_NUMPY2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"


def _is_vector(a, b):
    """Whether np.linalg.solve(a, b) treats b as (a stack of) vectors."""
    return np.ndim(b) == 1 or (not _NUMPY2 and np.ndim(b) == np.ndim(a) - 1)


def _solve_adjoint(g, a, b):
    """a^-T g, with g shaped like np.linalg.solve(a, b)."""
    if _is_vector(a, b):
        return np.linalg.solve(_swap(a), np.asarray(g)[..., None])[..., 0]
    return np.linalg.solve(_swap(a), g)


def solve_grad_a(g, a, b, z):
    """Gradient w.r.t. a of z = np.linalg.solve(a, b): -(a^-T g) z^T."""
    gb = _solve_adjoint(g, a, b)
    if _is_vector(a, b):
        return _sum_to(-gb[..., :, None] * z[..., None, :], a)
    return _sum_to(-np.matmul(gb, _swap(z)), a)


def solve_grad_b(g, a, b):
    """Gradient w.r.t. b of z = np.linalg.solve(a, b): a^-T g."""
    return _sum_to(_solve_adjoint(g, a, b), b)


def logdet_grad(g, a):
    """g * a^-T: the gradient w.r.t. a of log|det a| with adjoint g (of det a: g = dz * z)."""
    return np.asarray(g, dtype=np.float64)[..., None, None] * _swap(np.linalg.inv(a))


def cholesky_grad(g, factor, upper=False):
    """Gradient w.r.t. a of L = np.linalg.cholesky(a, upper=upper) (`factor` is L).

    NumPy reads only a's lower triangle (upper: its upper triangle), so the gradient is zero on
    the other one. With X = L^-T phi(L^T g) L^-1, phi keeping the lower triangle with the
    diagonal halved, the gradient is X + X^T below the diagonal and X on it."""
    if upper:  # u = cholesky(a^T)^T: work with the lower factor, transpose at the end
        factor, g = _swap(factor), _swap(g)
    n = np.shape(factor)[-1]
    eye = np.eye(n)
    c = np.matmul(_swap(factor), g)
    phi = np.tril(c, -1) + 0.5 * c * eye
    linv = np.linalg.inv(factor)
    x = np.matmul(np.matmul(_swap(linv), phi), linv)
    out = np.tril(x + _swap(x), -1) + x * eye
    return _swap(out) if upper else out


def multi_dot_grads(g, arrays):
    """Gradients of z = np.linalg.multi_dot(arrays) w.r.t. each array, as a tuple: for the
    k-th, (product of those before)^T g (product of those after)^T. A 1-D first (last) array
    is a row (column)."""
    mats = [np.asarray(x, dtype=np.float64) for x in arrays]
    if mats[0].ndim == 1:
        mats[0] = mats[0][None, :]
    if mats[-1].ndim == 1:
        mats[-1] = mats[-1][:, None]
    g = np.reshape(np.asarray(g, dtype=np.float64), (mats[0].shape[0], mats[-1].shape[1]))
    n = len(mats)
    before = [None] * n  # before[k]: product of mats[:k]
    for k in range(1, n):
        before[k] = mats[0] if k == 1 else np.dot(before[k - 1], mats[k - 1])
    grads = [None] * n
    after = None  # product of mats[k + 1:]
    for k in range(n - 1, -1, -1):
        r = g if after is None else np.dot(g, after.T)
        if before[k] is not None:
            r = np.dot(before[k].T, r)
        grads[k] = _result(r, arrays[k])
        after = mats[k] if after is None else np.dot(mats[k], after)
    return tuple(grads)


# ---- tangents (forward mode) --------------------------------------------------------------------
# Spellings of NumPy functions that Numba compiles with every argument given (the tangent
# templates pass defaults explicitly), and the pieces of the tangents of solve, cholesky and the
# multilinear einsum and multi_dot. Each has its own rules in templates/runtime.py.

def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """np.cross(a, b, axisa, axisb, axisc, axis) in float64."""
    return np.asarray(np.cross(a, b, axisa, axisb, axisc, axis), dtype=np.float64)


def trace(a, offset=0, axis1=0, axis2=1):
    """np.trace(a, offset, axis1, axis2) in float64 (a float for a matrix)."""
    out = np.trace(a, offset, axis1, axis2, dtype=np.float64)
    return float(out) if np.ndim(out) == 0 else out


def solve_product(m, z, b):
    """m z, with z = np.linalg.solve(a, b) and m shaped like a: a matrix product, or a
    matrix-vector product when solve treats b as (a stack of) vectors."""
    if _is_vector(m, b):
        return np.matmul(m, np.asarray(z)[..., None])[..., 0]
    return np.matmul(m, z)


def solve_product_grad_m(g, m, z, b):
    """Gradient w.r.t. m of solve_product(m, z, b)."""
    if _is_vector(m, b):
        return _sum_to(np.asarray(g)[..., :, None] * np.asarray(z)[..., None, :], m)
    return _sum_to(np.matmul(g, _swap(z)), m)


def solve_product_grad_z(g, m, z, b):
    """Gradient w.r.t. z of solve_product(m, z, b)."""
    if _is_vector(m, b):
        return _sum_to(np.matmul(_swap(m), np.asarray(g)[..., None])[..., 0], z)
    return _sum_to(np.matmul(_swap(m), g), z)


def cholesky_lower(x, upper=False):
    """x, or its (stacked) transpose when `upper`: the lower factor of
    np.linalg.cholesky(a, upper=upper), or the matrix it reads as lower triangle."""
    x = np.asarray(x, dtype=np.float64)
    return np.ascontiguousarray(_swap(x)) if upper else x


def cholesky_mask(factor):
    """1 below the diagonal, 1/2 on it, 0 above, shaped like `factor`: phi(S) = S * mask in
    the tangent of a Cholesky factor, dL = L phi(L^-1 dA L^-T). Depends on the shape only."""
    n = np.shape(factor)[-1]
    return np.broadcast_to(np.tril(np.ones((n, n))) - 0.5 * np.eye(n), np.shape(factor)).copy()


def _replaced(values, k, value):
    return tuple(value if j == k else v for j, v in enumerate(values))


def _is_zero(t):
    return np.ndim(t) == 0 and not isinstance(t, np.ndarray) and t == 0.0


def einsum_tangent(subscripts, operands, tangents):
    """Tangent of z = np.einsum(subscripts, *operands): the sum over k of the einsum with
    operand k replaced by its tangent (a zero tangent is left out)."""
    out = 0.0
    for k, t in enumerate(tangents):
        if not _is_zero(t):
            out = out + np.einsum(subscripts, *_replaced(operands, k, t))
    return np.asarray(out, dtype=np.float64) if np.ndim(out) else float(out)


def einsum_tangent_grads(g, subscripts, operands, tangents):
    """Gradients w.r.t. each operand of einsum_tangent(subscripts, operands, tangents), as a
    tuple: for operand j, the sum over k != j of einsum_grads with operand k replaced by its
    tangent."""
    grads = [0.0] * len(operands)
    for k, t in enumerate(tangents):
        if _is_zero(t):
            continue
        parts = einsum_grads(g, subscripts, _replaced(operands, k, t))
        for j in range(len(operands)):
            if j != k:
                grads[j] = grads[j] + parts[j]
    return tuple(_result(grad + np.zeros(np.shape(o)), o) for grad, o in zip(grads, operands))


def multi_dot_tangent(arrays, tangents):
    """Tangent of z = np.linalg.multi_dot(arrays): the sum over k of the product with array k
    replaced by its tangent."""
    out = 0.0
    for k, t in enumerate(tangents):
        if not _is_zero(t):
            out = out + np.linalg.multi_dot(_replaced(arrays, k, np.asarray(t, dtype=float)))
    return np.asarray(out, dtype=np.float64) if np.ndim(out) else float(out)


def multi_dot_tangent_grads(g, arrays, tangents):
    """Gradients w.r.t. each array of multi_dot_tangent(arrays, tangents), as a tuple."""
    grads = [0.0] * len(arrays)
    for k, t in enumerate(tangents):
        if _is_zero(t):
            continue
        parts = multi_dot_grads(g, _replaced(arrays, k, np.asarray(t, dtype=float)))
        for j in range(len(arrays)):
            if j != k:
                grads[j] = grads[j] + parts[j]
    return tuple(_result(grad + np.zeros(np.shape(a)), a) for grad, a in zip(grads, arrays))


def _pairs(function, values, tangents, directions):
    """The sum over k != j of function(values with k replaced by its tangent and j by its
    direction): the second derivative of a multilinear function along (tangents, directions)."""
    out = 0.0
    for k, t in enumerate(tangents):
        for j, s in enumerate(directions):
            if j != k and not _is_zero(t) and not _is_zero(s):
                out = out + function(_replaced(_replaced(values, k, t), j, s))
    return np.asarray(out, dtype=np.float64) if np.ndim(out) else float(out)


def einsum_tangent2(subscripts, operands, tangents, directions):
    """Derivative of einsum_tangent(subscripts, operands, tangents) along `directions` (one
    per operand)."""
    return _pairs(lambda ops: np.einsum(subscripts, *ops), operands, tangents, directions)


def multi_dot_tangent2(arrays, tangents, directions):
    """Derivative of multi_dot_tangent(arrays, tangents) along `directions` (one per array)."""
    return _pairs(lambda ops: np.linalg.multi_dot([np.asarray(o, dtype=float) for o in ops]),
                  arrays, tangents, directions)
