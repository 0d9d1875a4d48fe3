"""Published kernels (issue 48, item 8): s2sad on loop kernels other people wrote for Numba, in
their authors' spelling, from packages installed from PyPI at pinned versions.

    make bench-published [ARGS="--only garch --repeat 3"]
    python benchmarks/published_kernels.py [--only TEXT] [--repeat N] [--no-install] [--out PATH]

It first makes `.venv-kernels` at the repository root (this checkout `pip install -e .`, then
PINNED) and runs itself in it (--no-install: in the current environment). s2sad reads the plain
function behind each package's dispatcher (`.py_func`); the forward is the package's dispatcher.
An array result (or a tuple's first) is differentiated with `s2sad.vjp` against fixed random
weights, applied here, outside the function. Each kernel runs in a fresh worker process, one at
a time: on small inputs, JIT on and off against central finite differences of the package's
function (float64) and on against off to 1e-12, `s2sad.JitFallbackWarning` an error; on large
ones, the median of --repeat calls after a warm-up of the forward and of the gradient (jit=True).
Each kernel is right, wrong (off, or the gradient raised), refused (an S2sadError), fallback or
crash, with the first line of the error. A full run writes benchmarks/PUBLISHED_KERNELS.md: the
table, the median and worst gradient / forward over the right kernels (target <= 4x), the
failures and why the slow ones are slow (WHY). Exit status 0: the counts are the report.
"""
import argparse
import dataclasses
import datetime
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

from loop_shapes import median_time   # (the loop-shapes benchmark's timer, in this directory)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
VENV = os.path.join(REPO, ".venv-kernels")
STAMP = os.path.join(VENV, ".kernels-installed.json")
REPORT = os.path.join(HERE, "PUBLISHED_KERNELS.md")
PINNED = {"arch": "arch==8.0.0", "librosa": "librosa==0.11.0", "pandas": "pandas==2.3.3",
          "arviz": "arviz==0.23.4"}
TARGET = 4.0        # gradient <= 4x its Numba forward
SAME = 1e-12        # JIT on vs off, relative to max(1, |off|)
FD_STEP = 1e-6      # central differences, relative to max(1, |x_i|)
RTOL = 1e-5         # gradient vs finite differences, relative to max(1, |fd|)
MARK = "@@kernel@@ "
WHY = {     # read in the errors and generated files (s2sad.source), shown beside the results
    "__dtw_calc_accu_cost": "the indices `cur_n - step_sizes_sigma[k, 0]` (an int array) are "
                            "kept on a float64 tape (`numpy.empty(n)`) and index dD as floats",
    "sliding_mean": "the returned tuple holds a list (`na_pos = [0 for i in range(0)]`); the "
                    "loop calls @numba.jit helpers (add_mean, remove_mean) too",
    "sliding_var": "the returned tuple holds a list, as sliding_mean's; @numba.jit helpers too",
    "sliding_min_max": "lists Q and W used as deques: `while Q and ...: Q.pop()`, `Q.pop(0)`",
    "midas_recursion": "two Python-list tapes appended per inner trip (the term under `if (t - i "
                       "- 1) >= 0`, one a bool), though the trip counts are known",
    "_cov_kernel": "per lag, the k x n view `x[i:].T` and the k x k product copied onto entry "
                   "stacks (x is never written), then two n x k matmul gradients of strided "
                   "operands added into slices of dx, against one k x k product in the forward",
    "__lpc": "per order, five length-n error arrays copied onto entry stacks (three of them the "
             "same array, or a slice of one, already kept), against two array updates forward",
    "_viterbi": "a copy of the row `ptr[t]` per (t, j) (`rt.saved(ptr[t])`) and two Python-list "
                "tapes appended per inner trip, though the trip counts are known",
    "egarch_recursion": "ten values and two branch flags kept per trip (the old contents of the "
                        "buffers std_resids and abs_std_resids among them) for an exp, a sqrt "
                        "and a division",
    "figarch_weights": "three floats kept per trip (`delta[i - 1]` twice, `lam[i - 1]`), though "
                       "neither array is written again, against a forward of 1.7 ns per trip "
                       "(4x when the forward's first touch of its arrays is slow, 15x when not)",
}


