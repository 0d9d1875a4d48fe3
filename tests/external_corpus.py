"""The external corpus (issue 35): s2sad on functions other people wrote, straight from packages
installed from PyPI, as a new user would call it.

    make corpus [ARGS="--only rosen --jit-off-only --timeout 60"]
    python tests/external_corpus.py [--only TEXT] [--package NAME] [--jit-off-only]
                                    [--timeout S] [--no-install] [--out PATH]

Without --no-install it first makes its own environment `.venv-corpus` at the repository root
(this checkout installed with `pip install -e .`, then the packages of PINNED at exact versions,
each on its own so that one failure only skips that package's entries) and runs itself again
inside it. An existing .venv-corpus is reused (delete it to set it up again).

The functions are listed in tests/external_corpus_functions.py. For each, on two random inputs
from its box (float64), `s2sad.value_and_grad(f, jit=False)` and `jit=True` are compared with
the package's own value and with central finite differences of the package's function, and JIT
on with JIT off to 1e-12 relative. Each function gets one result:
  pass          value and gradient right on both inputs, JIT on and off, and on == off;
  refused       s2sad raised an S2sadError (its class, first message line, the construct named);
  crash         any other exception (type and message), or the process died;
  wrong         a value or gradient disagrees with the package / finite differences;
  jit-mismatch  JIT on and off disagree beyond 1e-12 relative;
  timeout       no answer within --timeout seconds (the worker process is killed, the run goes on).
The functions run in a worker process (restarted after a timeout or a death), with a fresh
s2sad cache directory, so every run really transforms and compiles.

Prints the table and the failures grouped by construct; a full run (no --only/--package, JIT
on) writes tests/EXTERNAL_CORPUS.md (or --out PATH). Exit status 0 unless the harness fails:
the count is the report, not a test.
"""
import argparse
import collections
import contextlib
import datetime
import io
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
VENV = os.path.join(REPO, ".venv-corpus")
STAMP = os.path.join(VENV, ".corpus-installed.json")
REPORT = os.path.join(HERE, "EXTERNAL_CORPUS.md")
SETUP_VERSION = 1   # bump when PINNED changes: an older .venv-corpus is set up again
PINNED = {          # distribution -> pip requirement; one pip call each
    "scipy": "scipy==1.17.1",
    "cma": "cma==4.5.0",
    "pymoo": "pymoo==0.6.2",
    "opfunu": "opfunu==1.0.4",
    "benchmark-functions": "benchmark-functions==1.1.4",
    "pints": "pints==0.6.1",
}
SHOWN_VERSIONS = ["numpy", "numba", "llvmlite"]     # reported beside PINNED's

INPUTS = 2          # random inputs per function
FD_STEP = 1e-6      # central differences, relative to max(1, |x_i|)
FD5_STEP = 1e-3     # the five-point stencil tried when the central difference disagrees
RTOL = 1e-5         # gradient vs finite differences, relative to max(1, |expected|)
VALUE_RTOL = 1e-9   # s2sad's value vs the package's
SAME = 1e-12        # JIT on vs JIT off, relative to max(1, |off|)
MARK = "@@corpus@@ "


# ---- the environment ----------------------------------------------------------------------------

def venv_python():
    return os.path.join(VENV, "bin", "python")


def inside_venv():
    return os.path.realpath(sys.prefix) == os.path.realpath(VENV)


def ensure_venv():
    """Create and fill .venv-corpus unless a stamp says it is done."""
    if os.path.exists(STAMP):
        with open(STAMP) as handle:
            stamp = json.load(handle)
        if stamp.get("version") == SETUP_VERSION and os.path.exists(venv_python()):
            return stamp
    print(f"setting up {os.path.relpath(VENV)} (a few minutes the first time) ...", flush=True)
    if not os.path.exists(venv_python()):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    pip = [venv_python(), "-m", "pip", "install", "--quiet"]
    done = subprocess.run(pip + ["-e", REPO], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"pip install -e . into {VENV} failed:\n{done.stderr[-3000:]}")
    stamp = {"version": SETUP_VERSION, "failed": {}}
    for package, requirement in PINNED.items():
        print(f"  installing {requirement} ...", end=" ", flush=True)
        started = time.perf_counter()
        done = subprocess.run(pip + [requirement], capture_output=True, text=True)
        if done.returncode == 0:
            print(f"{time.perf_counter() - started:.0f} s", flush=True)
        else:
            reason = (done.stderr.strip().splitlines() or ["pip failed"])[-1]
            stamp["failed"][package] = reason
            print(f"FAILED, its functions will be skipped: {reason}", flush=True)
    with open(STAMP, "w") as handle:
        json.dump(stamp, handle, indent=1)
    return stamp


