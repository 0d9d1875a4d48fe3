"""Large generated callees and rt helpers are called by their symbols, not linked into each
caller (s2sad/runtime/calls_by_symbol.py): the caller's module declares them and holds no copy;
a later process loads the caller from Numba's disk cache, its callees first; small callees are
linked as before. Gradients against finite differences, JIT on == off."""
import json
import os
import subprocess
import sys

import numpy as np

from s2sad.runtime import calls_by_symbol

from gradcheck import assert_close, check_gradient, finite_difference


# (each returns in two places, so that s2sad keeps it a call rather than inlining it)
def inner(x, w):
    if x[0] > 100.0:
        return np.sum(x)
    h = np.tanh(x * w)
    return np.sum(h * h) + np.sum(np.sin(w) * x)


def middle(x, w):
    if w[0] > 100.0:
        return np.sum(w)
    return inner(x, w) * inner(w, x) + np.sum(x)


def outer(x, w):
    return middle(x, w) + 0.5 * inner(x + 1.0, w)


def twice(x, w):   # (its own callee: a compiled form is registered once per process)
    if x[0] > 100.0:
        return np.sum(w)
    return 2.0 * np.sum(np.tanh(x * w))


def calls_twice(x, w):
    return twice(x, w) + np.sum(x * x)


def gp(log_ell, X, y):   # (rt's cholesky and solve gradients are large helpers)
    d = X[:, None, :] - X[None, :, :]
    K = np.exp(-0.5 * np.sum(d * d, axis=2) / np.exp(2.0 * log_ell)) + 0.1 * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L, y)
    return alpha @ alpha + np.sum(np.log(np.diag(L)))


def _gp_args():
    rng = np.random.default_rng(3)
    return 0.3, rng.normal(size=(6, 2)), rng.normal(size=6)


def _args():
    rng = np.random.default_rng(7)
    return rng.normal(size=5), rng.normal(size=5)


def _compiled_ir(directory, name):
    """The LLVM IR of the compiled forms of generated function `name` made in `directory`."""
    from s2sad.runtime import jit
    for (path, flavour), module in list(jit._modules.items()):
        dispatcher = getattr(module, name, None)
        if flavour == jit.JIT and path.startswith(str(directory)) and dispatcher is not None:
            return "\n".join(dispatcher.inspect_llvm().values())
    raise AssertionError(f"{name} was not compiled in {directory}")


def _declared(ir, prefix="@_s2sad_"):
    """The generated functions (or with prefix "@_s2sad_rt_", rt's helpers) `ir` calls by
    symbol."""
    return [line for line in ir.splitlines() if line.startswith("declare") and prefix in line
            and (prefix != "@_s2sad_" or "@_s2sad_rt_" not in line)]


def _callees_defined(ir):
    return [line for line in ir.splitlines()
            if line.startswith("define") and ("middle" in line or "inner" in line)]


def test_symbol_is_the_same_in_every_process():
    import numba
    types = (numba.typeof(np.ones(3)), numba.float64)
    assert calls_by_symbol.symbol("/a/f__d_x__0123.py", "df", types) == \
        calls_by_symbol.symbol("/b/f__d_x__0123.py", "df", types)
    assert calls_by_symbol.symbol("/a/f__d_x__0123.py", "df", types) != \
        calls_by_symbol.symbol("/a/f__d_x__0123.py", "df", types[:1])


def test_small_callees_are_still_linked(monkeypatch, tmp_path):
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(calls_by_symbol, "LINK_BELOW", 10 ** 12)
    check_gradient(calls_twice, _args(), (0,))
    ir = _compiled_ir(tmp_path, "dcalls_twice")
    assert not _declared(ir)
    assert [line for line in ir.splitlines() if line.startswith("define") and "twice" in line
            and "calls_twice" not in line], "dtwice is linked into it"


