"""The shape of generated code: with the argument kinds known, what is kept for the backward
sweep and how is what a person would write (issue 18). Each function's gradient is also
checked against finite differences, JIT on and off."""
import importlib.util
import os
import re

import numpy as np
import pytest

import examples_generated as ex
import s2sad
from gradcheck import check_gradient

RNG = np.random.default_rng(18)


@pytest.fixture(scope="module")
def chain_source():
    args = (np.arange(5.0) + 0.05 * RNG.normal(size=5), 0.1 * RNG.normal(size=5),
            RNG.uniform(0.5, 1.5, 4), 6)
    grad = s2sad.grad(ex.chain, wrt=(0, 1, 2), jit=True)
    check_gradient(ex.chain, args, (0, 1, 2), jit_fn=grad)
    return grad.source


def test_a_loop_nest_keeps_its_values_in_preallocated_arrays(chain_source):
    assert "= []" not in chain_source  # no list used as a stack
    assert ".append(" not in chain_source and ".pop()" not in chain_source
    kept = [line.split("=")[0].strip() for line in chain_source.splitlines()
            if "numpy.empty(" in line]
    # the two stretches of the force, one value per step and particle; the final loop reads
    # x and v in place (nothing overwrites them after it)
    assert len(kept) == 2, kept
    assert chain_source.count("numpy.empty((") == 2  # one index per loop level
    assert "[t, i - 1]" in chain_source


@pytest.mark.parametrize("jit", [True, False])
def test_numbers_kept_in_a_nest_of_changing_bounds_or_a_while_need_no_list(jit):
    """A triangular nest (`range(j + 1, n)`, with a branch inside) keeps its numbers and branch
    flags on arrays allocated at their full length before the nest (its trips counted by a
    loop that only adds) and indexed by a count of the loop's trips, with a plain store; the
    inner range runs again backwards from the outer counter. A data-dependent `while` grows its
    tape, with the room check inline (issue 33)."""
    grad = s2sad.grad(ex.triangle, wrt=(0, 1), jit=jit)
    for seed in range(3):
        rng = np.random.default_rng(seed)
        check_gradient(ex.triangle, (rng.normal(size=6), rng.uniform(0.5, 1.2)), (0, 1),
                       jit_fn=grad)
    source = grad.source
    assert "= []" not in source and ".append(" not in source and ".pop()" not in source
    assert "rt.grown" not in source and "rt.push" not in source
    assert "_size0 = _size0 + len(range(j + 1, n))" in source
    for kept in ("_stack_acc", "_stack_acc_1", "_stack_branch0"):  # once per inner trip
        assert f"{kept}[_n0] = " in source and f"= {kept}[_n0]" in source
    # the inner loop's bounds are computed again from the outer counter, not kept
    assert "for i in range(n - 1, j, -1):" in source
    assert "_stack_start" not in source and "_stack_trips" not in source
    assert "_stack_branch0 = numpy.empty(_size0, numpy.bool_)" in source
    assert "_stack_acc = numpy.empty(_size0)" in source
    halving = s2sad.grad(ex.halving, wrt=(0, 1), jit=jit)
    for x in (0.3, 2.0, 5.0):
        check_gradient(ex.halving, (x, 0.8), (0, 1), jit_fn=halving)
    assert ".append(" not in halving.source and "rt.push" not in halving.source
    assert "if _n0 >= len(_stack_y):\n            _stack_y = rt.grown(_stack_y, _n0)\n" \
        in halving.source and "_stack_y[_n0] = y\n" in halving.source
    rows = s2sad.grad(ex.nested_rows, wrt=(0, 1), jit=jit)
    check_gradient(ex.nested_rows, (RNG.normal(size=5), 0.7), (0, 1), jit_fn=rows)
    assert ".append(" not in rows.source and "_stack_h = numpy.empty((0, 0))" in rows.source
    assert "_stack_h = rt.keep_row(_stack_h, _size0, _n0, h)" in rows.source


