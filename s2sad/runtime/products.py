"""Compiled forms of the products array code uses and Numba lacks: `@` and numpy.matmul of any
rank, and numpy.einsum with constant subscripts; with their adjoints and tangents.

- **matmul of stacks.** Numba compiles `a @ b` of vectors and matrices only. For more
  dimensions, `@` and numpy.matmul (which Numba has not at all) compile to `_products`: the
  operands seen as stacks of matrices (a vector is one row on the left, one column on the
  right), their leading (batch) dimensions broadcast as numpy.matmul does, one loop nest per
  pair of matrices. `rt.matmul_grad_a/_b` (core.py) use the same plan for their stacks. Vectors
  and matrices keep Numba's own `@` and core.py's helpers.
- **einsum.** With the subscripts a constant (a literal type), the dispatch reads them while
  Numba types the call and writes one loop nest for them (`dispatch.generate`): a loop per
  label, each operand read at an offset that grows by its label's stride. A size-1 axis has
  stride 0 (broadcasting); a label repeated in one operand (`ii`) adds its strides (the
  diagonal); `...` is spelled out from the operands' ranks. The gradient is the same nest with
  each operand's gradient as a target (a broadcast axis or a diagonal accumulates, as the
  adjoint must), and the tangent the same nest with a sum of products. Python runs NumPy's
  einsum for all three (`loops`). Other forms (subscripts not constant, keywords such as
  `optimize=`, operands given with their labels as lists) are not compiled: the gradient falls
  back to Python.
"""
import functools
import operator

import numpy as np

from .dispatch import (by_type, constant, generate, is_array, is_scalar, jitable, loops,
                       numba_overload, python_only)
from .linalg import einsum_labels, c64
from .linalg import einsum_grads as _einsum_grads_numpy
from .linalg import einsum_tangent as _einsum_tangent_numpy

__all__ = ["einsum_grads", "einsum_tangent"]


# ---- matmul of stacks of matrices ----------------------------------------------------------------

@jitable
def _batch_dims(shape, nd, rank):
    """The batch dimensions of an operand of `shape` (all but its last two; none for a vector or
    a matrix), padded with ones in front to `rank`."""
    out = np.ones(rank, np.int64)
    for i in range(nd - 2):
        out[rank - (nd - 2) + i] = shape[i]
    return out


@jitable
def _pairing(ad, bd):
    """numpy.matmul's broadcast of the batch dimensions ad and bd: (the output's, and for each
    matrix of the output, the index of the matrix of a and of b it multiplies)."""
    rank = len(ad)
    od = np.empty(rank, np.int64)
    total = 1
    for i in range(rank):
        if ad[i] != bd[i] and ad[i] != 1 and bd[i] != 1:
            raise ValueError("matmul: batch dimensions do not broadcast", ad[i], bd[i])
        od[i] = bd[i] if ad[i] == 1 else ad[i]
        total *= od[i]
    ia = np.zeros(total, np.int64)
    ib = np.zeros(total, np.int64)
    for j in range(total):
        rest, sa, sb = j, 1, 1
        for i in range(rank - 1, -1, -1):
            v = rest % od[i]
            rest //= od[i]
            if ad[i] != 1:
                ia[j] += v * sa
            if bd[i] != 1:
                ib[j] += v * sb
            sa *= ad[i]
            sb *= bd[i]
    return od, ia, ib


@jitable
def _matrix(shape, nd, left):
    """(rows, columns) of an operand's matrices: a vector is a row on the left, a column on the
    right."""
    if nd == 1:
        return (1, shape[0]) if left else (shape[0], 1)
    return shape[nd - 2], shape[nd - 1]


@jitable
def _stack(x, dims, rows, cols):
    """x as a C-contiguous float64 stack of rows x cols matrices."""
    count = 1
    for v in dims:
        count *= v
    return c64(x).reshape((count, rows, cols))


@jitable
def _planned(a, b):
    """(a, b as stacks of matrices, ia, ib, the output's batch dimensions): see _pairing."""
    rank = max(a.ndim, b.ndim) - 2
    ad, bd = _batch_dims(a.shape, a.ndim, rank), _batch_dims(b.shape, b.ndim, rank)
    od, ia, ib = _pairing(ad, bd)
    n, k = _matrix(a.shape, a.ndim, True)
    kb, m = _matrix(b.shape, b.ndim, False)
    if kb != k:
        raise ValueError("matmul: a mismatch in its core dimension", k, kb)
    return _stack(a, ad, n, k), _stack(b, bd, k, m), ia, ib, od


