"""Library code as written (tests/corpus_written_calls.py, issue 35): `**kwargs`, `try`, tests
decided when the function is transformed, callees a dict crosses put in place. Every case
matches finite differences as Python; those in corpus_written_calls.COMPILED also compiled
(JIT on == off, no fallback to Python)."""
import textwrap
import warnings

import numpy as np
import pytest

import s2sad
import corpus_written_calls as corpus
from gradcheck import check_gradient

CASES = corpus.CASES


@pytest.mark.parametrize("k", range(len(CASES)), ids=[c[0].__name__ for c in CASES])
def test_gradient_matches_finite_differences(k):
    f, make_args, wrt = CASES[k]
    jit = f.__name__ in corpus.COMPILED
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", s2sad.JitFallbackWarning)
        for seed in range(2):
            check_gradient(f, make_args(np.random.default_rng(seed)), wrt, jit=jit)
    assert not [w for w in caught if issubclass(w.category, s2sad.JitFallbackWarning)]


def test_an_objects_options_and_callback_are_decided_when_transformed():
    """`names is None`, `self.n_constraints > 0`, `self.callback is not None`, `len(names) ==
    1`: decided, so the generated code holds only the arithmetic, inlined from the methods."""
    grad = s2sad.grad(corpus.objective_value, jit=False)
    grad(np.ones(3))
    code = "\n".join(line for line in s2sad.source(grad).splitlines()
                     if not line.strip().startswith("#"))
    assert "callback" not in code and "evaluate(" not in code and "_compute(" not in code


def test_a_callback_that_is_set_is_called_as_python():
    seen = []
    problem = corpus.WeightedSphere(3, callback=lambda x, out: seen.append(out["f"]))

    def f(x):
        return problem.evaluate(x)

    with pytest.raises(s2sad.UnsupportedError, match="callback"):
        s2sad.grad(f, jit=False)(np.ones(3))


def test_a_none_test_of_an_argument_stays_a_test(tmp_path):
    """A parameter may be None when the function runs: its test is not decided now."""
    module = _module(tmp_path, """
        import numpy as np

        def scaled(x, w):
            if w is None:
                return np.sum(x ** 2)
            return np.sum(w * x ** 2)

        def f(x, w):
            return scaled(x, w) + scaled(x, None)
    """)
    x, w = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    check_gradient(module.f, (x, w), (0, 1), jit=False)


def test_a_dict_argument_spread_into_keywords(tmp_path):
    module = _module(tmp_path, """
        import numpy as np

        def g(x, scale=1.0, shift=0.0):
            return scale * np.sum(np.sin(x)) + shift

        def f(x, options):
            return g(x, **options)
    """)
    options = {"scale": 2.0, "shift": 0.5}
    check_gradient(module.f, (np.array([0.5, -1.0, 2.0]), options), (0, 1), jit=False)


def test_isinstance_of_a_list_a_library_returns_stays_a_test(tmp_path):
    module = _module(tmp_path, """
        import numpy as np

        def f(x):
            parts = np.split(x, 2)
            if isinstance(parts, list):
                return np.sum(parts[0] ** 2) + np.sum(parts[1])
            return np.sum(x)
    """)
    check_gradient(module.f, (np.array([0.5, -1.0, 2.0, 3.0]),), 0, jit=False)


def test_an_assert_message_with_values_compiles(tmp_path):
    module = _module(tmp_path, """
        import numpy as np

        def f(x, n):
            assert x.shape[0] == n, f"expected {n} values, got {x.shape[0]}"
            return np.sum(np.sin(x))
    """)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)
        grad = s2sad.grad(module.f, jit=True)
        assert np.allclose(grad(np.ones(3), 3), np.cos(np.ones(3)))
        with pytest.raises(AssertionError, match="expected 4 values, got 3"):
            grad(np.ones(3), 4)


@pytest.mark.parametrize("body, message", [
    ("""
        def f(x):
            try:
                y = np.log(x)
            except FloatingPointError:
                y = x
            return np.sum(y)
     """, "a `try` whose body may raise an exception that a handler catches"),
    ("""
        def g(x, scale=1.0):
            return scale * np.sum(x)

        def f(x):
            return g(x, **x)
     """, "`**` in a call needs a dict known when the function is transformed"),
    ("""
        def f(x):
            weights = {"a": 1.0, "b": 2.0}
            total = 0.0
            for name, w in weights.items():
                if x[0] > 0:
                    continue
                total = total + w * np.sum(x)
            return total
     """, "`continue` under a test known only when the function runs"),
])
def test_what_cannot_be_decided_is_a_located_error(tmp_path, body, message):
    module = _module(tmp_path, "import numpy as np\n" + textwrap.dedent(body))
    with pytest.raises(s2sad.UnsupportedError) as info:
        s2sad.grad(module.f, jit=False)(np.ones(3))
    assert message in str(info.value)
    assert "user_code.py:" in str(info.value)


def _module(tmp_path, text):
    import importlib.util
    path = tmp_path / "user_code.py"
    path.write_text(textwrap.dedent(text))
    spec = importlib.util.spec_from_file_location(f"user_code_{abs(hash(text))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
