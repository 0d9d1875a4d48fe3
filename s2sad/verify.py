"""Verify a derivative rule the way every built-in rule is verified.

Each check of a rule (templates/__init__.py: `check(...)`, or the defaults for elementwise ufuncs
and `math` functions) becomes a small function in a real file,

    def case_0(x, y, _w):
        out = numpy.arctan2(x, y)
        return numpy.sum(out * _w)          # random weights: every output element matters

whose gradient w.r.t. every input is compared with central finite differences at random inputs,
run as Python and compiled by Numba, and the two runs with each other. A check Numba is declared
unable to compile must fall back to Python with a warning; one declared compilable must not.

    s2sad.verify(numpy.arctan2)        # raises VerificationError naming the failing check
"""
import dataclasses
import hashlib
import importlib.util
import inspect
import math
import operator
import os
import sys
import tempfile
import warnings

import numpy

from . import templates
from .errors import S2sadError
from .resolve import canonical_name
from .templates.methods import METHODS, Method

FD_STEP = 1e-6
RTOL = 1e-6          # gradient vs finite differences, relative to max(1, |expected|)
SAME = 1e-12         # Numba vs Python

OPERATORS = {operator.add: "{0} + {1}", operator.sub: "{0} - {1}", operator.mul: "{0} * {1}",
             operator.truediv: "{0} / {1}", operator.pow: "{0} ** {1}",
             operator.matmul: "{0} @ {1}", operator.mod: "{0} % {1}",
             operator.floordiv: "{0} // {1}", operator.neg: "-{0}", operator.pos: "+{0}"}
ELEMENTWISE_SHAPES = {1: [((),), ((4,),), ((2, 3),)],
                      2: [((), ()), ((2, 3), (2, 3)), ((2, 3), (3,)), ((), (3,)), ((3, 1), (1, 2))]}


class VerificationError(S2sadError, AssertionError):
    """A rule's gradient disagrees with finite differences, or its Numba flag is wrong."""


@dataclasses.dataclass
class Case:
    code: str            # statements assigning `out` (or one expression)
    inputs: tuple        # ((name, shape or generator), ...)
    domain: tuple
    numba: bool          # whether Numba is expected to compile it

    @property
    def label(self):
        shapes = ", ".join(f"{n}={getattr(s, 'describe', s)}" for n, s in self.inputs)
        return f"{self.code.strip()}  [{shapes}]"


def label(primal):
    """How listings name a primal: 'numpy.sin', 'math.exp', '+', 'x.sum()', 'x.T'."""
    if isinstance(primal, Method):
        return f"x.{primal.name}" if primal.attribute else f"x.{primal.name}()"
    if primal in OPERATORS:
        return OPERATORS[primal].format("x", "y").replace(" ", "")
    return canonical_name(primal) or getattr(primal, "__qualname__", repr(primal))


def cases(primal):
    """The checks of a rule (a registered primal) or of an array method, as Cases."""
    if isinstance(primal, Method):
        rule = templates.rule_for(primal.function)
        return [_case(c, rule, primal.function) for c in primal.checks]
    rule = templates.rule_for(primal)
    if rule is None or rule.kind != "adjoint":
        return []
    if rule.checks:
        return [_case(c, rule, primal) for c in rule.checks]
    arity = _arity(primal, rule)
    if isinstance(primal, numpy.ufunc) or primal in OPERATORS:
        shapes = ELEMENTWISE_SHAPES.get(arity, [])
    elif _module(primal) in ("math", "builtins"):
        shapes = [((),) * arity]
    else:
        shapes = []
    names = ["x", "y", "z"][:arity]
    code = _spell(primal, names)
    return [Case(code, tuple(zip(names, s)), rule.domain, rule.numba) for s in shapes]


def verify(primal, jit=True, seed=0):
    """Check every case of a rule; returns the number of cases, raises VerificationError."""
    found = cases(primal)
    if not found:
        raise VerificationError(f"{label(primal)}: no checks to verify it with (give its rule "
                                "checks=[s2sad.check(...)])")
    module = _module_of(found)
    rng = numpy.random.default_rng(seed)
    for k, case in enumerate(found):
        _verify_case(primal, case, getattr(module, f"case_{k}"), rng, jit)
    return len(found)


# ---- building the check functions ---------------------------------------------------------------

def _case(check, rule, primal):
    code = check.code.replace("{f}", _spell(primal, None))
    if primal in OPERATORS:  # `_matmul_(x, y)` -> `x @ y`
        head, _, rest = code.partition(f"_{primal.__name__}_(")
        arguments = rest[:rest.rindex(")")]
        code = head + OPERATORS[primal].format(*[a.strip() for a in arguments.split(",")])
    numba_ok = rule.numba if check.numba is None else check.numba
    return Case(code, check.inputs, check.domain or rule.domain, numba_ok)


def _spell(primal, names):
    """`numpy.sin(x)` for names ['x']; with names None, the callable's spelling for `{f}(...)`."""
    if primal in OPERATORS:
        if names is None:  # checks spell a call `{f}(x, y)`; the operator is infix
            return f"_{primal.__name__}_"
        return OPERATORS[primal].format(*names)
    spelled = canonical_name(primal)
    if spelled is None:
        raise VerificationError(f"{primal!r} cannot be called from differentiated code")
    return spelled if names is None else f"{spelled}({', '.join(names)})"


def _arity(primal, rule):
    if isinstance(primal, numpy.ufunc):
        return primal.nin
    parameters = list(inspect.signature(rule.template).parameters.values())[1:]
    return sum(p.default is inspect.Parameter.empty for p in parameters)


