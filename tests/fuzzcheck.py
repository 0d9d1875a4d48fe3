"""Checking one generated program (fuzzgen.Program) against finite differences.

    check(program, jit=True, forward=True)

1. The reference: f runs as plain Python in an instrumented copy of the module, where every
   comparison and every kink (`abs`, `maximum`, `clip`, `max`, `norm`, ...) records how close
   its operands are to the threshold. f's value and its central finite differences (float64)
   are computed there; inputs within MARGIN of a threshold at any evaluation point, non-finite
   values and values beyond BOUND are `Rejected` (not a test), since finite differences are
   meaningless there.
2. `s2sad.grad(f, wrt, jit=False)` from the real module file must match the finite
   differences (relative to max(1, |fd|), FD_TOLERANCE), return floats for scalars and arrays
   shaped like the inputs, and leave the arguments unchanged.
3. With `jit=True`, the compiled gradient must equal the Python one to JIT_TOLERANCE, with no
   JitFallbackWarning; with `forward=True`, `s2sad.jvp` must give f's value and the
   directional derivative the reverse gradient predicts.

Failures raise a subclass of `FuzzFailure`, by kind, so hypothesis shrinks each kind apart.
"""
import ast
import hashlib
import importlib.util
import math
import operator
import os
import sys
import tempfile
import warnings

import numpy as np

import s2sad

MARGIN = 1e-3          # how far every branch test and kink must stay from its threshold
BOUND = 1e4            # |value| and |gradient| beyond this: rejected (FD too coarse)
FD_STEP = 1e-6
FD_TOLERANCE = 1e-5    # s2sad (Python) vs finite differences, relative to max(1, |fd|)
JIT_TOLERANCE = 1e-10  # compiled vs Python
FORWARD_TOLERANCE = 1e-9


class Rejected(Exception):
    """Not a valid test: inputs near a kink or threshold, or values out of range."""


class FuzzFailure(AssertionError):
    """s2sad got a generated program wrong (or the generator made an invalid one)."""


class GeneratorBug(FuzzFailure):
    """The program fails as plain Python: fuzzgen made an invalid program."""


class Unsupported(FuzzFailure):
    """s2sad rejected the program with one of its own errors."""


class Crash(FuzzFailure):
    """s2sad raised something that is not one of its errors."""


class GradientMismatch(FuzzFailure):
    """The gradient (JIT off) differs from finite differences."""


class JitMismatch(FuzzFailure):
    """Compiled and Python gradients differ, or Numba could not compile it."""


class ForwardMismatch(FuzzFailure):
    """Forward mode disagrees with the value or with the reverse gradient."""


class BadResult(FuzzFailure):
    """Wrong result types or shapes, or the arguments were modified."""


# ---- the instrumented reference ---------------------------------------------------------------

OPERATORS = {">": operator.gt, "<": operator.lt, ">=": operator.ge, "<=": operator.le,
             "==": operator.eq, "!=": operator.ne}
COMPARE_NAMES = {ast.Gt: ">", ast.Lt: "<", ast.GtE: ">=", ast.LtE: "<=", ast.Eq: "==",
                 ast.NotEq: "!="}
KINKS = {"abs", "np.abs", "max", "min", "np.maximum", "np.minimum", "np.clip", "np.max",
         "np.min", "np.linalg.norm"}


