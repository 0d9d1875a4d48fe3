"""Sum the outer products of a backward loop as one matrix product after it.

The adjoint of `z = W @ b` (W a matrix, b a vector) w.r.t. W is the outer product of dz and b.
In a loop over time steps the backward sweep adds one per step; a person collects the vectors
and multiplies once (`dW = G.T @ B`, one BLAS call instead of a matrix-sized update per step):

    for t in range(n - 1, -1, -1):                    _dw_x_g = numpy.empty((n, w_x.shape[0]))
        ...                                           _dw_x_b = numpy.empty((n, w_x.shape[1]))
        dw_x = dw_x + rt.matmul_grad_a(d_t4, w_x, x)  for t in range(n - 1, -1, -1):
                                                 -->      ...
                                                          _dw_x_g[t] = d_t4
                                                          _dw_x_b[t] = x
                                                      dw_x = dw_x + _dw_x_g.T @ _dw_x_b

Only where nothing else in the loop reads or writes the gradient, W does not change in the
loop, and blocks.py marked the call as an outer product (W of rank 2, b of rank 1). The sum is
the same up to rounding (BLAS adds in another order). Where b is row t of an array nothing
writes (`_t3 = inputs[t]`), the rows are that array's own: `dw_x += _dw_x_g.T @ inputs[:n]`.
"""
import gast

from .. import facts, nodes


def defer(function, namer):
    """Rewrite every backward loop of `function` (in place) as above."""
    written = set()     # names bound, and arrays written into (`x[i] = v`, `x[i] += v`)
    for node in nodes.walk(function):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            written.add(node.id)
        elif isinstance(node, gast.Subscript) and not isinstance(node.ctx, gast.Load):
            base = node.value
            while isinstance(base, (gast.Subscript, gast.Attribute)):
                base = base.value
            if isinstance(base, gast.Name):
                written.add(base.id)
    for node in list(nodes.walk(function)):
        for field in ("body", "orelse"):
            statements = getattr(node, field, None)
            if isinstance(statements, list):
                for loop in [s for s in statements if _trips(s) is not None]:
                    _defer_loop(statements, loop, namer, written)


def _rows_of(b, loop, written):
    """`X[:trips]` when the vector `b` is row `k` of an array X nothing writes (`_t3 =
    inputs[t]`, assigned in the loop's body, `t` its counter): the rows collected are X's own
    first rows, so they need no array of their own. Else None."""
    for statement in loop.body:
        if isinstance(statement, gast.Assign) and len(statement.targets) == 1 and \
                isinstance(statement.targets[0], gast.Name) and \
                isinstance(b, gast.Name) and statement.targets[0].id == b.id:
            value = statement.value
            if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) and \
                    value.value.id not in written and isinstance(value.slice, gast.Name) and \
                    value.slice.id == loop.target.id and \
                    sum(isinstance(n, gast.Name) and n.id == b.id and
                        not isinstance(n.ctx, gast.Load) for n in nodes.walk(loop)) == 1:
                return gast.Subscript(nodes.name(value.value.id), gast.Slice(
                    None, nodes.clone(_trips(loop)), None), gast.Load())
    return None


def _trips(loop):
    """The trip count (an expression) of a backward loop `for k in range(trips - 1, -1, -1)`,
    `k` its trip number, or None."""
    if not isinstance(loop, gast.For) or not isinstance(loop.target, gast.Name):
        return None
    call = loop.iter
    if not (isinstance(call, gast.Call) and getattr(call.func, "id", None) == "range" and
            len(call.args) == 3 and isinstance(call.args[0], gast.BinOp) and
            isinstance(call.args[0].op, gast.Sub)
            and _is_minus_one(call.args[0].right, negated=True) and
            _is_minus_one(call.args[1]) and _is_minus_one(call.args[2])):
        return None
    return call.args[0].left


def _is_minus_one(atom, negated=False):
    """-1 as a literal (`1` when `negated`: the right operand of `trips - 1`)."""
    if negated:
        return isinstance(atom, gast.Constant) and atom.value == 1
    if isinstance(atom, gast.UnaryOp) and isinstance(atom.op, gast.USub):
        return isinstance(atom.operand, gast.Constant) and atom.operand.value == 1
    return isinstance(atom, gast.Constant) and atom.value == -1


def _defer_loop(statements, loop, namer, written):
    after = []
    for index, statement in enumerate(list(loop.body)):
        found = _outer_accumulation(statement, loop)
        if found is None:
            continue
        gradient, (g, matrix, b) = found
        given = _rows_of(b, loop, written)   # `inputs[:_t2]`: rows that exist already
        rows = [namer.fresh(f"_{gradient}_g")] + ([] if given else
                                                  [namer.fresh(f"_{gradient}_b")])
        for name, axis in zip(rows, (0, 1)):
            size = gast.Subscript(gast.Attribute(nodes.name(matrix), "shape", gast.Load()),
                                  nodes.constant(axis), gast.Load())
            shape = gast.Tuple([nodes.clone(_trips(loop)), size], gast.Load())
            statements.insert(statements.index(loop), nodes.assign(
                name, nodes.call("numpy.empty", shape)))
        at = loop.body.index(statement)
        loop.body[at:at + 1] = [
            gast.Assign([gast.Subscript(nodes.name(row), nodes.name(loop.target.id),
                                        gast.Store())], value, None)
            for row, value in zip(rows, (g, b))]
        transposed = gast.Attribute(nodes.name(rows[0]), "T", gast.Load())
        after.append(nodes.assign(gradient, gast.BinOp(
            nodes.name(gradient), gast.Add(),
            gast.BinOp(transposed, gast.MatMult(), given or nodes.name(rows[1])))))
    position = statements.index(loop) + 1
    statements[position:position] = after


def _outer_accumulation(statement, loop):
    """(gradient name, (g, W, b)) for `dW = dW + <marked outer product>` whose gradient nothing
    else in `loop` touches and whose W the loop does not assign."""
    if nodes.assigned_name(statement) is None:
        return None
    gradient, value = statement.targets[0].id, statement.value
    if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add) and
            isinstance(value.left, gast.Name) and value.left.id == gradient and
            facts.OUTER.of(value.right)):
        return None
    g, matrix, b = value.right.args
    if not isinstance(matrix, gast.Name):
        return None
    uses = [n for n in nodes.walk(loop) if isinstance(n, gast.Name) and n.id == gradient]
    stored = {n.id for n in nodes.walk(loop) if isinstance(n, gast.Name)
              and isinstance(n.ctx, gast.Store)} | {loop.target.id}
    if len(uses) != 2 or matrix.id in stored:
        return None
    return gradient, (g, matrix.id, b)
