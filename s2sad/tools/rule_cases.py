"""The checks of a derivative rule as small functions in real files: which calls and input
shapes each rule is checked on (`cases`), the files they are written to, random inputs inside
each rule's domain, and central finite differences to compare with (verify.py runs them).
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

import numpy

from s2sad import templates
from s2sad.errors import S2sadError
from s2sad.runtime import rt
from s2sad.templates.methods import METHODS, Method
from s2sad.transform.front.resolve import canonical_name

FD_STEP = 1e-6
RTOL = 1e-6          # gradient vs finite differences, relative to max(1, |expected|)
SAME = 1e-12         # Numba vs Python

OPERATORS = {operator.add: "{0} + {1}", operator.sub: "{0} - {1}", operator.mul: "{0} * {1}",
             operator.truediv: "{0} / {1}", operator.pow: "{0} ** {1}",
             operator.matmul: "{0} @ {1}", operator.mod: "{0} % {1}",
             operator.floordiv: "{0} // {1}", operator.neg: "-{0}", operator.pos: "+{0}",
             operator.lt: "{0} < {1}", operator.le: "{0} <= {1}", operator.gt: "{0} > {1}",
             operator.ge: "{0} >= {1}", operator.eq: "{0} == {1}", operator.ne: "{0} != {1}"}
# what a check's code may name
HEADER = "import math\nimport numpy\nimport scipy.special\nfrom s2sad.runtime import rt\n"
LIBRARIES = ("scipy.special", "scipy.optimize", "scipy.spatial.distance")  # functions checks
# call as `module.name(...)`
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
    return canonical_name(primal) or library_name(primal) or \
        getattr(primal, "__qualname__", repr(primal))


def library_name(primal):
    """'scipy.special.gammaln': a function of one of LIBRARIES by its public name, or None."""
    name = getattr(primal, "__name__", None)
    for module in LIBRARIES:
        if name and getattr(sys.modules.get(module), name, None) is primal:
            return f"{module}.{name}"
    return None


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
    spelled = canonical_name(primal) or library_name(primal)
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


def module_of(found):
    """Write the cases as functions of one real file (s2sad reads their source) and import it."""
    rng = numpy.random.default_rng(0)
    lines = [HEADER]
    for k, case in enumerate(found):
        out = _evaluate(case, draw(case, rng))
        names = [name for name, _ in case.inputs]
        total = "out * _w" if numpy.ndim(out) == 0 else "numpy.sum(out * _w)"
        lines += [f"def case_{k}({', '.join(names + ['_w'])}):"]
        lines += [f"    {line}" for line in statements(case).splitlines()]
        lines += [f"    return {total}", ""]
    return write_module("\n".join(lines) + "\n")


def statements(case):
    """The case's code as statements assigning `out`."""
    body = case.code.strip()
    if "\n" not in body and "=" not in _outside_brackets(body):
        return f"out = {body}"
    return "\n".join(line.strip() for line in body.splitlines())


def write_module(text):
    """Import `text` from a real, content-addressed file (written atomically)."""
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


def arguments(case, rng):
    """Random inputs for a case, then random weights for its output."""
    inputs = draw(case, rng)
    out = _evaluate(case, inputs)
    weights = rng.uniform(0.5, 1.5, numpy.shape(out))
    return [*inputs, float(weights) if numpy.ndim(out) == 0 else weights]


def _outside_brackets(line):
    depth, kept = 0, []
    for char in line:
        depth += char in "([{"
        depth -= char in ")]}"
        kept.append(char if depth == 0 else " ")
    text = "".join(kept)
    return text.replace("==", "  ").replace("<=", "  ").replace(">=", "  ").replace("!=", "  ")


def draw(case, rng):
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
    import scipy.special
    namespace = {"numpy": numpy, "math": math, "rt": rt, "scipy": scipy}
    namespace.update({name: value for (name, _), value in zip(case.inputs, inputs)})
    exec(statements(case), namespace)
    out = namespace["out"]
    if isinstance(out, tuple) or numpy.asarray(out).dtype.kind != "f":
        raise VerificationError(f"check {case.label}: `out` must be a float or float array, "
                                f"not {type(out).__name__}")
    return out


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


def compare(computed, expected, rtol, what):
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
    templates.load_library_rules(everything=True)
    return [r for r in templates.REGISTRY if differentiable(r)] + \
        [m for m in METHODS.values() if differentiable(m.function)]
