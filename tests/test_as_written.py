"""Code as people write it (tests/corpus_as_written.py, issue 35): every case matches central
finite differences with JIT on and off, on == off to 1e-12, and falls back to Python only where
the corpus says so."""
import warnings

import numpy as np
import pytest

import s2sad
import corpus_as_written
from gradcheck import check_gradient

CASES = corpus_as_written.CASES


@pytest.mark.parametrize("f, make_args, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_matches_finite_differences(f, make_args, wrt):
    wrt = wrt if isinstance(wrt, tuple) else (wrt,)
    jit_fn, py_fn = s2sad.grad(f, wrt=wrt, jit=True), s2sad.grad(f, wrt=wrt, jit=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", s2sad.JitFallbackWarning)
        for seed in range(2):
            check_gradient(f, make_args(np.random.default_rng(seed)), wrt, jit_fn=jit_fn,
                           py_fn=py_fn)
    fallbacks = [w for w in caught if issubclass(w.category, s2sad.JitFallbackWarning)]
    assert len(fallbacks) == (1 if f.__name__ in corpus_as_written.NOT_NUMBA else 0)
