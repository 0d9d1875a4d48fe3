"""One lock for parsing and compiling Python source in a process.

CPython 3.11 keeps the recursion depth of its AST conversion in one place per interpreter, so
two threads turning source into trees at once (`ast.parse`, `compile` of a tree) can fail with
"SystemError: AST constructor recursion depth mismatch". s2sad's transformation holds this lock
(transform/pipeline.py), and so does loading a generated file from its text (jit.py) and making
a runtime helper from source (dispatch.generate).
"""
import threading

LOCK = threading.RLock()


def guard_numba():
    """Numba builds trees too, while it compiles: each array expression becomes a function made
    with `ast.parse` and `compile` (numba/np/ufunc/array_exprs.py), and lowering a function
    parses its source for its first line (misc/firstlinefinder.py). A compile in one thread
    beside a transformation in another failed so (test_threads). Those calls take this lock
    here (Numba's compile lock is taken first, never inside this one: no deadlock)."""
    import ast
    import builtins

    from numba.core import lowering
    from numba.np.ufunc import array_exprs

    if getattr(array_exprs, "_s2sad_guarded", False):
        return

    def locked(function):
        def call(*args, **kwargs):
            with LOCK:
                return function(*args, **kwargs)
        return call

    class LockedAst:   # the ast module, with its parse under the lock
        parse = staticmethod(locked(ast.parse))

        def __getattr__(self, name):
            return getattr(ast, name)

    array_exprs.ast = LockedAst()
    array_exprs.compile = locked(builtins.compile)
    lowering.get_func_body_first_lineno = locked(lowering.get_func_body_first_lineno)
    array_exprs._s2sad_guarded = True
