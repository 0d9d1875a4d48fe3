"""The scaling benchmark (issue 20): batched gradients with `s2sad.vmap` and Dask throughput.

    make bench-scale [ARGS="--quick --no-dask --no-install"]
    python benchmarks/scale.py [--quick] [--no-dask] [--no-install] [--repeat 5] [--out FILE]

Per-example gradients (logistic loss, 10^5 rows x 20 features) and an ensemble of 1000
Lotka–Volterra fits (examples/ode_ensemble.py's `misfit`, 100 RK4 steps), each timed as:
`s2sad.vmap` of the gradient on 1 and on 2 Numba threads, a Python loop of single calls of
the s2sad gradient, and JAX `jit(vmap(grad))` (float64, CPU, its default threads) when JAX can
be imported. Then, unless --no-dask, Dask `value_and_grad_sum` throughput (rows/s) for one
process, a LocalCluster of 1 worker and one of 2 (benchmarks/scale_dask.py).

Like run.py it runs itself inside .venv-bench (JAX installed there; --no-install: the current
interpreter, JAX skipped if missing). Each cell is the median of --repeat calls after a
warm-up call; every batched result is checked against single calls first. Writes
benchmarks/SCALE.md (full runs; with --quick only when --out is given).
"""
import argparse
import importlib.util
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for development")
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask throughput")
    parser.add_argument("--no-install", action="store_true",
                        help="run with the current interpreter (JAX skipped if missing)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", help="the results file (default benchmarks/SCALE.md)")
    return parser.parse_args(argv)


def fix_threads():
    """Before NumPy and Numba are imported: BLAS on one thread, Numba's pool of 2."""
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[name] = "1"
    os.environ["NUMBA_NUM_THREADS"] = "2"
    os.environ.setdefault("JAX_PLATFORMS", "cpu")


