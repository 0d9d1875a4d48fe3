"""What a user function returns, for given argument kinds: kinds.py asks this at each call of
a user function, so the caller knows its result's kind as it knows a ufunc's.

    def sigmoid(z):                       # called with z a 1-D array
        return 1.0 / (1.0 + numpy.exp(-z))   # -> a 1-D array
    i_gate = sigmoid(gates[:hidden])      # i_gate: rank 1, as if the body were inline

The callee is read, resolved and put in A-normal form like the function itself (nothing is
generated), and its body marked with the kinds of the call's arguments. Whatever cannot be
worked out (a callee s2sad refuses, recursion, keyword arguments) is unknown.
"""
import inspect

import gast

from s2sad.errors import S2sadError

from .. import facts, nodes
from ..front import exits, fence, normalize, parse, resolve
from . import kinds
from ..naming import Namer

UNKNOWN = (False, False, None)   # (is a scalar, is an int, number of dimensions)
_memo = {}
_busy = set()


def of_call(call, statement):
    """(is a scalar, is an int, ndim or None) of what the user function `call` calls returns,
    with the argument kinds known at `statement`."""
    func = facts.REF.of(call)
    if not resolve.is_user_function(func) or call.keywords:
        return UNKNOWN
    try:
        names = [a.id for a in resolve.parameters(parse.parse_function(func).tree.args)]
    except S2sadError:
        return UNKNOWN
    names += [n for n in inspect.signature(func).parameters][len(names):]  # its constants
    if len(call.args) != len(names):
        return UNKNOWN
    return result_kind(func, kinds.of_call(names, call.args, statement))


def result_kind(func, argument_kinds):
    """(is a scalar, is an int, ndim or None) of `func`'s result for `argument_kinds`
    (scalars, ints, (name, ndim) pairs), as kinds.py works it out on its body."""
    key = (func, func.__code__, argument_kinds)
    if key in _memo:
        return _memo[key]
    if key in _busy:
        return UNKNOWN  # recursion: what the base case returns is not worked out
    _busy.add(key)
    try:
        _memo[key] = _worked_out(func, argument_kinds)
    except S2sadError:
        _memo[key] = UNKNOWN  # the transformation of the callee reports it
    finally:
        _busy.discard(key)
    return _memo[key]


def _worked_out(func, argument_kinds):
    source = parse.parse_function(func)
    if fence.find_problems(source) or resolve.resolve(source).diagnostics or any(
            isinstance(n, gast.Attribute) and isinstance(n.ctx, gast.Store)
            for n in nodes.walk(source.tree)):
        return UNKNOWN  # (an object's field assigned: followed only where containers.py ran)
    namer = Namer(nodes.names(source.tree))
    exits.single_exit(source.tree, namer)
    body = normalize.normalize(source, namer)
    scalars, ints, ranks = kinds.mark(body[:-1], *argument_kinds, results=of_call)
    returned = body[-1]
    if not isinstance(returned, gast.Return) or returned.value is None:
        return UNKNOWN
    return kinds.kind_of(returned.value, scalars, ints, ranks)
