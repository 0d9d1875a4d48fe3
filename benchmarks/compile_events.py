"""Numba's compile observed from inside a benchmark's child process (compile_budget.py): its
own events (`numba.core.event`: `numba:run_pass` per compiler pass and function, and
`numba:llvm_lock`) and a few wrappers of Numba's and llvmlite's methods, installed in the child
only, that time LLVM's stages and count the IR each function emits. Nothing of s2sad changes.

    Recorder      the events and the codegen hooks as one timeline; `analyse(begin, end)`: the
                  phases (typing, lowering, LLVM, other passes) and each compiled function's
                  own time and IR lines as lowered
    Constructs    the generated functions' own LLVM instructions per statement of Numba's IR,
                  by construct and by generated line
    gradient_ir   the generated gradient's IR: lowered, the helpers' modules linked into it,
                  its final module
    llvm_probe    the gradient's module's LLVM work replayed, helpers linked or left external
"""
import os
import re
import statistics
import time


class Recorder:
    """Numba's events and the codegen hooks, as one timeline: (time, what, data)."""

    def __init__(self, keep_texts=False):
        self.log = []
        self.llvm_depth = 0     # llvm_lock is re-entrant: only its outermost hold is logged
        self.texts = {} if keep_texts else None   # id(library) -> its lowered IR texts

    def install(self):
        from numba.core import cgutils, codegen, event
        log = self.log
        clock = time.perf_counter
        recorder = self

        class Passes(event.Listener):
            def on_start(self, ev):
                d = ev.data
                log.append((clock(), "pass", (d["name"].split(" [")[0], d["module"],
                                              d["qualname"], d["args"])))

            def on_end(self, ev):
                log.append((clock(), "end", None))

        class Llvm(event.Listener):
            def on_start(self, ev):
                recorder.llvm_depth += 1
                if recorder.llvm_depth == 1:
                    log.append((clock(), "llvm", None))

            def on_end(self, ev):
                recorder.llvm_depth -= 1
                if recorder.llvm_depth == 0:
                    log.append((clock(), "llvm-end", None))

        event.register("numba:run_pass", Passes())
        event.register("numba:llvm_lock", Llvm())
        normalize = cgutils.normalize_ir_text
        lowering = [None]       # the library whose IR module is being added
        texts = self.texts

        def counting(text):
            if lowering[0] is not None:
                log.append((clock(), "ir", text.count("\n") + 1))
                if texts is not None:   # (a reference: the text exists anyway)
                    texts.setdefault(id(lowering[0]), []).append(text)
            return normalize(text)

        cgutils.normalize_ir_text = counting
        add_ir_module = codegen.CPUCodeLibrary.add_ir_module

        def adding(library, ir_module):
            lowering[0] = library
            try:
                return add_ir_module(library, ir_module)
            finally:
                lowering[0] = None

        codegen.CPUCodeLibrary.add_ir_module = adding
        for cls, method, label in ((codegen.CPUCodeLibrary, "_optimize_functions", "fpm"),
                                   (codegen.CPUCodeLibrary, "_optimize_final_module", "mpm"),
                                   (codegen.JITCodeLibrary, "_finalize_specific", "machine")):
            setattr(cls, method, self._timed(getattr(cls, method), label))

    def _timed(self, method, label):
        log = self.log

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                log.append((start, "span", (label, time.perf_counter() - start)))
        return timed

    def analyse(self, begin, end):
        """Phase totals and per-function times between `begin` and `end`."""
        phases = dict(typing=0.0, lowering=0.0, llvm=0.0, passes=0.0, fpm=0.0, mpm=0.0,
                      machine=0.0)
        functions = {}      # key -> [seconds, IR lines]
        stack = []          # [start, pass name, key, nested passes' time, LLVM inside]
        llvm_start = None
        for at, what, data in self.log:
            if not begin <= at <= end:
                continue
            if what == "pass":
                name, module, qualname, args = data
                stack.append([at, name, (module, qualname, args), 0.0, 0.0])
            elif what == "end" and stack:
                start, name, key, nested, llvm = stack.pop()
                own = (at - start) - nested
                kind = ("typing" if "type_inference" in name else
                        "lowering" if "lowering" in name else "passes")
                phases[kind] += own - llvm
                functions.setdefault(key, [0.0, 0])[0] += own
                if stack:
                    stack[-1][3] += at - start
            elif what == "llvm":
                llvm_start = at
            elif what == "llvm-end" and llvm_start is not None:
                phases["llvm"] += at - llvm_start
                if stack:
                    stack[-1][4] += at - llvm_start
                llvm_start = None
            elif what == "ir" and stack:
                functions.setdefault(stack[-1][2], [0.0, 0])[1] += data
            elif what == "span":
                phases[data[0]] += data[1]
        return phases, functions


class Constructs:
    """LLVM instructions the generated functions' own lowering emits, per statement: by kind of
    construct (an array expression, a call of np.exp, of rt.unbroadcast, an indexing, ...)
    and by generated line. Instructions are counted as llvmlite's IRBuilder inserts them
    into the generated function's module (a wrapper, in the child only)."""

    def __init__(self):
        self.kinds, self.lines = {}, {}
        self.module, self.count = None, 0

    def install(self):
        from llvmlite import ir as llvm_ir
        from numba.core import lowering
        insert, lower_inst = llvm_ir.IRBuilder._insert, lowering.Lower.lower_inst
        me = self

        def inserting(builder, instr):
            if me.module is not None and builder.module is me.module:
                me.count += 1
            return insert(builder, instr)

        def lowering_inst(lower, inst):
            if me.module is not None or not lower.fndesc.modname.startswith("_s2sad_jit_"):
                return lower_inst(lower, inst)
            me.module, before = lower.module, me.count
            try:
                return lower_inst(lower, inst)
            finally:
                me.module = None
                emitted = me.count - before
                kind = _construct(lower, inst)
                me.kinds[kind] = me.kinds.get(kind, 0) + emitted
                where = (os.path.basename(inst.loc.filename), inst.loc.line)
                me.lines[where] = me.lines.get(where, 0) + emitted

        llvm_ir.IRBuilder._insert = inserting
        lowering.Lower.lower_inst = lowering_inst

    def report(self):
        import linecache
        lines = {}
        for (name, line), emitted in self.lines.items():
            path = next((p for p in linecache.cache if os.path.basename(p) == name), None)
            text = linecache.getline(path, line).strip() if path else f"{name}:{line}"
            lines[text] = lines.get(text, 0) + emitted
        return {"kinds": self.kinds, "lines": lines}


