"""Range arithmetic for `for` loops the backward sweep runs through backwards (tape.py), with
`+ 1` and `- 1` written as a person writes them:

    range(n)            ->  range(n - 1, -1, -1)
    range(1, n - 1)     ->  range(n - 2, 0, -1)
    range(j + 1, d)     ->  range(d - 1, j, -1)
    range(n - 1, -1, -1) -> range(n)
"""
import gast

from .. import nodes


def backwards(iteration, values):
    """The range visiting, last first, what the call `iteration` (`range(...)` of one, two or
    three arguments; a step of 1 or -1) visits; None for anything else. `values`: name -> the
    expression it is computed again from, put in the bounds."""
    if not isinstance(iteration, gast.Call) or nodes.dotted_parts(iteration.func) != ["range"] \
            or not 1 <= len(iteration.args) <= 3 or iteration.keywords:
        return None
    if len(iteration.args) == 3:  # `range(a, b, -1)` visits a down to b + 1
        if not is_minus_one(iteration.args[2]):
            return None
        start, stop = (nodes.substituted(a, values) for a in iteration.args[:2])
        first, end = plus_one(stop), plus_one(start)
        return call("range", end) if is_constant(first, 0) else call("range", first, end)
    start, stop = (nodes.constant(0), *iteration.args) if len(iteration.args) == 1 else \
        iteration.args
    start, stop = nodes.substituted(start, values), nodes.substituted(stop, values)
    last = minus_one_from(stop)
    if is_constant(start, 0):
        before = minus_one()  # `range(n - 1, -1, -1)`: defer.py knows it by this
    elif isinstance(start, gast.BinOp) and isinstance(start.op, gast.Add) and \
            is_constant(start.right, 1):
        before = start.left    # range bounds are ints: `j + 1 - 1` is `j`
    else:
        before = gast.BinOp(start, gast.Sub(), nodes.constant(1))
    return call("range", last, before, minus_one())


def minus_one_from(atom):
    """`atom - 1`: `n - 1 - 1` is `n - 2`, `i + 1 - 1` is `i`."""
    if isinstance(atom, gast.Constant) and type(atom.value) is int:
        return integer(atom.value - 1)
    if isinstance(atom, gast.BinOp) and isinstance(atom.right, gast.Constant) and \
            type(atom.right.value) is int and atom.right.value > 0:
        if isinstance(atom.op, gast.Sub):
            return gast.BinOp(atom.left, gast.Sub(), nodes.constant(atom.right.value + 1))
        if isinstance(atom.op, gast.Add):
            return atom.left if atom.right.value == 1 else \
                gast.BinOp(atom.left, gast.Add(), nodes.constant(atom.right.value - 1))
    return gast.BinOp(atom, gast.Sub(), nodes.constant(1))


def plus_one(atom):
    """`atom + 1`: `n - 1 + 1` is `n`, `-1 + 1` is `0`."""
    if is_minus_one(atom):
        return nodes.constant(0)
    if isinstance(atom, gast.Constant) and type(atom.value) is int:
        return integer(atom.value + 1)
    if isinstance(atom, gast.BinOp) and isinstance(atom.op, gast.Sub) and \
            is_constant(atom.right, 1):
        return atom.left
    return gast.BinOp(atom, gast.Add(), nodes.constant(1))


def start_step(iteration):
    """(start, step) of a `range(...)` call."""
    args = iteration.args
    if len(args) == 1:
        return nodes.constant(0), nodes.constant(1)
    return args[0], args[2] if len(args) > 2 else nodes.constant(1)


def is_minus_one(atom):
    return is_constant(atom, -1) or isinstance(atom, gast.UnaryOp) and \
        isinstance(atom.op, gast.USub) and is_constant(atom.operand, 1)


def is_constant(atom, value):
    return isinstance(atom, gast.Constant) and atom.value == value and \
        type(atom.value) is type(value)


def integer(value):
    """The int literal `value`; a negative one as printed code reads back (`-(1)`)."""
    if value < 0:
        return gast.UnaryOp(gast.USub(), nodes.constant(-value))
    return nodes.constant(value)


def minus_one():
    return gast.UnaryOp(gast.USub(), nodes.constant(1))


def call(function, *args):
    return gast.Call(nodes.name(function), list(args), [])
