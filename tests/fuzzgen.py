"""Random programs in the subset s2sad differentiates, for differential fuzzing (issue 8).

`programs()` is a hypothesis strategy of `Program`s: the source of a module (up to three helper
functions and `f`), arguments for `f`, and the parameters to differentiate. The programs use
scalars and float64 arrays of shapes (2,), (3,) and (2, 3) with broadcasting; NumPy and `math`
calls, `**` with float exponents, reductions and products; branches on data, `for` over computed
ranges, rows and tuples, `while` with a counter, `break`/`continue`, `for ... else`, early
returns; subscript reads and writes (ints, loop variables, slices, 2-D, integer arrays); calls
to the helpers, by position and keyword, some returning tuples (the expressions are written by
fuzzexpr.py); a module-level array read by f and the helpers, a dict, list or tuple parameter
whose leaves are read by subscript, `sum` over generator expressions and `np.sum` over list
comprehensions, and nested `def`s and `lambda`s over the enclosing names (issue 17). Every
draw shrinks towards its simplest choice (0), and each statement and each
expression is a span the shrinker can delete or replace by a part of it, so hypothesis shrinks a
failing program to a few lines.

Valid by construction: names are defined before use, shapes broadcast, indices are in range,
loops terminate, and an array written in place is never aliased (binding a bare name, a view
or a conditional expression of arrays to a new name adds `.copy()`; helpers never write into
their array parameters). Domain edges are kept away by the formulas (`np.log(np.square(x) +
1.0)`); kinks (`abs`, `maximum`, `clip`, `max`, `norm`) and branch thresholds are checked at
run time by fuzzcheck.py, which rejects inputs too close to them.
"""
import dataclasses

import numpy as np
from hypothesis import strategies as st

from fuzzexpr import SHAPES, SIZE, Expressions, fresh_value, strip

MAX_DEPTH = 2          # nesting of if/for/while
PARAM_NAMES = {(): "str", (2,): "wz", (3,): "uv", (2, 3): "AB"}


@dataclasses.dataclass
class Var:
    name: str
    shape: tuple = ()          # None for an int
    owned: bool = True         # an array this function may write in place
    holds: str = None          # the parameter whose caller's array this name holds
    values: tuple = ()         # the values an int takes (known when the program is generated)


@dataclasses.dataclass
class Helper:
    name: str
    params: list               # [(name, shape)]
    returns: tuple             # the shapes returned: one, or two for a tuple
    recursive: bool = False    # then a last parameter `d`, the depth of recursion


@dataclasses.dataclass
class Program:
    """A generated module: `source` defines `f(*args)`; `wrt` are the positions to
    differentiate (the float parameters, or some of them)."""
    source: str
    args: tuple
    wrt: tuple

    def __repr__(self):
        return f"Program(wrt={self.wrt}, args={args_source(self.args)}, source='''\n" \
               f"{self.source}''')"


