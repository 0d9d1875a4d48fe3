"""The child process of a background compile (tiers.py): compile the jitted flavour of one
generated function for the types of the placeholder arguments its parent pickled, which writes
Numba's cache for the parent to load. Reports how long the compile took, and whether it compiled
or loaded Numba's cache (tiers.py keeps the compile times to foresee the next ones).

    python -m s2sad.runtime.tier_child <generated file> <function> <arguments.pkl>
    python -m s2sad.runtime.tier_child --serve     (tier_worker.Worker runs its `serve` so)

One job: exits 1 with Numba's reason on stderr if it fails, else prints its report (JSON).
`--serve`: the warm worker (tier_worker.Worker). It imports Numba and s2sad's runtime first, says so
(`{"ready": true}`), then compiles one job per line of its input (JSON: path, name, arguments),
answering each with one line: the report, or `{"error": reason}`. It ends when its input ends:
when the parent closes it, exits or dies.
"""
import json
import pickle
import sys
import time
import traceback


def compile_one(path, name, arguments):
    import numba

    from . import jit
    with open(arguments, "rb") as stream:
        args = pickle.load(stream)
    start = time.perf_counter()
    dispatcher = getattr(jit.load(path, jit.JIT), name)
    jit.with_cached_types(path, name, args)
    dispatcher.compile(tuple(numba.typeof(a) for a in args))
    return {"seconds": time.perf_counter() - start,
            "compiled": sum(dispatcher.stats.cache_misses.values()) > 0}


def serve(requests, replies):
    from numba.core.registry import cpu_target

    from . import dispatch, jit  # noqa: F401 -- (jit: 30 ms, imported before the first job)
    dispatch.install()
    # what Numba does before its first compile in a process (NumPy's typing and lowering
    # registries, 0.2 s), done before the first job comes
    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()
    _answer(replies, {"ready": True})
    for line in requests:
        if not line.strip():
            continue
        try:
            report = compile_one(**json.loads(line))
        except Exception as exc:   # noqa: BLE001 -- any failure is the job's, told the parent
            report = {"error": traceback.format_exc().strip().splitlines()[-1],
                      "kind": type(exc).__name__, "message": str(exc)}
        _answer(replies, report)


def _answer(replies, report):
    replies.write(json.dumps(report) + "\n")
    replies.flush()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.stdin, sys.stdout)
    else:
        print(json.dumps(compile_one(*sys.argv[1:4])))
