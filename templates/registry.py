"""The rule registry: the decorators rules are declared with (`adjoint`, `tangent`,
`nondifferentiable`, `not_implemented`, `check`, `d`) and the lookups the engine makes
(`rule_for`, `tangent_for`, `elementwise`, `generation`). See the package docstring.
"""
import dataclasses
import importlib
import inspect
import sys

import numpy


class _AdjointMarker:
    """`d[x]` in a template; templates are never executed."""

    def __getitem__(self, name):
        raise RuntimeError("derivative templates are read by s2sad, not run")

    __setitem__ = __getitem__


d = _AdjointMarker()


@dataclasses.dataclass(frozen=True)
class Check:
    """One verification call: `code` is an expression (or statements assigning `out`) over the
    float inputs, each given as a shape (`x=(3, 4)`, `x=()` for a Python float) or as a function
    of a numpy Generator returning the value (`x=spd(3)`)."""
    code: str
    inputs: tuple                  # ((name, shape or generator), ...)
    domain: tuple = None           # (low, high) of uniform inputs; None: the rule's
    numba: bool = None             # whether Numba compiles it; None: as the rule says


def check(code, *, domain=None, numba=None, **inputs):
    """A verification call for a rule (see Check)."""
    return Check(code, tuple(inputs.items()), domain, numba)


def spd(n):
    """Inputs that are symmetric positive definite n x n matrices."""
    def generate(rng):
        a = rng.uniform(-1.0, 1.0, (n, n))
        return a @ a.T + n * numpy.eye(n)
    generate.describe = f"spd({n})"
    return generate


def square(n):
    """Inputs that are well-conditioned (invertible) n x n matrices."""
    def generate(rng):
        return rng.uniform(-1.0, 1.0, (n, n)) + n * numpy.eye(n)
    generate.describe = f"square({n})"
    return generate


@dataclasses.dataclass(frozen=True)
class Rule:
    primal: object
    kind: str                      # "adjoint" | "nondifferentiable" | "not_implemented"
    template: object = None        # the template function, for "adjoint"
    broadcasting: bool = False     # contributions are summed back to each argument's shape
    note: str = ""                 # why, for "not_implemented"
    numba: bool = True             # Numba compiles code using this rule
    checks: tuple = ()             # Check cases; elementwise and math rules have defaults
    domain: tuple = (-2.0, 2.0)    # where default and shape-only checks draw inputs
    result: str = ""               # for "nondifferentiable": what its result is (RESULTS)
    call_as: object = None         # the rt helper generated code calls in the primal's place

    @property
    def origin(self):
        """'file.py:line' of the template, for listings and errors."""
        if self.template is None:
            return ""
        code = self.template.__code__
        return f"{code.co_filename}:{code.co_firstlineno}"


REGISTRY = {}
CALLED_AS = {}  # rt helper named by a rule's call_as -> its primal, whose rules it has
CHANGES = [0]  # bumped on every registration, so transformations made before it are redone


def generation():
    """A number that changes whenever a rule is registered."""
    return CHANGES[0]


def user_generation():
    """generation(), less the registrations of built-in library rules loaded on demand
    (load_library_rules): it changes only when a user registers a rule."""
    return CHANGES[0] - _LIBRARY_CHANGES[0]


def _key(primal):
    CHANGES[0] += 1
    try:
        hash(primal)
    except TypeError:
        raise TypeError(f"cannot register a rule for unhashable {primal!r}") from None
    return primal


def adjoint(*primals, broadcasting=False, numba=True, checks=(), domain=(-2.0, 2.0),
            call_as=None):
    """Register the decorated function as the derivative template of each primal.

    broadcasting: sum each contribution back to its argument's shape. numba: False when Numba
    cannot compile the primal call or the template (gradients then run as Python, with a
    warning). checks: Check cases verifying the rule; domain: where inputs are drawn.
    call_as: an `rt` helper with the primal's parameters that generated code calls in the
    primal's place (for a library function Numba cannot call, e.g. `scipy.special.gammaln`:
    the helper is s2sad's own, which Numba compiles, and as Python may call the primal)."""
    if not primals:
        raise TypeError("adjoint() needs the function(s) the template differentiates")
    load_library_rules()  # the built-in rules of an imported library first: a user's win

    def register(template):
        if not inspect.isfunction(template):
            raise TypeError("a derivative template must be a plain `def` function")
        for primal in primals:
            REGISTRY[_key(primal)] = Rule(primal, "adjoint", template, broadcasting,
                                          numba=numba, checks=tuple(checks),
                                          domain=tuple(domain), call_as=call_as)
        if call_as is not None:  # generated code read again (second order) calls the helper
            CALLED_AS[call_as] = primals[0]
        return template
    return register


