"""Random programs in the subset s2sad differentiates, for differential fuzzing (issue 8).

`programs()` is a hypothesis strategy of `Program`s: the source of a module (up to three helper
functions and `f`), arguments for `f`, and the parameters to differentiate. The programs use
scalars and float64 arrays of shapes (2,), (3,) and (2, 3) with broadcasting; NumPy and `math`
calls, `**` with float exponents, reductions and products; branches on data, `for` over computed
ranges, rows and tuples, `while` with a counter, `break`/`continue`, `for ... else`, early
returns; subscript reads and writes (ints, loop variables, slices, 2-D, integer arrays); calls
to the helpers, by position and keyword, some returning tuples. Every draw shrinks towards its
simplest choice (0), so hypothesis shrinks a failing program to a small one.

Valid by construction: names are defined before use, shapes broadcast, indices are in range,
loops terminate, and an array written in place is never aliased (binding a bare name, a view
or a conditional expression of arrays to a new name adds `.copy()`; helpers never write into
their array parameters). Domain edges are kept away by the formulas (`np.log(np.square(x) +
1.0)`); kinks (`abs`, `maximum`, `clip`, `max`, `norm`) and branch thresholds are checked at
run time by fuzzcheck.py, which rejects inputs too close to them.
"""
import ast
import dataclasses

from hypothesis import strategies as st

SHAPES = ((), (2,), (3,), (2, 3))
SIZE = {(2,): 2, (3,): 3}
MAX_DEPTH = 2          # nesting of if/for/while
PARAM_NAMES = {(): "str", (2,): "wz", (3,): "uv", (2, 3): "AB"}

# One `{}` each, so no compound operand is repeated; all smooth on the whole real line.
ELEMENTWISE = ["np.sin({})", "np.cos({})", "np.tanh({})", "np.arctan({})", "np.exp(np.sin({}))",
               "np.exp(-np.square({}))", "np.sqrt(np.square({}) + 1.0)",
               "np.log(np.square({}) + 1.0)", "np.log1p(np.square({}))", "np.square({})",
               "(-{})", "np.arcsinh({})", "(1.0 / (1.0 + np.exp(-{})))", "np.cosh(np.tanh({}))",
               "np.expm1(np.sin({}))", "({} ** 2)", "({} ** 3)", "((np.square({}) + 1.0) ** 0.75)",
               "((np.cos({}) + 2.0) ** -1.5)", "np.power(np.square({}) + 0.5, 1.3)"]
SCALAR_ONLY = ["math.sin({})", "math.cos({})", "math.tanh({})", "math.atan({})",
               "math.exp(math.sin({}))", "math.hypot({}, 1.0)", "math.log1p(math.pow({}, 2))",
               "math.erf({})", "math.atan2({}, 2.0)", "math.asinh({})", "pow({}, 2)",
               "math.sqrt(math.pow({}, 2) + 1.0)", "math.pow(math.cos({}) + 2.0, 0.5)",
               "float({})"]
BINARY = ["({} + {})", "({} - {})", "({} * {})", "({} / (np.square({}) + 1.0))",
          "({} / (2.0 + np.cos({})))", "((np.square({}) + 1.0) ** {})"]
KINKS = ["np.abs({})", "np.maximum({}, {})", "np.minimum({}, {})", "np.clip({}, -0.5, 0.5)"]
SCALAR_KINKS = KINKS[:3] + ["abs({})", "max({}, {})", "min({}, {})"]  # Numba: no scalar clip
REDUCE = ["np.sum({})", "np.mean({})", "{}.sum()", "np.var({})", "np.max({})", "np.min({})",
          "np.linalg.norm({})"]


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
    parts = [f"np.array({a.tolist()!r})" if hasattr(a, "shape") else repr(a) for a in args]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