PROBE = '''
import json, sys
import numpy as np
sys.path.insert(0, {tests!r})
import s2sad
from s2sad.runtime import calls_by_symbol
calls_by_symbol.LINK_BELOW = calls_by_symbol.HELPER_LINK_BELOW = 0   # every one counts as large
import test_calls_by_symbol as here
from numba.core import compiler
compiled = []
_compile_extra = compiler.compile_extra
def spy(typingctx, targetctx, func, *args, **kwargs):
    compiled.append(func.__qualname__)
    return _compile_extra(typingctx, targetctx, func, *args, **kwargs)
compiler.compile_extra = spy
x, w = here._args()
value = s2sad.grad(here.outer, wrt=(0, 1), jit=True)(x, w)
value += s2sad.grad(here.gp, wrt=(0, 1), jit=True)(*here._gp_args())
ir = here._compiled_ir({cache!r}, "douter"), here._compiled_ir({cache!r}, "dgp")
print(json.dumps({{"gradient": [np.ravel(v).tolist() for v in value],
                  "generated_declared": len(here._declared(ir[0])),
                  "callees_defined": len(here._callees_defined(ir[0])),
                  "helpers_declared": len(here._declared(ir[1], "@_s2sad_rt_")),
                  "compiled": [c for c in compiled if c.startswith(("d", "outer", "middle",
                                                                     "inner", "gp"))]}}))
'''


def test_large_callees_and_helpers_are_called_by_symbol_and_loaded_from_the_cache(tmp_path):
    """In processes of their own, optimised (Numba caches nothing it compiles at level 0, the
    tests' setting, and only what it caches is called by symbol): the first compiles, the
    second loads the gradient, its callees and rt's helpers from the caches."""
    cache = tmp_path / "cache"
    script = tmp_path / "probe.py"
    script.write_text(PROBE.format(tests=os.path.dirname(os.path.abspath(__file__)),
                                   cache=str(cache)))
    env = dict(os.environ, S2SAD_CACHE_DIR=str(cache), NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    env.pop("NUMBA_OPT", None)
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              env=env, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    first, second = runs   # (the IR is the first's: a function loaded from the cache has none)
    assert first["generated_declared"] == 4, "douter calls its 4 callees by symbol"
    assert first["callees_defined"] == 0, "and holds no copy of them"
    assert first["helpers_declared"] > 0, "dgp calls rt's helpers by symbol"
    assert first["compiled"], "the first process compiles the gradients and their callees"
    assert second["compiled"] == [], "the second loads all of them from the cache"
    assert second["gradient"] == first["gradient"]
    x, w = _args()
    got = [np.array(g) for g in first["gradient"]]
    for k in (0, 1):
        assert_close(got[k], finite_difference(outer, (x, w), k), what=f"outer d/d{k}")
    for k, position in ((2, 0), (3, 1)):
        expected = np.ravel(finite_difference(gp, _gp_args(), position))
        assert_close(got[k], expected, what=f"gp d/d{position}")


def chain_one(x, v, k):
    for _ in range(20):
        f = np.concatenate((np.zeros(1), k * (x[1:] - x[:-1])))
        v = v + 0.05 * f
        x = x + 0.05 * v
    return np.sum(x * x) + np.sum(v * v)


def chain_two(x, v, k):   # (the same helpers as chain_one, another gradient)
    for _ in range(20):
        f = np.concatenate((k * np.tanh(x[1:] - x[:-1]), np.zeros(1)))
        v = v + 0.05 * f
        x = x + 0.05 * v
    return np.sum(x * x) + np.sum(v * v)


CHAIN_PROBE = '''
import json, sys, warnings
import numpy as np
sys.path.insert(0, {tests!r})
import s2sad
import test_calls_by_symbol as here
warnings.simplefilter("error", s2sad.JitFallbackWarning)
x, v = np.linspace(0.0, 1.0, 8), np.linspace(0.5, -0.5, 8)
value = s2sad.grad(getattr(here, sys.argv[1]), wrt=(0, 1, 2), jit=True)(x, v, 0.7)
print(json.dumps([np.ravel(g).tolist() for g in value]))
'''


def test_a_cached_caller_of_helpers_loaded_from_the_cache_loads_their_callees(tmp_path):
    """Helpers loaded from the cache and linked into a new gradient pass on the reload steps
    of what they call by symbol: a third process loading that gradient ran, before, with an
    undefined symbol (address 0: a crash; now a located failure would fall back)."""
    script = tmp_path / "probe.py"
    script.write_text(CHAIN_PROBE.format(tests=os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, S2SAD_CACHE_DIR=str(tmp_path / "cache"),
               NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    env.pop("NUMBA_OPT", None)
    out = []
    for name in ("chain_one", "chain_two", "chain_two"):
        done = subprocess.run([sys.executable, str(script), name], capture_output=True,
                              text=True, env=env, timeout=600)
        assert done.returncode == 0, (name, done.returncode, done.stderr[-3000:])
        out.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert out[2] == out[1]
