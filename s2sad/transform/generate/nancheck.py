"""`check_nan=True`: find the first adjoint statement that makes a NaN or an infinity.

What PyTorch's anomaly mode does with a tape, done in the generated code. Each statement of an
adjoint block is followed by a check of the value it wrote:

    # grad of: y = numpy.log(x)   [model.py:7]
    dx = d_y / x
    if rt.not_finite(dx):
        raise rt.NonFiniteGradient('dx', 'd_y, x')

The check raises with constant strings only, so it compiles with Numba. `explain` turns it into
a NonFiniteError naming the original line (from the generated file's comments) and the values
involved; a compiled run has no frames to read them from, so the same file is run again as Python
up to the same statement. Off by default: the checks live in their own generated file.
"""
import linecache

import astor
import gast
import numpy

from s2sad.errors import NonFiniteError
from s2sad.runtime import rt, tracing

from .. import nodes


def instrument(block, discard):
    """The adjoint `block` with a check after each statement that writes a gradient.
    `discard`: the name for callee values the block ignores (never checked)."""
    out = []
    for statement in block:
        out.append(statement)
        checked = _checked(statement, discard)
        if checked:
            label = ", ".join(name for name, _ in checked)
            tests = [nodes.call("rt.not_finite", value) for _, value in checked]
            involved = sorted(_values_read(statement) - {discard})
            out.append(gast.If(
                tests[0] if len(tests) == 1 else gast.BoolOp(gast.Or(), tests),
                [gast.Raise(gast.Call(gast.Attribute(nodes.name("rt"), "NonFiniteGradient",
                                                     gast.Load()),
                                      [gast.Constant(label, None),
                                       gast.Constant(", ".join(involved), None)], []), None)],
                []))
    return out


def _checked(statement, discard):
    """[(label, expression to check)] for a statement writing gradients, else []."""
    if isinstance(statement, gast.Assign):
        target = statement.targets[0]
        if isinstance(target, gast.Name):
            return [(target.id, nodes.name(target.id))]
        if isinstance(target, gast.Tuple):  # a callee's adjoint: (value, gradients...)
            return [(e.id, nodes.name(e.id)) for e in target.elts
                    if isinstance(e, gast.Name) and e.id != discard]
        return []  # da[i] = 0.0: an overwritten element's gradient is reset
    if isinstance(statement, gast.AugAssign):  # dx[i] += g
        return [(_spelled(statement.target), gast.Subscript(
            statement.target.value, statement.target.slice, gast.Load()))]
    if isinstance(statement, gast.Expr) and isinstance(statement.value, gast.Call) and \
            nodes.dotted_parts(statement.value.func) == ["rt", "add_at"]:
        array = statement.value.args[0]
        return [(array.id, array)]
    return []


def _values_read(statement):
    """The names whose values a statement reads or writes (not the functions it calls)."""
    called = {id(n) for n in nodes.walk(statement) if isinstance(n, gast.Call)
              for n in nodes.walk(n.func)}
    return {n.id for n in nodes.walk(statement) if isinstance(n, gast.Name) and id(n) not in called}


def _spelled(node):
    return astor.to_source(gast.gast_to_ast(node)).strip()


# ---- at run time ------------------------------------------------------------------------------

def explain(exc, run_as_python):
    """A NonFiniteError for the rt.NonFiniteGradient `exc`: the original line, the generated
    one and the values involved. `run_as_python()` reruns the gradient as Python when `exc`
    comes from compiled code (whose frames cannot be read)."""
    frame, line = _generated_frame(exc)
    if frame is None or not set(_names(exc)) & set(frame.f_locals):
        # compiled code: its frames (if Numba shows any) have no variables to read
        try:
            run_as_python()
        except rt.NonFiniteGradient as again:
            exc = again
            frame, line = _generated_frame(again)
        except Exception:  # the compiled run's report is still worth giving
            pass
    label = exc.args[0]
    lines = [f"s2sad check_nan: the backward sweep produced a NaN or an infinity in {label}"]
    if frame is not None:
        path = frame.f_code.co_filename
        where = tracing.origin(path, line)
        if where is not None:
            lines.append(f"  in the adjoint of {where.path}:{where.line}: {where.text}")
        lines.append(f"  generated code: {path}:{line}")
        if linecache.getline(path, line - 1).strip().startswith("if rt.not_finite("):
            lines.append(f"    {linecache.getline(path, line - 2).strip()}")
        values = frame.f_locals
        lines.append("  values:")
        for name in _names(exc):
            if name in values:
                lines.append(f"    {name} = {_describe(values[name])}")
    return NonFiniteError("\n".join(lines))


def _names(exc):
    """The variables a check names: what it checked, then what its statement reads."""
    label, involved = exc.args[0], exc.args[1]
    names = [n.strip().split("[")[0] for n in f"{label}, {involved}".split(",")]
    return list(dict.fromkeys(n for n in names if n))


def _generated_frame(exc):
    """The innermost frame of a generated file in `exc`'s traceback, and its line."""
    found = (None, None)
    tb = exc.__traceback__
    while tb is not None:
        if tracing.original_file(tb.tb_frame.f_code.co_filename) is not None:
            found = (tb.tb_frame, tb.tb_lineno)
        tb = tb.tb_next
    return found


def _describe(value):
    if isinstance(value, tuple):
        return "(" + ", ".join(_describe(v) for v in value) + ")"
    array = numpy.asarray(value)
    if array.ndim == 0:
        return repr(value.item() if isinstance(value, numpy.generic) else value)
    text = numpy.array2string(array, threshold=12, precision=6, separator=", ")
    bad = numpy.argwhere(~numpy.isfinite(array)) if array.dtype.kind in "fc" else []
    where = f"; first non-finite at index {tuple(int(i) for i in bad[0])}" if len(bad) else ""
    return f"array of shape {array.shape}{where}: {text}"