@dataclasses.dataclass
class Kernel:
    name: str           # the function's name in its module
    module: str
    wrt: tuple
    make: object        # (rng, *size) -> the arguments
    small: tuple        # the size for finite differences
    large: tuple        # the size for timing
    shape: str          # the loop shape, for the table

    @property
    def package(self):
        return self.module.split(".")[0]


# ---- inputs -------------------------------------------------------------------------------------

def _arch(rng, n, kind, m=8):
    """The arguments of arch's recursion `kind`: parameters, residuals (or their squares and
    signs), zeroed output buffers, the orders, n, the backcast and arch's wide variance bounds."""
    r, zero, w = 0.5 * rng.standard_normal(n), np.zeros(n), rng.uniform(0.5, 1.0, m)
    back, bounds = float(np.mean(r * r)), np.tile([1e-6, 1e6], (n, 1))
    lags = np.array([1, 5, 22], np.int32)
    return {"garch": (np.array([.05, .08, .05, .85]), r * r, np.sign(r), zero, 1, 1, 1, n),
            "harch": (np.array([.05, .3, .3, .2]), r, zero, lags, n),
            "arch": (np.array([.05, .3, .2, .1]), r, zero, 3, n),
            "egarch": (np.array([-.05, .1, -.05, .95]), r, zero, 1, 1, 1, n),
            "midas": (np.array([.05, .4, .1]), w / w.sum(), r, zero, n),
            "figarch": (np.array([.05, .2, .4, .3]), r * r, zero, 1, 1, n, m),
            "aparch": (np.array([.05, .1, .2, .8, 1.5]), r, np.abs(r), zero, zero.copy(), 1, 1, 1,
                       n)}[kind] + ((np.log(back), bounds, zero.copy(), zero.copy(), zero.copy())
                                    if kind == "egarch" else (back, bounds))


def _cov(rng, n, k, lags):
    w = 1.0 - np.arange(lags + 1) / (lags + 1.0)        # Bartlett weights, as arch makes them
    return n, k, lags + 1, w, rng.standard_normal((n, k))


def _lpc(rng, n, order):
    a = np.zeros(order + 1)
    a[0] = 1.0
    y = np.sin(0.05 * np.arange(n)) + 0.3 * rng.standard_normal(n)
    return y, order, a, a.copy(), np.empty(1), np.empty(1), 1e-9


def _dtw(rng, n, m):
    C = rng.uniform(0.1, 1.0, (n, m))
    D = np.full((n + 1, m + 1), np.inf)                 # padded as librosa.sequence.dtw pads it
    D[1, 1] = C[0, 0]
    steps = np.array([[1, 1], [0, 1], [1, 0]])
    return C, D, np.zeros(D.shape, np.int32), steps, np.ones(3), np.zeros(3), 1, 1


def _viterbi(rng, T, S):
    A, p = rng.uniform(0.1, 1.0, (S, S)), rng.uniform(0.1, 1.0, S)
    return (np.log(rng.uniform(0.05, 1.0, (T, S))), np.log(A / A.sum(1)[:, None]),
            np.log(p / p.sum()))


def _windows(rng, n, width, *extra):
    end = np.arange(1, n + 1, dtype=np.int64)           # pandas' rolling(width) bounds
    return (rng.standard_normal(n), np.dtype(np.float64), np.maximum(end - width, 0), end, 1,
            *extra)


