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
import os
import sys
import warnings

import numpy

from s2sad import templates
from s2sad.api.gradients import grad
from s2sad.errors import S2sadError, ZeroGradientWarning
from s2sad.runtime.jit import JitFallbackWarning, Runner, ignoring_declarations
from s2sad.transform import pipeline
from s2sad.transform.template import tangent_rule

from .rule_cases import (
    FD_STEP,
    HEADER,
    RTOL,
    SAME,
    Case,
    VerificationError,
    arguments,
    cases,
    compare,
    draw,
    finite_difference,
    label,
    module_of,
    registered,
    statements,
    write_module,
)


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
    return tangent_rule(getattr(primal, "function", primal)) is not None


@dataclasses.dataclass
class Checked:
    """A case whose Python gradient matched finite differences."""
    case: Case
    args: list           # the inputs, then the output weights
    gradients: tuple     # the Python run's gradient w.r.t. each input


def check_python(primal, seed=0):
    """Run every case of `primal` as Python against finite differences; raise on a mismatch."""
    found = cases(primal)
    if not found:
        raise VerificationError(f"{label(primal)}: no checks to verify it with (give its rule "
                                "checks=[s2sad.check(...)])")
    module = module_of(found)
    rng = numpy.random.default_rng(seed)
    checked = []
    for k, case in enumerate(found):
        function = getattr(module, f"case_{k}")
        args = arguments(case, rng)
        wrt = tuple(range(len(case.inputs)))
        with warnings.catch_warnings():  # a check may have inputs its result ignores
            warnings.simplefilter("ignore", ZeroGradientWarning)
            gradients = grad(function, wrt=wrt, jit=False)(*args)
        for i in wrt:
            compare(gradients[i], finite_difference(function, args, i), RTOL,
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
    function = write_module(text).batch
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", JitFallbackWarning)
        compiled = iter(grad(function, wrt=tuple(wrt), jit=True)(*args))
    fell_back = [w for w in caught if issubclass(w.category, JitFallbackWarning)]
    if fell_back:
        return VerificationError(f"{label(primal)}: declared Numba-compatible, but Numba fell "
                                 f"back to Python:\n{fell_back[0].message}")
    for one in cases:
        for i, (name, _) in enumerate(one.case.inputs):
            compare(next(compiled), one.gradients[i], SAME,
                     f"{label(primal)}: check {one.case.label}: d/d{name} Numba vs Python")
    return None


def _falls_back(primal, one):
    """A case declared numba=False: Numba must really fail to compile it."""
    function = module_of([one.case]).case_0
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
    tree = ast.parse(statements(case))
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
        inputs = draw(case, rng)
        directions = [float(rng.uniform(-1.0, 1.0)) if numpy.ndim(v) == 0 else
                      rng.uniform(-1.0, 1.0, numpy.shape(v)) for v in inputs]
        what = f"{label(primal)}: check {case.label}: tangent"
        value, tangent = _run_tangent(function, inputs, directions, False, what)
        compare(value, function(*inputs), SAME, f"{what}: value vs the function's")
        compare(tangent, directional_difference(function, inputs, directions), RTOL,
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
    function = write_module(text).batch
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
        compare(tangent, one.tangent, SAME, what)
    return None


def _run_tangent(function, inputs, directions, jit, what):
    """(value, tangent) of `function` at `inputs` along `directions`, through the generated
    tangent function (forward mode w.r.t. every input)."""
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
        lines += [f"    {line}" for line in statements(case).splitlines()]
        lines += ["    return out", ""]
    return write_module("\n".join(lines) + "\n")


def directional_difference(f, inputs, directions, eps=FD_STEP):
    """Central difference of f (a float or an array) at `inputs` along `directions`."""
    def at(sign):
        moved = [x + sign * eps * v for x, v in zip(inputs, directions)]
        return numpy.asarray(f(*moved), dtype=float)
    return (at(1.0) - at(-1.0)) / (2 * eps)


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
