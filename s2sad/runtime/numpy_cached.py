"""What the JIT flavour of a generated file calls in place of `@` and a few NumPy functions.

Numba compiles its own implementation of `a @ b`, `np.max(a)`, `np.sum(a, axis=k)`, ... anew
in every process, for every function that uses it: 0.3-0.6 s each the first time (the LSTM
gradient spent 1.2 s on its two `@` forms). Called through these one-line helpers instead, that
code is compiled once and then loaded from the helpers' disk cache (numba_cache.py).

The file a user reads, and the Python flavour that runs it, keep `x @ w` and `numpy.max(x)`:
jit.py compiles the JIT flavour from the same text with these calls swapped in (`for_numba`),
line for line. Each helper calls the very function it stands for, so the numbers are the same,
or computes them with the same operations in the same order (the sums along an axis, and the
sums of a product, `np.sum(a * b, axis=1)`, as loops that make no array of the products).
"""
import ast

import numpy as np

from . import arrays
from .dispatch import by_type, is_array, is_float64, is_int, jitable

NAME = "_s2sad_numpy"     # the global that holds this module in a jitted generated module


@jitable
def matmul(a, b):
    return a @ b


@jitable
def sum_all(a):
    return np.sum(a)


@by_type
def sum_along(a, axis):
    """`np.sum(a, axis=axis)`; for a matrix of float64, loops: Numba's own sum along an axis
    of a 1000 x 64 matrix takes 4x (rows) and 2x (columns) the time of these (the GMM's
    `np.sum(mahal * mahal, axis=1)`). The same additions, in the same order, as Numba's."""
    if is_array(a) and a.ndim == 2 and is_float64(a.dtype) and is_int(axis):
        return _sum_matrix_along
    if is_array(a) and a.ndim >= 3 and is_float64(a.dtype) and is_int(axis):
        # Numba's own sum along an axis of a 3-D array is 12,000 lines of LLVM IR, which every
        # function calling the helper compiles to machine code again (the GP kernel's
        # `np.sum(d * d, axis=2)`: 1.5 s); this loop nest is a few hundred
        return arrays.axis_sum_loop(a.ndim, ("a", "axis"))
    return lambda a, axis: np.sum(a, axis=axis)


@jitable
def _sum_matrix_along(a, axis):
    ax = axis + 2 if axis < 0 else axis
    if ax == 1:     # each row's sum, in a register
        rows = np.empty(a.shape[0])
        for i in range(a.shape[0]):
            acc = 0.0
            for j in range(a.shape[1]):
                acc += a[i, j]
            rows[i] = acc
        return rows
    if ax == 0:     # row after row onto the column sums: memory read in order
        columns = np.zeros(a.shape[1])
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                columns[j] += a[i, j]
        return columns
    raise ValueError("axis is out of bounds")


@by_type
def sum_product(a, b):
    """`np.sum(a * b)`: for C-contiguous float64 arrays of rank 1 or 2 and of one shape, one
    loop over the products, without the array of them (`np.sum(q_diag * q_diag)`)."""
    if _matching_floats(a, b, (1, 2)):
        return _sum_product_vectors if a.ndim == 1 else _sum_product_matrices
    return lambda a, b: np.sum(a * b)


@by_type
def sum_product_along(a, b, axis):
    """`np.sum(a * b, axis=axis)`: for C-contiguous float64 matrices of one shape, loops over
    the products (`np.sum(mahal * mahal, axis=1)`, the GMM's squared distances)."""
    if _matching_floats(a, b, (2,)) and is_int(axis):
        return _sum_product_matrices_along
    if is_array(a) and is_array(b) and a.ndim == b.ndim >= 3 and is_float64(a.dtype) and \
            is_float64(b.dtype) and is_int(axis):   # (the GP's `np.sum(d * d, axis=2)`)
        # Numba's 3-D `a * b` alone is 12,000 lines of LLVM IR, which every function calling
        # this helper compiles to machine code again (1.5 s); these loops are a few hundred
        return arrays.axis_sum_product_loop(a.ndim)
    return lambda a, b, axis: sum_along(a * b, axis)


def _matching_floats(a, b, ranks):
    """C-contiguous float64 arrays of one rank in `ranks`: Numba's `a * b` is then C too, and
    its sum adds the products in the order the loops do (of F arrays it sums in memory order)."""
    return is_array(a) and is_array(b) and a.ndim == b.ndim and a.ndim in ranks and \
        is_float64(a.dtype) and is_float64(b.dtype) and a.layout == "C" and b.layout == "C"


@jitable
def _sum_product_vectors(a, b):
    if a.shape != b.shape:   # broadcast: NumPy's way
        return np.sum(a * b)
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i] * b[i]
    return acc


