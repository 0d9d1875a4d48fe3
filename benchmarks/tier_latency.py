"""`make bench-latency` (issue 37): how soon a gradient answers and how soon it runs compiled,
with s2sad's tiered default, against `jit=True` and JAX's `jit(grad)`, all in fresh processes
of the same run.

For each function of tier_cases.py, with new, empty S2SAD_CACHE_DIR and NUMBA_CACHE_DIR:
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

    python benchmarks/tier_latency.py [--only NAME] [--no-jax] [--repeat 3]
                                      # writes benchmarks/LATENCY.md: medians of 3 rounds
    python benchmarks/tier_latency.py --child KIND INDEX          # one measurement (JSON line)
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


def child(kind, index):
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
    if kind == "jax":
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
        start = time.perf_counter()
        gradient = s2sad.grad(func, wrt=positions, jit=True if kind == "jit" else None)
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
    print(json.dumps(out))


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


def _run(kind, index, dirs):
    python = BENCH_PYTHON if kind == "jax" else sys.executable
    env = dict(os.environ, S2SAD_CACHE_DIR=dirs[0], NUMBA_CACHE_DIR=dirs[1],
               PYTHONPATH=os.pathsep.join([ROOT, HERE]))
    env.pop("S2SAD_BACKGROUND_COMPILE", None)
    done = subprocess.run([python, os.path.abspath(__file__), "--child", kind, str(index)],
                          capture_output=True, text=True, env=env, timeout=900)
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
    parser.add_argument("--only", help="only the functions whose name contains this")
    parser.add_argument("--no-jax", action="store_true", help="skip JAX")
    parser.add_argument("--repeat", type=int, default=3,
                        help="rounds per case; each cell is their median (default 3)")
    parser.add_argument("--output", default=os.path.join(HERE, "LATENCY.md"))
    options = parser.parse_args()
    if options.child:
        return child(options.child[0], int(options.child[1]))
    jax = not options.no_jax
    if jax and not os.path.exists(BENCH_PYTHON):
        import run          # makes .venv-bench, where JAX is installed (as `make bench` does)
        run.ensure_venv()
    rows = measure(options.only, jax, repeat=options.repeat)
    text = "\n".join(table(rows))
    print("\n" + text)
    if not options.only:
        with open(options.output, "w") as stream:
            stream.write("# Latency of the tiered default (`make bench-latency`)\n\n"
                         f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, each cell "
                         f"the median of {options.repeat} rounds in new caches. "
                         "Generated by benchmarks/tier_latency.py: do not edit.\n\n"
                         + text + "\n")


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    main()
