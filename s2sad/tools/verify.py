"""Verify a derivative rule the way every built-in rule is verified.

Reverse mode (the adjoint template). Each check of a rule (templates/__init__.py: `check(...)`,
or the defaults for elementwise ufuncs and `math` functions) becomes a small function in a real
file,

    def case_0(x, y, _w):
        out = numpy.arctan2(x, y)
        return numpy.sum(out * _w)          # random weights: every output element matters

whose gradient w.r.t. every input is compared with central finite differences at random inputs,
run as Python and compiled by Numba, and the two runs with each other. A check Numba is declared
unable to compile must fall back to Python with a warning; one declared compilable must not.

Forward mode (the tangent template, explicit or derived). Each check becomes a function
returning `out` itself,

    def case_0(x, y):
        out = numpy.arctan2(x, y)
        return out

whose generated tangent function (`pipeline.tangent`), fed a random direction for every input,
must give the central finite difference of `out` along that direction (every element, and the
shape), run as Python and compiled, the two runs agreeing.

    s2sad.verify_rule(numpy.arctan2)        # raises VerificationError naming the failing check
"""
import ast
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

from s2sad import templates
from s2sad.errors import S2sadError, ZeroGradientWarning
from s2sad.transform.resolve import canonical_name
from s2sad.templates.methods import METHODS, Method

FD_STEP = 1e-6
RTOL = 1e-6          # gradient vs finite differences, relative to max(1, |expected|)
SAME = 1e-12         # Numba vs Python

OPERATORS = {operator.add: "{0} + {1}", operator.sub: "{0} - {1}", operator.mul: "{0} * {1}",
             operator.truediv: "{0} / {1}", operator.pow: "{0} ** {1}",
             operator.matmul: "{0} @ {1}", operator.mod: "{0} % {1}",
             operator.floordiv: "{0} // {1}", operator.neg: "-{0}", operator.pos: "+{0}",
             operator.lt: "{0} < {1}", operator.le: "{0} <= {1}", operator.gt: "{0} > {1}",
             operator.ge: "{0} >= {1}", operator.eq: "{0} == {1}", operator.ne: "{0} != {1}"}
HEADER = "import math\nimport numpy\nfrom s2sad.runtime import rt\n"  # what a check's code may name
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


def verify(primal, jit=True, seed=0, tangent=None):
    """Check every case of a rule, its adjoint and (`tangent`: True, False, or None for "when
    it has one") its tangent; returns the number of cases, raises VerificationError."""
    checked = check_python(primal, seed)
    if tangent is None:
        tangent = has_tangent(primal)
    tangents = check_tangent_python(primal, seed) if tangent else []
    if jit:
        error = check_compiled(primal, checked)
        if error is None and tangent:
            error = check_tangent_compiled(primal, tangents)
        if error is not None:
            raise error
    return len(checked)


def has_tangent(primal):
    """Whether a registered primal (or an array method's function) has a tangent rule,
    explicit or derived from an elementwise adjoint template."""
    from s2sad.transform.template import tangent_rule
    return tangent_rule(getattr(primal, "function", primal)) is not None


@dataclasses.dataclass
class Checked:
    """A case whose Python gradient matched finite differences."""
    case: Case
    args: list           # the inputs, then the output weights
    gradients: tuple     # the Python run's gradient w.r.t. each input


def check_python(primal, seed=0):
    """Run every case of `primal` as Python against finite differences; raise on a mismatch."""
    from s2sad.api.gradients import grad
    found = cases(primal)
    if not found:
        raise VerificationError(f"{label(primal)}: no checks to verify it with (give its rule "
                                "checks=[s2sad.check(...)])")
    module = _module_of(found)
    rng = numpy.random.default_rng(seed)
    checked = []
    for k, case in enumerate(found):
        function = getattr(module, f"case_{k}")
        args = _arguments(case, rng)
        wrt = tuple(range(len(case.inputs)))
        with warnings.catch_warnings():  # a check may have inputs its result ignores
            warnings.simplefilter("ignore", ZeroGradientWarning)
            gradients = grad(function, wrt=wrt, jit=False)(*args)
        for i in wrt:
            _compare(gradients[i], finite_difference(function, args, i), RTOL,
                     f"{label(primal)}: check {case.label}: d/d{case.inputs[i][0]} (Python) vs "
                     "finite differences")
        checked.append(Checked(case, args, gradients))
    return checked


