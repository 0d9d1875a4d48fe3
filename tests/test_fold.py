"""Folding single-use temporaries back into expressions (s2sad/transform/fold.py, issue 18):
what is folded and what is not, the printing it relies on, and gradients unchanged bit for bit,
JIT on and off."""
import ast
import contextlib
import math
import random
import textwrap
import types
import warnings

import astor
import gast
import numpy
import numpy as np
import pytest
from gradcheck import assert_close, finite_difference

import s2sad
from s2sad.transform.emit import printing
from s2sad.transform.tidy import exact, fold, fold_facts
from s2sad.transform import nodes


# ---- the pass on hand-written trees ------------------------------------------------------------

def _tree(source):
    """The FunctionDef of `source`, with each `comment("text")` statement a Comment."""
    function = gast.parse(textwrap.dedent(source)).body[0]
    for node in gast.walk(function):
        for field in ("body", "orelse"):
            statements = getattr(node, field, None)
            if isinstance(statements, list):
                statements[:] = [
                    nodes.Comment(s.value.args[0].value)
                    if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) and
                    getattr(s.value.func, "id", None) == "comment" else s for s in statements]
    return function


def folded(source, owners=()):
    """The printed text of `source`'s function after folding (emit proves the printing)."""
    return printing.function_source(fold.fold(_tree(source), owners))


def same(source, expected, owners=()):
    assert folded(source, owners).strip() == textwrap.dedent(expected).strip()


def unchanged(source, owners=()):
    same(source, printing.function_source(_tree(source)), owners)


def test_a_statement_reads_as_written():
    same("""
        def f(alpha, beta, u, w):
            comment("k1u = alpha * u - beta * u * w   [problems.py:82]")
            _t0 = alpha * u
            _t1 = beta * u
            _t2 = _t1 * w
            k1u = _t0 - _t2
            return k1u
        """, """
        def f(alpha, beta, u, w):
            # k1u = alpha * u - beta * u * w   [problems.py:82]
            k1u = alpha * u - beta * u * w
            return k1u
        """)


def test_adjoints_fold_into_in_place_accumulation():
    same("""
        def f(dforce, damping, dv, i):
            d_t11 = -dforce
            d_t10 = d_t11 * damping
            dv[i] += d_t10
            return dv
        """, """
        def f(dforce, damping, dv, i):
            dv[i] += -dforce * damping
            return dv
        """)


def test_precedence_is_kept_by_parentheses():
    same("""
        def f(a, b, c, x):
            _t0 = -x
            y1 = _t0 ** 2
            _t2 = b - c
            y2 = a - _t2
            _t4 = a ** b
            y3 = _t4 ** c
            _t6 = b * c
            y4 = a / _t6
            _t8 = a < b
            y5 = _t8 < c
            _t10 = a + b
            y6 = _t10.shape
            _t12 = x @ x
            y7 = x @ _t12
            _t14 = -a
            y8 = -_t14
            return y1, y2, y3, y4, y5, y6, y7, y8
        """, """
        def f(a, b, c, x):
            y1 = (-x) ** 2
            y2 = a - (b - c)
            y3 = (a ** b) ** c
            y4 = a / (b * c)
            y5 = (a < b) < c
            y6 = (a + b).shape
            y7 = x @ (x @ x)
            y8 = --a
            return y1, y2, y3, y4, y5, y6, y7, y8
        """)


def test_a_temporary_read_twice_is_kept():
    same("""
        def f(a, b):
            _t0 = a * b
            _t1 = _t0 + _t0
            y = _t1
            return y
        """, """
        def f(a, b):
            _t0 = a * b
            y = _t0 + _t0
            return y
        """)


def test_a_kept_value_is_not_folded():
    unchanged("""
        def f(a, b, n):
            _stack__t0 = numpy.empty(n)
            for t in range(n):
                _t0 = a * b
                _stack__t0[t] = _t0
            for t in range(n - 1, -1, -1):
                _t0 = _stack__t0[t]
                b = b + _t0
            return b
        """)
    unchanged("""
        def f(a, b, n):
            _stack__t0 = []
            _t0 = a * b
            _stack__t0.append(_t0)
            return _stack__t0
        """)


