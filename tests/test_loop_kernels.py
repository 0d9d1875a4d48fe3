"""Loop nests written as people write them (benchmarks/loop_kernels.py, issue 33): each
gradient against finite differences, JIT on and off; and the shape of what its forward sweep
keeps, read from the generated code (deterministic, not timed):

- no growable tape (`rt.grown`) and no list where the trip counts can be computed before the
  nest, whatever the bounds' spelling (`range(4 * H)`, `range(1, n - 1)`, `range(i)`,
  `range(c + 1, d)`, `range(A.shape[0])`); a `while` grows its tape with the room check
  inline, no call per value;
- a value is kept where it changes, not where it is read: the deepest loop level at which the
  forward sweep stores into a tape is given per kernel.
"""
import ast
import math
import os
import sys

import numpy as np
import pytest

import s2sad
from gradcheck import check_gradient

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "benchmarks"))
import loop_kernels  # noqa: E402

# kernel -> the deepest loop level of a tape store in the forward sweep (1: the outermost
# loop), and the tapes allowed there
DEEPEST_STORE = {
    "triangular_solve": (1, None),   # x once per i where it is written, read in place per (i, j)
    "heat_1d": (2, None),            # the stencil's difference, one per (t, i); nothing for the
                                     # copy-back loop
    "stencil_2d": (3, None),
    "matmul_loops": (0, None),       # nothing: A and B never change, the bounds are computed
    "rnn_scalar": (2, None),         # h once per (t, j) where it is written, not per (t, r, j)
    "lstm_scalar": (2, None),        # the same
    "pairwise_energy": (2, None),
    "while_integrator": (1, None),
    "horner": (2, None),             # the reversed range runs forwards again: no start kept
    "hmm_forward": (3, None),
    "linear_recurrence": (1, None),
    # xc is kept where it is written, once per (i, k, c), and read in place in the triangular
    # (c, r) loop; the counter idx is kept where it is set (once per (i, k)) and stepped back
    "gmm_loops": (3, None),
}


def _tape_stores(source):
    """[(tape, loop depth)] of every `_stack...[...] = value` in the forward sweep."""
    tree = ast.parse(source)
    backward = next(k for k, line in enumerate(source.splitlines(), 1)
                    if "---- backward sweep ----" in line)
    found = []

    def visit(statements, depth):
        for statement in statements:
            if statement.lineno >= backward:
                return
            if isinstance(statement, (ast.For, ast.While)):
                visit(statement.body, depth + 1)
            elif isinstance(statement, ast.If):
                visit(statement.body, depth)
                visit(statement.orelse, depth)
            elif isinstance(statement, ast.Assign) and \
                    isinstance(statement.targets[0], ast.Subscript) and \
                    isinstance(statement.targets[0].value, ast.Name) and \
                    statement.targets[0].value.id.startswith("_stack"):
                found.append((statement.targets[0].value.id, depth))
    function = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    visit(function.body, 0)
    return found


@pytest.fixture(scope="module", params=sorted(loop_kernels.SIZES))
def kernel(request):
    name = request.param
    function, wrt, makes = loop_kernels.SIZES[name]
    args = makes["small"](np.random.default_rng(33))
    jit_fn = s2sad.grad(function, wrt=wrt, jit=True)
    check_gradient(function, args, wrt, jit_fn=jit_fn)
    return name, jit_fn.source


def test_trip_counts_known_before_the_nest_need_no_growing_tape(kernel):
    name, source = kernel
    assert "= []" not in source and ".append(" not in source and "rt.push(" not in source
    if name == "while_integrator":  # the one trip count known only at the end
        assert "rt.grown(" in source
        # one room check at the top of each trip for the tapes of that loop, then plain stores
        assert "    while t < t_end:\n        if _n0 >= len(_stack_dt):\n" \
            "            _stack_dt = rt.grown(_stack_dt, _n0)\n" \
            "            _stack_v = rt.grown(_stack_v, _n0)\n" in source
        assert "_stack_x[_n0] = x\n" in source and source.count("rt.grown(") == 3
    else:
        assert "rt.grown(" not in source


def test_values_are_kept_where_they_change(kernel):
    name, source = kernel
    depth, allowed = DEEPEST_STORE[name]
    stores = _tape_stores(source)
    assert max((d for _, d in stores), default=0) == depth, stores
    if allowed is not None:
        assert {t for t, d in stores if d == depth} == allowed, stores


def test_the_lstm_state_is_kept_once_per_write():
    source = s2sad.grad(loop_kernels.lstm_scalar, wrt=(0, 1, 3, 4), jit=False)
    args = loop_kernels.SIZES["lstm_scalar"][2]["small"](np.random.default_rng(1))
    source(*args)
    text = source.source
    assert "_stack_h[t, j] = h[j]" in text and "h[j] = _stack_h[t, j]" in text
    assert "s = s + W[r, D + j] * h[j]" in text  # read in place, not kept per (t, r, j)


def phase_per_step(x, w):
    """A number computed once per step (`c`) and read in the inner loop of each step."""
    acc = 0.0
    for t in range(5):
        c = math.cos(w * t + acc)
        for j in range(x.shape[0]):
            acc += c * x[j] * 0.1
            acc = math.sin(acc)
    return acc


@pytest.mark.parametrize("jit", [True, False])
def test_a_number_computed_once_per_step_is_kept_once_per_step(jit):
    """`c` changes once per t and is read once per (t, j): it is kept once per t, after the
    inner loop, and put back before the inner loop's backward sweep."""
    grad = s2sad.grad(phase_per_step, wrt=(0, 1), jit=jit)
    check_gradient(phase_per_step, (np.random.default_rng(4).normal(size=4), 0.7), (0, 1),
                   jit_fn=grad)
    text = grad.source
    assert "_stack_c[t] = c" in text and "c = _stack_c[t]" in text
    assert "_stack_c[_n" not in text


def test_a_running_counter_is_stepped_back_not_kept():
    """gmm_loops: `idx = d` per (i, k), `idx += 1` per trip of the triangular (c, r) nest: idx is
    kept once per (i, k) where it is set, and the backward sweep undoes each step."""
    grad = s2sad.grad(loop_kernels.gmm_loops, wrt=(0, 1, 2), jit=False)
    grad(*loop_kernels.SIZES["gmm_loops"][2]["small"](np.random.default_rng(3)))
    text = grad.source
    assert "_stack_idx[i, k] = idx" in text and "idx = _stack_idx[i, k]" in text
    assert "idx = idx - 1" in text and "_stack_idx[_n" not in text


def test_a_copy_back_loop_keeps_nothing_no_backward_block_reads():
    """heat_1d: `u[i] = un[i]` overwrites u, but no backward block after it reads u (the
    stencil's difference is kept): the old u[i] is not kept (to-be-recorded)."""
    grad = s2sad.grad(loop_kernels.heat_1d, wrt=(0, 1), jit=False)
    grad(*loop_kernels.SIZES["heat_1d"][2]["small"](np.random.default_rng(2)))
    assert "_stack_u" not in grad.source
    # `range(1, n - 1)` is indexed as `range(1, nm1)` would be: one index per loop
    assert "numpy.empty((_trips2, len(range(1, n - 1))))" in grad.source
    assert "_stack__t9[t, i - 1] = " in grad.source
