"""Derivative templates: the rules s2sad differentiates calls with.

A template is a small Python function that is read, never run. Its first parameter is the
primal's result, the others are the primal's arguments (same names, same defaults), and each line
states one argument's contribution to its adjoint:

    @adjoint(numpy.sin)
    def sin(z, x):
        d[x] = d[z] * numpy.cos(x)

`d[z]` is the adjoint of the result. The engine turns each line into an accumulation
(`dx = dx + dz * numpy.cos(x)`), skips lines for arguments that do not need a gradient, and, for
rules registered with `broadcasting=True`, sums the contribution back to the argument's shape
(`rt.unbroadcast`). Template bodies may use only their parameters, `d[...]`, the modules
`numpy`, `math` and `rt` (s2sad's runtime helpers; longer rules call a named helper there), and
functions of the template's own module (a user's rule may call its own helpers).

A rule may be given for any function, also a user's own or a third-party one: calls to it are
then differentiated by the rule instead of by reading its source. Generated code calls such a
function through a generated copy of it when s2sad can read its source (Numba compiles it), or
imports it as it is (a `numba.njit` function stays compiled; anything else makes the gradient
run as Python).

Kinds of rule:
- `@adjoint(f, ...)`: a derivative template (above), for reverse mode.
- `@tangent(f)`: a tangent template, for forward mode: one line giving the result's tangent
  from the arguments' tangents, `d[x]` now being the tangent of x:

      @tangent(numpy.sum)
      def sum(z, x, axis=None):
          d[z] = numpy.sum(d[x], axis)

  Elementwise functions (NumPy ufuncs, `math`, arithmetic operators) need none: their tangent
  is derived from the adjoint template (`d[z] * numpy.cos(x)` read with d[x] for d[z], summed
  over the arguments). The tangent of an argument that carries none is zero, and the engine
  simplifies it away (`d[a] @ b + a @ d[b]` becomes `a @ d[b]` when only b varies).
- `nondifferentiable(f, ...)`: the result carries no gradient, by declaration (floor, shape, ...).
- `not_implemented(f, ...)`: a known gap; the error says so instead of "unknown function".

A template argument may be a sequence (`numpy.concatenate(arrays)`, `*operands`): its line then
gives a tuple, one contribution per element. A result may be a tuple (`numpy.linalg.slogdet`):
`d[z]` is then a tuple of the elements' adjoints.

A library function Numba cannot call (scipy.special's) is given `call_as=rt.helper` (an `rt`
helper with the same parameters): generated code binds the name it calls to the helper
(`sp_gammaln = rt.gammaln`), which Numba compiles as s2sad's own code and Python may run as the
library function itself. Such a library's rules are in a module of their own, loaded when the
library is imported (`library_rules`, below; `load_library_rules`).

Every rule is verified from this registry (`s2sad.tools.verify`): each `check(...)` names a
call and the shapes of its float inputs; elementwise ufuncs and `math` functions get default
checks. A rule whose generated code Numba cannot compile says `numba=False`, and gradients that
use it run as Python with a warning. Array methods and attributes (`x.sum()`, `x.T`) are mapped
onto these functions in `methods.py`.

This package is data for the engine: it imports nothing of the engine.
"""
from .registry import (REGISTRY, RESULTS, TANGENTS, Check, Rule, adjoint, check, d, elementwise,
                       generation, library_rules, load_library_rules, nondifferentiable,
                       not_implemented, rule_for, spd, square, tangent, tangent_for,
                       user_generation)

# The built-in rules register themselves on import.
from . import math_rules, methods, numpy_linalg, numpy_reductions, numpy_rules  # noqa: E402,F401
from . import numpy_shape, operators, runtime  # noqa: E402,F401
from . import linalg_more, numpy_more  # noqa: E402,F401

# Rules for other libraries, loaded once the library is imported (a user's rules still win).
library_rules("scipy.special", "scipy_special")
library_rules("scipy.optimize", "scipy_optimize")
library_rules("scipy.spatial.distance", "scipy_spatial")

__all__ = ["REGISTRY", "RESULTS", "TANGENTS", "Check", "Rule", "adjoint", "check", "d",
           "elementwise", "generation", "library_rules", "load_library_rules",
           "nondifferentiable", "not_implemented", "rule_for", "spd", "square", "tangent",
           "tangent_for", "user_generation"]
