"""How long Numba takes to compile each runtime helper form generated code commonly calls
(issue 18: the first call of a gradient is mostly Numba compiling).

Each form is a tiny function, e.g. `def form(g, like): return rt.unbroadcast(g, like)` with a
2-D `g` and a 1-D `like`. It is compiled in a fresh process of its own, after one warm-up
function (`x * 2.0 + 1.0` on a 1-D array: Numba's own first-function start-up, about 0.7 s, is
paid there and is not counted), and the table gives the time of the form's first call: typing,
lowering and LLVM for the helper and whatever NumPy-in-Numba code it pulls in. Plain NumPy forms
(`np.exp(x)`, `np.sum(m, axis=0)`, ...) are listed too, for scale: they are what the rules of
common functions (exp, log, tanh, sum, mean, max) compile to besides the helpers.

    .venv/bin/python benchmarks/helper_compile.py                     # every form, table by time
    .venv/bin/python benchmarks/helper_compile.py --only unbroadcast  # forms whose name has it
    .venv/bin/python benchmarks/helper_compile.py --repeat 3          # best of 3 processes each
    .venv/bin/python benchmarks/helper_compile.py --save before.json  # keep the numbers
    .venv/bin/python benchmarks/helper_compile.py --compare before.json   # before/after table
    .venv/bin/python benchmarks/helper_compile.py --child NAME        # one form, a JSON line

Times are the process's CPU time (`time.process_time`, compiling is single-threaded), which a
busy machine disturbs less than wall time; wall time is in the saved JSON too. The figures of
one process vary by about 10 %: use --repeat on a loaded machine.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Inputs, by name: s a float, v a (4,) array, y a (3,) array, W a (3, 4) matrix, M a (4, 2)
# matrix, P a (3, 2) matrix, B a (2, 3, 4) array, e a 0-d array, i an int.
INPUTS = """
s = 1.5
v = np.linspace(0.5, 1.5, 4)
y = np.linspace(-1.0, 1.0, 3)
W = np.linspace(0.5, 1.5, 12).reshape(3, 4)
M = np.linspace(-1.0, 1.0, 8).reshape(4, 2)
P = np.linspace(0.5, 1.5, 6).reshape(3, 2)
B = np.linspace(0.5, 1.5, 24).reshape(2, 3, 4)
e = np.array(0.5)
i = 2
"""

# (name, the call, its arguments): shapes as in INPUTS. The names say the operands' ranks.
FORMS = [
    # ---- for scale: a trivial function, and the NumPy the rules of common functions compile to
    ("return its argument (1-D)", "v", "v"),
    ("np: g * z (exp rule, 1-D)", "v * y[0]", "v, y"),
    ("np: np.exp(v)", "np.exp(v)", "v"),
    ("np: np.log(v)", "np.log(v)", "v"),
    ("np: np.tanh(v)", "np.tanh(v)", "v"),
    ("np: g * (1.0 - z * z) (tanh rule)", "v * (1.0 - y[0] * v)", "v, y"),
    ("np: np.sum(v)", "np.sum(v)", "v"),
    ("np: np.sum(W, axis=0)", "np.sum(W, axis=0)", "W"),
    ("np: np.mean(v)", "np.mean(v)", "v"),
    ("np: np.max(v)", "np.max(v)", "v"),
    ("np: W @ v", "W @ v", "W, v"),
    ("np: np.outer(y, v)", "np.outer(y, v)", "y, v"),
    ("np: y[:, None] * v[None, :]", "y[:, None] * v[None, :]", "y, v"),
    # ---- values
    ("zeros_like (scalar)", "rt.zeros_like(s)", "s"),
    ("zeros_like (1-D)", "rt.zeros_like(v)", "v"),
    ("zeros_like (2-D)", "rt.zeros_like(W)", "W"),
    ("copy (scalar)", "rt.copy(s)", "s"),
    ("copy (1-D)", "rt.copy(v)", "v"),
    ("copy (2-D)", "rt.copy(W)", "W"),
    ("saved (scalar)", "rt.saved(s)", "s"),
    ("saved (1-D)", "rt.saved(v)", "v"),
    ("saved (2-D)", "rt.saved(W)", "W"),
    ("item (0-d)", "rt.item(e)", "e"),
    ("not_finite (1-D)", "rt.not_finite(v)", "v"),
    ("add_at (1-D, int, scalar)", "rt.add_at(v, i, s)", "v, i, s"),
    ("reshape_like (2-D -> 1-D)", "rt.reshape_like(W.reshape(12), W)", "W"),
    ("reshape_like (1-D -> 2-D)", "rt.reshape_like(W, W.reshape(12))", "W"),
    # ---- broadcasting undone
    ("unbroadcast (scalar, scalar)", "rt.unbroadcast(s, s)", "s"),
    ("unbroadcast (1-D, scalar)", "rt.unbroadcast(v, s)", "v, s"),
    ("unbroadcast (scalar, 1-D)", "rt.unbroadcast(s, v)", "s, v"),
    ("unbroadcast (1-D, 1-D)", "rt.unbroadcast(v, v)", "v"),
    ("unbroadcast (1-D * 2.0, 1-D)", "rt.unbroadcast(v * 2.0, v)", "v"),
    ("unbroadcast (2-D, 2-D)", "rt.unbroadcast(W, W)", "W"),
    ("unbroadcast (2-D, 1-D)", "rt.unbroadcast(W, v)", "W, v"),
    ("unbroadcast (3-D, 2-D)", "rt.unbroadcast(B, W)", "B, W"),
    ("unbroadcast (2-D, scalar)", "rt.unbroadcast(W, s)", "W, s"),
    ("broadcast_like (scalar, 1-D)", "rt.broadcast_like(s, v)", "s, v"),
    ("broadcast_like (1-D, 2-D)", "rt.broadcast_like(v, W)", "v, W"),
    # ---- reductions undone (sum, mean)
    ("unreduce (scalar, 1-D, None)", "rt.unreduce(s, v, None)", "s, v"),
    ("unreduce (scalar, 2-D, None)", "rt.unreduce(s, W, None)", "s, W"),
    ("unreduce (scalar, 1-D, 0)", "rt.unreduce(s, v, 0)", "s, v"),
    ("unreduce (1-D, 2-D, 0)", "rt.unreduce(v, W, 0)", "v, W"),
    ("unreduce (1-D, 2-D, 1)", "rt.unreduce(y, W, 1)", "y, W"),
    ("mean rule: unreduce / reduced_size (2-D, None)",
     "rt.unreduce(s, W, None) / rt.reduced_size(W, None)", "s, W"),
    ("reduced_size (2-D, 0)", "rt.reduced_size(W, 0)", "W"),
    ("reduce_sum (1-D)", "rt.reduce_sum(v)", "v"),
    ("reduce_sum (2-D, 0)", "rt.reduce_sum(W, 0)", "W"),
    ("extremum_grad (scalar, 1-D)", "rt.extremum_grad(s, v, np.max(v), None)", "s, v"),
    ("extremum_grad (scalar, 2-D)", "rt.extremum_grad(s, W, np.max(W), None)", "s, W"),
    ("extremum_mask (1-D)", "rt.extremum_mask(v, np.max(v), None)", "v"),
    # ---- np.dot and @
    ("matmul_grad_a (2-D, 1-D)", "rt.matmul_grad_a(y, W, v)", "y, W, v"),
    ("matmul_grad_b (2-D, 1-D)", "rt.matmul_grad_b(y, W, v)", "y, W, v"),
    ("matmul_grad_a (1-D, 2-D)", "rt.matmul_grad_a(v, y, W)", "v, y, W"),
    ("matmul_grad_b (1-D, 2-D)", "rt.matmul_grad_b(v, y, W)", "v, y, W"),
    ("matmul_grad_a (2-D, 2-D)", "rt.matmul_grad_a(P, W, M)", "P, W, M"),
    ("matmul_grad_b (2-D, 2-D)", "rt.matmul_grad_b(P, W, M)", "P, W, M"),
    ("matmul_grad_a (1-D, 1-D)", "rt.matmul_grad_a(s, v, v)", "s, v"),
    ("matmul_grad_b (1-D, 1-D)", "rt.matmul_grad_b(s, v, v)", "s, v"),
    ("dot_grad_a (2-D, 1-D)", "rt.dot_grad_a(y, W, v)", "y, W, v"),
    ("dot_grad_b (2-D, 1-D)", "rt.dot_grad_b(y, W, v)", "y, W, v"),
    ("dot_grad_a (1-D, 2-D)", "rt.dot_grad_a(v, y, W)", "v, y, W"),
    ("dot_grad_b (1-D, 2-D)", "rt.dot_grad_b(v, y, W)", "v, y, W"),
    ("dot_grad_a (2-D, 2-D)", "rt.dot_grad_a(P, W, M)", "P, W, M"),
    ("dot_grad_b (2-D, 2-D)", "rt.dot_grad_b(P, W, M)", "P, W, M"),
    ("dot_grad_a (1-D, 1-D)", "rt.dot_grad_a(s, v, v)", "s, v"),
    ("dot_grad_b (1-D, 1-D)", "rt.dot_grad_b(s, v, v)", "s, v"),
    ("dot_grad_a (scalar, 1-D)", "rt.dot_grad_a(v, s, v)", "v, s"),
    # ---- the demo's dlayer and dloss backward sweeps, as one function each
    ("demo: dlayer's helpers",
     "(rt.unbroadcast(y, y), rt.matmul_grad_a(rt.unbroadcast(y, y), W, v))", "y, W, v"),
    ("demo: dloss's helpers",
     "(rt.unreduce(s * 0.01, W, None) * 2 * W, rt.unbroadcast(rt.unreduce(s, y, None) * y, y))",
     "s, W, y"),
]


def child(name):
    """Compile the form `name` after a warm-up function; print a JSON line."""
    start = time.perf_counter()
    import numba
    import numpy as np

    from s2sad.runtime import dispatch, rt
    dispatch.install()
    imported = time.perf_counter() - start

    @numba.njit
    def warm(x):
        return x * 2.0 + 1.0
    start = time.perf_counter()
    warm(np.ones(3))
    warm_up = time.perf_counter() - start

    call, arguments = {form[0]: form[1:] for form in FORMS}[name]
    scope = {"np": np, "rt": rt}
    exec(INPUTS, scope)
    exec(f"def form({arguments}):\n    return {call}\n", scope)
    values = eval(f"({arguments},)", scope)
    compiled = numba.njit(scope["form"])
    cpu, wall = time.process_time(), time.perf_counter()
    compiled(*values)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(json.dumps({"name": name, "cpu": cpu, "wall": wall, "imports": imported,
                      "warm_up": warm_up}))


def measure(name, repeat):
    """The best of `repeat` fresh processes (CPU time), as the child's JSON dict."""
    best = None
    for _ in range(repeat):
        # an empty Numba cache: the helpers are compiled, not loaded (runtime/numba_cache.py)
        with tempfile.TemporaryDirectory(prefix="s2sad_helper_compile_") as numba_cache:
            env = dict(os.environ, NUMBA_CACHE_DIR=numba_cache,
                       PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", name],
                                 capture_output=True, text=True, env=env, cwd=ROOT)
        if out.returncode != 0:
            return {"name": name, "error": (out.stderr.strip().splitlines() or ["?"])[-1]}
        row = json.loads(out.stdout.strip().splitlines()[-1])
        if best is None or row["cpu"] < best["cpu"]:
            best = row
    return best