@pytest.mark.parametrize("jit", [True, False])
def test_a_small_callee_with_a_loop_is_inlined_and_runs_forward_once(jit):
    grad = s2sad.grad(ex.relaxed, wrt=(0, 1), jit=jit)
    check_gradient(ex.relaxed, (RNG.normal(size=3), 0.7, 4), (0, 1), jit_fn=grad)
    source = grad.source
    code = [line for line in source.splitlines() if not line.strip().startswith("#")]
    assert "rt.load(" not in source and not any("relax(" in line for line in code)
    assert "# for j in range(3):   [examples_generated.py:" in source  # the callee's lines
    assert ".append(" not in source


@pytest.mark.parametrize("jit", [True, False])
def test_a_value_put_back_only_to_be_put_back_again_is_not_kept(jit):
    """The demo's `bounce`: `v = -0.9 * v` in a branch, whose block does not read v, and the
    block before it puts v back anyway: the value it overwrites is not kept."""
    spec = importlib.util.spec_from_file_location(
        "demo", os.path.join(os.path.dirname(__file__), "..", "examples", "demo.py"))
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)
    grad = s2sad.grad(demo.bounce, wrt=(0, 1), jit=jit)
    for height in (0.5, 1.0):
        check_gradient(demo.bounce, (height, 0.3, 60), (0, 1), jit_fn=grad)
    assert "_stack_v[i] = v" in grad.source and "_stack_v_1" not in grad.source


@pytest.mark.parametrize("jit", [True, False])
def test_what_a_loop_overwrites_is_kept_one_per_trip_only_if_read(jit):
    """`x[i % 2] = w * x[i % 2 + 1]` in a `range` loop: what the backward sweep reads (the
    factor) is kept in an array with one slot per trip; the elements overwritten are not put
    back, since no backward block reads x after the loop's (issue 33)."""
    grad = s2sad.grad(ex.overwrite, wrt=(0, 1), jit=jit)
    check_gradient(ex.overwrite, (RNG.normal(size=4), 0.7), (0, 1), jit_fn=grad)
    assert "_stack__t2 = numpy.empty(_trips0)" in grad.source
    assert "_stack__t2[i] = _t2" in grad.source and "_t2 = _stack__t2[i]" in grad.source
    assert "_stack_x" not in grad.source and ".append(" not in grad.source


@pytest.mark.parametrize("jit", [True, False])
def test_an_element_of_an_array_kept_whole_is_read_from_it_again(jit):
    """`s += A[i, j] * v[j]` in a `while` loop that reassigns v once per step: v is kept once
    per step (the blocks of `np.dot(v, w)` read it whole), and the block of the inner loop
    reads v[j] from it again instead of keeping every element per trip (24x -> 5x its Numba
    forward measured in issue 48; 87x -> 4.7x here at 60 x 60)."""
    a = RNG.normal(size=(5, 5))
    args = (a + a.T, RNG.uniform(0.5, 1.5, 5))
    grad = s2sad.grad(ex.power_iteration, wrt=(0, 1), jit=jit)
    check_gradient(ex.power_iteration, args, (0, 1), jit_fn=grad)
    forward, backward = grad.source.split("# ---- backward sweep ----")
    assert "s = s + A[i, j] * v[j]" in forward      # nothing kept per (step, i, j)
    assert "ds * v[j]" in backward                  # read from the v put back per step


def test_no_helper_on_a_known_scalar(chain_source):
    assert "rt.saved(" not in chain_source   # x[i] is a number: read, not copied
    assert "rt.unbroadcast(" not in chain_source


def test_a_gradient_is_passed_on_by_its_name_not_through_copies(chain_source):
    """`d_t19 = dforce` ... `dforce = d_t19`: templates' copies of a gradient are read as the
    name they copy (copies.py)."""
    backward = chain_source.split("# ---- backward sweep ----")[1]
    copies = [line.strip() for line in backward.splitlines()
              if re.fullmatch(r"\s*d?\w+ = d?_t\d+|\s*d_t\d+ = \w+", line)]
    assert not copies, copies
    assert "dforce" in backward


