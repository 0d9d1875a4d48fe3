"""`make bench-latency` (issues 37 and 46): how soon a gradient answers and how soon it runs
compiled, with s2sad's tiered default, against `jit=True` and JAX's `jit(grad)`, all in fresh
processes of the same run; and the total time of a loop of calls, default against `jit=True`
and `jit=False`.

For each function of tier_cases.py, with new, empty S2SAD_CACHE_DIR and NUMBA_CACHE_DIR (the
RK4 loop of issue 46 is in this table too: it costs about what the other loops cost, a ~3 s
compile and 0.08 s per Python call; the other six are measured as before it came):
  tiered, cold      the default (jit=None) in a process where nothing is cached: the time to
                    the first gradient (transform + the first call, run as Python), the time
                    until calls run compiled (the caller calling in a loop meanwhile), and the
                    steady time per call once compiled
  tiered, cached    a second process on the same caches: the same three times
  jit=True, cold    the first call compiled before it returns (what the default did before
                    the tiers), and its steady time per call
  after an edit     the function edited (a comment added to its body, so its source, and
                    every generated file of it, is new) in a third process on the same caches:
                    tiered and jit=True, as when a user edits a script and runs it again;
                    Numba's cache still holds s2sad's runtime helpers, only the user's
                    function compiles
  JAX               `jax.jit(jax.grad(f))` (run in .venv-bench, where JAX is installed):
                    the first call (trace + compile + call) and the steady time per call
Import times are reported apart and are not part of any of these.

Calls in a loop (issue 46; the scalar loop, the 2-D loop and the RK4 loop, tier_cases.
CALL_CASES): each called 10, 100 and 1000 times in a tight loop, the total wall time from
`s2sad.grad(...)` through the last call's return (imports excluded), with the default
(jit=None), jit=True and jit=False, each in its own fresh process with new, empty
S2SAD_CACHE_DIR and NUMBA_CACHE_DIR. Also: the default's total over the better of the other
two (the issue's target: within 2x on every row; a row that misses is marked), and how many of
the default's calls ran as Python. After each call the child reads `runs_compiled` of the
gradient's runner, a property read (~0.1 us) to count those; the one lookup of the runner,
after the first call, is not timed. A round of this table takes about 2.5 minutes on 2 cores,
most of it the RK4 loop's 1000 calls with jit=False (~80 s).

    python benchmarks/tier_latency.py [--only NAME] [--no-jax] [--repeat 3]
                                      # both tables; writes benchmarks/LATENCY.md
    python benchmarks/tier_latency.py --calls-only [--counts 10,100,1000] [--repeat 1]
                                      # only the calls table, quickly
    python benchmarks/tier_latency.py --child KIND INDEX [--calls N]  # one measurement (JSON)

Every cell is the median of --repeat rounds, each in new caches. Only a full run (no --only,
no --calls-only, the default --counts) writes benchmarks/LATENCY.md, so that a partial table
never replaces it; a partial run writes its tables to --output if given, else to a new
temporary file, whose path it prints.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BENCH_PYTHON = os.path.join(ROOT, ".venv-bench", "bin", "python")
COMPILE_LIMIT = 300.0     # s: a tier that has not switched by then is reported as not switching


def _steady(call):
    """The median time of one call, over at least 20 calls and 0.3 s."""
    times = []
    begun = time.perf_counter()
    while len(times) < 20 or time.perf_counter() - begun < 0.3:
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


CALL_MODES = (("default", None), ("jit", True), ("python", False))   # child kind calls-MODE
CALL_COUNTS = (10, 100, 1000)


def child(kind, index, calls=None):
    start = time.perf_counter()
    import numpy as np
    if kind == "jax":
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        from jax import lax
    else:
        import s2sad
    imports = time.perf_counter() - start
    import warnings

    import tier_cases
    name, func, positions, make_args, jax_builder = tier_cases.CASES[index]
    args = make_args(np.random.default_rng(0))
    if kind.endswith("-edit"):
        kind, func = kind[:-len("-edit")], _edited(func)
    warnings.simplefilter("ignore")
    out = {"imports": imports}
    if kind.startswith("calls-"):
        out.update(_calls(s2sad, func, positions, args, dict(CALL_MODES)[kind[6:]], calls))
    elif kind == "jax":
        static = tuple(i for i, a in enumerate(args) if isinstance(a, int))
        gradient = jax.jit(jax.grad(jax_builder(jnp, lax), argnums=positions),
                           static_argnums=static)
        values = [a if i in static else jnp.asarray(a, dtype=jnp.float64)
                  for i, a in enumerate(args)]
        start = time.perf_counter()
        jax.block_until_ready(gradient(*values))
        out["first"] = time.perf_counter() - start
        out["steady"] = _steady(lambda: jax.block_until_ready(gradient(*values)))
    else:
        out.update(first_gradient(s2sad, func, positions, args, True if kind == "jit" else None))
    print(json.dumps(out))


def first_gradient(s2sad, func, positions, args, jit):
    """The first gradient's time from `s2sad.grad(...)`, the time until calls run compiled
    (None if they never do: a fallback), the calls made until then (as a caller calling in a
    loop) and the steady time per call (also used by array_bench.py)."""
    out = {}
    start = time.perf_counter()
    gradient = s2sad.grad(func, wrt=positions, jit=jit)
    gradient(*args)
    out["first"] = time.perf_counter() - start
    runner = gradient.runner(gradient.bind(args, {}))
    calls = 1
    while not runner.runs_compiled and time.perf_counter() - start < COMPILE_LIMIT \
            and runner.jit:
        gradient(*args)
        calls += 1
    out["compiled"] = time.perf_counter() - start if runner.runs_compiled else None
    out["python_calls"] = calls
    out["steady"] = _steady(lambda: gradient(*args))
    return out


def _calls(s2sad, func, positions, args, jit, calls):
    """The total time of making the gradient function and calling it `calls` times."""
    start = time.perf_counter()
    gradient = s2sad.grad(func, wrt=positions, jit=jit)
    gradient(*args)
    first = time.perf_counter()
    runner = gradient.runner(gradient.bind(args, {}))   # the one Runner of these arguments
    python_calls = 0 if runner.runs_compiled else 1
    resumed = time.perf_counter()
    for _ in range(calls - 1):
        gradient(*args)
        if not runner.runs_compiled:
            python_calls += 1
    end = time.perf_counter()
    return {"total": (first - start) + (end - resumed), "first": first - start,
            "python_calls": python_calls, "ends_compiled": runner.runs_compiled}


def _edited(func):
    """`func` from a copy of its module in which its body starts with a new comment line."""
    import ast
    import importlib.util
    import inspect
    path = inspect.getsourcefile(func)
    with open(path) as stream:
        lines = stream.read().splitlines(keepends=True)
    tree = ast.parse("".join(lines))
    (definition,) = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
                     and node.name == func.__name__ and node.lineno == func.__code__.co_firstlineno]
    first = definition.body[0]
    lines.insert(first.lineno - 1, " " * first.col_offset + "# edited\n")
    folder = tempfile.mkdtemp(prefix="s2sad_edit_")
    name = func.__module__ + "_edited"
    copy = os.path.join(folder, name + ".py")
    with open(copy, "w") as stream:
        stream.writelines(lines)
    spec = importlib.util.spec_from_file_location(name, copy)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return getattr(module, func.__name__)


def _run(kind, index, dirs, calls=None):
    python = BENCH_PYTHON if kind == "jax" else sys.executable
    env = dict(os.environ, S2SAD_CACHE_DIR=dirs[0], NUMBA_CACHE_DIR=dirs[1],
               PYTHONPATH=os.pathsep.join([ROOT, HERE]))
    env.pop("S2SAD_BACKGROUND_COMPILE", None)
    command = [python, os.path.abspath(__file__), "--child", kind, str(index)]
    if calls is not None:
        command += ["--calls", str(calls)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else
                f"exit status {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(only=None, jax=True, say=print, repeat=3):
    """Each case's row: the median of `repeat` rounds, each in its own new caches (one round
    of processes is at the mercy of the machine: the scalar loop's cold switch read 0.57 s in
    one run and 0.82 s in the next)."""
    import tier_cases
    rows = []
    for index, (name, *_, jax_builder) in enumerate(tier_cases.CASES):
        if only and only not in name:
            continue
        rounds = [_round(index, jax and jax_builder is not None) for _ in range(repeat)]
        row = {"name": name, **{kind: _median([r[kind] for r in rounds]) for kind in rounds[0]}}
        if not jax_builder:
            row["jax"] = {"error": "jit cannot trace it: Python control flow on traced values"}
        say(_line(row))
        rows.append(row)
    return rows


def _round(index, jax):
    """One round of the measurements of a case, in new caches."""
    scratch = tempfile.mkdtemp(prefix="s2sad_tiers_")
    try:
        tiered_dirs = (os.path.join(scratch, "s2sad"), os.path.join(scratch, "numba"))
        row = {"tiered": _run("tiered", index, tiered_dirs)}
        row["cached"] = _run("tiered", index, tiered_dirs)
        jit_dirs = (os.path.join(scratch, "s2sad_jit"), os.path.join(scratch, "numba_jit"))
        row["jit"] = _run("jit", index, jit_dirs)
        row["tiered-edit"] = _run("tiered-edit", index, tiered_dirs)
        row["jit-edit"] = _run("jit-edit", index, jit_dirs)
        row["jax"] = _run("jax", index, (scratch, scratch)) if jax else {"error": "not run"}
        return row
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def measure_calls(only=None, say=print, repeat=3, counts=CALL_COUNTS):
    """The calls table's rows: per case and number of calls, the median total of each mode
    over `repeat` rounds; every run in its own process and new, empty caches (the modes of a
    round run one after another, so that a slow spell of the machine hits all three)."""
    import tier_cases
    names = [case[0] for case in tier_cases.CASES]
    rows = []
    for name in tier_cases.CALL_CASES:
        if only and only not in name:
            continue
        index = names.index(name)
        for calls in counts:
            rounds = [{mode: _fresh(f"calls-{mode}", index, calls) for mode, _ in CALL_MODES}
                      for _ in range(repeat)]
            row = {"name": name, "calls": calls,
                   **{mode: _median([r[mode] for r in rounds]) for mode, _ in CALL_MODES}}
            say(_calls_line(row))
            rows.append(row)
    return rows


def _fresh(kind, index, calls):
    """One measurement in a new process with new, empty caches."""
    scratch = tempfile.mkdtemp(prefix="s2sad_calls_")
    try:
        return _run(kind, index, (os.path.join(scratch, "s2sad"), os.path.join(scratch, "numba")),
                    calls)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _ratio(row):
    """The default's total over the better of jit=True and jit=False, or None."""
    d, j, p = (row[mode].get("total") for mode, _ in CALL_MODES)
    if d is None or j is None or p is None:
        return None
    return d / min(j, p)


