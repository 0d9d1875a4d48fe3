"""What users will throw at s2sad, and what must come out of it (tests/test_bad_input.py).

Each Case is a small module: HEADER on line 1, then `source` from line 2, then

    def run():
        return <call>

on the last two lines. `run()` must raise `error` (an s2sad error) whose message contains every
fragment, with `count` diagnostics, the first at `at` = (line, column) as printed (1-based;
CALL: the `return <call>` line, column 12, for errors about how s2sad was called). A Case with
`expect` is accepted by design: `run()` must return what `expect` evaluates to (in the module),
with the warning `warns` if given. `edit` = (old, new) is applied to the file after it was
imported (a file changed under a running program).
"""
import dataclasses

import s2sad

HEADER = "import functools, math; import numpy as np; import s2sad  # noqa"
CALL = "call"        # `at` for errors located at the user's call into s2sad
CALL_COLUMN = 12


@dataclasses.dataclass
class Case:
    name: str
    source: str
    call: str = "s2sad.grad(f, jit=False)(1.5)"
    error: type = s2sad.UnsupportedError
    fragments: tuple = ()
    at: object = None            # (line, column) of the first diagnostic, or CALL
    count: int = 1               # diagnostics, all reported at once
    caret: bool = True           # False: there is no source line to show
    expect: str = None           # accepted input: the right result, a Python expression
    warns: type = None
    edit: tuple = None


def accepted(name, source, call, expect, warns=None):
    return Case(name, source, call, error=None, expect=expect, warns=warns)


