"""The building blocks Numba compiles as loops and Python runs as NumPy calls
(`dispatch.compiled_as`) give the same numbers: each pair run as Python, and compiled.
`make test` compiles a sample of the cases (sweeps.py: of each pair's, the first and every
third), `make verify` all of them."""
import numba
import numpy as np
import pytest

import sweeps
from s2sad.runtime import arrays, buffers, core, dispatch, indexing, shape, special

dispatch.install()
RNG = np.random.default_rng(7)


def _x(*shape):
    return RNG.uniform(-3.0, 3.0, shape)


def _strided(*shape):
    return _x(*shape[:-1], 2 * shape[-1])[..., ::2]


CASES = {
    "reduce_to trailing": (arrays.reduce_to, lambda: (_x(2, 3, 4), (3, 1))),
    "reduce_to same rank": (arrays.reduce_to, lambda: (np.asfortranarray(_x(3, 4)), (1, 4))),
    "reduce_to strided": (arrays.reduce_to, lambda: (_strided(2, 3), (3,))),
    "expand_to": (arrays.expand_to,
                  lambda: (_x(3), np.array([False, True, False]), (2, 3, 4))),
    "expand_to all": (arrays.expand_to, lambda: (_x(1), np.array([False, False]), (2, 3))),
    "flat_copy F": (arrays.flat_copy, lambda: (np.asfortranarray(_x(3, 4)),)),
    "flat_copy 0-d": (arrays.flat_copy, lambda: (np.array(2.5),)),
    "scatter_rows repeated": (core.scatter_rows,
                              lambda: (np.zeros((4, 2)), np.array([0, 2, 0, 3]), _x(4, 2))),
    "example of a batch of rows": (buffers.example, lambda: (_x(4, 2), 1)),
    "push_entry strided, growing": (buffers.push_entry, lambda: (
        (_x(5), np.array([[5, 0, 0], [0, 1, 4]]), np.empty((0, 0))), 1, _strided(2, 3))),
    "push_entry F, first": (buffers.push_entry, lambda: (
        (np.empty(0), np.zeros((1, 3), np.int64), np.empty((0, 0))), 0,
        np.asfortranarray(_x(3, 4)))),
    "scatter_value repeated": (core.scatter_value,
                               lambda: (np.zeros(5), np.array([1, 1, 4]), 0.5)),
    "digamma_array": (special.digamma_array,
                      lambda: (np.array([[0.3, 2.0, -1.5], [7.5, 1e-3, -2.0]]),)),
    "sinc_grad_array": (special.sinc_grad_array, lambda: (np.array([0.0, 5e-5, -0.3, 2.7]),)),
    "polygamma_array": (special.polygamma_array, lambda: (2, np.array([0.4, 3.0, 11.5]))),
    "polygamma_array n=0": (special.polygamma_array, lambda: (0, np.array([0.4, -3.5]))),
    "sinc_deriv_array": (special.sinc_deriv_array, lambda: (3, np.array([0.2, -0.9, 4.1]))),
    "copies_summed": (shape.copies_summed, lambda: (_x(2, 6), 4, 3)),
    "copies_summed none": (shape.copies_summed, lambda: (np.zeros(0), 3, 0)),
    "scatter_lines wrap": (indexing.scatter_lines,
                           lambda: (np.zeros((2, 4, 3)), np.array([0, 5, -6, 3]), _x(2, 4, 3),
                                    "wrap")),
    "scatter_lines raise": (indexing.scatter_lines,
                            lambda: (np.zeros((2, 4, 3)), np.array([0, 3, 3, -1]), _x(2, 4, 3),
                                     "raise")),
    "scatter_lines clip": (indexing.scatter_lines,
                           lambda: (np.zeros((3, 4, 2)), np.array([-2, 9]), _x(3, 2, 2), "clip")),
    "scatter_along_axis broadcast": (indexing.scatter_along_axis,
                                     lambda: (np.zeros((2, 1, 3)), np.array([[[0, 0, 2]]]),
                                              _x(2, 1, 3), 2)),
    "scatter_along_axis": (indexing.scatter_along_axis,
                           lambda: (np.zeros((3, 4)), np.array([[0, 2], [1, 1], [3, -4]]),
                                    _x(3, 2), 1)),
    "sort_scatter": (indexing.sort_scatter, lambda: (_x(2, 3, 4), np.round(_x(2, 3, 4)), 1)),
    "sorted_like": (indexing.sorted_like, lambda: (_x(3, 5), np.round(_x(3, 5)))),
}
_PAIRS = {func: loop for func, loop in dispatch.compiled_pairs()}


def _compiled(func, count):
    arguments = ", ".join(f"a{k}" for k in range(count))
    scope = {"func": func}
    exec(f"def call({arguments}):\n    return func({arguments})\n", scope)
    return numba.njit(scope["call"])


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else
            tuple(_copies(a)) if isinstance(a, tuple) else a for a in args]


def _result(func, args):
    out = func(*args)
    if isinstance(out, tuple):  # a stack of rt.entries: what is used of it (the rest is unset)
        data, index, _ = out
        return np.concatenate([data[:index[0, 0]], index[:args[1] + 2].ravel()])
    # the scatters add into their first argument and return nothing
    return args[0] if out is None else out


def test_every_pair_has_a_case():
    assert set(_PAIRS) == {func for func, _ in CASES.values()}


@pytest.mark.parametrize("case", sweeps.sample(sorted(CASES), key=lambda name: CASES[name][0]))
def test_python_and_compiled_agree(case):
    func, make = CASES[case]
    args = make()
    numpy_form = _result(func, _copies(args))
    loop_form = _result(_PAIRS[func], _copies(args))
    compiled = _result(_compiled(func, len(args)), _copies(args))
    for other in (loop_form, compiled):
        assert np.shape(other) == np.shape(numpy_form)
        np.testing.assert_allclose(other, numpy_form, rtol=1e-13, atol=1e-14, equal_nan=True)
    assert isinstance(numpy_form, np.ndarray) and numpy_form.dtype == np.float64