def _calls_line(row):
    ratio = _ratio(row)
    return (f"{row['name']}, {row['calls']} calls: default {_s(row['default'].get('total'))} s "
            f"({row['default'].get('python_calls', '—')} as Python), jit=True "
            f"{_s(row['jit'].get('total'))} s, jit=False {_s(row['python'].get('total'))} s; "
            f"default / better {_s(ratio)}" + ("" if ratio is None or ratio <= 2.0 else " MISS")
            + "".join(f"; {mode}: {row[mode]['error']}" for mode, _ in CALL_MODES
                      if "error" in row[mode]))


def calls_table(rows, repeat):
    lines = ["Calls in a loop (issue 46): total wall time from `s2sad.grad(...)` through the "
             "last call's return, imports excluded, each in a fresh process with new, empty "
             f"caches; medians of {repeat} round{'s' if repeat != 1 else ''}. The target: the "
             "default within 2× of the better of jit=True and jit=False on every row "
             "(**miss** where it is not).", "",
             "| function | calls | default (tiered) | jit=True | jit=False "
             "| default / better of the two | default: calls run as Python |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        d, j, p = row["default"], row["jit"], row["python"]
        ratio = _ratio(row)
        mark = "—" if ratio is None else f"{ratio:.2f}×" + (" **miss**" if ratio > 2.0 else "")
        lines.append(f"| {row['name']} | {row['calls']} | {_s(d.get('total'))} s "
                     f"| {_s(j.get('total'))} s | {_s(p.get('total'))} s | {mark} "
                     f"| {_s(d.get('python_calls'), 1, 0)} |")
    judged = [r for r in rows if _ratio(r) is not None]
    lines += ["", f"Within 2×: {sum(_ratio(r) <= 2.0 for r in judged)} of {len(judged)} rows"
              + (f" ({len(rows) - len(judged)} more not judged: an error below)."
                 if len(judged) < len(rows) else ".")]
    notes = [f"- {row['name']}, {row['calls']} calls, {mode}: {row[mode]['error']}"
             for row in rows for mode, _ in CALL_MODES if "error" in row[mode]]
    return lines + ([""] + notes if notes else [])


def _median(results):
    """The median of each number over the rounds (a round's error wins: it is reported)."""
    for result in results:
        if "error" in result:
            return result
    return {key: statistics.median(r[key] for r in results if r.get(key) is not None)
            if any(r.get(key) is not None for r in results) else None
            for key in results[0]}


def _s(value, unit=1.0, digits=2):
    return "—" if value is None else f"{value * unit:.{digits}f}"


def _line(row):
    t, c, j, x = row["tiered"], row["cached"], row["jit"], row["jax"]
    return (f"{row['name']}: first {_s(t.get('first'))} s, compiled at "
            f"{_s(t.get('compiled'))} s; cached process first {_s(c.get('first'), 1, 3)} s; "
            f"jit=True first {_s(j.get('first'))} s; after an edit: compiled at "
            f"{_s(row['tiered-edit'].get('compiled'))} s tiered, "
            f"{_s(row['jit-edit'].get('first'))} s jit=True; JAX first {_s(x.get('first'))} s"
            + "".join(f"; {k}: {r['error']}" for k, r in
                      (("tiered", t), ("cached", c), ("jit", j), ("JAX", x)) if "error" in r))


def table(rows):
    lines = ["| function | first gradient (tiered) | runs compiled at | Python calls until then "
             "| steady / call, tiered | second process: first gradient | jit=True: first call "
             "| jit=True: steady / call | JAX jit(grad): first call | JAX: steady / call "
             "| first gradient: JAX / s2sad |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        t, c, j, x = row["tiered"], row["cached"], row["jit"], row["jax"]
        ratio = (f"{x['first'] / t['first']:.1f}×" if x.get("first") and t.get("first")
                 else "—")
        lines.append(
            f"| {row['name']} | {_s(t.get('first'), 1, 3)} s | {_s(t.get('compiled'))} s "
            f"| {t.get('python_calls', '—')} | {_s(t.get('steady'), 1e6, 0)} µs "
            f"| {_s(c.get('first'), 1, 3)} s | {_s(j.get('first'))} s "
            f"| {_s(j.get('steady'), 1e6, 0)} µs | "
            f"{_s(x.get('first'))} s | {_s(x.get('steady'), 1e6, 0)} µs | {ratio} |")
    lines += ["", "After an edit (a new comment in the function; s2sad's runtime helpers already "
              "in Numba's cache):", "",
              "| function | first gradient (tiered) | runs compiled at (tiered) "
              "| jit=True: first call |", "|---|---|---|---|"]
    for row in rows:
        t, j = row.get("tiered-edit", {}), row.get("jit-edit", {})
        lines.append(f"| {row['name']} | {_s(t.get('first'), 1, 3)} s | "
                     f"{_s(t.get('compiled'))} s | {_s(j.get('first'))} s |")
    notes = [f"- {row['name']}, {k}: {r['error']}" for row in rows
             for k, r in (("tiered", row["tiered"]), ("cached", row["cached"]),
                          ("jit=True", row["jit"]), ("JAX", row["jax"]),
                          ("tiered after an edit", row.get("tiered-edit", {})),
                          ("jit=True after an edit", row.get("jit-edit", {}))) if "error" in r]
    imports = [f"{row['name']}: s2sad {_s(row['tiered'].get('imports'))} s, JAX "
               f"{_s(row['jax'].get('imports'))} s" for row in rows[:1]]
    return lines + ([""] + notes if notes else []) + ["", "Imports (not in the times above): "
                                                      + "; ".join(imports)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=2, metavar=("KIND", "INDEX"))
    parser.add_argument("--calls", type=int, help="with --child calls-MODE: how many calls")
    parser.add_argument("--only", help="only the functions whose name contains this")
    parser.add_argument("--no-jax", action="store_true", help="skip JAX")
    parser.add_argument("--calls-only", action="store_true",
                        help="only the table of calls in a loop (default, jit=True, jit=False)")
    parser.add_argument("--counts", default=",".join(map(str, CALL_COUNTS)),
                        help="numbers of calls of the calls table (default 10,100,1000)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="rounds per case; each cell is their median (default 3)")
    parser.add_argument("--output", help="where to write the tables (default: "
                        "benchmarks/LATENCY.md on a full run, else a new temporary file)")
    options = parser.parse_args()
    if options.child:
        return child(options.child[0], int(options.child[1]), options.calls)
    counts = tuple(int(c) for c in options.counts.split(","))
    jax = not options.no_jax and not options.calls_only
    if jax and not os.path.exists(BENCH_PYTHON):
        import run          # makes .venv-bench, where JAX is installed (as `make bench` does)
        run.ensure_venv()
    text = ""
    if not options.calls_only:
        rows = measure(options.only, jax, repeat=options.repeat)
        text = "\n".join(table(rows)) + "\n\n"
    text += "\n".join(calls_table(measure_calls(options.only, repeat=options.repeat,
                                                counts=counts), options.repeat))
    print("\n" + text)
    full = not (options.only or options.calls_only or counts != CALL_COUNTS)
    output = options.output or (os.path.join(HERE, "LATENCY.md") if full else None)
    if output is None:
        handle, output = tempfile.mkstemp(prefix="s2sad_latency_", suffix=".md")
        os.close(handle)
    with open(output, "w") as stream:
        stream.write("# Latency of the tiered default (`make bench-latency`)\n\n"
                     f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, each cell "
                     f"the median of {options.repeat} rounds in new caches. "
                     "Generated by benchmarks/tier_latency.py: do not edit.\n\n"
                     + ("" if full else "A partial run: "
                        + " ".join(a for a in sys.argv[1:]) + "\n\n")
                     + text + "\n")
    print(f"\nwritten to {output}")


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    main()