@jitable
def _sum_product_matrices(a, b):
    if a.shape != b.shape:
        return np.sum(a * b)
    acc = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            acc += a[i, j] * b[i, j]
    return acc


@jitable
def _sum_product_matrices_along(a, b, axis):
    ax = axis + 2 if axis < 0 else axis
    if a.shape != b.shape or ax < 0 or ax > 1:
        return _sum_matrix_along(a * b, axis)   # (broadcast, or the error)
    if ax == 1:
        rows = np.empty(a.shape[0])
        for i in range(a.shape[0]):
            acc = 0.0
            for j in range(a.shape[1]):
                acc += a[i, j] * b[i, j]
            rows[i] = acc
        return rows
    columns = np.zeros(a.shape[1])
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            columns[j] += a[i, j] * b[i, j]
    return columns


@jitable
def mean_all(a):
    return np.mean(a)


@jitable
def max_all(a):
    return np.max(a)


@jitable
def min_all(a):
    return np.min(a)


@jitable
def diag(v):
    return np.diag(v)


@jitable
def zeros(shape):
    return np.zeros(shape)


@jitable
def eye(n):
    return np.eye(n)


# np.linalg: Numba's implementations are long (LAPACK calls behind argument checks and copies
# to Fortran order): np.linalg.solve alone compiled for 1.4 s in every process that used it
@jitable
def solve(a, b):
    return np.linalg.solve(a, b)


@jitable
def cholesky(a):
    return np.linalg.cholesky(a)


@jitable
def inv(a):
    return np.linalg.inv(a)


@jitable
def det(a):
    return np.linalg.det(a)


@jitable
def slogdet(a):
    return np.linalg.slogdet(a)


@jitable
def eigh(a):
    return np.linalg.eigh(a)


@jitable
def eigvalsh(a):
    return np.linalg.eigvalsh(a)


# numpy.<name>(positional arguments) -> the helper; sum along an axis: keyword or positional
_BY_ARGUMENTS = {("sum", 1): "sum_all", ("sum", 2): "sum_along", ("max", 1): "max_all",
                 ("amax", 1): "max_all", ("min", 1): "min_all", ("amin", 1): "min_all",
                 ("diag", 1): "diag", ("zeros", 1): "zeros", ("eye", 1): "eye",
                 ("mean", 1): "mean_all"}
# numpy.linalg.<name>(positional arguments) -> the helper
_LINALG = {("solve", 2): "solve", ("cholesky", 1): "cholesky", ("inv", 1): "inv",
           ("det", 1): "det", ("slogdet", 1): "slogdet", ("eigh", 1): "eigh",
           ("eigvalsh", 1): "eigvalsh"}


def for_numba(tree):
    """The module `tree` (parsed from a generated file) with `@` and the NumPy calls above
    routed to this module's helpers; line numbers are kept."""
    return ast.fix_missing_locations(_Route().visit(tree))


class _Route(ast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.MatMult):
            return ast.copy_location(_call("matmul", [node.left, node.right]), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if any(isinstance(a, ast.Starred) for a in node.args) or \
                not isinstance(func, ast.Attribute):
            return node
        if _spelt(func.value, "numpy.linalg") and not node.keywords:
            helper = _LINALG.get((func.attr, len(node.args)))
            return node if helper is None else \
                ast.copy_location(_call(helper, list(node.args)), node)
        if not _spelt(func.value, "numpy"):
            return node
        args = list(node.args)
        if [k.arg for k in node.keywords] == ["axis"] and func.attr == "sum" and len(args) == 1:
            args.append(node.keywords[0].value)
        elif node.keywords:
            return node
        if func.attr == "sum" and len(args) in (1, 2) and isinstance(args[0], ast.BinOp) and \
                isinstance(args[0].op, ast.Mult):   # the sum of a product: no array of it
            helper = "sum_product" if len(args) == 1 else "sum_product_along"
            return ast.copy_location(_call(helper, [args[0].left, args[0].right, *args[1:]]),
                                     node)
        helper = _BY_ARGUMENTS.get((func.attr, len(args)))
        if helper is None:
            return node
        return ast.copy_location(_call(helper, args), node)


def _spelt(node, dotted):
    """Whether the expression `node` is the dotted name `dotted` (e.g. numpy.linalg)."""
    *outer, last = dotted.split(".")
    if not outer:
        return isinstance(node, ast.Name) and node.id == last
    return isinstance(node, ast.Attribute) and node.attr == last and \
        _spelt(node.value, ".".join(outer))


def _call(helper, args):
    return ast.Call(ast.Attribute(ast.Name(NAME, ast.Load()), helper, ast.Load()), args, [])
