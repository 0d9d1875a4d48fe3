"""What the JIT flavour of a generated file calls in place of `@` and a few NumPy functions.

Numba compiles its own implementation of `a @ b`, `np.max(a)`, `np.sum(a, axis=k)`, ... anew
in every process, for every function that uses it: 0.3-0.6 s each the first time (the LSTM
gradient spent 1.2 s on its two `@` forms). Called through these one-line helpers instead, that
code is compiled once and then loaded from the helpers' disk cache (numba_cache.py).

The file a user reads, and the Python flavour that runs it, keep `x @ w` and `numpy.max(x)`:
jit.py compiles the JIT flavour from the same text with these calls swapped in (`for_numba`),
line for line. Each helper calls the very function it stands for, so the numbers are the same.
"""
import ast

import numpy as np

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


# numpy.<name>(positional arguments) -> the helper; sum along an axis: keyword or positional
_BY_ARGUMENTS = {("sum", 1): "sum_all", ("sum", 2): "sum_along", ("max", 1): "max_all",
                 ("amax", 1): "max_all", ("min", 1): "min_all", ("amin", 1): "min_all",
                 ("diag", 1): "diag", ("zeros", 1): "zeros"}


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
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id == "numpy") or any(isinstance(a, ast.Starred)
                                                     for a in node.args):
            return node
        args = list(node.args)
        if [k.arg for k in node.keywords] == ["axis"] and func.attr == "sum" and len(args) == 1:
            args.append(node.keywords[0].value)
        elif node.keywords:
            return node
        helper = _BY_ARGUMENTS.get((func.attr, len(args)))
        if helper is None:
            return node
        return ast.copy_location(_call(helper, args), node)


def _call(helper, args):
    return ast.Call(ast.Attribute(ast.Name(NAME, ast.Load()), helper, ast.Load()), args, [])
