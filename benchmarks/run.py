"""The peer benchmark (issues 7 and 18): s2sad's gradients against a hand-written Numba
adjoint, JAX, HIPS autograd and PyTorch, on the problems of problems.py; then the loop kernels
of loop_kernels.py against their Numba forward and hand-written adjoints (loop_shapes.py, issue
33); then s2sad's latency and the lines of its generated gradients against the hand-written
adjoints'.

    make bench [ARGS="--quick --only lstm --repeat 5 --no-install --threads 1"]
    python benchmarks/run.py [--quick] [--only NAME] [--repeat N] [--no-install] [--threads N]
                             [--no-latency] [--no-loops]

Without --no-install it first makes its own environment `.venv-bench` at the repository root
(s2sad installed with `pip install -e .`, then JAX, autograd, PyTorch 2.13.0 and matplotlib,
each on its own so that one failure only skips that peer) and runs itself again inside it.
An existing .venv-bench is reused (delete it to set it up again). Thread counts are fixed
(default 1) before NumPy is imported. Prints progress, the tables (with the ratio of
generated to hand-written lines) and the targets of issue 18; writes
benchmarks/RESULTS.md and benchmarks/results.png (full runs; with --quick or --only only when
--out is given). Exit status 1 when any gradient disagrees with the hand-written adjoint.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
VENV = os.path.join(REPO, ".venv-bench")
STAMP = os.path.join(VENV, ".bench-installed.json")
SETUP_VERSION = 1   # bump when the list below changes: an older .venv-bench is set up again
PEER_PACKAGES = {   # one pip call each; never plain `torch`, which pulls GBs of CUDA libraries
    "JAX": ["jax", "jaxlib"],
    "autograd": ["autograd"],
    "PyTorch": ["torch==2.13.0"],
    "matplotlib": ["matplotlib"],
}
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                    "NUMBA_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="small sizes and 2 timed calls, for development")
    parser.add_argument("--only", metavar="NAME",
                        help="only the problems and latency functions whose name contains "
                             "NAME (e.g. gmm, lstm, demo)")
    parser.add_argument("--repeat", type=int, default=None,
                        help="timed calls per cell, the median is shown (default 7; 2 with "
                             "--quick)")
    parser.add_argument("--no-install", action="store_true",
                        help="run with the current interpreter; missing peers are skipped")
    parser.add_argument("--threads", type=int, default=1, help="threads for BLAS, Numba, "
                        "XLA and PyTorch (default 1)")
    parser.add_argument("--no-latency", action="store_true",
                        help="skip the fresh-process latency measurements")
    parser.add_argument("--no-loops", action="store_true",
                        help="skip the loop-shapes benchmark (loop_shapes.py, issue 33)")
    parser.add_argument("--out", help="the results file (default benchmarks/RESULTS.md for "
                        "full runs; the chart goes beside it as results.png)")
    opts = parser.parse_args(argv)
    if opts.repeat is None:
        opts.repeat = 2 if opts.quick else 7
    return opts


def fix_threads(threads):
    """Before NumPy, Numba, JAX or PyTorch are imported (their pools size themselves then)."""
    for name in THREAD_VARIABLES:
        os.environ[name] = str(threads)
    if threads == 1:
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                                   " --xla_cpu_multi_thread_eigen=false"
                                   " intra_op_parallelism_threads=1").strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")


def venv_python():
    return os.path.join(VENV, "bin", "python")


def inside_venv():
    return os.path.realpath(sys.prefix) == os.path.realpath(VENV)


def ensure_venv():
    """Create and fill .venv-bench unless a stamp says it is done; returns the stamp."""
    if os.path.exists(STAMP):
        with open(STAMP) as handle:
            stamp = json.load(handle)
        if stamp.get("version") == SETUP_VERSION and os.path.exists(venv_python()):
            return stamp
    print(f"setting up {os.path.relpath(VENV)} (a few minutes the first time; JAX and PyTorch "
          "are large) ...", flush=True)
    if not os.path.exists(venv_python()):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    pip = [venv_python(), "-m", "pip", "install", "--quiet"]
    done = subprocess.run(pip + ["-e", REPO], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"pip install -e . into {VENV} failed:\n{done.stderr[-3000:]}")
    stamp = {"version": SETUP_VERSION, "failed": {}}
    for peer, packages in PEER_PACKAGES.items():
        print(f"  installing {' '.join(packages)} ...", end=" ", flush=True)
        started = time.perf_counter()
        done = subprocess.run(pip + packages, capture_output=True, text=True)
        if done.returncode == 0:
            print(f"{time.perf_counter() - started:.0f} s", flush=True)
        else:
            reason = (done.stderr.strip().splitlines() or ["pip failed"])[-1]
            stamp["failed"][peer] = reason
            print(f"FAILED, {peer} will be skipped: {reason}", flush=True)
    with open(STAMP, "w") as handle:
        json.dump(stamp, handle, indent=1)
    return stamp


def say(column, value=None, extra=""):
    """One line of progress: `column: time extra`, or free text when value is None."""
    if value is None:
        print(column, end="", flush=True)
        return
    import report
    shown = report.fmt_time(value) if isinstance(value, float) else value
    print(f"    {column:14} {shown:>10} {extra}".rstrip(), flush=True)


def run(opts):
    import cases
    import latency
    import measure
    import peers
    import report
    import results_sections

    failed_installs = {}
    if os.path.exists(STAMP) and inside_venv():
        with open(STAMP) as handle:
            failed_installs = json.load(handle).get("failed", {})
    loads = [os.getloadavg()[0]]
    installed = {}
    for peer in peers.PEERS:
        why = peers.missing(peer)
        if why and peer in failed_installs:
            why = f"pip install failed: {failed_installs[peer]}"
        installed[peer] = why
    missing = [f"{peer} ({why})" for peer, why in installed.items() if why]
    if missing:
        print("skipping, not installed: " + "; ".join(missing), flush=True)

    chosen = cases.all_cases(opts.quick, opts.only)
    timed = [] if opts.no_latency else [name for name, *_ in cases.latency_functions()
                                        if not opts.only or opts.only in name]
    if not chosen and not timed:   # --only demo: the latency of the demo's loss alone
        raise SystemExit(f"no problem or latency function matches --only {opts.only!r}")
    rows = []
    for k, case in enumerate(chosen, 1):
        print(f"[{k}/{len(chosen)}] {case.name}: checking the hand adjoint against finite "
              "differences, then check and time each column", flush=True)
        rows.append(measure.measure(case, opts.repeat, installed, say))
    shapes, per_value = [], {}
    if not opts.no_loops:
        import loop_shapes
        print("loop shapes (issue 33): the Numba forward, s2sad and the hand adjoint of each "
              "kernel of loop_kernels.py", flush=True)
        shapes = loop_shapes.measure_all(opts.repeat, opts.only, lambda line: print(line,
                                                                                   flush=True))
        per_value = loop_shapes.push_vs_store() if not opts.only else {}
    latencies = []
    if not opts.no_latency:
        print("s2sad latency, each in fresh processes with an empty cache:", flush=True)
        latencies = latency.measure_all(say, opts.only)
    loads.append(os.getloadavg()[0])

    if rows:
        print("\n" + "\n".join(report.gradient_table(rows)))
        print("\n(ratios in parentheses: to the Numba forward)")
    if latencies:
        print("\n" + "\n".join(report.latency_table(latencies)))
    counts = report.line_counts(rows)
    if counts:
        print("\n" + "\n".join(report.lines_table(counts)))
    print("\n" + "\n".join(report.target_table(report.targets(rows, latencies, counts))))
    shapes_text = _shapes_section(shapes, per_value) if shapes else ""
    if shapes_text:
        print("\n" + shapes_text)
    for note in report.notes(rows, installed, latencies):
        print("\n" + note)

    out = opts.out or (None if opts.quick or opts.only else
                       os.path.join(HERE, "RESULTS.md"))
    if out:
        chart = os.path.join(os.path.dirname(os.path.abspath(out)), "results.png")
        chart_note = report.write_chart(chart, rows)
        others = results_sections.kept(out)   # e.g. make bench-arrays's section: kept
        report.write_markdown(out, opts, rows, latencies, installed, loads, chart_note, counts)
        if shapes_text:
            with open(out, "a") as handle:
                handle.write("\n" + shapes_text + "\n")
        results_sections.restore(out, others)
        print(f"\nwritten: {os.path.relpath(out)}" +
              (f" ({chart_note})" if chart_note else f", {os.path.relpath(chart)}"))
    else:
        print("\n(--quick/--only: RESULTS.md not written; --out FILE writes one)")
    wrong = [w for row in rows + shapes for w in row.wrong]
    for line in wrong:
        print(line, file=sys.stderr)
    return 1 if wrong else 0


def _shapes_section(shapes, per_value):
    """The loop-shapes table, its targets and the cost of keeping a number, as markdown."""
    import loop_shapes
    text = ["## Loop shapes (issue 33)", "",
            "Kernels written as people write them (loop_kernels.py), gradient w.r.t. their "
            "differentiable arguments at the large sizes; lines: the generated gradient's code "
            "lines (and at commit a6a379c, before issue 33).", ""]
    text += loop_shapes.table(shapes) + [""] + loop_shapes.targets(shapes)
    if per_value:
        text += ["", "ns per number kept on a tape (4 M values):", ""]
        text += [f"- {label}: {ns:.1f} ns" for label, ns in per_value.items()]
    return "\n".join(text)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    opts = parse(argv)
    fix_threads(opts.threads)
    if not opts.no_install and not inside_venv():
        ensure_venv()
        os.execv(venv_python(), [venv_python(), os.path.abspath(__file__), *argv])
    return run(opts)


if __name__ == "__main__":
    sys.exit(main())
