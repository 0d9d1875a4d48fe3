"""Calls of a large generated function by its symbol, without Numba copying its code.

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

    -->  (a caller's LLVM IR, callee large)
    declare i32 @"_s2sad_get_skinned..._3f1c..."(...)      ; no copy of its body
"""
import functools
import hashlib
import os

LINK_BELOW = 60_000   # bytes of a callee's LLVM bitcode under which it is linked (and inlined):
# about 2.5k instructions. Above it, relinking costs more than the call (see docs/benchmarks.md)


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
        if _bitcode_size(cres.library) < LINK_BELOW:
            return
        impl = _call_by_symbol(cres.fndesc, name,
                               functools.partial(ensure_compiled, path, attribute, argtypes))
        context = dispatcher.targetctx
        context.remove_user_function(cres.entry_point)     # Numba's call, which links
        context._defns[cres.entry_point].append(impl, impl.signature)
    except Exception:   # noqa: BLE001 -- another Numba's internals: Numba's own call (linked)
        return


def _bitcode_size(library):
    module = library._shared_module if library._shared_module is not None else \
        library._final_module
    return len(module.as_bitcode())


def _call_by_symbol(fndesc, name, reload):
    """The lowering of a call of the compiled function `fndesc` through `name`: Numba's
    `imputils.user_function` without the library to link."""
    from numba.core import cgutils, imputils

    def call(context, builder, sig, args):
        context.active_code_library._reload_init.add(reload)
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