REC, SEQ, NB = "arch.univariate.recursions_python", "librosa.sequence", "pandas.core._numba.kernels"
KERNELS = [
    Kernel("garch_recursion", REC, (0, 1), _arch, (12, "garch"), (200_000, "garch"),
           "recurrence, 3 inner loops, branches"),
    Kernel("harch_recursion", REC, (0, 1), _arch, (30, "harch"), (50_000, "harch"),
           "nest over lags, int bounds"),
    Kernel("arch_recursion", REC, (0, 1), _arch, (12, "arch"), (200_000, "arch"),
           "nest, branch, ** 2"),
    Kernel("egarch_recursion", REC, (0, 1), _arch, (12, "egarch"), (200_000, "egarch"),
           "recurrence through 4 arrays, exp/log"),
    Kernel("midas_recursion", REC, (0, 2), _arch, (30, "midas"), (50_000, "midas", 22),
           "array unpacking, nest"),
    Kernel("figarch_weights", REC, (0,), lambda g, lags: (g.uniform(.1, .4, 3), 1, 1, lags),
           (20,), (200_000,), "linear recurrence, conditional expressions"),
    Kernel("figarch_recursion", REC, (0, 1), _arch, (12, "figarch", 20), (2000, "figarch", 1000),
           "triangular nest, calls a kernel"),
    Kernel("aparch_recursion", REC, (0, 1), _arch, (12, "aparch"), (200_000, "aparch"),
           "recurrence, x ** delta"),
    Kernel("_cov_kernel", "arch.covariance.kernel", (3, 4), _cov, (10, 2, 3), (5000, 4, 30),
           "loop of sliced matmuls"),
    Kernel("__lpc", "librosa.core.audio", (0,), _lpc, (16, 4), (20_000, 16),
           "Burg: swapped buffers, shrinking slices"),
    Kernel("__dtw_calc_accu_cost", SEQ, (0,), _dtw, (5, 6), (400, 400),
           "DP nest, zip loop, min by branch"),
    Kernel("_viterbi", SEQ, (0, 1, 2), _viterbi, (6, 3), (2000, 16),
           "max-product DP, argmax, backtrack"),
    Kernel("__rqa_dp", SEQ, (0, 1, 2), lambda g, n: (g.uniform(-.5, 1, (n, n)), .3, .2, True),
           (6,), (300,), "DP nest, tuple stores, argmax"),
    Kernel("sliding_mean", NB + ".mean_", (0,), _windows, (12, 4), (200_000, 20),
           "windows, Kahan sum, tuple-returning helpers"),
    Kernel("sliding_var", NB + ".var_", (0,), _windows, (12, 4), (200_000, 20),
           "windows, Welford, tuple-returning helpers"),
    Kernel("sliding_min_max", NB + ".min_max_", (0,), _windows, (12, 4, True),
           (200_000, 20, True), "monotone queue: while loops over lists"),
    Kernel("stats_variance_1d", "arviz.stats.stats_utils", (0,),
           lambda g, n: (g.standard_normal(n) + 1.0,), (10,), (1_000_000,),
           "for over an array's elements"),
]


# ---- the environment ----------------------------------------------------------------------------

def venv_python():
    return os.path.join(VENV, "bin", "python")


def ensure_venv():
    """Create and fill .venv-kernels unless its stamp says PINNED is installed."""
    if os.path.exists(STAMP) and os.path.exists(venv_python()):
        with open(STAMP) as handle:
            if json.load(handle).get("pinned") == PINNED:
                return
    print(f"setting up {os.path.relpath(VENV)} (a few minutes the first time) ...", flush=True)
    if not os.path.exists(venv_python()):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    with open(os.path.join(VENV, ".gitignore"), "w") as handle:
        handle.write("*\n")                          # the environment ignores itself
    pip = [venv_python(), "-m", "pip", "install", "--quiet"]
    for requirement in [["-e", REPO]] + [[r] for r in PINNED.values()]:
        done = subprocess.run(pip + requirement, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"pip install {' '.join(requirement)} failed:\n{done.stderr[-3000:]}")
    with open(STAMP, "w") as handle:
        json.dump({"pinned": PINNED}, handle)


def versions():
    from importlib import metadata
    return {name: metadata.version(name) for name in list(PINNED) + ["numba", "numpy"]}


