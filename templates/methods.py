"""Array methods and attributes, each spelled as the NumPy function that computes the same value.

s2sad rewrites `x.sum(axis=0)` into `numpy.sum(x, axis=0)` and `x.T` into `numpy.transpose(x)`
before differentiating, so a method needs no template of its own: it uses its function's rule
(and its Numba compatibility). `pack=True` collects the method's positional arguments into the
tuple the function takes: `x.reshape(2, 3)` -> `numpy.reshape(x, (2, 3))`.
"""
import dataclasses

import numpy

from s2sad.runtime import rt

from .registry import check


@dataclasses.dataclass(frozen=True)
class Method:
    name: str
    function: object          # the NumPy function the method means
    pack: bool = False        # x.reshape(2, 3) -> numpy.reshape(x, (2, 3))
    attribute: bool = False   # x.T, read without a call
    checks: tuple = ()


METHODS = {}


def method(name, function, *checks, pack=False):
    METHODS[name] = Method(name, function, pack, False, checks)


def attribute(name, function, *checks):
    METHODS[name] = Method(name, function, False, True, checks)


M = (3, 4)   # the shape most method checks use

attribute("T", numpy.transpose, check("x.T", x=M), check("x.T", x=(2, 3, 4)))
method("sum", numpy.sum, check("x.sum()", x=M), check("x.sum(axis=0)", x=M),
       check("x.sum(1)", x=M))
method("mean", numpy.mean, check("x.mean()", x=M), check("x.mean(axis=-1)", x=M, numba=False))
method("prod", numpy.prod, check("x.prod()", x=M, domain=(0.5, 1.5)),
       check("x.prod(axis=1)", x=M, domain=(0.5, 1.5), numba=False))
method("max", numpy.max, check("x.max()", x=M), check("x.max(axis=0)", x=M))
method("min", numpy.min, check("x.min()", x=M), check("x.min(axis=1)", x=M))
method("var", numpy.var, check("x.var()", x=M), check("x.var(axis=0)", x=M, numba=False))
method("std", numpy.std, check("x.std()", x=M), check("x.std(axis=1, ddof=1)", x=M, numba=False))
method("cumsum", numpy.cumsum, check("x.cumsum()", x=(5,)), check("x.cumsum(axis=1)", x=M))
method("cumprod", numpy.cumprod, check("x.cumprod()", x=(5,), domain=(0.5, 1.5)))
method("dot", numpy.dot, check("x.dot(y)", x=M, y=(4,)), check("x.dot(y)", x=M, y=(4, 2)))
method("reshape", numpy.reshape, check("x.reshape(4, 3)", x=M), check("x.reshape((2, 6))", x=M),
       check("x.reshape(-1)", x=M), pack=True)
method("transpose", numpy.transpose, check("x.transpose()", x=M),
       check("x.transpose(1, 0, 2)", x=(2, 3, 4)), pack=True)
method("swapaxes", numpy.swapaxes, check("x.swapaxes(0, 2)", x=(2, 3, 4)))
method("squeeze", numpy.squeeze, check("x.squeeze()", x=(3, 1, 4)))
method("ravel", numpy.ravel, check("x.ravel()", x=M))
method("flatten", numpy.ravel, check("x.flatten()", x=M))
method("copy", numpy.copy, check("x.copy()", x=M))
method("clip", numpy.clip, check("x.clip(-0.5, 0.5)", x=M))
method("trace", numpy.trace, check("x.trace()", x=(4, 4)))
method("diagonal", numpy.diagonal, check("x.diagonal()", x=(4, 4)),
       check("x.diagonal(1)", x=M))
method("repeat", numpy.repeat, check("x.repeat(2)", x=(3,)),
       check("x.repeat(2, axis=0)", x=M, numba=False))
method("take", numpy.take, check("x.take(numpy.array([0, 2, 2]))", x=(4,)))
method("astype", numpy.asarray, check("x.astype(numpy.float64)", x=M))
method("round", numpy.round)
method("argmax", numpy.argmax)
method("argmin", numpy.argmin)
method("argsort", numpy.argsort)
method("any", numpy.any)
method("all", numpy.all)
method("nonzero", numpy.nonzero)
method("item", rt.item)
# real arrays only (s2sad has no complex numbers): the identity
attribute("real", numpy.real, check("x.real", x=M))
method("conj", numpy.conjugate, check("x.conj()", x=M))
method("conjugate", numpy.conjugate, check("x.conjugate()", x=(4,)))
