"""The child process of a background compile (tiers.py): compile the jitted flavour of one
generated function for the types of the placeholder arguments its parent pickled, which writes
Numba's cache for the parent to load. Exits 1 with Numba's reason on stderr if it fails.

    python -m s2sad.runtime.tier_child <generated file> <function> <arguments.pkl>
"""
import pickle
import sys


def main(path, name, arguments):
    import numba

    from . import jit
    with open(arguments, "rb") as stream:
        args = pickle.load(stream)
    dispatcher = getattr(jit.load(path, jit.JIT), name)
    dispatcher.compile(tuple(numba.typeof(a) for a in args))


if __name__ == "__main__":
    main(*sys.argv[1:4])