def check_compiled(primal, checked, sample=None, every_declaration=True):
    """The Numba side of verifying `primal`, given its Python-verified cases: the cases declared
    compilable run compiled, as one generated function, and must give the Python numbers; a case
    declared `numba=False` must really fail to compile (one is enough: each costs a failed
    compile). `sample` caps the compiled cases (the first and the last ones: plain and
    broadcasting/keyword forms); `every_declaration=False` tests only a rule-wide numba=False.
    Returns the VerificationError, or None."""
    compilable = [one for one in checked if one.case.numba]
    if sample is not None and len(compilable) > sample:
        compilable = compilable[:sample - 1] + compilable[-1:]
    error = _compiled(primal, compilable) if compilable else None
    declared = [one for one in checked if not one.case.numba]
    rule_wide = not (templates.rule_for(getattr(primal, "function", primal)).numba)
    if error is None and declared and (every_declaration or rule_wide):
        error = _falls_back(primal, declared[0])
    return error


MODES = ("adjoint", "tangent")


def compiled_errors(index, sample=None, every_declaration=True, modes=MODES):
    """The compiled side of verifying the index-th registered rule, for worker processes:
    {mode: error text or None} for each of `modes` ("adjoint": check_compiled, "tangent":
    check_tangent_compiled)."""
    primal = registered()[index]
    errors = {}
    for mode in modes:
        try:
            if mode == "adjoint":
                error = check_compiled(primal, check_python(primal), sample, every_declaration)
            else:
                error = check_tangent_compiled(primal, check_tangent_python(primal), sample)
        except VerificationError as exc:
            error = exc
        errors[mode] = None if error is None else str(error)
    return errors


def _compiled(primal, cases):
    """Compile a rule's cases as one function and compare each case's gradients with Python's;
    the error, or None."""
    try:
        return _try_compiled(primal, cases)
    except VerificationError as exc:
        return exc
    except S2sadError as exc:
        return VerificationError(f"{label(primal)}: compiled verification failed: {exc}")


def _try_compiled(primal, cases):
    from s2sad.api.gradients import grad
    from s2sad.runtime.jit import JitFallbackWarning
    parameters, body, totals, args, wrt = [], [], [], [], []
    for k, one in enumerate(cases):  # each case's names prefixed: `c0_x`, `c1_x`, ...
        names, statements = _renamed(one.case, f"c{k}_")
        wrt += range(len(parameters), len(parameters) + len(names))
        parameters += names + [f"c{k}__w"]
        args += one.args
        body += statements
        scalar = numpy.ndim(one.args[-1]) == 0
        totals.append(f"c{k}_out * c{k}__w" if scalar else f"numpy.sum(c{k}_out * c{k}__w)")
    text = "{}\n\ndef batch({}):\n{}    return {}\n".format(
        HEADER, ", ".join(parameters), "".join(f"    {line}\n" for line in body),
        " + ".join(totals))
    function = _write_module(text).batch
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", JitFallbackWarning)
        compiled = iter(grad(function, wrt=tuple(wrt), jit=True)(*args))
    fell_back = [w for w in caught if issubclass(w.category, JitFallbackWarning)]
    if fell_back:
        return VerificationError(f"{label(primal)}: declared Numba-compatible, but Numba fell "
                                 f"back to Python:\n{fell_back[0].message}")
    for one in cases:
        for i, (name, _) in enumerate(one.case.inputs):
            _compare(next(compiled), one.gradients[i], SAME,
                     f"{label(primal)}: check {one.case.label}: d/d{name} Numba vs Python")
    return None


def _falls_back(primal, one):
    """A case declared numba=False: Numba must really fail to compile it."""
    from s2sad.api.gradients import grad
    from s2sad.runtime.jit import JitFallbackWarning, ignoring_declarations
    function = _module_of([one.case]).case_0
    wrt = tuple(range(len(one.case.inputs)))
    with warnings.catch_warnings(record=True) as caught, ignoring_declarations():
        warnings.simplefilter("always", JitFallbackWarning)
        grad(function, wrt=wrt, jit=True)(*one.args)
    if not any(issubclass(w.category, JitFallbackWarning) for w in caught):
        return VerificationError(f"{label(primal)}: check {one.case.label}: declared "
                                 "numba=False, but Numba compiled it; declare it compatible")
    return None


