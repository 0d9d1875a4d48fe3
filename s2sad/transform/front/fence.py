"""Reject what s2sad cannot differentiate yet, reporting every violation at once.

The fence is the one place that says which syntax is supported. It walks the whole function and
collects a Diagnostic for each unsupported construct (it does not stop at the first), so a user
fixes everything in one round:

    def f(x):
        if x > 0:          -->  f.py:2:5: error: `if` statements are not supported yet
            x = x[0]            f.py:3:13: error: indexing (`x[...]`) is not supported yet
        return x
"""
import gast

from s2sad.errors import Diagnostic

from .. import facts, nodes

ALLOWED_STATEMENTS = (gast.Assign, gast.AugAssign, gast.Return, gast.Expr, gast.Pass, gast.If,
                      gast.For, gast.While, gast.Break, gast.Continue, gast.Raise)
ALLOWED_EXPRESSIONS = (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.Call,
                       gast.Attribute, gast.Tuple, gast.keyword, gast.Subscript, gast.IfExp,
                       gast.Compare, gast.BoolOp, gast.JoinedStr, gast.FormattedValue)
ALLOWED_BINOPS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow, gast.MatMult, gast.Mod,
                  gast.FloorDiv)
ALLOWED_UNARYOPS = (gast.USub, gast.UAdd, gast.Not)

# What to call a construct in a message; anything missing is named by its class.
DESCRIPTIONS = {
    gast.If: "`if` statements", gast.For: "`for` loops", gast.While: "`while` loops",
    gast.Break: "`break`", gast.Continue: "`continue`", gast.IfExp: "conditional expressions",
    gast.Subscript: "indexing and slicing (`x[...]`)", gast.Compare: "comparisons",
    gast.BoolOp: "`and`/`or`", gast.Lambda: "lambda expressions",
    gast.ListComp: "list comprehensions", gast.SetComp: "set comprehensions",
    gast.DictComp: "dict comprehensions", gast.GeneratorExp: "generator expressions",
    gast.Yield: "`yield` (generators)", gast.YieldFrom: "`yield from` (generators)",
    gast.Await: "`await`", gast.FunctionDef: "nested function definitions",
    gast.AsyncFunctionDef: "nested async functions", gast.ClassDef: "class definitions",
    gast.Try: "`try` statements", gast.With: "`with` statements",
    gast.AsyncWith: "`async with`", gast.AsyncFor: "`async for`", gast.Assert: "`assert`",
    gast.Global: "`global` declarations",
    gast.Nonlocal: "`nonlocal` declarations", gast.Delete: "`del`",
    gast.Import: "imports inside the function", gast.ImportFrom: "imports inside the function",
    gast.Starred: "star-arguments (`*args`)",
    gast.Dict: "dict displays", gast.Set: "set displays",
    gast.List: "list displays (other than in `for x in [a, b]`)",
    gast.NamedExpr: "assignment expressions (`:=`)", gast.AnnAssign: "annotated assignments",
    gast.Attribute: "assignment to an attribute (`obj.a = v`)",
}
BINOP_SYMBOLS = {gast.FloorDiv: "//", gast.Mod: "%", gast.LShift: "<<", gast.RShift: ">>",
                 gast.BitOr: "|", gast.BitXor: "^", gast.BitAnd: "&"}
if hasattr(gast, "Match"):
    DESCRIPTIONS[gast.Match] = "`match` statements"


def find_problems(source):
    """Every unsupported construct in `source`, as a list of Diagnostics."""
    return _Fence(source).run()


def returns_nothing(source):
    """A diagnostic if the function returns no value anywhere (desugar.py ends such a function
    with `return None`): there is nothing to differentiate."""
    if not source.procedure:
        return []
    tree = source.tree
    return [Diagnostic(source.loc(tree), f"function '{tree.name}' can end without a `return` "
                       "of its result", why="s2sad differentiates the value a function returns, "
                       "on every path", fix="end the function with `return <value>`")]


