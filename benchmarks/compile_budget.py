"""`make bench-compile` (issue 47, item 1): where the seconds of `jit=True`'s first call go.

For array-code gradients (problems.py's GMM, LSTM and logistic regression, tier_cases.py's MLP
and GP loss) and one scalar loop for contrast, each in fresh processes with new, empty
S2SAD_CACHE_DIR and NUMBA_CACHE_DIR, in two settings:
  nothing cached    the first process on the new caches: the function's first call with
                    `jit=True` (transform, Numba's compile of the gradient and of every helper
                    it calls, the call)
  after an edit     a later process on the same caches, with the function edited (a comment
                    added to its body, as tier_latency.py does, so every generated file of it
                    is new): s2sad's runtime helpers come from Numba's cache, the gradient does
                    not
The first call is split into:
  transform         s2sad building the generated file (`Transformed.build`, timed from outside)
  Numba import      `import numba` plus loading the generated module's JIT flavour (its
                    `numba.njit` dispatchers, `dispatch.install()`: rt's helpers registered)
  typing            Numba's type-inference passes, their own time
  lowering          `native_lowering`: Numba's IR to LLVM IR, in Python, without the LLVM
                    calls it makes
  LLVM              all time with LLVM's lock held (`numba:llvm_lock` events): parsing and
                    verifying IR, function and module optimisation, linking, machine code
  other passes      the rest of Numba's compiler passes (bytecode, rewrites, inlining, ...)
  other             what is left: cache loads and saves, typing-registry refreshes, binding,
                    the call itself
from Numba's own events (`numba.core.event`: `numba:run_pass` per compiler pass and function,
nested passes subtracted, and `numba:llvm_lock`). Per compiled function (the generated
gradient and every helper or NumPy overload compiled for it): its passes' own time, LLVM
included, and its IR lines as lowered (counted where Numba turns the IR into text, a wrapper of
`cgutils.normalize_ir_text` in the child only, compile_events.py; nothing of s2sad changes).

Levers, measured from outside:
  NUMBA_OPT         0, 1 and the default 3, set for the whole process (a compile worker could
                    run a first tier so): the first call in both settings (each level on its
                    own caches: s2sad keys its helper cache by the level) and the steady time
                    per call of what it compiled; these processes are not instrumented
  helpers' IR again in the nothing-cached process, after the first gradient, the gradient
                    of an edited copy (a second, different generated function calling the same
                    helpers, already typed and lowered in this process): its first call, and
                    the LLVM work of its module replayed alone with the helpers' IR linked in
                    (as Numba does) and with the helper calls left as external symbols (as a
                    helper called through an address would be): function passes, module
                    passes and machine code, the median of 3 of each

    python benchmarks/compile_budget.py [--only NAME] [--repeat 3] [--no-levers]
    python benchmarks/compile_budget.py --child KIND INDEX [--edits N]  # one process (JSON)

Every cell is the median of --repeat rounds, each in new caches. Only a full run (no --only,
no --no-levers) writes benchmarks/COMPILE_BUDGET.md; a partial one writes --output if given,
else a new temporary file, and prints its path.
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

import compile_events
from tier_latency import _steady   # (the same measure of a steady call)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TOP = 5                 # functions listed per problem and setting
LEVELS = (3, 1, 0)      # NUMBA_OPT levels of the lever table (3 is Numba's default)


def problems():
    """[(name, func, positions, make_args)]: the array-code problems and one scalar loop."""
    import cases
    import tier_cases
    by_problem = {}
    for case in cases.all_cases():     # the first of each: the GMM's d=10 K=5 (one code)
        by_problem.setdefault(case.problem, case)
    out = [(by_problem[p].name, by_problem[p].func, by_problem[p].positions,
            by_problem[p].make_args)
           for p in ("gmm_objective", "lstm_loss", "logistic_regression")]
    tiers = {case[0]: case for case in tier_cases.CASES}
    for name in ("MLP (one hidden layer)", "GP negative log likelihood",
                 "scalar loop (500 steps)"):
        out.append(tiers[name][:4])
    return out


# ---- the child: one process, one or two first calls ---------------------------------------

def child(kind, index, edits):
    """kind: "cold" (instrumented; the function, then an edited copy in the same process),
    "edit" (instrumented, the function edited `edits` times) or "plain" (not instrumented:
    the first call and the steady time only)."""
    import warnings

    import numpy as np

    import s2sad
    from s2sad.runtime import jit as s2sad_jit
    # Numba's import is part of the first call (s2sad imports it then): timed here, before
    # cases.py (the problems' module, which imports it) and added to the first call
    start = time.perf_counter()
    import numba  # noqa: F401
    numba_import = time.perf_counter() - start
    import tier_latency
    name, func, positions, make_args = problems()[index]
    args = make_args(np.random.default_rng(0))
    for _ in range(edits):
        func = tier_latency._edited(func)
    warnings.simplefilter("error", s2sad_jit.JitFallbackWarning)   # a fallback is reported
    recorder = None
    if kind != "plain":
        recorder = compile_events.Recorder(keep_texts=kind == "cold")
        recorder.install()
    load = s2sad_jit.load
    loading = [0.0]

    def timed_load(path, flavour):
        begun = time.perf_counter()
        try:
            return load(path, flavour)
        finally:
            if flavour == s2sad_jit.JIT:
                loading[0] += time.perf_counter() - begun

    s2sad_jit.load = timed_load
    out = _first_call(s2sad, func, positions, args, recorder, loading)
    out["first"] += numba_import
    out["import"] += numba_import
    if kind == "cold":
        edited = tier_latency._edited(tier_latency._edited(tier_latency._edited(func)))
        constructs = compile_events.Constructs()
        constructs.install()     # (for the second gradient only: the first's times are clean)
        out["second"] = _first_call(s2sad, edited, positions, args, recorder, loading)
        out["constructs"] = constructs.report()
        if "error" not in out["second"]:
            out["second"]["probe"] = compile_events.llvm_probe(
                s2sad_jit, out["second"]["_gradient"], recorder)
    out.pop("_gradient", None)
    out.get("second", {}).pop("_gradient", None)
    print(json.dumps(out))


def _first_call(s2sad, func, positions, args, recorder, loading):
    gradient = s2sad.grad(func, wrt=positions, jit=True)
    build = gradient.build
    transform = [0.0]

    def timed_build(kinds):
        begun = time.perf_counter()
        try:
            return build(kinds)
        finally:
            transform[0] += time.perf_counter() - begun

    gradient.build = timed_build
    loading[0] = 0.0
    start = time.perf_counter()
    try:
        gradient(*args)
    except Warning as warning:
        return {"error": "fell back to Python: " + str(warning).splitlines()[-1].strip()}
    end = time.perf_counter()
    out = {"first": end - start, "transform": transform[0], "import": loading[0]}
    runner = gradient.runner(gradient.bind(args, {}))
    out["steady"] = _steady(lambda: gradient(*args))
    out["_gradient"] = runner
    if recorder is None:
        return out
    phases, functions = recorder.analyse(start, end)
    out.update(phases)
    out["functions"] = {compile_events.short_name(k): v for k, v in functions.items()}
    out["compiled"] = len(functions)
    out["gradient"] = compile_events.gradient_ir(runner, functions)
    return out


# ---- the parent: rounds of processes ------------------------------------------------------

def _run(kind, index, dirs, edits=0, level=None):
    env = dict(os.environ, S2SAD_CACHE_DIR=dirs[0], NUMBA_CACHE_DIR=dirs[1],
               PYTHONPATH=os.pathsep.join([ROOT, HERE]))
    env.pop("S2SAD_BACKGROUND_COMPILE", None)
    env.pop("NUMBA_OPT", None)
    if level is not None and level != 3:
        env["NUMBA_OPT"] = str(level)
    command = [sys.executable, os.path.abspath(__file__), "--child", kind, str(index),
               "--edits", str(edits)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return {"error": lines[-1] if lines else f"exit status {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _round(index, levers):
    """One round of a problem, in new caches: the instrumented pair, then each NUMBA_OPT
    level's pair on caches of its own."""
    scratch = tempfile.mkdtemp(prefix="s2sad_budget_")
    try:
        def dirs(tag):
            return os.path.join(scratch, tag, "s2sad"), os.path.join(scratch, tag, "numba")
        row = {"cold": _run("cold", index, dirs("main"))}
        row["edit"] = _run("edit", index, dirs("main"), edits=5)
        for level in (LEVELS if levers else ()):
            row[f"O{level} cold"] = _run("plain", index, dirs(f"O{level}"), level=level)
            row[f"O{level} edit"] = _run("plain", index, dirs(f"O{level}"), edits=5,
                                         level=level)
        return row
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _median(results):
    """Numbers: the median over the rounds; functions: each one's median time (a round's
    error wins: it is reported)."""
    for result in results:
        if "error" in result:
            return result
    out = {}
    for key, value in results[0].items():
        if isinstance(value, (int, float)):
            out[key] = statistics.median(r[key] for r in results if key in r)
        elif key == "functions":
            names = set().union(*(r[key] for r in results))
            out[key] = {n: [statistics.median(r[key].get(n, [0.0, 0])[0] for r in results),
                            max(r[key].get(n, [0.0, 0])[1] for r in results)] for n in names}
        elif isinstance(value, dict):
            out[key] = _median([r.get(key, {}) for r in results])
        else:
            out[key] = value
    return out