def test_nothing_crosses_a_comment():
    unchanged("""
        def f(a, b):
            comment("y = a * b   [m.py:2]")
            _t0 = a * b
            comment("z = y + 1   [m.py:3]")
            z = _t0 + 1
            return z
        """)


def test_an_array_written_in_place_in_between_is_not_read_later():
    unchanged("""
        def f(x):
            _t0 = x[0]
            x[0] = 5.0
            y = _t0 + 1.0
            return y
        """)
    # through another name that may hold the same array
    unchanged("""
        def f(x, z):
            _t0 = x * 2.0
            z[0] = 5.0
            y = _t0 + 1.0
            return y
        """)
    unchanged("""
        def f(x, z):
            _t0 = x * 2.0
            z += 1.0
            y = _t0 + 1.0
            return y
        """)


def test_a_write_into_a_private_tape_is_no_barrier():
    same("""
        def f(a, u, n):
            _trips0 = len(range(n))
            _stack_u = numpy.empty(_trips0)
            for t in range(n):
                _t0 = a * u
                _stack_u[t] = u
                u = _t0 + 1.0
            return u
        """, """
        def f(a, u, n):
            _trips0 = len(range(n))
            _stack_u = numpy.empty(_trips0)
            for t in range(n):
                _stack_u[t] = u
                u = a * u + 1.0
            return u
        """)
    # ... unless the value reads the tape
    unchanged("""
        def f(a, u, n):
            _trips0 = len(range(n))
            _stack_u = numpy.empty(_trips0)
            for t in range(n):
                _t0 = _stack_u[t]
                _stack_u[t] = u
                u = _t0 + 1.0
            return u
        """)
    # a tape of unknown dimensions, or read as a row (a view), is not private
    unchanged("""
        def f(a, u, n):
            _stack_u = numpy.empty(n)
            for t in range(n):
                _t0 = a * u
                _stack_u[t] = u
                u = _t0 + 1.0
            return u
        """)
    unchanged("""
        def f(a, u, n):
            _trips0 = len(range(n))
            _stack_u = numpy.empty((_trips0, 3))
            v = _stack_u[0]
            _t0 = v * 2.0
            _stack_u[0, 1] = u
            u = _t0 + 1.0
            return u
        """)


def test_an_array_in_a_list_may_change_in_place():
    unchanged("""
        def f(a, n):
            _stack_a = []
            _stack_a.append(a)
            y = _stack_a[0]
            _t0 = y * 2.0
            _stack_a[0] += 1.0
            z = _t0 + 1.0
            return z
        """)
    # pushing and popping changes the list only
    same("""
        def f(a, n):
            _stack_a = []
            _t0 = a * 2.0
            _stack_a.append(a)
            z = _t0 + 1.0
            a = _stack_a.pop()
            return z, a
        """, """
        def f(a, n):
            _stack_a = []
            _stack_a.append(a)
            z = a * 2.0 + 1.0
            a = _stack_a.pop()
            return z, a
        """)


def test_an_accumulated_gradient_is_private():
    source = """
        def f(g, x, dx):
            dw = rt.zeros_like(x)
            d_t0 = g * x
            dw += g
            dx = dx + d_t0
            return dw, dx
        """
    unchanged(source)
    same(source, """
        def f(g, x, dx):
            dw = rt.zeros_like(x)
            dw += g
            dx = dx + g * x
            return dw, dx
        """, owners={"dw"})


def test_rebinding_a_name_read_stops_the_fold():
    unchanged("""
        def f(a, b):
            _t0 = a * b
            a = 3.0
            y = _t0 + a
            return y
        """)


