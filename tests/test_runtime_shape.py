"""Python and Numba agree on the helpers of shapes and indexing (runtime/shape.py, indexing.py),
each defined once (runtime/dispatch.py).

Every form Numba compiles gives, compiled, the numbers Python gives, and the same kind of result
(a Python float, or a float64 array of the same shape, or a tuple of those); the forms Numba
declines (an `axis` where Numba's primal has none, order 'F', a list, a mode other than 'raise')
still run as Python (the loops behind `compiled_as` are checked in test_runtime_twins.py).
`make test` compiles a sample of the forms (of each helper's, the first and every third:
runtime_forms.sampled), `make verify` all of them. Whether the numbers are right is
tests/test_templates.py's part (finite differences, JIT on and off).
"""
import numpy as np
import pytest
from runtime_forms import (B, R, case, check_compiled_agrees, leaves,
                           python_result_of_declined, sampled)


def like(function):
    """An adjoint shaped like function(**inputs before it): random values."""
    return lambda rng, values: _random_like(rng, function(**values))


def _random_like(rng, result):
    if isinstance(result, (tuple, list)):
        return tuple(_random_like(rng, r) for r in result)
    if np.ndim(result) == 0 and not isinstance(result, np.ndarray):
        return float(rng.uniform(0.5, 1.5))
    return rng.uniform(0.5, 1.5, np.shape(result))


I4 = np.array([0, 2, 2, -1])          # repeated and negative indices
I22 = np.array([[0, 1], [1, 1]])

COMPILED = [   # each form each dispatch gives Numba, once (layouts and dtypes spread over them)
    # ---- reshaping and conversions
    case("rt.reshape_like(g, a)", g=("F", 4, 3), a=R),
    case("rt.reshape_like(g, a)", g=None, a=None),
    case("rt.reshape_like(g, a)", g=(1,), a=None),
    case("rt.reshape_like(g, a)", g=None, a=(1, 1)),
    case("rt.reshape_like(g, a)", g=(), a=(1,)),
    case("rt.reshape_grad(g, a, 'C')", g=("int", 6), a=(2, 3)),
    case("rt.array_grad(g, ((x, y), (y, 1.0)))", x=None, y=None, g=(2, 2)),
    case("rt.array_grad(g, a)", a=("int", 3), g=(3,)),
    case("rt.atleast_grads(g, (x,))", x=(3,), g=(1, 3)),
    case("rt.atleast_grads(g, (x, y))", x=None, y=R, g=like(lambda x, y: np.atleast_2d(x, y))),
    case("rt.atleast_tangents((t,), z)", t=None, z=(1,)),
    case("rt.atleast_tangents((t, u), (z, w))", t=(3,), u=R, z=(1, 3), w=R),
    case("rt.transpose_grad(g, a, None)", a=B, g=("F", 4, 3, 2)),
    case("rt.transpose_grad(g, a, None)", a=(), g=()),
    case("rt.transpose_grad(g, a, (-1, 0, 1))", a=B, g=(4, 2, 3)),
    case("rt.transpose_grad(g, a, None)", a=None, g=None),
    # ---- joining and splitting
    case("rt.concatenate_grads(g, (x, y, x), -1)", x=(2, 3), y=(2, 1), g=("F", 2, 7)),
    case("rt.stack_grads(g, (x, y), 1)", x=R, y=None, g=(3, 2, 4)),
    case("rt.hstack_grads(g, (x, y))", x=None, y=(2,), g=(3,)),
    case("rt.hstack_grads(g, (x, y))", x=R, y=(3, 2), g=(3, 6)),
    case("rt.vstack_grads(g, (x, y))", x=R, y=(4,), g=(4, 4)),
    case("rt.column_stack_grads(g, (x, y))", x=R, y=(3,), g=(3, 5)),
    case("rt.dstack_grads(g, (x, y))", x=(1, 3), y=(3,), g=(1, 3, 2)),
    case("rt.split_grad((p, q, r), a, 1)", a=(2, 6), p=(2, 2), q=("F", 2, 2), r=(2, 2)),
    *[case(f"(rt.append_grad_arr(g, arr, values, {axis}), "
           f"rt.append_grad_values(g, arr, values, {axis}))", arr=sa, values=sv,
           g=like(lambda arr, values, _axis=axis: np.append(arr, values, _axis)))
      for sa, sv, axis in [(R, None, None), (None, (2,), None), (("F",) + R, (3, 2), -1)]],
    # ---- repeating and reordering
    case("rt.repeat_grad(g, a, 3, None)", a=R, g=("F", 12, 3)),
    case("rt.repeat_grad(g, a, 2, None)", a=None, g=(2,)),
    case("rt.flip_grad(g, None)", g=("int", 3, 4)),
    case("rt.flip_grad(g, None)", g=()),
    case("rt.roll_grad(g, -1, None)", g=R),
    case("rt.repeat(a, 3)", a=("int", 4)),
    case("rt.roll(a, 2, None)", a=("F",) + R),
    # ---- diagonals and indexing
    case("rt.diag_grad(g, v, -2)", v=(3,), g=like(lambda v: np.diag(v, -2))),
    case("rt.diag_grad(g, v, 1)", v=R, g=like(lambda v: np.diag(v, 1))),
    case("rt.take_grad(g, a, -2, None, 'raise')", a=("F",) + R, g=()),
    case("rt.take_grad(g, a, i, None, 'raise')", a=R, i=I22, g=(2, 2)),
    case("rt.take_grad(g, a, i, -1, 'raise')", a=B, i=I4, g=(2, 3, 4)),
    case("rt.take(a, 3, None, 'raise')", a=R),
    case("rt.take(a, i)", a=("int",) + R, i=I22),
    case("rt.take(a, i, 1, 'raise')", a=R, i=np.array([0, 2, 2])),
    case("rt.take_along_axis_grad(g, a, i, -1)", a=(2, 1, 3),   # a size-1 axis broadcast
         i=np.array([[[0, 2], [1, 1], [-1, 0], [2, 2]]] * 2), g=("F", 2, 4, 2)),
    case("rt.delete_grad(g, a, 1, None)", a=(4,), g=(3,)),
    case("rt.delete_grad(g, a, [0, -1], None)", a=R, g=(10,)),
    case("rt.delete(a, i)", a=("int",) + R, i=np.array([0, 2])),
    case("rt.sort_grad(g, a, 0)", a=("F",) + R, g=R),
    case("rt.sort_grad(g, a, None)", a=np.array([[2.0, 1.0, 2.0], [1.0, 3.0, 1.0]]),   # ties
         g=(6,)),
    case("rt.sort_permute(t, a, 1)", t=("int",) + R, a=np.array([[1.0, 0.0, 1.0, 0.5]] * 3)),
]