# What the result of a non-differentiable function is, which decides what s2sad reports when a
# differentiated value flows into it (clogs.py):
RESULTS = {
    "cut": "a real value whose dependence on the input is dropped (floor, round, int(), random "
           "draws): reported whenever a differentiated value flows in",
    "discrete": "a truth value, index or count (x > 0, argmax): reported only where it is then "
                "used as a number",
    "shape": "depends only on shapes and sizes (zeros_like, len): never reported",
    "stop": "s2sad.stop_gradient: the cut is intended; never reported",
}


def nondifferentiable(*primals, numba=True, result="cut"):
    """Declare that these functions' results carry no gradient (zero, by declaration).
    `result`: one of RESULTS, what the result is (it decides which uses s2sad reports)."""
    if result not in RESULTS:
        raise ValueError(f"result={result!r}: expected one of {', '.join(RESULTS)}")
    load_library_rules()
    for primal in primals:
        REGISTRY[_key(primal)] = Rule(primal, "nondifferentiable", numba=numba, result=result)


def not_implemented(*primals, note=""):
    """Declare known gaps, so the error can say so."""
    load_library_rules()
    for primal in primals:
        REGISTRY[_key(primal)] = Rule(primal, "not_implemented", note=note)


TANGENTS = {}


def tangent(*primals):
    """Register the decorated function as the tangent (forward-mode) template of each primal:
    its one line `d[result] = expression` gives the result's tangent, reading the arguments'
    tangents as `d[argument]`. Tangent code is itself differentiated in reverse mode (for
    second derivatives), so use functions that have adjoint rules."""
    if not primals:
        raise TypeError("tangent() needs the function(s) the template differentiates")
    load_library_rules()

    def register(template):
        if not inspect.isfunction(template):
            raise TypeError("a tangent template must be a plain `def` function")
        for primal in primals:
            TANGENTS[_key(primal)] = template
        return template
    return register


def tangent_for(primal):
    """The registered tangent template for `primal`, or None."""
    try:
        found = TANGENTS.get(primal)
    except TypeError:
        return None
    if found is None and load_library_rules():
        found = TANGENTS.get(primal)
    if found is None and primal in CALLED_AS:
        return TANGENTS.get(CALLED_AS[primal])
    return found


_ELEMENTWISE_OPERATORS = {"add", "sub", "mul", "truediv", "pow", "mod", "neg", "pos"}


def elementwise(primal):
    """Whether `primal` acts element by element (with broadcasting), so that its tangent can
    be derived from its adjoint template: plain NumPy ufuncs, `math` functions, arithmetic
    operators, and builtins abs and pow; and the rt helpers called in their place."""
    try:
        primal = CALLED_AS.get(primal, primal)
    except TypeError:
        return False
    if isinstance(primal, numpy.ufunc):
        return primal.signature is None  # not a generalized ufunc such as matmul
    module = getattr(primal, "__module__", None)
    if module == "math":
        return True
    if module in ("operator", "_operator"):
        return primal.__name__ in _ELEMENTWISE_OPERATORS
    return primal in (abs, pow)


def rule_for(primal):
    """The registered Rule for `primal`, or None."""
    try:
        found = REGISTRY.get(primal)
    except TypeError:  # unhashable objects have no rule
        return None
    if found is None and load_library_rules():
        found = REGISTRY.get(primal)
    if found is None and primal in CALLED_AS:
        return REGISTRY.get(CALLED_AS[primal])
    return found


# ---- rules for other libraries, loaded when the library is -------------------------------------

# {library module: the module of templates/ with s2sad's rules for it} (templates/__init__.py
# names them). Importing the rules imports the library (scipy.special: a tenth of a second), so
# they load once a differentiated function could call it: when the library is imported by the
# time a rule is looked up or registered, or when every rule is listed (registered(), coverage).
_pending = {}
_LIBRARY_CHANGES = [0]   # what loading them added to CHANGES


def library_rules(library, module):
    """Load the rules of templates/`module` once `library` is imported (load_library_rules)."""
    _pending[library] = module


def load_library_rules(everything=False):
    """Import the rule modules of the libraries already imported (of every library with
    `everything`); whether any was imported now."""
    if not _pending:
        return False
    due = [library for library in _pending if everything or library in sys.modules]
    for library in due:
        module = _pending.pop(library, None)  # first: importing it registers rules, which
        if module is None:                    # calls here (and may load the others)
            continue
        before, counted = CHANGES[0], _LIBRARY_CHANGES[0]
        importlib.import_module(f".{module}", __package__)
        # (what a library loaded inside this one counted is counted once)
        _LIBRARY_CHANGES[0] += (CHANGES[0] - before) - (_LIBRARY_CHANGES[0] - counted)
    return bool(due)