def versions():
    """{distribution: version or 'not installed'} for PINNED and SHOWN_VERSIONS."""
    from importlib import metadata
    found = {}
    for name in list(PINNED) + SHOWN_VERSIONS:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


# ---- checking one function (in the worker) ------------------------------------------------------

def inputs(entry):
    import numpy as np
    low, high = entry.box()
    rng = np.random.default_rng(zlib.crc32(entry.name.encode()))
    return [low + (high - low) * rng.random(entry.dim) for _ in range(INPUTS)]


def central(f, x, step):
    """Central differences with a step relative to each |x_i|; also each step used."""
    import numpy as np
    grad, steps = np.zeros_like(x), np.zeros_like(x)
    for i in range(x.size):
        h = step * max(1.0, abs(x[i]))
        plus, minus = x.copy(), x.copy()
        plus[i] += h
        minus[i] -= h
        grad[i] = (float(f(plus)) - float(f(minus))) / (2 * h)
        steps[i] = h
    return grad, steps


def five_point(f, x, step):
    import numpy as np
    grad = np.zeros_like(x)
    for i in range(x.size):
        h = step * max(1.0, abs(x[i]))
        at = []
        for k in (-2, -1, 1, 2):
            y = x.copy()
            y[i] += k * h
            at.append(float(f(y)))
        grad[i] = (at[0] - 8 * at[1] + 8 * at[2] - at[3]) / (12 * h)
    return grad


class Reference:
    """The package's own value and finite differences at one input, computed when first asked."""

    def __init__(self, f, x):
        self.f, self.x, self._fd, self._fd5 = f, x, None, None
        self.value = float(f(x.copy()))

    def gradient_error(self, grad):
        """The worst error of `grad` against finite differences, in units of the tolerance (<= 1
        agrees): the central difference first, a five-point stencil when that disagrees."""
        import numpy as np
        if self._fd is None:
            self._fd = central(self.f, self.x, FD_STEP)
        fd, steps = self._fd
        # roundoff of a central difference: about eps * |f| / h
        noise = 100 * np.finfo(float).eps * max(1.0, abs(self.value)) / steps
        worst = np.max(np.abs(grad - fd) / (RTOL * np.maximum(1.0, np.abs(fd)) + noise))
        if worst <= 1:
            return worst, fd
        if self._fd5 is None:
            self._fd5 = five_point(self.f, self.x, FD5_STEP)
        fd5 = self._fd5
        worst5 = np.max(np.abs(grad - fd5) / (RTOL * np.maximum(1.0, np.abs(fd5))))
        return (worst5, fd5) if worst5 < worst else (worst, fd)


def first_error_line(error):
    """The first `file:line:col: error: message` of an s2sad error (or its first line)."""
    text = re.sub(r" at 0x?[0-9a-f]*", "", str(error))     # the same text run after run
    for line in text.splitlines():
        found = re.match(r"^\S.*?:\d+:\d+: error: (.*)$", line)
        if found:
            return found.group(1).strip()
    return text.strip().splitlines()[0] if text.strip() else type(error).__name__


def diagnostics(error):
    """[{path, line, col, message}] of every `file:line:col: error:` in an s2sad error."""
    return [{"path": m.group(1), "line": int(m.group(2)), "col": int(m.group(3)),
             "message": re.sub(r" at 0x?[0-9a-f]*", "", m.group(4).strip())}
            for m in re.finditer(r"^(\S.*?):(\d+):(\d+): error: (.*)$", str(error), re.M)]


