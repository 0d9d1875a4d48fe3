"""The user-facing API: `grad`, `value_and_grad`, `source`.

A gradient function transforms its function on first use (once per function and `wrt`), then
converts arguments and results around a call of the generated adjoint:

    df = s2sad.grad(f, wrt=(0, 1))
    dx, dw = df(x, w)            # floats for scalar inputs, float64 arrays shaped like the input
"""
import dataclasses
import functools
import inspect
import numbers
import os
import warnings

import numpy

from . import nancheck, pipeline, rt
from .errors import (ArgumentError, GradientCutError, GradientCutWarning, InternalError,
                     OutputError, ZeroGradientWarning)
from .jit import Runner

DISABLE_JIT_ENV = "S2SAD_DISABLE_JIT"


def grad(func=None, wrt=0, *, jit=None, strict=False, check_nan=False):
    """Gradient of a scalar-valued `func` w.r.t. the parameter(s) `wrt`.

    `wrt` is a parameter position, a parameter name, or a tuple of them (then the gradient
    function returns a tuple). `jit=False` runs the generated file as Python (also when
    S2SAD_DISABLE_JIT=1). Places where the gradient silently stops (int(), round, a comparison
    used as a number...) give a GradientCutWarning when the function is transformed, or a
    GradientCutError with `strict=True`. `check_nan=True` checks every gradient the backward
    sweep writes: the first NaN or infinity raises a NonFiniteError naming the original line
    whose adjoint made it, with the values involved. Usable as `@grad` and `@grad(wrt=...)`.
    """
    options = dict(jit=jit, strict=strict, check_nan=check_nan, with_value=False)
    if func is None:
        return lambda f: GradientFunction(f, wrt, **options)
    return GradientFunction(func, wrt, **options)


def value_and_grad(func=None, wrt=0, *, jit=None, strict=False, check_nan=False):
    """Like `grad`, but the gradient function returns `(value, gradient)`."""
    options = dict(jit=jit, strict=strict, check_nan=check_nan, with_value=True)
    if func is None:
        return lambda f: GradientFunction(f, wrt, **options)
    return GradientFunction(func, wrt, **options)


def source(gradient_function):
    """The generated Python source of a function made by s2sad (grad, jvp, vjp, ...)."""
    if not isinstance(gradient_function, Transformed):
        raise ArgumentError("s2sad.source() takes a function made by s2sad (grad, "
                            "value_and_grad, jvp, vjp, hvp)")
    return gradient_function.source


def jit_default():
    return os.environ.get(DISABLE_JIT_ENV, "").strip().lower() not in ("1", "true", "yes", "on")


class Transformed:
    """What every function s2sad makes shares: the differentiated function, its `wrt`
    positions, generated files specialised on which arguments are Python scalars and ints,
    and one Runner (compiled or Python) per specialisation. `.path` is the generated file the
    last call ran, `.source` its text."""

    kind = "grad"
    what = "gradient"   # for messages: "the gradient of f"

    def __init__(self, func, wrt, jit, strict=False):
        if inspect.ismethod(func):
            raise ArgumentError(f"{func.__qualname__} is a bound method; differentiate a plain "
                                "function (pass the object's data as arguments)")
        if isinstance(func, Transformed):
            raise ArgumentError(f"s2sad.{type(self).kind}() cannot take {func!r}; "
                                "higher derivatives: s2sad.grad(s2sad.grad(f)) for a scalar "
                                "parameter, s2sad.hessian(f) and s2sad.hvp(f) otherwise")
        if not inspect.isfunction(func):
            raise ArgumentError(f"s2sad can only differentiate Python functions, not {func!r}")
        self.func = func
        self.signature = inspect.signature(func)
        self.positions, self.single = _positions(func, self.signature, wrt)
        self.jit = jit
        self.strict = strict
        functools.update_wrapper(self, func)
        self._runners = {}
        self._kinds = pipeline.NO_KINDS

    def build(self, kinds):
        """The Generated file for these kinds (subclasses: which pipeline entry)."""
        raise NotImplementedError

    @property
    def generated(self):
        """The generated code: the one the last call ran (it is specialised on which arguments
        are Python scalars and ints), or before any call a general one."""
        return self.build(self._kinds)

    @property
    def path(self):
        return self.generated.path

    @property
    def source(self):
        return self.generated.text

    @property
    def wrt_names(self):
        names = list(self.signature.parameters)
        return [names[i] for i in self.positions]

    def __repr__(self):
        return f"<s2sad {self.kind} of {self.func.__qualname__} w.r.t. " \
               f"{', '.join(self.wrt_names)}>"

    def bind(self, args, kwargs):
        """The function's arguments in order, defaults applied, `wrt` ones as floats."""
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise ArgumentError(f"{self.func.__name__}(): {exc}") from None
        bound.apply_defaults()
        values = list(bound.arguments.values())
        for i in self.positions:
            values[i] = _as_float(values[i], list(bound.arguments)[i])
        return values

    def parameter_names(self):
        """The generated function's parameters before its seed (tangents or d_result)."""
        return list(self.signature.parameters)

    def runner(self, values):
        """The Runner for these argument values' kinds (transforming on first use)."""
        names = self.parameter_names()
        self._kinds = (
            frozenset(n for n, v in zip(names, values) if _is_number(v)),
            frozenset(n for n, v in zip(names, values)
                      if _is_number(v) and isinstance(v, numbers.Integral)),
            frozenset((n, v.ndim) for n, v in zip(names, values)
                      if isinstance(v, numpy.ndarray) and v.ndim > 0))
        runner = self._runners.get(self._kinds)
        if runner is None:
            generated = self.generated
            report_clogs(generated, self.strict)
            jit = jit_default() if self.jit is None else self.jit
            runner = self._runners[self._kinds] = Runner(
                generated.path, generated.function, jit,
                f"the {self.what} of {self.func.__qualname__}", generated.python_only)
        return runner


