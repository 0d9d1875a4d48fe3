"""s2sad's latency, measured in fresh processes.

For each function of cases.latency_functions(), with new, empty S2SAD_CACHE_DIR and
NUMBA_CACHE_DIR directories:
  process 0: nothing cached, not even s2sad's runtime helpers (as on a new installation): the
             first call, cold (transform + compile of the gradient and of every helper it calls
             + the call)
  process 1: the helpers are in the Numba cache (process 0 put them there), the gradient is
             not (another S2SAD_CACHE_DIR): import time (numpy, numba, s2sad); transform time,
             from just before `s2sad.grad(...)` to the generated files written (the pipeline, no
             compile); the transform time of a copy of the function (s2sad's start-up costs
             already paid); the first call: transform + Numba compile + the call itself. This is
             the first call of a new function on a machine where s2sad has run before.
  process 2, same directories as process 1: import time; get the gradient and call it once
             (files and compiled code come from the disk cache)
  process 3, for a problem of problems.py, with another empty NUMBA_CACHE_DIR: the first call
             of its hand-written adjoint (hand_adjoints.py), which is Numba's compile of it and
             of the NumPy functions it calls, plus the call: what the same function costs to
             compile written by hand, the yardstick for s2sad's first call

    python benchmarks/latency.py --child INDEX [--hand]   # one measurement, prints a JSON line
"""
import argparse
import dataclasses
import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))


@dataclasses.dataclass
class Latency:
    name: str
    lines: int = 0
    imports: float = None        # s, numpy + numba + s2sad, first process
    transform: float = None      # s, the first transformation in the process
    transform_again: float = None  # s, the same function again (a copy), in the same process
    first_call: float = None     # s, transform + compile + call (helpers cached)
    cold_call: float = None      # s, the same with nothing cached, helpers included
    second_imports: float = None
    second_process: float = None  # s, gradient from the cache + one call
    hand_call: float = None      # s, first call of the hand-written adjoint (its compile)
    error: str = None


def measure_all(say, only=None):
    """One Latency per function (those whose name contains `only`), each from two fresh
    processes."""
    import cases
    results = []
    functions = cases.latency_functions()
    for index, (name, func, _, _) in enumerate(functions):
        if only and only not in name:
            continue
        row = Latency(name, len(inspect.getsourcelines(func)[0]))
        say(f"latency [{index + 1}/{len(functions)}] {name} ({row.lines} lines): ")
        scratch = tempfile.mkdtemp(prefix="s2sad_bench_latency_")
        numba_dir, cold_dir, cache_dir = (os.path.join(scratch, d)
                                          for d in ("numba", "cold", "cache"))
        try:
            row.cold_call = _run_child(index, cold_dir, numba_dir)["total"]
            say(f"cold first call {row.cold_call:.2f} s; ")
            first = _run_child(index, cache_dir, numba_dir)
            row.imports, row.transform = first["imports"], first["transform"]
            row.first_call = first["total"]
            row.transform_again = first["transform_again"]
            say(f"transform {row.transform * 1e3:.0f} ms, first call {row.first_call:.2f} s; ")
            second = _run_child(index, cache_dir, numba_dir)
            row.second_imports, row.second_process = second["imports"], second["total"]
            if second["file"] != first["file"]:  # s2sad itself changed between the two runs
                row.error = (f"the second process generated another file ({second['file']}, "
                             f"not {first['file']}): was s2sad edited meanwhile?")
            say(f"second process {row.second_process:.3f} s")
            if cases.hand_adjoint(func) is not None:
                row.hand_call = _run_child(index, cache_dir, os.path.join(scratch, "hand"),
                                           hand=True)["total"]
                say(f"; hand adjoint's first call {row.hand_call:.2f} s")
            say("\n")
        except RuntimeError as exc:
            row.error = str(exc)
            say("error\n")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        results.append(row)
    return results


def _run_child(index, cache_dir, numba_dir, hand=False):
    env = dict(os.environ, S2SAD_CACHE_DIR=cache_dir, NUMBA_CACHE_DIR=numba_dir)
    command = [sys.executable, os.path.join(HERE, "latency.py"), "--child", str(index)]
    command += ["--hand"] if hand else []
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
    except subprocess.TimeoutExpired:
        raise RuntimeError("the measuring process took more than 900 s") from None
    if done.returncode != 0:
        raise RuntimeError(f"the measuring process failed:\n{done.stderr.strip()[-1500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def hand_child(index):
    """The first call of the hand-written adjoint: its Numba compile (and that of the NumPy
    functions and the helpers it calls, none cached) and the call, at the --quick sizes."""
    import numpy as np

    import cases
    _, func, _, make_args = cases.latency_functions()[index]
    adjoint = cases.hand_adjoint(func)
    args = make_args(np.random.default_rng(0))
    start = time.perf_counter()
    adjoint(*args)
    print(json.dumps({"total": time.perf_counter() - start}))


def child(index):
    start = time.perf_counter()
    import numpy as np
    import numba  # noqa: F401 -- its import time is part of what a user waits for
    import s2sad
    imports = time.perf_counter() - start
    import warnings

    import cases
    _, func, positions, make_args = cases.latency_functions()[index]
    args = make_args(np.random.default_rng(0))
    warnings.simplefilter("ignore")  # findings about the function are not the point here
    start = time.perf_counter()
    gradient = s2sad.grad(func, wrt=positions)
    gradient.runner(gradient.bind(args, {}))  # the pipeline for these argument kinds, no compile
    transform = time.perf_counter() - start
    # a copy of the function, transformed now that s2sad's start-up costs are paid (not part
    # of the first call below)
    copy = types.FunctionType(func.__code__, func.__globals__, func.__name__, func.__defaults__,
                              func.__closure__)
    again = time.perf_counter()
    copied = s2sad.grad(copy, wrt=positions)
    copied.runner(copied.bind(args, {}))
    transform_again = time.perf_counter() - again
    start = time.perf_counter()
    gradient(*args)
    call = time.perf_counter() - start
    print(json.dumps({"imports": imports, "transform": transform, "total": transform + call,
                      "transform_again": transform_again,
                      "file": os.path.basename(gradient.path)}))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", type=int, required=True, help="index of the function")
    parser.add_argument("--hand", action="store_true",
                        help="time the first call of its hand-written adjoint instead")
    options = parser.parse_args()
    (hand_child if options.hand else child)(options.child)
