"""Second derivatives: `grad(grad(f))`, `hvp`, `hessian`, by differentiating generated code.

The generated forward-mode code of f is ordinary Python with NumPy calls, so s2sad can
differentiate it again. A small generated function takes f's directional derivative,

    # f__dir_x.py
    jvp_f = rt.load(__name__, 'f__jvp_x__...', 'jvp_f')

    def f__dir_x(x, w, dx):
        _value, _tangent = jvp_f(x, w, dx)
        return _tangent

and its reverse-mode gradient w.r.t. x is the Hessian-vector product H dx (reverse over
forward). For `grad(grad(f))` the tangent is the constant 1.0: the derivative of f w.r.t. a
scalar parameter, as a function s2sad differentiates like any other (a third `grad` runs
forward mode over that code in turn). Calls to user functions are followed: f's tangent code
calls its callees' tangent code, each differentiable the same way.

Reverse over forward gives the same numbers as forward over reverse (H is symmetric) at the
same cost, O(cost of f) per product, and its first sweep has no stacks to differentiate.
"""
import inspect
import os

import numpy

from s2sad.errors import OutputError
from s2sad.runtime import cache, jit
from s2sad.transform.front import constants
from s2sad.transform import pipeline

from .calls import (
    Transformed,
    argument_error,
    as_float,
    at_call,
    bind_arguments,
    scalar_output,
    shaped_like,
)


def derivative_function(gradient):
    """For `grad(grad(f))`: a plain function with f's parameters returning df/dx, x being
    the one scalar parameter `gradient` differentiates."""
    if not gradient.single:
        raise argument_error(f"grad(grad({gradient.func.__name__})): the inner grad must be "
                             "w.r.t. one parameter (a tuple of gradients is not a scalar)",
                             why="the outer grad needs the inner gradient to be one number",
                             fix="use s2sad.hessian(f, wrt=...) for several")
    if getattr(gradient, "check_nan", False):
        raise argument_error("grad(grad(f)): the inner grad cannot use check_nan",
                             why="the checks are not differentiable code",
                             fix="put check_nan=True on the outer grad only")
    return _directional(gradient.func, gradient.positions, unit=True)


def require_scalar(gradient, values):
    """grad(grad(f)) needs df/dx to be a number: x a scalar."""
    require_plain(values.layout, f"grad(grad({gradient.func.__name__}))")
    for i in gradient.positions:
        if not isinstance(values[i], float):
            name = list(gradient.signature.parameters)[i]
            raise OutputError([at_call(
                f"grad(grad({gradient.func.__name__})): '{name}' is an array, so the gradient "
                f"of {gradient.func.__name__} is not a scalar",
                why="grad differentiates a function returning one number",
                fix="use s2sad.hessian(f) or s2sad.hvp(f) for arrays")])


def require_plain(layout, what):
    """Second derivatives take no container (pytree) arguments yet."""
    if not layout.plain:
        names = ", ".join(f"'{name}'" for name, _ in layout.structures)
        raise argument_error(f"{what}: the argument {names} is a container (a dict, list, "
                             "tuple, NamedTuple or dataclass)",
                             why="second derivatives of functions of containers are not "
                                 "supported yet",
                             fix="pass the leaves as arguments of their own")


def hvp(func=None, wrt=0, *, jit=None, strict=False):
    """Hessian-vector product: `hvp(f, wrt)(args..., v) -> H v`, H the Hessian of the scalar
    f w.r.t. the parameters `wrt` (v and the result: one per parameter, shaped like it; tuples
    if `wrt` is a tuple). Usable as a decorator."""
    if func is None:
        return lambda f: HvpFunction(f, wrt, jit, strict)
    return HvpFunction(func, wrt, jit, strict)


def hessian(func=None, wrt=0, *, jit=None, strict=False):
    """`hessian(f, wrt)(args...)`: the Hessian of the scalar f, shaped `x.shape + x.shape`
    (for a tuple `wrt`, a tuple of tuples of blocks H[i][j] shaped `x_i.shape + x_j.shape`).
    Built from one Hessian-vector product per input element."""
    if func is None:
        return lambda f: HessianFunction(f, wrt, jit, strict)
    return HessianFunction(func, wrt, jit, strict)