def run_mode(entry, f, xs, references, jit):
    """One of pass/refused/crash/wrong for value_and_grad(f, jit=jit) on xs, with details."""
    import warnings

    import numpy as np

    import s2sad
    out = {"result": "pass", "values": [], "grads": [], "warnings": []}
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            gradient = s2sad.value_and_grad(f, jit=jit)
            results = [gradient(x.copy()) for x in xs]
        except s2sad.S2sadError as error:
            found = diagnostics(error)
            out.update(result="refused", error_class=type(error).__name__,
                       message=first_error_line(error), problems=len(found),
                       constructs=constructs_in(found), paths=[d["path"] for d in found[:1]])
        except Exception as error:      # noqa: BLE001 (any other exception is a crash)
            frames = traceback.extract_tb(error.__traceback__)
            where = f"{os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames \
                else ""
            out.update(result="crash", error_class=type(error).__name__,
                       message=(str(error).strip().splitlines() or [""])[0][:300], where=where)
    out["seconds"] = round(time.perf_counter() - started, 2)
    out["warnings"] = sorted({f"{w.category.__name__}: {str(w.message).splitlines()[0][:160]}"
                              for w in caught if issubclass(w.category, s2sad.S2sadWarning)})
    if out["result"] != "pass":
        return out
    for x, ref, result in zip(xs, references, results):
        try:
            value, grad = float(result[0]), np.asarray(result[1], dtype=float)
        except Exception as error:      # noqa: BLE001
            out.update(result="wrong", message=f"value_and_grad returned {result!r:.80}: "
                                               f"{type(error).__name__}: {error}")
            return out
        out["values"].append(value)
        out["grads"].append(grad.tolist())
        if not np.isclose(value, ref.value, rtol=VALUE_RTOL, atol=VALUE_RTOL):
            out.update(result="wrong", message=f"value {value!r} != the package's "
                                               f"{ref.value!r}")
            return out
        if grad.shape != x.shape:
            out.update(result="wrong", message=f"gradient of shape {grad.shape}, input "
                                               f"{x.shape}")
            return out
        worst, fd = ref.gradient_error(grad)
        out["worst"] = max(out.get("worst", 0.0), float(worst))
        if not worst <= 1:
            k = int(np.argmax(np.abs(grad - fd)))
            out.update(result="wrong", message=f"gradient [{k}] = {grad[k]:.10g}, finite "
                                               f"differences {fd[k]:.10g} (error "
                                               f"{worst:.3g} x tolerance)")
            return out
    return out


def check(entry, jit_modes):
    """The record of one entry: both modes, the overall result and its blocker."""
    import numpy as np
    record = {"name": entry.name, "package": entry.package, "how": how(entry),
              "dim": entry.dim, "modes": {}}
    f = entry.function()
    xs = inputs(entry)
    references = [Reference(f, x) for x in xs]
    for jit in jit_modes:
        record["modes"]["on" if jit else "off"] = run_mode(entry, f, xs, references, jit)
    off = record["modes"]["off"]
    on = record["modes"].get("on")
    if off["result"] != "pass":
        record.update(result=off["result"], blocker=off)
    elif on is not None and on["result"] != "pass":
        record.update(result=on["result"], blocker=dict(on, jit=True))
    elif on is not None:
        worst = max(float(np.max(np.abs(np.asarray(a) - np.asarray(b)) /
                                 np.maximum(1.0, np.abs(np.asarray(b)))))
                    for a, b in zip(on["grads"] + [[v] for v in on["values"]],
                                    off["grads"] + [[v] for v in off["values"]]))
        record["jit_vs_off"] = worst
        if worst > SAME:
            record.update(result="jit-mismatch", blocker={
                "message": f"JIT on and off differ by {worst:.3g} (relative)"})
        else:
            record["result"] = "pass"
    else:
        record["result"] = "pass"
    for mode in record["modes"].values():
        mode.pop("grads", None)
        mode.pop("values", None)
    if record["result"] != "pass":
        try:
            record["probe"] = probe(f, xs[0])
        except Exception as error:      # noqa: BLE001 (the probe is a diagnostic only)
            record["probe"] = {"target": "?", "result": "crash",
                               "error_class": type(error).__name__, "message": str(error)[:200]}
    return record


def method_behind(f):
    """(function, object, further arguments, a name) when `f` is a bound method, a callable
    object, or one of our wrappers calling `OBJECT.method(x, ...)`; else None. The probe
    differentiates function(object, x, ...) w.r.t. x: what s2sad says of the package's own code
    behind the method, which the method itself hides."""
    import inspect
    import types
    if inspect.ismethod(f):
        return f.__func__, f.__self__, (), f"{type(f.__self__).__name__}.{f.__name__}"
    if callable(f) and not inspect.isfunction(f) and not isinstance(f, type):
        call = type(f).__call__
        if inspect.isfunction(call):
            return call, f, (), f"{type(f).__name__}.__call__"
        return None
    if not inspect.isfunction(f):
        return None
    body = inspect.getsource(f).strip().splitlines()[-1]
    for m in re.finditer(r"([A-Za-z_][\w.]*)\.(\w+)\(\w+((?:, [^,()]+)*)\)", body):
        try:       # our own wrapper's text: OBJECT.method(x, ARG, name=ARG)
            owner = eval(m.group(1), f.__globals__)     # noqa: S307
            rest = eval(f"(lambda *a, **k: (a, k))({m.group(3).lstrip(', ')})", f.__globals__)
        except Exception:       # noqa: BLE001
            continue
        if isinstance(owner, types.ModuleType) or rest[1]:
            continue
        method = getattr(type(owner), m.group(2), None)
        if inspect.isfunction(method):
            return method, owner, rest[0], f"{type(owner).__name__}.{m.group(2)}"
    return None


