"""Every corpus function matches central finite differences, with JIT on and off, on random
inputs; JIT on and off agree to 1e-12; a gradient call never modifies its arguments.

`make test` checks every function as Python (JIT off) and compiles (JIT on) a sample of them:
of each corpus module's functions, the first and every third (sweeps.py), and every function
declared NOT_NUMBA (its fallback warning); `make verify` (S2SAD_FULL_SWEEP=1) compiles all."""
import ast
import copy
import warnings

import numpy as np
import pytest

import s2sad
import corpus_control
import corpus_language
import corpus_straight
import sweeps
from gradcheck import check_gradient, tree_equal

CASES = corpus_straight.CASES + corpus_control.CASES + corpus_language.CASES
NOT_NUMBA = corpus_straight.NOT_NUMBA | corpus_control.NOT_NUMBA | corpus_language.NOT_NUMBA
SEEDS = {f.__name__: 2 for f, _, _ in corpus_straight.CASES}  # control cases: 4 seeds reach
                                                              # every branch (corpus_control)
COMPILED = {f.__name__ for f, _, _ in sweeps.sample(CASES, key=lambda case: case[0].__module__)}
COMPILED |= NOT_NUMBA


@pytest.mark.parametrize("f, make_args, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_matches_finite_differences(f, make_args, wrt):
    wrt = wrt if isinstance(wrt, tuple) else (wrt,)
    jit = f.__name__ in COMPILED
    jit_fn = s2sad.grad(f, wrt=wrt, jit=True) if jit else None
    py_fn = s2sad.grad(f, wrt=wrt, jit=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", s2sad.JitFallbackWarning)
        for seed in range(SEEDS.get(f.__name__, 4)):
            args = make_args(np.random.default_rng(seed))
            before = copy.deepcopy(args)
            check_gradient(f, args, wrt, jit_fn=jit_fn, py_fn=py_fn, jit=jit)
            for a, b in zip(args, before):
                assert tree_equal(a, b), "a gradient call modified its argument"
    fallbacks = [w for w in caught if issubclass(w.category, s2sad.JitFallbackWarning)]
    if f.__name__ in NOT_NUMBA:
        assert len(fallbacks) == 1, "expected exactly one fallback warning"
        message = str(fallbacks[0].message)
        assert f"the gradient of {f.__name__}" in message
        if "which Numba cannot compile" not in message:  # else: declared by a rule, not tried
            assert "reason: " in message
            assert f"at {jit_fn.path}:" in message  # the generated line Numba stopped at
    else:
        assert not fallbacks, f"Numba could not compile {f.__name__}: {fallbacks[0].message}"


@pytest.mark.parametrize("f, make_args, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_generated_code_reads_back(f, make_args, wrt):
    """The printed adjoint parses, and every backward block points at its source line."""
    df = s2sad.grad(f, wrt=wrt, jit=False)
    if any(isinstance(a, (dict, list, tuple)) or hasattr(a, "__dataclass_fields__")
           for a in make_args(np.random.default_rng(0))):
        df(*make_args(np.random.default_rng(0)))  # generated for the structure of its arguments
    text = df.source
    tree = ast.parse(text)
    assert [node.name for node in tree.body if isinstance(node, ast.FunctionDef)] == \
        [f"d{f.__name__}"]
    assert "# ---- backward sweep ----" in text
    assert "# grad of: " in text and f"{f.__module__}.py:" in text


def test_extremes_along_an_axis_and_a_gather_by_an_index_array_compile():
    """numpy.max/amin along an int axis and the adjoint of `a[:, index]` compile (issue 47)."""
    f, make_args, wrt = next(c for c in CASES if c[0] is corpus_straight.peaks_and_gathers)
    jit_fn = s2sad.grad(f, wrt=wrt, jit=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)
        check_gradient(f, make_args(np.random.default_rng(0)), wrt, jit_fn=jit_fn,
                       py_fn=s2sad.grad(f, wrt=wrt, jit=False), jit=True)


def test_an_int_computed_in_a_loop_is_kept_as_an_int():
    """`i = min(max(int(np.floor(x)), 0), n - 2)` in a loop, then an index: kept on an int tape
    (a float tape made the index a float: Python raised, Numba fell back)."""
    f, make_args, wrt = next(c for c in CASES if c[0] is corpus_control.cell_lookup)
    jit_fn = s2sad.grad(f, wrt=wrt, jit=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)
        warnings.simplefilter("ignore", s2sad.GradientCutWarning)   # (floor: no gradient)
        for seed in range(2):
            check_gradient(f, make_args(np.random.default_rng(seed)), wrt, jit_fn=jit_fn,
                           py_fn=s2sad.grad(f, wrt=wrt, jit=False), jit=True)
    assert "_stack_i = numpy.empty(_trips0, numpy.int64)" in jit_fn.source
