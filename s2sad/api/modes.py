"""Forward mode and non-scalar outputs: `jvp`, `vjp`, `jacobian`.

    jf = s2sad.jvp(f, wrt=0)        value, tangent = jf(x, w, dx)      (forward mode)
    vf = s2sad.vjp(f, wrt=(0, 1))   dx, dw = vf(x, w, cotangent)       (reverse mode)
    J = s2sad.jacobian(f)(x, w)     J.shape == numpy.shape(f(x, w)) + x.shape

`jvp` runs the generated tangent function (forward.py); `vjp` the generated adjoint, seeded
with the cotangent instead of 1.0. A function may return a tuple: its tangent is then a tuple,
and `vjp` takes a tuple of cotangents. `jacobian` calls one of them once per input element
(forward) or once per output element (reverse), whichever needs fewer calls.
"""
import numbers

import numpy

from s2sad.errors import Diagnostic, InternalError, OutputError
from s2sad.transform import pipeline

from .calls import Transformed, argument_error, as_float, is_number
from .results import output_location


def jvp(func=None, wrt=0, *, jit=None, strict=False):
    """Forward mode: `jvp(f, wrt)(args..., tangents...) -> (value, tangent)`, the value of f
    and its directional derivative along the tangents of the parameters `wrt` (one tangent per
    parameter, shaped like it). Usable as a decorator."""
    if func is None:
        return lambda f: JvpFunction(f, wrt, jit, strict)
    return JvpFunction(func, wrt, jit, strict)


def vjp(func=None, wrt=0, *, jit=None, strict=False):
    """Reverse mode for any output: `vjp(f, wrt)(args..., cotangent) -> grads`, the gradient of
    `sum(cotangent * f(args))` w.r.t. the parameters `wrt` (a tuple of them if `wrt` is). The
    cotangent is shaped like f's output: a float, an array, or a tuple for a tuple output."""
    if func is None:
        return lambda f: VjpFunction(f, wrt, jit, strict)
    return VjpFunction(func, wrt, jit, strict)


def jacobian(func=None, wrt=0, *, mode=None, jit=None, strict=False):
    """`jacobian(f, wrt)(args...)`: the Jacobian of f's output w.r.t. the parameters `wrt`,
    shaped `output shape + input shape` (a tuple per parameter if `wrt` is a tuple, per output
    if f returns a tuple). `mode`: "forward" (one jvp per input element), "reverse" (one vjp
    per output element), or None to pick the one needing fewer calls."""
    if mode not in (None, "forward", "reverse"):
        raise argument_error(f"mode={mode!r}: expected 'forward', 'reverse' or None",
                             why="forward mode makes one column per input element, reverse mode "
                                 "one row per output element",
                             fix="leave it out: s2sad picks the mode that needs fewer calls")
    if func is None:
        return lambda f: JacobianFunction(f, wrt, mode, jit, strict)
    return JacobianFunction(func, wrt, mode, jit, strict)


class JvpFunction(Transformed):
    kind = what = "jvp"

    def build(self, kinds):
        return pipeline.tangent(self.func, self.leaf_positions(kinds), kinds)

    drops_value = False

    def generated_arguments(self, args, kwargs, batched=False):
        count = len(self.positions)
        if len(args) < count:
            raise argument_error(f"jvp of {self.func.__name__}: pass the arguments, then one "
                                 f"tangent for each of {', '.join(self.wrt_names)}",
                                 why="a jvp differentiates along one direction for each "
                                     "differentiated parameter",
                                 fix=f"call it as jvp_f(*args, "
                                     f"{', '.join('d' + n for n in self.wrt_names)})")
        values = self.bind(args[:len(args) - count], kwargs)
        layout = values.layout
        given = args[len(args) - count:]
        if not layout.plain:
            given = _leaves(layout, given, self.wrt_names, "tangent")
        names = [layout.names[i] for i in layout.positions]
        tangents = [_tangent_like(t, values[i], name, check=not batched) for t, i, name in
                    zip(given, layout.positions, names)]
        return values, tangents

    def __call__(self, *args, **kwargs):
        values, tangents = self.generated_arguments(args, kwargs)
        value, tangent = self.split(self.runner(values)(*values, *tangents))
        values.write_back()
        return _output(value, self.func), _shaped(tangent, value)

    def split(self, flat):
        """(value, tangent) from what the tangent function returns: `(a, b, da, db)` for a
        tuple output."""
        outputs = self.generated.outputs
        if not outputs:
            return flat
        return tuple(flat[:outputs]), tuple(flat[outputs:])


