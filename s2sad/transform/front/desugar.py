"""The Python numerical code is written in, spelt in the core the later stages know.

Runs before the fence, on the parsed tree. Each rewrite keeps Python's meaning:

    for i, (u, v) in enumerate(zip(a, b)):      for i in range(min(len(a), len(b))):
        s = s + i * u * v                           u = a[i]
                                                    v = b[i]
                                                    s = s + i * u * v

    for v in reversed(x):                       for _k0 in range(len(x) - 1, -1, -1):
        ...                                         v = x[_k0]

    r = sum(x[i] * x[i + 1]                     _sum0 = 0
            for i in range(n - 1))      -->     for i_0 in range(n - 1):
                                                    _sum0 = _sum0 + x[i_0] * x[i_0 + 1]
                                                r = _sum0

    ys = [h(v) for v in xs]                     ys_0 = []
                                                for v_0 in xs:
                                                    ys_0.append(h(v_0))   (containers.py)

    d = {k: 2 * v for k, v in p.items()}        _dict0 = {}
                                                for k_0, v_0 in p.items():
                                                    _dict0[k_0] = 2 * v_0

    sq = lambda y: y * y                        _y0 = x
    z = sq(x)                                   z = _y0 * _y0

    def g(W, *inputs):                          def g(W, inputs):     (a tuple: containers.py)
    def h(x, **options):                        def h(x, *, options): (a dict: containers.py)

    assert x.ndim == 1, "a vector"              if not x.ndim == 1:
                                                    raise AssertionError("a vector")

    v.setflags(write=False)                     (left out: it changes no value)

    m = max(a, b, c)                            m = max(max(a, b), c)

    try:                                        out[k] = v.astype(float)
        out[k] = v.astype(float)                (try_statements.py: the handlers go where
    except TypeError:                            the body cannot raise, or each raises)
        out[k] = v

    def check(x):                               def check(x):
        if len(x) > 9:                              if len(x) > 9:
            raise ValueError("long")                    raise ValueError("long")
                                                    return None

A comprehension's variables are renamed apart (they are local to it in Python). A nested `def`
or a `lambda` bound to a name is put in place of each call (local_functions.py; the names it
declares `nonlocal` are the function's own); it must end in its only `return`.
What is hoisted out of an expression runs just before the statement holding it.
"""

import gast

from s2sad.errors import Diagnostic, UnsupportedError

from .. import facts, nodes
from . import (branch_appends, function_sequences, function_state, functional, generators,
               local_functions, local_values, made_functions, messages, shape_unpacking,
               try_statements)

REDUCTIONS = {"sum": "sum", "max": "max", "min": "min"}
NUMPY_REDUCTIONS = {"sum": "sum", "max": "max", "min": "min", "amax": "max", "amin": "min"}
COMPREHENSIONS = (gast.ListComp, gast.GeneratorExp)
# A nested def using these stays where it is, for the fence to report.
KEPT = (gast.Global, gast.Yield, gast.YieldFrom, gast.Await, gast.ClassDef)


def _procedure_returns_none(tree):
    """A function that returns no value anywhere (a check, called for what it raises or
    prints) returns None at its end, as Python's does: its calls are statements (`check(x)`)."""
    returns = [n for n in nodes.walk(tree) if isinstance(n, gast.Return)]
    if any(r.value is not None for r in returns):
        return False
    for r in returns:
        r.value = gast.Constant(None, None)
    last = tree.body[-1] if tree.body else tree
    if not (tree.body and isinstance(last, gast.Return)):
        tree.body.append(gast.copy_location(gast.Return(gast.Constant(None, None)), last))
    return True


def _sets_flags(statement):
    """`v.setflags(write=False)` as a statement: it changes no value, only whether later
    writes raise, and generated code writes only into arrays of its own (its copies of what
    the function writes), so it is left out."""
    call = statement.value if isinstance(statement, gast.Expr) else None
    return isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and \
        call.func.attr == "setflags" and isinstance(call.func.value, gast.Name)


def desugar(source):
    """Rewrite `source.tree` in place."""
    _Desugar(source).run()


