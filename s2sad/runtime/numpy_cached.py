"""What the JIT flavour of a generated file calls in place of `@` and a few NumPy functions:
those Numba compiles slowly, and those it refuses as written (an array given to np.array, a
list to np.column_stack, np.prod along an axis, np.max of a shape, np.dot of an int and a float
array), which published objectives use.

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
from .dispatch import by_type, is_array, is_float64, is_int, is_list, is_scalar, is_tuple, \
    jitable

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


@by_type
def max_all(a):
    """`np.max(a)`; of a tuple (`np.max(x.shape)`, which Numba refuses) by a loop."""
    if is_tuple(a) and len(a) > 0:
        return lambda a: _extreme(a, 1)
    return lambda a: np.max(a)


@by_type
def min_all(a):
    """`np.min(a)`; of a tuple by a loop."""
    if is_tuple(a) and len(a) > 0:
        return lambda a: _extreme(a, -1)
    return lambda a: np.min(a)


@jitable
def _extreme(items, sign):
    best = items[0]
    for item in items:
        if item != item:        # NaN wins, as in np.max
            return item
        if (item - best) * sign > 0:
            best = item
    return best


@by_type
def prod_all(a):
    """`np.prod(a)`; of a tuple (`np.prod(x.shape)`) by a loop, in NumPy's order."""
    if is_tuple(a):
        return _product_of_items
    return lambda a: np.prod(a)


@jitable
def _product_of_items(a):
    product = 1
    for item in a:
        product = product * item
    return product


@by_type
def prod_along(a, axis):
    """`np.prod(a, axis=axis)`, which Numba refuses: for a matrix, loops multiplying along the
    axis in NumPy's order."""
    if is_array(a) and a.ndim == 2 and is_int(axis):
        return _prod_matrix_along
    return lambda a, axis: np.prod(a, axis=axis)


@jitable
def _prod_matrix_along(a, axis):
    ax = axis + 2 if axis < 0 else axis
    if ax != 0 and ax != 1:
        raise ValueError("axis is out of bounds")
    out = np.ones(a.shape[1 - ax], a.dtype)   # each row's (ax 1) or column's product
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i if ax == 1 else j] *= a[i, j]
    return out


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


# ---- calls Numba refuses as written (an array to np.array, a list to np.column_stack, np.dot
# of an int and a float array or of a number): the same values by other means ----------------

@by_type
def array_copy(a):
    """`np.array(a)`: a new array; Numba's np.array takes no array, nor a sequence of them."""
    if is_array(a):
        return lambda a: a.copy()
    if _arrays_alike(a):
        return _stacked
    return lambda a: np.array(a)


@by_type
def array_float64(a):
    """`np.array(a, dtype=float)`."""
    if is_array(a):
        return lambda a: a.astype(np.float64)
    if _arrays_alike(a):
        return lambda a: _stacked(a).astype(np.float64)
    return lambda a: np.array(a).astype(np.float64)


@by_type
def asarray_of(a):
    """`np.asarray(a)`; of a tuple or list of arrays (cma's `np.asarray([x])`) the array of
    them, which Numba refuses."""
    if _arrays_alike(a):
        return _stacked
    return lambda a: np.asarray(a)


def _arrays_alike(t):
    """A tuple or list whose items are arrays of one type."""
    return (is_tuple(t) or is_list(t)) and is_array(getattr(t, "dtype", None))


@jitable
def _stacked(a):
    if len(a) == 0:   # (NumPy gives a 1-D empty array, of another rank than the stack's)
        raise ValueError("s2sad: an empty sequence of arrays made into an array in compiled "
                         "code: run with jit=False")
    first = a[0]
    out = np.empty((len(a),) + first.shape, first.dtype)
    for k in range(len(a)):
        if a[k].shape != first.shape:
            raise ValueError("setting an array element with a sequence: the arrays differ "
                             "in shape")
        out[k] = a[k]
    return out


