"""Callables that are not plain functions, as a plain function and the arguments bound to it:

    s2sad.grad(model.energy)             Model.energy, called with model first
    s2sad.grad(loss)  (loss.__call__)    type(loss).__call__, called with loss first
    s2sad.grad(partial(f, a, k=v))       f, called with a first and k=v
    s2sad.grad(scipy.special.logsumexp)  a function calling it, through its rule
                                         (library_functions.py)

The bound object (`self`) is an argument that is not differentiated: a dataclass instance or
any object is passed as its attributes (api/pytrees.py), which the method reads as `self.k`.
`wrt` names the callable's own parameters: for `model.energy(x)`, wrt=0 is x.
"""
import dataclasses
import functools
import inspect

from s2sad.transform.front.container_values import is_static_spec, is_static_value
from . import library_functions


@dataclasses.dataclass(frozen=True)
class Bound:
    func: object          # the plain function differentiated
    args: tuple = ()      # what is passed before the caller's arguments
    kwargs: tuple = ()    # (name, value) pairs passed as keywords

    @property
    def plain(self):
        return not self.args and not self.kwargs


def unbind(callable_):
    """The Bound form of a method, a callable object or a functools.partial (nested ones
    too); a numba.njit function as the function it compiles; a plain function (or anything
    else, for check_function to report) as it is."""
    if isinstance(callable_, functools.partial):
        inner = unbind(callable_.func)
        return Bound(inner.func, inner.args + tuple(callable_.args),
                     inner.kwargs + tuple(callable_.keywords.items()))
    if inspect.ismethod(callable_) and inspect.isfunction(callable_.__func__):
        return Bound(callable_.__func__, (callable_.__self__,))
    if type(callable_).__module__.startswith("numba.") and \
            inspect.isfunction(getattr(callable_, "py_func", None)):
        return Bound(callable_.py_func)   # a numba.njit function: the Python it compiles
    call = getattr(type(callable_), "__call__", None)
    if not inspect.isfunction(callable_) and not isinstance(callable_, type) and \
            inspect.isfunction(call) and not inspect.isbuiltin(callable_) and \
            not type(callable_).__module__.startswith("s2sad."):  # (what s2sad made: refused)
        return Bound(call, (callable_,))
    made = library_functions.calling(callable_)  # scipy.special.logsumexp: through its rule
    return Bound(made if made is not None else callable_)


def position(callable_, bound, signature, item):
    """`wrt` item (a position or a name among the callable's own parameters) as a name or
    position of `bound.func`'s parameters."""
    if bound.plain or isinstance(item, str):
        return item
    own = list(inspect.signature(callable_).parameters)
    if isinstance(item, int) and not isinstance(item, bool) and -len(own) <= item < len(own):
        return own[item]
    return item  # positions_of reports it


def arguments(bound, args, kwargs):
    """The underlying function's arguments for a call of the bound callable."""
    if bound.plain:
        return args, kwargs
    return tuple(bound.args) + tuple(args), {**dict(bound.kwargs), **kwargs}


def defaulted(signature, args, kwargs):
    """The names of the parameters a call with `args` and `kwargs` leaves to their defaults."""
    names = [n for n, p in signature.parameters.items()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return frozenset(n for n, p in signature.parameters.items()
                     if p.default is not p.empty and n not in kwargs and
                     n not in names[:len(args)])


def static_arguments(names, values, positions, defaulted=()):
    """The positions of the arguments that are constants of the generated code (their values
    part of the specialisation key), as for a function of yours called with a literal: a str,
    None or bool not differentiated, and a number left to its default (`def f(x, rot=0)`
    called as f(x): `if rot:` is decided when f is transformed)."""
    return {i for i, (name, value) in enumerate(zip(names, values)) if i not in positions and
            (is_static_value(value) or name in defaulted and type(value) in (int, float))}


def left_plain(layout, signature, given):
    """Whether a call's flattened arguments (`layout`) are the `given` first arguments as they
    are: no container, and constants only for parameters left to their defaults (the fast path
    of later calls, api/calls.py)."""
    names = list(signature.parameters)[:given]
    return layout.plain or all(is_static_spec(spec) and name not in names
                               for name, spec in layout.structures)
