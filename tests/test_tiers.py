"""Issue 37: the tiered default (runtime/tiers.py). The first call answers from the generated
Python while a child process compiles the same file; calls switch to the compiled function
once it is ready, with the same numbers; a failed background compile leaves Python with one
warning; a process exiting mid-compile leaves no child behind; processes share one cache."""
import importlib.util
import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import s2sad
from s2sad.runtime import jit as jit_module, tier_policy, tier_worker, tiers

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

    tiers.workers.stop_all()   # (a warm worker of an earlier test would compile it)
    monkeypatch.setattr(tier_worker.subprocess, "Popen", failing)
    monkeypatch.setattr(tier_worker.tier_fork, "possible", lambda: False)
    x = np.linspace(0.1, 0.9, 5)
    g = s2sad.grad(module.f)
    expected = s2sad.grad(module.f, jit=False)(x, 0.7)
    assert np.allclose(g(x, 0.7), expected, rtol=1e-12)
    (job,) = _runner(g)._background.values()
    job.wait()
    with pytest.warns(s2sad.JitFallbackWarning, match="(?s)Numba could not compile.*no luck"):
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


def test_threads_calling_a_tiered_gradient_start_one_child_and_agree(tmp_path, tiered):
    import threading
    module = _fresh(tmp_path, "tier_threads")
    x = np.linspace(0.1, 0.9, 5)
    g = s2sad.grad(module.f, wrt=(0, 1))
    results, errors = [], []

    def work():
        try:
            for _ in range(3):
                results.append(g(x, 0.7))
        except Exception as exc:  # noqa: BLE001 -- reported below
            errors.append(repr(exc))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    runner = _runner(g)
    assert len(runner._background) == 1      # one child for one kind of arguments
    next(iter(runner._background.values())).stop()   # (the switch: the test above)
    python = s2sad.grad(module.f, wrt=(0, 1), jit=False)(x, 0.7)
    for dx, dw in results:
        assert np.allclose(dx, python[0], rtol=1e-12, atol=0)
        assert np.isclose(dw, python[1], rtol=1e-12, atol=0)


def test_the_wait_policy():
    """Ski rental: Python again until the time spent in Python since the compile was queued
    reaches what waiting would cost now (the compile's remaining time, and the switch's)."""
    assert not tier_policy.should_wait(0.2, remaining=3.0)
    assert tier_policy.should_wait(3.0, remaining=3.0)
    assert tier_policy.should_wait(0.2, remaining=0.1)
    assert not tier_policy.should_wait(0.2, remaining=0.1, switch=0.5)
    assert tier_policy.should_wait(0.0, remaining=0.0)        # done: switch at once


def test_compile_times_foresee_the_next_compile(tmp_path, monkeypatch):
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(tmp_path / "cache"))
    times = tier_policy.CompileTimes()
    model = tier_policy.compile_cost(40, 3)
    assert times.expected(40, 3) == pytest.approx(model)   # no history: the cost model
    for lines, callees, ratio in [(10, 1, 1.0), (20, 0, 3.0), (40, 5, 2.0), (5, 2, 0.5)]:
        times.record(lines, callees, ratio * tier_policy.compile_cost(lines, callees))
    # calibrated by the upper quartile of measured / foreseen (it errs long: should_wait)
    assert times.expected(40, 3) == pytest.approx(3.0 * model)
    (tmp_path / "cache" / "compile_times.json").write_text("not json")
    assert times.expected(40, 3) == pytest.approx(model)   # a damaged history is no history


def test_the_size_of_a_compile(tmp_path):
    path = tmp_path / "g.py"
    path.write_text("# a comment\nimport numpy\ndef g(x):\n    y = numpy.sin(x) + rt.unbroadcast"
                    "(x, x)\n\n    return numpy.sin(y) + numpy.linalg.solve(x, y)\n")
    assert tier_policy.compile_size(str(path)) == (4, 3)


def test_a_finished_child_records_its_compile_time(tmp_path, tiered, monkeypatch):
    tiers.workers.stop_all()   # (an earlier test's compile would finish and record here too)
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(tmp_path / "cache"))
    module = _fresh(tmp_path, "tier_history")
    g = s2sad.grad(module.f)
    g(np.linspace(0.1, 0.9, 5), 0.7)
    (job,) = _runner(g)._background.values()
    job.wait()
    assert job.succeeded
    # a new generated file (in a new cache directory): the child compiled it, and says how long
    assert tier_policy.history._read() == [(*job.size, job.report["seconds"])]


