"""Use s2sad as a user who ran `pip install s2sad` does (issue 46): run by .ci/wheel-check with
the python of a fresh venv holding the wheel, from a directory outside the checkout.

- `import s2sad` finds the installed package (in this venv's site-packages, not a checkout),
  with s2sad.templates, and every module of the package imports;
- a function with a loop and NumPy calls, in a .py file written here, differentiated with
  jit=True and jit=False: both agree with each other and with central finite differences;
- the default (jit=None, tiered): answers from Python, then runs compiled once its background
  compile is done, with the worker forked from a fresh process and started as a new
  interpreter from this one (Numba loaded), both from the installed package;
- `s2sad show FILE:FUNC` prints the generated code, `s2sad templates sin` lists rules,
  `s2sad --version` and `python -m s2sad --help` work.

Exit status 0 when all holds; otherwise the first failure, named.
"""
import argparse
import glob
import importlib
import importlib.metadata
import importlib.util
import os
import pkgutil
import subprocess
import sys
import sysconfig
import time
import warnings

import numpy as np

USER_CODE = '''\
import numpy as np


def chain(x, k):
    """The energy of a chain of springs: a loop over neighbours, NumPy calls in and after it."""
    total = 0.0
    for i in range(x.shape[0] - 1):
        d = x[i + 1] - x[i]
        total = total + k * np.sin(d) ** 2 + np.exp(-d * d)
    return total + np.sum(np.tanh(x) * x) + np.log1p(np.dot(x, x))
'''
STARTED = time.perf_counter()


def step(text):
    print(f"smoke [{time.perf_counter() - STARTED:5.1f} s] {text}", flush=True)


def fail(text):
    sys.exit(f"smoke: FAILED: {text}")


def inside(path, directory):
    path, directory = os.path.realpath(path), os.path.realpath(directory)
    return os.path.commonpath([path, directory]) == directory


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", help="the checkout the wheel was built from: s2sad must "
                                           "not be imported from there")
    options = parser.parse_args()
    site = sysconfig.get_paths()["purelib"]
    if sys.prefix == sys.base_prefix:
        fail(f"{sys.executable} is not a venv's python")

    try:
        import s2sad
        import s2sad.templates
    except ImportError as exc:
        fail(f"import s2sad: {exc!r} (the wheel lacks a module or a dependency?)")
    step(f"import s2sad {s2sad.__version__}: {s2sad.__file__}")
    if not inside(s2sad.__file__, os.path.join(site, "s2sad")):
        fail(f"s2sad was imported from {s2sad.__file__}, not from this venv's {site}")
    if options.checkout and inside(s2sad.__file__, options.checkout):
        fail(f"s2sad was imported from the checkout {options.checkout}")
    if not inside(s2sad.templates.__file__, os.path.join(site, "s2sad", "templates")):
        fail(f"s2sad.templates is {s2sad.templates.__file__}, not in {site}/s2sad/templates")
    stray = importlib.util.find_spec("templates")
    if stray is not None and stray.origin and inside(stray.origin, site):
        fail(f"the wheel installed a top-level `templates` package: {stray.origin}")
    if importlib.metadata.version("s2sad") != s2sad.__version__:
        fail(f"installed metadata says {importlib.metadata.version('s2sad')}, "
             f"s2sad.__version__ {s2sad.__version__}")
    import_every_module(s2sad)
    python = differentiate()
    tiered(python)
    commands(s2sad.__version__)
    step("OK: the installed wheel imports, differentiates and runs its command")


def import_every_module(package):
    """Import each module of the installed package: a module or package the wheel lacks fails
    here by name. Modules needing an optional extra (dask) are skipped when it is absent."""
    names, skipped = [], []
    for info in pkgutil.walk_packages(package.__path__, "s2sad.", onerror=lambda name: None):
        if info.name.endswith("__main__"):
            continue
        try:
            importlib.import_module(info.name)
        except ImportError as exc:
            absent = exc             # s2sad.dask raises its own ImportError from Dask's
            while absent is not None and not isinstance(absent, ModuleNotFoundError):
                absent = absent.__cause__
            if absent is None or not absent.name or \
                    absent.name.split(".")[0] in ("s2sad", "templates"):
                fail(f"importing {info.name}: {exc!r} (the wheel lacks a module?)")
            skipped.append(f"{info.name} (needs {absent.name})")
            continue
        names.append(info.name)
    if len(names) < 50:
        fail(f"only {len(names)} modules of s2sad found: {names}")
    step(f"imported {len(names)} modules of s2sad" +
         (f"; skipped, an optional dependency absent: {', '.join(skipped)}" if skipped else ""))


