"""The loop-shapes benchmark (issue 33): s2sad's gradients of loop kernels written as people
write them (loop_kernels.py) against the Numba forward of the same function and a hand-written
Numba adjoint (hand_loop_adjoints.py) where there is one; and a micro-benchmark of the ways a
tape can keep a number.

    python benchmarks/loop_shapes.py [--only NAME] [--repeat 7] [--quick]
    make bench            # runs it too, after the peer comparison, into RESULTS.md

For each kernel, in one run: the gradient is checked before it is timed (JIT on against JIT off
to 1e-12 and against central finite differences on the small inputs; against the hand adjoint
to 1e-8 of its largest entry on the large ones), then the median of `--repeat` calls after a
warm-up call of the Numba forward, the s2sad gradient (JIT on) and the hand adjoint. The table
gives the gradient ÷ forward, ÷ hand adjoint, the growable tapes of the generated file (each
`rt.grown`: a tape of a loop whose trip count is known only at its end) and its code lines
(lines.py's rule) against those of commit a6a379c, before issue 33. Targets: gradient <= 3x its
forward, <= 1.2x the hand adjoint, JIT on = off to 1e-12, lines not longer than before.
"""
import argparse
import dataclasses
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import loop_kernels  # noqa: E402

FORWARD_TARGET = 3.0
HAND_TARGET = 1.2
SAME = 1e-12

# code lines of each generated gradient at commit a6a379c (before issue 33), by lines.py's rule
LINES_BEFORE = {
    "triangular_solve": 38, "heat_1d": 43, "stencil_2d": 52, "matmul_loops": 38,
    "rnn_scalar": 52, "lstm_scalar": 115, "pairwise_energy": 44, "while_integrator": 49,
    "horner": 38, "hmm_forward": 97, "linear_recurrence": 29, "gmm_loops": 169,
}


@dataclasses.dataclass
class Row:
    name: str
    forward: float = None
    s2sad: float = None
    hand: float = None
    growable: int = None
    lines: int = None
    same: float = None        # largest |JIT on - JIT off| relative to max(1, |off|)
    notes: list = dataclasses.field(default_factory=list)
    wrong: list = dataclasses.field(default_factory=list)


def median_time(call, repeat):
    call()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def _largest_difference(got, reference):
    """Largest |got - reference| over all gradients, relative to max(1, |reference|)."""
    worst = 0.0
    for g, r in zip(got, reference):
        g, r = np.asarray(g, float), np.asarray(r, float)
        worst = max(worst, float(np.max(np.abs(g - r) / np.maximum(1.0, np.abs(r)))))
    return worst


def measure(name, repeat, say=print):
    import numba
    import s2sad
    from lines import generated_lines
    from s2sad.tools.verify import finite_difference
    try:
        from hand_loop_adjoints import HAND
    except ImportError:
        HAND = {}
    function, wrt, makes = loop_kernels.SIZES[name]
    row = Row(name)
    small = makes["small"](np.random.default_rng(33))
    on, off = s2sad.grad(function, wrt=wrt, jit=True), s2sad.grad(function, wrt=wrt, jit=False)
    got_on, got_off = on(*small), off(*small)
    row.same = _largest_difference(got_on, got_off)
    if row.same > SAME:
        row.wrong.append(f"{name}: JIT on and off differ by {row.same:.1e}")
    for k, position in enumerate(wrt):
        expected = finite_difference(function, small, position)
        error = _largest_difference([got_on[k]], [expected])
        if error > 1e-6:
            row.wrong.append(f"{name}: d/d(argument {position}) is off finite differences by "
                             f"{error:.1e}")
    large = makes["large"](np.random.default_rng(33))
    forward = numba.njit(function)
    row.forward = median_time(lambda: forward(*large), repeat)
    say(f"    {name}: Numba forward {row.forward * 1e3:.3f} ms")
    gradient = s2sad.value_and_grad(function, wrt=wrt, jit=True)
    value, grads = gradient(*large)
    row.s2sad = median_time(lambda: gradient(*large), repeat)
    say(f"    {name}: s2sad {row.s2sad * 1e3:.3f} ms")
    source = s2sad.source(gradient)
    row.growable = source.count("rt.grown(")
    row.lines = generated_lines(gradient.path)[0]
    if name in HAND:
        hand = HAND[name]
        reference = hand(*large)
        grads = grads if isinstance(grads, tuple) else (grads,)
        scale = max(float(np.max(np.abs(r))) for r in reference[1:])
        error = max(float(np.max(np.abs(np.asarray(g) - np.asarray(r))))
                    for g, r in zip(grads, reference[1:])) / max(scale, 1e-300)
        if error > 1e-8:
            row.wrong.append(f"{name}: s2sad and the hand adjoint differ by {error:.1e} of "
                             "the largest entry")
        row.hand = median_time(lambda: hand(*large), repeat)
        say(f"    {name}: hand adjoint {row.hand * 1e3:.3f} ms")
    return row