class VjpFunction(Transformed):
    kind = what = "vjp"

    def build(self, kinds):
        return pipeline.adjoint(self.func, self.leaf_positions(kinds), kinds)

    def generated_arguments(self, args, kwargs, batched=False):
        if not args:
            raise argument_error(f"vjp of {self.func.__name__}: pass the arguments, then the "
                                 "cotangent (shaped like the output)",
                                 why="a vjp weighs the output with the cotangent",
                                 fix="call it as vjp_f(*args, cotangent)")
        return self.bind(args[:-1], kwargs), [_cotangent(args[-1])]

    def __call__(self, *args, **kwargs):
        values, (cotangent,) = self.generated_arguments(args, kwargs)
        runner = self.runner(values)  # transformation errors are not about the cotangent
        try:
            value, *grads = runner(*values, cotangent)
        except Exception:  # a cotangent of the wrong shape fails inside; say that instead
            try:
                expected = self.func(*values)
            except Exception:  # noqa: BLE001  (then the gradient's own error is the one)
                expected = None
            if expected is not None:
                _check_cotangent(cotangent, expected, self.func)
            raise
        _check_cotangent(cotangent, value, self.func)
        values.write_back()
        layout = values.layout
        grads = layout.gather([_shaped_grad(g, values[i])
                               for g, i in zip(grads, layout.positions)])
        return grads[0] if self.single else tuple(grads)


class JacobianFunction:
    """The Jacobian, column by column (forward) or row by row (reverse)."""

    def __init__(self, func, wrt, mode, jit, strict):
        self.forward = JvpFunction(func, wrt, jit, strict)
        self.reverse = VjpFunction(func, wrt, jit, strict)
        self.func, self.mode, self.single = func, mode, self.forward.single
        self.positions = self.forward.positions
        self.__wrapped__, self.__doc__ = func, func.__doc__

    def __repr__(self):
        return f"<s2sad jacobian of {self.func.__qualname__} w.r.t. " \
               f"{', '.join(self.forward.wrt_names)}>"

    @property
    def source(self):
        return self.forward.source if self.mode == "forward" else self.reverse.source

    def __call__(self, *args, **kwargs):
        values = self.forward.bind(args, kwargs)
        layout = values.layout
        inputs = [values[i] for i in layout.positions]
        zeros = [_zeros(x) for x in inputs]
        value, _ = self.forward.split(self.forward.runner(values)(*values, *zeros))
        outputs = list(value) if isinstance(value, tuple) else [value]
        for output in outputs:
            if not isinstance(output, (numbers.Real, numpy.ndarray)):
                raise OutputError([Diagnostic(
                    output_location(self.func), f"{self.func.__name__} returned a "
                    f"{type(output).__name__}; a Jacobian needs float or array outputs",
                    why="a Jacobian is made of the derivatives of numbers",
                    fix="return floats or arrays (a tuple of them for several outputs)")])
        size_in = sum(numpy.size(x) for x in inputs)
        size_out = sum(numpy.size(y) for y in outputs)
        mode = self.mode or ("forward" if size_in <= size_out else "reverse")
        blocks = self._forward(values, inputs, outputs) if mode == "forward" else \
            self._reverse(values, inputs, outputs, value)
        values.write_back()  # (each run started from the cells as the call found them)
        per_output = [layout.gather(b) for b in blocks]
        per_output = [b[0] if self.single else tuple(b) for b in per_output]
        return tuple(per_output) if isinstance(value, tuple) else per_output[0]

    def _forward(self, values, inputs, outputs):
        """One jvp per input element: column `index` of each block."""
        blocks = [[numpy.zeros(numpy.shape(y) + numpy.shape(x)) for x in inputs]
                  for y in outputs]
        runner = self.forward.runner(values)
        for k, x in enumerate(inputs):
            for index in numpy.ndindex(numpy.shape(x)):
                tangents = [_zeros(other) for other in inputs]
                tangents[k] = _unit(x, index)
                values.reset()
                _, tangent = self.forward.split(runner(*values, *tangents))
                parts = list(tangent) if isinstance(tangent, tuple) else [tangent]
                for j, part in enumerate(parts):
                    blocks[j][k][(Ellipsis,) + index] = part
        return [[_scalar_if_0d(b) for b in row] for row in blocks]

    def _reverse(self, values, inputs, outputs, value):
        """One vjp per output element: row `index` of each block."""
        blocks = [[numpy.zeros(numpy.shape(y) + numpy.shape(x)) for x in inputs]
                  for y in outputs]
        runner = self.reverse.runner(values)
        for j, y in enumerate(outputs):
            for index in numpy.ndindex(numpy.shape(y)):
                seeds = [_zeros(other) for other in outputs]
                seeds[j] = _unit(y, index)
                cotangent = tuple(seeds) if isinstance(value, tuple) else seeds[0]
                values.reset()
                _, *grads = runner(*values, cotangent)
                for k, g in enumerate(grads):
                    blocks[j][k][index] = g
        return [[_scalar_if_0d(b) for b in row] for row in blocks]