def _module(primal):
    return (getattr(primal, "__module__", None) or "").split(".")[0]


def _module_of(found):
    """Write the cases as functions of one real file (s2sad reads their source) and import it."""
    rng = numpy.random.default_rng(0)
    lines = ["import math", "import numpy", ""]
    for k, case in enumerate(found):
        inputs = _draw(case, rng)
        out = _evaluate(case, inputs)
        names = [name for name, _ in case.inputs]
        body = case.code.strip().splitlines()
        if len(body) == 1 and "=" not in _outside_brackets(body[0]):
            body = [f"out = {body[0]}"]
        total = "out * _w" if numpy.ndim(out) == 0 else "numpy.sum(out * _w)"
        lines += [f"def case_{k}({', '.join(names + ['_w'])}):"]
        lines += [f"    {line.strip()}" for line in body] + [f"    return {total}", ""]
    text = "\n".join(lines) + "\n"
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    directory = os.path.join(tempfile.gettempdir(), "s2sad-verify")
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"cases_{digest}.py")
    if not os.path.exists(path):
        temporary = f"{path}.{os.getpid()}.tmp"
        with open(temporary, "w") as handle:
            handle.write(text)
        os.replace(temporary, path)
    name = f"_s2sad_verify_{digest}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return sys.modules[name]


def _outside_brackets(line):
    depth, kept = 0, []
    for char in line:
        depth += char in "([{"
        depth -= char in ")]}"
        kept.append(char if depth == 0 else " ")
    text = "".join(kept)
    return text.replace("==", "  ").replace("<=", "  ").replace(">=", "  ").replace("!=", "  ")


def _draw(case, rng):
    low, high = case.domain
    values = []
    for _, shape in case.inputs:
        if callable(shape):
            values.append(numpy.asarray(shape(rng), dtype=float))
        elif shape == ():
            values.append(float(rng.uniform(low, high)))
        else:
            values.append(rng.uniform(low, high, shape))
    return values


def _evaluate(case, inputs):
    namespace = {"numpy": numpy, "math": math}
    namespace.update({name: value for (name, _), value in zip(case.inputs, inputs)})
    body = case.code.strip()
    if "=" in _outside_brackets(body.splitlines()[0]) or "\n" in body:
        exec(body, namespace)
        out = namespace["out"]
    else:
        out = eval(body, namespace)
    if isinstance(out, tuple) or numpy.asarray(out).dtype.kind != "f":
        raise VerificationError(f"check {case.label}: `out` must be a float or float array, "
                                f"not {type(out).__name__}")
    return out


# ---- running one case ---------------------------------------------------------------------------

def _verify_case(primal, case, function, rng, jit):
    from .api import grad
    from .jit import JitFallbackWarning
    inputs = _draw(case, rng)
    out = _evaluate(case, inputs)
    weights = rng.uniform(0.5, 1.5, numpy.shape(out))
    args = [*inputs, float(weights) if numpy.ndim(out) == 0 else weights]
    wrt = tuple(range(len(inputs)))
    where = f"{label(primal)}: check {case.label}"
    python = grad(function, wrt=wrt, jit=False)(*args)
    for k in wrt:
        expected = finite_difference(function, args, k)
        _compare(python[k], expected, RTOL, f"{where}: d/d{case.inputs[k][0]} (Python) vs "
                                            "finite differences")
    if not jit:
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", JitFallbackWarning)
        compiled = grad(function, wrt=wrt, jit=True)(*args)
    fell_back = [w for w in caught if issubclass(w.category, JitFallbackWarning)]
    if case.numba and fell_back:
        raise VerificationError(f"{where}: declared Numba-compatible, but Numba fell back to "
                                f"Python:\n{fell_back[0].message}")
    if not case.numba and not fell_back:
        raise VerificationError(f"{where}: declared numba=False, but Numba compiled it; "
                                "declare it compatible")
    for k in wrt:
        _compare(compiled[k], python[k], SAME, f"{where}: d/d{case.inputs[k][0]} Numba vs Python")


def finite_difference(f, args, position, eps=FD_STEP):
    """Central differences of scalar f w.r.t. args[position], in float64."""
    args = list(args)
    x = args[position]
    if numpy.ndim(x) == 0:
        def at(v):
            return float(f(*args[:position], v, *args[position + 1:]))
        return (at(x + eps) - at(x - eps)) / (2 * eps)
    x = numpy.asarray(x, dtype=float)
    grad = numpy.zeros_like(x)
    for index in numpy.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[index] += eps
        minus[index] -= eps
        grad[index] = (float(f(*args[:position], plus, *args[position + 1:]))
                       - float(f(*args[:position], minus, *args[position + 1:]))) / (2 * eps)
    return grad


def _compare(computed, expected, rtol, what):
    computed, expected = numpy.asarray(computed, float), numpy.asarray(expected, float)
    if computed.shape != expected.shape:
        raise VerificationError(f"{what}: shape {computed.shape} != {expected.shape}")
    error = numpy.abs(computed - expected) / numpy.maximum(1.0, numpy.abs(expected))
    if not numpy.all(error <= rtol):
        raise VerificationError(f"{what}: worst relative error {error.max():.2e}\n"
                                f"  computed {computed}\n  expected {expected}")


def registered():
    """Every primal with a derivative template, and every array method/attribute, for listings
    and tests."""
    def differentiable(primal):
        rule = templates.rule_for(primal)
        return rule is not None and rule.kind == "adjoint"
    return [r for r in templates.REGISTRY if differentiable(r)] + \
        [m for m in METHODS.values() if differentiable(m.function)]