def test_only_into_plain_positions():
    same("""
        def f(x, i):
            _t0 = i + 1
            x[_t0] = 3.0
            return x
        """, """
        def f(x, i):
            x[i + 1] = 3.0
            return x
        """)  # an index of names and numbers: the same number wherever it is evaluated
    unchanged("""
        def f(x, idx, k):
            _t0 = idx[k]
            x[_t0] = 3.0
            return x
        """)
    same("""
        def f(x, n):
            _t0 = n * 2
            for i in range(_t0):
                x = x + 1.0
            return x
        """, """
        def f(x, n):
            for i in range(n * 2):
                x = x + 1.0
            return x
        """)  # a `for` loop's iterable is evaluated once, before the loop
    unchanged("""
        def f(x, n):
            _t0 = n * 2
            for i in range(n):
                x = x + _t0
            return x
        """)  # (its body runs again and again)
    unchanged("""
        def f(x, n):
            _t0 = n * 2
            while x < _t0:
                x = x + 1.0
            return x
        """)
    unchanged("""
        def f(a, b):
            _t0 = a > b
            if _t0:
                a = b
            return a
        """)
    unchanged("""
        def f(a, b, c):
            _t0 = a * b
            if c:
                a = _t0
            return a
        """)
    unchanged("""
        def f(a, r):
            _t0 = a * 2.0
            y = [_t0 + k for k in r]
            return y
        """)
    unchanged("""
        def f(a, c, d):
            _t0 = a * 2.0
            y = c if d else _t0
            return y
        """)


def test_only_pure_expressions_move():
    unchanged("""
        def f(a):
            _t0 = g(a)
            y = _t0 + 1.0
            return y
        """)
    unchanged("""
        def f(a, s):
            _t0 = s.pop()
            y = _t0 + 1.0
            return y
        """)
    unchanged("""
        def f(a, b):
            _t0 = a * b
            g(b)
            y = _t0 + 1.0
            return y
        """)
    unchanged("""
        def f(a, b):
            _t0 = numpy.add(a, b, out=a)
            y = _t0 + 1.0
            return y
        """)
    unchanged("""
        def f(a, b, c):
            _t0 = numpy.add(a, b, c)
            _t1 = numpy.dot(a, b, c)
            y = _t0 + _t1
            return y
        """)
    same("""
        def f(a, b):
            _t0 = numpy.sin(a)
            _t1 = math.cos(b)
            _t2 = rt.unbroadcast(b, a)
            y = _t0 + _t1 * _t2
            return y
        """, """
        def f(a, b):
            y = numpy.sin(a) + math.cos(b) * rt.unbroadcast(b, a)
            return y
        """)


def test_only_the_transformers_names():
    unchanged("""
        def f(a, b):
            t0 = a * b
            _x_0 = a * b
            d_x = t0 + _x_0
            y = d_x + 1.0
            return y
        """)


def test_no_call_runs_before_the_value_in_its_reader():
    unchanged("""
        def f(a, b):
            _t0 = a * b
            y = g(b) + _t0
            return y
        """)
    same("""
        def f(a, b):
            _t0 = a * b
            y = g(b, _t0)
            return y
        """, """
        def f(a, b):
            y = g(b, a * b)
            return y
        """)


def _numbers(source, *names):
    """`source`'s tree with the definitions of `names` marked as numbers (adjoints.py)."""
    function = _tree(source)
    for statement in function.body:
        if isinstance(statement, gast.Assign) and statement.targets[0].id in names:
            statement.s2sad_scalar = True
    return printing.function_source(fold.fold(function)).strip()


def test_a_product_of_numbers_folds_past_writes_into_arrays():
    source = """
        def f(g, s, dx, i):
            d_t0 = g * s
            dx[i] -= g
            dx[i + 1] += g
            dx[i + 2] += d_t0
            return dx
        """
    unchanged(source)   # not shown to be numbers: dx might share g's or s's memory
    assert _numbers(source, "d_t0") == textwrap.dedent("""
        def f(g, s, dx, i):
            dx[i] -= g
            dx[i + 1] += g
            dx[i + 2] += g * s
            return dx""").strip()
    rebound = source.replace("dx[i] -= g", "s = 2.0")
    assert "d_t0 = g * s" in _numbers(rebound, "d_t0")   # binding a name it reads stops it