# ---- conversions ---------------------------------------------------------------------------

def _leaves(layout, given, names, what):
    """One tangent per differentiated parameter, each shaped like it (a container for a
    container), as the leaves the generated function takes."""
    try:
        return layout.split(given, f"the {what} of {', '.join(names)}")
    except ValueError as exc:
        raise argument_error(str(exc), why=f"a {what} has the structure of its parameter",
                             fix=f"pass a {what} built like the argument (the same keys, "
                                 "lengths and types), with arrays shaped like its leaves") \
            from None

def _zeros(x):
    return 0.0 if isinstance(x, float) else numpy.zeros(numpy.shape(x))


def _unit(x, index):
    if isinstance(x, (float, numbers.Real)) and numpy.ndim(x) == 0:
        return 1.0
    e = numpy.zeros(numpy.shape(x))
    e[index] = 1.0
    return e


def _scalar_if_0d(block):
    return float(block) if block.ndim == 0 else block


def _tangent_like(tangent, primal, name, check=True):
    tangent = as_float(tangent, f"d{name}")
    if check and numpy.shape(tangent) != numpy.shape(primal):
        raise argument_error(f"the tangent of '{name}' has shape {numpy.shape(tangent)}, "
                             f"'{name}' has shape {numpy.shape(primal)}",
                             why="a tangent is a direction in the space of its parameter",
                             fix=f"pass a tangent shaped like '{name}'")
    if isinstance(primal, numpy.ndarray) and not isinstance(tangent, numpy.ndarray):
        tangent = numpy.asarray(tangent, dtype=numpy.float64)
    return tangent


def _cotangent(value):
    if isinstance(value, tuple):
        return tuple(_cotangent(v) for v in value)
    return as_float(value, "cotangent")


def _check_cotangent(cotangent, value, func):
    """The cotangent must have the output's structure and shapes (checked after the run: the
    output is known only then)."""
    if isinstance(value, tuple) != isinstance(cotangent, tuple) or (
            isinstance(value, tuple) and len(value) != len(cotangent)):
        raise argument_error(f"{func.__name__} returned {_describe(value)}; the cotangent must "
                             f"have the same structure, not {_describe(cotangent)}",
                             why="the cotangent weighs each output",
                             fix="pass one cotangent per output, each shaped like it")
    pairs = zip(value, cotangent) if isinstance(value, tuple) else [(value, cotangent)]
    for v, c in pairs:
        if numpy.shape(v) != numpy.shape(c):
            raise argument_error(f"{func.__name__} returned {_describe(value)}; the cotangent "
                                 f"is {_describe(cotangent)}",
                                 why="the cotangent weighs each element of the output",
                                 fix="pass a cotangent shaped like the output")


def _describe(value):
    if isinstance(value, tuple):
        return f"a tuple ({', '.join(_describe(v) for v in value)})"
    shape = numpy.shape(value)
    return f"an array of shape {shape}" if shape else "a scalar"


def _output(value, func):
    if isinstance(value, tuple):
        return tuple(_output(v, func) for v in value)
    if isinstance(value, numpy.ndarray) and value.ndim == 0:
        return float(value)
    if is_number(value) and not isinstance(value, numbers.Integral):
        return float(value)
    return value


def _shaped(tangent, value):
    """The tangent as a float for a scalar value, a float64 array shaped like an array one."""
    if isinstance(value, tuple):
        return tuple(_shaped(t, v) for t, v in zip(tangent, value))
    if numpy.shape(tangent) != numpy.shape(value):
        raise InternalError(f"the tangent has shape {numpy.shape(tangent)}, the value "
                            f"{numpy.shape(value)}")
    if numpy.ndim(value) == 0:
        return float(tangent)
    return numpy.asarray(tangent, dtype=numpy.float64)


def _shaped_grad(g, x):
    if isinstance(x, float):
        return float(g)
    return numpy.array(g, dtype=numpy.float64).reshape(numpy.shape(x))


