"""The expressions of fuzzgen's programs: typed by shape, built from draws.

`Expressions.expr(shape)` writes an expression of a shape among SHAPES from the variables in
scope: atoms (names, constants, subscripts, slices, integer-array reads), NumPy and `math`
functions smooth on the whole real line (one `{}` each, so no compound operand is repeated),
arithmetic with broadcasting, `**` with float and data exponents, reductions, products and shape
functions, conditional expressions, calls to helpers, and kinks (`abs`, `maximum`, `clip`,
`np.max`, `norm`) that fuzzcheck.py keeps inputs away from. `condition()` writes a test on data
(fuzzcheck rejects inputs within 1e-3 of its threshold) or on ints.
"""
import ast

SHAPES = ((), (2,), (3,), (2, 3))
SIZE = {(2,): 2, (3,): 3}

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


class Expressions:
    """Scope queries and expressions; fuzzgen.Builder adds statements. `choose(lo, hi)` returns
    an int in [lo, hi], `span(make)` returns `make()` with its draws grouped for the shrinker;
    `scope` maps names to fuzzgen.Var, `helpers` lists the fuzzgen.Helper defined before."""

    def __init__(self, choose, span, helpers):
        self.choose = choose
        self.span = span
        self.helpers = helpers
        self.scope = {}
        self.fixed = set()              # never rebound: loop variables, counters, n
        self.frozen = set()             # never written in place: what a loop variable aliases
        self.constants = []             # module-level numbers (s2sad inlines them)

    # ---- choices and the scope -------------------------------------------------------------

    def pick(self, options):
        return options[self.choose(0, len(options) - 1)]

    def pick_call(self, options):
        """Call one of `options` (functions): only the chosen one draws."""
        return self.pick(options)()

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
        return self.pick([shape] + [s for s in SHAPES if s != shape and broadcasts(s, shape)])

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
        if helper.recursive:
            args.append(str(self.choose(0, 3)))         # its depth
        elif len(args) > 1 and self.choose(0, 2) == 0:  # the last one by keyword
            args[-1] = f"{helper.params[-1][0]}={strip(args[-1])}"
        return f"{helper.name}({', '.join(strip(a) for a in args)})"

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
        if not names(left) - {"np", "math"} - set(self.constants):
            left = self.atom_of_data()  # Numba prunes a constant test: a known bug (corpus)
        return f"{left} {self.pick(['>', '<', '>=', '<='])} {self.const(-10, 10)}"

    def atom_of_data(self):
        """A scalar read from a variable (every function has a float parameter in scope)."""
        options = [lambda v=v: v.name if v.shape == () else
                   f"{v.name}[{', '.join(self.index(n) for n in v.shape)}]"
                   for v in self.floats()]
        return self.pick_call(options)

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


def names(text):
    return {n.id for n in ast.walk(ast.parse(text, mode="eval")) if isinstance(n, ast.Name)}


def broadcasts(small, big):
    return small == big or small == () or (small == (3,) and big == (2, 3))


def fresh_value(text, shape):
    """`text` as a value of its own: an array that may be another name's (a bare name, a view,
    a conditional expression) is copied, so writing into it in place changes nothing else."""
    text = strip(text)
    node = ast.parse(text, mode="eval").body
    while isinstance(node, ast.Subscript):
        node = node.value
    view = isinstance(node, ast.Call) and ast.unparse(node.func) == "np.flip"
    if shape == () or not (view or isinstance(node, (ast.Name, ast.IfExp))):
        return text
    return f"({text}).copy()" if isinstance(node, ast.IfExp) else f"{text}.copy()"


def strip(text):
    """Drop a redundant pair of outer parentheses."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for k, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and k < len(text) - 1:
            return text
    return text[1:-1]
