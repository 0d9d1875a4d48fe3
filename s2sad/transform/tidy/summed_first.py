"""A matrix product's gradient that is only summed over its rows is
summed before the product, not after it.

    centered = x - means[k]                  # x: n x d, means[k]: a row
    mahal = centered @ q_t

    dcentered = rt.matmul_grad_a(dmahal, centered, q_t)       # dmahal @ q_t.T: n x d
    dmeans[k] += rt.unbroadcast(-dcentered, means[k])          # summed over the n rows
                    -->
    dcentered = rt.matmul_grad_a(numpy.sum(dmahal, axis=0), means[k], q_t)   # d numbers
    dmeans[k] += rt.unbroadcast(-dcentered, means[k])

The sum over rows commutes with the product: sum(G @ B.T, axis=0) = sum(G, axis=0) @ B.T. One
row instead of n, and no n x d array. The numbers may differ in the last bits (the sums are
taken in another order), like the sums blocks.summed_later moves.

Applied only where ranks are known (blocks.py marks them): G and B matrices, the row a vector,
the gradient read once, by that `rt.unbroadcast`, in the same statement list, with nothing
between rebinding the names the row reads (it is read earlier now). `rt.matmul_grad_a` of a
vector and a matrix is `B @ g`: it reads the vector only for its kind.
"""
import gast

from .. import facts, nodes
from ..nodes import dotted_parts


def rewrite(function):
    loads, products = {}, False
    for node in nodes.walk(function):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            loads[node.id] = loads.get(node.id, 0) + 1
        elif _is_product_of_matrices(node):
            products = True
        row, value = _summed_over_rows(node)   # the product written inside the sum (folded)
        if row is not None and _is_product_of_matrices(value):
            _sum_first(value, row)
    if not products:
        return
    for node in nodes.walk(function):
        body = getattr(node, "body", None)
        for statements in (body, getattr(node, "orelse", None)):
            if isinstance(statements, list):
                _block(statements, loads)


def _block(statements, loads):
    for index, statement in enumerate(statements):
        if not (isinstance(statement, gast.Assign) and len(statement.targets) == 1 and
                isinstance(statement.targets[0], gast.Name) and
                _is_product_of_matrices(statement.value) and
                loads.get(statement.targets[0].id) == 1):
            continue
        name = statement.targets[0].id
        for later in statements[index + 1:]:
            row = _row_summing(later, name)
            if row is not None:
                if not _rebinds(statements[index + 1:statements.index(later)], row):
                    _sum_first(statement.value, row)
                break
            if not isinstance(later, (gast.Assign, gast.AugAssign, gast.Expr, nodes.Comment)):
                break


def _sum_first(product, row):
    summed = nodes.call("numpy.sum", product.args[0])
    summed.keywords = [gast.keyword("axis", gast.Constant(0, None))]
    product.args = [summed, nodes.clone(row), product.args[2]]


def _is_product_of_matrices(value):
    """`rt.matmul_grad_a(g, a, b)` with a and b matrices (blocks.py marks the ranks)."""
    return isinstance(value, gast.Call) and dotted_parts(value.func) == \
        ["rt", "matmul_grad_a"] and len(value.args) == 3 and \
        facts.OPERAND_RANKS.of(value) == [2, 2]


def _summed_over_rows(node):
    """(like, g) of `rt.unbroadcast(g, like)` or `rt.unbroadcast(-g, like)`, `like` a vector
    (blocks.py marks its rank) read by names, subscripts and numbers only; (None, None) else."""
    if not (isinstance(node, gast.Call) and dotted_parts(node.func) == ["rt", "unbroadcast"]
            and len(node.args) == 2 and facts.LIKE_RANK.of(node) == 1):
        return None, None
    value = node.args[0]
    if isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub):
        value = value.operand
    if not all(isinstance(n, (gast.Name, gast.Subscript, gast.Constant, gast.expr_context,
                              gast.Slice, gast.Tuple)) for n in nodes.walk(node.args[1])):
        return None, None
    return node.args[1], value


def _row_summing(statement, name):
    """The row of `rt.unbroadcast(±name, row)` in `statement`, or None."""
    for node in nodes.walk(statement):
        row, value = _summed_over_rows(node)
        if row is not None and isinstance(value, gast.Name) and value.id == name:
            return row
    return None


def _rebinds(statements, row):
    read = nodes.names(row)
    for statement in statements:
        for node in nodes.walk(statement):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store) and \
                    node.id in read:
                return True
            if isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Store) and \
                    isinstance(node.value, gast.Name) and node.value.id in read:
                return True
    return False