def median_time(call, repeat):
    call()  # warm-up: compiles, fills caches
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return sorted(times)[len(times) // 2]


def ode_misfit():
    spec = importlib.util.spec_from_file_location(
        "ode_ensemble", os.path.join(REPO, "examples", "ode_ensemble.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def problems(quick):
    """(name, gradient of one example, in_axes, batch arguments, JAX maker) per problem."""
    import numpy as np

    import s2sad
    rng = np.random.default_rng(0)
    rows = 10_000 if quick else 100_000
    X = rng.normal(size=(rows, 20))
    Y = np.where(rng.normal(size=rows) > 0, 1.0, -1.0)
    w = 0.1 * rng.normal(size=20)

    def row_loss(w, x, y):
        return np.log1p(np.exp(-y * np.dot(x, w)))

    ode = ode_misfit()
    members = 100 if quick else 1000
    truth = np.array([1.1, 0.4, 0.4, 0.1])
    observed = ode.observations(truth, rng)
    thetas = truth * rng.uniform(0.5, 1.5, size=(members, 4))
    return [
        (f"per-example logistic ({rows:,} rows x 20)", s2sad.grad(row_loss), (None, 0, 0),
         (w, X, Y), _jax_logistic),
        (f"Lotka-Volterra ensemble ({members:,} members, {ode.STEPS} RK4 steps)",
         s2sad.grad(ode.misfit), (0, None), (thetas, observed),
         lambda: _jax_ode(ode.STEPS, ode.DT)),
    ]


def _jax_logistic():
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)

    def row_loss(w, x, y):
        return jnp.log1p(jnp.exp(-y * jnp.dot(x, w)))
    return jax.jit(jax.vmap(jax.grad(row_loss), in_axes=(None, 0, 0)))


def _jax_ode(steps, dt):
    import jax
    from jax import lax
    jax.config.update("jax_enable_x64", True)

    def misfit(theta, observed):
        a, b, c, d = theta[0], theta[1], theta[2], theta[3]

        def rates(x, y):
            return a * x - b * x * y, d * x * y - c * y

        def step(i, state):
            x, y, total = state
            k1x, k1y = rates(x, y)
            k2x, k2y = rates(x + 0.5 * dt * k1x, y + 0.5 * dt * k1y)
            k3x, k3y = rates(x + 0.5 * dt * k2x, y + 0.5 * dt * k2y)
            k4x, k4y = rates(x + dt * k3x, y + dt * k3y)
            x = x + dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
            y = y + dt / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y)
            return x, y, total + (x - observed[i, 0]) ** 2 + (y - observed[i, 1]) ** 2
        _, _, total = lax.fori_loop(0, steps, step, (1.0, 0.5, 0.0))
        return total / steps
    return jax.jit(jax.vmap(jax.grad(misfit), in_axes=(0, None)))


def time_problem(name, grad, in_axes, args, jax_maker, repeat, log):
    import numba
    import numpy as np

    import s2sad
    batched = s2sad.vmap(grad, in_axes=in_axes)
    n = next(np.shape(a)[0] for a, ax in zip(args, in_axes) if ax is not None)
    started = time.perf_counter()
    result = batched(*args)
    log(f"  {name}: first vmap call {time.perf_counter() - started:.2f} s")
    for k in (0, n // 2, n - 1):  # nothing wrong is timed
        one = grad(*[a if ax is None else a[k] for a, ax in zip(args, in_axes)])
        assert np.allclose(result[k], one, rtol=1e-12, atol=1e-14), name
    row = {"name": name, "n": n}
    for threads in (1, 2):
        numba.set_num_threads(threads)
        row[f"vmap{threads}"] = median_time(lambda: batched(*args), repeat)
        log(f"    vmap, {threads} thread(s): {row[f'vmap{threads}'] * 1e3:.1f} ms")
    loop_n = min(n, 20_000)  # the loop's time per call does not depend on n: time a part

    def loop():
        for k in range(loop_n):
            grad(*[a if ax is None else a[k] for a, ax in zip(args, in_axes)])
    row["loop"] = median_time(loop, max(1, repeat // 2)) * n / loop_n
    log(f"    Python loop of calls: {row['loop'] * 1e3:.1f} ms")
    try:
        jax_batched = jax_maker()
        jax_args = [np.asarray(a) for a in args]
        expected = np.asarray(jax_batched(*jax_args))
        assert np.allclose(expected, result, rtol=1e-9, atol=1e-12), f"JAX disagrees: {name}"
        row["jax"] = median_time(lambda: jax_batched(*jax_args).block_until_ready(), repeat)
        log(f"    JAX jit(vmap(grad)): {row['jax'] * 1e3:.1f} ms")
    except ImportError as exc:
        row["jax"] = None
        log(f"    JAX skipped: {exc}")
    return row


def table(rows, dask_rows, quick):
    import numba
    import numpy as np
    lines = [
        "# Scaling: `s2sad.vmap` and Dask (`make bench-scale`)",
        "",
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"NumPy {np.__version__}, Numba {numba.__version__}" + (", --quick" if quick else "")
        + ". Medians after a warm-up call; batched results checked against single calls.",
        "",
        "## Per-example gradients",
        "",
        "| problem | vmap, 1 thread | vmap, 2 threads | speed-up, 1 to 2 threads | loop of "
        "calls | loop ÷ vmap (2 threads) | JAX jit(vmap(grad)) | s2sad (2 threads) ÷ JAX |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        jax = f"{r['jax'] * 1e3:.1f} ms" if r["jax"] else "not installed"
        versus = f"{r['vmap2'] / r['jax']:.2f}x" if r["jax"] else "—"
        lines.append(
            f"| {r['name']} | {r['vmap1'] * 1e3:.1f} ms | {r['vmap2'] * 1e3:.1f} ms | "
            f"{r['vmap1'] / r['vmap2']:.2f}x | {r['loop'] * 1e3:.0f} ms | "
            f"{r['loop'] / r['vmap2']:.0f}x | {jax} | {versus} |")
    lines += ["", "The loop calls the same s2sad gradient once per example from Python (timed on "
              "up to 20,000 examples, scaled to all). JAX runs on its default threads.", ""]
    if dask_rows:
        lines += ["## Dask `value_and_grad_sum` throughput", "",
                  "| setup | rows/s | ÷ one process |", "|---|---:|---:|"]
        lines += [f"| {r['setup']} | {r['rows_per_s']:,.0f} | {r['vs_one_process']:.2f}x |"
                  for r in dask_rows]
        lines += ["", "One pass of the gradient of a logistic loss over dask arrays in memory "
                  "(benchmarks/scale_dask.py): one process is a Python loop over the chunks. On "
                  "2 cores the cluster's scheduler and client share the cores with its workers, "
                  "each pass pays a fixed graph and scheduling cost, and Dask's workers allocate "
                  "memory more slowly (their MALLOC_TRIM_THRESHOLD_); Dask is for data that does "
                  "not fit in one process, and for machines with more cores.", ""]
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    opts = parse(argv)
    fix_threads()
    if not opts.no_install:
        import run
        if not run.inside_venv():
            run.ensure_venv()
            done = subprocess.run([run.venv_python(), "-c", "import distributed"],
                                  capture_output=True)
            if done.returncode != 0:
                print("installing dask[distributed] into .venv-bench ...", flush=True)
                subprocess.run([run.venv_python(), "-m", "pip", "install", "--quiet", "-e",
                                f"{REPO}[dask]"], check=True, capture_output=True)
            os.execv(run.venv_python(), [run.venv_python(), os.path.abspath(__file__), *argv])

    def log(text):
        print(text, flush=True)
    rows = [time_problem(*problem, opts.repeat, log) for problem in problems(opts.quick)]
    dask_rows = []
    if not opts.no_dask:
        import scale_dask
        log("  Dask throughput ...")
        dask_rows = scale_dask.dask_throughput(**({"rows": 400_000} if opts.quick else {}))
    text = table(rows, dask_rows, opts.quick)
    print("\n" + text)
    out = opts.out or (None if opts.quick else os.path.join(HERE, "SCALE.md"))
    if out:
        with open(out, "w") as handle:
            handle.write(text)
        print(f"written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
