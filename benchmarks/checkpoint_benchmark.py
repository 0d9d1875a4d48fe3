"""Benchmark: a checkpointed loop against the plain loop, wall time and peak memory.

    python benchmarks/checkpoint_benchmark.py [--n 100000] [--size 100] [--repeat 5]

The gradient (w.r.t. x, w and b, JIT on) of `n` steps of `x = x + dt * tanh(w * x + b)` on a
state vector of `--size` floats, written once with `for i in range(n):` and once with
`for i in s2sad.checkpointed(range(n)):`. Each number comes from a fresh subprocess:

  time      median of `--repeat` gradient calls, after one untimed call at the same n
  memory    ru_maxrss of a process that calls the gradient, minus ru_maxrss of a process that
            does everything else (imports, inputs, loading the compiled gradient, a call at
            n = 3; the lower of two such processes, before and after), so what remains is what
            the gradient call itself needs. Numba allocates outside Python's allocator, which
            tracemalloc cannot see; the OS can.

Before the numbers are shown, both gradients are checked against each other (1e-10 relative):
a checkpointed gradient that differs makes the exit status 1. The compiled gradients live in
s2sad's cache (`$S2SAD_CACHE_DIR`), filled by a first subprocess so that the measured ones load
the same compiled code. Results go to benchmarks/CHECKPOINT_RESULTS.md (`--out`).
"""
import argparse
import datetime
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import s2sad
from s2sad.runtime import rt

RTOL = 1e-10
HERE = os.path.dirname(os.path.abspath(__file__))


# ---- the differentiated functions (s2sad reads this source) -----------------------------------

def plain(x, w, b, dt, n):
    for i in range(n):
        x = x + dt * np.tanh(w * x + b)
    return np.sum(x * x)


def checkpointed(x, w, b, dt, n):
    for i in s2sad.checkpointed(range(n)):
        x = x + dt * np.tanh(w * x + b)
    return np.sum(x * x)


VARIANTS = {"plain loop": plain, "checkpointed": checkpointed}


def inputs(size):
    rng = np.random.default_rng(0)
    return rng.normal(size=size), rng.uniform(0.5, 1.5, size), rng.normal(size=size), 0.01


# ---- one measurement, in a fresh process -------------------------------------------------------

def child(variant, n, size, repeat, call, result):
    """Load the gradient (compiled at n = 3); with `call`, time it at n and save it."""
    gradient = s2sad.grad(VARIANTS[variant], wrt=(0, 1, 2), jit=True)
    x, w, b, dt = inputs(size)
    gradient(x, w, b, dt, 3)
    report = {}
    if call:
        gradient(x, w, b, dt, n)  # untimed: first call at this size
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            grads = gradient(x, w, b, dt, n)
            times.append(time.perf_counter() - start)
        report["seconds"] = statistics.median(times)
        np.savez(result, *grads)
    report["maxrss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps(report))


def run_child(variant, args, call, result=""):
    command = [sys.executable, os.path.abspath(__file__), "--child", variant, "--n", str(args.n),
               "--size", str(args.size), "--repeat", str(args.repeat), "--result", result]
    if call:
        command.append("--call")
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"measuring {variant} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ---- the driver -------------------------------------------------------------------------------

def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="loop steps")
    parser.add_argument("--size", type=int, default=100, help="state vector length")
    parser.add_argument("--repeat", type=int, default=5, help="timed calls per variant")
    parser.add_argument("--out", default=os.path.join(HERE, "CHECKPOINT_RESULTS.md"),
                        help="the results file ('' for none)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--call", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child, args.n, args.size, args.repeat, args.call, args.result)

    every = rt.checkpoint_every(args.n)
    print(f"gradient of {args.n} steps of x = x + dt * tanh(w * x + b), x of {args.size} "
          f"floats; checkpointed: {-(-args.n // every)} snapshots, segments of {every} steps",
          flush=True)
    rows = {}
    with tempfile.TemporaryDirectory() as scratch:
        for k, variant in enumerate(VARIANTS, 1):
            step = f"[{k}/{len(VARIANTS)}] {variant}:"
            print(f"{step} transforming and compiling ...", end=" ", flush=True)
            started = time.perf_counter()
            run_child(variant, args, call=False)  # fills s2sad's and Numba's caches
            print(f"{time.perf_counter() - started:.1f} s; baseline process ...", end=" ",
                  flush=True)
            baseline = run_child(variant, args, call=False)["maxrss_kib"]
            print(f"measuring ({1 + args.repeat} gradient calls) ...", end=" ", flush=True)
            result = os.path.join(scratch, f"{k}.npz")
            measured = run_child(variant, args, call=True, result=result)
            # a baseline that had to compile (its cache went stale meanwhile) would be too high
            baseline = min(baseline, run_child(variant, args, call=False)["maxrss_kib"])
            peak = (measured["maxrss_kib"] - baseline) / 1024
            print(f"{measured['seconds']:.3f} s, {peak:.0f} MiB", flush=True)
            with np.load(result) as saved:
                grads = [saved[name] for name in saved.files]
            rows[variant] = (measured["seconds"], peak, grads)
    worst = max(float(np.max(np.abs(c - p) / np.maximum(1.0, np.abs(p))))
                for c, p in zip(rows["checkpointed"][2], rows["plain loop"][2]))
    same = worst <= RTOL

    table = table_lines(rows)
    print("\n" + "\n".join(table))
    verdict = "same gradient" if same else "WRONG: the gradients differ"
    print(f"\ncheckpointed vs plain loop: worst relative difference {worst:.1e} ({verdict})")
    if args.out:
        write_results(args, every, table, worst, verdict)
        print(f"written to {os.path.relpath(args.out)}")
    return 0 if same else 1


def table_lines(rows):
    base_time, base_peak, _ = rows["plain loop"]
    lines = ["| loop | gradient time (median) | peak memory of the call | time | memory |",
             "|---|---:|---:|---:|---:|"]
    for variant, (seconds, peak, _) in rows.items():
        lines.append(f"| {variant} | {seconds:.3f} s | {peak:.1f} MiB | "
                     f"{seconds / base_time:.2f}x | {peak / max(base_peak, 1e-9):.3f}x |")
    return lines


def write_results(args, every, table, worst, verdict):
    import numba
    text = [
        "# Checkpointed loops: measured results",
        "",
        f"Written by `benchmarks/checkpoint_benchmark.py` (`make bench-checkpoint`) on "
        f"{datetime.date.today().isoformat()}. The gradient w.r.t. x, w, b (JIT on) of "
        f"{args.n} steps of `x = x + dt * tanh(w * x + b)` with x, w, b of {args.size} floats; "
        f"the checkpointed loop keeps {-(-args.n // every)} snapshots and re-runs segments of "
        f"{every} steps. Time: median of {args.repeat} calls after one untimed call. Memory: "
        "ru_maxrss of a process calling the gradient minus that of a process doing everything "
        "else; each in a fresh process.",
        "",
        *table,
        "",
        f"Checkpointed vs plain loop gradients: worst relative difference {worst:.1e} "
        f"({verdict}).",
        "",
        f"- machine: {platform.machine()}, {os.cpu_count()} cores, "
        f"{platform.processor() or 'processor unknown'}, {platform.platform()}",
        f"- versions: Python {platform.python_version()}, NumPy {np.__version__}, "
        f"Numba {numba.__version__}, s2sad {s2sad.__version__}",
        "",
    ]
    with open(args.out, "w") as handle:
        handle.write("\n".join(text))


if __name__ == "__main__":
    sys.exit(main())
