"""The tables, the targets of issue 7, RESULTS.md and the chart (results.png)."""
import datetime
import importlib.metadata
import os
import platform
import sys

import measure

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CHART_COLUMNS = ("s2sad", "hand adjoint", "JAX", "autograd", "PyTorch")


def fmt_time(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    if seconds < 1.0:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


def _ratio(row, column, to):
    a, b = row.cells.get(column), row.cells.get(to)
    if isinstance(a, float) and isinstance(b, float):
        return a / b
    return None


def gradient_table(rows):
    """Markdown lines: every column as time (ratio to the Numba forward), and the two ratios
    the targets are about."""
    header = ["problem", *measure.COLUMNS, "s2sad / hand", "s2sad / JAX"]
    lines = ["| " + " | ".join(header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]
    for row in rows:
        cells = [row.case.name]
        for column in measure.COLUMNS:
            value = row.cells.get(column, "-")
            if isinstance(value, float):
                value = fmt_time(value) if column == "Numba forward" else \
                    f"{fmt_time(value)} ({_ratio(row, column, 'Numba forward'):.3g}x)"
            cells.append(value)
        for to in ("hand adjoint", "JAX"):
            ratio = _ratio(row, "s2sad", to)
            cells.append("-" if ratio is None else f"{ratio:.2f}x")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def latency_table(latencies):
    lines = ["| function | lines | imports | transform (again) | first call | second process "
             "(its imports) |", "|---|---:|---:|---:|---:|---:|"]
    for lat in latencies:
        if lat.second_process is None:
            lines.append(f"| {lat.name} | {lat.lines} | error | | | |")
            continue
        lines.append(f"| {lat.name} | {lat.lines} | {lat.imports:.2f} s | "
                     f"{lat.transform * 1e3:.0f} ms ({lat.transform_again * 1e3:.0f} ms) | "
                     f"{lat.first_call:.2f} s | "
                     f"{lat.second_process:.3f} s ({lat.second_imports:.2f} s) |")
    return lines


def targets(rows, latencies):
    """(target, measured, verdict) for every target of issue 7 that this run measured."""
    out = []

    def verdict(ok):
        return "met" if ok else "NOT met"

    for row in rows:
        ratio = _ratio(row, "s2sad", "hand adjoint")
        out.append((f"{row.case.name}: s2sad <= 1.2x hand adjoint",
                    "-" if ratio is None else f"{ratio:.2f}x",
                    "not measured" if ratio is None else verdict(ratio <= 1.2)))
    for row in rows:
        if row.case.problem in ("particle_chain", "lotka_volterra"):
            s2, jax = row.cells.get("s2sad"), row.cells.get("JAX")
            measured = isinstance(s2, float) and isinstance(jax, float)
            out.append((f"{row.case.name}: s2sad faster than JAX jit(grad)",
                        f"{fmt_time(s2)} vs {fmt_time(jax)}" if measured else "-",
                        verdict(s2 < jax) if measured else "not measured"))
        if row.case.name.startswith("gmm d=64"):
            ratio = _ratio(row, "s2sad", "JAX")
            out.append((f"{row.case.name}: s2sad <= 1.5x JAX jit(grad)",
                        "-" if ratio is None else f"{ratio:.2f}x",
                        "not measured" if ratio is None else verdict(ratio <= 1.5)))
    for lat in latencies:
        if lat.second_process is None:
            out.append((f"{lat.name}: latency", "error", "not measured"))
            continue
        out.append((f"{lat.name}: transformation <= 50 ms (per function: the second one in a "
                    "process)", f"{lat.transform_again * 1e3:.0f} ms (first in the process: "
                    f"{lat.transform * 1e3:.0f} ms)", verdict(lat.transform_again <= 0.05)))
        if lat.name.startswith("latency_case"):
            out.append((f"{lat.name}: first call (transform + compile) <= 1.5 s",
                        f"{lat.first_call:.2f} s", verdict(lat.first_call <= 1.5)))
        out.append((f"{lat.name}: second process, from the cache, <= 0.2 s",
                    f"{lat.second_process:.3f} s", verdict(lat.second_process <= 0.2)))
    return out


def target_table(found):
    lines = ["| target | measured | |", "|---|---:|---|"]
    lines += [f"| {name} | {measured} | {verdict} |" for name, measured, verdict in found]
    return lines


def notes(rows, installed, latencies=()):
    out = [f"{peer}: not installed ({why})" for peer, why in installed.items() if why]
    out += [f"latency of {lat.name}: {lat.error}" for lat in latencies if lat.error]
    for row in rows:
        out += [f"{row.case.name}, {note}" for note in row.notes]
        out += row.wrong
    return out


def machine():
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as handle:
            cpu = next(line.split(":", 1)[1].strip() for line in handle
                       if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.platform()}"


def versions():
    import s2sad
    names = ["numpy", "numba", "jax", "jaxlib", "torch", "autograd", "matplotlib"]
    found = [f"Python {platform.python_version()}", f"s2sad {s2sad.__version__}"]
    for name in names:
        try:
            found.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{name} not installed")
    return ", ".join(found)


def commit():
    """The checked-out commit, read from .git (no git command needed)."""
    git = os.path.join(REPO, ".git")
    try:
        with open(os.path.join(git, "HEAD")) as handle:
            head = handle.read().strip()
        if not head.startswith("ref: "):
            return head[:12]
        ref = head[5:]
        path = os.path.join(git, ref)
        if os.path.exists(path):
            with open(path) as handle:
                return handle.read().strip()[:12] + f" ({ref.split('/')[-1]})"
        with open(os.path.join(git, "packed-refs")) as handle:
            for line in handle:
                if line.strip().endswith(ref):
                    return line.split()[0][:12] + f" ({ref.split('/')[-1]})"
    except OSError:
        pass
    return "unknown"


def write_markdown(path, opts, rows, latencies, installed, loads, chart_note):
    found = targets(rows, latencies)
    quick = " with --quick (small sizes: not the issue's sizes)" if opts.quick else ""
    fewer = (f" (only {measure.MIN_CALLS} when they add up to more than "
             f"{measure.TIME_BUDGET:g} s)" if opts.repeat > measure.MIN_CALLS else "")
    text = [
        "# Peer benchmark: measured results",
        "",
        f"Written by `benchmarks/run.py` (`make bench`) on "
        f"{datetime.date.today().isoformat()}{quick}. Gradients of the problems in "
        "`benchmarks/problems.py`; every gradient was checked against the hand-written adjoint "
        f"(to {measure.RTOL:g} of its largest entry) before it was timed. Times are medians of "
        f"{opts.repeat} calls after warm-up{fewer}, {opts.threads} thread(s); in parentheses "
        "the ratio to the Numba-compiled forward. "
        f"Load average (1 min) at the start and the end: {loads[0]:.2f}, {loads[1]:.2f} "
        "(above 0 means other work shared the CPU and the times are noisier).",
        "",
        "## Gradients",
        "",
        *gradient_table(rows),
        "",
        "## s2sad latency",
        "",
        "Each function in a fresh process with an empty `S2SAD_CACHE_DIR` (imports of numpy, "
        "numba and s2sad timed apart); transform: `s2sad.grad` to the generated files written, "
        "no compile, the first transformation in the process (in parentheses: a copy of the "
        "same function transformed right after, once s2sad's start-up costs are paid); first "
        "call: transform + Numba compile + the call; second process: a new process with the "
        "same cache directory gets the gradient and calls it once (its imports in parentheses, "
        "not included). Numba's cache of s2sad's runtime helpers is not emptied. Problem "
        "functions at their --quick sizes (the compile does not depend on sizes).",
        "",
        *latency_table(latencies),
        "",
        "## Targets (issue 7)",
        "",
        *target_table(found),
        "",
    ]
    found_notes = notes(rows, installed, latencies)
    if found_notes or chart_note:
        text += ["## Notes", ""]
        text += [f"- {note}".replace("\n", "\n  ") for note in found_notes]
        if chart_note:
            text.append(f"- {chart_note}")
        text.append("")
    text += [
        "## Machine",
        "",
        f"- {machine()}",
        f"- {versions()}",
        f"- commit {commit()}; command: `{' '.join(['run.py', *sys.argv[1:]])}`",
        "",
    ]
    with open(path, "w") as handle:
        handle.write("\n".join(text))
    return found


def write_chart(path, rows):
    """A log-scale bar chart of every column's ratio to the Numba forward; None when written,
    else why not."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "results.png not written: matplotlib is not installed"
    width = 0.8 / len(CHART_COLUMNS)
    figure, axes = plt.subplots(figsize=(max(8, 1.9 * len(rows)), 5))
    for k, column in enumerate(CHART_COLUMNS):
        xs, ratios = [], []
        for i, row in enumerate(rows):
            ratio = _ratio(row, column, "Numba forward")
            if ratio is not None:
                xs.append(i + (k - (len(CHART_COLUMNS) - 1) / 2) * width)
                ratios.append(ratio)
        axes.bar(xs, ratios, width, label=column)
    axes.set_yscale("log")
    axes.axhline(1.0, color="black", linewidth=0.8)
    axes.set_xticks(range(len(rows)))
    axes.set_xticklabels([row.case.name.replace(" ", "\n", 1) for row in rows], fontsize=8)
    axes.set_ylabel("gradient time / Numba forward time (log)")
    axes.set_title("Gradient time relative to the Numba-compiled forward (lower is better)")
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return None
