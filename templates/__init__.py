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
(`rt.unbroadcast`). Template bodies may use only their parameters, `d[...]`, and the modules
`numpy`, `math` and `rt` (s2sad's runtime helpers); longer rules call a named helper in `rt`.

Kinds of rule:
- `@adjoint(f, ...)`: a derivative template (above).
- `nondifferentiable(f, ...)`: the result carries no gradient, by declaration (floor, shape, ...).
- `not_implemented(f, ...)`: a known gap; the error says so instead of "unknown function".

This package is data for the engine: it imports nothing of the engine.
"""
import dataclasses
import inspect


class _AdjointMarker:
    """`d[x]` in a template; templates are never executed."""

    def __getitem__(self, name):
        raise RuntimeError("derivative templates are read by s2sad, not run")

    __setitem__ = __getitem__


d = _AdjointMarker()


@dataclasses.dataclass(frozen=True)
class Rule:
    primal: object
    kind: str                      # "adjoint" | "nondifferentiable" | "not_implemented"
    template: object = None        # the template function, for "adjoint"
    broadcasting: bool = False     # contributions are summed back to each argument's shape
    note: str = ""                 # why, for "not_implemented"

    @property
    def origin(self):
        """'file.py:line' of the template, for listings and errors."""
        if self.template is None:
            return ""
        code = self.template.__code__
        return f"{code.co_filename}:{code.co_firstlineno}"


REGISTRY = {}
_changes = [0]  # bumped on every registration, so transformations made before it are redone


def generation():
    """A number that changes whenever a rule is registered."""
    return _changes[0]


def _key(primal):
    _changes[0] += 1
    try:
        hash(primal)
    except TypeError:
        raise TypeError(f"cannot register a rule for unhashable {primal!r}") from None
    return primal


def adjoint(*primals, broadcasting=False):
    """Register the decorated function as the derivative template of each primal."""
    if not primals:
        raise TypeError("adjoint() needs the function(s) the template differentiates")

    def register(template):
        if not inspect.isfunction(template):
            raise TypeError("a derivative template must be a plain `def` function")
        for primal in primals:
            REGISTRY[_key(primal)] = Rule(primal, "adjoint", template, broadcasting)
        return template
    return register


def nondifferentiable(*primals):
    """Declare that these functions' results carry no gradient (zero, by declaration)."""
    for primal in primals:
        REGISTRY[_key(primal)] = Rule(primal, "nondifferentiable")


def not_implemented(*primals, note=""):
    """Declare known gaps, so the error can say so."""
    for primal in primals:
        REGISTRY[_key(primal)] = Rule(primal, "not_implemented", note=note)


def rule_for(primal):
    """The registered Rule for `primal`, or None."""
    try:
        return REGISTRY.get(primal)
    except TypeError:  # unhashable objects have no rule
        return None


# The built-in rules register themselves on import.
from . import operators, math_rules, numpy_rules  # noqa: E402,F401