def measure_all(repeat, only=None, say=print):
    names = [n for n in loop_kernels.SIZES if not only or only in n]
    return [measure(name, repeat, say) for name in names]


def table(rows):
    def ms(seconds):
        return "" if seconds is None else f"{seconds * 1e3:.3f}"

    def ratio(a, b):
        return "" if a is None or b is None else f"{a / b:.2f}x"
    lines = ["| kernel | Numba forward ms | s2sad ms | s2sad / forward | hand adjoint ms | "
             "s2sad / hand | hand / forward | growable tapes | lines (before) | on vs off |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        before = LINES_BEFORE.get(row.name)
        lines.append(
            f"| {row.name} | {ms(row.forward)} | {ms(row.s2sad)} | "
            f"{ratio(row.s2sad, row.forward)} | {ms(row.hand)} | {ratio(row.s2sad, row.hand)} "
            f"| {ratio(row.hand, row.forward)} | {row.growable} | {row.lines} ({before}) | "
            f"{row.same:.0e} |")
    return lines


def targets(rows):
    met = lambda ok: "met" if ok else "NOT met"  # noqa: E731
    out = []
    over = [r.name for r in rows if r.s2sad / r.forward > FORWARD_TARGET]
    out.append(f"- gradient <= {FORWARD_TARGET:g}x its Numba forward: {met(not over)}"
               + (f" (missed: {', '.join(over)})" if over else ""))
    handed = [r for r in rows if r.hand is not None]
    over = [r.name for r in handed if r.s2sad / r.hand > HAND_TARGET]
    out.append(f"- gradient <= {HAND_TARGET:g}x the hand adjoint ({len(handed)} kernels): "
               f"{met(not over)}" + (f" (missed: {', '.join(over)})" if over else ""))
    worst = max(r.same for r in rows)
    out.append(f"- JIT on = off to {SAME:g}: {met(worst <= SAME)} (largest {worst:.0e})")
    longer = [r.name for r in rows if r.lines > LINES_BEFORE.get(r.name, r.lines)]
    out.append(f"- generated lines not longer than before: {met(not longer)}"
               + (f" (longer: {', '.join(longer)})" if longer else ""))
    return out


# ---- a tape keeping one number per trip, three ways ------------------------------------------

def push_vs_store(n=4_000_000, repeat=5):
    """ns per value kept: a call that grows and returns the tape (`s = push(s, k, x)`, what
    s2sad generated before issue 33), the room check inline and a store (a growable tape now),
    and a store into a tape allocated at its full length (trip counts known before the loop)."""
    import numba

    @numba.njit
    def push(stack, k, x):
        if k >= stack.shape[0]:
            longer = np.empty(max(16, 2 * stack.shape[0]), stack.dtype)
            longer[:stack.shape[0]] = stack
            stack = longer
        stack[k] = x
        return stack

    @numba.njit
    def grown(stack, k):
        longer = np.empty(max(16, 2 * stack.shape[0], k + 1), stack.dtype)
        longer[:stack.shape[0]] = stack
        return longer

    @numba.njit
    def by_call(n):
        s = np.empty(0)
        x = 0.5
        for k in range(n):
            x = x * 0.999 + 0.001
            s = push(s, k, x)
        return s[n - 1]

    @numba.njit
    def inline_check(n):
        s = np.empty(0)
        x = 0.5
        for k in range(n):
            x = x * 0.999 + 0.001
            if k >= len(s):
                s = grown(s, k)
            s[k] = x
        return s[n - 1]

    @numba.njit
    def preallocated(n):
        s = np.empty(n)
        x = 0.5
        for k in range(n):
            x = x * 0.999 + 0.001
            s[k] = x
        return s[n - 1]

    return {label: median_time(lambda: f(n), repeat) / n * 1e9
            for label, f in (("call per value (rt.push, before)", by_call),
                             ("room check inline + store", inline_check),
                             ("store into a preallocated tape", preallocated))}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="only the kernels whose name contains this")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="3 timed calls per cell")
    opts = parser.parse_args(argv)
    rows = measure_all(3 if opts.quick else opts.repeat, opts.only)
    print("\n" + "\n".join(table(rows)))
    print("\n" + "\n".join(targets(rows)))
    print("\nns per value kept on a tape (4 M values):")
    for label, ns in push_vs_store().items():
        print(f"    {label:36} {ns:6.1f}")
    wrong = [w for row in rows for w in row.wrong]
    for line in wrong:
        print(line, file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