@jitable
def _products(a3, b3, ia, ib):
    """out[j] = a3[ia[j]] @ b3[ib[j]] for each j."""
    out = np.zeros((len(ia), a3.shape[1], b3.shape[2]))
    for j in range(len(ia)):
        x, y, o = a3[ia[j]], b3[ib[j]], out[j]
        for i in range(x.shape[0]):
            for p in range(x.shape[1]):
                xip = x[i, p]
                for q in range(y.shape[1]):
                    o[i, q] += xip * y[p, q]
    return out


@jitable
def _products_grad_a(g3, a3, b3, ia, ib):
    """The gradient w.r.t. a3 of _products(a3, b3, ia, ib), given g3: g3[j] @ b3[ib[j]].T summed
    into the matrix ia[j]."""
    out = np.zeros(a3.shape)
    for j in range(len(ia)):
        gj, y, o = g3[j], b3[ib[j]], out[ia[j]]
        for i in range(gj.shape[0]):
            for p in range(y.shape[0]):
                s = 0.0
                for q in range(y.shape[1]):
                    s += gj[i, q] * y[p, q]
                o[i, p] += s
    return out


@jitable
def _products_grad_b(g3, a3, b3, ia, ib):
    """The gradient w.r.t. b3 of _products(a3, b3, ia, ib), given g3: a3[ia[j]].T @ g3[j]
    summed into the matrix ib[j]."""
    out = np.zeros(b3.shape)
    for j in range(len(ia)):
        gj, x, o = g3[j], a3[ia[j]], out[ib[j]]
        for i in range(x.shape[0]):
            for p in range(x.shape[1]):
                xip = x[i, p]
                for q in range(gj.shape[1]):
                    o[p, q] += xip * gj[i, q]
    return out


def _stacked(a, b):
    """Whether a @ b is a product of stacks (an operand of more than two dimensions)."""
    return is_array(a) and is_array(b) and a.ndim >= 1 and b.ndim >= 1 and \
        max(a.ndim, b.ndim) > 2


def _matmul_stacks(a, b):
    """Numba's implementation of a @ b for stacks of matrices (see the module docstring)."""
    from numba.np.unsafe.ndarray import to_fixed_tuple
    nd = max(a.ndim, b.ndim) - 2 + (a.ndim > 1) + (b.ndim > 1)
    rows, cols = a.ndim > 1, b.ndim > 1

    def matmul_stacks(a, b):
        a3, b3, ia, ib, od = _planned(a, b)
        shape = np.empty(nd, np.int64)
        shape[:len(od)] = od
        if rows:
            shape[len(od)] = a3.shape[1]
        if cols:
            shape[nd - 1] = b3.shape[2]
        return _products(a3, b3, ia, ib).reshape(to_fixed_tuple(shape, nd))
    return matmul_stacks


@numba_overload(operator.matmul)
def _matmul_operator(a, b):
    """`a @ b` in compiled code, for the stacks Numba's own `@` refuses."""
    return _matmul_stacks(a, b) if _stacked(a, b) else None


def _matmul_not_elementwise():
    """numpy.matmul is a ufunc, which Numba's array-expression pass takes for an elementwise
    one (it would fuse the call into a loop over elements): tell it apart."""
    from numba.np.ufunc import array_exprs
    is_ufunc = array_exprs._is_ufunc
    if getattr(is_ufunc, "s2sad", False):
        return

    def _is_ufunc(func):
        return func is not np.matmul and is_ufunc(func)
    _is_ufunc.s2sad = True
    array_exprs._is_ufunc = _is_ufunc


def _matmul_function(a, b):
    """numpy.matmul(a, b) in compiled code: Numba's `@` for vectors and matrices, else stacks."""
    if _stacked(a, b):
        return _matmul_stacks(a, b)
    if is_array(a) and is_array(b) and a.ndim >= 1 and b.ndim >= 1:
        return lambda a, b: a @ b
    return None


numba_overload(np.matmul, setup=_matmul_not_elementwise)(_matmul_function)
if hasattr(np.linalg, "matmul"):    # NumPy 2's array-API spelling (positional only)
    numba_overload(np.linalg.matmul)(_matmul_function)


@jitable
def _count(dims):
    count = 1
    for v in dims:
        count *= v
    return count


@jitable
def _spread_number(g, a3, b3, od):
    return np.full((_count(od), a3.shape[1], b3.shape[2]), g)


@jitable
def _spread_array(g, a3, b3, od):
    return _stack(g, od, a3.shape[1], b3.shape[2])


def _output_gradient(g, a, b):
    """How g, the gradient of a @ b, becomes the stack of matrices _products made (a number is
    spread over every element); None for other forms."""
    if is_scalar(g):
        return _spread_number
    if is_array(g) and g.ndim == max(a.ndim, b.ndim) - (a.ndim == 1) - (b.ndim == 1):
        return _spread_array
    return None


