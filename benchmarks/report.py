"""The tables, the targets of issue 18, RESULTS.md and the chart (results.png)."""
import dataclasses
import datetime
import importlib.metadata
import os
import platform
import sys

import cases
import lines
import measure

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CHART_COLUMNS = ("s2sad", "hand adjoint", "JAX", "autograd", "PyTorch")
HAND_RATIO, HAND_GOAL = 1.3, 1.2   # s2sad / hand adjoint: the target, and the goal beyond it
FIRST_CALL = 1.5                   # s, fresh process, empty cache: transform + compile + call
SECOND_PROCESS = 0.2               # s, from the cache, after the imports
TRANSFORM = 0.05                   # s, per function
LINES_RATIO = 1.5                  # generated code lines / hand-written adjoint lines


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
    lines = ["| function | lines | imports | transform (again) | first call (nothing cached) "
             "| second process (its imports) | hand adjoint's first call |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for lat in latencies:
        if lat.second_process is None:
            lines.append(f"| {lat.name} | {lat.lines} | error | | | | |")
            continue
        hand = "-" if lat.hand_call is None else f"{lat.hand_call:.2f} s"
        lines.append(f"| {lat.name} | {lat.lines} | {lat.imports:.2f} s | "
                     f"{lat.transform * 1e3:.0f} ms ({lat.transform_again * 1e3:.0f} ms) | "
                     f"{lat.first_call:.2f} s ({lat.cold_call:.2f} s) | "
                     f"{lat.second_process:.3f} s ({lat.second_imports:.2f} s) | {hand} |")
    return lines


@dataclasses.dataclass
class LineCount:
    label: str              # the problem, or the case when a problem's cases ran other files
    generated: int = None   # code lines of the generated file(s); None: s2sad's call failed
    files: int = 0          # the generated file and its callees' files
    hand: int = 0           # code lines of the hand-written adjoint and its helpers
    functions: int = 0

    @property
    def ratio(self):
        return None if self.generated is None else self.generated / self.hand


def line_counts(rows):
    """One LineCount per problem (lines.py counts), from the generated file each row's s2sad
    call ran; a problem whose cases ran different generated files gets one per case."""
    paths = {}
    for row in rows:
        paths.setdefault(row.case.problem, {}).setdefault(row.generated, row)
    out = []
    for problem, found in paths.items():
        ran = {path: row for path, row in found.items() if path} or found
        for path, row in ran.items():
            count = LineCount(problem if len(ran) == 1 else row.case.name)
            count.hand, count.functions = lines.hand_lines(row.case.adjoint)
            if path:
                count.generated, count.files = lines.generated_lines(path)
            out.append(count)
    return out


def lines_table(counts):
    out = ["| problem | generated lines (files) | hand lines (functions) | generated / hand |",
           "|---|---:|---:|---:|"]
    for count in counts:
        generated = "-" if count.generated is None else f"{count.generated} ({count.files})"
        ratio = "-" if count.ratio is None else f"{count.ratio:.2f}"
        out.append(f"| {count.label} | {generated} | {count.hand} ({count.functions}) | "
                   f"{ratio} |")
    return out


def targets(rows, latencies, counts=()):
    """(target, measured, verdict) for every target of issue 18; one this run could not measure
    says `not measured`."""
    out = []

    def verdict(ok):
        return "met" if ok else "NOT met"

    for row in rows:
        ratio = _ratio(row, "s2sad", "hand adjoint")
        out.append((f"{row.case.name}: s2sad <= {HAND_RATIO}x hand adjoint (goal "
                    f"{HAND_GOAL}x)", "-" if ratio is None else f"{ratio:.2f}x",
                    "not measured" if ratio is None else verdict(ratio <= HAND_RATIO)))
    for row in rows:
        s2, jax = row.cells.get("s2sad"), row.cells.get("JAX")
        measured = isinstance(s2, float) and isinstance(jax, float)
        out.append((f"{row.case.name}: s2sad faster than JAX jit(grad)",
                    f"{fmt_time(s2)} vs {fmt_time(jax)}" if measured else "-",
                    verdict(s2 < jax) if measured else "not measured"))
    if not latencies:
        out.append(("first call, second process and transformation of each function",
                    "-", "not measured"))
    for lat in latencies:
        if lat.second_process is None:
            out.append((f"{lat.name}: latency", "error", "not measured"))
            continue
        if lat.name != cases.DRONE:   # the first call is a target for the problems and the demo
            out.append((f"{lat.name}: first call (fresh process, gradient not cached: "
                        f"transform + compile + call) <= {FIRST_CALL} s",
                        f"{lat.first_call:.2f} s (nothing cached, helpers included: "
                        f"{lat.cold_call:.2f} s" + ("" if lat.hand_call is None else
                                                   f"; the hand adjoint's first call: "
                                                   f"{lat.hand_call:.2f} s") + ")",
                        verdict(lat.first_call <= FIRST_CALL)))
        out.append((f"{lat.name}: second process, from the cache, <= {SECOND_PROCESS} s after "
                    "imports", f"{lat.second_process:.3f} s",
                    verdict(lat.second_process <= SECOND_PROCESS)))
        out.append((f"{lat.name}: transformation <= {TRANSFORM * 1e3:.0f} ms (per function: the "
                    "second one in a process)", f"{lat.transform_again * 1e3:.0f} ms (first in "
                    f"the process: {lat.transform * 1e3:.0f} ms)",
                    verdict(lat.transform_again <= TRANSFORM)))
    for count in counts:
        out.append((f"{count.label}: generated code lines / hand adjoint lines <= "
                    f"{LINES_RATIO}", "-" if count.ratio is None else
                    f"{count.ratio:.2f} ({count.generated} / {count.hand})",
                    "not measured" if count.ratio is None else
                    verdict(count.ratio <= LINES_RATIO)))
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


def write_markdown(path, opts, rows, latencies, installed, loads, chart_note, counts=()):
    found = targets(rows, latencies, counts)
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
        "not included). The first call is that of a new function where s2sad has run before: "
        "Numba's cache holds s2sad's runtime helpers (compiled once per installation, "
        "`s2sad/runtime/numba_cache.py`), not the gradient; in parentheses, the first call "
        "with nothing cached, helpers included, as on a new installation. The hand "
        "adjoint's first call: the problem's adjoint in `hand_adjoints.py`, called once in a "
        "fresh process with an empty Numba cache, which is Numba compiling it (and the NumPy "
        "functions it calls) plus the call: what the same gradient costs to compile when "
        "written by hand. Problem "
        "functions at their --quick sizes (the compile does not depend on sizes); "
        "`examples/demo.py`'s `loss` w.r.t. W and b with the demo's arguments.",
        "",
        *latency_table(latencies),
        "",
        "## Code lines",
        "",
        "Lines of the generated gradient that the benchmark call ran (the generated file and the "
        "files of the callees it links with `rt.load`) against the hand-written adjoint in "
        "`hand_adjoints.py` and its helpers, counted the same way (`benchmarks/lines.py`): "
        "non-blank lines that are not comments, imports, `rt.load` links, decorators or "
        "docstrings.",
        "",
        *lines_table(counts),
        "",
        "## Targets (issue 18)",
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