def probe(f, x):
    """What s2sad says of the code behind a method: value_and_grad(function, wrt=1,
    jit=False)(object, x), checked against finite differences when it runs (JIT off only)."""
    import numpy as np

    import s2sad
    behind = method_behind(f)
    if behind is None:
        return None
    function, owner, rest, name = behind
    out = {"target": name}
    try:
        value, grad = s2sad.value_and_grad(function, wrt=1, jit=False)(owner, x.copy(), *rest)
    except s2sad.S2sadError as error:
        found = diagnostics(error)
        out.update(result="refused", error_class=type(error).__name__,
                   message=first_error_line(error), problems=len(found),
                   constructs=constructs_in(found, owner))
        return out
    except Exception as error:      # noqa: BLE001
        out.update(result="crash", error_class=type(error).__name__,
                   message=(str(error).strip().splitlines() or [""])[0][:200])
        return out
    try:
        ref = Reference(lambda y: function(owner, y, *rest), x)
        worst, _ = ref.gradient_error(np.asarray(grad, float))
        right = np.isclose(float(value), ref.value, rtol=VALUE_RTOL) and worst <= 1
    except Exception as error:      # noqa: BLE001
        out.update(result="crash", error_class=type(error).__name__,
                   message=f"checking it: {error}"[:200])
        return out
    out.update(result="pass" if right else "wrong")
    return out


def how(entry):
    """What the user passes to s2sad (the target, or the wrapper's lines) and the objects it
    names, as made by the corpus file."""
    import inspect

    import external_corpus_functions as corpus
    target = getattr(corpus, entry.target, None) if entry.target.isidentifier() else None
    if inspect.isfunction(target) and target.__module__ == corpus.__name__:
        body = inspect.getsource(target).strip().splitlines()[-1].split("#")[0].strip()
        text = f"def {entry.target}({', '.join(inspect.signature(target).parameters)}): {body}"
    else:
        text = f"s2sad.grad({entry.target})"
    made = [f"{name} = {corpus.MADE[name]}" for name in re.findall(r"\b[A-Z][A-Z0-9_]+\b", text)
            if name in corpus.MADE]
    return "; ".join([text] + made)


def worker(names, jit_off_only):
    """Check the named entries in order, one marked JSON line each on stdout."""
    sys.path.insert(0, HERE)
    with contextlib.redirect_stdout(io.StringIO()):    # opfunu prints as its objects are made
        import external_corpus_functions as corpus
        corpus.load()
    by_name = {entry.name: entry for entry in corpus.ENTRIES}
    modes = (False,) if jit_off_only else (False, True)
    for name in names:
        entry = by_name[name]
        print(MARK + json.dumps({"start": name}), flush=True)
        if entry.package in corpus.MISSING:
            record = {"name": name, "package": entry.package, "how": how(entry),
                      "dim": entry.dim, "result": "skipped",
                      "blocker": {"message": corpus.MISSING[entry.package]}, "modes": {}}
        else:
            started = time.perf_counter()
            with contextlib.redirect_stdout(sys.stderr):
                try:
                    record = check(entry, modes)
                except Exception as error:      # noqa: BLE001 (the harness's own failure)
                    record = {"name": name, "package": entry.package, "how": entry.target,
                              "dim": entry.dim, "result": "crash", "modes": {},
                              "blocker": {"error_class": type(error).__name__,
                                          "message": f"calling the package failed: {error}"}}
            record["seconds"] = round(time.perf_counter() - started, 2)
        print(MARK + json.dumps({"record": record}), flush=True)


# ---- running the workers (in the parent) --------------------------------------------------------

def spawn(names, opts, log):
    command = [sys.executable, os.path.abspath(__file__), "--worker", "--no-install",
               "--names", json.dumps(names)] + (["--jit-off-only"] if opts.jit_off_only else [])
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True,
                               cwd=REPO)
    lines = queue.Queue()

    def pump():
        for line in process.stdout:
            lines.put(line)
        lines.put(None)
    threading.Thread(target=pump, daemon=True).start()
    return process, lines


