"""Issue 37: the tiered default (runtime/tiers.py). The first call answers from the generated
Python while a child process compiles the same file; calls switch to the compiled function
once it is ready, with the same numbers; a failed background compile leaves Python with one
warning; a process exiting mid-compile leaves no child behind; processes share one cache."""
import importlib.util
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import s2sad
from s2sad.runtime import jit as jit_module, tiers

SOURCE = '''
import numpy as np


def f(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + np.tanh(x[i] * w) ** 2
    return s + np.sum(np.sin(x) * w)
'''


@pytest.fixture
def tiered(monkeypatch):
    monkeypatch.setenv(tiers.ENV_SWITCH, "1")


def _fresh(tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _runner(gradient):
    (runner,) = gradient._runners.values()
    return runner


def test_first_calls_run_python_then_switch_to_compiled(tmp_path, tiered):
    module = _fresh(tmp_path, "tier_switch")
    x = np.linspace(0.1, 0.9, 5)
    g = s2sad.grad(module.f, wrt=(0, 1))
    first = g(x, 0.7)
    runner = _runner(g)
    assert runner.jit == jit_module.TIERED and runner.compiled([x, 0.7, 1.0]) is None
    (job,) = runner._background.values()
    job.wait()  # (a call would wait by itself only for slow Python calls)
    switched = g(x, 0.7)
    assert runner.compiled([x, 0.7, 1.0]) is not None   # compiled from now on
    python = s2sad.grad(module.f, wrt=(0, 1), jit=False)(x, 0.7)
    for a, b, c in zip(first, switched, python):
        assert np.allclose(a, c, rtol=1e-12, atol=0) and np.allclose(b, c, rtol=1e-12, atol=0)


def test_a_failed_background_compile_leaves_python_with_one_warning(tmp_path, tiered,
                                                                     monkeypatch):
    module = _fresh(tmp_path, "tier_fails")
    real = subprocess.Popen

    def failing(argv, **options):  # the child says what Numba would have said, and fails
        return real([sys.executable, "-c", "import sys; sys.exit('TypingError: no luck')"],
                    **options)

    monkeypatch.setattr(tiers.subprocess, "Popen", failing)
    x = np.linspace(0.1, 0.9, 5)
    g = s2sad.grad(module.f)
    expected = s2sad.grad(module.f, jit=False)(x, 0.7)
    assert np.allclose(g(x, 0.7), expected, rtol=1e-12)
    (job,) = _runner(g)._background.values()
    job.wait()
    with pytest.warns(s2sad.JitFallbackWarning, match="(?s)in the background.*no luck"):
        assert np.allclose(g(x, 0.7), expected, rtol=1e-12)
    assert _runner(g).jit is False
    assert np.allclose(g(x, 0.7), expected, rtol=1e-12)


SCRIPT = """
import os, sys
import numpy as np
import s2sad
sys.path.insert(0, {directory!r})
import {name} as module
g = s2sad.grad(module.f)
print(g(np.linspace(0.1, 0.9, 5), 0.7)[0])
(runner,) = g._runners.values()
(job,) = runner._background.values()
print(job.process.pid, flush=True)
{tail}
"""


def _script(tmp_path, name, tail, cache):
    _fresh(tmp_path, name)
    text = SCRIPT.format(directory=str(tmp_path), name=name, tail=tail)
    env = dict(os.environ, S2SAD_BACKGROUND_COMPILE="1", S2SAD_CACHE_DIR=str(cache))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(text)], env=env,
                          capture_output=True, text=True, timeout=300)


def test_a_process_exiting_mid_compile_leaves_no_child(tmp_path):
    done = _script(tmp_path, "tier_exit", "", tmp_path / "cache")   # exits at once
    assert done.returncode == 0, done.stderr
    pid = int(done.stdout.split()[-1])
    time.sleep(0.5)
    with pytest.raises(ProcessLookupError):  # stopped and reaped: not running, no zombie
        os.kill(pid, 0)


def test_processes_share_one_cache(tmp_path):
    cache = tmp_path / "shared"
    wait = "job.wait(); print(g(np.linspace(0.1, 0.9, 5), 0.7)[0])"
    runs = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(SCRIPT.format(
        directory=str(tmp_path), name=name, tail=wait))], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env=dict(
            os.environ, S2SAD_BACKGROUND_COMPILE="1", S2SAD_CACHE_DIR=str(cache)))
        for name in [_fresh(tmp_path, "tier_shared").__name__] * 2]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert all(run.returncode == 0 for run in runs), [err for _, err in outputs]
    values = {tuple(out.split()[i] for i in (0, 2)) for out, _ in outputs}
    assert len(values) == 1 and len(set(next(iter(values)))) == 1   # same numbers, each tier