# ---- one kernel (in a worker process) -----------------------------------------------------------

def load(kernel):
    """(the author's plain Python function, the package's compiled forward)."""
    import importlib
    import numba
    target = getattr(importlib.import_module(kernel.module), kernel.name)
    if hasattr(target, "py_func"):                   # a Numba dispatcher
        return target.py_func, target
    plain = getattr(target, "function", target)      # arviz's maybe_numba_fn keeps it here
    return plain, numba.njit(plain)


def first_line(error):
    """`file:line: message` of an s2sad diagnostic (and how many more), else the exception's
    first line and the line whose adjoint raised it."""
    text = str(error).strip()
    found = [line for line in text.splitlines() if re.search(r": (error|warning): ", line)]
    if found:
        where, message = re.split(r": (?:error|warning): ", found[0], maxsplit=1)
        where = re.sub(r"^.*/([^/]+):(\d+):\d+$", r"\1:\2", where)
        more = f" (+{len(found) - 1} more)" if len(found) > 1 else ""
        return f"{where}: {message.strip()[:160]}{more}"
    adjoint = re.search(r"from the adjoint of \S*?([^/\s]+:\d+)",
                        " ".join(getattr(error, "__notes__", [])))
    return (f"{type(error).__name__}: {(text.splitlines() or [''])[0][:160]}"
            + (f" (in the adjoint of {adjoint.group(1)})" if adjoint else ""))


def fresh(args):
    """Copies of the array arguments: the kernels write into their buffers."""
    return tuple(a.copy() if hasattr(a, "copy") and not isinstance(a, type) else a for a in args)


def first_array(result):
    return np.asarray(result[0] if isinstance(result, tuple) else result, float)


def weighting(result):
    """Fixed random weights for an array result (its first, in a tuple; zero where it is not
    finite, as DTW's padding); None for a number."""
    if not isinstance(result, tuple) and np.ndim(result) == 0:
        return None
    first = first_array(result)
    return np.random.default_rng(8).uniform(0.5, 1.5, first.shape) * np.isfinite(first)


def scalarised(result, weights):
    """The number we differentiate: the result, or its weighted sum."""
    if weights is None:
        return float(result)
    keep = weights != 0
    return float(np.sum(weights[keep] * first_array(result)[keep]))


def gradient_of(plain, kernel, result, weights, jit):
    """args -> the tuple of gradients: `grad`, or `vjp` with the weights as cotangent (float
    zeros for a tuple's other results)."""
    import s2sad
    if weights is None:
        gradient, seed = s2sad.grad(plain, wrt=kernel.wrt, jit=jit), ()
    else:
        gradient = s2sad.vjp(plain, wrt=kernel.wrt, jit=jit)
        seed = (weights if not isinstance(result, tuple) else
                (weights,) + tuple(np.zeros(np.shape(r)) for r in result[1:]),)

    def call(args):
        grads = gradient(*args, *seed)
        return grads if isinstance(grads, tuple) else (grads,)
    return call


def finite_differences(plain, args, position, weights):
    x = np.asarray(args[position], float)
    grad, noise = np.zeros(x.shape), np.zeros(x.shape)
    for index in np.ndindex(x.shape):
        h = FD_STEP * max(1.0, abs(float(x[index])))
        at = []
        for sign in (1, -1):
            y = x.copy()
            y[index] += sign * h
            moved = fresh(args)
            moved = moved[:position] + ((y if x.ndim else float(y)),) + moved[position + 1:]
            at.append(scalarised(plain(*moved), weights))
        grad[index] = (at[0] - at[1]) / (2 * h)
        noise[index] = 100 * np.finfo(float).eps * max(1.0, abs(at[0])) / h
    return grad, noise


