"""The child process of a background compile (tiers.py): compile the jitted flavour of one
generated function for the types of the placeholder arguments its parent pickled, which writes
Numba's cache for the parent to load. Exits 1 with Numba's reason on stderr if it fails; else
prints how long the compile took, and whether it compiled or loaded Numba's cache (tiers.py keeps
the compile times to foresee the next ones).

    python -m s2sad.runtime.tier_child <generated file> <function> <arguments.pkl>
"""
import json
import pickle
import sys
import time


def main(path, name, arguments):
    import numba

    from . import jit
    with open(arguments, "rb") as stream:
        args = pickle.load(stream)
    start = time.perf_counter()
    dispatcher = getattr(jit.load(path, jit.JIT), name)
    dispatcher.compile(tuple(numba.typeof(a) for a in args))
    print(json.dumps({"seconds": time.perf_counter() - start,
                      "compiled": sum(dispatcher.stats.cache_misses.values()) > 0}))


if __name__ == "__main__":
    main(*sys.argv[1:4])