@st.composite
def programs(draw, statements=(1, 8), helpers=(0, 3)):
    """A Program: `statements` bounds the number of top-level statements of f, `helpers` the
    number of helper functions."""
    def choose(lo, hi):
        return draw(st.integers(lo, hi))

    def span(make):
        return draw(_span(make))
    constants = [f"C{k}" for k in range(choose(0, 2))]
    defined, texts = [], [f"C{k} = {choose(1, 20) / 10!r}" for k in range(len(constants))]
    for k in range(choose(*helpers)):
        helper, text = span(lambda: _helper(choose, span, k, defined, constants))
        defined.append(helper)
        texts.append(text)
    params, args, wrt = [], [], []
    for shape in [SHAPES[choose(0, 3)] for _ in range(choose(1, 4))]:
        used = sum(1 for p in params if p.shape == shape)
        name = PARAM_NAMES[shape][used] if used < len(PARAM_NAMES[shape]) else f"x{len(params)}"
        params.append(Var(name, shape, holds=name))
        values = [choose(-150, 150) / 100 for _ in range(int(_size(shape)))]
        args.append(values[0] if shape == () else _array(values, shape))
    wrt = [k for k in range(len(params)) if len(params) == 1 or choose(0, 4)]
    if choose(0, 2) == 0:
        params.append(Var("n", None, values=(choose(0, 4),)))
        args.append(params[-1].values[0])
    builder = Builder(choose, span, defined, returns=((),))
    builder.constants = constants
    for p in params:
        builder.scope[p.name] = p
    builder.fixed.add("n")
    builder.block(*statements)
    builder.emit(f"return {builder.return_value()}")
    texts.append(f"def f({', '.join(p.name for p in params)}):\n" + "\n".join(builder.lines))
    source = "import math\n\nimport numpy as np\n\n\n" + "\n\n\n".join(texts) + "\n"
    return Program(source, tuple(args), tuple(wrt or [0]))


def _helper(choose, span, k, defined, constants):
    """A helper `h<k>` (it may call the helpers before it) and its source."""
    params = [(f"q{j}", SHAPES[choose(0, 3)]) for j in range(choose(1, 3))]
    returns = (SHAPES[choose(0, 3)],) if choose(0, 2) else (SHAPES[choose(0, 3)],
                                                            SHAPES[choose(0, 3)])
    builder = Builder(choose, span, defined, returns=returns)
    builder.constants = constants
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


@st.composite
def _span(draw, make):
    """`make()` as one nested draw: hypothesis can delete a span whole, or replace it by one
    of the spans inside it (an expression by one of its operands)."""
    return make()