def differentiate():
    import s2sad
    with open("user_model.py", "w") as handle:
        handle.write(USER_CODE)
    spec = importlib.util.spec_from_file_location("user_model", os.path.abspath("user_model.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules["user_model"] = module
    spec.loader.exec_module(module)
    x, k = np.array([0.3, -0.2, 0.9, 0.5, -1.1, 0.05]), 0.7

    warnings.simplefilter("error", s2sad.S2sadWarning)    # a fallback to Python fails too
    results = {}
    for jit in (False, True):
        started = time.perf_counter()
        gradient = s2sad.grad(module.chain, wrt=("x", "k"), jit=jit)
        dx, dk = gradient(x, k)
        dx2, dk2 = gradient(x * 1.5, k)            # a second call, other values, same types
        results[jit] = (np.asarray(dx), float(dk), np.asarray(dx2), float(dk2))
        if not os.path.isfile(gradient.path):
            fail(f"jit={jit}: the generated file {gradient.path} does not exist")
        stem = os.path.splitext(os.path.basename(gradient.path))[0]
        cached = glob.glob(os.path.join(os.path.dirname(gradient.path), "__pycache__",
                                        glob.escape(stem) + ".*.nbi"))
        if jit and not cached:     # Numba's index of what it compiled (cache=True)
            fail(f"jit=True: Numba compiled nothing for {gradient.path} (no .nbi file)")
        step(f"grad(chain, jit={jit}): two calls in {time.perf_counter() - started:.1f} s, "
             f"generated {gradient.path}")

    def central(f, value, h=1e-6):
        value = np.array(value, dtype=np.float64)
        out = np.empty_like(value)
        for i in np.ndindex(value.shape):
            up, down = value.copy(), value.copy()
            up[i] += h
            down[i] -= h
            out[i] = (f(up) - f(down)) / (2 * h)
        return out

    for scale, (dx_at, dk_at) in ((1.0, (0, 1)), (1.5, (2, 3))):
        xs = x * scale
        fd_x = central(lambda v: module.chain(v, k), xs)
        fd_k = float(central(lambda v: module.chain(xs, float(v)), k))
        for jit in (False, True):
            dx, dk = results[jit][dx_at], results[jit][dk_at]
            if dx.shape != x.shape or not np.allclose(dx, fd_x, rtol=1e-6, atol=1e-8) or \
                    not np.isclose(dk, fd_k, rtol=1e-6, atol=1e-8):
                fail(f"jit={jit}, x*{scale}: the gradient {dx}, {dk} differs from central "
                     f"finite differences {fd_x}, {fd_k}")
    for python, compiled in zip(results[False], results[True]):
        if not np.allclose(python, compiled, rtol=1e-12, atol=1e-14):
            fail(f"jit=True gives {compiled}, jit=False {python}")
    step("both gradients agree with central finite differences (rtol 1e-6) and with each "
         "other (rtol 1e-12)")
    return results[False][:2]


TIERED = """
import sys
import numpy as np
import s2sad
sys.path.insert(0, ".")
import user_model
g = s2sad.grad(user_model.chain, wrt=("x", "k"))
x = np.array({x})
first = g(x, 0.7)
assert not g.runs_compiled and g.wait_compiled(), "the background compile failed"
again = g(x, 0.7)
assert g.runs_compiled, "not compiled after the background compile"
print(repr(float(first[1])), repr(float(again[1])), sys.modules.get("numba") is not None)
"""


def tiered(python):
    """The default, jit=None: its worker forked from a fresh process (Numba not loaded there)
    and started as a new interpreter from this one (Numba loaded), from the installed package."""
    import s2sad
    x = [0.3, -0.2, 0.9, 0.5, -1.1, 0.05]
    env = dict(os.environ, S2SAD_BACKGROUND_COMPILE="1")
    out = run([sys.executable, "-c", TIERED.format(x=x)], [], env=env).split()
    forked = [float(v) for v in out[:2]]
    os.environ["S2SAD_BACKGROUND_COMPILE"] = "1"
    module = sys.modules["user_model"]
    g = s2sad.grad(module.chain, wrt=("x", "k"))
    first = g(np.array(x), 0.7)
    if not (not g.runs_compiled and g.wait_compiled()):
        fail("jit=None: the background compile failed")
    again = g(np.array(x), 0.7)
    if not g.runs_compiled:
        fail("jit=None: calls do not run compiled after the background compile")
    for got in (forked[0], forked[1], float(first[1]), float(again[1])):
        if not np.isclose(got, python[1], rtol=1e-12, atol=1e-14):
            fail(f"jit=None gives dk={got}, jit=False {python[1]}")
    step("the default (tiered): Python first, then compiled, the worker forked and spawned")


def run(argv, expect, env=None):
    result = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env)
    shown = " ".join(os.path.basename(a) if a == sys.executable else a for a in argv)
    if argv[1:2] == ["-c"]:
        shown = "python -c <script>"
    if result.returncode != 0:
        fail(f"`{shown}` exited with {result.returncode}:\n{result.stdout}{result.stderr}")
    missing = [text for text in expect if text not in result.stdout]
    if missing:
        fail(f"`{shown}` printed no {missing}:\n{result.stdout}{result.stderr}")
    step(f"`{shown}`: exit 0, {len(result.stdout.splitlines())} lines")
    return result.stdout


def commands(version):
    command = os.path.join(os.path.dirname(sys.executable), "s2sad")
    if not os.path.isfile(command):
        fail(f"the wheel installed no `s2sad` command next to {sys.executable}")
    run([command, "show", "user_model.py:chain", "--wrt", "x,k"],
        ["def dchain(x, k, d_result):", "# ---- backward sweep ----", "[user_model.py:"])
    run([command, "templates", "sin"], ["sin"])
    out = run([command, "--version"], [f"s2sad {version}"])
    if out.strip() != f"s2sad {version}":
        fail(f"`s2sad --version` printed {out!r}")
    run([sys.executable, "-m", "s2sad", "--version"], [f"s2sad {version}"])
    run([sys.executable, "-m", "s2sad", "--help"], ["usage: s2sad", "show", "--version"])


if __name__ == "__main__":
    main()