def stacked_grad(g, a, b, side, numpy_form):
    """The dispatch of rt.matmul_grad_a (side 0) or _b (side 1) for stacks of matrices: loops
    Numba compiles, NumPy's `numpy_form` for Python; None when a @ b is no product of stacks."""
    if not _stacked(a, b):
        return None
    spread = _output_gradient(g, a, b)
    if spread is None:
        return python_only(numpy_form)
    if side == 0:
        def grad_a(g, a, b):
            a3, b3, ia, ib, od = _planned(a, b)
            return _products_grad_a(spread(g, a3, b3, od), a3, b3, ia, ib).reshape(a.shape)
        return loops(numpy_form, grad_a)

    def grad_b(g, a, b):
        a3, b3, ia, ib, od = _planned(a, b)
        return _products_grad_b(spread(g, a3, b3, od), a3, b3, ia, ib).reshape(b.shape)
    return loops(numpy_form, grad_b)


# ---- einsum ---------------------------------------------------------------------------------------

@jitable
def _joined(n, m):
    """The size of a label that axes of sizes n and m share (a size 1 broadcasts)."""
    if n == 1:
        return m
    if m != 1 and m != n:
        raise ValueError("einsum: operands could not be broadcast together", n, m)
    return n


@jitable
def _stride(shape, axis):
    """The stride, in elements, of an axis of a C-contiguous array of `shape`; 0 for an axis of
    size 1, which broadcasts."""
    if shape[axis] == 1:
        return 0
    stride = 1
    for i in range(axis + 1, len(shape)):
        stride *= shape[i]
    return stride


@jitable
def _flat(x):
    """x's elements in C order, as float64 (a view when x is C-contiguous float64)."""
    return c64(x).reshape(x.size)


def _ranks(types):
    """The ranks of operands of these types (0 for a number), or None for any other operand (a
    0-d array included)."""
    ranks = []
    for t in types:
        if is_array(t) and t.ndim > 0:
            ranks.append(t.ndim)
        elif is_scalar(t):
            ranks.append(0)
        else:
            return None
    return tuple(ranks)


def _spec(subscripts, operands):
    """(subscripts, the operands' ranks, the output's rank) when the nest can be written: the
    subscripts a constant, explicit or implicit, `...` included; else None."""
    spec, ranks = constant(subscripts), _ranks(operands)
    if not isinstance(spec, str) or ranks is None:
        return None
    try:
        labels, output = einsum_labels(spec, ranks)
    except ValueError:
        return None
    used = "".join(labels)
    if any(len(own) != nd for own, nd in zip(labels, ranks)) or \
            not all(c.isalpha() for c in used + output) or \
            len(set(output)) != len(output) or not set(output) <= set(used):
        return None
    return spec, ranks, len(output)


def _reads(name, expression, own):
    """Lines binding a factor of the nest: an array's elements and shape, or a number."""
    if own:
        return [f"{name}_s = {expression}.shape", f"{name} = _flat({expression})"]
    return [f"{name} = {expression}"]


def _loop_nest(order, arrays, innermost, inner=0, target=None):
    """The loop nest over the labels `order`, outer to inner: each array of `arrays` ({name:
    labels}) is read at an offset that grows by its stride t_<name>_<label> in the loops of its
    labels. innermost(at) gives the innermost lines, at(name) naming name's current element
    (a number's own name). With `inner` > 0, the last `inner` loops are a sum kept in `acc`
    and added to `target` (an expression of `at`) after them."""
    lines, offsets = [], {name: "0" for name in arrays}

    def at(name):
        return f"{name}[{offsets[name]}]" if name in arrays else name
    outer = len(order) - inner
    for depth, c in enumerate(order):
        indent = "    " * depth
        if inner and depth == outer:
            lines.append(f"{indent}acc = 0.0")
            kept = at(target)
        lines.append(f"{indent}for v_{c} in range(n_{c}):")
        for name, own in arrays.items():
            if c in own:
                lines.append(f"{indent}    o_{name}_{depth} = {offsets[name]} + v_{c} * "
                             f"t_{name}_{c}")
                offsets[name] = f"o_{name}_{depth}"
    if inner and outer == len(order):
        lines.append("    " * outer + "acc = 0.0")
        kept = at(target)
    lines += ["    " * len(order) + line for line in innermost(at, offsets.get)]
    if inner:
        lines.append("    " * outer + f"{kept} += acc")
    return lines


def _product(at, names):
    return " * ".join(at(name) for name in names) or "1.0"


