"""What generated code runs with: `rt` (the helpers it calls as `rt.<name>`), and how it is
loaded and compiled.

    rt.py          the namespace generated files import (`from s2sad.runtime import rt`): the
                   user markers (stop_gradient, grad_of, checkpointed), links between files,
                   and every helper below re-exported
    dispatch.py    how a helper is defined once for Python and Numba (@jitable, @by_type,
                   python_only, compiled_as); read this first
    arrays.py      building blocks of the helpers (sums to a shape, broadcasts back, casts)
    core.py        the helpers every gradient calls (zeros, kept values, unbroadcast, np.dot)
    reductions.py, reduction_tangents.py, linalg.py, linalg_square.py, shape.py, indexing.py,
    special.py, numpy_more.py, decompositions.py
                   the helpers of the derivative rules, by area (see templates/)
    jit.py         import a generated file as Python or compiled by Numba, with the fallback
    cache.py       content-addressed files for generated code, and where they live
    tracing.py     map generated lines back to the user's source (tracebacks, debuggers)

A new helper goes in the module of its area, written once (dispatch.py); tests/test_rt.py,
test_runtime_*.py check that Python and Numba agree. A change here changes what every
generated file computes: the cache fingerprint covers every module of this package.
"""