class Builder:
    """Writes one function body from draws: `choose(lo, hi)` returns an int in [lo, hi];
    `span(make)` returns `make()`, its draws grouped for the shrinker."""

    def __init__(self, choose, span, helpers, returns):
        self.choose = choose
        self.span = span
        self.helpers = helpers          # the helpers defined before this function
        self.returns = returns          # f: ((),); a helper: its return shapes
        self.lines = []
        self.scope = {}
        self.fixed = set()              # never rebound: loop variables, counters, n
        self.frozen = set()             # never written in place: what a loop variable aliases
        self.indent = 1
        self.loops = 0
        self.depth = 0
        self.names = 0
        self.constants = []             # module-level numbers (s2sad inlines them)

    # ---- small pieces --------------------------------------------------------------------

    def pick(self, options):
        return options[self.choose(0, len(options) - 1)]

    def pick_call(self, options):
        """Call one of `options` (functions): only the chosen one draws."""
        return self.pick(options)()

    def fresh(self, prefix="v"):
        self.names += 1
        return f"{prefix}{self.names - 1}"

    def emit(self, line):
        self.lines.append("    " * self.indent + line)

    def floats(self, shape=None):
        return [v for v in self.scope.values()
                if v.shape is not None and (shape is None or v.shape == shape)]

    def rebindable(self, shape=None):
        return [v for v in self.floats(shape) if v.name not in self.fixed]

    def writable(self, shape=None):
        """Values this function may update in place (scalars: `+=` just rebinds)."""
        return [v for v in self.rebindable(shape) if v.name not in self.frozen
                and (v.shape == () or v.owned and v.holds in (None, v.name))]

    def ints(self):
        return [v for v in self.scope.values() if v.shape is None]

    def const(self, lo=1, hi=20):
        return repr(self.choose(lo, hi) / 10)

    # ---- expressions -----------------------------------------------------------------------

    def expr(self, shape, depth=2):
        """An expression of `shape`: an atom, or one of the compound forms below."""
        return self.span(lambda: self._expr(shape, depth))

    def _expr(self, shape, depth):
        kind = 0 if depth <= 0 else self.choose(0, 8)
        if kind == 1:
            forms = ELEMENTWISE + (SCALAR_ONLY if shape == () else [])
            return self.pick(forms).format(self.expr(shape, depth - 1))
        if kind == 2:
            a, b = self.expr(shape, depth - 1), self.expr(self.smaller(shape), depth - 1)
            a, b = (b, a) if self.choose(0, 1) else (a, b)
            return self.pick(BINARY).format(a, b)
        if kind == 3:
            return self.structural(shape, depth - 1)
        if kind == 4:
            helpers = [h for h in self.helpers if h.returns == (shape,)]
            if helpers:
                return self.call(self.pick(helpers), depth - 1)
        if kind == 5:
            return f"({self.expr(shape, depth - 1)} if {self.condition(0)} " \
                   f"else {self.expr(shape, depth - 1)})"
        if kind == 6:
            form = self.pick(SCALAR_KINKS if shape == () else KINKS)
            operands = [self.expr(shape, depth - 1), self.expr(self.smaller(shape), depth - 1)]
            return form.format(*operands[:form.count("{}")])
        if kind == 7 and shape != ():
            return f"np.where({self.expr(shape, depth - 1)} > {self.const(-10, 10)}, " \
                   f"{self.expr(shape, depth - 1)}, {self.expr(self.smaller(shape), 0)})"
        return self.atom(shape)

    def smaller(self, shape):
        """A shape that broadcasts to `shape` (the same one first)."""
        return self.pick([shape] + [s for s in SHAPES if s != shape and _broadcasts(s, shape)])

    def atom(self, shape):
        options = [lambda v=v: v.name for v in self.floats(shape)]
        if shape == ():
            options.append(self.const)
            for v in self.floats():
                if v.shape in SIZE:
                    options.append(lambda v=v: f"{v.name}[{self.index(SIZE[v.shape])}]")
                elif v.shape == (2, 3):
                    options.append(lambda v=v: f"{v.name}[{self.index(2)}, {self.index(3)}]")
                    options.append(lambda v=v: f"{v.name}[{self.index(2)}][{self.index(3)}]")
            options += [lambda i=i: f"({i.name} * 0.25)" for i in self.ints()]
            options += [lambda g=g: g for g in self.constants]
        elif shape == (3,):
            options += [lambda m=m: f"{m.name}[{self.index(2)}]" for m in self.floats((2, 3))]
            options += [lambda v=v: f"{v.name}[::-1]" for v in self.floats((3,))]
            options += [lambda v=v: f"{v.name}[np.array([2, 0, 0])]" for v in self.floats((3,))]
        elif shape == (2,):
            options += [lambda v=v: f"{v.name}[{self.pick(['0:2', '1:', ':2', '::2', '-2:'])}]"
                        for v in self.floats((3,))]
            options += [lambda m=m: f"{m.name}[:, {self.index(3)}]" for m in self.floats((2, 3))]
            options += [lambda v=v: f"{v.name}[::-1]" for v in self.floats((2,))]
            options += [lambda v=v: f"{v.name}[np.array([1, 1])]" for v in self.floats((2,))]
        else:
            options += [lambda m=m: f"{m.name}[::-1]" for m in self.floats((2, 3))]
        if not options:
            return f"np.ones({shape if len(shape) > 1 else shape[0]})"
        return self.pick_call(options)

    def index(self, size):
        """An index into an axis of `size`: a constant, or an int variable kept in range."""
        options = [lambda k=k: str(k) for k in range(-size, size)]
        for i in self.ints():
            if all(-size <= k < size for k in i.values):
                options.append(lambda i=i: i.name)
            options.append(lambda i=i: f"{i.name} % {size}")
        return self.pick_call(options)

    def structural(self, shape, depth):
        """Reductions, products and shape functions that make `shape`."""
        def e(s):
            return self.expr(s, depth)
        if shape == ():
            vector = self.pick([(2,), (3,)])
            forms = [lambda: self.pick(REDUCE).format(e(self.pick(SHAPES[1:]))),
                     lambda: f"np.prod({e(vector)})",
                     lambda: self.pick(["np.dot({}, {})", "({} @ {})"]).format(e(vector),
                                                                               e(vector))]
        elif shape == (3,):
            forms = [lambda: self.pick(["np.sum({}, axis=0)", "{}.sum(axis=0)"]).format(
                         e((2, 3))),
                     lambda: self.pick(["({} @ {})", "np.dot({}, {})"]).format(e((2,)),
                                                                               e((2, 3))),
                     lambda: self.pick(["(np.transpose({}) @ {})", "({}.T @ {})"]).format(
                         e((2, 3)), e((2,))),
                     lambda: self.pick(["np.cumsum({})", "np.flip({})", "np.roll({}, 1)"])
                     .format(e((3,))),
                     lambda: f"np.array([{e(())}, {e(())}, {e(())}])",
                     lambda: f"np.concatenate(({e((2,))}, {self.atom((3,))}[2:]))"]
        elif shape == (2,):
            forms = [lambda: self.pick(["np.sum({}, axis=1)", "{}.sum(axis=-1)"]).format(
                         e((2, 3))),
                     lambda: self.pick(["({} @ {})", "np.dot({}, {})"]).format(e((2, 3)),
                                                                               e((3,))),
                     lambda: self.pick(["np.cumsum({})", "np.flip({})"]).format(e((2,))),
                     lambda: f"np.array([{e(())}, {e(())}])"]
        else:
            forms = [lambda: f"np.outer({e((2,))}, {e((3,))})",
                     lambda: f"np.stack(({e((3,))}, {e((3,))}))"]
        return self.pick_call(forms)

    def call(self, helper, depth):
        args = [self.expr(s, depth) for _, s in helper.params]
        if len(args) > 1 and self.choose(0, 2) == 0:   # the last one by keyword
            args[-1] = f"{helper.params[-1][0]}={_strip(args[-1])}"
        return f"{helper.name}({', '.join(_strip(a) for a in args)})"

    def condition(self, depth=1):
        """A test on data (fuzzcheck rejects inputs within 1e-3 of its threshold) or on ints."""
        kind = self.choose(0, 4)
        if kind == 1 and self.ints():
            i = self.pick(self.ints())
            return self.pick([f"{i.name} == {self.choose(0, 3)}",
                              f"{i.name} > {self.choose(0, 3)}", f"{i.name} % 2 == 0"])
        if kind == 2 and depth > 0:
            return f"{self.condition(0)} {self.pick(['and', 'or'])} {self.condition(0)}"
        if kind == 3 and depth > 0:
            return f"not {self.condition(0)}"
        left = self.expr((), 1)
        if (left[0].isdigit() or left in self.constants) and self.floats(()):
            left = self.pick(self.floats(())).name  # a constant test: a known bug (README)
        return f"{left} {self.pick(['>', '<', '>=', '<='])} {self.const(-10, 10)}"

    def int_expr(self, limit=5, least=0):
        """(source, value) of an int up to `limit`: constants from `least`, the int parameter,
        sizes."""
        options = [(str(k), k) for k in range(least, limit + 1)]
        for v in self.ints():
            if v.name == "n":
                options += [("n", v.values[0]), ("n + 1", v.values[0] + 1),
                            ("n // 2", v.values[0] // 2)]
        for v in self.floats():
            if v.shape in SIZE:
                options += [(f"len({v.name})", v.shape[0]), (f"{v.name}.shape[0]", v.shape[0])]
            elif v.shape == (2, 3):
                options += [(f"{v.name}.shape[0]", 2), (f"{v.name}.shape[1]", 3)]
        return self.pick(options)

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

    def statement(self):
        kind = self.choose(0, 11)
        nested = self.depth < MAX_DEPTH
        if kind == 1 and self.rebindable():
            v = self.pick(self.rebindable())
            return self.assign(v.name, v.shape, self.expr(v.shape))
        if kind == 2 and self.writable():
            v = self.pick(self.writable())
            value = self.expr(self.smaller(v.shape))
            return self.emit(self.pick_call([
                lambda: f"{v.name} {self.pick(['+=', '-=', '*='])} {_strip(value)}",
                lambda: f"{v.name} /= 2.0 + np.cos({_strip(value)})"]))
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
        shape = self.pick(SHAPES)
        self.assign(self.fresh(), shape, self.expr(shape))

    def assign(self, name, shape, text):
        self.emit(f"{name} = {_fresh(text, shape)}")
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
                  f"{_strip(self.expr(self.smaller(shape)))}")

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
        loop), only arrays in the same state swap."""
        pairs = [(a, b) for a in self.rebindable() for b in self.rebindable()
                 if a.shape == b.shape and a.name < b.name and (
                     self.depth == 0 or (a.owned, a.holds) == (b.owned, b.holds))]
        if pairs:
            a, b = self.pick(pairs)
            self.scope[a.name] = dataclasses.replace(a, owned=b.owned, holds=b.holds)
            self.scope[b.name] = dataclasses.replace(b, owned=a.owned, holds=a.holds)
            return self.emit(f"{a.name}, {b.name} = {b.name}, {a.name}")
        a, b = self.fresh(), self.fresh()
        self.emit(f"{a}, {b} = {_strip(self.expr((), 1))}, {_strip(self.expr((), 1))}")
        self.scope[a], self.scope[b] = Var(a), Var(b)

    def unpack_call(self):
        helper = self.pick([h for h in self.helpers if len(h.returns) == 2])
        names = [self.fresh() for _ in helper.returns]
        self.emit(f"{', '.join(names)} = {self.call(helper, 1)}")
        for name, shape in zip(names, helper.returns):
            self.scope[name] = Var(name, shape)

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
            return ", ".join(_fresh(self.expr(s, 1), s) for s in self.returns)
        live = self.floats()[::-1][:self.choose(1, 3)]
        parts = [v.name if v.shape == () else
                 self.pick(["np.sum({})", "np.sum(np.sin({}))", "np.sum({0} * {0})"])
                 .format(v.name) for v in live]
        return " + ".join(parts) if parts else "0.0"


def _size(shape):
    return 1 if shape == () else shape[0] * (shape[1] if len(shape) > 1 else 1)


def _array(values, shape):
    import numpy
    return numpy.array(values).reshape(shape)


def _broadcasts(small, big):
    return small == big or small == () or (small == (3,) and big == (2, 3))


def _fresh(text, shape):
    """`text` as a value of its own: an array that may be another name's (a bare name, a view,
    a conditional expression) is copied, so writing into it in place changes nothing else."""
    text = _strip(text)
    node = ast.parse(text, mode="eval").body
    while isinstance(node, ast.Subscript):
        node = node.value
    view = isinstance(node, ast.Call) and ast.unparse(node.func) == "np.flip"
    if shape == () or not (view or isinstance(node, (ast.Name, ast.IfExp))):
        return text
    return f"({text}).copy()" if isinstance(node, ast.IfExp) else f"{text}.copy()"


def _strip(text):
    """Drop a redundant pair of outer parentheses."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for k, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and k < len(text) - 1:
            return text
    return text[1:-1]