@functools.lru_cache(maxsize=None)
def _einsum_impl(kind, subscripts, ranks, extra):
    """The compiled nest of one einsum: kind "value" (subscripts, *operands), "grads" (g,
    subscripts, operands; extra: g's rank) or "tangent" (subscripts, operands, tangents; extra:
    the tangents' ranks)."""
    labels, output = einsum_labels(subscripts, ranks)
    count = len(ranks)
    xs = [f"x{k}" for k in range(count)]
    lines = [line for k in range(count) for line in _reads(xs[k], f"operands[{k}]", labels[k])]
    arrays = {xs[k]: labels[k] for k in range(count) if labels[k]}
    if kind == "grads":
        lines += _reads("g", "g", output if extra else "")
        if extra:
            arrays["g"] = output
    if kind == "tangent":
        for k in range(count):
            lines += _reads(f"d{k}", f"tangents[{k}]", labels[k] if extra[k] else "")
            if extra[k]:
                arrays[f"d{k}"] = labels[k]
    order = list(dict.fromkeys(output + "".join(labels)))
    for c in order:
        lines.append(f"n_{c} = 1")
        for name, own in arrays.items():
            lines += [f"n_{c} = _joined(n_{c}, {name}_s[{axis}])"
                      for axis, label in enumerate(own) if label == c]
            if c in own:
                lines.append(f"t_{name}_{c} = " + " + ".join(
                    f"_stride({name}_s, {axis})" for axis, label in enumerate(own) if label == c))
    if kind == "grads":
        for k in range(count):
            lines.append(f"r{k} = np.zeros({xs[k]}.size)" if labels[k] else f"r{k} = 0.0")

        def innermost(at, offset):
            return [(f"r{k}[{offset(xs[k])}]" if labels[k] else f"r{k}") +
                    " += " + _product(at, ["g"] + [x for x in xs if x != xs[k]])
                    for k in range(count)]
        lines += _loop_nest(order, arrays, innermost)
        results = [f"r{k}.reshape(operands[{k}].shape)" if labels[k] else f"r{k}"
                   for k in range(count)]
        lines.append(f"return ({', '.join(results)},)")
        arguments = ["g", "subscripts", "operands"]
    else:
        stride = "1"
        for c in reversed(output):
            lines.append(f"t_z_{c} = {stride}")
            stride = f"t_z_{c} * n_{c}"
        lines.append(f"z = np.zeros({stride})")
        arrays["z"] = output or "0"   # (a label no loop has: z is one element)
        if kind == "value":
            term = _product
            arguments = ["subscripts", "*operands"]
        else:
            def term(at, names):
                return " + ".join(f"{at(f'd{k}')} * " + _product(at, names[:k] + names[k + 1:])
                                  for k in range(count))
            arguments = ["subscripts", "operands", "tangents"]
        order = list(output) + [c for c in order if c not in output]
        inner = len(order) - len(output)

        def innermost(at, offset):
            return [f"{'acc' if inner else at('z')} += {term(at, xs)}"]
        lines += _loop_nest(order, arrays, innermost, inner, "z")
        shape = "".join(f"n_{c}, " for c in output)
        lines.append(f"return z.reshape(({shape}))" if output else "return z[0]")
    return generate(f"einsum_{kind}", arguments, lines,
                    {"_flat": _flat, "_stride": _stride, "_joined": _joined})


@numba_overload(np.einsum, prefer_literal=True)
def _einsum_function(subscripts, *operands):
    """numpy.einsum(subscripts, *operands) in compiled code, for constant subscripts."""
    spec = _spec(subscripts, operands)
    return None if spec is None else _einsum_impl("value", spec[0], spec[1], ())


@by_type(prefer_literal=True)
def einsum_grads(g, subscripts, operands):
    """Gradients of z = np.einsum(subscripts, *operands) w.r.t. each operand, as a tuple (Python
    runs linalg.py's NumPy form)."""
    spec, rank = _spec(subscripts, operands), _ranks([g])
    if spec is None or rank is None or rank[0] not in (0, spec[2]):
        return python_only(_einsum_grads_numpy)
    return loops(_einsum_grads_numpy, _einsum_impl("grads", spec[0], spec[1], rank[0]))


@by_type(prefer_literal=True)
def einsum_tangent(subscripts, operands, tangents):
    """Tangent of z = np.einsum(subscripts, *operands): the sum over k of the einsum with operand
    k replaced by its tangent (Python runs linalg.py's NumPy form)."""
    spec, ranks = _spec(subscripts, operands), _ranks(tangents)
    if spec is None or ranks is None or len(ranks) != len(spec[1]) or \
            any(r not in (0, nd) for r, nd in zip(ranks, spec[1])):
        return python_only(_einsum_tangent_numpy)
    return loops(_einsum_tangent_numpy, _einsum_impl("tangent", spec[0], spec[1], ranks))
