"""What generated code runs with: `rt` (the helpers it calls as `rt.<name>`), and how it is
loaded and compiled.

    rt.py          the namespace generated files import (`from s2sad.runtime import rt`)
    core.py ...    the helpers, by area (reductions, linalg, shape, special)
    jit.py         import a generated file as Python or compiled by Numba, with the fallback
    cache.py       content-addressed files for generated code, and where they live
    tracing.py     map generated lines back to the user's source (tracebacks, debuggers)

A change here changes what every generated file computes: the cache fingerprint covers every
module of this package.
"""
