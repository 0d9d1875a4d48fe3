"""Check, then time, every column of one benchmark case.

Order per case: the hand-written adjoint against central finite differences (small inputs),
then at the benchmark size the Numba forward, the hand adjoint (whose gradients are the
reference), s2sad's gradient and each peer. A gradient is timed only after it matched the
reference; otherwise its cell says WRONG (or error / fallback / not installed) and the reason
goes under the table.
"""
import dataclasses
import statistics
import time
import warnings

import numpy as np

import cases
import hand_adjoints
import peers

import s2sad

RTOL = 1e-8                 # every gradient vs the hand adjoint, relative to its largest entry
TIME_BUDGET = 5.0           # seconds of timed calls per cell, at least MIN_CALLS calls
MIN_CALLS = 3
COLUMNS = ("Numba forward", "s2sad", "hand adjoint") + peers.PEERS


@dataclasses.dataclass
class Row:
    case: cases.Case
    cells: dict = dataclasses.field(default_factory=dict)   # column -> seconds, or a status
    notes: list = dataclasses.field(default_factory=list)   # errors, shown under the table
    wrong: list = dataclasses.field(default_factory=list)   # mismatches: exit status 1
    first_call: float = None                                # s2sad transform + compile, s
    generated: str = None       # the generated file s2sad's gradient ran (lines.py counts it)


def median_time(call, repeat):
    """Median wall time of `repeat` calls (fewer, but at least MIN_CALLS, when they are slow)."""
    times = []
    budget_end = time.perf_counter() + TIME_BUDGET
    while len(times) < repeat and (len(times) < min(MIN_CALLS, repeat)
                                   or time.perf_counter() < budget_end):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def mismatch(got, reference):
    """None if every gradient matches its reference to RTOL (relative to the reference's
    largest magnitude), else a description of the first that does not."""
    if len(got) != len(reference):
        return f"{len(got)} gradients, expected {len(reference)}"
    for k, (g, r) in enumerate(zip(got, reference)):
        g, r = np.asarray(g, dtype=float), np.asarray(r, dtype=float)
        if g.shape != r.shape:
            return f"gradient {k}: shape {g.shape}, expected {r.shape}"
        scale = float(np.max(np.abs(r))) if r.size else 0.0
        error = float(np.max(np.abs(g - r))) if r.size else 0.0
        if not error <= RTOL * scale and error != 0.0:
            return (f"gradient {k}: max difference {error:.2e} = "
                    f"{error / max(scale, 1e-300):.1e} of its largest entry (> {RTOL:g})")
    return None


def measure(case, repeat, installed, say):
    """The Row of one case. `installed`: peer -> None or why it is missing; `say`: progress."""
    row = Row(case)
    problem = hand_adjoints.check_against_differences(
        case.name, cases.jit_forward(case.func), case.adjoint,
        case.check_args(np.random.default_rng(1)), case.positions)
    if problem:
        raise SystemExit(f"the hand-written adjoint is wrong, nothing can be checked: {problem}")
    args = case.make_args(np.random.default_rng(0))

    forward = cases.jit_forward(case.func)
    forward(*args)
    row.cells["Numba forward"] = median_time(lambda: forward(*args), repeat)
    say("Numba forward", row.cells["Numba forward"])

    _, *reference = case.adjoint(*args)
    row.cells["hand adjoint"] = median_time(lambda: case.adjoint(*args), repeat)
    say("hand adjoint", row.cells["hand adjoint"])

    _measure_s2sad(row, args, reference, repeat, say)
    for peer in peers.PEERS:
        if installed[peer] is not None:
            row.cells[peer] = "not installed"
            continue
        _measure_peer(row, peer, args, reference, repeat, say)
    return row


def _measure_s2sad(row, args, reference, repeat, say):
    case = row.case
    try:
        gradient = s2sad.grad(case.func, wrt=case.positions)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", s2sad.JitFallbackWarning)
            start = time.perf_counter()
            got = gradient(*args)
            row.first_call = time.perf_counter() - start
    except Exception as exc:  # noqa: BLE001 -- any failure is reported, the others go on
        _fail(row, "s2sad", "error", exc, say)
        return
    row.generated = gradient.path
    fallbacks = [w for w in caught if issubclass(w.category, s2sad.JitFallbackWarning)]
    if fallbacks:
        row.cells["s2sad"] = "fallback"
        row.notes.append(f"s2sad: Numba could not compile the gradient, it ran as Python "
                         f"(not timed):\n{fallbacks[0].message}")
        say("s2sad", "fallback")
        return
    if _wrong(row, "s2sad", got, reference, say):
        return
    row.cells["s2sad"] = median_time(lambda: gradient(*args), repeat)
    say("s2sad", row.cells["s2sad"], f"(first call, transform + compile or cache load: "
        f"{row.first_call:.2f} s)")


def _measure_peer(row, peer, args, reference, repeat, say):
    try:
        call, to_numpy = peers.prepare(peer, row.case.problem, args, row.case.positions)
        start = time.perf_counter()
        got = to_numpy(call())
        first = time.perf_counter() - start
    except Exception as exc:  # noqa: BLE001
        _fail(row, peer, "error", exc, say)
        return
    if _wrong(row, peer, got, reference, say):
        return
    row.cells[peer] = median_time(call, repeat)
    say(peer, row.cells[peer], f"(first call {first:.2f} s)")


def _wrong(row, column, got, reference, say):
    problem = mismatch(got, reference)
    if problem:
        row.cells[column] = "WRONG"
        row.wrong.append(f"{row.case.name}, {column}: WRONG GRADIENT against the hand "
                         f"adjoint: {problem}")
        say(column, "WRONG")
    return problem is not None


def _fail(row, column, status, exc, say):
    row.cells[column] = status
    message = str(exc).strip() or type(exc).__name__
    if len(message) > 1500:
        message = message[:1500] + " ..."
    row.notes.append(f"{column}: {type(exc).__name__}: {message}")
    say(column, status)