def run_all(entries, opts):
    """Every entry's record, in order; a worker that hangs or dies is replaced."""
    pending = [entry.name for entry in entries]
    records = {}
    log = tempfile.TemporaryFile(mode="w+")
    total = len(pending)
    while pending:
        log.seek(0, os.SEEK_END)
        offset = log.tell()
        process, lines = spawn(pending, opts, log)
        current, started = None, time.monotonic()
        while True:
            waited = opts.timeout + 60 if current is None else opts.timeout
            try:
                line = lines.get(timeout=max(0.1, started + waited - time.monotonic()))
            except queue.Empty:
                line = "timeout"
            if line == "timeout" or line is None:
                process.kill()
                process.wait()
                name = current or pending[0]
                if line is None:
                    log.seek(offset)
                    tail = " | ".join(log.read().strip().splitlines()[-3:])[-300:] or \
                        "(nothing on stderr)"
                    blocker = {"error_class": f"exit status {process.returncode}",
                               "message": f"the worker process died: {tail}"}
                    result = "crash"
                else:
                    blocker = {"message": f"no answer within {opts.timeout:.0f} s"}
                    result = "timeout"
                records[name] = {"name": name, "package": by_name(entries, name).package,
                                 "how": how(by_name(entries, name)), "result": result,
                                 "dim": by_name(entries, name).dim,
                                 "blocker": blocker, "modes": {},
                                 "seconds": round(time.monotonic() - started, 1)}
                show(len(records), total, records[name])
                pending.remove(name)
                break
            if not line.startswith(MARK):
                continue
            message = json.loads(line[len(MARK):])
            if "start" in message:
                current, started = message["start"], time.monotonic()
                continue
            record = message["record"]
            records[record["name"]] = record
            pending.remove(record["name"])
            show(len(records), total, record)
            current, started = None, time.monotonic()
            if not pending:
                process.wait()
                break
    log.close()
    return [records[entry.name] for entry in entries]


def by_name(entries, name):
    return next(entry for entry in entries if entry.name == name)


def show(k, total, record):
    print(f"[{k}/{total}] {record['name']}: {record['result']}"
          + (f" ({record['seconds']} s)" if "seconds" in record else "")
          + (f" -- {blocker_text(record)}" if record["result"] != "pass" else ""), flush=True)


# ---- naming the construct -----------------------------------------------------------------------

LIBRARY = "library issue"
SELF = object()     # in CONSTRUCTS: an attribute the object behind the method has
# (pattern on a diagnostic's message, pattern on its file, the construct, whether it belongs to
# the library issue: scipy.special / scipy.stats calls, random numbers); the first match names it.
# (Not the source text at the reported line: in a method s2sad's line numbers skip blank lines.)
CONSTRUCTS = [
    (r"scipy\.special", r"", "scipy.special call", True),
    (r"", r"scipy/special/", "scipy.special call", True),
    (r"scipy\.stats|`\.(logpdf|pdf|logcdf|cdf|rvs)\(", r"", "scipy.stats call", True),
    (r"", r"scipy/stats/", "scipy.stats call", True),
    (r"random", r"", "random numbers", True),
    (r"is a bound method", r"", "bound method given to grad (`obj.method`)", False),
    (r"can only differentiate Python functions, not <", r"",
     "callable object given to grad (an instance with `__call__`)", False),
    (r"cannot call '[\w.]+' \(method\)", r"", "method call on an object (`obj.method(x)`)",
     False),
    (r"", r"_array_api|array_api_compat", "scipy's array-API dispatch "
                                           "(`xp = array_namespace(x)`, `xp.f(...)`)", False),
    (SELF, r"", "attribute or method of `self`", False),
    (r"the array (attribute|method) `", r"", "attribute or method of a non-array object", False),
    (r"assignment to an attribute", r"", "assignment to an attribute (`self.n = ...`)", False),
    (r"expression statements", r"", "bare call statement (`self.check(x)`)", False),
    (r"functions with \*args|functions with \*\*kwargs", r"",
     "`*args` / `**kwargs` parameters", False),
    (r"star-arguments|`\*\*kwargs` in calls", r"", "`*args` / `**kwargs` in a call", False),
    (r"a list display is supported only", r"",
     "list whose length is known only at run time (`[x] if isscalar(x[0]) else x`)", False),
    (r"list comprehensions", r"", "list comprehension", False),
    (r"a `for` loop must assign one name", r"", "`for` with a tuple target", False),
    (r"`try`", r"", "`try`", False),
    (r"`raise`", r"", "`raise`", False),
    (r"`assert`", r"", "`assert`", False),
    (r"`del`", r"", "`del`", False),
    (r"f-strings", r"", "f-string", False),
    (r"`with` statement", r"", "`with` (`np.errstate`)", False),
    (r"complex numbers", r"", "complex numbers", False),
    (r"operator `[&|^~]`", r"", "bit operators on boolean masks (`&`, `~`)", False),
    (r"cannot be used as a value", r"", "global object used as a value (type, module, method)",
     False),
    (r"cannot call", r"", "call of a function without source or derivative rule", False),
    (r"not defined", r"", "name s2sad cannot resolve", False),
]