def test_backward_loops_run_their_own_counter_backwards(chain_source):
    """`for i in range(count - 1, 0, -1)`, not a trip count and a second counter; the branch
    the backward sweep evaluates again is the test itself, not a flag."""
    backward = chain_source.split("# ---- backward sweep ----")[1]
    assert backward.count("for i in range(count - 1, 0, -1):") == 2
    assert "for t in range(steps - 1, -1, -1):" in backward
    assert "_trips" not in backward and "_k0" not in backward
    assert "_branch" not in chain_source and "if i + 1 < count:" in backward


def test_a_loop_invariant_value_is_not_kept():
    grad = s2sad.grad(ex.scalar_loop, wrt=(0, 1), jit=True)
    check_gradient(ex.scalar_loop, (0.7, 1.3, 5), (0, 1), jit_fn=grad)
    source = grad.source
    assert "_stack_c" not in source and "_c_" not in source
    assert "rt." not in source.split("# ---- backward sweep ----")[1]


def test_outer_products_of_a_loop_are_one_matrix_product_after_it():
    args = (0.3 * RNG.normal(size=(4, 4)), 0.3 * RNG.normal(size=(4, 3)),
            RNG.normal(size=(7, 3)))
    grad = s2sad.grad(ex.recurrent, wrt=(0, 1), jit=True)
    check_gradient(ex.recurrent, args, (0, 1), jit_fn=grad)
    source = grad.source
    # squash's result is known to be a vector (returns.py), so both weights qualify
    assert "dw += _dw_g.T @ _dw_b" in source
    # u's rows are xs's own rows: xs[:n] itself, not a copy of each
    assert re.search(r"du \+= _du_g\.T @ xs\[:_t\d+\]", source) and "_du_b" not in source
    assert "rt.matmul_grad_a" not in source


@pytest.mark.parametrize("x", [2.0, -0.5, -3.0])
def test_an_adjoint_bound_on_some_paths_only_starts_at_zero(x):
    check_gradient(ex.early_return, (x,), (0,))
    source = s2sad.grad(ex.early_return, jit=False)
    source(x)
    assert "rt.zeros_like" not in source.source


def test_operands_of_one_shape_need_no_unbroadcast():
    grad = s2sad.grad(ex.elementwise, wrt=(0,), jit=True)
    check_gradient(ex.elementwise, (RNG.normal(size=(3, 2)),), (0,), jit_fn=grad)
    assert "rt.unbroadcast" not in grad.source


def test_operands_that_broadcast_keep_their_sums():
    grad = s2sad.grad(ex.broadcasting, wrt=(0, 1), jit=True)
    check_gradient(ex.broadcasting, (RNG.normal(size=(3, 1)), RNG.normal(size=4)), (0, 1),
                   jit_fn=grad)
    assert "rt.unbroadcast" in grad.source


def test_an_element_updated_from_itself_keeps_its_gradient_in_place(chain_source):
    # `x[i] = x[i] + 0.01 * v[i]`: the adjoint a person writes, no take-out, zero, add back
    assert "dv[i] += dx[i] * 0.01" in chain_source
    assert "dx[i] = 0.0" not in chain_source and "dv[i] = 0.0" not in chain_source


@pytest.mark.parametrize("jit", [True, False])
def test_an_element_read_again_in_its_own_update_gets_every_contribution(jit):
    args = (RNG.normal(size=5), 0.3, 3)
    grad = s2sad.grad(ex.self_update, wrt=(0, 1), jit=jit)
    check_gradient(ex.self_update, args, (0, 1), jit_fn=grad)
    assert "dy[i] = 0.0" not in grad.source


@pytest.mark.parametrize("jit", [True, False])
def test_the_gradient_of_a_whole_sum_is_one_number_broadcast(jit):
    args = (RNG.normal(size=6), RNG.normal(size=6))
    grad = s2sad.grad(ex.log_sum_exp, wrt=(0, 1), jit=jit)
    check_gradient(ex.log_sum_exp, args, (0, 1), jit_fn=grad)
    assert "rt.unreduce" not in grad.source


