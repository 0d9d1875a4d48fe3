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

Container arguments (pytrees) are passed as their leaves: the directional function is made
once per structure, taking the leaves f's specialised tangent code takes, and the results are
built back into the arguments' structures (a Hessian nested as JAX nests it).
"""
import inspect
import os

import numpy

from s2sad.errors import OutputError
from s2sad.runtime import cache, jit
from s2sad.transform.front import constants, parse
from s2sad.transform import pipeline

from . import binding, pytrees
from .calls import (
    Transformed,
    argument_error,
    as_float,
    at_call,
    bind_arguments,
)
from .results import scalar_output, shaped_like


def check_inner(gradient):
    """For `grad(grad(f))`: the inner gradient must be one number, so w.r.t. one parameter."""
    if not gradient.single:
        raise argument_error(f"grad(grad({gradient.func.__name__})): the inner grad must be "
                             "w.r.t. one parameter (a tuple of gradients is not a scalar)",
                             why="the outer grad needs the inner gradient to be one number",
                             fix="use s2sad.hessian(f, wrt=...) for several")
    if getattr(gradient, "check_nan", False):
        raise argument_error("grad(grad(f)): the inner grad cannot use check_nan",
                             why="the checks are not differentiable code",
                             fix="put check_nan=True on the outer grad only")


def derivative_for(outer, kinds):
    """What `outer`, a grad of the grad `outer.inner`, differentiates for arguments of these
    kinds: a plain function of f's parameters (a container one as its leaves), then the
    constants f reads, returning df/dx, x being the one scalar parameter `outer.inner`
    differentiates. Made once per container structure."""
    structures = structures_of(kinds)
    if structures not in outer._derivatives:
        inner = outer.inner
        if inner.inner is None:
            base = inner.func
        elif structures:
            raise argument_error(f"a third grad of {outer.func.__name__} with container "
                                 "arguments", why="only two nested grads take containers",
                                 fix="pass the container's leaves as arguments of their own")
        else:
            base = derivative_for(inner, kinds)
        outer._derivatives[structures] = _directional(base, inner.positions, unit=True,
                                                      structures=structures)
    return outer._derivatives[structures]


def structures_of(kinds):
    return tuple(kinds[3]) if len(kinds) > 3 else ()


def plain_kinds(kinds):
    """`kinds` for a generated function of leaves: no container parameters."""
    return tuple(kinds[:3]) + ((),)


def leaf_spans(names, structures):
    """Per parameter: the range of its leaves among the generated function's parameters,
    and the names of those parameters (a container parameter is one per leaf)."""
    specs = dict(structures)
    spans, leaves = [], []
    for name in names:
        spec = specs.get(name)
        own = pytrees.leaf_names(spec) if spec is not None else [name]
        spans.append(range(len(leaves), len(leaves) + len(own)))
        leaves += own
    return spans, leaves


def refuse_cells(values, func):
    """Second derivatives differentiate generated tangent code, where an object's field in a
    cell is an array a callee writes: not followed yet."""
    if values.cells:
        cell = values.cells[0]
        raise argument_error(
            f"{func.__name__} assigns the field '{cell.field}' of a "
            f"{type(cell.record).__name__}; second derivatives of such a function are not "
            "supported yet",
            why="s2sad hands an assigned field back to its object in gradients, vjp and jvp; "
                "hvp, hessian and grad(grad(f)) differentiate generated code again, which does "
                "not follow it",
            fix="take second derivatives of a function that computes the value without "
                "assigning the field (the method's body without `self.n_fe += 1`)")


def require_scalar(gradient, values):
    """grad(grad(f)) needs df/dx to be a number: x a scalar (not an array, not a container;
    the other arguments may be containers)."""
    names = list(gradient.signature.parameters)
    structures = dict(values.layout.structures)
    spans, _ = leaf_spans(names, values.layout.structures)
    for i in gradient.positions:
        name, what = names[i], None
        if name in structures:
            what = "a container (a dict, list, tuple, NamedTuple or dataclass)"
        elif not isinstance(values[spans[i][0]], float):
            what = "an array"
        if what is not None:
            raise OutputError([at_call(
                f"grad(grad({gradient.func.__name__})): '{name}' is {what}, so the gradient "
                f"of {gradient.func.__name__} is not a scalar",
                why="grad differentiates a function returning one number; the inner grad "
                    "must be w.r.t. one float (other arguments may be arrays or containers)",
                fix="use s2sad.hessian(f) or s2sad.hvp(f), which take arrays and containers")])


def hvp(func=None, wrt=0, *, jit=None, strict=False):
    """Hessian-vector product: `hvp(f, wrt)(args..., v) -> H v`, H the Hessian of the scalar
    f w.r.t. the parameters `wrt` (v and the result: one per parameter, shaped like it, in its
    structure and type for a container; tuples if `wrt` is a tuple). Usable as a decorator."""
    if func is None:
        return lambda f: HvpFunction(f, wrt, jit, strict)
    return HvpFunction(func, wrt, jit, strict)


def hessian(func=None, wrt=0, *, jit=None, strict=False):
    """`hessian(f, wrt)(args...)`: the Hessian of the scalar f, shaped `x.shape + x.shape`
    (for a tuple `wrt`, a tuple of tuples of blocks H[i][j] shaped `x_i.shape + x_j.shape`).
    A container argument nests as `jax.hessian` nests it: H[i][j] has argument i's structure,
    and each of its leaves a holds argument j's structure with, at each leaf b, the block
    shaped `a.shape + b.shape` (for a dict p: `H["W"]["b"]`, shaped `W.shape + b.shape`).
    Built from one Hessian-vector product per input element."""
    if func is None:
        return lambda f: HessianFunction(f, wrt, jit, strict)
    return HessianFunction(func, wrt, jit, strict)


class HvpFunction(Transformed):
    kind = "hvp"
    what = "Hessian-vector product"

    def __init__(self, func, wrt, jit, strict=False):
        super().__init__(func, wrt, jit, strict)
        self.user_func = self.func    # a method, callable object or partial: its function
        self.user_signature = self.signature
        self.directional = {}  # per container structure: made on first use

    def build(self, kinds):
        structures = structures_of(kinds)
        if structures not in self.directional:
            self.directional[structures] = _directional(self.user_func, self.positions,
                                                        unit=False, structures=structures)
        return pipeline.gradient(self.directional[structures], self.leaf_positions(kinds),
                                 plain_kinds(kinds))

    def user_function(self):
        return self.user_func

    def __getstate__(self):
        return dict(super().__getstate__(), directional={})  # made again on first use

    def rebuild(self):
        self.directional = {}

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
        layout = values.layout
        given = args[len(args) - count:]
        if not layout.plain:
            try:
                given = layout.split(given, f"the vector for {', '.join(self.wrt_names)}")
            except ValueError as exc:
                raise argument_error(str(exc), why="v has the structure of its parameter",
                                     fix="pass a vector built like the argument (the same keys, "
                                         "lengths and types), with arrays shaped like its "
                                         "leaves") from None
        for v, i in zip(given, layout.positions):
            name = layout.names[i]
            vector = as_float(v, f"the vector for '{name}'")
            if check and numpy.shape(vector) != numpy.shape(values[i]):
                raise argument_error(f"the vector for '{name}' has shape "
                                     f"{numpy.shape(vector)}, '{name}' has shape "
                                     f"{numpy.shape(values[i])}",
                                     why="v is a direction in the space of its parameter",
                                     fix=f"pass a vector shaped like '{name}'")
            values.append(vector)
        return values

    def arguments(self, args, kwargs):
        """f's arguments in order, defaults applied, `wrt` ones as floats, then the module
        constants f reads."""
        args, kwargs = binding.arguments(self.bound, args, kwargs)   # self, a partial's
        values = self.flat(bind_arguments(self.user_func, self.user_signature, self.positions,
                                          args, kwargs),
                           binding.defaulted(self.user_signature, args, kwargs))
        values = values + self.constant_values()
        refuse_cells(values, self.user_func)
        return values

    def parameter_names(self, layout):
        return super().parameter_names(layout) + \
            [f"_v{k}" for k in range(len(layout.positions))]

    def __call__(self, *args, **kwargs):
        values = self.bind(args, kwargs)
        product = self.product(values)
        values.write_back()
        return product

    def product(self, values):
        """H v, in the structure of the `wrt` arguments; `values` as `bind` returns them."""
        grads = values.layout.gather(self.leaf_products(values))
        return grads[0] if self.single else tuple(grads)

    def leaf_products(self, values):
        """H v, one array or float per differentiated leaf."""
        values.reset()  # (a Hessian runs it once per column: the cells as the call found them)
        value, *grads = self.runner(values)(*values, 1.0)
        scalar_output(value, self.user_func)
        return shaped_like(grads, [values[i] for i in values.layout.positions], self.user_func)


class HessianFunction:
    def __init__(self, func, wrt, jit, strict):
        self.products = HvpFunction(func, wrt, jit, strict)
        self.func, self.single = self.products.func, self.products.single
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
        layout = values.layout
        inputs = [values[i] for i in layout.positions]
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
                for j, part in enumerate(products.leaf_products(values + v)):
                    blocks[j][k][(Ellipsis,) + index] = part
        values.write_back()
        blocks = [[float(b) if b.ndim == 0 else b for b in row] for row in blocks]
        if not layout.plain:
            return self._nested(layout, blocks)
        return blocks[0][0] if self.single else tuple(tuple(row) for row in blocks)

    def _nested(self, layout, blocks):
        """The blocks of leaves a and b (shaped a.shape + b.shape) as JAX nests them: H[i][j]
        has the structure of argument i, each leaf a of it holding the structure of argument j
        with the block of (a, b) at each leaf b."""
        rows = [layout.gather(row) for row in blocks]  # rows[a][j]: leaf a, argument j's tree
        count = len(layout.likes)
        nested = [[layout.gather([row[j] for row in rows])[i] for j in range(count)]
                  for i in range(count)]
        return nested[0][0] if self.single else tuple(tuple(row) for row in nested)


def _directional(func, positions, unit, structures=()):
    """The generated function returning f's directional derivative: along tangent
    parameters appended to f's (`unit=False`), or along 1.0 for each parameter at
    `positions` (`unit=True`). With `structures` ((name, spec) of container parameters), it
    takes each container as its leaves, as f's specialised tangent code does."""
    func = parse.named(func)  # (a lambda: named after the name it is bound to)
    names = list(inspect.signature(func).parameters)
    spans, leaves = leaf_spans(names, structures)
    wrt = tuple(j for i in positions for j in spans[i])
    generated = pipeline.tangent(func, wrt, pipeline.NO_KINDS[:3] + (structures,)) \
        if structures else pipeline.tangent(func, positions)
    params = leaves + [name for name, _ in constants.inputs(func)]
    suffix = "_".join(names[i] for i in positions)
    name = f"{func.__name__}__{'d' if unit else 'dir'}_{suffix}"
    tangents = ["1.0"] * len(wrt) if unit else [f"_v{k}" for k in range(len(wrt))]
    signature = params + ([] if unit else tangents)
    along = "1.0" if unit else "a direction"
    what = ", ".join(names[i] for i in positions)
    return _calling_tangent(name, generated, f"its derivative along {along} for {what}, to be "
                            "differentiated again", signature, params + tangents)