def _renamed(case, prefix):
    """The case's inputs and statements with every local name prefixed (cases share a batch)."""
    tree = ast.parse(_statements(case))
    local = {name for name, _ in case.inputs} | {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in local:
            node.id = prefix + node.id
    return [prefix + name for name, _ in case.inputs], \
        [ast.unparse(statement) for statement in tree.body]


# ---- tangents (forward mode) --------------------------------------------------------------------

@dataclasses.dataclass
class CheckedTangent:
    """A case whose Python tangent matched finite differences."""
    case: Case
    inputs: list         # the inputs
    directions: list     # the tangent of each input
    tangent: object      # the Python run's tangent of `out`


def check_tangent_python(primal, seed=0):
    """Run the tangent of every case of `primal` as Python against central finite differences
    along a random direction; raise on a mismatch."""
    found = cases(primal)
    if not found:
        raise VerificationError(f"{label(primal)}: no checks to verify it with (give its rule "
                                "checks=[s2sad.check(...)])")
    module = _tangent_module_of(found)
    rng = numpy.random.default_rng(seed)
    checked = []
    for k, case in enumerate(found):
        function = getattr(module, f"case_{k}")
        inputs = _draw(case, rng)
        directions = [float(rng.uniform(-1.0, 1.0)) if numpy.ndim(v) == 0 else
                      rng.uniform(-1.0, 1.0, numpy.shape(v)) for v in inputs]
        what = f"{label(primal)}: check {case.label}: tangent"
        value, tangent = _run_tangent(function, inputs, directions, False, what)
        _compare(value, function(*inputs), SAME, f"{what}: value vs the function's")
        _compare(tangent, directional_difference(function, inputs, directions), RTOL,
                 f"{what} (Python) vs finite differences")
        checked.append(CheckedTangent(case, inputs, directions, tangent))
    return checked


def check_tangent_compiled(primal, checked, sample=None):
    """The Numba side of verifying `primal`'s tangent, given its Python-verified cases: the
    cases declared compilable run compiled, as one generated function returning every case's
    `out`, and must give the Python tangents. `sample` as for check_compiled. Returns the
    VerificationError, or None."""
    compilable = [one for one in checked if one.case.numba]
    if sample is not None and len(compilable) > sample:
        compilable = compilable[:sample - 1] + compilable[-1:]
    if not compilable:
        return None
    try:
        return _try_tangent_compiled(primal, compilable)
    except VerificationError as exc:
        return exc
    except S2sadError as exc:
        return VerificationError(f"{label(primal)}: compiled tangent verification failed: {exc}")


def _try_tangent_compiled(primal, cases):
    from s2sad.runtime.jit import JitFallbackWarning
    parameters, body, outs, inputs, directions = [], [], [], [], []
    for k, one in enumerate(cases):  # each case's names prefixed: `c0_x`, `c1_x`, ...
        names, statements = _renamed(one.case, f"c{k}_")
        parameters += names
        body += statements
        outs.append(f"c{k}_out")
        inputs += one.inputs
        directions += one.directions
    text = "{}\n\ndef batch({}):\n{}    return ({},)\n".format(
        HEADER, ", ".join(parameters), "".join(f"    {line}\n" for line in body),
        ", ".join(outs))
    function = _write_module(text).batch
    what = f"{label(primal)}: tangent"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", JitFallbackWarning)
        returned = _run_tangent(function, inputs, directions, True, what)
    tangents = returned[len(cases):]  # a tuple's values, then their tangents, flat
    fell_back = [w for w in caught if issubclass(w.category, JitFallbackWarning)]
    if fell_back:
        return VerificationError(f"{label(primal)}: declared Numba-compatible, but Numba fell "
                                 f"back to Python for the tangent:\n{fell_back[0].message}")
    for one, value, tangent in zip(cases, returned, tangents):
        what = f"{label(primal)}: check {one.case.label}: tangent Numba vs Python"
        if numpy.shape(tangent) != numpy.shape(one.tangent) and \
                numpy.shape(tangent) == numpy.shape(value):  # Numba's primal has that shape
            tangent = numpy.reshape(tangent, numpy.shape(one.tangent))  # (cumsum of a number)
        _compare(tangent, one.tangent, SAME, what)
    return None


def _run_tangent(function, inputs, directions, jit, what):
    """(value, tangent) of `function` at `inputs` along `directions`, through the generated
    tangent function (forward mode w.r.t. every input)."""
    from s2sad.transform import pipeline
    from s2sad.runtime.jit import Runner
    generated = pipeline.tangent(function, tuple(range(len(inputs))))
    runner = Runner(generated.path, generated.function, jit, f"the tangent of {what}",
                    generated.python_only)
    with warnings.catch_warnings():  # a check may have inputs its result ignores
        warnings.simplefilter("ignore", ZeroGradientWarning)
        return runner(*inputs, *directions)


def _tangent_module_of(found):
    """The cases as functions returning `out`, in one real file (s2sad reads their source)."""
    lines = [HEADER]
    for k, case in enumerate(found):
        names = [name for name, _ in case.inputs]
        lines += [f"def case_{k}({', '.join(names)}):"]
        lines += [f"    {line}" for line in _statements(case).splitlines()]
        lines += ["    return out", ""]
    return _write_module("\n".join(lines) + "\n")


def directional_difference(f, inputs, directions, eps=FD_STEP):
    """Central difference of f (a float or an array) at `inputs` along `directions`."""
    def at(sign):
        moved = [x + sign * eps * v for x, v in zip(inputs, directions)]
        return numpy.asarray(f(*moved), dtype=float)
    return (at(1.0) - at(-1.0)) / (2 * eps)


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
    lines = [HEADER]
    for k, case in enumerate(found):
        out = _evaluate(case, _draw(case, rng))
        names = [name for name, _ in case.inputs]
        total = "out * _w" if numpy.ndim(out) == 0 else "numpy.sum(out * _w)"
        lines += [f"def case_{k}({', '.join(names + ['_w'])}):"]
        lines += [f"    {line}" for line in _statements(case).splitlines()]
        lines += [f"    return {total}", ""]
    return _write_module("\n".join(lines) + "\n")


def _statements(case):
    """The case's code as statements assigning `out`."""
    body = case.code.strip()
    if "\n" not in body and "=" not in _outside_brackets(body):
        return f"out = {body}"
    return "\n".join(line.strip() for line in body.splitlines())


def _write_module(text):
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


def _arguments(case, rng):
    """Random inputs for a case, then random weights for its output."""
    inputs = _draw(case, rng)
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
    from s2sad.runtime import rt
    namespace = {"numpy": numpy, "math": math, "rt": rt}
    namespace.update({name: value for (name, _), value in zip(case.inputs, inputs)})
    exec(_statements(case), namespace)
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


def verify_all(indices=None, sample=None, every_declaration=True, jobs=2, fast_compile=False,
               progress=None, modes=MODES):
    """{index: {mode: error text or None}} for registered rules (modes: "adjoint", "tangent"),
    the Numba side in `jobs` worker processes (Numba compiles on one core each). `fast_compile`
    lowers LLVM's optimisation level in the workers: what compiles, and the numbers, are the
    same; compiling is about a third faster. `progress(done, total, index, errors)` is called as
    results come in. Rules without a tangent rule are verified in reverse mode only."""
    import concurrent.futures
    import multiprocessing
    rules = registered()
    indices = list(range(len(rules))) if indices is None else list(indices)
    results = {}
    context = multiprocessing.get_context("spawn")  # never fork a process that loaded LLVM
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context,
                                                initializer=_worker_setup,
                                                initargs=(fast_compile,)) as pool:
        futures = {pool.submit(compiled_errors, i, sample, every_declaration,
                               tuple(m for m in modes
                                     if m == "adjoint" or has_tangent(rules[i]))): i
                   for i in indices}
        for future in concurrent.futures.as_completed(futures):
            index = futures[future]
            results[index] = future.result()
            if progress is not None:
                progress(len(results), len(indices), index, results[index])
    return results