def test_arrays_kept_where_nothing_changes_in_place_are_not_copied():
    # `recurrent` writes into no array and calls no function that does: a kept state is the
    # value the backward sweep needs, as it is
    args = (0.3 * RNG.normal(size=(4, 4)), 0.3 * RNG.normal(size=(4, 3)),
            RNG.normal(size=(7, 3)))
    grad = s2sad.grad(ex.recurrent, wrt=(0, 1), jit=True)
    check_gradient(ex.recurrent, args, (0, 1), jit_fn=grad)
    assert "rt.saved(" not in grad.source


@pytest.fixture(scope="module")
def network_gradient():
    args = (RNG.normal(size=3), 0.5 * RNG.normal(size=(3, 3)), RNG.normal(size=3),
            RNG.normal(size=3))
    grad = s2sad.grad(ex.network, wrt=(0, 1, 2, 3), jit=True)
    check_gradient(ex.network, args, (0, 1, 2, 3), jit_fn=grad)
    return grad


def test_small_callees_are_inlined_as_a_person_would(network_gradient):
    source = network_gradient.source
    assert "affine" not in source.split("def dnetwork")[0]  # no link to its own files
    assert "cell" not in source.split("def dnetwork")[0]
    assert "numpy.tanh(" in source and "# z = affine(x, w, b)" in source
    # the callee's own statements keep their comments, pointing into the callee
    assert "# z = h * w + x   [examples_generated.py:" in source
    # the caller's `z` and the callee's `z` are different names
    assert "affine_z" in source or "cell_z" in source


def test_a_callee_with_a_branch_stays_a_call(network_gradient):
    header = network_gradient.source.split("def dnetwork")[0]
    assert "dbranchy = rt.load(" in header


@pytest.mark.parametrize("jit", [True, False])
def test_inlined_callees_give_the_same_gradient_jit_on_and_off(jit):
    args = (RNG.normal(size=3), 0.5 * RNG.normal(size=(3, 3)), RNG.normal(size=3),
            RNG.normal(size=3))
    check_gradient(ex.network, args, (0, 1, 2, 3), jit_fn=s2sad.grad(ex.network,
                                                                     wrt=(0, 1, 2, 3), jit=jit))


@pytest.mark.parametrize("jit", [True, False])
def test_products_of_kept_numbers_are_computed_again_not_kept(jit):
    grad = s2sad.grad(ex.midpoint, wrt=(0, 1, 2, 3), jit=jit)
    check_gradient(ex.midpoint, (1.1, 0.4, 2.0, 1.5, 7), (0, 1, 2, 3), jit_fn=grad)
    kept = sorted({line.split("=")[0].strip() for line in grad.source.splitlines()
                   if "numpy.empty(" in line})
    # the states a person keeps (u, w and the stage value u2), no temporary of them
    assert kept == ["_stack_u", "_stack_u2", "_stack_w"], kept


@pytest.mark.parametrize("jit", [True, False])
def test_numbers_computed_from_each_other_in_a_loop(jit):
    grad = s2sad.grad(ex.crossed, wrt=(0, 1), jit=jit)
    check_gradient(ex.crossed, (0.7, 0.3, 6), (0, 1), jit_fn=grad)