class Probes:
    """What the instrumented module calls. Each call site records its distance to the threshold
    at every evaluation; a site whose distances do not change with the inputs (`0.1 > 0.1`,
    `np.maximum(x, x)`, ties in `np.max(np.ones(3))`) is not a kink of f near them."""

    def __init__(self):
        self.runs = []           # per evaluation: {site: [distance arrays]}
        self.current = {}

    def start(self):
        self.current = {}
        self.runs.append(self.current)

    def margin(self):
        """The smallest distance at a site that depends on the inputs (inf if none)."""
        smallest = math.inf
        for site in set().union(*self.runs):
            seen = [run.get(site, []) for run in self.runs]
            if any(len(s) != len(seen[0]) or any(not np.array_equal(a, b) for a, b in
                                                 zip(s, seen[0])) for s in seen):
                smallest = min([smallest] + [float(np.min(np.abs(d), initial=math.inf))
                                             for s in seen for d in s])
        return smallest

    def _record(self, site, distance):
        # a copy: f may write into the array later
        self.current.setdefault(site, []).append(np.array(distance, float))

    def compare(self, site, left, name, right):
        if not (_is_int(left) and _is_int(right)):
            self._record(site, np.asarray(left, float) - np.asarray(right, float))
        return OPERATORS[name](left, right)

    def kink(self, site, name, func, *args):
        if all(_is_int(a) for a in args):
            return func(*args)
        if name in ("abs", "np.abs"):
            self._record(site, args[0])
        elif name == "np.linalg.norm":
            self._record(site, np.linalg.norm(args[0]))
        elif name in ("max", "min", "np.maximum", "np.minimum"):
            self._record(site, np.asarray(args[0], float) - np.asarray(args[1], float))
        elif name == "np.clip":
            self._record(site, np.concatenate([np.ravel(np.asarray(args[0], float) - bound)
                                               for bound in args[1:]]))
        else:  # np.max / np.min of an array: the two most extreme values must differ
            values = np.sort(np.ravel(args[0]))
            if values.size > 1:
                self._record(site, values[-1] - values[-2] if name == "np.max"
                             else values[1] - values[0])
        return func(*args)


def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


class _Instrument(ast.NodeTransformer):
    """`a > b` becomes `_probes.compare(site, a, '>', b)`, `np.abs(x)` becomes
    `_probes.kink(site, 'np.abs', np.abs, x)`."""

    def __init__(self):
        self.sites = 0

    def probe(self, method, args):
        self.sites += 1
        return ast.Call(ast.Attribute(ast.Name("_probes", ast.Load()), method, ast.Load()),
                        [ast.Constant(self.sites)] + args, [])

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) != 1:
            raise GeneratorBug("fuzzgen makes single comparisons only")
        return self.probe("compare", [node.left, ast.Constant(COMPARE_NAMES[type(node.ops[0])]),
                                      node.comparators[0]])

    def visit_Call(self, node):
        self.generic_visit(node)
        name = ast.unparse(node.func)
        if name not in KINKS or node.keywords:
            return node
        return self.probe("kink", [ast.Constant(name), node.func, *node.args])


def instrumented(source):
    """f from `source`, with every comparison and kink reporting to the returned Probes."""
    tree = ast.fix_missing_locations(_Instrument().visit(ast.parse(source)))
    probes = Probes()
    namespace = {"_probes": probes, "__name__": "fuzz_reference"}
    exec(compile(tree, "<fuzz reference>", "exec"), namespace)
    return namespace["f"], probes


class Reference:
    """f's value and finite differences, computed on the instrumented program."""

    def __init__(self, program):
        self.program = program
        self.f, self.probes = instrumented(program.source)
        self.value = self.call(program.args)
        self.grads = [self.finite_difference(k) for k in program.wrt]
        margin = self.probes.margin()
        if margin < MARGIN:
            raise Rejected(f"an input is {margin:.1e} from a kink or threshold")
        if not all(np.all(np.abs(leaf) <= BOUND) for g in self.grads for leaf in tree_leaves(g)):
            raise Rejected("gradient out of range")

    def call(self, args):
        args = [tree_map(np.copy, a) for a in args]
        self.probes.start()
        try:
            with np.errstate(over="raise", invalid="raise", divide="raise", under="ignore"):
                value = self.f(*args)
        except (FloatingPointError, OverflowError) as exc:
            raise Rejected(f"{type(exc).__name__}: {exc}") from None
        except Exception as exc:
            raise GeneratorBug(f"the program fails as Python: {type(exc).__name__}: {exc}\n"
                               f"{self.program!r}") from exc
        if np.ndim(value) != 0:
            raise GeneratorBug(f"f returned shape {np.shape(value)}\n{self.program!r}")
        if not (math.isfinite(value) and abs(value) <= BOUND):
            raise Rejected(f"value {value} out of range")
        return float(value)

    def finite_difference(self, position, step=FD_STEP, fourth_order=False):
        """Of a float or an array argument; of a container, a list per leaf."""
        tree = self.program.args[position]
        if is_tree(tree):
            return [self._leaf_difference(position, k, step, fourth_order)
                    for k in range(len(tree_leaves(tree)))]
        return self._leaf_difference(position, None, step, fourth_order)

    def _leaf_difference(self, position, leaf, step, fourth_order):
        tree = self.program.args[position]
        x = tree if leaf is None else tree_leaves(tree)[leaf]
        grad = np.zeros(np.shape(x))
        for index in np.ndindex(grad.shape):
            def at(delta):
                args = list(self.program.args)
                if np.ndim(x) == 0:
                    moved = x + delta
                else:
                    moved = np.array(x, float)
                    moved[index] += delta
                args[position] = moved if leaf is None else tree_with_leaf(tree, leaf, moved)
                return self.call(args)
            if fourth_order:
                grad[index] = (8 * (at(step) - at(-step)) - at(2 * step) + at(-2 * step)) \
                    / (12 * step)
            else:
                grad[index] = (at(step) - at(-step)) / (2 * step)
        return float(grad) if np.ndim(x) == 0 else grad