def test_a_product_of_numbers_read_twice_folds_into_both_reads():
    source = """
        def f(g, w, u, c, a, b):
            d_t0 = g * w
            a = a + d_t0 * u
            b = d_t0 * c
            return a, b
        """
    unchanged(source)   # read twice: only a marked number is repeated
    assert _numbers(source, "d_t0") == textwrap.dedent("""
        def f(g, w, u, c, a, b):
            a = a + g * w * u
            b = g * w * c
            return a, b""").strip()
    rebound = source.replace("b = d_t0 * c", "w = 1.0\n            b = d_t0 * c")
    assert "d_t0 = g * w" in _numbers(rebound, "d_t0")


# ---- exact.py: signs and doublings rewritten to the same bits -----------------------------------

@pytest.mark.parametrize("before, after", [
    ("y = a + -b * c", "y = a - b * c"),
    ("y = a - -b", "y = a + b"),
    ("y = a + -b * c * d", "y = a - b * c * d"),      # the sign two products deep
    ("y = a + b * -c * d", "y = a - b * c * d"),
    ("y = a + -b * c + d * e", "y = a - b * c + d * e"),
    ("y = --a * b", "y = a * b"),
    ("y = a * b + a * b", "y = 2 * (a * b)"),
    ("y = a + b * (-c + d)", "y = a + b * (-c + d)"),   # a sum inside: not one signed term
])
def test_exact_rewrites_give_the_same_bits(before, after):
    tree = gast.parse(before).body[0]
    rewritten = exact.after_folding(tree)
    assert astor.to_source(gast.gast_to_ast(rewritten)).strip() == after
    rng = random.Random(7)
    for _ in range(200):
        values = {k: rng.uniform(-1e3, 1e3) * 10 ** rng.randint(-8, 8) for k in "abcde"}
        old, new = dict(values), dict(values)
        exec(before, {}, old)
        exec(after, {}, new)
        assert math.copysign(1.0, old["y"]) == math.copysign(1.0, new["y"]) and \
            (old["y"] == new["y"]), (values, old["y"], new["y"])


# ---- random expressions: folding rebuilds them exactly -----------------------------------------

_OPERATORS = [gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow]
_CALLS = [("numpy", "sin"), ("numpy", "exp"), ("math", "cos"), ("numpy", "tanh")]


def _random_expression(rng, depth):
    if depth == 0 or rng.random() < 0.2:
        if rng.random() < 0.25:
            return gast.Constant(rng.choice([0.5, 2, 3.0, 1]), None)
        return nodes.name(rng.choice("abc"))
    kind = rng.random()
    if kind < 0.6:
        return gast.BinOp(_random_expression(rng, depth - 1), rng.choice(_OPERATORS)(),
                          _random_expression(rng, depth - 1))
    if kind < 0.8:
        return gast.UnaryOp(rng.choice([gast.USub, gast.UAdd])(),
                            _random_expression(rng, depth - 1))
    module, function = rng.choice(_CALLS)
    return nodes.call(f"{module}.{function}", _random_expression(rng, depth - 1))


def _anf(expression, statements, counter):
    """`expression` as one operation per statement (as normalize.py makes it)."""
    if isinstance(expression, (gast.Name, gast.Constant)):
        return expression
    if isinstance(expression, gast.BinOp):
        expression = gast.BinOp(_anf(expression.left, statements, counter), expression.op,
                                _anf(expression.right, statements, counter))
    elif isinstance(expression, gast.UnaryOp):
        expression = gast.UnaryOp(expression.op, _anf(expression.operand, statements, counter))
    else:
        expression = gast.Call(expression.func, [_anf(expression.args[0], statements, counter)],
                               [])
    name = f"_t{len(counter)}"
    counter.append(name)
    statements.append(nodes.assign(name, expression))
    return nodes.name(name)


def _function(body):
    return gast.FunctionDef("f", gast.arguments(
        [nodes.name(p) for p in "abc"], [], None, [], [], None, []), body, [], None, None)


def _run(function, args):
    module = ast.Module([gast.gast_to_ast(function)], [])
    namespace = {"numpy": numpy, "math": math}
    exec(compile(ast.fix_missing_locations(module), "<fold>", "exec"), namespace)
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return repr(namespace["f"](*args))
        except (OverflowError, ValueError, ZeroDivisionError) as error:
            return type(error).__name__