def test_arrays_of_one_shape_every_trip_are_kept_in_rows():
    """Arrays a loop makes fresh in each trip, of a shape that cannot change between trips,
    are kept as the rows of one array; a carried state (it broadcasts in its first trip) and
    slices that grow are kept one after the other in a flat array (`rt.entries`), not on
    lists. Both gradients are checked against finite differences."""
    import corpus_control as cc
    args = (0.5 * RNG.normal(size=(4, 3)), 0.3 * RNG.normal(size=4), RNG.normal(size=(5, 3)))
    grad = s2sad.grad(cc.gated_recurrence, wrt=(0, 1), jit=True)
    check_gradient(cc.gated_recurrence, args, (0, 1), jit_fn=grad)
    source = grad.source
    for kept in ("gate", "part"):
        assert f"_stack_{kept} = rt.keep_row(_stack_{kept}, _trips0, t, {kept})" in source
        assert f"{kept} = _stack_{kept}[t]" in source
    # `w @ xs[t]` is read for its shape only, the same in every trip: not kept at all
    assert "_t3 = w @ xs[t]" in source and "rt.unbroadcast(d_t4, _t3)" in source
    assert "_stack__t3" not in source
    # the state's shape may change: its values go one after the other in one flat array
    assert "_stack_state = rt.entries(1)" in source and \
        "_stack_state = rt.push_entry(_stack_state, _n0, state)" in source and \
        "state = rt.entry(_stack_state, _n0)" in source
    assert ".append(" not in source
    growing = s2sad.grad(ex.growing_heads, wrt=(0,), jit=True)
    check_gradient(ex.growing_heads, (RNG.normal(size=5), 5), (0,), jit_fn=growing)
    assert "rt.keep_row" not in growing.source and "rt.push_entry(" in growing.source
    assert ".append(" not in growing.source


def _hvp_by_differences(f, args, v, eps=1e-5):
    grad = s2sad.grad(f, wrt=0, jit=False)
    return (grad(args[0] + eps * v, *args[1:]) - grad(args[0] - eps * v, *args[1:])) / (2 * eps)


