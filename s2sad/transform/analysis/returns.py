"""What a user function returns, for given argument kinds: kinds.py asks this at each call of
a user function, so the caller knows its result's kind as it knows a ufunc's.

    def sigmoid(z):                       # called with z a 1-D array
        return 1.0 / (1.0 + numpy.exp(-z))   # -> a 1-D array
    i_gate = sigmoid(gates[:hidden])      # i_gate: rank 1, as if the body were inline

The callee is read, resolved and put in A-normal form like the function itself (nothing is
generated), and its body marked with the kinds of the call's arguments. Whatever cannot be
worked out (a callee s2sad refuses, recursion, `**kwargs`) is unknown.
"""
import inspect

import gast
import numpy

from s2sad.errors import S2sadError

from .. import facts, nodes
from ..front import exits, fence, normalize, parse, resolve
from . import kinds
from ..naming import Namer

# (is a scalar, is an int, number of dimensions, the kinds of a returned tuple's elements)
UNKNOWN = (False, False, None, None)
_memo = {}
_busy = set()


def of_call(call, statement):
    """(is a scalar, is an int, ndim or None, the elements' kinds or None) of what the user
    function `call` calls returns, with the argument kinds known at `statement`."""
    func = facts.REF.of(call)
    if not resolve.is_user_function(func):
        return UNKNOWN
    try:
        names = [a.id for a in resolve.parameters(parse.parse_function(func).tree.args)]
    except S2sadError:
        return UNKNOWN
    names += [n for n in inspect.signature(func).parameters][len(names):]  # its constants
    args = _in_order(call, names, inspect.signature(func).parameters)
    if args is None:
        return UNKNOWN
    return result_kind(func, kinds.of_call(names, args, statement))


def _in_order(call, names, parameters):
    """The call's arguments in the order of `names`, keywords put in place and a number left
    to its default a literal; None when that cannot be done (`**kwargs`, a default that is not
    a number, too many arguments)."""
    args = list(call.args) + [None] * (len(names) - len(call.args))
    if len(args) != len(names):
        return None
    for keyword in call.keywords:
        if keyword.arg not in names or args[names.index(keyword.arg)] is not None:
            return None
        args[names.index(keyword.arg)] = keyword.value
    for k, arg in enumerate(args):
        if arg is None:
            default = getattr(parameters.get(names[k]), "default", inspect.Parameter.empty)
            if not isinstance(default, (int, float)):
                return None
            args[k] = gast.Constant(default, None)
    return args


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
    scalars, ints, arrays = argument_kinds
    arrays = set(arrays) | _global_arrays(func, source.tree, scalars | ints | {
        n for n, _ in arrays})
    scalars, ints, ranks = kinds.mark(body[:-1], scalars, ints, arrays, results=of_call)
    returned = body[-1]
    if not isinstance(returned, gast.Return) or returned.value is None:
        return UNKNOWN
    value = returned.value
    parts = tuple(kinds.kind_of(e, scalars, ints, ranks) for e in value.elts) if \
        isinstance(value, gast.Tuple) else None
    return (*kinds.kind_of(value, scalars, ints, ranks), parts)


def _global_arrays(func, tree, parameters):
    """(name, ndim) of the module-level arrays `func` reads (its caller passes their values
    in as constants, so their ranks are the ones they have now)."""
    names = {n.id for n in nodes.walk(tree) if isinstance(n, gast.Name)} - set(parameters)
    return {(n, func.__globals__[n].ndim) for n in names
            if isinstance(func.__globals__.get(n), numpy.ndarray)}