@pytest.mark.parametrize("seed", range(40))
def test_random_expressions_fold_back_to_themselves(seed, monkeypatch):
    monkeypatch.setattr(fold, "WIDTH", 10 ** 6)  # (long lines are kept in several statements)
    rng = random.Random(seed)
    expression = _random_expression(rng, 5)
    statements, counter = [], []
    result = _anf(nodes.clone(expression), statements, counter)
    unfolded = _function(statements + [gast.Return(result)])
    text_before = printing.function_source(unfolded)
    function = fold.fold(_function(nodes.clone(statements) + [gast.Return(nodes.clone(result))]))
    printing.function_source(function)  # prints and parses back to the same tree
    # each temporary is read once, by the next operation: the expression comes back as it was
    assert len(function.body) == 1, text_before
    assert ast.dump(gast.gast_to_ast(function.body[0].value)) == \
        ast.dump(gast.gast_to_ast(expression)), text_before
    for args in [(0.3, -1.7, 2.5), (np.float64(-0.4), np.float64(1.3), np.float64(0.0))]:
        assert _run(function, args) == _run(unfolded, args)


@pytest.mark.parametrize("seed", range(5))
def test_same_says_what_comparing_dumps_says(seed):
    """nodes.same stands in for `gast.dump(a) == gast.dump(b)` (exact.py, printing.py, ...)."""
    rng = random.Random(seed)
    trees = [_random_expression(rng, 3) for _ in range(30)]
    trees += [nodes.clone(t) for t in trees[:10]]
    trees += [gast.Constant(v, None) for v in (1, 1.0, True, -0.0, 0.0, float("nan"), "1")]
    trees += [nodes.name("a", store=True), nodes.name("a")]
    for a in trees:
        for b in trees:
            assert nodes.same(a, b) == (gast.dump(a) == gast.dump(b)), (gast.dump(a),
                                                                        gast.dump(b))


def test_a_printing_that_does_not_parse_back_is_an_internal_error():
    function = _function([gast.Return(gast.BinOp(gast.BinOp(
        nodes.name("a"), gast.Sub(), nodes.name("b")), gast.Sub(), nodes.name("c")))])
    tree = gast.gast_to_ast(function)
    printing._check_round_trip("def f(a, b, c):\n    return a - b - c\n", tree)
    with pytest.raises(s2sad.errors.InternalError):
        printing._check_round_trip("def f(a, b, c):\n    return a - (b - c)\n", tree)


# ---- gradients: the same numbers, bit for bit, as without folding ------------------------------

def simple(x, y):
    return x * y + numpy.sin(x)


def loop(x, a, n):
    s = 0.0
    for i in range(n):
        x = a * math.sin(x) + 0.1 * x
        s = s + x * x
    return s


def signs(x, c):
    return (-x) ** 3 - (x - (2.0 - c)) * x / (x * x + 1.0) + x ** -2.0


def arrays(x, w):
    y = np.tanh(w * x + 1.0)
    z = np.zeros(3)
    for i in range(3):
        z[i] = x[i] * x[i] - (x[i] - 1.0) * w
        if z[i] > 0.5:
            z[i] = z[i] * 2.0 - y[i]
    return np.sum(y * y - 0.5 * x) + np.sum(z * x)


CASES = [(simple, (0.7, 1.3), (0, 1)), (loop, (0.3, 0.9, 20), (0, 1)),
         (signs, (0.8, 0.3), (0, 1)), (arrays, (np.array([0.3, 1.2, -0.4]), 0.7), (0, 1))]


def _copy(func):
    return types.FunctionType(func.__code__, func.__globals__, func.__name__,
                              func.__defaults__, func.__closure__)