def _construct(lower, inst):
    """A short name for the construct a statement of Numba's IR stands for."""
    from numba.core import ir, types
    if isinstance(inst, (ir.SetItem, ir.StaticSetItem)):
        return "setitem"
    if isinstance(inst, ir.Del):
        return "del (decref)"
    if not isinstance(inst, ir.Assign) or not isinstance(inst.value, ir.Expr):
        return type(inst).__name__ if not isinstance(inst, ir.Assign) else "assignment"
    expr = inst.value
    typemap = lower.fndesc.typemap
    result = typemap.get(inst.target.name)
    rank = f", {result.ndim}-D" if isinstance(result, types.Array) else ""
    if expr.op == "arrayexpr":
        return f"array expression{rank}"
    if expr.op == "call":
        callee = typemap.get(expr.func.name)
        key = getattr(callee, "typing_key", None)
        if isinstance(callee, types.Dispatcher):
            key = callee.dispatcher.py_func
        if isinstance(callee, types.BoundFunction):
            return f"method {str(key).rpartition('.')[2]}{rank}"
        module = getattr(key, "__module__", None) or ""
        prefix = ("rt." if module.startswith("s2sad.runtime") else
                  "np." if module.startswith("numpy") or module == "" else "")
        name = getattr(key, "__name__", None) or str(callee)[:30]
        return f"call {prefix}{name}{rank}"
    if expr.op in ("binop", "inplace_binop", "unary"):
        return f"{expr.op} {getattr(expr.fn, '__name__', expr.fn)}{rank}"
    if expr.op in ("getitem", "static_getitem"):
        return f"indexing{rank}"
    return f"{expr.op}{rank}"


def short_name(key):
    """'module: qualname(args)' with array types abbreviated, for the table."""
    module, qualname, args = key
    args = re.sub(r"Array\((\w+), (\d+), '(\w)', (False|True), aligned=True\)",
                  lambda m: f"{m[1]}[{m[2]}d{m[3]}{' ro' if m[4] == 'True' else ''}]", args)
    args = re.sub(r"Literal\[(\w+)\]\(([^)]*)\)", r"\2", args)
    args = re.sub(r"UniTuple\((\w+) x (\d+)\)", r"(\1 x\2)", args)
    if module.startswith("_s2sad_"):
        return f"generated: {qualname}"     # (its arguments: the problem's)
    qualname = qualname.replace(".<locals>.", ".")
    if len(args) > 48:
        args = args[:45] + "...)"
    return f"{module}: {qualname}{args}"



def _dispatcher(s2sad_jit, runner):
    dispatcher = getattr(s2sad_jit.load(runner.path, s2sad_jit.JIT), runner.function_name)
    (signature,) = dispatcher.signatures
    return dispatcher, signature


def gradient_ir(runner, functions):
    """The generated gradient's IR: lowered, the helpers' modules linked into it, and its
    final (linked, optimised) module, in lines."""
    from s2sad.runtime import jit as s2sad_jit
    dispatcher, signature = _dispatcher(s2sad_jit, runner)
    library = dispatcher.overloads[signature].library
    own = sum(v[1] for k, v in functions.items()
              if k[0].startswith("_s2sad_jit_") and k[1] == runner.function_name)
    linked = [_lines(lib._get_module_for_linking()) for lib in library._linking_libraries]
    return {"own": own, "linked": len(linked), "linked_lines": sum(linked),
            "final": len(dispatcher.inspect_llvm(signature).splitlines())}


def _lines(module):
    return str(module).count("\n") + 1


def llvm_probe(s2sad_jit, runner, recorder):
    """The LLVM work of the gradient's own module, replayed as Numba's finalize does it
    (function passes, the helpers' modules linked in, module passes, machine code) with the
    helpers linked and with their calls left as external symbols; median of 3 of each."""
    import llvmlite.binding as ll
    from numba.core.registry import cpu_target
    dispatcher, signature = _dispatcher(s2sad_jit, runner)
    library = dispatcher.overloads[signature].library
    texts = recorder.texts.get(id(library))
    if not texts:
        return {"error": "the gradient's lowered IR was not found"}
    codegen = cpu_target.target_context.codegen()
    linked = [lib._get_module_for_linking() for lib in library._linking_libraries]
    times = {"linked": [], "external": []}
    for _ in range(3):
        for arm in ("linked", "external"):
            start = time.perf_counter()
            probe = codegen.create_library("compile_budget_probe")
            for text in texts:
                module = ll.parse_assembly(text)
                probe._optimize_functions(module)
                probe._final_module.link_in(module)
            for other in (linked if arm == "linked" else ()):
                probe._final_module.link_in(other, preserve=True)
            probe._optimize_final_module()
            codegen._tm.emit_object(probe._final_module)
            times[arm].append(time.perf_counter() - start)
    return {arm: statistics.median(t) for arm, t in times.items()}