def label(diagnostic, owner=None):
    """(construct, library?) of one s2sad diagnostic; `owner`: the object behind the method, to
    tell its attributes (s2sad calls them array attributes) from an array's."""
    message, path = diagnostic.get("message", ""), diagnostic.get("path", "")
    for on_message, on_path, name, library in CONSTRUCTS:
        if on_message is SELF:
            found = re.search(r"the array (?:attribute|method) `\.(\w+)", message)
            if found and owner is not None and hasattr(owner, found.group(1)):
                return name, library
        elif re.search(on_message, message) and (not on_path or re.search(on_path, path)):
            return name, library
    return "other: " + re.sub(r"'[^']*'", "'...'", message)[:70], False


def constructs_in(found, owner=None):
    """The distinct constructs of a list of diagnostics, in order, each with its first one."""
    seen = {}
    for diagnostic in found:
        name, library = label(diagnostic, owner)
        seen.setdefault(name, {"construct": name, "library": library,
                               "message": diagnostic["message"],
                               "path": diagnostic["path"], "line": diagnostic["line"]})
    return list(seen.values())


def construct(record):
    """(construct, library?) naming what stops this entry: its first diagnostic's construct (a
    function of scipy.special / scipy.stats is the library issue's whatever it trips on)."""
    blocker = record.get("blocker") or {}
    result = record["result"]
    if result == "timeout":
        return "timeout", False
    if result == "skipped":
        return "package not installed", False
    if result == "jit-mismatch":
        return "JIT on and off disagree", False
    if result == "wrong":
        return "wrong " + ("value" if blocker.get("message", "").startswith("value")
                           else "gradient"), False
    for prefix in ("scipy.special", "scipy.stats"):
        if record["name"].startswith(prefix):
            return f"{prefix} call", True
    found = blocker.get("constructs") or []
    if result == "refused" and found:
        return found[0]["construct"], found[0]["library"]
    if result == "refused":
        return label({"message": blocker.get("message", "")})
    return f"crash: {blocker.get('error_class', '?')}", False


def blocker_text(record):
    blocker = record.get("blocker") or {}
    head = blocker.get("error_class", "")
    text = blocker.get("message", "")
    if blocker.get("jit"):
        head = f"JIT on: {head}"
    if blocker.get("where"):
        text += f" (at {blocker['where']})"
    extra = blocker.get("problems", 0) - 1
    if extra > 0:
        text += f" (+{extra} more)"
    return f"{head}: {text}" if head else text


# ---- the report ---------------------------------------------------------------------------------

def fell_back(record):
    return any(w.startswith("JitFallbackWarning")
               for w in record.get("modes", {}).get("on", {}).get("warnings", []))


def summary(records):
    counted = [r for r in records if r["result"] != "skipped"]

    def mode_passes(mode):
        return sum(r.get("modes", {}).get(mode, {}).get("result") == "pass" for r in counted)
    probed = [r["probe"] for r in counted if r.get("probe")]
    return {"passed": sum(r["result"] == "pass" for r in counted), "total": len(counted),
            "off": mode_passes("off"), "on": mode_passes("on"),
            "packages": len({r["package"] for r in counted}),
            "skipped": len(records) - len(counted),
            "fallback": sum(fell_back(r) for r in counted if r["result"] == "pass"),
            "probed": len(probed), "probe_pass": sum(p["result"] == "pass" for p in probed)}


def count_line(s, jit_off_only=False):
    on = "JIT on not run" if jit_off_only else f"JIT on: {s['on']} of {s['total']}"
    return (f"{s['passed']} of {s['total']} pass (JIT off: {s['off']} of {s['total']}; {on}), "
            f"from {s['packages']} packages"
            + (f"; {s['fallback']} of the passes ran as Python with jit=True (Numba fallback)"
               if s["fallback"] else "")
            + (f"; {s['skipped']} skipped: package not installed" if s["skipped"] else ""))


