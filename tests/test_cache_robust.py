"""The cache under stress: processes racing on one fresh directory, edits that must give new
files (callee, template, library versions), corrupt or truncated files (s2sad's and Numba's),
and cache directories that are missing, vanish, or cannot be written.

Most tests run the gradient in fresh processes (PROBE), because the hazards are about what one
process leaves on disk for the next."""
import importlib.util
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np
import pytest

import s2sad
from s2sad.runtime import cache, numba_cache
from gradcheck import assert_close, finite_difference

PROBE = textwrap.dedent("""
    import json, os, sys, time, warnings
    sys.path.insert(0, sys.argv[1])
    spec = json.loads(sys.argv[2])
    import numpy as np
    import s2sad
    from s2sad.runtime import jit
    module = __import__(spec["module"])
    while spec["barrier"] and not os.path.exists(spec["barrier"]):
        time.sleep(0.005)  # start together: the race is the point
    out = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for args in spec["calls"]:
            try:
                gradient = s2sad.grad(module.f)
                result = gradient(*eval(args, {"np": np}))
            except s2sad.S2sadError as exc:
                out.append({"error": type(exc).__name__, "message": str(exc)})
                continue
            function = getattr(jit.load(gradient.path, jit.JIT), gradient.generated.function)
            out.append({"grad": np.asarray(result).tolist(), "path": gradient.path,
                        "hits": sum(function.stats.cache_hits.values()),
                        "misses": sum(function.stats.cache_misses.values())})
    print(json.dumps({"calls": out, "warnings": [
        f"{w.category.__name__}: {w.message}" for w in caught]}))
""")

MODEL = """
import numpy as np


def helper(x, w):
    return np.tanh(x * w) * {factor}


def f(x, w):
    return np.sum(helper(x, w) ** 2) * w
"""

VECTOR = "(np.array([0.3, -1.2, 0.7]), 0.9)"
MATRIX = "(np.array([[0.3, -1.2], [0.7, 0.1]]), 0.9)"


def write_model(directory, name, text):
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"{name}.py")
    with open(path, "w") as handle:
        handle.write(textwrap.dedent(text))
    return path


