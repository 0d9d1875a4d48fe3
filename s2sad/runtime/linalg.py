"""Runtime helpers for the derivative templates of products (templates/numpy_linalg.py): dot-like
products, kron, cross, trace, einsum, multi_dot; numpy.linalg's square-matrix functions are in
linalg_square.py.

Each is defined once (dispatch.py). Numba compiles the operand forms its own NumPy supports (1-D
and 2-D operands, default axes), as the same code Python runs for them; other forms (N-D
operands, other axes) are `python_only`, and a gradient using them falls back to Python, as the
primal itself would. The helpers of inner, tensordot, einsum and multi_dot, whose primals Numba
does not compile, are plain Python. `g` is always the adjoint of the primal's result.
"""
import string

import numpy as np

from .arrays import f64, reduce_to
from .dispatch import (by_type, is_array, is_constant, is_float64, is_none, is_scalar, jitable,
                       python_only)

__all__ = ["vdot_grad", "outer_grad_a", "outer_grad_b", "inner_grad_a", "inner_grad_b",
           "tensordot_grad_a", "tensordot_grad_b", "trace_grad",
           "kron_grad_a", "kron_grad_b", "cross_grad_a", "cross_grad_b", "multi_dot_grads",
           "cross", "trace", "einsum_tangent_grads", "multi_dot_tangent",
           "multi_dot_tangent_grads", "einsum_tangent2", "multi_dot_tangent2"]


# ---- building blocks (also used by linalg_square.py) -------------------------------------------

@by_type
def c64(x):
    """x as a C-contiguous float64 array (itself when it is one)."""
    if is_array(x) and is_float64(x.dtype) and x.layout == "C":
        return lambda x: x
    if is_array(x) and is_float64(x.dtype):
        return lambda x: np.ascontiguousarray(x)
    if is_array(x):
        return lambda x: np.ascontiguousarray(x).astype(np.float64)
    return None


def result(x, like):
    """x as the gradient of `like`: a float for a scalar, else a float64 array of like's shape."""
    if np.ndim(like) == 0 and not isinstance(like, np.ndarray):
        return float(np.sum(x))
    return np.array(np.reshape(x, np.shape(like)), dtype=np.float64)


def swap(x):
    """Transpose of the last two axes (of each matrix of a stack)."""
    return np.swapaxes(x, -1, -2)


def sum_to(x, like):
    """Sum a broadcast gradient x back to the shape of `like` (NumPy broadcasting rules)."""
    shape = np.shape(like)
    extra = x.ndim - len(shape)
    x = np.sum(x, axis=tuple(range(extra))) if extra > 0 else x
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and x.shape[i] != 1)
    return result(np.sum(x, axis=axes, keepdims=True) if axes else x, like)


def _matrix_like(t):
    """A scalar, a vector or a matrix (Numba types): what _mat takes."""
    return is_scalar(t) or is_array(t, 1) or is_array(t, 2)


@by_type
def _mat(x):
    """x as a C-contiguous float64 matrix: a scalar is 1 x 1, a vector a row."""
    if is_scalar(x):
        return lambda x: np.full((1, 1), float(x))
    if is_array(x, 1):
        return lambda x: c64(x).reshape((1, x.shape[0]))
    if is_array(x, 2):
        return lambda x: c64(x)
    return None


@by_type
def _shaped_like(r, like):
    """r (a C-contiguous array) reshaped to like's shape; a float when like is a scalar."""
    if is_scalar(like):
        return lambda r, like: float(r.sum())
    if is_array(like):
        return lambda r, like: r.reshape(like.shape)
    return None


# ---- products -----------------------------------------------------------------------------------

@by_type
def vdot_grad(g, other, like):
    """Gradient w.r.t. one operand (shaped `like`) of z = np.vdot(a, b): g * the other operand,
    flattened and reshaped like it (vdot flattens both operands)."""
    if is_scalar(g) and is_array(other) and is_array(like):
        return lambda g, other, like: g * c64(other).reshape(like.shape)
    return python_only(lambda g, other, like: result(g * np.reshape(other, np.shape(like)), like))


@by_type
def outer_grad_a(g, a, b):
    """Gradient w.r.t. a of z = np.outer(a, b) (operands are flattened): g @ b, reshaped."""
    if is_array(g, 2) and _matrix_like(b) and (is_scalar(a) or is_array(a)):
        return lambda g, a, b: _shaped_like(np.dot(f64(g), _mat(b).ravel()), a)
    return python_only(lambda g, a, b: result(np.dot(g, np.ravel(b)), a))


@by_type
def outer_grad_b(g, a, b):
    """Gradient w.r.t. b of z = np.outer(a, b) (operands are flattened): a @ g, reshaped."""
    if is_array(g, 2) and _matrix_like(a) and (is_scalar(b) or is_array(b)):
        return lambda g, a, b: _shaped_like(np.dot(_mat(a).ravel(), f64(g)), b)
    return python_only(lambda g, a, b: result(np.dot(np.ravel(a), g), b))


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
    return result(np.transpose(r, np.argsort(source)), a)


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
    return result(np.transpose(r, np.argsort(source)), b)


