"""Calls of large compiled functions (generated ones, rt's helpers) by symbol, without Numba
copying their code into each caller.

Numba compiles a call of one jitted function from another by linking the callee's whole LLVM
module (the runtime helpers linked into it included) into the caller, where LLVM optimises it
and makes machine code of it again. A chain of generated callees is so compiled once per level:
ADBench's hand tracking (loss -> hand_objective -> get_skinned_vertex_positions -> ...) spent
30 of its 50 s first call on copies (`dloss`'s module held 70k LLVM instructions, its own code
a few thousand).

Here a generated function whose compiled module is large is called through a symbol of its
own instead (an `llvm.add_symbol` of its address), with Numba's calling convention, exceptions
and references as in Numba's own call; LLVM cannot inline it then, which costs nothing against
a body that large. A small callee is linked as before (inlined: calls in a hot loop stay
cheap).

A caller compiled so refers to its callee by name, also in Numba's disk cache: it records, as a
"reload" step Numba runs before it loads the caller's machine code, a step that compiles (or
loads) the callee first, so that the name is defined when the caller's code is loaded.

rt's helpers are treated alike (`install_for_helpers`): Numba compiles an overload or a
register_jitable of s2sad.runtime as a function of its own, once per argument types, and linked
it into every caller too. A large one is called by symbol; its reload step types the overloaded
function (the stub, pickled by reference) for the call's argument types again, which compiles
or loads that implementation.

    -->  (a caller's LLVM IR, callee large)
    declare i32 @"_s2sad_get_skinned..._3f1c..."(...)      ; no copy of its body
"""
import functools
import hashlib
import os
import threading

_RUNTIME = __name__.rpartition(".")[0] + "."    # "s2sad.runtime."
LINK_BELOW = 60_000   # bytes of a generated callee's LLVM bitcode under which it is linked (and
# inlined): about 2.5k instructions. A user function may be called in a hot loop; above this
# its body costs far more than a call (docs/benchmarks.md)
HELPER_LINK_BELOW = 20_000   # the same for rt's helpers: the GP's first call after an edit
# 3.3 s linking all, 2.3 s from 20 kB, 2.1 s from 8 kB; loops' steady times the same


def make_dispatcher(dispatcher, path, attribute, ensure_compiled):
    """Turn a generated function's new Numba dispatcher into one whose compiled forms are
    called by symbol when large (nothing changes if this Numba's internals differ).
    `ensure_compiled(path, attribute, argtypes)` compiles or loads a generated function (jit.py):
    what Numba runs before it loads a caller of it from its cache."""
    cls = _dispatcher_class()
    if cls is not None:
        dispatcher.__class__ = cls
        dispatcher._s2sad_file = (path, attribute, ensure_compiled)
    return dispatcher


@functools.lru_cache(maxsize=None)
def _dispatcher_class():
    try:
        from numba.core.registry import CPUDispatcher
    except ImportError:
        return None

    class SymbolDispatcher(CPUDispatcher):
        """A generated function's dispatcher: each compiled form gets a symbol of its own."""

        def add_overload(self, cres):
            super().add_overload(cres)
            if not cres.objectmode:
                _export(self, cres)

    SymbolDispatcher.__module__ = __name__
    return SymbolDispatcher


def symbol(path, attribute, argtypes):
    """The symbol of `attribute` of the generated file `path` compiled for `argtypes`: the
    same in every process (Numba's own names number functions per process)."""
    stem = os.path.splitext(os.path.basename(path))[0]
    digest = hashlib.sha256(repr([str(t) for t in argtypes]).encode()).hexdigest()[:16]
    return f"_s2sad_{stem}_{attribute}_{digest}"


def _export(dispatcher, cres):
    try:
        import llvmlite.binding as llvm
        path, attribute, ensure_compiled = dispatcher._s2sad_file
        argtypes = tuple(cres.signature.args)
        name = symbol(path, attribute, argtypes)
        llvm.add_symbol(name, cres.library.get_pointer_to_function(cres.fndesc.mangled_name))
        if _bitcode_size(cres.library) < LINK_BELOW or not _cached(dispatcher, cres):
            return
        step = functools.partial(ensure_compiled, path, attribute, argtypes)
        impl = _call_by_symbol(cres.fndesc, name, lambda call_types: step)
        context = dispatcher.targetctx
        context.remove_user_function(cres.entry_point)     # Numba's call, which links
        context._defns[cres.entry_point].append(impl, impl.signature)
    except Exception:   # noqa: BLE001 -- another Numba's internals: Numba's own call (linked)
        return


def _cached(dispatcher, cres):
    """Whether Numba keeps this compiled form on disk. One it does not (a helper holding a
    global array, a gradient calling an lru_cache'd helper in object mode) is linked: its
    callers are then not cached either, and a cached caller's reload step would compile it in
    every process, where linked its code came with the caller."""
    from numba.core.caching import NullCache
    return not isinstance(dispatcher._cache, NullCache) and not cres.library.has_dynamic_globals


def _bitcode_size(library):
    module = library._shared_module if library._shared_module is not None else \
        library._final_module
    return len(module.as_bitcode())