def _worker_setup(fast_compile):
    if fast_compile:
        os.environ["NUMBA_OPT"] = "0"     # read when Numba is first imported, below
    warnings.simplefilter("ignore")      # fallbacks are checked through their warnings' records


def main(argv=None):
    import argparse
    parser = argparse.ArgumentParser(
        prog="s2sad verify",
        description="Verify every registered derivative rule (or those whose name contains "
                    "PATTERN) against finite differences, as Python then compiled by Numba: "
                    "the adjoint (reverse mode: the gradient w.r.t. every input) and the tangent "
                    "(forward mode: the derivative along a random direction of every input).")
    parser.add_argument("pattern", nargs="?", default="")
    parser.add_argument("--sample", type=int, default=None,
                        help="compile at most this many checks per rule (default: all)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--adjoints", dest="modes", action="store_const", const=("adjoint",),
                      default=MODES, help="verify the adjoints (reverse mode) only")
    only.add_argument("--tangents", dest="modes", action="store_const", const=("tangent",),
                      help="verify the tangents (forward mode) only")
    options = parser.parse_args(argv)
    rules = registered()
    chosen = [i for i, p in enumerate(rules) if options.pattern in label(p)]
    failures = []
    python_side = {"adjoint": check_python, "tangent": check_tangent_python}
    for i in chosen:  # the Python side first: fast, and the clearest messages
        for mode in options.modes:
            if mode == "tangent" and not has_tangent(rules[i]):
                failures.append((i, f"{label(rules[i])}: no tangent rule"))
                break
            try:
                python_side[mode](rules[i])
            except VerificationError as exc:
                failures.append((i, str(exc)))
                break
    print(f"Python: {len(chosen) - len(failures)}/{len(chosen)} rules match finite differences "
          f"({', '.join(options.modes)})", flush=True)

    def progress(done, total, index, errors):
        failed = any(errors.values())
        print(f"[{done}/{total}] {label(rules[index])}: {'FAILED' if failed else 'ok'}",
              flush=True)
    bad = {i for i, _ in failures}
    results = verify_all([i for i in chosen if i not in bad], options.sample,
                         every_declaration=True, jobs=options.jobs, progress=progress,
                         modes=options.modes)
    failures += [(i, error) for i, errors in results.items() for error in errors.values()
                 if error]
    for i, error in failures:
        print(f"\nFAILED {label(rules[i])}:\n{error}")
    failed = len({i for i, _ in failures})
    print(f"\n{len(chosen) - failed}/{len(chosen)} rules verified")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