def escape(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def probe_text(record):
    """What the probe found behind a method: 'passes', or its first construct (+N more)."""
    found = record.get("probe")
    if not found:
        return ""
    if found["result"] in ("pass", "wrong"):
        return f"{found['target']}: {'passes' if found['result'] == 'pass' else 'WRONG'}"
    constructs = found.get("constructs") or []
    if not constructs:
        return f"{found['target']}: {found['result']}: {found.get('message', '')[:80]}"
    more = f" (+{len(constructs) - 1} more)" if len(constructs) > 1 else ""
    return f"{found['target']}: {constructs[0]['construct']}{more}"


def table(records):
    rows = ["| function | package | result | blocker | behind the method |",
            "|---|---|---|---|---|"]
    for r in records:
        if r["result"] == "pass":
            blocker = "(JIT on ran as Python: Numba fallback)" if fell_back(r) else ""
        else:
            blocker = blocker_text(r)
        rows.append(f"| {escape(r['name'])} | {r['package']} | {r['result']} | "
                    f"{escape(blocker)} | {escape(probe_text(r))} |")
    return rows


def per_package(records):
    rows = ["| package | functions | pass | JIT off pass | JIT on pass | behind the method: "
            "passes |", "|---|---|---|---|---|---|"]
    for package in dict.fromkeys(r["package"] for r in records):
        mine = [r for r in records if r["package"] == package]
        probed = [r["probe"] for r in mine if r.get("probe")]
        rows.append(f"| {package} | {len(mine)} | {sum(r['result'] == 'pass' for r in mine)} | "
                    + " | ".join(str(sum(r.get('modes', {}).get(m, {}).get('result') == 'pass'
                                         for r in mine)) for m in ("off", "on"))
                    + f" | {sum(p['result'] == 'pass' for p in probed)} of {len(probed)} |")
    return rows


def groups(records):
    """[(construct, library?, count, example record)] of the blockers, most frequent first."""
    found = collections.OrderedDict()
    for r in records:
        if r["result"] != "pass":
            found.setdefault(construct(r), []).append(r)
    return sorted(((name, library, len(rs), rs[0]) for (name, library), rs in found.items()),
                  key=lambda g: -g[2])


def code_groups(records):
    """[(construct, library?, count, (record, its first diagnostic))]: every construct s2sad
    reports in the packages' code (behind the method where there is one), one count per
    function, most frequent first."""
    found = collections.OrderedDict()
    for r in records:
        if r["result"] == "pass":
            continue
        where = r.get("probe") or r.get("blocker") or {}
        for c in where.get("constructs") or []:
            found.setdefault((c["construct"], c["library"]), []).append((r, c))
    return sorted(((name, library, len(rs), rs[0]) for (name, library), rs in found.items()),
                  key=lambda g: -g[2])


def group_lines(records, markdown):
    lines = []
    for name, library, count, example in groups(records):
        shown = f"{name} [{LIBRARY}]" if library else name
        text = f"{shown}: {count} (e.g. {example['name']}: {blocker_text(example)})"
        lines.append(f"- {escape(text)}" if markdown else "  " + text)
    return lines


def code_lines(records, markdown):
    lines = []
    for name, library, count, (record, first) in code_groups(records):
        shown = f"{name} [{LIBRARY}]" if library else name
        where = f"{os.path.basename(first['path'])}:{first['line']}"
        text = f"{shown}: {count} (e.g. {record['name']}, {where}: {first['message']})"
        lines.append(f"- {escape(text)}" if markdown else "  " + text)
    return lines


def how_lines(records):
    rows = ["| function | what is given to s2sad |", "|---|---|"]
    for r in records:
        rows.append(f"| {escape(r['name'])} | `{escape(r['how'])}` |")
    return rows


def write_markdown(path, records, opts, elapsed):
    s = summary(records)
    found = versions()
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "?"
    dirty = subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--", "s2sad",
                            "templates"], capture_output=True, text=True).stdout.strip()
    lines = [
        "# External corpus: s2sad on functions from PyPI packages",
        "",
        "Generated by `make corpus` (`tests/external_corpus.py`; the functions are listed in "
        "`tests/external_corpus_functions.py`). Do not edit: run `make corpus` again to "
        "regenerate it.",
        "",
        f"- Date: {datetime.date.today().isoformat()}; s2sad at {commit}"
        + (" with uncommitted changes to s2sad/ or templates/" if dirty else "")
        + f"; Python {sys.version.split()[0]}; the run took {elapsed / 60:.1f} min.",
        "- Packages: " + ", ".join(f"{name} {version}" for name, version in found.items()) + ".",
        f"- Each function: `s2sad.value_and_grad(f, jit=False)` and `jit=True` on {INPUTS} random "
        "float64 inputs from its box, against the package's own value and central finite "
        f"differences of the package's function (relative tolerance {RTOL:g} of max(1, |g|)), "
        f"and JIT on against JIT off to {SAME:g}.",
        "",
        f"**{count_line(s, opts.jit_off_only)}.**",
        "",
        "## By package",
        "",
        *per_package(records),
        "",
        "## Failures by construct",
        "",
        "The first construct s2sad reports for each function that does not pass (s2sad "
        f"reports all it finds at once: `+N more` in the table). `[{LIBRARY}]`: calls into "
        "scipy.special / scipy.stats, and random numbers.",
        "",
        *group_lines(records, markdown=True),
        "",
        "## Behind the method",
        "",
        "Where a package hands out a method or an object, s2sad can stop at the method before "
        "it reads the package's code. To name what comes after, the run also differentiates "
        "the function behind it with its object as an argument, "
        "`s2sad.value_and_grad(type(obj).method, wrt=1, jit=False)(obj, x)` (JIT off, checked "
        "against finite differences). This probe does not count as a pass: "
        f"{s['probe_pass']} of the {s['probed']} methods probed would pass that way. "
        "Every construct s2sad reports in the packages' code (behind the method where there is "
        "one), counted once per function:",
        "",
        *code_lines(records, markdown=True),
        "",
        "## Every function",
        "",
        *table(records),
        "",
        "## What is given to s2sad",
        "",
        "A target is the package's own function, method or object; a `def` is a two-line "
        "wrapper in tests/external_corpus_functions.py around the package's call.",
        "",
        *how_lines(records),
        "",
    ]
    with open(path, "w") as handle:
        handle.write("\n".join(lines))