@by_type
def column_stack(arrays):
    """`np.column_stack(arrays)`; a list of vectors (Numba takes tuples only) by a loop, a
    matrix (a sequence of rows to NumPy, as a list of appended rows becomes) as its transpose."""
    if is_list(arrays) and is_array(arrays.dtype, 1):
        return _column_stack_vectors
    if is_array(arrays, 2):
        return lambda arrays: np.ascontiguousarray(arrays.T)
    if is_array(arrays, 1):    # a sequence of numbers: one row
        return lambda arrays: np.ascontiguousarray(arrays).reshape((1, arrays.shape[0]))
    return lambda arrays: np.column_stack(arrays)


@jitable
def _column_stack_vectors(arrays):   # (named as column_stack's argument: by_type)
    if len(arrays) == 0:
        raise ValueError("need at least one array to concatenate")
    rows = arrays[0].shape[0]
    out = np.empty((rows, len(arrays)), arrays[0].dtype)
    for j in range(len(arrays)):
        if arrays[j].shape[0] != rows:
            raise ValueError("all the input array dimensions except for the concatenation "
                             "axis must match exactly")
        for i in range(rows):
            out[i, j] = arrays[j][i]
    return out


@by_type
def dot(a, b):
    """`np.dot(a, b)`: of a number, a product; of arrays of different dtypes (an int and a
    float array), both as float64, as NumPy computes it."""
    if is_scalar(a) or is_scalar(b):
        return lambda a, b: a * b
    if is_array(a) and is_array(b) and a.dtype != b.dtype:
        return lambda a, b: np.dot(a.astype(np.float64), b.astype(np.float64))
    return lambda a, b: np.dot(a, b)


# numpy.<name>(positional arguments) -> the helper; sum along an axis: keyword or positional
_BY_ARGUMENTS = {("sum", 1): "sum_all", ("sum", 2): "sum_along", ("max", 1): "max_all",
                 ("amax", 1): "max_all", ("min", 1): "min_all", ("amin", 1): "min_all",
                 ("diag", 1): "diag", ("zeros", 1): "zeros", ("eye", 1): "eye",
                 ("mean", 1): "mean_all", ("prod", 1): "prod_all", ("prod", 2): "prod_along",
                 ("product", 1): "prod_all", ("column_stack", 1): "column_stack",
                 ("dot", 2): "dot", ("asarray", 1): "asarray_of"}
# numpy.array(a[, copy=True][, dtype=...]): a dtype spelt as one of these -> the helper
_ARRAY_DTYPES = {None: "array_copy", "float": "array_float64", "float64": "array_float64",
                 "double": "array_float64", "f8": "array_float64", "d": "array_float64"}
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
        if func.attr == "array":
            helper = _array_helper(node)
            return node if helper is None else ast.copy_location(_call(helper, args), node)
        if [k.arg for k in node.keywords] == ["axis"] and func.attr in ("sum", "prod") and \
                len(args) == 1:
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


def _array_helper(node):
    """The helper for `numpy.array(a, ...)`: one argument, `copy` absent or True (a copy where
    NumPy would not make one could be written through), `dtype` absent or float64's."""
    if len(node.args) != 1:
        return None
    keywords = {k.arg: k.value for k in node.keywords}
    copy = keywords.pop("copy", None)
    if copy is not None and not (isinstance(copy, ast.Constant) and copy.value is True):
        return None
    dtype = keywords.pop("dtype", None)
    if keywords:
        return None
    if dtype is None:
        name = None
    elif isinstance(dtype, ast.Constant) and isinstance(dtype.value, str):
        name = dtype.value
    elif isinstance(dtype, ast.Name) and dtype.id == "float" or \
            isinstance(dtype, ast.Attribute) and _spelt(dtype.value, "numpy"):
        name = dtype.id if isinstance(dtype, ast.Name) else dtype.attr
    else:
        return None
    return _ARRAY_DTYPES.get(name)


def _spelt(node, dotted):
    """Whether the expression `node` is the dotted name `dotted` (e.g. numpy.linalg)."""
    *outer, last = dotted.split(".")
    if not outer:
        return isinstance(node, ast.Name) and node.id == last
    return isinstance(node, ast.Attribute) and node.attr == last and \
        _spelt(node.value, ".".join(outer))


def _call(helper, args):
    return ast.Call(ast.Attribute(ast.Name(NAME, ast.Load()), helper, ast.Load()), args, [])
