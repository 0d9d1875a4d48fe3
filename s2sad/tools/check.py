"""`s2sad check`: what s2sad can tell about a function's gradient without running it, and with
`--fd` a comparison of the gradient with finite differences.

    $ s2sad check examples/clog.py:clogged --wrt x
    examples/clog.py:21:9: warning: int(x * 10.0) depends on 'x', but its result carries ...
    ...
    s2sad check: 1 warning, 0 errors in clogged

The static part transforms the function (nothing of it runs) and prints what the transformation
found: where the gradient silently stops (clogs.py), parameters the output does not depend on,
and everything s2sad cannot differentiate (as errors).
"""
import inspect
import math
import warnings

import numpy

from s2sad.api import calls, gradients
from s2sad.errors import UserError
from s2sad.transform import pipeline

from . import verify

FD_TOLERANCE = 1e-5   # central differences in float64 agree to ~1e-8 on smooth functions


def findings(func, positions):
    """The Diagnostics of transforming `func` w.r.t. `positions` (warnings and errors)."""
    try:
        calls.reject_integer_uses(func, positions)
        generated = pipeline.gradient(func, positions)
    except UserError as exc:
        return list(exc.diagnostics)
    return list(generated.clogs) + list(generated.unused)


def summary(found, name):
    errors = sum(d.severity == "error" for d in found)
    warned = len(found) - errors
    return (f"s2sad check: {warned} warning{'s' * (warned != 1)}, {errors} "
            f"error{'s' * (errors != 1)} in {name}")


def example_arguments(expression, func):
    """Evaluate `--fd "ARGS"` in the function's module (numpy as np and numpy, math)."""
    namespace = dict(func.__globals__)
    namespace.update(np=numpy, numpy=numpy, math=math)
    value = eval(expression, namespace)  # the user's own command line
    return value if isinstance(value, tuple) else (value,)


def against_finite_differences(func, positions, args, jit):
    """[(parameter, worst relative error, where)] of the gradient against central differences
    (the relative error of an element is measured against max(|fd|, 1))."""
    names = list(inspect.signature(func).parameters)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # check has printed them already
        grads = gradients.grad(func, wrt=tuple(positions), jit=jit)(*args)
    rows = []
    for position, computed in zip(positions, grads):
        expected = numpy.asarray(verify.finite_difference(func, args, position), float)
        error = numpy.abs(numpy.asarray(computed, float) - expected) / \
            numpy.maximum(1.0, numpy.abs(expected))
        worst = numpy.unravel_index(numpy.argmax(error), error.shape) if error.ndim else ()
        where = names[position] + (f"[{', '.join(map(str, worst))}]" if worst else "")
        rows.append((names[position], float(error.max()), where))
    return rows