@pytest.mark.parametrize("name", ["triangle", "halving", "nested_rows", "relaxed"])
def test_second_derivatives_through_counted_stacks(name):
    """Forward over reverse (hvp) differentiates the growing stacks (rt.push, rt.push_row,
    rt.entries) and inlined callees like any generated code: checked against differences of
    the gradient."""
    rng = np.random.default_rng(3)
    args = {"triangle": (rng.normal(size=5), 0.8), "halving": (2.0, 0.8),
            "nested_rows": (rng.normal(size=4), 0.7),
            "relaxed": (rng.normal(size=3), 0.7, 3)}[name]
    f = getattr(ex, name)
    v = 1.0 if np.isscalar(args[0]) else rng.normal(size=np.shape(args[0]))
    got = s2sad.hvp(f, wrt=0, jit=False)(*args, v)
    np.testing.assert_allclose(got, _hvp_by_differences(f, args, v), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("jit", [True, False])
def test_a_sigmoid_spelled_out_keeps_its_result_only(jit):
    args = (0.5 * RNG.normal(size=(3, 3)), RNG.normal(size=(6, 3)))
    grad = s2sad.grad(ex.gated, wrt=(0,), jit=jit)
    check_gradient(ex.gated, args, (0,), **({"jit_fn": grad} if jit else {"py_fn": grad}))
    forward, backward = grad.source.split("# ---- backward sweep ----")
    assert "rt.sigmoid(" in forward and "numpy.exp" not in grad.source
    assert "* (1.0 - " in backward
    kept = [line for line in forward.splitlines() if "= rt.keep_row(" in line or
            "= rt.push_entry(" in line or "].append(" in line]
    assert len(kept) == 2, kept   # the gate's result, and h (whose shape may change)


def test_a_sigmoid_of_a_very_negative_number_has_a_zero_gradient_not_nan():
    grad = s2sad.grad(ex.gate, jit=False)
    with np.errstate(over="ignore"):    # exp(800) overflows to inf, as it does in the function
        assert grad(-800.0) == 0.0


def test_only_numpy_exp_forms_are_read_as_a_sigmoid():
    grad = s2sad.grad(ex.scalar_gate, wrt=(0,), jit=False)
    check_gradient(ex.scalar_gate, (0.3,), (0,), py_fn=grad)
    assert grad.source.count("rt.sigmoid(") == 1 and "math.exp(" in grad.source


@pytest.fixture(scope="module")
def expression_calls():
    args = (RNG.normal(size=3), RNG.normal(size=(3, 3)), RNG.normal(size=3))
    return args, {jit: s2sad.grad(ex.calls_in_expressions, wrt=(0, 1), jit=jit)
                  for jit in (True, False)}


@pytest.mark.parametrize("jit", [True, False])
def test_small_callees_inside_expressions_and_nested_are_inlined(expression_calls, jit):
    """Issue 18, calls: the callee's forward sweep runs once, in the caller's."""
    args, grads = expression_calls
    check_gradient(ex.calls_in_expressions, args, (0, 1), jit_fn=grads[jit])
    source = grads[jit].source
    header = source.split("def dcalls_in_expressions")[0]
    assert "scaled" not in header      # no file of its own
    # `bump(w[i]) * y[i]` -> its own statement, then the caller's expression
    assert "bump_value = bump_x * " in source and "total = total + bump_value * y[i]" in source
    # `scaled` calls `bump` inside an expression too: both put in place
    assert "scaled_bump_value = scaled_bump_x * " in source and "p = scaled_bump_value * 2.0" \
        in source
    # `branchy` is not small: it stays a call, in `and` too, and `bump(total)`, called after
    # it, stays where Python evaluates it, a call too
    assert "dbranchy = rt.load(" in header and "if total > 0.0 and branchy(total) > 0.0:" in source
    assert "= bump(total)" in source and "dbump = rt.load(" in header


def test_one_comment_per_source_statement_of_an_inlined_call(expression_calls):
    source = expression_calls[1][True].source
    forward = source.split("---- backward sweep ----")[0]
    assert forward.count("# total = total + bump(w[i]) * y[i]") == 1
    assert source.count("# grad of: total = total + bump(w[i]) * y[i]") == 1


def test_a_value_recomputed_for_two_blocks_in_a_row_is_computed_once(expression_calls):
    backward = expression_calls[1][True].source.split("---- backward sweep ----")[1]
    lines = [line.strip() for line in backward.splitlines() if line.strip()]
    assert len(lines) == len(set(lines)) or all(
        a != b for a, b in zip(lines, lines[1:])), backward


@pytest.mark.parametrize("jit", [True, False])
def test_a_square_passes_twice_its_product_on(jit):
    grad = s2sad.grad(ex.squares, wrt=(0,), jit=jit)
    check_gradient(ex.squares, (np.linspace(-0.9, 0.9, 4),), (0,), jit_fn=grad)
    assert "dw = 2 * (" in grad.source and "dm = 2 * (" in grad.source, grad.source


@pytest.mark.parametrize("jit", [True, False])
def test_a_slice_read_twice_in_a_statement_is_read_once(jit):
    args = (RNG.normal(size=5), RNG.normal(size=(4, 3)))
    grad = s2sad.grad(ex.shared_slice, wrt=(0, 1), jit=jit)
    check_gradient(ex.shared_slice, args, (0, 1), jit_fn=grad)
    source = grad.source
    assert "dv[1:] += 2 * (" in source, source
    assert "rt.unbroadcast" not in source and "numpy.sum(-" not in source
    assert "dpeak = dpeak - " in source   # the row's sum is a loop over its elements


def test_a_value_put_back_that_nothing_reads_later_is_not_kept(expression_calls):
    """`total` is put back in the backward loop only if a block run after it reads it: none
    does (its reads come after the loop in the forward sweep, so before it backwards)."""
    args, grads = expression_calls
    grads[True](*args)   # the file for these argument kinds (alone, the test saw the general one)
    source = grads[True].source
    assert "_stack_total" not in source
    assert "total = _stack" not in source


@pytest.mark.parametrize("jit", [True, False])
def test_a_product_added_to_a_broadcast_is_summed_back_once(jit):
    """`c = a * c + b * tanh(big[t])` and `tanh(a * b + big)`: the products' gradients are
    summed back to a, b and c only (no rt.unbroadcast to the products themselves, which are
    then not kept), also where a row is added to a matrix."""
    args = (RNG.normal(size=4), RNG.normal(size=4), RNG.normal(size=(3, 4)))
    grad = s2sad.grad(ex.broadcast_chain, wrt=(0, 1, 2), jit=jit)
    check_gradient(ex.broadcast_chain, args, (0, 1, 2), jit_fn=grad)
    source = grad.source
    products = set(re.findall(r"(_t\d+) = \w+ \* ", source))
    assert products, source
    for product in products:
        assert f", {product})" not in source and f"_stack_{product}" not in source, source


@pytest.mark.parametrize("jit", [True, False])
def test_the_gradient_of_a_sum_along_an_axis_is_broadcast_by_its_product(jit):
    args = (RNG.normal(size=(3, 4)), RNG.normal(size=(2, 3, 4)), RNG.normal(size=5),
            RNG.normal(size=(3, 1)))
    grad = s2sad.grad(ex.row_sums, wrt=(0, 1, 2, 3), jit=jit)
    check_gradient(ex.row_sums, args, (0, 1, 2, 3), jit_fn=grad)
    source = grad.source
    assert source.count("numpy.expand_dims(") == 2, source
    assert source.count("rt.unreduce(") == 1, source   # col * m: the column has one column


@pytest.mark.parametrize("jit", [True, False])
def test_a_value_folds_past_the_row_a_tape_keeps(jit):
    args = (RNG.normal(size=(6, 3)), RNG.normal(size=(4, 3)), 0.7)
    grad = s2sad.grad(ex.squared_distances, wrt=(0, 1, 2), jit=jit)
    check_gradient(ex.squared_distances, args, (0, 1, 2), jit_fn=grad)
    source = grad.source
    assert "rt.keep_row(_stack_m," in source, source
    assert "s = numpy.sum(m * m, axis=1)" in source, source


@pytest.mark.parametrize("jit", [True, False])
def test_a_product_summed_over_its_rows_is_summed_first(jit):
    args = (RNG.normal(size=(6, 3)), RNG.normal(size=3), RNG.normal(size=(3, 2)),
            RNG.normal(size=(1, 3)))
    grad = s2sad.grad(ex.centered_product, wrt=(1, 2, 3), jit=jit)
    check_gradient(ex.centered_product, args, (1, 2, 3), jit_fn=grad)
    assert grad.source.count("rt.matmul_grad_a(numpy.sum(") == 1, grad.source


@pytest.mark.parametrize("jit", [True, False])
def test_a_sum_of_a_row_in_a_loop_is_a_loop_over_its_elements(jit):
    args = (RNG.normal(size=(6, 4)), RNG.normal(size=3))
    grad = s2sad.grad(ex.log_sum_exp_rows, wrt=(0, 1), jit=jit)
    check_gradient(ex.log_sum_exp_rows, args, (0, 1), jit_fn=grad)
    source = grad.source
    # the row's length is read once, before the loops; the exponentials are kept in a
    # preallocated array, one per row and element; their gradients are numbers
    assert re.search(r"(_t\d+) = z.shape\[1\]\n", source), source
    assert re.search(r"for _e in range\(_t\d+\):\n +(_t\d+) = numpy.exp\(z\[r, _e\] - peak\)",
                     source), source
    assert re.search(r"_stack_(_t\d+)\[r, _e\] = ", source), source
    assert "dz[r, _e] += " in source and "rt.keep_row" not in source
    # the max's gradient goes into the row of dz, without an array made for it
    assert "rt.add_extremum_grad(dz[r], dpeak, z[r], peak)" in source
    assert "numpy.sum(w * w)" in source
    # one comment for the statement, not one per loop
    assert source.count("# total = total + peak") == 1, source


@pytest.mark.parametrize("jit", [True, False])
def test_a_new_gradient_array_is_written_into_without_a_copy(jit):
    d = 3
    args = (RNG.normal(size=(5, d)), RNG.normal(size=d + d * (d - 1) // 2), d)
    grad = s2sad.grad(ex.lower_factor, wrt=(0, 1), jit=jit)
    check_gradient(ex.lower_factor, args, (0, 1), jit_fn=grad)
    source = grad.source
    assert "for i in range(j + 1, d):" in source, source
    assert "dq = numpy.transpose(rt.matmul_grad_b(" in source, source
    assert "rt.copy(dq)" not in source, source
    assert re.search(r"dm = 2 \* \(numpy.expand_dims\(.*\) \* m\)", source), source


@pytest.mark.parametrize("jit", [True, False])
def test_a_product_of_numbers_read_twice_folds_into_both_reads(jit):
    args = (0.5, 0.2, 1.3, 0.7)
    grad = s2sad.grad(ex.predator_rate, wrt=(0, 1, 2, 3), jit=jit)
    check_gradient(ex.predator_rate, args, (0, 1, 2, 3), jit_fn=grad)
    source = grad.source
    assert "ddelta = dk * w * u\n" in source, source
    assert "du = dk * w * delta\n" in source, source
    assert not re.search(r"d_t\d+ = dk \* w\n", source), source


def test_a_product_of_numbers_folds_past_writes_into_arrays(chain_source):
    # `dstiffness[i] += dforce * _t17`, as a person writes it: the writes into dx between the
    # product and its read cannot change two numbers
    assert re.search(r"dstiffness\[i\] \+= dforce \* _t\d+\n", chain_source), chain_source
    assert re.search(r"dstiffness\[i - 1\] -= dforce \* _t\d+\n", chain_source), chain_source


@pytest.mark.parametrize("jit", [True, False])
def test_a_long_callee_called_once_is_inlined(jit):
    args = (1.1, 0.4, 0.1, 0.4, 10.0, 5.0, 7)
    grad = s2sad.grad(ex.rk4_rollout, wrt=(0, 1, 2, 3, 4, 5), jit=jit)
    check_gradient(ex.rk4_rollout, args, (0, 1, 2, 3, 4, 5), jit_fn=grad)
    source = grad.source
    assert "rt.load(" not in source, source
    assert "k4w = delta * u4 * w4 - gamma * w4" in source, source
    twice = s2sad.grad(ex.rk4_twice, wrt=(0, 1, 2, 3, 4, 5), jit=jit)
    check_gradient(ex.rk4_twice, (1.1, 0.4, 0.1, 0.4, 10.0, 5.0), (0, 1, 2, 3, 4, 5),
                   jit_fn=twice)
    assert "d_rk4_step = rt.load(" in twice.source, twice.source


@pytest.mark.parametrize("jit", [True, False])
def test_array_code_keeps_its_state_per_step_and_no_value_for_its_shape(jit):
    """The array particle chain keeps x and v per step, and the springs' stretch its stiffness
    gradient reads, as a hand adjoint does (issue 47: it kept 17 values). The slices joined (`x[:1]`) are taken again from the x put back before the block
    of the statement overwriting it; the values read for their shape only (`rt.unbroadcast(g,
    _t4)`, the pieces of a concatenation) become arrays of their shape without data, built
    from x, v and the parameters (runtime/likes.py)."""
    args = (np.arange(6.0) + 0.1 * RNG.normal(size=6), 0.1 * RNG.normal(size=6),
            RNG.uniform(1.0, 2.0, 5), 7)
    grad = s2sad.grad(ex.array_chain, wrt=(0, 1, 2), jit=jit)
    check_gradient(ex.array_chain, args, (0, 1, 2), jit_fn=grad, jit=jit)
    kept = sorted(set(re.findall(r"(_stack_\w+) = ", grad.source)))
    assert kept == ["_stack__t3", "_stack_v", "_stack_x"], kept  # _t3: the springs' stretch,
    # which dstiffness reads (two array operations from x: kept, not recomputed)
    assert "tension_like = rt.broadcast_shaped(stiffness," in grad.source
    assert "_t19_like = rt.broadcast_shaped(x[1:], v[1:])" in grad.source