def measure(only=None, repeat=3, levers=True, say=print):
    rows = []
    for index, (name, *_) in enumerate(problems()):
        if only and only not in name:
            continue
        rounds = [_round(index, levers) for _ in range(repeat)]
        row = {"name": name, **{k: _median([r[k] for r in rounds]) for k in rounds[0]}}
        say(_line(row))
        rows.append(row)
    return rows


def _s(value, digits=2, unit=1.0):
    return "—" if value is None else f"{value * unit:.{digits}f}"


def _line(row):
    parts = []
    for setting in ("cold", "edit"):
        r = row[setting]
        parts.append(f"{setting} {_s(r.get('first'))} s" if "error" not in r
                     else f"{setting}: {r['error']}")
    parts += [f"O{level}: {_s(row[f'O{level} cold'].get('first'))} / "
              f"{_s(row[f'O{level} edit'].get('first'))} s" for level in LEVELS
              if f"O{level} cold" in row]
    return f"{row['name']}: " + ", ".join(parts)


SETTINGS = (("cold", "nothing cached"), ("edit", "after an edit"))


def budget_table(rows):
    lines = ["| problem | setting | first call | transform | Numba import | typing | lowering "
             "| LLVM | other passes | other | LLVM: function passes / module passes / "
             "machine code | functions compiled |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    notes = []
    for row in rows:
        for key, label in SETTINGS:
            r = row[key]
            if "error" in r:
                notes.append(f"- {row['name']}, {label}: {r['error']}")
                continue
            parts = [r[k] for k in ("transform", "import", "typing", "lowering", "llvm",
                                    "passes")]
            other = r["first"] - sum(parts)
            cells = " | ".join(f"{_s(v)} s" for v in [r["first"], *parts, other])
            lines.append(f"| {row['name']} | {label} | {cells} | {_s(r['fpm'])} / "
                         f"{_s(r['mpm'])} / {_s(r['machine'])} s | {r['compiled']:.0f} |")
    return lines + ([""] + notes if notes else [])


def functions_table(rows):
    lines = [f"| problem | setting | the gradient's IR: lowered → + linked helpers' modules → "
             f"final | top {TOP} functions by compile time: seconds, IR lines as lowered |",
             "|---|---|---|---|"]
    for row in rows:
        for key, label in SETTINGS:
            r = row[key]
            if "error" in r:
                continue
            g = r["gradient"]
            top = sorted(r["functions"].items(), key=lambda item: -item[1][0])[:TOP]
            listed = "; ".join(f"`{name}` {seconds:.2f} s, {lines_:,.0f}"
                               for name, (seconds, lines_) in top)
            lines.append(f"| {row['name']} | {label} | {g['own']:,.0f} → +{g['linked']:.0f} "
                         f"modules, {g['linked_lines']:,.0f} lines → {g['final']:,.0f} "
                         f"| {listed} |")
    return lines


def constructs_table(rows):
    lines = ["| problem | the generated functions' own LLVM instructions | by construct: "
             "instructions (share) | the generated lines that emit most |", "|---|---:|---|---|"]
    for row in rows:
        c = row["cold"].get("constructs")
        if not c:
            continue
        total = sum(c["kinds"].values())
        kinds = sorted(c["kinds"].items(), key=lambda item: -item[1])[:TOP]
        top = sorted(c["lines"].items(), key=lambda item: -item[1])[:3]
        lines.append(f"| {row['name']} | {total:,.0f} | "
                     + "; ".join(f"{k} {v:,.0f} ({v / total:.0%})" for k, v in kinds) + " | "
                     + "; ".join(f"`{_cut(t)}` {v:,.0f}" for t, v in top) + " |")
    return lines


def _cut(text, width=60):
    text = text.replace("|", "\\|")
    return text if len(text) <= width else text[:width - 3] + "..."


def levers_table(rows):
    lines = ["| problem | first call, nothing cached: O3 / O1 / O0 | after an edit: O3 / O1 / O0 "
             "| steady / call: O3 / O1 / O0 |", "|---|---|---|---|"]
    notes = []
    for row in rows:
        if "O3 cold" not in row:
            continue
        cells = []
        for setting in ("cold", "edit"):
            values = [row[f"O{level} {setting}"] for level in LEVELS]
            cells.append(" / ".join(f"{_s(v.get('first'))}" for v in values) + " s")
            notes += [f"- {row['name']}, O{level} {setting}: {v['error']}"
                      for level, v in zip(LEVELS, values) if "error" in v]
        steady = [row[f"O{level} edit"].get("steady") for level in LEVELS]
        cells.append(" / ".join(_s(v, 0, 1e6) if v is None or v >= 1e-4 else _s(v, 1, 1e6)
                                for v in steady) + " µs")
        lines.append(f"| {row['name']} | " + " | ".join(cells) + " |")
    return lines + ([""] + notes if notes else [])


def relink_table(rows):
    lines = ["| problem | first gradient: first call (LLVM) | a second gradient, same process "
             "and helpers: first call (typing + lowering, LLVM) | the same, new process, "
             "helpers cached | the second gradient's module, LLVM alone: helpers linked / "
             "calls left external | its IR: lowered, + linked |",
             "|---|---|---|---|---|---|"]
    for row in rows:
        c, e = row["cold"], row["edit"]
        s = c.get("second", {}) if "error" not in c else {}
        if "error" in c or "error" in s:
            continue
        p = s.get("probe", {})
        g = s["gradient"]
        lines.append(
            f"| {row['name']} | {_s(c['first'])} s ({_s(c['llvm'])} s) | {_s(s['first'])} s "
            f"({_s(s['typing'] + s['lowering'])} s, {_s(s['llvm'])} s) "
            f"| {_s(e.get('first'))} s | {_s(p.get('linked'), 3)} / {_s(p.get('external'), 3)}"
            f" s | {g['own']:,.0f}, +{g['linked_lines']:,.0f} |")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=2, metavar=("KIND", "INDEX"))
    parser.add_argument("--edits", type=int, default=0,
                        help="with --child: edit the function this many times first")
    parser.add_argument("--only", help="only the problems whose name contains this")
    parser.add_argument("--repeat", type=int, default=3,
                        help="rounds per problem; each cell is their median (default 3)")
    parser.add_argument("--no-levers", action="store_true",
                        help="skip the NUMBA_OPT processes (the relinking columns stay)")
    parser.add_argument("--output", help="where to write the tables (default: "
                        "benchmarks/COMPILE_BUDGET.md on a full run, else a new temporary file)")
    options = parser.parse_args()
    if options.child:
        return child(options.child[0], int(options.child[1]), options.edits)
    begun = time.perf_counter()
    rows = measure(options.only, options.repeat, not options.no_levers)
    text = "\n".join(
        ["## Where the first call's seconds go", "",
         "Seconds of `jit=True`'s first call (Numba's import included, s2sad's not), split "
         "by Numba's events; the processes are instrumented (two listeners and the IR line "
         "count: compare the O3 column of the lever table, not instrumented).", "",
         *budget_table(rows), "", "## Which functions' IR", "",
         "Per function compiled in the first call: its compiler passes' own time (LLVM "
         "included; the gradient's time holds the optimisation and machine code of every "
         "helper's IR linked into it) and its IR lines as lowered. `generated` is s2sad's "
         "file; the rest are rt's helpers (s2sad.runtime) and Numba's NumPy.", "",
         *functions_table(rows), "",
         "The generated functions' own IR (most of the gradient's compile: Numba lowers "
         "array expressions and ufunc calls into the caller as loop nests, and calls a helper "
         "through a call), by the statement that emitted it: instructions counted as "
         "llvmlite inserts them, in the second gradient of the nothing-cached process (the "
         "same code as the first; the counting is kept out of the first's times).", "",
         *constructs_table(rows), "", "## Levers", "",
         "NUMBA_OPT for the whole process (not instrumented): each level on caches of its "
         "own, the edit after a first process at the same level; the steady time is that of "
         "the after-an-edit process's gradient (its helpers from the cache, built at that "
         "level).", "", *levers_table(rows), "",
         "Helpers' IR compiled again in each caller: the gradient of an edited copy, made "
         "after the first one in the same process (its helpers typed and lowered already), "
         "and its own module's LLVM work replayed with the helpers' modules linked in and "
         "with the calls to them left external.", "", *relink_table(rows)])
    print("\n" + text)
    full = not (options.only or options.no_levers)
    output = options.output or (os.path.join(HERE, "COMPILE_BUDGET.md") if full else None)
    if output is None:
        handle, output = tempfile.mkstemp(prefix="s2sad_compile_budget_", suffix=".md")
        os.close(handle)
    import numba
    with open(output, "w") as stream:
        stream.write("# Compile budget of `jit=True`'s first call (`make bench-compile`)\n\n"
                     f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, Numba "
                     f"{numba.__version__}; each cell the median of {options.repeat} "
                     f"round{'s' if options.repeat != 1 else ''}, each in new caches "
                     f"({(time.perf_counter() - begun) / 60:.0f} minutes). Generated by "
                     "benchmarks/compile_budget.py: do not edit.\n\n"
                     + ("" if full else "A partial run: " + " ".join(sys.argv[1:]) + "\n\n")
                     + text + "\n")
    print(f"\nwritten to {output}")


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    main()
