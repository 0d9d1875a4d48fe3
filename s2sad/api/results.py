"""What a call of generated code hands back to the user: a gradient's scalar output checked
(an error at the function's `return` otherwise), and the gradients shaped like the inputs.
"""
import numbers

import gast
import numpy

from s2sad.errors import Diagnostic, InternalError, OutputError, S2sadError
from s2sad.transform.front import parse

_FLOAT64 = numpy.dtype(numpy.float64)


def scalar_output(value, func):
    if type(value) is float:
        return value
    if isinstance(value, numbers.Real) or (isinstance(value, numpy.ndarray) and value.ndim == 0):
        return float(value)
    if isinstance(value, numpy.ndarray):
        what = f"an array of shape {value.shape}"
        fix = ("reduce it to a scalar before returning (e.g. numpy.sum(...)), or use s2sad.vjp "
               "or s2sad.jacobian for an array output")
    else:
        what = "None" if value is None else f"a {type(value).__name__}"
        fix = "return one float"
    raise OutputError([Diagnostic(output_location(func), f"{func.__name__} returned {what}; "
                                  "grad needs a scalar output",
                                  why="a gradient is the derivative of one number", fix=fix)])


def output_location(func):
    """The value of f's one `return`, or its `def` line when it has several."""
    try:
        source = parse.parse_function(func)
    except S2sadError:
        return parse.code_location(func)
    returns = [n for n in gast.walk(source.tree) if isinstance(n, gast.Return) and n.value]
    return source.loc(returns[0].value if len(returns) == 1 else source.tree)


def shaped_like(grads, inputs, func):
    out = []
    for g, x in zip(grads, inputs):
        if type(g) is float and type(x) is float:
            out.append(g)
            continue
        if type(g) is numpy.ndarray and type(x) is numpy.ndarray and g.shape == x.shape and \
                g.dtype is _FLOAT64 and not any(g is other for other in out):
            out.append(g)  # the call path: already what is handed out
            continue
        if isinstance(x, float):
            if numpy.ndim(g) != 0:
                raise InternalError(f"the gradient of {func.__name__} for a scalar input has "
                                    f"shape {numpy.shape(g)}")
            out.append(float(g))
            continue
        g = numpy.asarray(g, dtype=numpy.float64)
        if g.shape != x.shape:
            raise InternalError(f"the gradient of {func.__name__} has shape {g.shape}, its "
                                f"input {x.shape}")
        if any(g is other for other in out):  # never hand out one array twice
            g = g.copy()
        out.append(g)
    return out
