"""Generated files are content-addressed; a second process loads compiled code from the disk
cache instead of recompiling; a changed callee gives its caller a new file."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np

import s2sad
from s2sad.runtime import jit
from s2sad.transform import pipeline

HERE = os.path.dirname(os.path.abspath(__file__))

PROBE = textwrap.dedent("""
    import json, sys, time
    sys.path.insert(0, {here!r})
    start = time.perf_counter()
    import numpy as np, s2sad
    from examples_api import f
    from s2sad.runtime import jit
    gradient = s2sad.grad(f, wrt=(0, 1))
    dx, dw = gradient(np.array([0.3, -1.2, 0.7]), 0.9)
    elapsed = time.perf_counter() - start
    dispatcher = getattr(jit.load(gradient.path, jit.JIT), gradient.generated.function)
    stats = dispatcher.stats
    print(json.dumps({{"hits": sum(stats.cache_hits.values()),
                      "misses": sum(stats.cache_misses.values()), "seconds": elapsed,
                      "path": gradient.path, "dw": dw}}))
""")


def run_probe(cache_dir):
    env = dict(os.environ, S2SAD_CACHE_DIR=str(cache_dir))
    env.pop("S2SAD_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", PROBE.format(here=HERE)], env=env,
                         capture_output=True, text=True, timeout=300, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_second_process_loads_from_the_disk_cache(tmp_path):
    first = run_probe(tmp_path)
    second = run_probe(tmp_path)
    assert first["misses"] >= 1 and first["hits"] == 0
    assert second["hits"] >= 1 and second["misses"] == 0, second
    assert second["path"] == first["path"] and second["dw"] == first["dw"]


def _write_module(directory, name, body):
    path = directory / f"{name}.py"
    path.write_text(textwrap.dedent(body))
    sys.path.insert(0, str(directory))
    try:
        return __import__(name)
    finally:
        sys.path.remove(str(directory))


def test_changed_callee_gives_the_caller_a_new_file(tmp_path):
    caller = """
        def helper(x):
            return x * {factor}

        def f(x):
            return helper(x) * x
        """
    old = _write_module(tmp_path, "callee_v1", caller.format(factor=2.0))
    new = _write_module(tmp_path, "callee_v2", caller.format(factor=3.0))
    old_grad, new_grad = s2sad.grad(old.f), s2sad.grad(new.f)
    assert old_grad.path != new_grad.path
    assert old_grad(1.5) == 6.0 and new_grad(1.5) == 9.0


def test_files_are_content_addressed_and_not_rewritten():
    from examples_api import f
    from s2sad.runtime import cache
    generated = pipeline.adjoint(f, (0,))
    stamp = os.stat(generated.path).st_mtime_ns
    assert cache.store("f__d_x", generated.text) == generated.path
    assert os.stat(generated.path).st_mtime_ns == stamp
    assert jit.load(generated.path, jit.PY) is jit.load(generated.path, jit.PY)
    value, dx = jit.load(generated.path, jit.PY).df(np.ones(2), 0.5, 1.0)
    assert np.isfinite(value) and dx.shape == (2,)