class _Fence:
    def __init__(self, source):
        self.source = source
        self.diagnostics = []

    def report(self, node, message, why="", fix=""):
        self.diagnostics.append(Diagnostic(self.source.loc(node), message, why=why, fix=fix))

    def run(self):
        tree = self.source.tree
        self._check_signature(tree.args)
        for statement in tree.body:
            self._statement(statement)
        if not _always_returns(tree.body):
            self.report(tree, f"function '{tree.name}' can end without a `return` of its result",
                        why="s2sad differentiates the value a function returns, on every path",
                        fix="end the function with `return <value>`")
        return self.diagnostics

    def _check_signature(self, args):
        for star, kind in ((args.kwarg, "**kwargs"),):  # (*args: a tuple, desugar.py)
            if star is not None:
                self.report(star, f"functions with {kind} are not supported",
                            why="s2sad differentiates w.r.t. parameters it knows by name and "
                                "position",
                            fix="give every parameter a name")

    def _statement(self, node):
        if isinstance(node, gast.With):
            return self._hook(node)
        if not isinstance(node, ALLOWED_STATEMENTS):
            self._unsupported(node)
        elif isinstance(node, gast.For):
            self._for(node)
        elif isinstance(node, gast.Return):
            if node.value is None:
                self.report(node, "`return` without a value",
                            why="s2sad differentiates the value the function returns",
                            fix="return the function's result")
        elif isinstance(node, gast.Expr) and not _is_docstring(node):
            self._expression_statement(node)
            return
        elif isinstance(node, gast.Raise):
            return self._raise(node)
        elif isinstance(node, gast.Assign):
            for target in node.targets:
                self._target(target)
        elif isinstance(node, gast.AugAssign):
            if not isinstance(node.target, gast.Name):
                self._target(node.target)
            self._operator(node, node.op)
        for child in gast.iter_child_nodes(node):
            if isinstance(child, gast.List) and (
                    (isinstance(node, gast.For) and child is node.iter) or
                    (isinstance(node, gast.Assign) and child is node.value)):
                for element in child.elts:  # a sequence to loop over (exits.py unrolls it)
                    self._expression(element)
                continue
            if isinstance(child, gast.expr) and child is not getattr(node, "target", None) \
                    and child not in getattr(node, "targets", ()):
                self._expression(child)
            elif isinstance(child, gast.stmt):
                self._statement(child)

    def _expression_statement(self, node):
        value = node.value
        if isinstance(value, (gast.Yield, gast.YieldFrom, gast.Await)):
            return self._unsupported(value)
        if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and \
                value.func.attr == "append" and isinstance(value.func.value, gast.Name):
            for argument in value.args:  # a list grown: containers.py
                self._expression(argument)
            return
        if isinstance(value, gast.Call) and nodes.dotted_parts(value.func) is not None:
            self._expression(value)  # print(...), or a function of yours (normalize.py checks)
            return
        self.report(node, "expression statements (e.g. bare calls) are not supported",
                    why="their result is discarded, and side effects are not differentiated",
                    fix="remove the statement, or assign its result to a variable")

    def _raise(self, node):
        """`raise ValueError("...")` (and `assert`, desugared to one): raised in the forward
        sweep at the same point, with the same exception."""
        exc = node.exc
        if exc is None or node.cause is not None or not (
                isinstance(exc, gast.Name) or isinstance(exc, gast.Call) and
                isinstance(exc.func, gast.Name)):
            self.report(node, "only `raise SomeError(...)` (or `raise SomeError`) is supported",
                        why="the forward sweep raises the same exception at the same point; a "
                            "bare `raise` or `raise ... from ...` has nothing to re-raise there",
                        fix="raise an exception instance: raise ValueError('...')")
            return
        for part in exc.args + [k.value for k in exc.keywords] \
                if isinstance(exc, gast.Call) else ():
            self._expression(part)

    def _hook(self, node):
        """`with s2sad.grad_of(x) as dx:` (normalize.py checks the function is grad_of): a body
        run in the backward sweep, which must leave the forward values alone."""
        item = node.items[0] if len(node.items) == 1 else None
        call = item and item.context_expr
        if item is None or not isinstance(call, gast.Call) or len(call.args) != 1 or \
                call.keywords or not isinstance(call.args[0], gast.Name) or \
                not isinstance(item.optional_vars, gast.Name):
            self.report(node, "the only supported `with` statement is "
                        "`with s2sad.grad_of(x) as dx:`",
                        why="its body runs in the backward sweep with dx the gradient of x",
                        fix="move other context managers out of the differentiated function")
            return
        gradient = item.optional_vars.id
        inside = {n.id for s in node.body for n in nodes.walk(s) if isinstance(n, gast.Name)}
        within = {id(n) for n in nodes.walk(node)}
        outside = {n.id for n in nodes.walk(self.source.tree)
                   if isinstance(n, gast.Name) and id(n) not in within}
        if gradient in outside:
            self.report(item.optional_vars, f"'{gradient}' is used outside its `with "
                        "s2sad.grad_of(...)` block", why="it exists only in the backward sweep",
                        fix="give the gradient a name of its own")
        for statement in node.body:
            self._hook_statement(statement, inside - outside)

    def _hook_statement(self, node, own):
        """A statement of a grad_of body: calls (print), and assignments to the gradient and to
        names used only in the body."""
        for inner in nodes.walk(node):
            if isinstance(inner, (gast.Return, gast.Break, gast.Continue, gast.With)):
                self.report(inner, f"{DESCRIPTIONS.get(type(inner), 'this')} inside a `with "
                            "s2sad.grad_of(...)` block is not supported",
                            why="the block runs in the backward sweep, in place",
                            fix="compute the new gradient and assign it to the `as` name")
                return
            if isinstance(inner, gast.Name) and isinstance(inner.ctx, gast.Store) and \
                    inner.id not in own:
                self.report(inner, f"a `with s2sad.grad_of(...)` block cannot assign '{inner.id}',"
                            " which the function uses outside it",
                            why="the block runs in the backward sweep, where the forward values "
                                "must stay as they were",
                            fix="assign to the `as` name (the gradient) or to a new name")
                return
        if isinstance(node, gast.Expr):
            self._expression(node.value)
        else:
            self._statement(node)

    def _for(self, node):
        if not isinstance(node.target, gast.Name):
            self.report(node.target, "a `for` loop must assign one name",
                        why="s2sad records and replays one loop variable",
                        fix="unpack inside the loop body (`for row in rows: a, b = ...`)")
        iterable = node.iter
        if isinstance(iterable, gast.Call) and nodes.dotted_parts(iterable.func) in (
                ["enumerate"], ["zip"], ["reversed"]):
            name = iterable.func.id
            self.report(iterable, f"`for` over {name}(...) is not supported yet",
                        why="s2sad loops over range(...), the rows of an array, or a tuple or "
                            "list of values",
                        fix="loop over range(len(x)) and index")
        if is_checkpointed(iterable):
            facts.LOOP_ITER.put(iterable, True)
            self._checkpointed(iterable)

    def _checkpointed(self, call):
        """`s2sad.checkpointed(range(...), every=k)` (checkpoint.py): the loop is re-run segment
        by segment from snapshots, which needs the iteration numbers a range gives."""
        every = [k for k in call.keywords if k.arg == "every"]
        if len(call.args) + len(every) not in (1, 2) or len(call.args) > 2 or \
                len(every) != len(call.keywords):
            self.report(call, "s2sad.checkpointed takes a range and optionally `every=k`",
                        why="it marks the loop whose iterations are recomputed from snapshots",
                        fix="write `for i in s2sad.checkpointed(range(n)):` or "
                            "`s2sad.checkpointed(range(n), every=k)`")
            return
        inner = call.args[0] if call.args else call
        if not (isinstance(inner, gast.Call) and nodes.dotted_parts(inner.func) == ["range"]
                and not inner.keywords and 1 <= len(inner.args) <= 3):
            self.report(inner, "a checkpointed loop must be over `range(...)`",
                        why="the backward sweep re-runs the loop segment by segment from "
                            "snapshots, by iteration number, which only a range gives",
                        fix="loop over the indices and read the element in the body: "
                            "`for i in s2sad.checkpointed(range(len(xs))): x = xs[i]`")

    def _target(self, node):
        if isinstance(node, gast.Name):
            return
        if isinstance(node, (gast.Tuple, gast.List)):
            for element in node.elts:
                self._target(element)
            return
        if isinstance(node, gast.Starred):  # of a container known now (containers.py)
            return self._target(node.value)
        if isinstance(node, gast.Attribute):  # `self.n_fe += 1`: an object's field, in a cell
            return self._expression(node.value)  # (containers.py, or its error there)
        if isinstance(node, gast.Subscript):
            if not isinstance(node.value, gast.Name):
                self.report(node, "assignment into an indexed value (`a[i][j] = v`) is not "
                            "supported", why="s2sad saves and restores what one index "
                                             "overwrites in a named array",
                            fix="index once: a[i, j] = v")
            self._expression(node.slice)
            return
        self._unsupported(node)

    def _expression(self, node):
        if not isinstance(node, (gast.expr, gast.keyword)) or isinstance(node, gast.Slice):
            for child in gast.iter_child_nodes(node):  # operators, contexts, comprehensions...
                self._expression(child)
            return
        if isinstance(node, gast.List) and all(_is_number(e) for e in node.elts):
            return  # a constant list, e.g. numpy.array([0, 2, 1])
        if isinstance(node, (gast.List, gast.Dict)):
            for element in gast.iter_child_nodes(node):  # containers.py follows them
                if element is not None:
                    self._expression(element)
            return
        if not isinstance(node, ALLOWED_EXPRESSIONS):
            return self._unsupported(node)  # once: not again for what it contains
        if isinstance(node, gast.BinOp):
            self._operator(node, node.op)
        elif isinstance(node, gast.UnaryOp) and not isinstance(node.op, ALLOWED_UNARYOPS):
            self.report(node, f"the unary operator `{_unary_symbol(node.op)}` is not supported",
                        why="it works on bits or truth values, which have no derivative",
                        fix="use arithmetic operators or NumPy functions")
        elif isinstance(node, gast.Call):
            self._call(node)
        elif isinstance(node, gast.Constant) and isinstance(node.value, complex):
            self.report(node, "complex numbers are not supported",
                        why="s2sad differentiates real float64 code",
                        fix="compute with the real and imaginary parts as two real values")
        for child in gast.iter_child_nodes(node):
            if isinstance(node, gast.Call) and isinstance(child, gast.Starred):
                child = child.value  # f(*args) of a tuple or list known now (containers.py)
            self._expression(child)

    def _call(self, node):
        if nodes.dotted_parts(node.func) is None and \
                not isinstance(node.func, (gast.Attribute, gast.Subscript)):
            self.report(node.func, "only calls of named functions (`f(x)`, `np.sin(x)`) are "
                        "supported", why="s2sad must know which function a call calls when it "
                                         "transforms the code",
                        fix="assign the function to a name first, or call it directly")
        if is_checkpointed(node) and not facts.LOOP_ITER.of(node):
            self.report(node, "s2sad.checkpointed(...) is supported only as what a `for` loop "
                        "iterates over", why="it marks a loop; elsewhere it means nothing",
                        fix="write `for i in s2sad.checkpointed(range(n)):`")

    def _operator(self, node, op):
        if not isinstance(op, ALLOWED_BINOPS):
            symbol = BINOP_SYMBOLS.get(type(op), type(op).__name__)
            self.report(node, f"the operator `{symbol}` is not supported yet",
                        why="it works on bits, which have no derivative",
                        fix="use + - * / ** @ % // or a NumPy function")

    def _unsupported(self, node):
        what = DESCRIPTIONS.get(type(node), f"`{type(node).__name__}` nodes")
        if isinstance(node, gast.Yield):   # (generators.py puts simple ones in place)
            self.report(node, f"not supported here: {what}",
                        why="a generator is supported where a `for` loops over it with no "
                            "`break`, `continue` or `else`, and it yields only as statements, "
                            "with no `return`",
                        fix="loop over it so, or return a tuple of the values instead")
            return
        self.report(node, f"not supported yet: {what}",
                    why="s2sad differentiates assignments, arithmetic, calls, indexing, "
                        "`if`, `for` and `while`",
                    fix="rewrite this part without it, or move it out of the differentiated "
                        "function")


