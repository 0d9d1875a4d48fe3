"""The errors for what resolve.py cannot bind: an attribute or method that is neither an array's
nor a container field's, a random draw, and a call of something without source or rule (a
function s2sad made, called inside a differentiated function, is nested differentiation).

    rs.randn(3)      -->  "`.randn(...)` draws random numbers, which is not supported inside a
                           differentiated function yet" (fix: draw outside, pass the samples in)
    x.frobnicate()   -->  "the array method `.frobnicate(...)` is not supported"
"""
import gast
import numpy

from s2sad.errors import Diagnostic
from s2sad.templates.methods import METHODS

SHAPE_ATTRIBUTES = {"shape", "ndim", "size", "dtype"}
# Methods of numpy.random.RandomState and Generator: a draw, not an array method.
RANDOM_METHODS = frozenset({
    "randn", "rand", "random", "random_sample", "normal", "uniform", "standard_normal",
    "choice", "permutation", "shuffle", "integers", "randint", "binomial", "poisson",
    "exponential", "gamma", "beta", "multivariate_normal", "laplace", "logistic",
    "standard_t", "dirichlet"})
# The methods a compiled gradient draws with, from a RandomState (runtime/random_state.py) or a
# Generator (Numba's own): each gives NumPy's very samples (tests/test_random_draws.py). A draw
# by another method, or from numpy.random's own generator, keeps the gradient in Python.
COMPILED_DRAWS = frozenset({
    "randn", "rand", "standard_normal", "normal", "random_sample", "random", "uniform",
    "randint", "permutation", "integers", "exponential"})


def compiled_draw(call):
    """`rs.randn(n)` of a generator (an argument, a global or a closure variable) by a method
    of COMPILED_DRAWS: compiled, with NumPy's samples (`numpy.random.randn(n)` is not)."""
    func = call.func
    return isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
        func.attr in COMPILED_DRAWS


def random_draw(where, name):
    return Diagnostic(where, f"`.{name}(...)` draws random numbers, which is not supported "
                      "inside a differentiated function yet",
                      why="the backward sweep must see the very samples the forward sweep drew",
                      fix="draw the samples outside the function and pass them in as an "
                          "argument (for a reparameterised sample, pass eps and compute "
                          "mean + numpy.exp(log_std) * eps inside)")


def method_fix(name):
    """The fix for an unknown method: the NumPy function of that name, where there is one."""
    if callable(getattr(numpy, name, None)):
        return f"call a NumPy function instead (numpy.{name}(x, ...))"
    return f"compute `.{name}(...)` outside the function and pass its result in"


def unknown_attribute(source, node):
    """The error for `x.attr` that is neither an array attribute nor a container's field."""
    supported = ", ".join(f".{m.name}" for m in METHODS.values() if m.attribute)
    if isinstance(node, gast.Call):
        name = node.func.attr
        if name in RANDOM_METHODS:
            return random_draw(source.loc(node.func), name)
        return Diagnostic(source.loc(node.func), f"the array method `.{name}(...)` is "
                          "not supported", why="s2sad knows the methods listed in "
                          "docs/coverage.md, and keys(), values() and items() of a dict "
                          "argument or a dict made in the function", fix=method_fix(name))
    return Diagnostic(source.loc(node), f"the array attribute `.{node.attr}` is not supported",
                      why=f"s2sad knows {supported}, the shape attributes "
                          f"({', '.join(sorted(SHAPE_ATTRIBUTES))}) and the fields of "
                          "NamedTuple and dataclass arguments",
                      fix="use the NumPy function instead")


def uncallable(chain, found):
    """(message, why, fix) for a call of `found`, which has neither source nor rule: in
    particular a function s2sad made (a gradient inside a differentiated function)."""
    name = ".".join(chain)
    if type(found).__module__.startswith("s2sad.api"):
        kind = getattr(found, "kind", None) or type(found).__name__
        return (f"cannot call '{name}' (made by s2sad.{kind}) from differentiated code",
                "inside a differentiated function s2sad differentiates calls of s2sad.grad(f) "
                "w.r.t. one number (and grads of them); a function of gradients w.r.t. an "
                "array is a Hessian",
                "compute it outside the differentiated function and pass it in as an argument "
                "(a Newton step x - solve(H, g): g = s2sad.grad(f)(x), H = "
                "s2sad.hessian(f)(x)); second derivatives come from s2sad.hvp(f), "
                "s2sad.hessian(f) and grad(grad(f))")
    return (f"cannot call '{name}' ({type(found).__name__}) from differentiated code",
            "it is neither a NumPy/math/builtin function nor a Python function with source",
            "register a derivative for it with @s2sad.adjoint (docs/rules.md: Adding a "
            "derivative), wrap the value in s2sad.stop_gradient(...) if no gradient should "
            "flow, or compute it outside the differentiated function and pass the result in")