def report(records, opts, elapsed):
    s = summary(records)
    width = max(len(r["name"]) for r in records) + 2
    print(f"\n{'function':{width}} {'package':20} {'result':13} blocker")
    for r in records:
        print(f"{r['name']:{width}} {r['package']:20} {r['result']:13} "
              f"{'' if r['result'] == 'pass' else blocker_text(r)[:150]}")
    print("\n" + "\n".join(per_package(records)))
    print("\nfailures by construct (the first s2sad reports):")
    print("\n".join(group_lines(records, markdown=False)) or "  none")
    print(f"\nbehind the method (a probe, not counted): {s['probe_pass']} of {s['probed']} "
          "would pass; every construct in the packages' code, once per function:")
    print("\n".join(code_lines(records, markdown=False)) or "  none")
    print(f"\n{count_line(s, opts.jit_off_only)}; {elapsed / 60:.1f} min")


# ---- main ---------------------------------------------------------------------------------------

def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", default=[],
                        help="only functions whose name contains TEXT (repeatable)")
    parser.add_argument("--package", action="append", default=[],
                        help="only this package's functions (repeatable)")
    parser.add_argument("--jit-off-only", action="store_true", help="skip jit=True")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="seconds per function (default 120)")
    parser.add_argument("--no-install", action="store_true",
                        help="run in the current environment, without .venv-corpus")
    parser.add_argument("--out", help="write the report here (a full run writes "
                                      "tests/EXTERNAL_CORPUS.md)")
    parser.add_argument("--list", action="store_true", help="list the functions and stop")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--names", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    opts = parse(argv)
    if opts.worker:
        worker(json.loads(opts.names), opts.jit_off_only)
        return 0
    if not opts.no_install and not inside_venv():
        ensure_venv()
        os.execv(venv_python(), [venv_python(), os.path.abspath(__file__)] + argv)
    sys.path.insert(0, HERE)
    import external_corpus_functions as corpus
    entries = [e for e in corpus.ENTRIES
               if (not opts.only or any(text.lower() in e.name.lower() for text in opts.only))
               and (not opts.package or e.package in opts.package)]
    if not entries:
        raise SystemExit(f"no function matches --only {opts.only} --package {opts.package}")
    if opts.list:
        for e in entries:
            print(f"{e.name:45} {e.package:20} dim {e.dim:3} {e.target}")
        return 0
    cache = tempfile.mkdtemp(prefix="s2sad-corpus-")
    os.environ["S2SAD_CACHE_DIR"] = cache
    os.environ.pop("S2SAD_DISABLE_JIT", None)
    print(f"{len(entries)} functions from {len({e.package for e in entries})} packages, JIT "
          f"{'off' if opts.jit_off_only else 'off and on'}, timeout {opts.timeout:.0f} s each; "
          + ", ".join(f"{k} {v}" for k, v in versions().items()), flush=True)
    started = time.perf_counter()
    try:
        records = run_all(entries, opts)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    elapsed = time.perf_counter() - started
    report(records, opts, elapsed)
    full = not opts.only and not opts.package and not opts.jit_off_only
    out = opts.out or (REPORT if full else None)
    if out:
        write_markdown(out, records, opts, elapsed)
        print(f"written: {os.path.relpath(out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