@contextlib.contextmanager
def _without_folding(monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr(fold, "fold", lambda function, owners=(): function)
        patch.setenv("S2SAD_INDEX", "0")  # an index of generated files must not answer
        yield


@pytest.mark.parametrize("jit", [False, True], ids=["python", "numba"])
@pytest.mark.parametrize("func, args, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradients_are_unchanged_bit_for_bit(func, args, wrt, jit, monkeypatch):
    copy = _copy(func)
    with _without_folding(monkeypatch):
        unfolded = s2sad.value_and_grad(copy, wrt=wrt, jit=jit)
        before = unfolded(*args)
    folded_gradient = s2sad.value_and_grad(func, wrt=wrt, jit=jit)
    after = folded_gradient(*args)
    assert folded_gradient.source != unfolded.source
    assert len(folded_gradient.source.splitlines()) < len(unfolded.source.splitlines())
    assert np.array_equal(before[0], after[0])
    for b, a in zip(before[1], after[1]):
        assert np.array_equal(b, a)
    for k, position in enumerate(wrt):
        assert_close(after[1][k], finite_difference(func, args, position),
                     what=f"{func.__name__} d/d{position}")


def test_a_simple_gradient_reads_like_its_source():
    gradient = s2sad.grad(simple, wrt=(0, 1), jit=False)
    gradient(0.7, 1.3)
    text = s2sad.source(gradient)
    assert " = x * y + numpy.sin(x)\n" in text
    code = [line for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith(("#", "import", "from"))]
    # def, the value, the gradient of sin, of the product (x and y), return
    assert len(code) <= 7, text
    assert not any(line.lstrip().startswith(("_t0 =", "_t1 =", "d_t")) for line in code), text


@pytest.mark.parametrize("seed", range(20))
def test_widths_are_astors(seed):
    """The width fold.py reckons for a statement is what astor prints (folds that would make a
    line astor wraps are not made)."""
    rng = random.Random(seed)
    statement = nodes.assign("y", _random_expression(rng, 3))
    printed = astor.to_source(gast.gast_to_ast(statement)).rstrip("\n")
    if "\n" not in printed:
        assert fold_facts.statement_width(statement) == len(printed)


def test_a_fold_making_a_long_line_is_not_made():
    source = """
        def f(alpha_long_name, beta_long_name, gamma_long_name, delta_long_name):
            _t0 = alpha_long_name * beta_long_name
            _t1 = gamma_long_name * delta_long_name
            result_with_a_name = _t0 - _t1
            return result_with_a_name
        """
    same(source, """
        def f(alpha_long_name, beta_long_name, gamma_long_name, delta_long_name):
            _t1 = gamma_long_name * delta_long_name
            result_with_a_name = alpha_long_name * beta_long_name - _t1
            return result_with_a_name
        """)


def test_a_value_computed_again_is_folded_at_each_computation():
    same("""
        def f(h, d, n):
            _t0 = h / 6.0
            y = d * _t0
            for t in range(n):
                _t0 = h / 6.0
                y = y * _t0
            return y
        """, """
        def f(h, d, n):
            y = d * (h / 6.0)
            for t in range(n):
                y = y * (h / 6.0)
            return y
        """)


def test_a_value_carried_to_the_next_iteration_is_not_folded():
    unchanged("""
        def f(h, n):
            _t0 = h
            for t in range(n):
                y = _t0 * 2.0
                _t0 = y + 1.0
            return _t0
        """)
    unchanged("""
        def f(h, n):
            for t in range(n):
                _t0 = h * 2.0
                y = _t0 + 1.0
            return _t0
        """)  # read after the loop too: the last assignment has two reads in all


def test_one_blocks_contributions_to_a_gradient_are_one_sum():
    same("""
        def f(a, b, c, dw):
            dw4 = a * b
            d_t1 = c * 2.0
            dw4 = dw4 + d_t1 * a
            dw = dw + dw4
            return dw
        """, """
        def f(a, b, c, dw):
            dw4 = a * b + c * 2.0 * a
            dw = dw + dw4
            return dw
        """)
    unchanged("""
        def f(a, b, dw, dx):
            dw = dw + a
            comment("grad of: y = x * w   [m.py:3]")
            dw = dw + b
            return dw
        """)  # another block: each keeps its own line
    unchanged("""
        def f(a, b, dw, dx, i):
            dx = dx + dw[i]
            dw[i] += a
            dx = dx + b
            return dx
        """)  # what the first part reads changes in between