# ---- the checks -------------------------------------------------------------------------------

_directory = []


def load(program):
    """f from `program.source` written to a real file (s2sad reads source) and imported."""
    if not _directory:
        _directory.append(tempfile.mkdtemp(prefix="s2sad-fuzz-"))
    name = "fuzz_" + hashlib.sha256(program.source.encode()).hexdigest()[:16]
    path = os.path.join(_directory[0], name + ".py")
    if not os.path.exists(path):
        with open(path, "w") as handle:
            handle.write(program.source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.f


def is_tree(value):
    return isinstance(value, (dict, list, tuple))


def tree_leaves(value):
    """The floats and arrays of a dict, list or tuple (nested), in order; [value] for a leaf."""
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in tree_leaves(v)]
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in tree_leaves(v)]
    return [value]


def tree_map(fn, value):
    if isinstance(value, dict):
        return {k: tree_map(fn, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(tree_map(fn, v) for v in value)
    return fn(value) if isinstance(value, np.ndarray) else value


def tree_with_leaf(value, leaf, new):
    """`value` with its leaf number `leaf` replaced by `new`."""
    return rebuilt(value, iter([new if k == leaf else x
                                for k, x in enumerate(tree_leaves(value))]))


def rebuilt(like, leaves):
    """A container shaped like `like` holding the next values of the iterator `leaves`."""
    if isinstance(like, dict):
        return {k: rebuilt(v, leaves) for k, v in like.items()}
    if isinstance(like, (list, tuple)):
        return type(like)(rebuilt(v, leaves) for v in like)
    return next(leaves)


def same_tree(a, b):
    """Same structure (types, keys, lengths) and equal leaves."""
    if is_tree(a) or is_tree(b):
        return type(a) is type(b) and len(a) == len(b) and \
            (not isinstance(a, dict) or list(a) == list(b)) and \
            all(same_tree(x, y) for x, y in zip(a.values() if isinstance(a, dict) else a,
                                                 b.values() if isinstance(b, dict) else b))
    return np.array_equal(a, b)


def relative_error(computed, expected):
    if is_tree(computed) or is_tree(expected):
        if not (is_tree(computed) and is_tree(expected)):
            return math.inf
        pairs = list(zip(tree_leaves(computed), tree_leaves(expected)))
        if len(pairs) != len(tree_leaves(expected)):
            return math.inf
        return max([relative_error(c, e) for c, e in pairs], default=0.0)
    computed, expected = np.asarray(computed, float), np.asarray(expected, float)
    if computed.shape != expected.shape:
        return math.inf
    with np.errstate(invalid="ignore"):
        error = np.abs(computed - expected) / np.maximum(1.0, np.abs(expected))
    return float(np.max(error, initial=0.0)) if np.all(np.isfinite(error)) else math.inf


def check(program, jit=True, forward=True):
    """Raise Rejected (not a test) or a FuzzFailure; return the reference otherwise."""
    reference = Reference(program)
    f = load(program)
    python = _gradient(program, f, jit=False)
    for k, (position, computed, expected) in enumerate(zip(program.wrt, python,
                                                           reference.grads)):
        if relative_error(computed, expected) > FD_TOLERANCE:
            careful = reference.finite_difference(position, step=1e-4, fourth_order=True)
            if relative_error(careful, expected) > FD_TOLERANCE:
                raise Rejected("finite differences disagree with each other")
            raise GradientMismatch(_report(program, f"d/d{_name(f, position)}", computed,
                                           expected, relative_error(computed, expected)))
    if jit:
        compiled = _gradient(program, f, jit=True)
        for position, on, off in zip(program.wrt, compiled, python):
            if relative_error(on, off) > JIT_TOLERANCE:
                raise JitMismatch(_report(program, f"JIT vs Python, d/d{_name(f, position)}",
                                          on, off, relative_error(on, off)))
    if forward:
        _check_forward(program, f, reference, python)
    return reference


def _gradient(program, f, jit):
    args = [tree_map(np.copy, a) for a in program.args]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", s2sad.ZeroGradientWarning)  # an unused parameter
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            grads = s2sad.grad(f, wrt=program.wrt, jit=jit)(*args)
        except s2sad.S2sadError as exc:
            raise Unsupported(f"{type(exc).__name__}: {exc}\n{program!r}") from exc
        except Exception as exc:
            raise Crash(f"{'JIT' if jit else 'Python'}: {type(exc).__name__}: {exc}\n"
                        f"{program!r}") from exc
    for warning in caught:
        if issubclass(warning.category, s2sad.JitFallbackWarning):
            raise JitMismatch(f"Numba could not compile it: {warning.message}\n{program!r}")
        if issubclass(warning.category, s2sad.S2sadWarning):
            raise Unsupported(f"{warning.category.__name__}: {warning.message}\n{program!r}")
    for a, original in zip(args, program.args):
        if not same_tree(a, original):
            raise BadResult(f"the gradient call modified an argument\n{program!r}")
    for position, g in zip(program.wrt, grads):
        x = program.args[position]
        if is_tree(x) != is_tree(g) or (is_tree(x) and (type(g) is not type(x) or
                                                         len(g) != len(x))):
            raise BadResult(f"d/d{_name(f, position)} is {g!r}, the input {x!r}\n{program!r}")
        for x_leaf, g_leaf in zip(tree_leaves(x), tree_leaves(g)):
            if (np.ndim(x_leaf) == 0) != isinstance(g_leaf, float) or \
                    np.shape(g_leaf) != np.shape(x_leaf):
                raise BadResult(f"d/d{_name(f, position)} has {type(g_leaf).__name__} of "
                                f"shape {np.shape(g_leaf)}, the input {np.shape(x_leaf)}\n"
                                f"{program!r}")
    return grads


def _check_forward(program, f, reference, grads):
    rng = np.random.default_rng(int(hashlib.sha256(program.source.encode()).hexdigest()[:8], 16))
    def direction(x):
        if is_tree(x):
            return rebuilt(x, iter([direction(leaf) for leaf in tree_leaves(x)]))
        return float(rng.uniform(-1, 1)) if np.ndim(x) == 0 else rng.uniform(-1, 1, np.shape(x))
    tangents = [direction(program.args[k]) for k in program.wrt]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.ZeroGradientWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            value, tangent = s2sad.jvp(f, wrt=program.wrt, jit=False)(*program.args, *tangents)
        except s2sad.S2sadError as exc:
            raise Unsupported(f"forward mode: {type(exc).__name__}: {exc}\n{program!r}") from exc
        except Exception as exc:
            raise Crash(f"forward mode: {type(exc).__name__}: {exc}\n{program!r}") from exc
    expected = sum(float(np.sum(g * t)) for grad, tangent in zip(grads, tangents)
                   for g, t in zip(tree_leaves(grad), tree_leaves(tangent)))
    if relative_error(value, reference.value) > FORWARD_TOLERANCE:
        raise ForwardMismatch(_report(program, "jvp value", value, reference.value,
                                      relative_error(value, reference.value)))
    if relative_error(tangent, expected) > FORWARD_TOLERANCE:
        raise ForwardMismatch(_report(program, "jvp tangent vs reverse gradient", tangent,
                                      expected, relative_error(tangent, expected)))


def _name(f, position):
    return f.__code__.co_varnames[position]


def _report(program, what, computed, expected, error):
    return f"{what}: relative error {error:.2e}\n  s2sad:    {computed!r}\n" \
           f"  expected: {expected!r}\n{program!r}"