class _Desugar:
    def __init__(self, source):
        self.source = source
        self.taken = nodes.names(source.tree)
        self.functions = {}   # local name -> FunctionDef or Lambda
        self.inlining = []    # names of local functions being put in place (recursion)
        self.problems = []
        self.pre = None       # statements to run before the current one
        self.rebound = set()  # names the body of the loop being desugared rebinds

    def run(self):
        tree = self.source.tree
        function_state.rewrite(self.source)           # `f.count += 1`: a cell, f_count[0]
        functional.rewrite(tree, self.source.func)   # map and functools.partial
        generators.inline(self.source, self.taken)    # `for v in a_generator(...)`
        functional.call_through_aliases(tree, self.source.func)
        made_functions.rewrite(self.source)              # `s2sad.grad(g)(x)`
        for arg in nodes.walk(tree.args):  # annotations say nothing about values: not read
            if isinstance(arg, gast.Name):
                arg.annotation = None
        tree.returns = None
        if tree.args.vararg is not None:  # `*inputs`: one tuple parameter (resolve.py packs
            tree.args.args.append(tree.args.vararg)  # the callers' extra arguments into it)
            tree.args.vararg = None
        if tree.args.kwarg is not None:  # `**options`: one dict parameter, by keyword (resolve.py
            tree.args.kwonlyargs.append(tree.args.kwarg)  # packs the callers' other keywords
            tree.args.kw_defaults.append(None)            # into a dict display)
            tree.args.kwarg = None
        tree.body = self.block(tree.body)
        self.source.procedure = _procedure_returns_none(tree)
        if self.problems:
            raise UnsupportedError(self.problems)

    def report(self, node, message, why="", fix=""):
        self.problems.append(Diagnostic(self.source.loc(node), message, why=why, fix=fix))

    def fresh(self, base):
        return nodes.fresh(base if base.startswith("_") else f"{base}_", self.taken)

    # ---- statements -----------------------------------------------------------------------

    def block(self, statements):
        out = []
        for statement in statements:
            if isinstance(statement, gast.FunctionDef) and not any(
                    isinstance(n, KEPT) for n in nodes.walk(statement)):
                self.functions[statement.name] = statement  # put in place of its calls
                continue
            if isinstance(statement, gast.Assign) and len(statement.targets) == 1 and \
                    isinstance(statement.targets[0], gast.Name) and \
                    isinstance(statement.value, gast.Lambda):
                self.functions[statement.targets[0].id] = statement.value
                continue
            if _sets_flags(statement):
                continue  # `v.setflags(write=False)`: no value changes (see _sets_flags)
            if isinstance(statement, gast.Delete) and \
                    all(isinstance(t, gast.Name) for t in statement.targets):
                self._deleted(statement, statements[statements.index(statement) + 1:])
                continue  # `del x`: x's life ends here; nothing to compute
            if isinstance(statement, gast.Assert):
                statement = _as_if(statement)
            messages.spelled_out(statement)  # `raise E(f"...")`: with str and + (Numba)
            if isinstance(statement, gast.AnnAssign) and statement.value is not None:
                statement = gast.copy_location(gast.Assign([statement.target],
                                                           statement.value, None), statement)
            if isinstance(statement, gast.Try):  # its body, where that keeps its meaning
                kept = try_statements.without_handlers(self.source, statement,
                                                       self.source.tree)
                if isinstance(kept, Diagnostic):
                    self.problems.append(kept)
                    continue
                out += self.block(kept)
                continue
            copies = function_sequences.unrolled(self.source, statement)
            if copies is None:   # `*batch, n = x.shape`
                copies = shape_unpacking.split(statement, self.fresh)
            if copies is not None:
                out += self.block(copies)
                continue
            outer, self.pre = self.pre, []
            if isinstance(statement, gast.For):
                statement = self.loop(statement)
            self.expressions(statement)
            for field in ("body", "orelse"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    setattr(statement, field, self.block(inner))
            out += self.pre + [statement] + branch_appends.sunk(statement, self.fresh)
            self.pre = outer
        return out

    def expressions(self, statement):
        """Rewrite the expressions `statement` evaluates itself (not its body's)."""
        rewriter = _Expressions(self)
        for field in ("value", "test", "iter"):
            value = getattr(statement, field, None)
            if isinstance(value, gast.expr):
                if isinstance(statement, gast.While) and _needs_hoisting(value, self):
                    self.report(value, "a comprehension or a local function call in a `while` "
                                "condition is not supported",
                                why="the condition runs before every iteration",
                                fix="compute it in a variable before the loop and at the end "
                                    "of its body")
                    continue
                setattr(statement, field, rewriter.visit(value))
        for target in getattr(statement, "targets", ()):
            rewriter.visit(target)

    def emit(self, statement, like):
        self.pre.append(gast.copy_location(statement, like))

    # ---- `for` over enumerate, zip, reversed; tuple targets --------------------------------

    def loop(self, node):
        # a sequence the body rebinds is held first: the loop goes over the one it started with
        self.rebound = {n.id for part in [node.target, *node.body] for n in nodes.walk(part)
                        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        try:
            return self._loop(node)
        finally:
            self.rebound = set()

    def _loop(self, node):
        iterable, target = node.iter, node.target
        call = nodes.dotted_parts(iterable.func) if isinstance(iterable, gast.Call) else None
        if call not in (["enumerate"], ["zip"], ["reversed"]) and \
                isinstance(target, gast.Name):
            return node
        if call in (["enumerate"], ["zip"], ["reversed"]) and self._shadowed(call[0]):
            return node
        if call == ["reversed"] and len(iterable.args) == 1 and not iterable.keywords:
            inner = self.once(iterable.args[0], node)
            index = self.fresh("_k")
            count = _length(inner)
            node.iter = gast.copy_location(gast.Call(nodes.name("range"), [
                _minus(count, 1), gast.UnaryOp(gast.USub(), nodes.constant(1)),
                gast.UnaryOp(gast.USub(), nodes.constant(1))], []), iterable)
        else:
            iterable = self.prepared(iterable, node)
            if iterable is None:
                return node
            index = self.fresh("_k")
            if isinstance(iterable, gast.Call) and nodes.dotted_parts(iterable.func) == \
                    ["enumerate"] and isinstance(target, gast.Tuple) and \
                    isinstance(target.elts[0], gast.Name):
                index = target.elts[0].id  # the counter is the loop's own variable
            inner = iterable
            count = self.length(iterable)
            node.iter = gast.copy_location(gast.Call(nodes.name("range"), [count], []),
                                           node.iter)
        binds = []
        self.bind(target, inner, nodes.name(index), binds, target)
        node.target = gast.copy_location(nodes.name(index, store=True), target)
        node.body = binds + node.body
        return node

    def prepared(self, iterable, like):
        """enumerate/zip with their arguments evaluated once, before the loop; None when the
        iterable cannot be indexed (e.g. enumerate with a keyword)."""
        call = nodes.dotted_parts(iterable.func) if isinstance(iterable, gast.Call) else None
        if call == ["enumerate"]:
            if iterable.keywords or not 1 <= len(iterable.args) <= 2:
                return None
            inner = self.prepared(iterable.args[0], like)
            if inner is None:
                return None
            start = self.once(iterable.args[1], like) if len(iterable.args) == 2 else None
            iterable.args = [inner] + ([start] if start is not None else [])
            return iterable
        if call == ["zip"]:
            if iterable.keywords or not iterable.args:
                return None
            self.spread_zip(iterable, like)
            args = [self.prepared(a, like) for a in iterable.args]
            if any(a is None for a in args):
                return None
            iterable.args = args
            return iterable
        return self.once(iterable, like)

    def spread_zip(self, call, like):
        """`for w, b in zip(*pairs):` -> `zip(pairs[0], pairs[1])`, `pairs` evaluated once: the
        loop target says how many sequences it zips (Python raises if pairs has another
        length)."""
        target = like.target if isinstance(like, gast.For) else None
        if len(call.args) != 1 or not isinstance(call.args[0], gast.Starred) or \
                not isinstance(target, gast.Tuple):
            return
        held = self.once(call.args[0].value, like)
        call.args = [gast.copy_location(gast.Subscript(nodes.clone(held), nodes.constant(k),
                                                       gast.Load()), held)
                     for k in range(len(target.elts))]

    def once(self, value, like):
        """`value` as a name or a number: bound to a new name first if it is an expression."""
        if isinstance(value, gast.Constant) or \
                isinstance(value, gast.Name) and value.id not in self.rebound:
            return value
        if isinstance(value, gast.Call) and nodes.dotted_parts(value.func) == ["range"]:
            value.args = [self.once(a, like) for a in value.args]
            return value
        name = self.fresh("_seq")
        self.emit(nodes.assign(name, _Expressions(self).visit(value)), like)
        return nodes.name(name)

    def length(self, iterable):
        call = nodes.dotted_parts(iterable.func) if isinstance(iterable, gast.Call) else None
        if call == ["enumerate"]:
            return self.length(iterable.args[0])
        if call == ["zip"]:
            lengths = [self.length(a) for a in iterable.args]
            return lengths[0] if len(lengths) == 1 else gast.Call(nodes.name("min"), lengths, [])
        return _length(iterable)

    def bind(self, target, iterable, index, out, like):
        """Statements giving `target` the `index`-th element of `iterable`."""
        call = nodes.dotted_parts(iterable.func) if isinstance(iterable, gast.Call) else None
        if call == ["enumerate"] and isinstance(target, gast.Tuple) and len(target.elts) == 2:
            count = nodes.clone(index)
            if len(iterable.args) == 2:
                count = gast.BinOp(count, gast.Add(), nodes.clone(iterable.args[1]))
            if not (isinstance(target.elts[0], gast.Name) and isinstance(count, gast.Name) and
                    target.elts[0].id == count.id):
                self.bind(target.elts[0], None, count, out, like)
            self.bind(target.elts[1], iterable.args[0], index, out, like)
        elif call == ["zip"] and isinstance(target, gast.Tuple) and \
                len(target.elts) == len(iterable.args):
            for part, inner in zip(target.elts, iterable.args):
                self.bind(part, inner, index, out, like)
        elif call in (["enumerate"], ["zip"]):
            self.report(target, f"the loop target does not match {call[0]}(...)'s elements",
                        why=f"each element of {call[0]}(...) is a tuple of "
                            f"{2 if call == ['enumerate'] else len(iterable.args)} values",
                        fix="unpack it into as many names")
        elif iterable is None:  # the count itself
            out.append(gast.copy_location(gast.Assign([target], index, None), like))
        elif isinstance(target, gast.Tuple):
            for k, part in enumerate(target.elts):
                element = gast.Subscript(_element(iterable, index), nodes.constant(k),
                                         gast.Load())
                self.bind(part, None, element, out, like)
        else:
            out.append(gast.copy_location(
                gast.Assign([target], _element(iterable, index), None), like))

    def _deleted(self, statement, after):
        """`del x` is dropped: report a read of x after it that no assignment comes before."""
        for name in (t.id for t in statement.targets):
            for later in after:
                if name in nodes.names_loaded(later):
                    self.report(later, f"'{name}' is read after `del {name}`",
                                why="Python raises NameError here", fix=f"remove `del {name}`")
                    break
                if name in nodes.names(later):
                    break

    def _shadowed(self, name):
        return name in self.source.func.__globals__  # a global of that name: not the builtin

    # ---- comprehensions --------------------------------------------------------------------

    def reduction(self, node, kind, comprehension):
        """sum/max/min (or a NumPy reduction over all elements) of a comprehension: a loop."""
        result = self.fresh(f"_{kind}")
        start = node.args[1] if kind == "sum" and len(node.args) == 2 else None
        if kind == "sum":
            initial = start if start is not None else nodes.constant(0.0)
        else:  # max/min of the elements seen so far; NumPy: of every element's elements
            infinity = gast.Attribute(nodes.name("numpy"), "inf", gast.Load())
            facts.CANONICAL.put(infinity, True)  # spelt the emitter's way already (resolve.py)
            initial = gast.UnaryOp(gast.USub(), infinity) if kind == "max" else infinity
        self.emit(nodes.assign(result, initial), node)
        element = comprehension.elt
        if facts.NUMPY.of(node):  # the user's own spelling: np.sum(element)
            element = gast.Call(nodes.clone(node.func), [element], [])
        if kind == "sum":
            value = gast.BinOp(nodes.name(result), gast.Add(), element)
        else:
            value = gast.Call(nodes.name(kind), [nodes.name(result), element], [])
        self.comprehension_loop(comprehension, [nodes.assign(result, value)], node)
        return gast.copy_location(nodes.name(result), node)

    def as_list(self, comprehension):
        """A list comprehension as a value: a list filled by `.append` in a loop."""
        result = self.fresh("_list")
        self.emit(gast.Assign([nodes.name(result, store=True)], gast.List([], gast.Load()),
                              None), comprehension)
        append = gast.Expr(gast.Call(gast.Attribute(nodes.name(result), "append",
                                                    gast.Load()), [comprehension.elt], []))
        self.comprehension_loop(comprehension, [append], comprehension)
        return gast.copy_location(nodes.name(result), comprehension)

    def as_dict(self, comprehension):
        """A dict comprehension: a dict filled in a loop (containers.py follows it where the
        loop is unrolled, over a container)."""
        result = self.fresh("_dict")
        self.emit(gast.Assign([nodes.name(result, store=True)], gast.Dict([], []), None),
                  comprehension)
        write = gast.Assign([gast.Subscript(nodes.name(result), comprehension.key,
                                            gast.Store())], comprehension.value, None)
        self.comprehension_loop(comprehension, [write], comprehension)
        return gast.copy_location(nodes.name(result), comprehension)

    def comprehension_loop(self, comprehension, body, like):
        """The nested loops of a comprehension around `body`, its names renamed apart."""
        renames = {}
        for generator in comprehension.generators:  # (`for x in x`: the iterable is the
            nodes.rename(generator.iter, renames)      # enclosing scope's x)
            for name in nodes.names(generator.target):
                renames[name] = self.fresh(name)
            nodes.rename(generator.target, renames)
            generator.ifs = [nodes.rename(t, renames) for t in generator.ifs]
        for part in ("elt", "key", "value"):
            if getattr(comprehension, part, None) is not None:
                nodes.rename(getattr(comprehension, part), renames)
        for statement in body:
            nodes.rename(statement, renames)
        for generator in reversed(comprehension.generators):
            if generator.is_async:
                self.report(generator, "async comprehensions are not supported")
            for condition in reversed(generator.ifs):
                body = [gast.If(condition, body, [])]
            body = [gast.For(generator.target, generator.iter, body, [], None)]
        loop = gast.copy_location(body[0], like)
        for node in nodes.walk(loop):
            if isinstance(node, gast.stmt):
                gast.copy_location(node, like)
        outer, self.pre = self.pre, []
        statements = self.block([loop])
        outer += statements
        self.pre = outer

    # ---- local functions ----------------------------------------------------------------

    def inline(self, call, name):
        """The value of a call of the local function `name`, its body run before."""
        return local_functions.inline(self, call, name)


def _as_if(statement):
    """`assert test, message` -> `if not test: raise AssertionError(message)`: the same exception
    at the same point (Python's -O, which drops asserts, is not followed)."""
    error = gast.Call(gast.Name("AssertionError", gast.Load(), None, None),
                      [statement.msg] if statement.msg is not None else [], [])
    raised = gast.copy_location(gast.Raise(gast.copy_location(error, statement), None),
                                statement)
    test = gast.copy_location(gast.UnaryOp(gast.Not(), statement.test), statement.test)
    return gast.copy_location(gast.If(test, [raised], []), statement)


class _Expressions(nodes.Transformer):
    """Comprehensions and local function calls inside one statement's expressions."""

    def __init__(self, owner):
        self.owner = owner

    def visit_Call(self, node):
        owner = self.owner
        chain = nodes.dotted_parts(node.func)
        if node.args and isinstance(node.args[0], COMPREHENSIONS) and chain is not None:
            kind = _reduction(chain, owner.source.func)
            if kind is not None and not node.keywords and len(node.args) <= 2:
                facts.NUMPY.put(node, kind[1] is not None)
                node.args[1:] = [self.visit(a) for a in node.args[1:]]
                return owner.reduction(node, kind[0], node.args[0])
        self.generic_visit(node)
        if isinstance(node.func, gast.Name) and node.func.id in owner.functions:
            return owner.inline(node, node.func.id)
        if chain in (["min"], ["max"]) and chain[0] not in owner.source.func.__globals__ and \
                len(node.args) > 2 and not node.keywords and \
                not any(isinstance(a, gast.Starred) for a in node.args):
            return _pairwise(node)
        node.args = [self._function_value(a) for a in node.args]
        for keyword in node.keywords:
            keyword.value = self._function_value(keyword.value)
        return node

    def _function_value(self, node):
        """A local function passed as an argument, as a constant when it reads no local
        name (local_values.py); any other argument as it is."""
        function = node if isinstance(node, gast.Lambda) else \
            self.owner.functions.get(node.id) if isinstance(node, gast.Name) else None
        if function is None:
            return node
        constant, why = local_values.lifted(self.owner.source, function)
        if constant is None:
            what = "this lambda" if isinstance(node, gast.Lambda) else \
                f"the local function '{node.id}'"
            self.owner.report(node, f"{what} is passed as a value", why=why + "; s2sad "
                              "specialises the function it is given to on a function known "
                              "when it transforms the code, not on values of a call",
                              fix="pass what it reads as arguments of its own, or define it "
                                  "at module level")
        return constant or node

    def visit_ListComp(self, node):
        return self.owner.as_list(node)

    visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node):
        return self.owner.as_dict(node)

    def visit_Lambda(self, node):
        return node  # the fence reports a lambda that is not bound to a name


def _reduction(chain, func):
    """('sum'|'max'|'min', NumPy function applied to each element or None) for a reducing call
    over a comprehension, else None."""
    namespace = func.__globals__
    if len(chain) == 1 and chain[0] in REDUCTIONS and chain[0] not in namespace:
        return REDUCTIONS[chain[0]], None
    if len(chain) == 2 and chain[1] in NUMPY_REDUCTIONS:
        module = namespace.get(chain[0])
        if getattr(module, "__name__", None) == "numpy":
            return NUMPY_REDUCTIONS[chain[1]], chain[1]
    return None


def _pairwise(call):
    """min(a, b, c) as min(min(a, b), c): Python compares left to right, keeping the first of
    equal values, so the nested calls return the same value for every input, NaN included."""
    first, *rest = call.args
    for arg in rest[:-1]:
        first = gast.copy_location(gast.Call(nodes.clone(call.func), [first, arg], []), call)
    call.args = [first, rest[-1]]
    return call


def _needs_hoisting(node, owner):
    return any(isinstance(n, COMPREHENSIONS) or (
        isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and
        n.func.id in owner.functions) for n in nodes.walk(node))


def _length(iterable):
    """len(iterable) as an expression (range(a), range(a, b) without calling len)."""
    call = nodes.dotted_parts(iterable.func) if isinstance(iterable, gast.Call) else None
    if call == ["range"] and len(iterable.args) == 1:
        return nodes.clone(iterable.args[0])
    if call == ["range"] and len(iterable.args) == 2:
        return gast.Call(nodes.name("max"), [gast.BinOp(
            nodes.clone(iterable.args[1]), gast.Sub(), nodes.clone(iterable.args[0])),
            nodes.constant(0)], [])
    return gast.Call(nodes.name("len"), [nodes.clone(iterable)], [])


def _element(iterable, index):
    call = nodes.dotted_parts(iterable.func) if isinstance(iterable, gast.Call) else None
    if call == ["range"] and len(iterable.args) == 1:
        return nodes.clone(index)
    if call == ["range"] and len(iterable.args) == 2:
        return gast.BinOp(nodes.clone(iterable.args[0]), gast.Add(), nodes.clone(index))
    return gast.Subscript(nodes.clone(iterable), nodes.clone(index), gast.Load())


def _minus(value, k):
    return gast.BinOp(value, gast.Sub(), nodes.constant(k))