CASES = [
    # ---- syntax s2sad does not differentiate -----------------------------------------------
    Case("class_definition", """
def f(x):
    class Box:
        pass
    return x
""", fragments=("not supported yet: class definitions",), at=(3, 5)),
    Case("generator_yield", """
def f(x):
    yield x
    return x
""", fragments=("not supported here: `yield` (generators)",), at=(3, 5)),
    Case("generator_yield_from", """
def f(x):
    yield from [x]
    return x
""", fragments=("`yield from` (generators)",), at=(3, 5)),
    Case("yield_as_value", """
def f(x):
    y = yield x
    return y
""", fragments=("`yield` (generators)",), at=(3, 9)),
    Case("async_def_with_await", """
async def f(x):
    y = await x
    return y
""", fragments=("cannot differentiate an async function", "returns a coroutine"),
         at=(2, 1)),
    Case("global_write", """
COUNT = 0
def f(x):
    global COUNT
    COUNT = COUNT + 1
    return x * 2.0
""", fragments=("not supported yet: `global` declarations",), at=(4, 5)),
    Case("try_except", """
def f(x):
    try:
        y = x * 2.0
    except ValueError:
        y = x
    return y
""", fragments=("a `try` whose body may raise an exception that a handler catches",),
         at=(3, 5)),
    Case("with_other_context_manager", """
def f(x):
    with open("data.txt") as handle:
        y = x
    return y
""", fragments=("the only supported `with` statement is `with s2sad.grad_of(x) as dx:`",
                "move other context managers out"), at=(3, 5)),
    Case("with_grad_of_two_items", """
def f(x):
    with s2sad.grad_of(x) as dx, open("log") as log:
        dx = dx * 2.0
    return x
""", fragments=("the only supported `with` statement",), at=(3, 5)),
    Case("match_statement", """
def f(x):
    match x:
        case 1.0:
            y = x
        case _:
            y = 2.0 * x
    return y
""", fragments=("not supported yet: `match` statements",), at=(3, 5)),
    Case("lambda_passed_to_a_library_function", """
def f(x):
    return np.sum(np.apply_along_axis(lambda v: v * v, 0, x))
""", call="s2sad.grad(f, jit=False)(np.ones(3))",
         fragments=("this lambda is passed to a function that is not yours",), at=(3, 39)),
    Case("kwargs_parameter", """
def f(x, **options):
    return x * 2.0
""", call="s2sad.grad(f)", fragments=("functions with **kwargs are not supported",),
         at=(2, 12)),
    Case("star_args_in_call", """
def f(x):
    return np.add(*x.shape) * x
""", call="s2sad.grad(f, jit=False)(np.ones((2, 3)))",
         fragments=("`*` in a call needs a tuple or list known when the function is "
                    "transformed",), at=(3, 19)),
    Case("double_star_in_call", """
def g(x, scale=1.0):
    return x * scale
def f(x, options):
    return g(x, **x)
""", call="s2sad.grad(f, jit=False)(1.5, {})",
         fragments=("`**` in a call needs a dict known when the function is transformed",),
         at=(5, 19)),
    Case("starred_assignment", """
def f(x):
    first, *rest = x
    return first
""", call="s2sad.grad(f, jit=False)(np.ones(3))",
         fragments=("starred assignment needs a tuple or list known", "x[0], x[1:]"),
         at=(3, 5)),
    Case("list_grown_in_a_while_loop", """
def f(x):
    out = []
    while len(out) < 3:
        out.append(x * 2.0)
    return np.sum(np.stack(out))
""", call="s2sad.grad(f, jit=False)(np.ones(3))",
         fragments=("grows in a loop whose trip count is known only when the function runs, "
                    "a `while` loop", "preallocate an array"), at=(5, 9)),
    Case("set_comprehension", """
def f(x):
    table = {"a": x}
    squares = {v * v for v in table.values()}
    return x
""", fragments=("set comprehensions",), at=(4, 15)),
    Case("set_display", """
def f(x):
    seen = {x}
    return x
""", fragments=("set displays",), at=(3, 12)),
    Case("walrus", """
def f(x):
    return (y := x * 2.0) + y
""", fragments=("assignment expressions (`:=`)",), at=(3, 13)),
    Case("bare_raise_del_import_at_once", """
def f(x):
    if x > 10.0:
        raise
    y = x
    del y[0]
    import os
    return x
""", fragments=("only `raise SomeError(...)`", "`del`", "imports inside the function"),
         at=(4, 9), count=3),
    Case("bare_call_statement", """
def f(x):
    np.sin(x)
    return x * 2.0
""", fragments=("a bare call of a function that is not yours is not supported",
                "assign its result to a variable"), at=(3, 5)),
    Case("annotated_assignment", """
def f(x: float) -> float:
    y: float
    y = x * 2.0
    return y
""", fragments=("annotated assignments",), at=(3, 5)),
    Case("bit_operators", """
def f(x, n):
    return x * (n & 1) + ~n
""", call="s2sad.grad(f, jit=False)(1.5, 3)",
         fragments=("the operator `&` is not supported", "the unary operator `~`"),
         at=(3, 17), count=2),
    Case("complex_literal", """
def f(x):
    return x * 1j
""", fragments=("complex numbers are not supported",), at=(3, 16)),
    Case("no_return", """
def f(x):
    y = x * 2.0
""", fragments=("can end without a `return`",), at=(2, 1)),
    Case("bare_return", """
def f(x):
    if x > 0.0:
        return
    return x
""", fragments=("`return` without a value",), at=(4, 9)),
    Case("chained_index_assignment", """
def f(x):
    a = np.zeros((2, 2))
    a[0][1] = x
    return np.sum(a)
""", fragments=("assignment into an indexed value", "index once: a[i, j] = v"), at=(4, 5)),
    Case("attribute_assignment", """
def f(x, box):
    box.value = x
    return x
""", call="s2sad.grad(f, jit=False)(1.5, None)",
         fragments=("assignment to an attribute",), at=(3, 5)),
    Case("every_violation_at_once", """
def f(x):
    with open("log") as log:
        y = x
    z = [v for v in x]
    w = x << 2
    return (lambda v: v)(y)
""", call="s2sad.grad(f, jit=False)(np.ones(2))",
         fragments=("4 problems found:", "`with`", "`<<`", "only calls of named functions",
                    "lambda expressions"), at=(3, 5), count=4),

    # ---- names and values s2sad cannot use ------------------------------------------------
    Case("global_array_mutated", """
WEIGHTS = np.zeros(3)
def f(x):
    WEIGHTS[0] = x
    return x * 2.0
""", fragments=("writes into the module constant 'WEIGHTS'", "write into a copy"),
         at=(4, 5)),
    Case("undefined_name", """
def f(x):
    return x * SCALE
""", fragments=("name 'SCALE' is not defined",), at=(3, 16)),
    Case("missing_module_attribute", """
def f(x):
    return np.sine(x)
""", fragments=("'np.sine' does not exist", "'np' has no attribute 'sine'"), at=(3, 12)),
    Case("calling_a_parameter", """
def f(x, g):
    return g(x)
""", call="s2sad.grad(f, jit=False)(1.5, 2.0)",
         fragments=("cannot call the local variable 'g'",), at=(3, 12)),
    Case("object_attribute", """
def f(x, settings):
    return x * settings.scale
""", call="s2sad.grad(f, jit=False)(1.5, None)",
         fragments=("the array attribute `.scale` is not supported",), at=(3, 16)),
    Case("object_method", """
def f(x, model):
    return model.predict(x)
""", call="s2sad.grad(f, jit=False)(1.5, None)",
         fragments=("the array method `.predict(...)` is not supported",), at=(3, 12)),
    Case("recursion_without_base_case", """
def f(x):
    y = x * 0.5
    return f(y) + 1.0
""", fragments=("'f' calls itself on every path: the recursion has no base case",
                "a base case"), at=(4, 12)),
    Case("recursion_without_base_case_in_branches", """
def f(x, n):
    if n > 0:
        return f(x * 0.5, n - 1)
    else:
        return f(x * 2.0, n + 1)
""", call="s2sad.grad(f, jit=False)(1.5, 3)", fragments=("has no base case",), at=(4, 16)),
    Case("recursion_never_reaching_its_base_case", """
def f(x):
    if x < 0.0:
        return x
    return f(x + 1.0)
""", error=s2sad.UserError,
         fragments=("the gradient of f recursed deeper than Python allows",
                    "does not reach its base case"), at=(5, 5)),

    # ---- functions s2sad cannot read ----------------------------------------------------
    Case("builtin_len", "", call="s2sad.grad(len)", error=s2sad.ArgumentError,
         fragments=("only differentiate Python functions, not <built-in function len>",),
         at=CALL),
    # (math.sin, np.add given to grad have rules: s2sad differentiates a call of them)
    Case("math_floor", "", call="s2sad.grad(math.floor)(0.5)", error=s2sad.ArgumentError,
         fragments=("not <built-in function floor>", "wrap the call in a `def`"), at=CALL),
    Case("numpy_ufunc", "", call="s2sad.grad(np.floor_divide)(0.5, 1.0)",
         error=s2sad.ArgumentError, fragments=("not <ufunc 'floor_divide'>",), at=CALL),
    Case("partial_of_a_ufunc", "",
         call="s2sad.grad(functools.partial(np.floor_divide, 1.0))(0.5)",
         error=s2sad.ArgumentError, fragments=("not <ufunc 'floor_divide'>",), at=CALL),
    Case("defined_by_exec", """
namespace = {}
exec("def f(x):\\n    return x * 2.0\\n", namespace)
f = namespace["f"]
""", fragments=("cannot read the source of", "not in a REPL or exec"), at=(1, 1),
         caret=False),
    Case("defined_in_a_repl", """
exec(compile("def f(x):\\n    return x * 2.0\\n", "<stdin>", "exec"))
""", fragments=("cannot read the source of", "define the function with `def` in a .py file"),
         at=(1, 1), caret=False),
    Case("wrapper_decorator", """
def doubled(func):
    @functools.wraps(func)
    def wrapper(x):
        return 2.0 * func(x)
    return wrapper

@doubled
def f(x):
    return x * x
""", fragments=("'f' is a wrapper made by a decorator (functools.wraps)", "__wrapped__"),
         at=(8, 1)),
    Case("file_edited_after_import", """
def f(x):
    return x * 2.0
""", edit=("x * 2.0", "x * 3.0"),
         fragments=("is not the code it runs", "importlib.reload"), at=(2, 1)),
    Case("file_edited_after_import_signature", """
def f(x):
    return x * 2.0
""", edit=("def f(x):", "def f(y):"), fragments=("is not the code it runs",), at=(2, 1)),

    # ---- outputs grad cannot seed ------------------------------------------------------------
    Case("array_output", """
def f(x):
    return x * 2.0
""", call="s2sad.grad(f, jit=False)(np.ones(3))", error=s2sad.OutputError,
         fragments=("f returned an array of shape (3,); grad needs a scalar output",
                    "s2sad.vjp or s2sad.jacobian"), at=(3, 12)),
    Case("array_output_of_several_returns", """
def f(x):
    if np.sum(x) > 0.0:
        return x
    return -x
""", call="s2sad.grad(f, jit=False)(np.ones(3))", error=s2sad.OutputError,
         fragments=("returned an array of shape (3,)",), at=(2, 1)),
    Case("none_output", """
def f(x):
    y = x * 2.0
    return None
""", error=s2sad.OutputError, fragments=("f returned None",), at=(4, 12)),
    Case("string_output", """
def f(x):
    return "done"
""", error=s2sad.OutputError, fragments=("f returned a str",), at=(3, 12)),
    Case("tuple_output", """
def f(x):
    return x, x * 2.0
""", fragments=("'f' returns a tuple; a gradient needs a scalar output",), at=(3, 5)),
    Case("list_output", """
def f(x):
    return [x, x]
""", fragments=("a list display is supported only",), at=(3, 12)),
    Case("hessian_of_array_output", """
def f(x):
    return x * x
""", call="s2sad.hessian(f, jit=False)(np.ones(2))", error=s2sad.OutputError,
         fragments=("f returned an array of shape (2,)",), at=(3, 12)),
    Case("second_derivative_of_array_parameter", """
def f(x):
    return np.sum(x * x)
""", call="s2sad.grad(s2sad.grad(f, jit=False), jit=False)(np.ones(2))",
         error=s2sad.OutputError, fragments=("'x' is an array", "s2sad.hessian(f)"), at=CALL),

    # ---- inputs --------------------------------------------------------------------------
    Case("complex_argument", """
def f(x):
    return x * x
""", call="s2sad.grad(f, jit=False)(1.0 + 2.0j)", error=s2sad.ArgumentError,
         fragments=("argument 'x' is complex", "real and imaginary parts"), at=CALL),
    Case("complex_array_argument", """
def f(x):
    return np.sum(x * x)
""", call="s2sad.grad(f, jit=False)(np.ones(2, dtype=complex))", error=s2sad.ArgumentError,
         fragments=("argument 'x' is a complex array",), at=CALL),
    Case("object_array_argument", """
def f(x):
    return np.sum(x * x)
""", call="s2sad.grad(f, jit=False)(np.array([1.0, None]))", error=s2sad.ArgumentError,
         fragments=("argument 'x' is an object array", "numpy.asarray(..., float)"), at=CALL),
    Case("list_argument_used_as_array", """
def f(x):
    return np.sum(x * x)
""", call="s2sad.grad(f, jit=False)([1.0, [2.0, 3.0]])",
         fragments=("'x' is a list argument, used here as a value", "numpy.asarray"),
         at=(3, 19), count=2),
    Case("none_argument", """
def f(x):
    return x * x
""", call="s2sad.grad(f, jit=False)(None)", error=s2sad.ArgumentError,
         fragments=("argument 'x' is None",), at=CALL),
    Case("string_argument_differentiated", """
def f(x, label):
    return x * x
""", call="s2sad.grad(f, wrt=1, jit=False)(1.5, 'run')", error=s2sad.ArgumentError,
         fragments=("argument 'label' is a str", "leave 'label' out of wrt"), at=CALL),
    Case("bool_argument", """
def f(x):
    return x * x
""", call="s2sad.grad(f, jit=False)(True)", error=s2sad.ArgumentError,
         fragments=("argument 'x' is a bool",), at=CALL),
    Case("several_bad_arguments_at_once", """
def f(x, y):
    return x * y
""", call="s2sad.grad(f, wrt=(0, 1), jit=False)(1j, None)", error=s2sad.ArgumentError,
         fragments=("2 problems found", "'x' is complex", "'y' is None"), at=CALL, count=2),
    Case("too_many_arguments", """
def f(x):
    return x * x
""", call="s2sad.grad(f, jit=False)(1.0, 2.0)", error=s2sad.ArgumentError,
         fragments=("f(): too many positional arguments", "takes (x)"), at=CALL),
    Case("missing_argument", """
def f(x, y):
    return x * y
""", call="s2sad.grad(f, jit=False)(1.0)", error=s2sad.ArgumentError,
         fragments=("f(): missing a required argument: 'y'",), at=CALL),
    Case("unknown_keyword_argument", """
def f(x):
    return x * x
""", call="s2sad.grad(f, jit=False)(1.0, scale=2.0)", error=s2sad.ArgumentError,
         fragments=("unexpected keyword argument 'scale'",), at=CALL),
    Case("wrt_missing_name", """
def f(x, weight):
    return x * weight
""", call="s2sad.grad(f, wrt='wieght')", error=s2sad.ArgumentError,
         fragments=("wrt='wieght' does not name a parameter of f", "did you mean 'weight'?"),
         at=CALL),
    Case("wrt_position_out_of_range", """
def f(x, w):
    return x * w
""", call="s2sad.grad(f, wrt=2)", error=s2sad.ArgumentError,
         fragments=("wrt=2 does not name a parameter", "0 to 1"), at=CALL),
    Case("wrt_negative_position_out_of_range", """
def f(x, w):
    return x * w
""", call="s2sad.grad(f, wrt=(0, -3))", error=s2sad.ArgumentError,
         fragments=("wrt=-3 does not name a parameter",), at=CALL),
    Case("wrt_twice", """
def f(x, w):
    return x * w
""", call="s2sad.jvp(f, wrt=('x', 0))", error=s2sad.ArgumentError,
         fragments=("names the parameter 'x' twice",), at=CALL),
    Case("wrt_empty", """
def f(x, w):
    return x * w
""", call="s2sad.vjp(f, wrt=())", error=s2sad.ArgumentError, fragments=("wrt is empty",),
         at=CALL),
    Case("wrt_count_used_in_range", """
def f(x, n):
    s = 0.0
    for i in range(n):
        s = s + x * i
    return s
""", call="s2sad.grad(f, wrt=(0, 1))(1.5, 3)", error=s2sad.ArgumentError,
         fragments=("'n' is differentiated but used as a count, shape or axis of range(...)",
                    "leave 'n' out of wrt"), at=(4, 14)),
    Case("wrt_index", """
def f(x, i):
    return x[i] * 2.0
""", call="s2sad.grad(f, wrt='i')(np.ones(3), 1)", error=s2sad.ArgumentError,
         fragments=("'i' is differentiated but used as an index",), at=(3, 12)),
    Case("wrt_shape", """
def f(x, shape):
    return np.sum(np.reshape(x, shape) * 2.0)
""", call="s2sad.grad(f, wrt=(0, 1))(np.ones(4), (2, 2))", error=s2sad.ArgumentError,
         fragments=("'shape' is differentiated but used as a count, shape or axis",),
         at=(3, 19)),
    Case("no_parameters", """
def f():
    return 1.0
""", call="s2sad.grad(f)", error=s2sad.ArgumentError,
         fragments=("wrt=0 does not name a parameter of f; its parameters are (none)",
                    "give the function a parameter"), at=CALL),
    Case("bad_jit_option", """
def f(x):
    return x * x
""", call="s2sad.grad(f, jit='yes')", error=s2sad.ArgumentError,
         fragments=("jit='yes': expected True, False or None",), at=CALL),
    Case("bad_jacobian_mode", """
def f(x):
    return x * x
""", call="s2sad.jacobian(f, mode='backward')", error=s2sad.ArgumentError,
         fragments=("mode='backward'",), at=CALL),
    Case("jvp_without_tangent", """
def f(x, w):
    return x * w
""", call="s2sad.jvp(f, wrt=(0, 1), jit=False)(1.0)", error=s2sad.ArgumentError,
         fragments=("pass the arguments, then one tangent for each of x, w",), at=CALL),
    Case("jvp_tangent_of_wrong_shape", """
def f(x):
    return np.sum(x * x)
""", call="s2sad.jvp(f, jit=False)(np.ones(3), np.ones(2))", error=s2sad.ArgumentError,
         fragments=("the tangent of 'x' has shape (2,), 'x' has shape (3,)",), at=CALL),
    Case("vjp_cotangent_of_wrong_shape", """
def f(x):
    return x * 2.0
""", call="s2sad.vjp(f, jit=False)(np.ones(3), np.ones(2))", error=s2sad.ArgumentError,
         fragments=("f returned an array of shape (3,); the cotangent is an array of shape "
                    "(2,)",), at=CALL),
    Case("hvp_vector_of_wrong_shape", """
def f(x):
    return np.sum(x * x)
""", call="s2sad.hvp(f, jit=False)(np.ones(3), np.ones(2))", error=s2sad.ArgumentError,
         fragments=("the vector for 'x' has shape (2,)",), at=CALL),
    Case("grad_of_a_vjp", """
def f(x):
    return x * x
""", call="s2sad.grad(s2sad.vjp(f))", error=s2sad.ArgumentError,
         fragments=("s2sad.grad() cannot take <s2sad vjp of f",), at=CALL),
    Case("source_of_a_plain_function", """
def f(x):
    return x * x
""", call="s2sad.source(f)", error=s2sad.ArgumentError,
         fragments=("s2sad.source() takes a function made by s2sad",), at=CALL),
    Case("write_through_a_second_name", """
def f(x):
    y = x * 1.0
    z = y
    z[0] = 5.0
    return np.sum(y * z)
""", call="s2sad.grad(f, jit=False)(np.ones(3))",
         fragments=("this writes into `z`, which is the same array as `y`", "`y` is read later",
                    "fix: give one of them an array of its own with `.copy()`"), at=(5, 5)),
    Case("write_under_a_view", """
def f(x):
    y = x * 1.0
    head = y[:2]
    y[0] = 5.0
    return np.sum(head)
""", call="s2sad.grad(f, jit=False)(np.ones(3))",
         fragments=("this writes into `y`, which is the same array as `head`",), at=(5, 5)),
    Case("write_into_a_flipped_view", """
def f(x):
    y = x * 1.0
    r = np.flip(y)
    r[0] = 5.0 * r[1]
    return np.sum(y * y)
""", call="s2sad.grad(f, jit=False)(np.ones(3))",
         fragments=("this writes into `r`, which is the same array as `y`",), at=(5, 5)),
    Case("write_into_rows_of_a_loop", """
def f(x):
    a = np.outer(x, x)
    for row in a:
        row[0] = 1.0
    return np.sum(a)
""", call="s2sad.grad(f, jit=False)(np.ones(3))",
         fragments=("this writes into `row`, which is the same array as `a`",), at=(5, 9)),
    Case("write_through_a_reshaped_view", """
def f(x):
    y = x * 1.0
    m = np.reshape(y, (2, 2))
    m[0, 0] = 5.0
    return np.sum(y * y)
""", call="s2sad.grad(f, jit=False, wrt=0)(np.ones(4))",
         fragments=("this writes into `m`, which is the same array as `y`",), at=(5, 5)),
    Case("aliased_write_in_forward_mode", """
def f(x):
    y = x * 1.0
    z = y
    z[0] = 5.0
    return np.sum(y * z)
""", call="s2sad.jvp(f, jit=False)(np.ones(3), np.ones(3))",
         fragments=("this writes into `z`, which is the same array as `y`",), at=(5, 5)),
    Case("callee_writes_into_its_argument", """
def g(a):
    a[0] = 2.0 * a[1]
    return np.sum(a)

def f(x):
    y = x * 2.0
    s = g(y)
    return s * np.sum(y)
""", call="s2sad.grad(f, jit=False)(np.arange(1.0, 4.0))",
         fragments=("'g' writes into its parameter `a` (", ":3), which is the array `y` holds",
                    "`y` is read after the call", "`a = a.copy()` as its first statement"),
         at=(8, 9)),
    Case("callee_writes_through_a_view_of_its_argument", """
def g(a):
    tail = a[1:]
    tail *= 3.0
    return np.sum(a)

def f(x):
    y = x * 2.0
    return g(y) + np.sum(y * y)
""", call="s2sad.grad(f, jit=False)(np.arange(1.0, 4.0))",
         fragments=("'g' writes into its parameter `a`", "the array `y` holds"), at=(9, 12)),
    Case("augmented_assignment_into_a_view", """
def f(x):
    y = x * 2.0
    tail = y[1:]
    tail *= 3.0
    return np.sum(y) + np.sum(y * y)
""", call="s2sad.grad(f, jit=False)(np.arange(1.0, 4.0))",
         fragments=("this writes into `tail`, which is the same array as `y`", ".copy()"),
         at=(5, 5)),
    Case("callee_passes_its_argument_to_a_writer", """
def h(b):
    b[0] = 0.0
    return b[1]

def g(a):
    return h(a) * 2.0

def f(x):
    y = x * 2.0
    return g(y) + np.sum(y)
""", call="s2sad.jvp(f, jit=False)(np.arange(1.0, 4.0), np.ones(3))",
         fragments=("'g' writes into its parameter `a`",), at=(11, 12)),

    # ---- accepted by design: the result must be right --------------------------------------
    accepted("callee_copies_before_writing", """
def g(a):
    a = a.copy()
    a[0] = 2.0 * a[1]
    return np.sum(a)

def f(x):
    y = x * 2.0
    return g(y) * np.sum(y)
""", "s2sad.grad(f, jit=False)(np.array([1.0, 2.0, 3.0]))",
             "np.array([36.0, 108.0, 60.0])"),  # (6 x1 + 2 x2) * 2 (x0 + x1 + x2)
    accepted("callee_writes_into_an_argument_never_read_again", """
def g(a):
    a[0] = 2.0 * a[1]
    return np.sum(a)

def f(x):
    y = x * 2.0
    return g(y)
""", "s2sad.grad(f, jit=False)(np.array([1.0, 2.0, 3.0]))", "np.array([0.0, 6.0, 2.0])"),
    accepted("int_scalar_argument", """
def f(x):
    return x * x
""", "s2sad.grad(f)(3)", "6.0"),
    accepted("int_array_argument", """
def f(x):
    return np.sum(x * x)
""", "s2sad.grad(f, jit=False)(np.array([1, 2, 3]))", "np.array([2.0, 4.0, 6.0])"),
    accepted("float32_array_argument", """
def f(x):
    return np.sum(x * x)
""", "s2sad.grad(f, jit=False)(np.array([0.5, 2.0], dtype=np.float32))", "np.array([1.0, 4.0])"),
    accepted("global_string_and_dict", """
MODE = "fast"
CONFIG = {"scale": 2.0}
def f(x):
    if MODE == "fast":
        return x * CONFIG["scale"]
    return x
""", "s2sad.grad(f, jit=False)(1.5)", "2.0"),
    accepted("list_argument_is_a_pytree", """
def f(x):
    return x[0] * x[1] ** 2
""", "s2sad.grad(f, jit=False)([1.0, 2.0])", "[4.0, 4.0]"),
    accepted("string_argument_not_differentiated", """
def f(x, label):
    return x * x
""", "s2sad.grad(f, jit=False)(1.5, 'run')", "3.0"),
    accepted("none_argument_not_differentiated", """
def f(x, unused):
    return x * x
""", "s2sad.grad(f, jit=False)(1.5, None)", "3.0"),
    accepted("int_argument_not_differentiated", """
def f(x, n):
    s = 0.0
    for i in range(n):
        s = s + x * x
    return s
""", "s2sad.grad(f)(1.5, 4)", "12.0"),
    accepted("default_argument", """
def f(x, scale=3.0):
    return x * scale
""", "s2sad.grad(f, wrt=(0, 1), jit=False)(1.5)", "(3.0, 1.5)"),
    accepted("wrt_as_a_list_of_names_and_positions", """
def f(x, w):
    return x * w * w
""", "s2sad.grad(f, wrt=['w', 0], jit=False)(1.5, 2.0)", "(6.0, 4.0)"),
    accepted("keyword_only_argument", """
def f(x, *, scale=3.0):
    return x * scale
""", "s2sad.grad(f, jit=False)(1.5, scale=4.0)", "4.0"),
    accepted("identity_decorator", """
def registered(func):
    return func

@registered
def f(x):
    return x * x * x
""", "s2sad.grad(f, jit=False)(2.0)", "12.0"),
    accepted("staticmethod", """
class Model:
    @staticmethod
    def f(x):
        return x * x
f = Model.f
""", "s2sad.grad(f, jit=False)(1.5)", "3.0"),
    accepted("closure_number", """
def make(scale):
    def f(x):
        return x * scale
    return f
f = make(4.0)
""", "s2sad.grad(f, jit=False)(1.5)", "4.0"),
    accepted("recursion_with_base_case", """
def f(x, n):
    if n == 0:
        return x
    return f(x * x, n - 1)
""", "s2sad.grad(f, jit=False)(1.5, 2)", "4.0 * 1.5 ** 3"),
    accepted("bool_output", """
def f(x):
    return x > 0.0
""", "s2sad.grad(f, jit=False)(1.5)", "0.0", warns=s2sad.GradientCutWarning),
    accepted("constant_output", """
def f(x):
    return 3.0
""", "s2sad.grad(f, jit=False)(1.5)", "0.0", warns=s2sad.ZeroGradientWarning),
    accepted("shape_only_output", """
def f(x):
    return len(x) * 1.0
""", "s2sad.grad(f, jit=False)(np.ones(3))", "np.zeros(3)", warns=s2sad.ZeroGradientWarning),
    accepted("write_after_the_other_name_is_dead", """
def f(x0):
    x = x0
    x[0] = 5.0
    return np.sum(x * x)
""", "s2sad.grad(f, jit=False)(np.array([1.0, 2.0, 3.0]))", "np.array([0.0, 4.0, 6.0])"),
    accepted("tangent_not_written_through_a_second_name", """
def f(x0):
    x = x0
    x[0] = 5.0
    return np.sum(x * x)
""", "(lambda t: (s2sad.jvp(f, jit=False)(np.array([1.0, 2.0, 3.0]), t)[1], t[0]))(np.ones(3))",
             "(10.0, 1.0)"),
    accepted("parameter_read_before_an_aliased_write", """
def f(x0):
    z = x0 * x0
    x = x0
    x[0] = 5.0
    x = x * 2.0
    return np.sum(z) + np.sum(x)
""", "s2sad.grad(f, jit=False)(np.array([1.0, 2.0, 3.0]))", "np.array([2.0, 6.0, 8.0])"),
    accepted("swap_of_elements_through_a_scalar", """
def f(x):
    y = x * 1.0
    t = y[0]
    y[0] = y[1]
    y[1] = t
    return y[0] * 3.0 + t
""", "s2sad.grad(f, jit=False)(np.array([1.0, 2.0, 3.0]))", "np.array([1.0, 3.0, 0.0])"),
    accepted("swapped_names_then_a_write", """
def f(x):
    v, w = x * 1.0, x * 2.0
    v, w = w, v
    w[0] = 0.0
    return np.sum(v * w)
""", "s2sad.grad(f, jit=False)(np.array([1.0, 2.0]))", "np.array([0.0, 8.0])"),
    accepted("other_name_rebound_before_the_write", """
def f(x):
    y = x * 1.0
    z = y
    y = y * 2.0
    z[0] = 5.0
    return np.sum(y * z)
""", "s2sad.grad(f, jit=False)(np.array([1.0, 2.0]))", "np.array([10.0, 8.0])"),
    accepted("nan_input", """
def f(x):
    return x * x
""", "np.isnan(s2sad.grad(f, jit=False)(float('nan')))", "True"),
]
