"""The user-facing API: `grad`, `value_and_grad`, `source`.

A gradient function transforms its function on first use (once per function and `wrt`), then
converts arguments and results around a call of the generated adjoint:

    df = s2sad.grad(f, wrt=(0, 1))
    dx, dw = df(x, w)            # floats for scalar inputs, float64 arrays shaped like the input
"""
import functools

from s2sad.runtime import rt
from s2sad.transform.generate import nancheck
from s2sad.transform import pipeline

from . import batching, higher
from .calls import Transformed, argument_error, short_repr
from .results import scalar_output, shaped_like


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
    if isinstance(gradient_function, batching.Batched) and gradient_function.source:
        return gradient_function.source  # its batch loop (which calls the function's code)
    if not isinstance(gradient_function, Transformed):
        raise argument_error(f"s2sad.source() takes a function made by s2sad, not "
                             f"{short_repr(gradient_function)}",
                             why="it shows the code s2sad generated, which a plain function "
                                 "does not have",
                             fix="pass what s2sad.grad, value_and_grad, jvp, vjp or hvp "
                                 "returned")
    return gradient_function.source


class GradientFunction(Transformed):
    """A callable gradient (`s2sad.grad`, `s2sad.value_and_grad`)."""

    def __init__(self, func, wrt, jit, with_value, strict=False, check_nan=False):
        inner = None
        if isinstance(func, GradientFunction):
            # grad(grad(f)): this differentiates df/dx, a function s2sad generates from f's
            # tangent code for the kinds of arguments of each call (higher.derivative_for);
            # self.func is f itself, for its signature, names and messages
            higher.check_inner(func)
            inner, func = func, func.given   # (a method or partial: bound as the inner is)
        super().__init__(func, wrt, jit, strict)
        self.inner = inner
        self._derivatives = {}
        self.with_value = with_value
        self.check_nan = check_nan
        self.kind = "value_and_grad" if with_value else "grad"
        self.drops_value = not with_value

    def __getstate__(self):
        return dict(super().__getstate__(), _derivatives={})  # made again on first use

    def nested_constants(self):
        """The constants a differentiated function calling this gradient passes after its
        arguments (higher.nested_constants)."""
        return higher.nested_constants(self)

    def differentiable_function(self):
        """What a differentiated function calling this gradient calls instead: a generated
        function s2sad can differentiate again (higher.nested_function)."""
        if "_nested" not in self.__dict__:
            self._nested = higher.nested_function(self)
        return self._nested

    def generated_arguments(self, args, kwargs, batched=False):
        values = self.bind(args, kwargs)
        if self.inner is not None:
            higher.refuse_cells(values, self.func)
        if self.inner is not None and not batched:
            higher.require_scalar(self.inner, values)
        return values, [1.0]

    def build(self, kinds):
        if self.inner is not None:  # of df/dx, its container arguments passed as leaves
            return pipeline.gradient(higher.derivative_for(self, kinds),
                                     self.leaf_positions(kinds), higher.plain_kinds(kinds),
                                     check_nan=self.check_nan)
        return pipeline.gradient(self.func, self.leaf_positions(kinds), kinds,
                                 check_nan=self.check_nan)

    def rebuild(self):
        inner = self
        while inner is not None:  # each grad of a grad holds a df/dx made from the one inside
            inner._derivatives = {}
            inner = inner.inner

    def __call__(self, *args, **kwargs):
        fast = self.fast(args, kwargs)
        if fast is not None:
            constants = self.constant_values()
            try:
                value, *grads = fast(*args, *constants, 1.0)
            except Exception:  # noqa: BLE001 -- the general path below says what and where
                pass
            else:
                constants.write_back()
                return self._result(value, grads, args, self.positions)
        values, extras = self.generated_arguments(args, kwargs)
        value, *grads = self._run(values)
        values.write_back()
        self.remember_fast(args, kwargs, values, extras, self.runner(values))
        layout = values.layout
        return self._result(value, grads, values, layout.positions, layout)

    def _result(self, value, grads, values, positions, layout=None):
        value = scalar_output(value, self.func)
        grads = shaped_like(grads, [values[i] for i in positions], self.func)
        if layout is not None:
            grads = layout.gather(grads)
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
        values.reset()  # (the objects' cells as the call found them)
        try:
            return python()
        except rt.NonFiniteGradient as exc:
            raise nancheck.explain(exc, python) from None