# Arguments that are counts, shapes or axes: by position, for functions named so (the fence
# runs before names are resolved), and by keyword for any call.
INTEGER_POSITIONS = {"range": (0, 1, 2), "zeros": (0,), "ones": (0,), "empty": (0,),
                     "full": (0,), "reshape": (1,), "tile": (1,), "broadcast_to": (1,),
                     "repeat": (1,), "eye": (0, 1)}
INTEGER_KEYWORDS = {"axis", "axes", "shape", "newshape", "reps", "repeats", "k"}


def integer_uses(source, names):
    """Diagnostics for parameters in `names` (the differentiated ones, which become floats)
    used directly as a count, a shape, an axis or an index: `range(n)`, `numpy.zeros(n)`,
    `x.sum(axis=k)`, `x[i]`, `x[:n]`."""
    found = []
    for node in nodes.walk(source.tree):
        if isinstance(node, gast.Call):
            parts = nodes.dotted_parts(node.func) or \
                ([node.func.attr] if isinstance(node.func, gast.Attribute) else [""])
            what = f"{parts[-1]}(...)"
            positions = INTEGER_POSITIONS.get(parts[-1], ())
            arguments = [a for k, a in enumerate(node.args) if k in positions]
            if parts != ["dict"]:  # dict(k=x): a key, not a count
                arguments += [k.value for k in node.keywords if k.arg in INTEGER_KEYWORDS]
            found += [(name, node, f"a count, shape or axis of {what}")
                      for argument in arguments for name in _plain_names(argument, names)]
        elif isinstance(node, gast.Subscript):
            found += [(name, node, "an index") for name in _plain_names(node.slice, names)]
    return [Diagnostic(source.loc(node), f"'{name}' is differentiated but used as {use}",
                       why="a differentiated argument becomes a float, and a count or an index "
                           "has no derivative",
                       fix=f"leave '{name}' out of wrt")
            for name, node, use in found]