def inner_grad_a(g, a, b):
    """Gradient w.r.t. a of z = np.inner(a, b) (a product when either is a scalar)."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return sum_to(np.asarray(np.multiply(g, b)), a)
    return tensordot_grad_a(g, a, b, ([np.ndim(a) - 1], [np.ndim(b) - 1]))


def inner_grad_b(g, a, b):
    """Gradient w.r.t. b of z = np.inner(a, b) (a product when either is a scalar)."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return sum_to(np.asarray(np.multiply(g, a)), b)
    return tensordot_grad_b(g, a, b, ([np.ndim(a) - 1], [np.ndim(b) - 1]))


# ---- kron ---------------------------------------------------------------------------------------

@jitable
def _kron_grad_2d(g, a, b, of_a):
    """Gradient w.r.t. a (of_a) or b of np.kron(a, b) for C-contiguous float64 matrices a, b and
    g of kron's shape: z[i * p + k, j * q + m] = a[i, j] * b[k, m]."""
    n0, n1 = a.shape
    p, q = b.shape
    # blocks[(i, j), (k, m)] = g[i * p + k, j * q + m]
    blocks = np.ascontiguousarray(np.transpose(g.reshape((n0, p, n1, q)), (0, 2, 1, 3)))
    blocks = blocks.reshape((n0 * n1, p * q))
    if of_a:
        return np.dot(blocks, b.ravel()).reshape((n0, n1))
    return np.dot(a.ravel(), blocks).reshape((p, q))


def _kron_blocks(g, a, b):
    """g of np.kron(a, b) reshaped to (a0, b0, a1, b1, ...): axis k of z is (i_k, j_k)."""
    nd = max(np.ndim(a), np.ndim(b))
    sa = (1,) * (nd - np.ndim(a)) + np.shape(a)
    sb = (1,) * (nd - np.ndim(b)) + np.shape(b)
    return np.reshape(g, [n for pair in zip(sa, sb) for n in pair]), nd


def _kron_grad_a(g, a, b):
    g4, nd = _kron_blocks(g, a, b)
    b_ = np.reshape(b, (1,) * (nd - np.ndim(b)) + np.shape(b))
    return result(np.tensordot(g4, b_, axes=(list(range(1, 2 * nd, 2)), list(range(nd)))), a)


def _kron_grad_b(g, a, b):
    g4, nd = _kron_blocks(g, a, b)
    a_ = np.reshape(a, (1,) * (nd - np.ndim(a)) + np.shape(a))
    return result(np.tensordot(g4, a_, axes=(list(range(0, 2 * nd, 2)), list(range(nd)))), b)


@by_type
def kron_grad_a(g, a, b):
    """Gradient w.r.t. a of z = np.kron(a, b): g seen as blocks g[i, k] (i over a, k over b),
    each block contracted with b."""
    if _matrix_like(g) and _matrix_like(a) and _matrix_like(b):   # a vector counts as a row
        return lambda g, a, b: _shaped_like(_kron_grad_2d(_mat(g), _mat(a), _mat(b), True), a)
    return python_only(_kron_grad_a)


@by_type
def kron_grad_b(g, a, b):
    """Gradient w.r.t. b of z = np.kron(a, b): the blocks of g weighted by a and summed."""
    if _matrix_like(g) and _matrix_like(a) and _matrix_like(b):
        return lambda g, a, b: _shaped_like(_kron_grad_2d(_mat(g), _mat(a), _mat(b), False), b)
    return python_only(_kron_grad_b)


# ---- cross --------------------------------------------------------------------------------------

@by_type
def _fit(x, like):
    """x, a new C-contiguous array shaped like a broadcast of `like`, summed back to like's
    shape."""
    if x.ndim > like.ndim:
        def leading(x, like):
            out = np.sum(x.reshape((-1,) + like.shape), axis=0)
            return out if out.shape == like.shape else reduce_to(out, like.shape)
        return leading
    return lambda x, like: x if x.shape == like.shape else reduce_to(x, like.shape)


def _default_cross(a, b, g, axisa, axisb, axisc, axis):
    """The form Numba compiles (Numba types): arrays, the default axes (components last)."""
    return is_array(a) and is_array(b) and is_array(g) and is_none(axis) and \
        all(is_constant(t, -1) for t in (axisa, axisb, axisc))


@jitable
def _check_3(a, b):
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        raise NotImplementedError("the gradient of numpy.cross is implemented for 3-vectors")