def check(kernel, plain, row):
    """The gradient on small inputs, JIT off and on, against finite differences and each other."""
    import warnings
    import s2sad
    args = kernel.make(np.random.default_rng(48), *kernel.small)
    result = plain(*fresh(args))
    weights = weighting(result)
    got = {}
    for jit in (False, True):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warnings.simplefilter("error", s2sad.JitFallbackWarning)
            got[jit] = gradient_of(plain, kernel, result, weights, jit)(fresh(args))
        row["warnings"] = sorted(set(row.get("warnings", [])) | {
            f"{w.category.__name__}: {first_line(w.message)}"
            for w in caught if issubclass(w.category, s2sad.S2sadWarning)})
    same = max(float(np.max(np.abs(np.asarray(a, float) - np.asarray(b, float))
                            / np.maximum(1.0, np.abs(np.asarray(b, float)))))
               for a, b in zip(got[True], got[False]))
    row["same"] = same
    for k, position in enumerate(kernel.wrt):
        fd, noise = finite_differences(plain, args, position, weights)
        for jit in (False, True):
            error = np.abs(np.asarray(got[jit][k], float) - fd) / (RTOL * np.maximum(1, np.abs(fd))
                                                                   + noise)
            if not np.all(error <= 1):
                return (f"d/d(argument {position}), JIT {'on' if jit else 'off'}: off finite "
                        f"differences by {float(np.max(error)) * RTOL:.1e} relative")
    if same > SAME:
        return f"JIT on and off differ by {same:.1e}"
    return None


def measure(kernel, repeat):
    import warnings
    import s2sad
    row = {"name": kernel.name, "result": "right", "error": ""}
    try:
        plain, forward = load(kernel)
    except Exception as error:   # noqa: BLE001 - the package could not be loaded: say why
        return dict(row, result="crash", error=first_line(error))
    try:
        wrong = check(kernel, plain, row)
    except s2sad.JitFallbackWarning as error:
        return dict(row, result="fallback", error=first_line(error))
    except s2sad.S2sadError as error:
        return dict(row, result="refused", error=first_line(error))
    except Exception as error:   # noqa: BLE001 - the generated gradient raised
        return dict(row, result="wrong", error="raised " + first_line(error))
    if wrong:
        row.update(result="wrong", error=wrong)
    args = kernel.make(np.random.default_rng(48), *kernel.large)
    result = forward(*fresh(args))
    weights = weighting(result)
    row["forward"] = median_time(lambda: forward(*args), repeat)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.JitFallbackWarning)
        call = gradient_of(plain, kernel, result, weights, True)
        row["s2sad"] = median_time(lambda: call(args), repeat)
    return row


def worker(name, repeat):
    kernel = next(k for k in KERNELS if k.name == name)
    print(MARK + json.dumps(measure(kernel, repeat)), flush=True)


# ---- the report ---------------------------------------------------------------------------------

def run(kernel, repeat, timeout):
    command = [sys.executable, os.path.abspath(__file__), "--worker", kernel.name,
               "--repeat", str(repeat), "--no-install"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"name": kernel.name, "result": "timeout", "error": f"no answer in {timeout:.0f} s"}
    for line in done.stdout.splitlines():
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])
    tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return {"name": kernel.name, "result": "crash", "error": tail[:200]}


def ratio(row):
    return row["s2sad"] / row["forward"] if row.get("s2sad") and row.get("forward") else None


def table(rows):
    out = ["| package | function | loop shape | Numba forward ms | s2sad ms | ratio | on vs off "
           "| result |", "|---|---|---|---:|---:|---:|---:|---|"]
    for row in rows:
        k = next(k for k in KERNELS if k.name == row["name"])
        r = ratio(row)
        times = (f"{row['forward'] * 1e3:.3f} | {row['s2sad'] * 1e3:.3f} | {r:.2f}x" if r
                 else " | | ")
        same = f"{row['same']:.0e}" if "same" in row else ""
        out.append(f"| {k.package} {PINNED[k.package].split('==')[1]} | `{k.module}.{k.name}` | "
                   f"{k.shape} | {times} | {same} | {row['result']} |")
    return out