def args_source(args):
    """Python source that rebuilds `args` exactly (repr of a float round-trips)."""
    parts = [value_source(a) for a in args]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def value_source(value):
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {value_source(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(value_source(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else \
            f"({inner}{',' if len(value) == 1 else ''})"
    return f"np.array({value.tolist()!r})" if hasattr(value, "shape") else repr(value)


@st.composite
def programs(draw, statements=(1, 8), helpers=(0, 3)):
    """A Program: `statements` bounds the number of top-level statements of f, `helpers` the
    number of helper functions."""
    draws = _Draws(draw)
    choose, span = draws.choose, draws.span
    constants = [f"C{k}" for k in range(choose(0, 2))]
    defined, texts = [], [f"C{k} = {choose(1, 20) / 10!r}" for k in range(len(constants))]
    tables = []   # module-level arrays: read by f and the helpers, never written
    for k in range(choose(0, 1)):
        shape = SHAPES[choose(1, 3)]
        values = [choose(-150, 150) / 100 for _ in range(int(_size(shape)))]
        tables.append(Var(f"K{k}", shape, owned=False))
        texts.append(f"K{k} = np.array({_array(values, shape).tolist()!r})")
    for k in range(choose(*helpers)):
        helper, text = span(lambda: _helper(choose, span, k, defined, constants, tables))
        defined.append(helper)
        texts.append(text)
    params, args, wrt, leaves = [], [], [], []
    for shape in [SHAPES[choose(0, 3)] for _ in range(choose(1, 4))]:
        used = sum(1 for p in params if p.shape == shape)
        name = PARAM_NAMES[shape][used] if used < len(PARAM_NAMES[shape]) else f"x{len(params)}"
        params.append(Var(name, shape, holds=name))
        values = [choose(-150, 150) / 100 for _ in range(int(_size(shape)))]
        args.append(values[0] if shape == () else _array(values, shape))
    if choose(0, 2) == 0:  # a container parameter (a pytree): its leaves are read by subscript
        container, leaves = _container(choose)
        params.append(Var("P", "container"))
        args.append(container)
    wrt = [k for k in range(len(params)) if len(params) == 1 or choose(0, 4)]
    if choose(0, 2) == 0:
        params.append(Var("n", None, values=(choose(0, 4),)))
        args.append(params[-1].values[0])
    builder = Builder(choose, span, defined, returns=((),))
    builder.constants = constants
    for p in params:
        if p.shape != "container":
            builder.scope[p.name] = p
    builder.read_only(tables + leaves)
    builder.fixed.add("n")
    builder.block(*statements)
    builder.emit(f"return {builder.return_value()}")
    texts.append(f"def f({', '.join(p.name for p in params)}):\n" + "\n".join(builder.lines))
    source = "import math\n\nimport numpy as np\n\n\n" + "\n\n\n".join(texts) + "\n"
    return Program(source, tuple(args), tuple(wrt or [0]))


def _container(choose):
    """A dict, list or tuple of one to three floats and arrays, and the Vars that read its
    leaves (`P['a']`, `P[1]`)."""
    kind = choose(0, 2)
    shapes = [SHAPES[choose(0, 3)] for _ in range(choose(1, 3))]
    items = []
    for shape in shapes:
        values = [choose(-150, 150) / 100 for _ in range(int(_size(shape)))]
        items.append(values[0] if shape == () else _array(values, shape))
    keys = ["a", "b", "c"][:len(items)] if kind == 0 else list(range(len(items)))
    container = dict(zip(keys, items)) if kind == 0 else items if kind == 1 else tuple(items)
    return container, [Var(f"P[{key!r}]", shape, owned=False) for key, shape in zip(keys, shapes)]


def _helper(choose, span, k, defined, constants, tables=()):
    """A helper `h<k>` (it may call the helpers before it) and its source."""
    if choose(0, 3) == 0:
        return _recursive_helper(choose, span, k, defined, constants)
    params = [(f"q{j}", SHAPES[choose(0, 3)]) for j in range(choose(1, 3))]
    returns = (SHAPES[choose(0, 3)],) if choose(0, 2) else (SHAPES[choose(0, 3)],
                                                            SHAPES[choose(0, 3)])
    builder = Builder(choose, span, defined, returns=returns)
    builder.constants = constants
    builder.read_only(tables)
    for name, shape in params:
        builder.scope[name] = Var(name, shape, owned=False)   # never written in place
    builder.names = 10 * (k + 1)
    builder.block(0, 3)
    builder.emit(f"return {builder.return_value()}")
    names = [n for n, _ in params]
    if params[-1][1] == () and choose(0, 2) == 0:
        names[-1] += "=0.5"
    return Helper(f"h{k}", params, returns), \
        f"def h{k}({', '.join(names)}):\n" + "\n".join(builder.lines)


def _recursive_helper(choose, span, k, defined, constants):
    """`h<k>(q0, d)`: a base case at depth 0, else a value and one call of itself on something
    of q0 at depth d - 1 (q0 is in every call, so the same argument carries a gradient at every
    level, as s2sad requires)."""
    shape, returns = SHAPES[choose(0, 3)], (SHAPES[choose(0, 3)],)
    builder = Builder(choose, span, defined, returns=returns)
    builder.constants = constants
    builder.scope["q0"] = Var("q0", shape, owned=False)
    builder.scope["d"] = Var("d", None, values=(0, 1, 2, 3))
    builder.fixed |= {"q0", "d"}  # rebinding q0 could cut its gradient in the recursive call
    builder.names = 10 * (k + 1)
    builder.emit("if d <= 0:")
    builder.emit(f"    return {fresh_value(builder.expr(returns[0], 1), returns[0])}")
    builder.block(0, 2)
    call = f"h{k}({builder.expr(shape, 1)} * 0.5 + q0, d - 1)"
    builder.emit(f"return {builder.expr(returns[0], 1)} + 0.5 * {call}")
    return Helper(f"h{k}", [("q0", shape)], returns, recursive=True), \
        f"def h{k}(q0, d):\n" + "\n".join(builder.lines)


class _Draws:
    """Draws from hypothesis: `choose(lo, hi)` an int, `span(make)` the value of `make()` as one
    nested draw, which the shrinker can delete whole or replace by a span inside it (an
    expression by one of its operands)."""

    def __init__(self, draw):
        self.stack = [draw]

    def choose(self, lo, hi):
        return self.stack[-1](st.integers(lo, hi))

    def span(self, make):
        return self.stack[-1](_span(self, make))


@st.composite
def _span(draw, draws, make):
    draws.stack.append(draw)  # the draws inside make() belong to this span
    try:
        return make()
    finally:
        draws.stack.pop()


class Builder(Expressions):
    """Writes one function body from draws (see Expressions); `returns` are the shapes the
    function returns: ((),) for f."""

    def __init__(self, choose, span, helpers, returns):
        super().__init__(choose, span, helpers)
        self.returns = returns
        self.lines = []
        self.indent = 1
        self.loops = 0
        self.depth = 0
        self.names = 0

    def fresh(self, prefix="v"):
        self.names += 1
        return f"{prefix}{self.names - 1}"

    def emit(self, line):
        self.lines.append("    " * self.indent + line)

    # ---- statements ------------------------------------------------------------------------

    def block(self, least, most):
        """`least` to `most` statements; each, with the draw that asks for it, is one span."""
        def one(k):
            if k >= least and self.choose(0, 3) == 0:
                return False
            self.statement()
            return True
        for k in range(most):
            if not self.span(lambda: one(k)):
                break

    def read_only(self, variables):
        """Values that are read, never rebound nor written: module arrays, container leaves."""
        for v in variables:
            self.scope[v.name] = v
            self.fixed.add(v.name)
            self.frozen.add(v.name)

    def statement(self):
        kind = self.choose(0, 13)
        nested = self.depth < MAX_DEPTH
        if kind == 1 and self.rebindable():
            v = self.pick(self.rebindable())
            return self.assign(v.name, v.shape, self.expr(v.shape))
        if kind == 2 and self.writable():
            v = self.pick(self.writable())
            value = self.expr(self.smaller(v.shape))
            return self.emit(self.pick_call([
                lambda: f"{v.name} {self.pick(['+=', '-=', '*='])} {strip(value)}",
                lambda: f"{v.name} /= 2.0 + np.cos({strip(value)})"]))
        if kind == 3:
            return self.subscript_write()
        if kind == 4 and nested:
            return self.if_statement()
        if kind == 5 and nested:
            return self.for_loop()
        if kind == 6 and nested:
            return self.while_loop()
        if kind == 7 and self.loops:
            return self.under_if(self.pick(["break", "continue"]))
        if kind == 8 and any(len(h.returns) == 2 for h in self.helpers):
            return self.unpack_call()
        if kind == 9:
            return self.swap()
        if kind == 10:
            return self.allocate()
        if kind == 11 and self.depth > 0:
            return self.under_if(f"return {self.return_value()}")
        if kind == 12:
            return self.comprehension()
        if kind == 13:
            return self.closure()
        shape = self.pick(SHAPES)
        self.assign(self.fresh(), shape, self.expr(shape))

    def assign(self, name, shape, text):
        self.emit(f"{name} = {fresh_value(text, shape)}")
        self.scope[name] = Var(name, shape)

    def subscript_write(self):
        arrays = [v for v in self.writable() if v.shape != ()]
        if not arrays:
            return self.allocate()
        v = self.pick(arrays)
        if v.shape in SIZE:
            n = SIZE[v.shape]
            options = [lambda: (self.index(n), ()), lambda: (":", v.shape),
                       lambda: ("::-1", v.shape)]
            if n == 3:
                options += [lambda: (self.pick(["0:2", "1:", "::2", "-2:"]), (2,)),
                            lambda: ("np.array([0, 2])", (2,)),
                            lambda: ("np.array([2, 0, 1])", (3,))]
        else:
            options = [lambda: (f"{self.index(2)}, {self.index(3)}", ()),
                       lambda: (self.index(2), (3,)), lambda: (f":, {self.index(3)}", (2,)),
                       lambda: (f"{self.index(2)}, 1:", (2,)),
                       lambda: (f"{self.index(2)}, :", (3,)), lambda: ("::-1", (2, 3))]
        index, shape = self.pick_call(options)
        self.emit(f"{v.name}[{index}] {self.pick(['=', '+=', '*='])} "
                  f"{strip(self.expr(self.smaller(shape)))}")

    def allocate(self):
        shape = self.pick(SHAPES[1:])
        size = shape[0] if len(shape) == 1 else shape
        name = self.fresh("m")
        self.emit(f"{name} = " + self.pick_call([lambda: f"np.zeros({size})",
                                                 lambda: f"np.ones({size})",
                                                 lambda: f"np.zeros_like({self.atom(shape)})"]))
        self.scope[name] = Var(name, shape)

    def swap(self):
        """`a, b = b, a`. Arrays trade what they hold (a parameter's array under another name
        must not be written); where that state is not tracked exactly (inside a branch or a
        loop), only arrays in the same state swap. A frozen array (a loop variable's rows are
        views of it) does not swap: another name would hold it and be written."""
        free = [v for v in self.rebindable() if v.name not in self.frozen]
        pairs = [(a, b) for a in free for b in free
                 if a.shape == b.shape and a.name < b.name and (
                     self.depth == 0 or (a.owned, a.holds) == (b.owned, b.holds))]
        if pairs:
            a, b = self.pick(pairs)
            self.scope[a.name] = dataclasses.replace(a, owned=b.owned, holds=b.holds)
            self.scope[b.name] = dataclasses.replace(b, owned=a.owned, holds=a.holds)
            return self.emit(f"{a.name}, {b.name} = {b.name}, {a.name}")
        a, b = self.fresh(), self.fresh()
        self.emit(f"{a}, {b} = {strip(self.expr((), 1))}, {strip(self.expr((), 1))}")
        self.scope[a], self.scope[b] = Var(a), Var(b)

    def unpack_call(self):
        helper = self.pick([h for h in self.helpers if len(h.returns) == 2])
        names = [self.fresh() for _ in helper.returns]
        self.emit(f"{', '.join(names)} = {self.call(helper, 1)}")
        for name, shape in zip(names, helper.returns):
            self.scope[name] = Var(name, shape)

    def comprehension(self):
        """`v = sum(<scalar of e> for e in <vector>)`, over a range with an `if`, or
        `np.sum([<array of e> ...])`: the loop variable is in scope only inside."""
        name, element = self.fresh(), self.fresh("e")
        vectors = [v for v in self.floats() if v.shape in SIZE]
        if vectors and self.choose(0, 2):
            iterable, inner = self.pick(vectors).name, Var(element, (), owned=False)
        else:
            stop, value = self.int_expr()
            iterable, inner = f"range({stop})", Var(element, None, values=tuple(range(value))
                                                     or (0,))
        shape = () if self.choose(0, 2) else self.pick(SHAPES[1:])
        saved = dict(self.scope), set(self.fixed), set(self.frozen)
        self.read_only([inner])
        body = strip(self.expr(shape, 1))
        condition = f" if {self.condition(0)}" if self.choose(0, 3) == 0 else ""
        self.scope, self.fixed, self.frozen = saved
        if shape == ():
            self.emit(f"{name} = sum({body} for {element} in {iterable}{condition})")
        else:
            self.emit(f"{name} = np.sum([{body} for {element} in {iterable}{condition}])")
        self.scope[name] = Var(name, ())

    def closure(self):
        """A nested `def` or a `lambda` over a parameter and the enclosing names, called twice
        (desugar.py puts it in place at each call)."""
        func, param = self.fresh("g"), self.fresh("t")
        shape, result = self.pick(SHAPES), self.pick(SHAPES)
        saved = dict(self.scope), set(self.fixed), set(self.frozen)
        self.read_only([Var(param, shape, owned=False)])
        body = strip(self.expr(result, 1))
        self.scope, self.fixed, self.frozen = saved
        if self.choose(0, 1):
            self.emit(f"{func} = lambda {param}: {body}  # noqa: E731")
        else:
            self.emit(f"def {func}({param}):")
            self.emit(f"    return {body}")
        a, b = strip(self.expr(shape, 1)), strip(self.expr(shape, 1))
        self.assign(self.fresh(), result, f"{func}({a}) + {func}({b})")

    def under_if(self, line):
        self.emit(f"if {self.condition()}:")
        self.emit("    " + line)

    def nested(self, header, most, new_vars=(), frozen=(), first=()):
        """A block under `header` (starting with the lines `first`); the names it defines
        do not outlive it, its new variables are never rebound nor written in place."""
        self.emit(header)
        saved = dict(self.scope), set(self.fixed), set(self.frozen)
        for v in new_vars:
            self.scope[v.name] = v
        self.fixed |= {v.name for v in new_vars}
        self.frozen |= set(frozen) | {v.name for v in new_vars}
        self.indent, self.depth = self.indent + 1, self.depth + 1
        for line in first:
            self.emit(line)
        self.block(1, most)
        self.indent, self.depth = self.indent - 1, self.depth - 1
        self.scope, self.fixed, self.frozen = saved

    def if_statement(self):
        self.nested(f"if {self.condition()}:", 3)
        for _ in range(self.choose(0, 2)):
            if self.choose(0, 1):
                self.nested(f"elif {self.condition()}:", 2)
            else:
                self.nested("else:", 2)
                break

    def for_loop(self):
        i = "ijk"[self.depth]
        kind = self.choose(0, 6)
        self.loops += 1
        if kind >= 5:
            i = self.fresh("e")  # an array: never the name of an int or another shape
        if kind == 5 and self.floats((2, 3)):
            m = self.pick(self.floats((2, 3)))
            self.nested(f"for {i} in {m.name}:", 3, [Var(i, (3,), owned=False)],
                        frozen=[m.name])
        elif kind == 6 and self.floats():
            shape = self.pick(self.floats()).shape
            items = [self.pick(self.floats(shape)).name for _ in range(self.choose(2, 3))]
            self.nested(f"for {i} in ({', '.join(items)}):", 3,
                        [Var(i, shape, owned=False)], frozen=items)
        else:
            stop, value = self.int_expr()
            start = self.choose(0, 2)
            header, values = [(f"range({stop})", range(value)),
                              (f"range({start}, {stop})", range(start, value)),
                              (f"range({stop} - 1, -1, -1)", range(value - 1, -1, -1)),
                              (f"range(0, {stop}, 2)", range(0, value, 2))][min(kind, 3)]
            self.nested(f"for {i} in {header}:", 3,
                        [Var(i, None, values=tuple(values) or (0,))])
        self.loops -= 1
        if self.choose(0, 5) == 0:
            self.nested("else:", 1)

    def while_loop(self):
        """A counter bounds every while loop; it counts first, so `continue` cannot skip it."""
        counter = self.fresh("c")
        limit, value = self.int_expr(4, least=1)  # Numba mis-types `while c < 0` (dead code)
        test = f"{counter} < {limit}"
        if self.choose(0, 1):
            test += f" and {self.condition(0)}"
        self.emit(f"{counter} = 0")
        self.loops += 1
        self.nested(f"while {test}:", 3,
                    [Var(counter, None, values=tuple(range(1, value + 1)) or (1,))],
                    first=[f"{counter} = {counter} + 1"])
        self.loops -= 1

    def return_value(self):
        """f returns a scalar made from a few live values; a helper, its return shapes."""
        if self.returns != ((),):
            return ", ".join(fresh_value(self.expr(s, 1), s) for s in self.returns)
        live = self.floats()[::-1][:self.choose(1, 3)]
        parts = [v.name if v.shape == () else
                 self.pick(["np.sum({})", "np.sum(np.sin({}))", "np.sum({0} * {0})"])
                 .format(v.name) for v in live]
        return " + ".join(parts) if parts else "0.0"



def _size(shape):
    return 1 if shape == () else shape[0] * (shape[1] if len(shape) > 1 else 1)


def _array(values, shape):
    return np.array(values).reshape(shape)