class HvpFunction(Transformed):
    kind = "hvp"
    what = "Hessian-vector product"

    def __init__(self, func, wrt, jit, strict=False):
        super().__init__(func, wrt, jit, strict)
        self.user_func = func
        self.user_signature = self.signature
        self.directional = None  # made on first use (after the arguments are checked)

    def build(self, kinds):
        if self.directional is None:
            self.directional = _directional(self.user_func, self.positions, unit=False)
        return pipeline.gradient(self.directional, self.positions, kinds)

    def user_function(self):
        return self.user_func

    def __getstate__(self):
        return dict(super().__getstate__(), directional=None)  # made again on first use

    def rebuild(self):
        self.directional = None

    def generated_arguments(self, args, kwargs, batched=False):
        return self.bind(args, kwargs, check=not batched), [1.0]

    def bind(self, args, kwargs, check=True):
        count = len(self.positions)
        if len(args) < count:
            raise argument_error(f"hvp of {self.user_func.__name__}: pass the arguments, then "
                                 f"one vector for each of {', '.join(self.wrt_names)}",
                                 why="H v needs a vector v for each differentiated parameter",
                                 fix="call it as hvp_f(*args, v)")
        values = self.arguments(args[:len(args) - count], kwargs)
        names = list(self.user_signature.parameters)
        for v, i in zip(args[len(args) - count:], self.positions):
            vector = as_float(v, f"the vector for '{names[i]}'")
            if check and numpy.shape(vector) != numpy.shape(values[i]):
                raise argument_error(f"the vector for '{names[i]}' has shape "
                                     f"{numpy.shape(vector)}, '{names[i]}' has shape "
                                     f"{numpy.shape(values[i])}",
                                     why="v is a direction in the space of its parameter",
                                     fix=f"pass a vector shaped like '{names[i]}'")
            values.append(vector)
        return values

    def arguments(self, args, kwargs):
        """f's arguments in order, defaults applied, `wrt` ones as floats, then the module
        constants f reads."""
        values = self.flat(bind_arguments(self.user_func, self.user_signature, self.positions,
                                          args, kwargs))
        require_plain(values.layout, f"hvp of {self.user_func.__name__}")
        return values + self.constant_values()

    def parameter_names(self, layout):
        return super().parameter_names(layout) + [f"_v{k}" for k in range(len(self.positions))]

    def __call__(self, *args, **kwargs):
        values = self.bind(args, kwargs)
        return self.product(values)

    def product(self, values):
        value, *grads = self.runner(values)(*values, 1.0)
        scalar_output(value, self.user_func)
        grads = shaped_like(grads, [values[i] for i in self.positions], self.user_func)
        return grads[0] if self.single else tuple(grads)


class HessianFunction:
    def __init__(self, func, wrt, jit, strict):
        self.products = HvpFunction(func, wrt, jit, strict)
        self.func, self.single = func, self.products.single
        self.__wrapped__, self.__doc__ = func, func.__doc__

    def __repr__(self):
        return f"<s2sad hessian of {self.func.__qualname__} w.r.t. " \
               f"{', '.join(self.products.wrt_names)}>"

    @property
    def source(self):
        return self.products.source

    def __call__(self, *args, **kwargs):
        products = self.products
        values = products.arguments(args, kwargs)
        inputs = [values[i] for i in products.positions]
        blocks = [[numpy.zeros(numpy.shape(a) + numpy.shape(b)) for b in inputs]
                  for a in inputs]
        for k, x in enumerate(inputs):
            for index in numpy.ndindex(numpy.shape(x)):
                v = [0.0 if isinstance(other, float) else numpy.zeros(other.shape)
                     for other in inputs]
                if isinstance(x, float):
                    v[k] = 1.0
                else:
                    v[k] = numpy.zeros(x.shape)
                    v[k][index] = 1.0
                column = products.product(values + v)
                column = [column] if self.single else list(column)
                for j, part in enumerate(column):
                    blocks[j][k][(Ellipsis,) + index] = part
        blocks = [[float(b) if b.ndim == 0 else b for b in row] for row in blocks]
        return blocks[0][0] if self.single else tuple(tuple(row) for row in blocks)


def _directional(func, positions, unit):
    """The generated function returning f's directional derivative: along tangent
    parameters appended to f's (`unit=False`), or along 1.0 for each parameter at
    `positions` (`unit=True`)."""
    generated = pipeline.tangent(func, positions)
    params = list(inspect.signature(func).parameters) + \
        [name for name, _ in constants.inputs(func)]
    suffix = "_".join(params[i] for i in positions)
    name = f"{func.__name__}__{'d' if unit else 'dir'}_{suffix}"
    tangents = ["1.0"] * len(positions) if unit else [f"_v{k}" for k in range(len(positions))]
    signature = params + ([] if unit else tangents)
    stem = os.path.splitext(os.path.basename(generated.path))[0]
    along = "1.0" if unit else "a direction"
    names = ", ".join(params[i] for i in positions)
    text = (f"# Generated by s2sad from {generated.source.path}:{func.__name__}: its derivative "
            f"along {along} for {names}, to be differentiated again.\n"
            "from s2sad.runtime import rt\n"
            f"jvp = rt.load(__name__, {stem!r}, {generated.function!r})\n\n\n"
            f"def {name}({', '.join(signature)}):\n"
            f"    _value, _tangent = jvp({', '.join(params + tangents)})\n"
            "    return _tangent\n")
    path = cache.store(name, text)
    return getattr(jit.load(path, jit.PY), name)