class GradientFunction(Transformed):
    """A callable gradient (`s2sad.grad`, `s2sad.value_and_grad`)."""

    def __init__(self, func, wrt, jit, with_value, strict=False, check_nan=False):
        inner = None
        if isinstance(func, GradientFunction):
            from . import higher  # grad(grad(f)): differentiate f's derivative function
            inner, func = func, higher.derivative_function(func)
        super().__init__(func, wrt, jit, strict)
        if inner is not None:
            self.signature = inner.signature
        self.inner = inner
        self.with_value = with_value
        self.check_nan = check_nan
        self.kind = "value_and_grad" if with_value else "grad"

    def build(self, kinds):
        return pipeline.gradient(self.func, self.positions, kinds, check_nan=self.check_nan)

    def __call__(self, *args, **kwargs):
        values = self.bind(args, kwargs)
        if self.inner is not None:
            from . import higher
            higher.require_scalar(self.inner, values)
        value, *grads = self._run(values)
        value = _scalar_output(value, self.func)
        grads = _shaped_like(grads, [values[i] for i in self.positions], self.func)
        result = grads[0] if self.single else tuple(grads)
        return (value, result) if self.with_value else result

    def _run(self, values):
        runner = self.runner(values)
        python = functools.partial(runner.as_python, *values, 1.0)
        try:
            return runner(*values, 1.0)
        except rt.NonFiniteGradient as exc:  # check_nan found one: say where, with the values
            raise nancheck.explain(exc, python) from None
        except ZeroDivisionError:
            if not (self.check_nan and runner.jit):
                raise
        # Numba raises on a scalar x / 0 where NumPy, in the Python run, makes the inf or NaN
        # that check_nan is there to locate (or raises with the line, if Python floats divide)
        try:
            return python()
        except rt.NonFiniteGradient as exc:
            raise nancheck.explain(exc, python) from None


_reported = set()  # (location, message): each finding is reported once per process


def report_clogs(generated, strict):
    """Warn (once each) about the places where the gradient stops, or raise if `strict`."""
    findings = list(generated.clogs) + list(generated.unused)
    if strict and findings:
        raise GradientCutError([dataclasses.replace(f, severity="error") for f in findings])
    for finding in findings:
        key = (str(finding.where), finding.message)
        if key in _reported:
            continue
        _reported.add(key)
        category = ZeroGradientWarning if finding in generated.unused else GradientCutWarning
        warnings.warn_explicit(finding.render(), category, finding.where.path,
                               finding.where.line)


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, numpy.bool_))


def _positions(func, signature, wrt):
    names = list(signature.parameters)
    single = not isinstance(wrt, (tuple, list))
    items = [wrt] if single else list(wrt)
    if not items:
        raise ArgumentError("wrt is empty: name at least one parameter to differentiate")
    positions = []
    for item in items:
        if isinstance(item, str) and item in names:
            position = names.index(item)
        elif isinstance(item, numbers.Integral) and not isinstance(item, bool) and \
                -len(names) <= item < len(names):
            position = item % len(names)
        else:
            raise ArgumentError(f"wrt={item!r} does not name a parameter of {func.__name__}; "
                                f"its parameters are {', '.join(names) or '(none)'}")
        if positions.count(position):
            raise ArgumentError(f"wrt names the parameter '{names[position]}' twice")
        positions.append(position)
    kinds = {p.kind for p in signature.parameters.values()}
    if inspect.Parameter.VAR_POSITIONAL in kinds or inspect.Parameter.VAR_KEYWORD in kinds:
        raise ArgumentError(f"{func.__name__} takes *args or **kwargs, which s2sad does not "
                            "support; give every parameter a name")
    return tuple(positions), single


def _as_float(value, name):
    """A differentiated argument as a float or a float64 array."""
    if isinstance(value, (bool, numpy.bool_)):
        raise ArgumentError(f"argument '{name}' is a bool; it cannot be differentiated")
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, (numpy.ndarray, list, tuple)):
        array = numpy.asarray(value)
        if array.dtype.kind in "fiu":
            return numpy.asarray(array, dtype=numpy.float64)
        what = {"c": "complex", "b": "boolean", "O": "object"}.get(array.dtype.kind,
                                                                   str(array.dtype))
        raise ArgumentError(f"argument '{name}' is a {what} array; s2sad differentiates real "
                            "float64 values (convert it with numpy.asarray(..., float))")
    if isinstance(value, numbers.Complex):
        raise ArgumentError(f"argument '{name}' is complex; s2sad differentiates real values")
    raise ArgumentError(f"argument '{name}' is a {type(value).__name__}; s2sad differentiates "
                        "floats and float64 arrays")


def _scalar_output(value, func):
    if isinstance(value, numbers.Real) or (isinstance(value, numpy.ndarray) and value.ndim == 0):
        return float(value)
    if isinstance(value, numpy.ndarray):
        raise OutputError(f"{func.__name__} returned an array of shape {value.shape}; grad needs "
                          "a scalar output. Reduce it (e.g. numpy.sum) before returning; "
                          "vector-Jacobian products of array outputs are not supported yet.")
    raise OutputError(f"{func.__name__} returned a {type(value).__name__}; grad needs a scalar "
                      "(float) output")


def _shaped_like(grads, inputs, func):
    out = []
    for g, x in zip(grads, inputs):
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