def start_probe(module_dir, module, cache_dir, calls, barrier=None, env=None, user=None):
    environment = dict(os.environ, S2SAD_CACHE_DIR=str(cache_dir), **(env or {}))
    environment.pop("S2SAD_DISABLE_JIT", None)
    spec = json.dumps({"module": module, "calls": calls, "barrier": barrier})
    command = [sys.executable, "-c", PROBE, str(module_dir), spec]
    if user is not None:  # run as another user: the directory permissions then apply
        command = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups"] + command
    return subprocess.Popen(command, env=environment, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(process):
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


def run_probe(*args, **kwargs):
    return finish(start_probe(*args, **kwargs))


def expected_gradient(module_path, args):
    """Central finite differences of the model's f, in this process."""
    name = "expected_" + os.path.basename(os.path.dirname(module_path))
    spec = importlib.util.spec_from_file_location(name, module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return finite_difference(module.f, eval(args, {"np": np}), 0)


def assert_all_files_sound(cache_dir):
    """Every generated file is named by the hash of its content; every Numba cache file
    carries a valid checksum; no temporary file is left behind."""
    generated = [f for f in os.listdir(cache_dir) if f.endswith(".py")]
    assert generated
    for name in generated:
        with open(os.path.join(cache_dir, name)) as handle:
            text = handle.read()
        digest = cache.hashlib.sha256((cache.fingerprint() + "\0" + text).encode())
        assert name.endswith(f"__{digest.hexdigest()[:16]}.py"), name
    leftovers = [f for f in os.listdir(cache_dir) if f.startswith((".tmp-", ".probe-"))]
    numba_dir = os.path.join(cache_dir, "__pycache__")
    numba_files = os.listdir(numba_dir)
    leftovers += [f for f in numba_files if ".tmp." in f]
    assert not leftovers, leftovers
    for name in numba_files:
        if name.endswith((".nbi", ".nbc")):
            assert_checked(os.path.join(numba_dir, name))
    return generated, numba_files


def assert_checked(path):
    with open(path, "rb") as handle:
        if path.endswith(".nbi"):
            pickle.load(handle)  # Numba's version, then s2sad's checksummed payload
        numba_cache._verified(handle.read())


# ---- several processes, one fresh cache directory ----------------------------------------

def test_processes_racing_on_one_gradient_all_get_it_right(tmp_path):
    module_path = write_model(tmp_path / "mod", "race_model", MODEL.format(factor=1.0))
    cache_dir, barrier = tmp_path / "cache", str(tmp_path / "go")
    processes = [start_probe(tmp_path / "mod", "race_model", cache_dir, [VECTOR], barrier)
                 for _ in range(4)]
    time.sleep(1.0)
    open(barrier, "w").close()
    results = [finish(p) for p in processes]
    expected = expected_gradient(module_path, VECTOR)
    for result in results:
        assert not any("JitFallbackWarning" in w for w in result["warnings"]), result
        assert_close(result["calls"][0]["grad"], expected)
    assert len({r["calls"][0]["path"] for r in results}) == 1
    assert all(r["calls"][0]["grad"] == results[0]["calls"][0]["grad"] for r in results)
    assert_all_files_sound(cache_dir)
    again = run_probe(tmp_path / "mod", "race_model", cache_dir, [VECTOR])
    assert again["calls"][0]["hits"] >= 1 and again["calls"][0]["misses"] == 0, again
    assert again["calls"][0]["grad"] == results[0]["calls"][0]["grad"]


def test_processes_compiling_other_signatures_never_mix_their_code(tmp_path):
    """Numba numbers a cache's data files 1, 2, ...: two processes compiling different
    signatures of one function at once could both write `.1.nbc`, and one signature's index
    entry would name the other's machine code. s2sad names data files by their key and checks
    the key on loading."""
    module_path = write_model(tmp_path / "mod", "sig_model", MODEL.format(factor=1.0))
    cache_dir, barrier = tmp_path / "cache", str(tmp_path / "go")
    calls = [[VECTOR], [MATRIX]]
    processes = [start_probe(tmp_path / "mod", "sig_model", cache_dir, c, barrier)
                 for c in calls]
    time.sleep(1.0)
    open(barrier, "w").close()
    for process, call in zip(processes, calls):
        assert_close(finish(process)["calls"][0]["grad"], expected_gradient(module_path, call[0]))
    later = run_probe(tmp_path / "mod", "sig_model", cache_dir, [VECTOR, MATRIX])
    for result, call in zip(later["calls"], [VECTOR, MATRIX]):
        assert_close(result["grad"], expected_gradient(module_path, call))
    assert later["calls"][-1]["hits"] >= 1, later  # both signatures came from the disk cache
    _, numba_files = assert_all_files_sound(cache_dir)
    data = [f for f in numba_files if f.startswith("f__") and f.endswith(".nbc")]
    assert len(data) == 2 and not any(f.endswith(".1.nbc") for f in data), data


# ---- corrupt files -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def warm_cache(tmp_path_factory):
    """A cache holding the model's gradient, compiled."""
    root = tmp_path_factory.mktemp("warm")
    module_path = write_model(root / "mod", "warm_model", MODEL.format(factor=1.0))
    result = run_probe(root / "mod", "warm_model", root / "cache", [VECTOR])
    return root, module_path, result


def _caller_files(cache_dir, suffix):
    numba_dir = os.path.join(cache_dir, "__pycache__")
    return sorted(os.path.join(numba_dir, f) for f in os.listdir(numba_dir)
                  if f.startswith("f__") and f.endswith(suffix))


def _flip_bytes(path):
    with open(path, "rb") as handle:
        data = bytearray(handle.read())
    for k in range(len(data) // 2, len(data) // 2 + 32):
        data[k] ^= 0xFF
    with open(path, "wb") as handle:
        handle.write(data)


def _swap(first, second):
    with open(first, "rb") as a, open(second, "rb") as b:
        first_data, second_data = a.read(), b.read()
    with open(first, "wb") as a, open(second, "wb") as b:
        a.write(second_data)
        b.write(first_data)


def _generated(cache_dir, prefix="f__"):
    return [os.path.join(cache_dir, f) for f in os.listdir(cache_dir)
            if f.startswith(prefix) and f.endswith(".py")]


def _truncate_generated(cache_dir):
    for path in _generated(cache_dir):
        os.truncate(path, os.path.getsize(path) // 2)


def _garble_generated(cache_dir):
    for path in _generated(cache_dir):
        with open(path, "wb") as handle:
            handle.write(b"\xff\xfe def df(:\n")


def _garble_bytecode(cache_dir):
    for path in _generated(cache_dir, prefix=""):
        pyc = importlib.util.cache_from_source(path)
        with open(pyc, "wb") as handle:
            handle.write(importlib.util.MAGIC_NUMBER + b"\0" * 12 + b"not marshal data")


CORRUPTIONS = {
    "truncated_index": lambda d: [os.truncate(p, 20) for p in _caller_files(d, ".nbi")],
    "garbage_index": lambda d: [open(p, "wb").write(os.urandom(300))
                                for p in _caller_files(d, ".nbi")],
    "truncated_data": lambda d: [os.truncate(p, 100) for p in _caller_files(d, ".nbc")],
    "flipped_bytes_in_data": lambda d: [_flip_bytes(p) for p in _caller_files(d, ".nbc")],
    "truncated_generated_file": _truncate_generated,
    "garbage_generated_file": _garble_generated,
    "garbage_bytecode": _garble_bytecode,
}


NUMBA_DATA = {"truncated_data", "flipped_bytes_in_data"}  # another key's data: the test below


@pytest.mark.parametrize("corruption", CORRUPTIONS)
def test_corrupt_cache_files_are_detected_and_replaced(corruption, warm_cache, tmp_path):
    root, module_path, warm = warm_cache
    cache_dir = tmp_path / "cache"
    shutil.copytree(root / "cache", cache_dir)
    CORRUPTIONS[corruption](str(cache_dir))
    env = {"PYTHONDONTWRITEBYTECODE": ""} if corruption == "garbage_bytecode" else {}
    result = run_probe(root / "mod", "warm_model", cache_dir, [VECTOR], env=env)
    assert not any("JitFallbackWarning" in w for w in result["warnings"]), result["warnings"]
    call = result["calls"][0]
    assert call["grad"] == warm["calls"][0]["grad"], corruption  # the same compiled code
    assert_close(call["grad"], expected_gradient(module_path, VECTOR))
    if corruption in NUMBA_DATA:  # compiled again, not loaded from the bad file
        assert sum(c["misses"] for c in result["calls"]) >= 1, result
    # (a data file is found by its key's name, not through the index: a spoilt index costs no
    # compile, and the load writes it again)
    # (a generated file is rewritten with its right text, which Numba's cache, keyed on a hash
    # of that text, then matches again; a .pyc is never read)
    assert_all_files_sound(cache_dir)  # repaired: the next process loads them


def test_cache_file_checks_never_return_another_key(tmp_path):
    """The checked cache file, on its own: a data file holding another key reads as missing;
    a corrupt index reads as empty."""
    checked = numba_cache._checked_cache_class()
    cache_file = checked(str(tmp_path), "model.f-3.py311", ("stamp", 1))
    cache_file.save(("key", 1), {"code": "one"})
    cache_file.save(("key", 2), {"code": "two"})
    assert cache_file.load(("key", 1)) == {"code": "one"}
    assert cache_file.load(("key", 2)) == {"code": "two"}
    files = sorted(f for f in os.listdir(tmp_path) if f.endswith(".nbc"))
    _swap(*(os.path.join(tmp_path, f) for f in files))
    assert cache_file.load(("key", 1)) is None and cache_file.load(("key", 2)) is None
    with open(os.path.join(tmp_path, "model.f-3.py311.nbi"), "r+b") as handle:
        handle.seek(-5, os.SEEK_END)
        handle.write(b"XXXXX")
    assert cache_file._load_index() == {}
    assert cache_file.load(("key", 1)) is None


def test_a_lost_index_entry_costs_no_compile(tmp_path):
    """Two processes saving other keys at once each rewrite the index from what they read, so
    one entry can be lost: the data file is still found by its key's name, and the index is
    written again."""
    checked = numba_cache._checked_cache_class()
    first = checked(str(tmp_path), "model.f-3.py311", ("stamp", 1))
    second = checked(str(tmp_path), "model.f-3.py311", ("stamp", 1))
    first.save(("key", 1), {"code": "one"})
    index = os.path.join(tmp_path, "model.f-3.py311.nbi")
    with open(index, "rb") as handle:
        with_one = handle.read()
    second.save(("key", 2), {"code": "two"})
    with open(index, "wb") as handle:  # the first process's late write wins
        handle.write(with_one)
    assert set(second._load_index()) == {("key", 1)}
    assert second.load(("key", 2)) == {"code": "two"}
    assert set(second._load_index()) == {("key", 1), ("key", 2)}
    stale = checked(str(tmp_path), "model.f-3.py311", ("stamp", 2))  # the source changed
    assert stale.load(("key", 1)) is None


def test_a_generated_file_changed_under_a_running_process_is_restored(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENV_DIR, str(tmp_path / "cache"))
    module = _fresh_module(tmp_path, "restored_model", MODEL.format(factor=1.0))
    x, w = np.array([0.3, -1.2, 0.7]), 0.9
    gradient = s2sad.grad(module.f, jit=False)
    runner = gradient.runner(gradient.bind((x, w), {}))  # transformed and stored, not loaded
    with open(runner.path) as handle:
        text = handle.read()
    with open(runner.path, "w") as handle:
        handle.write("def df(x, w, d_result):\n    return 0.0, x * 0.0\n")  # a wrong gradient
    assert_close(gradient(x, w), finite_difference(module.f, (x, w), 0))
    with open(runner.path) as handle:
        assert handle.read() == text


# ---- what changes must give new files -------------------------------------------------------

def test_a_changed_callee_changes_the_gradient_in_a_new_process(tmp_path):
    module_dir = tmp_path / "mod"
    path = write_model(module_dir, "callee_model", MODEL.format(factor=2.0))
    first = run_probe(module_dir, "callee_model", tmp_path / "cache", [VECTOR])["calls"][0]
    assert_close(first["grad"], expected_gradient(path, VECTOR))
    write_model(module_dir, "callee_model", MODEL.format(factor=3.0))
    second = run_probe(module_dir, "callee_model", tmp_path / "cache", [VECTOR])["calls"][0]
    assert_close(second["grad"], expected_gradient(path, VECTOR))
    assert second["path"] != first["path"] and second["misses"] >= 1
    assert_close(np.asarray(second["grad"]), np.asarray(first["grad"]) * 9.0 / 4.0)


def test_a_stale_bytecode_file_is_refused_not_differentiated(tmp_path):
    """The callee edited without changing the file's size or time: Python then runs the old
    bytecode while the file says otherwise. s2sad differentiates neither silently: it says the
    function does not run its source."""
    module_dir = tmp_path / "mod"
    path = write_model(module_dir, "stale_model", MODEL.format(factor=2.0))
    env = {"PYTHONDONTWRITEBYTECODE": ""}
    run_probe(module_dir, "stale_model", tmp_path / "cache", [VECTOR], env=env)
    stamp = os.stat(path)
    write_model(module_dir, "stale_model", MODEL.format(factor=3.0))
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    result = run_probe(module_dir, "stale_model", tmp_path / "cache", [VECTOR], env=env)
    call = result["calls"][0]
    assert call.get("error") == "UnsupportedError", call
    assert "the source of 'helper'" in call["message"] or "the source of 'f'" in call["message"]
    assert "is not the code it runs" in call["message"]


RULE_MODEL = """
import numpy as np
import s2sad
from s2sad import d


def slope(x):
    return {slope}


def bump(x):
    return x * x


@s2sad.adjoint(bump)
def bump_adjoint(z, x):
    d[x] = d[z] * {factor} * x * slope(x)


def f(x, w):
    return np.sum(bump(x)) * w
"""


def test_a_changed_rule_or_what_it_calls_changes_the_gradient(tmp_path):
    """A user rule's body is part of the generated text; a function the rule calls is linked
    with a hash of its code."""
    module_dir, x = tmp_path / "mod", np.array([0.3, -1.2, 0.7])
    seen = set()
    for factor, slope, scale in [(2.0, 1.0, 2.0), (5.0, 1.0, 5.0), (2.0, 3.0, 6.0)]:
        write_model(module_dir, "rule_model", RULE_MODEL.format(factor=factor, slope=slope))
        call = run_probe(module_dir, "rule_model", tmp_path / "cache", [VECTOR])["calls"][0]
        assert_close(call["grad"], scale * x * 0.9)
        seen.add(call["path"])
    assert len(seen) == 3


@pytest.mark.parametrize("feed", ["s2sad", "python", "numpy", "numba", "runtime helpers"])
def test_the_fingerprint_covers_versions_and_runtime(feed, monkeypatch, tmp_path):
    import platform
    from s2sad import version as package
    before = cache.fingerprint()
    path_before = cache.store("fingerprint_probe", "x = 1\n")
    if feed == "s2sad":
        monkeypatch.setattr(package, "__version__", "99.0")
    elif feed == "python":
        monkeypatch.setattr(platform, "python_version", lambda: "3.99.0")
    elif feed == "numpy":
        monkeypatch.setattr(cache.numpy, "__version__", "9.9.9")
    elif feed == "numba":
        real = cache.importlib.metadata.version
        monkeypatch.setattr(cache.importlib.metadata, "version",
                            lambda name: "9.9" if name == "numba" else real(name))
    else:  # a copy of s2sad's runtime package whose rt.py differs by one byte
        here = os.path.dirname(cache.__file__)
        for name in os.listdir(here):
            if name.endswith(".py"):
                shutil.copy(os.path.join(here, name), tmp_path / name)
        with open(tmp_path / "rt.py", "a") as handle:
            handle.write("\n")
        monkeypatch.setattr(cache, "__file__", str(tmp_path / "cache.py"))
    cache.fingerprint.cache_clear()
    try:
        assert cache.fingerprint() != before
        assert cache.store("fingerprint_probe", "x = 1\n") != path_before
    finally:
        monkeypatch.undo()
        cache.fingerprint.cache_clear()
    assert cache.fingerprint() == before


# ---- the cache directory ----------------------------------------------------------------------

def _fresh_module(directory, name, text):
    path = write_model(directory, name, text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_a_missing_cache_directory_is_created(tmp_path, monkeypatch):
    wanted = tmp_path / "not" / "yet" / "there"
    monkeypatch.setenv(cache.ENV_DIR, str(wanted))
    module = _fresh_module(tmp_path, "missing_dir_model", MODEL.format(factor=1.0))
    x, w = np.array([0.3, -1.2, 0.7]), 0.9
    gradient = s2sad.grad(module.f, jit=False)
    assert_close(gradient(x, w), finite_difference(module.f, (x, w), 0))
    assert os.path.dirname(gradient.path) == str(wanted)


def test_a_cache_directory_removed_while_running_is_recreated(tmp_path, monkeypatch):
    """`s2sad cache --clear` from another terminal: files this process generated and still
    needs (a callee's, for a new caller) are written again from memory."""
    wanted = tmp_path / "cache"
    monkeypatch.setenv(cache.ENV_DIR, str(wanted))
    module = _fresh_module(tmp_path, "cleared_model", MODEL.format(factor=1.0) + textwrap.dedent("""

        def g(x, w):
            return np.sum(helper(x, w)) * w
        """))
    x, w = np.array([0.3, -1.2, 0.7]), 0.9
    assert_close(s2sad.grad(module.f, jit=False)(x, w), finite_difference(module.f, (x, w), 0))
    shutil.rmtree(wanted)
    gradient = s2sad.grad(module.g, jit=False)
    assert_close(gradient(x, w), finite_difference(module.g, (x, w), 0))
    assert os.path.isfile(gradient.path)
    shutil.rmtree(wanted)
    compiled = s2sad.grad(module.f, jit=True)  # loads the callee's file in the other flavour
    assert_close(compiled(x, w), finite_difference(module.f, (x, w), 0))


UNWRITABLE_PROBE = """
import warnings, numpy as np, s2sad, sys
sys.path.insert(0, sys.argv[1])
import fallback_model
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    gradient = s2sad.grad(fallback_model.f)
    print(gradient(np.array([0.3, -1.2, 0.7]), 0.9).tolist())
print(gradient.path)
for w in caught:
    print(w.category.__name__, "|", w.message)
"""


# Root ignores permission bits through its capabilities (CAP_DAC_OVERRIDE): without them it is
# refused a 0o555 directory like anyone, yet still reads its own checkout and venv, wherever the
# clone lives (running as `nobody` instead failed in a clone inside a 0700 directory).
WITHOUT_CAPABILITIES = ["setpriv", "--bounding-set=-all", "--inh-caps=-all"]


def _run_unwritable(module_dir, cache_dir, home=None, drop_capabilities=False):
    env = dict(os.environ, S2SAD_CACHE_DIR=str(cache_dir), HOME=str(home or module_dir))
    env.pop("S2SAD_DISABLE_JIT", None)
    command = [sys.executable, "-c", UNWRITABLE_PROBE, str(module_dir)]
    if drop_capabilities:
        command = WITHOUT_CAPABILITIES + command
    out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.splitlines()


def _check_fallback(lines, module_path, wanted):
    assert_close(json.loads(lines[0]), expected_gradient(module_path, VECTOR))
    path = lines[1]
    assert not path.startswith(str(wanted)) and os.path.basename(
        os.path.dirname(path)).startswith("s2sad-")
    warned = [line for line in lines[2:] if line.startswith("CacheWarning |")]
    assert len(warned) == 1, lines
    assert f"cannot write generated code to {wanted}" in warned[0]
    assert os.path.dirname(path) in warned[0] and "set S2SAD_CACHE_DIR" in warned[0]
    assert not any(line.startswith("JitFallbackWarning") for line in lines[2:]), lines


def test_an_unusable_cache_directory_falls_back_with_a_warning(tmp_path):
    """A path below a regular file cannot be a directory, for any user (root included)."""
    module_path = write_model(tmp_path / "mod", "fallback_model", MODEL.format(factor=1.0))
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    wanted = blocker / "cache"
    _check_fallback(_run_unwritable(tmp_path / "mod", wanted), module_path, wanted)


def _can_drop_capabilities():
    probe = subprocess.run(WITHOUT_CAPABILITIES + ["true"], capture_output=True)
    return probe.returncode == 0


def test_a_read_only_cache_directory_falls_back_with_a_warning():
    """chmod 0o555 does not stop root, so as root the probe runs without capabilities
    (setpriv); as another user it runs as that user."""
    as_root = os.geteuid() == 0
    if as_root and not (shutil.which("setpriv") and _can_drop_capabilities()):
        pytest.skip("running as root, and setpriv cannot drop capabilities here: no way to be "
                    "refused a 0o555 directory")
    root = tempfile.mkdtemp(prefix="s2sad-readonly-")  # world-readable, unlike pytest's tmp
    try:
        os.chmod(root, 0o755)
        module_path = write_model(os.path.join(root, "mod"), "fallback_model",
                                  MODEL.format(factor=1.0))
        wanted = os.path.join(root, "cache")
        os.makedirs(wanted, mode=0o555)
        os.chmod(wanted, 0o555)
        home = os.path.join(root, "home")
        os.makedirs(home, mode=0o777)
        os.chmod(home, 0o777)
        lines = _run_unwritable(os.path.join(root, "mod"), wanted, home=home,
                                drop_capabilities=as_root)
        _check_fallback(lines, module_path, wanted)
        assert os.listdir(wanted) == []
    finally:
        os.chmod(os.path.join(root, "cache"), 0o755)
        shutil.rmtree(root, ignore_errors=True)