def _plain_names(node, names):
    """Names in `names` that `node` computes with directly (not through a call or attribute,
    as in len(x) or x.shape)."""
    if isinstance(node, gast.Name):
        return [node.id] if node.id in names else []
    if isinstance(node, (gast.BinOp, gast.UnaryOp, gast.Tuple, gast.Slice)):
        return [n for child in gast.iter_child_nodes(node) for n in _plain_names(child, names)]
    return []


def is_checkpointed(node):
    """A call spelled `checkpointed(...)` or `<module>.checkpointed(...)` (s2sad's marker; the
    fence runs before names are resolved, normalize.py checks what it really is)."""
    parts = nodes.dotted_parts(node.func) if isinstance(node, gast.Call) else None
    return bool(parts) and parts[-1] == "checkpointed"


def _is_number(node):
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        return _is_number(node.operand)
    return isinstance(node, gast.Constant) and isinstance(node.value, (int, float)) and \
        not isinstance(node.value, bool)


def _always_returns(statements):
    """Whether every path through `statements` ends in a `return` (or a `raise`)."""
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, (gast.Return, gast.Raise)):
        return True
    if isinstance(last, gast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    return False


def _is_docstring(node):
    return isinstance(node.value, gast.Constant) and isinstance(node.value.value, str)


def _unary_symbol(op):
    return {gast.Not: "not", gast.Invert: "~"}.get(type(op), type(op).__name__)