def summary(rows):
    counts = {}
    for row in rows:
        counts[row["result"]] = counts.get(row["result"], 0) + 1
    ratios = {row["name"]: ratio(row) for row in rows if row["result"] == "right"}
    lines = [f"{len(rows)} kernels: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))]
    if ratios:
        worst = max(ratios, key=ratios.get)
        over = sorted(n for n, r in ratios.items() if r > TARGET)
        lines.append(f"gradient / Numba forward over the {len(ratios)} right kernels: median "
                     f"{float(np.median(list(ratios.values()))):.2f}x, worst "
                     f"{ratios[worst]:.2f}x ({worst}); over {TARGET:g}x: "
                     f"{', '.join(over) if over else 'none'}")
    return lines


def write_markdown(path, rows, repeat):
    stamp = datetime.date.today().isoformat()
    lines = ["# Published kernels", "",
             "Written by `make bench-published` ([benchmarks/published_kernels.py]"
             f"(published_kernels.py)); do not edit by hand. Run of {stamp}, "
             + ", ".join(f"{k} {v}" for k, v in versions().items())
             + f", median of {repeat} calls after a warm-up, on a shared 2-core machine.", "",
             "Loop kernels other people wrote for Numba, read from their packages (the plain "
             "function behind the dispatcher, in its authors' spelling), kept apart from the "
             "team's own kernels ([loop_kernels.py](loop_kernels.py)). `ratio` is s2sad's "
             "gradient (`jit=True`) over the package's own Numba forward on the large inputs. "
             "An array result is weighted by fixed random numbers outside the function "
             "(`s2sad.vjp`).", ""] + table(rows) + [""]
    lines += [f"- {line}" for line in summary(rows)]
    failed = [row for row in rows if row["result"] != "right"]
    if failed:
        lines += ["", "## Failures", ""]
        lines += [f"- `{row['name']}` ({row['result']}): {row['error']}"
                  + (f"; {WHY[row['name']]}" if row["name"] in WHY else "") for row in failed]
    warned = [(row["name"], w) for row in rows for w in row.get("warnings", [])]
    if warned:
        lines += ["", "## Warnings of right kernels", ""]
        lines += [f"- `{name}`: {w}" for name, w in warned]
    slow = [row["name"] for row in rows if (ratio(row) or 0) > TARGET and row["name"] in WHY]
    if slow:
        lines += ["", f"## Why the ones over {TARGET:g}x are slow", "",
                  "What the generated gradient does per trip, read with `s2sad.source`:", ""]
        lines += [f"- `{name}`: {WHY[name]}" for name in slow]
    with open(path, "w") as handle:
        handle.write("\n".join(lines) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="only the kernels whose name contains this")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per kernel")
    parser.add_argument("--no-install", action="store_true",
                        help="run in the current environment, without .venv-kernels")
    parser.add_argument("--out", help="write the report here (a full run writes "
                                      "benchmarks/PUBLISHED_KERNELS.md)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    opts = parser.parse_args(argv)
    if opts.worker:
        worker(opts.worker, opts.repeat)
        return 0
    if not opts.no_install and os.path.realpath(sys.prefix) != os.path.realpath(VENV):
        ensure_venv()
        os.execv(venv_python(), [venv_python(), os.path.abspath(__file__)] + sys.argv[1:])
    kernels = [k for k in KERNELS if not opts.only or opts.only in k.name]
    rows = []
    for kernel in kernels:
        started = time.perf_counter()
        rows.append(run(kernel, opts.repeat, opts.timeout))
        row = rows[-1]
        print(f"  {kernel.name:22} {row['result']:9} {time.perf_counter() - started:5.0f} s  "
              + (f"{ratio(row):.2f}x" if ratio(row) else "") + f"  {row['error']}", flush=True)
    print("\n" + "\n".join(table(rows)) + "\n\n" + "\n".join(summary(rows)))
    out = opts.out or (REPORT if not opts.only else None)
    if out:
        write_markdown(out, rows, opts.repeat)
        print(f"written: {os.path.relpath(out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