@pytest.mark.parametrize("call, inputs", sampled(COMPILED))
def test_numba_gives_pythons_result(call, inputs):
    check_compiled_agrees(call, inputs, rtol=1e-12, atol=1e-14)


DECLINED = [
    case("rt.reshape_grad(g, a, 'A')", g=(12,), a=("F",) + R),
    case("rt.array_grad(g, [x, y])", x=None, y=None, g=(2,)),
    case("rt.transpose_grad(g, a, [1, 0, 2])", a=B, g=(3, 2, 4)),
    case("rt.concatenate_grads(g, (x, y), None)", x=R, y=(3,), g=(15,)),
    case("rt.append_grad_values(g, [1.0, 2.0], v, None)", v=(3,), g=(5,)),
    case("rt.tile_grad(g, a, 2)", a=R, g=(3, 8)),
    case("rt.repeat_grad(g, a, r, 0)", a=R, r=np.array([1, 0, 2]), g=(3, 4)),
    case("rt.flip_grad(g, 1)", g=R),
    case("rt.roll(a, 1, 1)", a=R),
    case("rt.diagonal_grad(g, a, 1, 0, 1)", a=R, g=(3,)),
    case("rt.take_grad(g, a, [4, -5], None, 'wrap')", a=(4,), g=(2,)),
    case("rt.take(a, i, 1, 'clip')", a=R, i=np.array([0, 5])),
    case("rt.take_along_axis_grad(g, a, i, None)", a=R, i=np.array([3, 3, 0]), g=(3,)),
    case("rt.delete_grad(g, a, 1, 1)", a=R, g=(3, 3)),
    case("rt.sort_permute(t, a, 0)", t=R, a=R),
    case("rt.pad_values_grad(g, a, 1, 0.0)", a=R, g=(5, 6)),
]


@pytest.mark.parametrize("call, inputs", DECLINED)
def test_forms_numba_declines_run_as_python(call, inputs):
    result = python_result_of_declined(call, inputs)
    assert all(isinstance(leaf, (float, np.ndarray)) for leaf in leaves(result))
