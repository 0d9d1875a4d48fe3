"""`make bench-arrays` (issue 47): s2sad's compiled gradients of array code against
`jax.jit(jax.grad(f))` of the same code, in the same run.

The problems are array_problems.py's: a particle chain and an LSTM written with whole-array
operations, the ADBench GMM with a 3-D `@` and an `lru_cache`d index helper (two sizes), and
tier_cases.py's MLP and GP loss; each has a jax.numpy twin of the same statements (loops over
time as `lax.scan`). Everything runs in .venv-bench (made as `make bench` makes it), where JAX
is installed and s2sad is the checkout; one thread for BLAS, Numba and XLA (run.fix_threads).

In this process, per problem:
  gradient check    s2sad.grad(f, jit=True) and JAX's gradient on the same inputs: equal to
                    1e-7 relative (the largest difference over the largest entry) or WRONG
  runs compiled     whether s2sad's calls run Numba's code (`runs_compiled` of the gradient's
                    runner); when not, the JitFallbackWarning's reason
  steady / call     s2sad and JAX interleaved: rounds of a batch of s2sad calls then a batch
                    of JAX calls (each batch ~20 ms), the median per-call time over the rounds
In fresh processes with new, empty S2SAD_CACHE_DIR and NUMBA_CACHE_DIR, per problem:
  jit=True, nothing cached     the first call of s2sad.grad(f, jit=True): transform, Numba's
                    compile of the gradient and of s2sad's runtime helpers, the call
  jit=True, after an edit      a second process on the same caches, the function edited (a
                    comment added to its body, tier_latency._edited): helpers from the cache
  tiered, after an edit        a third process, edited again, with the default (jit=None):
                    its first gradient and the time until calls run compiled, the caller
                    calling in a loop meanwhile (tier_latency.first_gradient)
  JAX first call    trace + compile + call of jax.jit(jax.grad(f)) in a fresh process
Imports are not in the first calls, except Numba's, which s2sad's first compiled call makes
(the fresh processes read their inputs from a file made here: cases.py, which makes them,
imports Numba).

    python benchmarks/array_bench.py [--quick] [--only NAME] [--rounds 15] [--no-first]
                                     [--no-install] [--out FILE]
    python benchmarks/array_bench.py --child KIND INPUTS [--edits N]   # one process (JSON)

A full run (no --quick, --only or --no-first) writes its section of benchmarks/RESULTS.md
(between markers, results_sections.py; the rest of the file is left as it is); a partial one
writes to --out if given. Exit status 1 when a gradient differs from JAX's.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RTOL = 1e-7
BATCH = 0.02            # s: the length of a batch of calls in the interleaved rounds
FIRST_LIMIT, FIRST_VS_JAX = 5.0, 2.0   # issue 47's targets for the first call after an edit
SECTION = "bench-arrays"


# ---- in this process: the check and the steady times --------------------------------------

def _jax_gradient(case, args):
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax import lax
    static = tuple(i for i, a in enumerate(args) if isinstance(a, int))
    gradient = jax.jit(jax.grad(case.jax_builder(jnp, lax), argnums=case.positions),
                       static_argnums=static)
    values = [a if i in static else jnp.asarray(a, dtype=jnp.float64)
              for i, a in enumerate(args)]
    return lambda: jax.block_until_ready(gradient(*values))


def _s2sad_gradient(case, args, jit=True):
    """The gradient's call, whether it runs compiled and the fallback warnings' reasons."""
    import s2sad
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", s2sad.JitFallbackWarning)
        gradient = s2sad.grad(case.func, wrt=case.positions, jit=jit)
        gradient(*args)
    runner = gradient.runner(gradient.bind(args, {}))
    reasons = [_reason(str(w.message)) for w in caught
               if issubclass(w.category, s2sad.JitFallbackWarning)]
    return (lambda: gradient(*args)), runner.runs_compiled, reasons


def _reason(message):
    """A fallback warning in one line: its reason, and the generated line it names."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    reason = next((ln[len("reason: "):] for ln in lines if ln.startswith("reason: ")), lines[0])
    where = next((ln.split(": ", 1)[-1] for ln in lines if ln.startswith("at ")), "")
    return reason + (f" (at `{where}`)" if where else "")