def _call_by_symbol(fndesc, name, reload_for):
    """The lowering of a call of the compiled function `fndesc` through `name`: Numba's
    `imputils.user_function` without the library to link. `reload_for(argument types of the
    call)` is the caller's reload step that defines `name` in a later process."""
    from numba.core import cgutils, imputils

    def call(context, builder, sig, args):
        context.active_code_library._reload_init.add(reload_for(tuple(sig.args)))
        fnty = context.call_conv.get_function_type(fndesc.restype, fndesc.argtypes)
        function = cgutils.get_or_insert_function(builder.module, fnty, name)
        context.call_conv.decorate_function(function, fndesc.args, fndesc.argtypes,
                                            noalias=fndesc.noalias)
        status, value = context.call_conv.call_function(builder, function, fndesc.restype,
                                                        fndesc.argtypes, args)
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        value = imputils.fix_returning_optional(context, builder, sig, status, value)
        return imputils.impl_ret_new_ref(context, builder, fndesc.restype, value)

    call.signature = fndesc.argtypes
    call.libs = ()
    return call


def install_for_helpers():
    """Call rt's large helpers by symbol too (once per process; dispatch.install)."""
    if _helpers_installed:
        return
    _helpers_installed.append(True)
    try:
        from numba.core import dispatcher as numba_dispatcher
        from numba.core.typing import templates
        template_class = templates._OverloadFunctionTemplate
        original_generic = template_class.generic
        original_add = numba_dispatcher.Dispatcher.add_overload
    except (ImportError, AttributeError):
        return

    def generic(template, args, kws):
        # the overloaded function whose implementation is compiled meanwhile (nested: a stack)
        stubs = _stubs()
        stubs.append(type(template).key)   # (read on the instance, a function would bind)
        try:
            return original_generic(template, args, kws)
        finally:
            stubs.pop()

    def add_overload(dispatcher, cres):
        original_add(dispatcher, cres)
        # a library loaded from Numba's cache starts with no reload steps: its compiled form
        # holds them. A caller linking it must inherit them (Numba's linking passes the
        # library's on), else the callees it calls by symbol are missing when that caller is
        # loaded in turn, and MCJIT binds a missing symbol to address 0
        cres.library._reload_init.update(cres.reload_init or ())
        module = getattr(dispatcher.py_func, "__module__", None) or ""
        stubs = _stubs()
        if stubs and module.startswith(_RUNTIME) and not cres.objectmode:
            _export_helper(dispatcher, cres, stubs[-1])

    template_class.generic = generic
    numba_dispatcher.Dispatcher.add_overload = add_overload
    _check_loaded_libraries()


def _check_loaded_libraries():
    """Before Numba loads a library's machine code from its cache: every s2sad symbol it calls
    is defined, else a RuntimeError (the gradient then runs as Python, with a warning). MCJIT
    binds a symbol it cannot find to address 0: a reload step missing (a bug) would crash the
    process at the call instead of failing the load."""
    from numba.core import codegen
    library_class = codegen.CPUCodeLibrary
    original = library_class._unserialize.__func__

    def unserialize(cls, owner, state):
        name, kind, data = state
        if kind == "object" and b"_s2sad_" in data[1]:
            import llvmlite.binding as llvm
            missing = [f.name for f in llvm.parse_bitcode(data[1]).functions
                       if f.is_declaration and f.name.startswith("_s2sad_")
                       and not llvm.address_of_symbol(f.name)]
            if missing:
                raise RuntimeError(f"s2sad: the cached {name} calls {', '.join(missing)}, "
                                   "which no reload step defined")
        return original(cls, owner, state)

    library_class._unserialize = classmethod(unserialize)


_helpers_installed = []
_typing = threading.local()


def _stubs():
    """The overloaded functions being typed in this thread, innermost last."""
    if not hasattr(_typing, "stubs"):
        _typing.stubs = []
    return _typing.stubs


def helper_symbol(py_func, argtypes):
    """The symbol of an rt helper's implementation `py_func` compiled for `argtypes`, the same
    in every process of one s2sad (closures of one `def` told apart by what they hold)."""
    from . import cache, numba_cache
    key = repr([py_func.__module__, py_func.__qualname__, numba_cache._closure_digest(py_func),
                [str(t) for t in argtypes], cache.fingerprint()])
    name = "".join(c if c.isalnum() else "_" for c in py_func.__qualname__)[:60]
    return f"_s2sad_rt_{name}_{hashlib.sha256(key.encode()).hexdigest()[:16]}"


def _export_helper(dispatcher, cres, stub):
    try:
        import pickle

        import llvmlite.binding as llvm
        name = helper_symbol(dispatcher.py_func, tuple(cres.signature.args))
        llvm.add_symbol(name, cres.library.get_pointer_to_function(cres.fndesc.mangled_name))
        if _bitcode_size(cres.library) < HELPER_LINK_BELOW or not _cached(dispatcher, cres):
            return
        pickle.dumps(stub)   # (the reload step names it: a stub pickle cannot name is linked)
        context = dispatcher.targetctx
        impl = _call_by_symbol(cres.fndesc, name,
                               lambda call_types: functools.partial(_retyped, stub, name,
                                                                    call_types))
        context.remove_user_function(cres.entry_point)
        context._defns[cres.entry_point].append(impl, impl.signature)
    except Exception:   # noqa: BLE001 -- another Numba's internals, or no name: linked
        return


def _retyped(stub, name, argtypes):
    """The reload step of a caller of an rt helper called by symbol: the overloaded `stub`
    typed for `argtypes`, which compiles or loads the implementation that defines `name`."""
    import llvmlite.binding as llvm
    from numba.core.registry import cpu_target
    if not llvm.address_of_symbol(name):   # (rt's overloads are installed: a generated file is
        # loaded before any of its callers is)
        context = cpu_target.typing_context
        context.refresh()
        context.resolve_function_type(context.resolve_value_type(stub), argtypes, {})
    if not llvm.address_of_symbol(name):
        raise RuntimeError(f"s2sad: {stub!r} typed for {argtypes} defines no {name}")
