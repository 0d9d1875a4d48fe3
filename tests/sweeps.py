"""The long sweeps of the suite, sampled (issue 34): `make test` checks a fixed sample of them,
`make verify` every case.

A sweep is a list of cases that differ in their inputs (shapes, layouts, dtypes, axes) rather
than in what they test: the Python-vs-Numba agreement of the runtime helpers (test_rt.py,
test_runtime_*.py) and the compiled (JIT on) half of the corpus (test_corpus.py). Each case
costs a Numba compile of its own, up to seconds, so the default run takes a deterministic
sample: the cases are grouped (by the helper they call, by corpus module), and of each group
its first case and every `every`-th after it are kept. Every group is checked at least once,
in its first form (usually its plainest), and the sample is the same on every run.

S2SAD_FULL_SWEEP=1 (what `make verify` sets) checks every case.
"""
import os

FULL = os.environ.get("S2SAD_FULL_SWEEP", "") not in ("", "0")


def sample(cases, key=None, every=3):
    """The cases this run checks, in their order: all of them with S2SAD_FULL_SWEEP=1; else,
    of each group of cases with the same key(case) (one group without a key), the first and
    every `every`-th after it."""
    cases = list(cases)
    return [cases[k] for k in sorted(positions(cases, key, every))]


def positions(cases, key=None, every=3):
    """The positions in `cases` of the sample (all positions with S2SAD_FULL_SWEEP=1)."""
    if FULL:
        return set(range(len(cases)))
    groups = {}
    for k, case in enumerate(cases):
        groups.setdefault(key(case) if key else None, []).append(k)
    kept = set()
    for group in groups.values():
        kept.update(group[::every])
    return kept