def _difference(ours, theirs):
    """The largest difference over the largest entry, across all the gradients."""
    import numpy as np
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    pairs = [(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
             for a, b in zip(ours, theirs)]
    scale = max(float(np.max(np.abs(b))) for _, b in pairs) or 1.0
    return max(float(np.max(np.abs(a - b))) for a, b in pairs) / scale


def _per_call(call):
    """Seconds per call over a batch of about BATCH seconds."""
    start = time.perf_counter()
    call()
    once = time.perf_counter() - start
    count = max(1, int(BATCH / max(once, 1e-7)))
    start = time.perf_counter()
    for _ in range(count):
        call()
    return (time.perf_counter() - start) / count


def steady(case, args, rounds, say=print):
    import numpy as np
    row = {"name": case.name}
    try:
        ours, row["compiled"], row["reasons"] = _s2sad_gradient(case, args)
    except Exception as exc:  # noqa: BLE001 -- refused or failed: reported, not timed
        row["error"] = f"s2sad: {type(exc).__name__}: {str(exc).splitlines()[0]}"
        return row
    theirs = _jax_gradient(case, args)
    row["difference"] = _difference(ours(), tuple(np.asarray(g) for g in theirs()))
    row["wrong"] = not row["difference"] <= RTOL
    times = {"s2sad": [], "JAX": []}
    for _ in range(rounds):
        times["s2sad"].append(_per_call(ours))
        times["JAX"].append(_per_call(theirs))
    row["s2sad"] = statistics.median(times["s2sad"])
    row["JAX"] = statistics.median(times["JAX"])
    say(f"{case.name}: s2sad {_us(row['s2sad'])} "
        f"({'compiled' if row['compiled'] else 'Python'}), JAX {_us(row['JAX'])}, "
        f"ratio {row['s2sad'] / row['JAX']:.2f}, difference {row['difference']:.1e}"
        + (" WRONG" if row["wrong"] else ""))
    return row


# ---- fresh processes: the first calls ------------------------------------------------------

def child(kind, inputs, edits):
    """One first call in this fresh process; the inputs from the parent's pickle (making them
    here would import cases.py and Numba with it, and the tiered default forks its compile
    worker only from a process that has not loaded Numba)."""
    import pickle

    import array_problems
    import tier_latency
    with open(inputs, "rb") as handle:
        name, args = pickle.load(handle)
    case = next(c for c in array_problems.cases(quick=False) + array_problems.cases(quick=True)
                if c.name == name)
    if kind == "jax":
        call = _jax_gradient(case, args)
        start = time.perf_counter()
        call()
        print(json.dumps({"first": time.perf_counter() - start}))
        return
    import s2sad
    func = case.func
    for _ in range(edits):
        func = tier_latency._edited(func)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", s2sad.JitFallbackWarning)
        out = tier_latency.first_gradient(s2sad, func, case.positions, args,
                                          True if kind == "jit" else None)
    out["reasons"] = [_reason(str(w.message)) for w in caught
                      if issubclass(w.category, s2sad.JitFallbackWarning)]
    print(json.dumps(out))


def _run(kind, dirs, inputs, edits=0):
    env = dict(os.environ, S2SAD_CACHE_DIR=dirs[0], NUMBA_CACHE_DIR=dirs[1],
               PYTHONPATH=os.pathsep.join([ROOT, HERE]))
    env.pop("S2SAD_BACKGROUND_COMPILE", None)
    command = [sys.executable, os.path.abspath(__file__), "--child", kind, inputs,
               "--edits", str(edits)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1200)
    if done.returncode != 0:
        return {"error": _exception(done.stderr) or f"exit status {done.returncode}",
                "stderr": done.stderr[-4000:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _exception(stderr):
    """The last line of a traceback that names an exception (a source line can follow it)."""
    lines = [line.strip() for line in stderr.strip().splitlines() if line.strip()]
    named = [line for line in lines if re.match(r"[\w.]+(Error|Exception|Exit|Interrupt)\b",
                                                line)]
    return (named or lines or [""])[-1]


def first_calls(case, args, say=print):
    """The four fresh processes of a problem, in new caches."""
    import pickle
    scratch = tempfile.mkdtemp(prefix="s2sad_arrays_")
    dirs = (os.path.join(scratch, "s2sad"), os.path.join(scratch, "numba"))
    inputs = os.path.join(scratch, "inputs.pickle")
    try:
        with open(inputs, "wb") as handle:
            pickle.dump((case.name, args), handle)
        out = {"cold": _run("jit", dirs, inputs)}
        out["edit"] = _run("jit", dirs, inputs, edits=1)
        out["tiered"] = _run("tiered", dirs, inputs, edits=2)
        out["jax"] = _run("jax", dirs, inputs)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    say("    first calls: jit=True " + ", ".join(
        f"{label} {_sec(out[key].get('first'))}" for key, label in
        (("cold", "nothing cached"), ("edit", "after an edit")))
        + f"; tiered after an edit: runs compiled at {_sec(out['tiered'].get('compiled'))}; "
        f"JAX {_sec(out['jax'].get('first'))}"
        + "".join(f"; {k}: {v['error']}" for k, v in out.items() if "error" in v))
    for key, run in out.items():
        if "stderr" in run:
            say(f"    {key}'s process ended with:\n" + run.pop("stderr"))
    return out


# ---- the tables ----------------------------------------------------------------------------

def _us(seconds):
    if seconds is None:
        return "—"
    return f"{seconds * 1e6:.0f} µs" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def _sec(seconds):
    return "—" if seconds is None else f"{seconds:.2f} s"


def _first(run):
    """A first call, marked when that process ran it as Python (a fallback: no compile)."""
    if "error" in run:
        return "error"
    return _sec(run.get("first")) + (" (Python)" if run.get("first") is not None
                                     and run.get("compiled") is None else "")


def table(rows):
    lines = ["| problem | s2sad jit=True / call | JAX / call | s2sad / JAX | s2sad runs "
             "| gradient vs JAX | jit=True first call: nothing cached / after an edit "
             "| JAX first call | after an edit / JAX first | tiered after an edit: first "
             "gradient / runs compiled at |",
             "|---|---:|---:|---:|---|---:|---|---:|---:|---|"]
    for row in rows:
        if "error" in row:
            lines.append(f"| {row['name']} | error | | | | | | | | |")
            continue
        first = row.get("first", {})
        cold, edit, tiered, jax = (first.get(k, {}) for k in ("cold", "edit", "tiered", "jax"))
        vs_jax = (f"{edit['first'] / jax['first']:.1f}×" if edit.get("compiled")
                  and jax.get("first") else "—")
        runs = "compiled" if row["compiled"] else "**Python (fallback)**"
        check = f"{row['difference']:.0e}" + (" **WRONG**" if row["wrong"] else "")
        lines.append(
            f"| {row['name']} | {_us(row['s2sad'])} | {_us(row['JAX'])} "
            f"| {row['s2sad'] / row['JAX']:.2f}× | {runs} | {check} "
            f"| {_first(cold)} / {_first(edit)} | {_sec(jax.get('first'))} "
            f"| {vs_jax} | {_sec(tiered.get('first'))} / {_sec(tiered.get('compiled'))} |")
    return lines


def notes(rows):
    out = []
    for row in rows:
        if "error" in row:
            out.append(f"- {row['name']}: {row['error']}")
            continue
        reasons = list(dict.fromkeys(re.sub(r"(_edited)+\b", "", r) for r in row["reasons"] + [
            r for run in row.get("first", {}).values() for r in run.get("reasons", [])]))
        out += [f"- {row['name']} runs as Python: {reason}" for reason in reasons]
        out += [f"- {row['name']}, {key}: {run['error']}"
                for key, run in row.get("first", {}).items() if "error" in run]
    return out


def targets(rows):
    """Issue 47's 'Done when', as far as this benchmark measures it."""
    done = [r for r in rows if "error" not in r]

    def verdict(missed, measured=True):
        if not measured:
            return "not measured"
        return "met" if not missed else "NOT met (" + ", ".join(missed) + ")"

    # the first-call targets are about compiles: a process that ran as Python is not judged
    firsts = [r for r in done if r.get("first", {}).get("edit", {}).get("compiled")]
    unjudged = [r["name"] for r in done if r.get("first") and r not in firsts]
    aside = f" ({', '.join(unjudged)}: not judged, no compile)" if unjudged else ""
    return [
        "- steady time at most 1.0× JAX's: "
        + verdict([r["name"] for r in done if r["s2sad"] > r["JAX"]]),
        f"- jit=True's first call after an edit at most {FIRST_LIMIT:g} s{aside}: "
        + verdict([r["name"] for r in firsts if r["first"]["edit"]["first"] > FIRST_LIMIT],
                  bool(firsts)),
        f"- and at most {FIRST_VS_JAX:g}× JAX's first call: "
        + verdict([r["name"] for r in firsts if r["first"].get("jax", {}).get("first")
                   and r["first"]["edit"]["first"] > FIRST_VS_JAX * r["first"]["jax"]["first"]],
                  bool(firsts)),
        "- the tiered default runs compiled no later than jit=True's first call returns "
        "(both after an edit): "
        + verdict([r["name"] for r in firsts if (r["first"]["tiered"].get("compiled") or
                                                 float("inf")) > r["first"]["edit"]["first"]],
                  bool(firsts)),
        "- no fallback to Python: " + verdict([r["name"] for r in done if not r["compiled"]]),
    ]


def section(rows, opts, loads, minutes):
    import numba

    import jax
    import report
    partial = "" if full_run(opts) else " A partial run: `" + " ".join(sys.argv[1:]) + "`."
    return "\n".join([
        "## Array code against JAX (issue 47, `make bench-arrays`)", "",
        f"Written by `benchmarks/array_bench.py` on {time.strftime('%Y-%m-%d')} "
        f"({minutes:.0f} minutes), commit {report.commit()}{_dirty()}, on a **shared** "
        f"{os.cpu_count()}-core machine "
        f"(other work ran beside it: load average {loads[0]:.2f} at the start, {loads[1]:.2f} "
        "at the end), one thread; Numba "
        f"{numba.__version__}, JAX {jax.__version__}.{partial} Problems: "
        "`benchmarks/array_problems.py` (the chain, the LSTM, the GMM with a 3-D `@` and an "
        "`lru_cache`d index helper) and `tier_cases.py` (MLP, GP); JAX runs the same statements "
        "in `jnp`, loops over time as `lax.scan`.", "",
        "- per call: s2sad `grad(f, jit=True)` and `jax.jit(jax.grad(f))` interleaved in one "
        f"process, the median over {opts.rounds} rounds of a ~20 ms batch each;",
        "- gradient vs JAX: the largest difference over the largest entry, same inputs "
        f"(WRONG above {RTOL:g});",
        "- first calls: each in a fresh process with new, empty S2SAD_CACHE_DIR and "
        "NUMBA_CACHE_DIR (nothing cached: s2sad's runtime helpers compile too), then the "
        "function edited in a second process on the same caches; the tiered default in a "
        "third (edited again): its first gradient and when calls run compiled. Numba's import "
        "is in s2sad's first calls; other imports are not.", "",
        *table(rows), "", "Issue 47's targets, as measured here:", "", *targets(rows),
        *(["", "Fallbacks and errors:", "", *notes(rows)] if notes(rows) else [])])


def _dirty():
    """The files of s2sad's source that differ from the commit: the run measured them."""
    try:
        done = subprocess.run(["git", "status", "--porcelain", "--", "s2sad", "templates"],
                              cwd=ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    count = len(done.stdout.splitlines())
    return (f" (with {count} uncommitted file{'s' if count != 1 else ''} of s2sad/ and "
            "templates/ being edited by others: the run measured the working tree)"
            if count else "")


def full_run(opts):
    return not (opts.quick or opts.only or opts.no_first)


# ---- main ----------------------------------------------------------------------------------

def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=2, metavar=("KIND", "INPUTS"))
    parser.add_argument("--edits", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="small sizes and 3 rounds")
    parser.add_argument("--only", metavar="NAME", help="the problems whose name contains NAME")
    parser.add_argument("--rounds", type=int, default=None,
                        help="interleaved rounds of the steady times (default 15; 3 --quick)")
    parser.add_argument("--no-first", action="store_true",
                        help="skip the fresh-process first calls")
    parser.add_argument("--no-install", action="store_true",
                        help="run with the current interpreter (JAX must be importable)")
    parser.add_argument("--out", help="write the section into this file (a full run: "
                        "benchmarks/RESULTS.md)")
    opts = parser.parse_args(argv)
    if opts.rounds is None:
        opts.rounds = 3 if opts.quick else 15
    return opts


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    opts = parse(argv)
    import run
    run.fix_threads(1)
    if opts.child:
        return child(opts.child[0], opts.child[1], opts.edits)
    if not opts.no_install and not run.inside_venv():
        run.ensure_venv()
        os.execv(run.venv_python(), [run.venv_python(), os.path.abspath(__file__), *argv])
    import array_problems
    import results_sections
    begun, loads = time.perf_counter(), [os.getloadavg()[0]]
    chosen = array_problems.cases(opts.quick, opts.only)
    if not chosen:
        raise SystemExit(f"no problem matches --only {opts.only!r}")
    import numpy as np
    rows = []
    for case in chosen:
        args = case.make_args(np.random.default_rng(0))
        row = steady(case, args, opts.rounds)
        if not opts.no_first and "error" not in row:
            row["first"] = first_calls(case, args)
        rows.append(row)
    loads.append(os.getloadavg()[0])
    text = section(rows, opts, loads, (time.perf_counter() - begun) / 60)
    print("\n" + text)
    out = opts.out or (os.path.join(HERE, "RESULTS.md") if full_run(opts) else None)
    if out:
        results_sections.replace(out, SECTION, text, "benchmarks/array_bench.py")
        print(f"\nwritten: its section of {os.path.relpath(out)}")
    else:
        print("\n(--quick/--only/--no-first: RESULTS.md not written; --out FILE writes it)")
    return 1 if any(row.get("wrong") for row in rows) else 0


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    sys.exit(main())