def table(rows, before=None):
    """Rows sorted by time, slowest first; with `before` (name -> row), before/after columns."""
    width = max(len(row["name"]) for row in rows)
    ok = sorted((r for r in rows if "error" not in r), key=lambda r: -r["cpu"])
    lines = []
    if before is None:
        lines.append(f"| {'form':<{width}} | compile (s) |")
        lines.append(f"|{'-' * (width + 2)}|-------------|")
        for row in ok:
            lines.append(f"| {row['name']:<{width}} | {row['cpu']:11.3f} |")
    else:
        lines.append(f"| {'form':<{width}} | before (s) | after (s) |  ratio |")
        lines.append(f"|{'-' * (width + 2)}|------------|-----------|--------|")
        for row in ok:
            old = before.get(row["name"], {}).get("cpu")
            shown = f"{old:10.3f}" if old is not None else " " * 10
            ratio = f"{row['cpu'] / old:6.2f}" if old else " " * 6
            lines.append(f"| {row['name']:<{width}} | {shown} | {row['cpu']:9.3f} | {ratio} |")
    for row in rows:
        if "error" in row:
            lines.append(f"| {row['name']:<{width}} | error: {row['error']}")
    total = sum(r["cpu"] for r in ok)
    lines.append(f"\ntotal {total:.2f} s over {len(ok)} forms")
    if before:
        old = sum(before[r["name"]]["cpu"] for r in ok if r["name"] in before)
        lines[-1] += f" (before: {old:.2f} s)"
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--only", help="forms whose name contains this")
    parser.add_argument("--repeat", type=int, default=1, help="processes per form (the best)")
    parser.add_argument("--save", help="write the results as JSON")
    parser.add_argument("--compare", help="a JSON file --save wrote: before/after columns")
    parser.add_argument("--list", action="store_true", help="list the forms")
    args = parser.parse_args()
    if args.child:
        return child(args.child)
    names = [form[0] for form in FORMS if not args.only or args.only in form[0]]
    if args.list:
        print("\n".join(names))
        return None
    rows = []
    for k, name in enumerate(names):
        row = measure(name, args.repeat)
        rows.append(row)
        shown = f"{row['cpu']:.3f} s" if "error" not in row else "error: " + row["error"]
        print(f"[{k + 1}/{len(names)}] {name}: {shown}", file=sys.stderr, flush=True)
    if args.save:
        with open(args.save, "w") as out:
            json.dump(rows, out, indent=1)
    before = None
    if args.compare:
        with open(args.compare) as old:
            before = {row["name"]: row for row in json.load(old) if "error" not in row}
    print(table(rows, before))
    return None


if __name__ == "__main__":
    main()
