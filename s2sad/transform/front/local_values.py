"""Local functions passed as values: `apply(lambda z: z ** 2, x)`, or `sq` of a nested
`def sq(z)` given to another function of yours.

    def f(x):                                   def f(x):
        def sq(z):                      -->         return apply(<function f.<locals>.sq>, x)
            return np.sum(z ** 2)
        return apply(sq, x)

Desugar puts a local function in place of its calls; passed as a value it has no calls to be
put in. When it reads no local name of the enclosing function (only its parameters and
globals), it is the function Python makes from its code object, which the enclosing function's
code holds: a constant like a global function given as an argument, on which resolve.py
specialises the callee. One that reads the enclosing function's locals (a closure) is left
as it is, for resolve.py and the fence to report.
"""
import types

import gast

from .. import facts
from . import parse


def lifted(source, function):
    """(a constant holding the function the local `function` (a Lambda or FunctionDef node of
    `source`) makes, None) when it is a closure of nothing; else (None, why it is not)."""
    code = _code_of(source, function)
    if code is None:
        return None, "its code is not found alone on its line"
    if code.co_freevars:
        read = ", ".join(f"'{n}'" for n in code.co_freevars)
        return None, f"it reads {read}, local to {source.func.__name__}"
    defaults = _defaults(function)
    if defaults is None:
        return None, "a default of its parameters is computed, not a literal"
    made = types.FunctionType(code, source.func.__globals__, code.co_name, defaults or None)
    made.__module__ = source.func.__module__
    named = parse.named(made)
    constant = gast.copy_location(gast.Constant(named, None), function)
    facts.REF.put(constant, named)
    return constant, None


def _code_of(source, function):
    """The code object of `function` among the constants of the enclosing function's code
    (nested ones included): the one starting on its line, with its name."""
    line = source.first_line + function.lineno - 1
    name = "<lambda>" if isinstance(function, gast.Lambda) else function.name
    found = [c for c in _nested_codes(source.func.__code__)
             if c.co_name == name and c.co_firstlineno == line]
    return found[0] if len(found) == 1 else None  # (two lambdas on a line: not told apart)


def _nested_codes(code):
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield constant
            yield from _nested_codes(constant)


def _defaults(function):
    """The values of the defaults of `function`'s parameters, when all are literals; else
    None (a default computed in the enclosing function)."""
    values = []
    for default in function.args.defaults:
        if not isinstance(default, gast.Constant):
            return None
        values.append(default.value)
    if any(d is not None for d in function.args.kw_defaults):
        return None
    return tuple(values)