@by_type(prefer_literal=True)
def cross_grad_a(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Gradient w.r.t. a of z = np.cross(a, b) (3-vectors): cross(b, g)."""
    if _default_cross(a, b, g, axisa, axisb, axisc, axis):
        def impl(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
            _check_3(a, b)
            return _fit(np.cross(c64(b), c64(g)), a)
        return impl
    return python_only(_cross_grad_a)


@by_type(prefer_literal=True)
def cross_grad_b(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Gradient w.r.t. b of z = np.cross(a, b) (3-vectors): cross(g, a)."""
    if _default_cross(a, b, g, axisa, axisb, axisc, axis):
        def impl(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
            _check_3(a, b)
            return _fit(np.cross(c64(g), c64(a)), b)
        return impl
    return python_only(_cross_grad_b)


def _cross_grad_a(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if axis is not None:
        axisa = axisb = axisc = axis
    return _cross_grad(np.moveaxis(np.asarray(b), axisb, -1), g, axisc, a, axisa, True)


def _cross_grad_b(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
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
    return sum_to(np.moveaxis(r, -1, (axis % np.ndim(like)) - np.ndim(like)), like)


# ---- trace --------------------------------------------------------------------------------------

@by_type
def trace_grad(g, a, offset=0, axis1=0, axis2=1):
    """Gradient w.r.t. a of z = np.trace(a, offset, axis1, axis2): g on that diagonal."""
    if is_array(a, 2) and is_scalar(g):
        def matrix(g, a, offset=0, axis1=0, axis2=1):
            out = np.zeros(a.shape)
            n1, n2 = a.shape
            swapped = axis1 % 2 > axis2 % 2          # the diagonal of a.T
            m1, m2 = (n2, n1) if swapped else (n1, n2)
            first = max(0, -offset)
            count = min(m1, m2 - offset) - first
            if count > 0:   # element (i, i + offset), or (i + offset, i) when swapped
                start = first * (n2 + 1) + (offset * n2 if swapped else offset)
                out.reshape(out.size)[start:start + (count - 1) * (n2 + 1) + 1:n2 + 1] = g
            return out
        return matrix
    return python_only(_trace_grad)


def _trace_grad(g, a, offset=0, axis1=0, axis2=1):
    out = np.zeros(np.shape(a))
    view = np.moveaxis(out, (axis1, axis2), (-2, -1))
    n1, n2 = view.shape[-2:]
    i = np.arange(max(0, -offset), max(0, min(n1, n2 - offset)))
    view[..., i, i + offset] = np.asarray(g, dtype=np.float64)[..., None]
    return out


# ---- einsum -------------------------------------------------------------------------------------

def einsum_labels(subscripts, ndims):
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
    labels, output = einsum_labels(subscripts, [np.ndim(o) for o in operands])
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
            grads.append(result(r, operand))
            continue
        out = np.zeros(shape)
        grid = np.indices(r.shape, sparse=True)
        out[tuple(grid[distinct.index(c)] for c in own)] = r
        grads.append(out)
    return tuple(grads)


# ---- multi_dot ----------------------------------------------------------------------------------

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
        grads[k] = result(r, arrays[k])
        after = mats[k] if after is None else np.dot(mats[k], after)
    return tuple(grads)


# ---- tangents (forward mode) --------------------------------------------------------------------
# Spellings of NumPy functions that Numba compiles with every argument given (the tangent
# templates pass defaults explicitly), and the tangents of the multilinear einsum and multi_dot.
# Each has its own rules in templates/runtime.py.

@by_type(prefer_literal=True)
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """np.cross(a, b, axisa, axisb, axisc, axis) in float64. Numba: the default axes."""
    if is_none(axis) and is_array(a) and is_array(b) and \
            all(is_constant(t, -1) for t in (axisa, axisb, axisc)):
        return lambda a, b, axisa=-1, axisb=-1, axisc=-1, axis=None: \
            np.cross(a, b).astype(np.float64)
    return python_only(lambda a, b, axisa=-1, axisb=-1, axisc=-1, axis=None: np.asarray(
        np.cross(a, b, axisa, axisb, axisc, axis), dtype=np.float64))


@by_type(prefer_literal=True)
def trace(a, offset=0, axis1=0, axis2=1):
    """np.trace(a, offset, axis1, axis2) in float64 (a float for a matrix). Numba: a matrix's
    trace, on its axes in order."""
    if is_array(a, 2) and is_constant(axis1, 0, -2) and is_constant(axis2, 1, -1):
        return lambda a, offset=0, axis1=0, axis2=1: float(np.trace(a, offset))
    return python_only(_trace)


def _trace(a, offset=0, axis1=0, axis2=1):
    out = np.trace(a, offset, axis1, axis2, dtype=np.float64)
    return float(out) if np.ndim(out) == 0 else out


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
    return tuple(result(grad + np.zeros(np.shape(o)), o) for grad, o in zip(grads, operands))


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
    return tuple(result(grad + np.zeros(np.shape(a)), a) for grad, a in zip(grads, arrays))


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
