"""rt's helpers are compiled once and loaded from Numba's disk cache by later processes
(s2sad/runtime/numba_cache.py): stamped with the whole runtime package, kept apart per Numba
setting, and possible for helpers generated from source lines. BLAS is loaded without the rest
of scipy.linalg (blas_modules.py)."""
import json
import os
import subprocess
import sys

from numba.core import dispatcher

from s2sad.runtime import cache, dispatch, numba_cache
from s2sad.runtime.buffers import keep_row

PROBE = '''
import json
import sys
import numpy as np
from numba.core import compiler

compiled = []
_compile_extra = compiler.compile_extra


def spy(typingctx, targetctx, func, *args, **kwargs):
    compiled.append(f"{func.__module__}:{func.__qualname__}")
    return _compile_extra(typingctx, targetctx, func, *args, **kwargs)


compiler.compile_extra = spy
import s2sad


def loss(w, x):
    return np.max(np.tanh(x @ w)) + np.sum(w * w)


gradient = s2sad.grad(loss, wrt=0)
value = gradient(np.linspace(0.1, 0.5, 3), np.ones((4, 3)))
assert "rt.extremum_grad" in gradient.source and "rt.matmul_grad_b" in gradient.source
print(json.dumps({"compiled": [name for name in compiled if name.startswith("s2sad.runtime")],
                  "gradient": np.ravel(value).tolist(),
                  "imported": [m for m in ("scipy.linalg", "scipy.linalg.cython_blas")
                               if m in sys.modules]}))
'''

# Numba's own implementations s2sad swaps in for cheaper error messages (dispatch.py): Numba
# registers and compiles them as its own, uncached
NUMBAS_OWN = {"s2sad.runtime.dispatch:_cheaper_axis_bounds_error.<locals>.check_axis_bounds"}


def run_probe(tmp_path, name, **env):
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    environment = dict(os.environ, S2SAD_CACHE_DIR=str(tmp_path / name),
                       NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    environment.pop("NUMBA_OPT", None)
    environment.update(env)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=environment, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_second_process_loads_the_helpers_and_another_opt_level_compiles_its_own(tmp_path):
    first = run_probe(tmp_path, "first")
    assert set(first["compiled"]) - NUMBAS_OWN, "the gradient calls rt helpers"
    second = run_probe(tmp_path, "second")      # a new function cache: only helpers are shared
    assert set(second["compiled"]) <= NUMBAS_OWN
    unoptimised = run_probe(tmp_path, "third", NUMBA_OPT="0")
    assert set(unoptimised["compiled"]) - NUMBAS_OWN, "NUMBA_OPT=0 code must not serve O3"
    assert first["gradient"] == second["gradient"] == unoptimised["gradient"]
    # the matrix product found BLAS without the package scipy.linalg (blas_modules.py)
    assert first["imported"] == second["imported"] == ["scipy.linalg.cython_blas"]


def cache_for(func):
    assert numba_cache.install_helper_cache()
    return dispatcher.FunctionCache(func)


def test_helpers_are_stamped_with_the_whole_runtime_and_cached_in_checked_files():
    helper_cache = cache_for(keep_row)
    assert helper_cache._impl.locator.get_source_stamp() == cache.fingerprint()
    assert type(helper_cache._cache_file) is numba_cache._checked_cache_class()


def test_a_generated_helper_is_cached_by_the_digest_of_its_text():
    one = dispatch.generate("twice", ["x"], ["return 2 * x"], {})
    other = dispatch.generate("twice", ["x"], ["return x + x"], {})
    assert one.__module__.startswith("s2sad.runtime.")
    names = {cache_for(f)._impl.filename_base for f in (one, other)}
    assert len(names) == 2


def test_functions_outside_the_runtime_keep_numbas_own_cache():
    def user_function(x):
        return x

    assert type(cache_for(user_function)).__name__ == "FunctionCache"


def test_scipy_linalg_imported_after_blas_alone_is_whole():
    script = ("import sys, numpy as np\n"
              "from s2sad.runtime import blas_modules\n"
              "blas_modules.load_alone()\n"
              "loaded = sys.modules['scipy.linalg.cython_blas']\n"
              "assert 'scipy.linalg' not in sys.modules\n"
              "import scipy.linalg\n"
              "from scipy.linalg import cython_blas\n"
              "assert cython_blas is loaded and '__pyx_capi__' in vars(cython_blas)\n"
              "a = np.arange(4.0).reshape(2, 2)\n"
              "assert np.allclose(scipy.linalg.inv(a) @ a, np.eye(2))\n"
              "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.strip() == "ok", done.stderr[-3000:]