def nested_function(gradient):
    """The function a differentiated function calls where it calls `gradient` (s2sad.grad of
    f w.r.t. one parameter, or a grad of such a grad): f's derivative along 1.0 for that
    parameter, made from f's tangent code, which s2sad differentiates again (a Newton step
    `x - df(x) / d2f(x)` inside a differentiated function). The parameter must be a number: the
    generated function raises otherwise, since along 1.0 an array's derivative is no gradient."""
    if gradient.with_value or not gradient.single:
        raise argument_error(f"{gradient.kind} of {gradient.func.__name__} w.r.t. several "
                             "parameters, called inside a differentiated function",
                             why="inside differentiated code s2sad differentiates grad of one "
                                 "number (its derivative is a second derivative)",
                             fix="use s2sad.grad(f, wrt=k) of one scalar parameter, or compute "
                                 "it outside and pass it in")
    func = parse.named(gradient.func)
    base = derivative_for(gradient, pipeline.NO_KINDS) if gradient.inner is not None else func
    names = list(inspect.signature(base).parameters)
    if gradient.inner is None:  # (a derivative_for takes them already, after f's own)
        names += nested_constants(gradient)
    (position,) = gradient.positions
    generated = pipeline.tangent(base, (position,))
    name = f"{func.__name__}__grad_{names[position]}" + "_" * _depth(gradient)
    wrt = names[position]
    return _calling_tangent(name, generated, f"the derivative w.r.t. {wrt}, called inside a "
                            "differentiated function", names, names + ["1.0"],
                            first=f"{wrt} = rt.number({wrt})")


def nested_constants(gradient):
    """The module constants (and closure arrays) f reads, which the function
    `nested_function` makes takes after f's own arguments: a caller passes its own inputs of
    those names (f's constants are its constants too: constants.py follows f from it)."""
    return [name for name, _ in constants.inputs(gradient.func)]


def _calling_tangent(name, generated, what, signature, arguments, first=None):
    """A generated function `name(signature)` returning the tangent of the tangent code
    `generated` called with `arguments` (after the statement `first`), loaded as Python."""
    stem = os.path.splitext(os.path.basename(generated.path))[0]
    source = generated.source
    text = (f"# Generated by s2sad from {source.path}:{source.name}: {what}.\n"
            "from s2sad.runtime import rt\n"
            f"jvp = rt.load(__name__, {stem!r}, {generated.function!r})\n\n\n"
            f"def {name}({', '.join(signature)}):\n" +
            (f"    {first}\n" if first else "") +
            f"    _value, _tangent = jvp({', '.join(arguments)})\n"
            "    return _tangent\n")
    path = cache.store(name, text)
    return getattr(jit.load(path, jit.PY), name)


def _depth(gradient):
    depth = 0
    while gradient.inner is not None:
        gradient, depth = gradient.inner, depth + 1
    return depth
