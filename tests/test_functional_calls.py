"""Issue 35: `map` and `functools.partial` inside a differentiated function
(front/functional.py), tuples joined with `+` or repeated with `*` (an RNN's
`np.hstack(args + (ones,))`) and generators looped over (front/generators.py), against finite
differences, JIT on and off."""
import numpy as np
import pytest

import corpus_functional as c
from gradcheck import check_gradient

rng = np.random.default_rng(7)
XS = rng.normal(size=(4, 3))
CASES = [
    (c.map_partial_to_array, (0.7, XS), 0),
    (c.for_over_map, (0.7, XS), 0),
    (c.map_lambda_summed, (0.7, XS), 0),
    (c.map_two_sequences, (0.7, XS, rng.normal(size=(4, 3))), (0, 1)),
    (c.map_a_function_stacked, (rng.normal(size=(3, 2)), XS), (0, 1)),
    (c.partial_bound_to_a_name, (rng.normal(size=(2, 3)), rng.normal(size=2), XS), (0, 1, 2)),
    (c.partial_with_keyword_then_called, (0.7, XS[0]), (0, 1)),
    (c.partial_reads_its_argument_where_made, (0.7, XS[0]), (0, 1)),
    (c.rnn_style_update, (rng.normal(size=(6, 2)), rng.normal(size=(4, 2)),
                          rng.normal(size=(4, 3))), (0, 1, 2)),
    (c.tuple_grown_by_plus, (XS[0], XS[1]), (0, 1)),
    (c.tuple_repeated, (XS[0], XS[1]), (0, 1)),
    (c.net_over_a_generator, (rng.normal(size=11), rng.normal(size=(4, 3))), (0, 1)),
    (c.closure_generator, (rng.normal(size=13), rng.normal(size=(5, 2)),
                           rng.normal(size=(5, 1))), (0, 1)),
    (c.local_generator, (rng.normal(size=6),), 0),
]
COMPILED = {"for_over_map", "partial_bound_to_a_name", "rnn_style_update", "closure_generator"}   # compiled too (a few: compiles are slow)


@pytest.mark.parametrize("f, args, wrt", CASES, ids=[f.__name__ for f, _, _ in CASES])
def test_map_and_partial(f, args, wrt):
    check_gradient(f, args, wrt, jit=f.__name__ in COMPILED)


def test_a_partial_used_as_a_value_is_left_alone():
    """A partial returned or stored is not a call to rewrite: the later stages report it."""
    import s2sad

    def keeps(p):
        import functools
        g = functools.partial(np.multiply, p)
        return g
    with pytest.raises(s2sad.S2sadError):
        s2sad.grad(keeps, jit=False)(1.0)


def test_a_generator_loop_with_break_is_a_located_error():
    import s2sad

    def first_pair(x):
        def pairs(v):
            for i in range(len(v) - 1):
                yield v[i], v[i + 1]
        for a, b in pairs(x):
            if a > b:
                break
        return a * b
    with pytest.raises(s2sad.UnsupportedError, match="yield"):
        s2sad.grad(first_pair, jit=False)(np.array([3.0, 2.0, 1.0]))