def test_a_warm_worker_compiles_one_job_after_another(tmp_path, tiered):
    """Made with the gradient function, the worker imports Numba before the first call; after
    a job it stays for the next one (another function, or the same one for other types)."""
    tiers.workers.stop_all()   # (a compile an earlier test left running keeps its worker busy)
    module = _fresh(tmp_path, "tier_warm")
    g = s2sad.grad(module.f)
    assert tiers.workers.idle and tiers.workers.idle[0].fits()   # started with g
    x = np.linspace(0.1, 0.9, 5)
    g(x, 0.7)
    (first,) = _runner(g)._background.values()
    first.wait()
    assert first.succeeded
    h = s2sad.grad(module.f, wrt=1)
    h(x, 0.7)
    (second,) = _runner(h)._background.values()
    second.wait()
    assert second.succeeded and second.process.pid == first.process.pid   # the same worker
    python = s2sad.grad(module.f, wrt=1, jit=False)(x, 0.7)
    assert np.isclose(h(x, 0.7), python, rtol=1e-12, atol=0) and _runner(h).runs_compiled


def test_a_worker_ends_when_its_parent_dies(tmp_path):
    """Killed without a chance to clean up, the parent leaves its worker without input: the
    worker sees it end and exits."""
    _fresh(tmp_path, "tier_orphan")
    script = textwrap.dedent(f"""
        import os, signal, sys
        sys.path.insert(0, {str(tmp_path)!r})
        import s2sad
        from s2sad.runtime import tiers
        import tier_orphan
        g = s2sad.grad(tier_orphan.f)
        print(tiers.workers.idle[0].process.pid, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    env = dict(os.environ, S2SAD_BACKGROUND_COMPILE="1", S2SAD_CACHE_DIR=str(tmp_path / "c"))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=120)
    pid = int(done.stdout.split()[0])
    for _ in range(100):   # it may still be importing Numba: it reads its input after that
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    raise AssertionError(f"worker {pid} still runs 10 s after its parent died")


def test_a_forked_process_does_not_use_its_parents_workers(monkeypatch, tiered):
    tiers.warm()
    parents = list(tiers.workers.idle)
    monkeypatch.setattr(tiers.workers, "pid", -1)   # as if this process were a fork's child
    try:
        tiers.workers.warm()
        assert tiers.workers.pid == os.getpid() and len(tiers.workers.idle) == 1
        assert tiers.workers.idle[0] not in parents
    finally:
        tiers.workers.stop_all()
        for parent in parents:
            parent.stop()


def test_loading_the_compiled_flavour_does_not_hold_up_a_python_call(tmp_path, monkeypatch):
    """The tiered first call runs the Python flavour while a thread loads the Numba one (which
    imports Numba): the Python call must not wait for it (it did, behind the syntax lock)."""
    module = _fresh(tmp_path, "tier_no_wait")
    x = np.linspace(0.1, 0.9, 5)
    g = s2sad.grad(module.f, jit=False)
    expected = g(x, 0.7)
    path = _runner(g).path
    jit_module._modules.pop((path, jit_module.PY), None)   # as if not loaded yet
    numba_loading, release = threading.Event(), threading.Event()
    real = jit_module._compile_lazily

    def slow(module_, name):   # stands for Numba's import, 0.3 s or more
        numba_loading.set()
        release.wait(60)
        real(module_, name)

    monkeypatch.setattr(jit_module, "_compile_lazily", slow)
    loader = threading.Thread(target=jit_module.load, args=(path, jit_module.JIT))
    loader.start()
    try:
        assert numba_loading.wait(60)
        answers = []
        python = threading.Thread(target=lambda: answers.append(
            getattr(jit_module.load(path, jit_module.PY), _runner(g).function_name)))
        python.start()
        python.join(30)
        assert answers, "loading the Python flavour waited for the Numba flavour's load"
    finally:
        release.set()
        loader.join(60)
    assert np.allclose(g(x, 0.7), expected, rtol=1e-12, atol=0)


FORKED = """
import sys
import numpy as np
import s2sad
from s2sad.runtime import tier_fork
sys.path.insert(0, {directory!r})
import tier_forked as module
print("written before, not flushed", end=" ")
g = s2sad.grad(module.f)
x = np.linspace(0.1, 0.9, 5)
g(x, 0.7)
(runner,) = g._runners.values()
(job,) = runner._background.values()
job.wait()
assert isinstance(job.process, tier_fork.ForkedProcess), type(job.process)
print(g(x, 0.7)[0], runner.runs_compiled, s2sad.grad(module.f, jit=False)(x, 0.7)[0])
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers fork on Linux only")
def test_a_script_forks_its_worker_and_its_output_is_not_repeated(tmp_path):
    """A fresh script (one thread, no Numba yet) forks its worker, which starts with NumPy and
    s2sad imported; the child leaves without flushing the caller's buffers."""
    _fresh(tmp_path, "tier_forked")
    env = dict(os.environ, S2SAD_BACKGROUND_COMPILE="1", S2SAD_CACHE_DIR=str(tmp_path / "c"))
    done = subprocess.run([sys.executable, "-c", FORKED.format(directory=str(tmp_path))],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("written before") == 1, done.stdout
    *_, compiled, switched, python = done.stdout.split()
    assert switched == "True" and float(compiled) == pytest.approx(float(python), rel=1e-12)


def test_a_worker_is_forked_only_when_that_is_safe():
    """Never with another thread running (its locks would stay held in the child) or with
    Numba loaded (LLVM's state): a new interpreter then."""
    script = textwrap.dedent("""
        import threading
        from s2sad.runtime import tier_fork
        alone = tier_fork.possible()
        stop = threading.Event()
        other = threading.Thread(target=stop.wait)
        other.start()
        with_thread = tier_fork.possible()
        stop.set()
        other.join()
        import numba
        print(alone, with_thread, tier_fork.possible())
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(sys.platform.startswith("linux")), "False", "False"]


FORKED_FAILS = """
import sys, warnings
import numpy as np
import s2sad
from s2sad.runtime import tier_child


def no_luck(path, name, arguments):
    raise RuntimeError("TypingError: no luck")


tier_child.compile_one = no_luck   # the forked worker has this module as it is now
sys.path.insert(0, {directory!r})
import tier_forked_fails as module
g = s2sad.grad(module.f)
x = np.linspace(0.1, 0.9, 5)
first = g(x, 0.7)[0]
(runner,) = g._runners.values()
(job,) = runner._background.values()
job.wait()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    again = g(x, 0.7)[0]
print(first == again, runner.jit, [str(w.message).splitlines()[-1] for w in caught])
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers fork on Linux only")
def test_a_forked_worker_that_fails_leaves_python_with_one_warning(tmp_path):
    _fresh(tmp_path, "tier_forked_fails")
    env = dict(os.environ, S2SAD_BACKGROUND_COMPILE="1", S2SAD_CACHE_DIR=str(tmp_path / "c"))
    done = subprocess.run([sys.executable, "-c", FORKED_FAILS.format(directory=str(tmp_path))],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("[")[0].split() == ["True", "False"], done.stdout
    assert "reason: RuntimeError: TypingError: no luck" in done.stdout, done.stdout


def test_where_pipes_cannot_be_polled_a_thread_reads_the_reports(tmp_path, tiered,
                                                                 monkeypatch):
    """(Windows: select() takes no pipes.) The same switch, the report read by a thread."""
    module = _fresh(tmp_path, "tier_pumped")
    tiers.workers.stop_all()
    monkeypatch.setattr(tier_worker, "POLL_PIPES", False)
    x = np.linspace(0.1, 0.9, 5)
    g = s2sad.grad(module.f, wrt=1)
    first = g(x, 0.7)
    (job,) = _runner(g)._background.values()
    job.wait()
    assert job.succeeded
    assert g(x, 0.7) == pytest.approx(first, rel=1e-12) and _runner(g).runs_compiled
    tiers.workers.stop_all()   # (its thread reads a blocking pipe: no later test uses it)


@pytest.mark.parametrize("settings, workers", [
    ({}, 1), ({"S2SAD_BACKGROUND_COMPILE": "0"}, 0), ({"S2SAD_DISABLE_JIT": "1"}, 0)])
def test_an_interactive_session_starts_its_worker_at_import(settings, workers):
    """`import s2sad` in the REPL starts the worker (gradient functions come later there);
    a script's does not, nor a session that turned compiling off."""
    code = "import s2sad; from s2sad.runtime import tiers; print(len(tiers.workers.idle))"
    env = {k: v for k, v in os.environ.items()
           if k not in ("S2SAD_BACKGROUND_COMPILE", "S2SAD_DISABLE_JIT")}
    env.update(settings)
    interactive = subprocess.run([sys.executable, "-i"], input=code + "\n", env=env,
                                 capture_output=True, text=True, timeout=120)
    script = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True, timeout=120)
    assert interactive.returncode == 0 and script.returncode == 0, interactive.stderr
    assert interactive.stdout.split() == [str(workers)] and script.stdout.split() == ["0"]


NUMBA_REFUSES = '''
import numpy as np


def f(x):
    mu = np.median(x, axis=-1)   # (Numba has no median along an axis)
    return np.sum((x - mu[:, None]) ** 2)
'''


def test_a_background_compile_that_fails_warns_as_a_compile_in_the_process_does(tmp_path,
                                                                                  tiered):
    """The same warning, naming the generated line and Numba's reason, as jit=True's."""
    path = tmp_path / "tier_refused.py"
    path.write_text(NUMBA_REFUSES)
    spec = importlib.util.spec_from_file_location("tier_refused", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = np.linspace(0.1, 0.9, 6).reshape(2, 3)
    tiered_grad, compiled_grad = s2sad.grad(module.f), s2sad.grad(module.f, jit=True)
    tiered_grad(x)
    (job,) = _runner(tiered_grad)._background.values()
    job.wait()
    with pytest.warns(s2sad.JitFallbackWarning) as background:
        first = tiered_grad(x)
    with pytest.warns(s2sad.JitFallbackWarning) as in_process:
        second = compiled_grad(x)
    (background,), (in_process,) = background.list, in_process.list
    assert str(background.message) == str(in_process.message)
    assert "at " in str(background.message) and "numpy.median" in str(background.message)
    assert np.array_equal(first, second)


FORKED_HOOKS = """
import os, signal, sys
import numpy as np
import s2sad
sys.path.insert(0, {directory!r})
import tier_forked_hooks as module
marker = {marker!r}


def clean_up(number, frame):   # a script's own SIGTERM handler
    with open(marker, "a") as stream:
        stream.write(f"{{os.getpid()}}\\n")
    sys.exit(1)


signal.signal(signal.SIGTERM, clean_up)
g = s2sad.grad(module.f)
g(np.linspace(0.1, 0.9, 5), 0.7)
(runner,) = g._runners.values()
(job,) = runner._background.values()
job.worker.stop()   # as at exit: SIGTERM
print(os.getpid(), job.process.pid)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers fork on Linux only")
def test_a_forked_worker_does_not_run_the_callers_signal_handlers(tmp_path):
    _fresh(tmp_path, "tier_forked_hooks")
    marker = tmp_path / "handled"
    env = dict(os.environ, S2SAD_BACKGROUND_COMPILE="1", S2SAD_CACHE_DIR=str(tmp_path / "c"))
    done = subprocess.run([sys.executable, "-c", FORKED_HOOKS.format(
        directory=str(tmp_path), marker=str(marker))], env=env, capture_output=True, text=True,
        timeout=300)
    assert done.returncode == 0, done.stderr
    assert not marker.exists(), marker.read_text()


CONTAINERS = '''
import numpy as np


def f(x, ws, pair):
    s = 0.0
    for w in ws:
        s = s + np.sum(np.tanh(w * x))
    return s + pair[0] * np.sum(x * pair[1])
'''


def test_tuple_and_list_arguments_compile_in_the_background(tmp_path, tiered):
    """Their Numba types follow from their items': they get a background compile too (they
    were compiled in the caller, blocking the second call)."""
    path = tmp_path / "tier_containers.py"
    path.write_text(CONTAINERS)
    spec = importlib.util.spec_from_file_location("tier_containers", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = np.linspace(0.1, 0.9, 4)
    args = (x, [0.5 * x, x ** 2], (1.5, np.cos(x)))
    g = s2sad.grad(module.f, wrt=0)
    first = g(*args)
    runner = _runner(g)
    (job,) = runner._background.values()
    job.wait()
    switched = g(*args)
    assert runner.jit == jit_module.TIERED and runner.runs_compiled
    expected = s2sad.grad(module.f, wrt=0, jit=False)(*args)
    assert np.allclose(first, expected, rtol=1e-12, atol=0)
    assert np.allclose(switched, expected, rtol=1e-12, atol=0)


def test_the_type_key_of_containers():
    a, b = np.zeros(3), np.zeros(3, np.float32)
    key = jit_module.type_key
    assert key([(a, 1.0)]) == key([(np.ones(3), 2.0)]) != key([(b, 1.0)])
    assert key([[a, a]]) == key([[a, a, a]]) != key([[b]])
    assert key([[]]) is None and key([object()]) is None and key([[object()]]) is None
    assert key([()]) == key([()]) and key([1.0]) != key([1])


POOL_SCRIPT = '''
import os, sys, time
import numpy as np
import s2sad
from s2sad.runtime import tiers

FUNCTIONS = 40
sys.path.insert(0, {directory!r})
with open(os.path.join({directory!r}, "pool_functions.py"), "w") as stream:
    stream.write("import numpy as np\\n")
    for k in range(FUNCTIONS):   # forty different functions, forty generated files
        stream.write(f"""
def f{{k}}(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + np.sin(x[i] * w + {{k}}.0 / 7.0) ** 2
    return s * {{k + 1}}.0
""")
import pool_functions

def alive():
    """The worker processes alive now: this process's children that are not zombies."""
    count = 0
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{{entry}}/stat") as stream:
                fields = stream.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        count += int(fields[1]) == os.getpid() and fields[0] != "Z"
    return count

limit, most = tiers.pool_size(), 0
x = np.linspace(0.1, 0.9, 5)
gradients = []
for k in range(FUNCTIONS):
    f = getattr(pool_functions, f"f{{k}}")
    g = s2sad.grad(f, wrt=(0, 1))
    most = max(most, alive())
    python = s2sad.grad(f, wrt=(0, 1), jit=False)(x, 0.7)
    for _ in range(3):
        got = g(x, 0.7)
        assert all(np.allclose(a, b, rtol=1e-10, atol=0) for a, b in zip(got, python))
        most = max(most, alive())
    gradients.append((g, python))
jobs = [next(iter(g._runners.values()))._background[next(iter(
    next(iter(g._runners.values()))._background))] for g, _ in gradients]
queued = [job for job in jobs if job.started is None]
assert len(queued) >= 3, len(queued)
# priority: the function called most, then the compile a caller waits for, go first
called, waited = queued[-2], queued[-1]
called_gradient = gradients[jobs.index(called)][0]
called_gradient(x, 0.7)
tiers.IDLE_SECONDS = 0.5   # (from here on: a worker beyond the one kept goes after 0.5 s idle)
waited.wait()
most = max(most, alive())
for job in jobs:
    job.wait()
    most = max(most, alive())
first = sorted((j for j in queued), key=lambda j: j.started)[:2]
assert set(first) == {{called, waited}}, [queued.index(j) for j in first]
for g, python in gradients:   # every function ends compiled, with Python's numbers
    got = g(x, 0.7)
    assert g.runs_compiled
    assert all(np.allclose(a, b, rtol=1e-10, atol=0) for a, b in zip(got, python))
time.sleep(1.0)   # no call meanwhile: idle workers beyond the one kept warm have gone
print(limit, most, alive(), len(tiers.workers.idle))
'''


@pytest.mark.parametrize("limit", [1, 2])
def test_a_process_making_many_gradients_keeps_at_most_n_workers(tmp_path, limit):
    """Issue 46: forty gradient functions of forty functions, three calls each: never more
    than N workers alive, the compiles queued (the one waited for, then the function called
    most, first), every result Python's, every function compiled in the end, and the idle
    workers beyond one gone after a while."""
    if not os.path.isdir("/proc/self"):
        pytest.skip("counts processes from /proc (Linux)")
    env = dict(os.environ, S2SAD_BACKGROUND_COMPILE="1", S2SAD_CACHE_DIR=str(tmp_path / "c"),
               S2SAD_COMPILE_WORKERS=str(limit), NUMBA_CACHE_DIR=str(tmp_path / "n"))
    done = subprocess.run([sys.executable, "-c", POOL_SCRIPT.format(directory=str(tmp_path))],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == [str(limit), str(limit), "1", "1"], done.stdout


def test_the_pool_size(monkeypatch):
    monkeypatch.setenv(tiers.WORKERS_ENV, "3")
    assert tiers.pool_size() == 3
    monkeypatch.delenv(tiers.WORKERS_ENV)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert tiers.pool_size() == max(1, cores - 1)
    monkeypatch.setenv(tiers.WORKERS_ENV, "many")
    with pytest.warns(RuntimeWarning, match="S2SAD_COMPILE_WORKERS='many'"):
        assert tiers.pool_size() == max(1, cores - 1)


def test_a_gradient_says_whether_it_runs_compiled_and_waits_for_its_compile(tmp_path, tiered):
    """`df.runs_compiled` and `df.wait_compiled()`: how a benchmark times compiled calls
    after a warm-up call (docs/tiers.md)."""
    module = _fresh(tmp_path, "tier_public")
    x = np.linspace(0.1, 0.9, 5)
    g = s2sad.grad(module.f, wrt=(0, 1))
    assert not g.runs_compiled and g.wait_compiled()   # (nothing to wait for yet)
    first = g(x, 0.7)
    assert not g.runs_compiled
    assert g.wait_compiled()
    again = g(x, 0.7)
    assert g.runs_compiled
    for a, b in zip(first, again):
        assert np.allclose(a, b, rtol=1e-12, atol=0)
    h = s2sad.grad(module.f, jit=False)
    h(x, 0.7)
    assert not h.runs_compiled and h.wait_compiled() is False


FORKED_CALLER = """
import os, sys
import numpy as np
import s2sad
sys.path.insert(0, {directory!r})
import tier_fork_caller as module
g = s2sad.grad(module.f)
x = np.linspace(0.1, 0.9, 5)
expected = g(x, 0.7)                 # the parent's compile is queued or running
child = os.fork()
if child == 0:                       # a fork of the caller (multiprocessing's default here)
    ok = g.wait_compiled()           # (nothing of its own yet: the parent's is not waited on)
    ok = ok and all(np.allclose(g(x, 0.7), expected, rtol=1e-12) for _ in range(3))
    ok = ok and g.wait_compiled() and np.allclose(g(x, 0.7), expected, rtol=1e-10)
    os._exit(0 if ok and g.runs_compiled else 1)
_, status = os.waitpid(child, 0)
print(os.waitstatus_to_exitcode(status), g.wait_compiled())
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork")
def test_a_forked_caller_compiles_in_its_own_pool(tmp_path):
    """A process forked while its parent's compile runs does not wait on the parent's worker
    (whose reports go to the parent): it compiles anew in a pool of its own."""
    _fresh(tmp_path, "tier_fork_caller")
    env = dict(os.environ, S2SAD_BACKGROUND_COMPILE="1", S2SAD_CACHE_DIR=str(tmp_path / "c"))
    done = subprocess.run([sys.executable, "-c", FORKED_CALLER.format(directory=str(tmp_path))],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["0", "True"], done.stdout + done.stderr[-2000:]


class _FakeWorker:
    def __init__(self):
        self.stopped = False

    def fits(self):
        return not self.stopped

    def stop(self):
        self.stopped = True


def test_an_idle_worker_beyond_the_one_kept_goes_with_no_call_to_reap_it(monkeypatch):
    monkeypatch.setattr(tiers, "IDLE_SECONDS", 0.2)
    pool = tiers._Pool()
    older, newer = _FakeWorker(), _FakeWorker()
    with pool.lock:
        pool._add_idle(older)
        time.sleep(0.01)
        pool._add_idle(newer)   # two idle: the older one goes after IDLE_SECONDS
    time.sleep(0.6)             # no call, no poll meanwhile
    assert older.stopped and not newer.stopped and pool.idle == [newer]
