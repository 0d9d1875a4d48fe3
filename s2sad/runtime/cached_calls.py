"""Calls of a function of yours wrapped in `functools.lru_cache` (or `functools.cache`) that
carries no gradient, in compiled code (issue 47: the GMM's index helper `tril_index(d)`).

Such a helper is only memoised: s2sad runs it as your code runs it, as Python. Generated code
binds it with `rt.cached_call(module, qualname)`, a `CachedCall`, which Python calls as it is.
The JIT flavour of the file (jit.py) runs each `t = helper(...)` statement in Numba's object
mode, `with rt.objmode(t=_s2sad_cached_type_helper): t = helper(...)`, and the rest compiles.
Object mode needs the result's Numba type before the compile: the first compile for a signature
runs the gradient once as Python (`prepare`), in which each helper records what it returned, and
the type of that is the global the `with` names. A helper that returned values of two types is
left uncompiled (`TypeError`: the gradient falls back to Python, with the warning).
"""
import ast
import importlib
import sys

__all__ = ["cached_call"]

_CALLS = {}          # (module, qualname) -> its CachedCall, shared by both flavours
TYPE_PREFIX = "_s2sad_cached_type_"


class CachedCall:
    """The helper `func`, remembering one result of each type for compiled code's typing."""

    def __init__(self, func):
        self.func = func
        self.samples = {}     # type(result), ndim, dtype -> a result

    def __call__(self, *args, **kwargs):
        result = self.func(*args, **kwargs)
        key = (type(result), getattr(result, "ndim", None), str(getattr(result, "dtype", "")))
        self.samples.setdefault(key, result)
        return result


def cached_call(module, qualname):
    """The CachedCall of the helper `module.qualname` (rt.cached_call in generated code)."""
    key = (module, qualname)
    if key not in _CALLS:
        found = sys.modules.get(module) or importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
        _CALLS[key] = CachedCall(found)
    return _CALLS[key]


def for_numba(tree):
    """The module `tree` with each `t = helper(...)` of a name bound by `rt.cached_call` run in
    object mode, its type the global `_s2sad_cached_type_<helper>` (set by `prepare`)."""
    cached = {node.targets[0].id for node in tree.body
              if isinstance(node, ast.Assign) and len(node.targets) == 1 and
              isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call) and
              ast.unparse(node.value.func) == "rt.cached_call"}
    if cached:
        ast.fix_missing_locations(_ObjectMode(cached).visit(tree))
    return tree


class _ObjectMode(ast.NodeTransformer):
    def __init__(self, cached):
        self.cached = cached

    def visit_Assign(self, node):
        call = node.value
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and \
                isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and \
                call.func.id in self.cached:
            mode = ast.Call(ast.Attribute(ast.Name("rt", ast.Load()), "objmode", ast.Load()), [],
                            [ast.keyword(node.targets[0].id,
                                         ast.Name(TYPE_PREFIX + call.func.id, ast.Load()))])
            return ast.copy_location(ast.With([ast.withitem(mode, None)], [node]), node)
        return node


def uses_cached_calls(module):
    return any(isinstance(v, CachedCall) for v in vars(module).values())


def prepare(modules, run_as_python):
    """Give the JIT `modules` the Numba types of their helpers' results, running the gradient
    as Python first (`run_as_python()`) where a helper has not been called yet."""
    import numba
    wanted = {name: v for m in modules for name, v in vars(m).items()
              if isinstance(v, CachedCall)}
    if not wanted:
        return
    if any(not call.samples for call in wanted.values()):
        run_as_python()
    for module in modules:
        for name, call in list(vars(module).items()):
            if not isinstance(call, CachedCall):
                continue
            found = {numba.typeof(sample) for sample in call.samples.values()}
            if len(found) != 1:
                raise TypeError(f"the cached helper {call.func.__qualname__} returned values of "
                                f"{len(found) or 'no'} types; compiled code needs one")
            module.__dict__[TYPE_PREFIX + name] = found.pop()
