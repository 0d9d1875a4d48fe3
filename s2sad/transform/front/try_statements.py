"""`try` statements (part of desugar.py): generated code has no exceptions to catch, so a
`try` runs its body, and its handlers go, only where that keeps the function's meaning on
every run that returns a value:

    try:                                        out[k] = v.astype(numpy.float64)
        out[k] = v.astype(np.float64)     -->
    except:                                     (the body cannot raise: a conversion of
        out[k] = v                               numbers to floats, into a dict)
                                                v = v.reshape(shape)
    try:                                  -->
        v = v.reshape(shape)                    (every handler raises: the function raises
    except Exception as e:                       where it raised, with the body's exception)
        raise ValueError(f"bad shape {shape}", e)

The handlers go when (1) each ends in `raise`: a run that enters one ends in an exception,
and it still does (the body's own exception, not the handler's; nothing is differentiated
then), or (2) the body cannot raise: each statement assigns a name, or an entry of a dict the
function makes, a name, a constant, or a conversion of numbers to floats
(`v.astype(np.float64)`, `np.asarray(v, dtype=float)`), which s2sad's values (numbers and
numeric arrays) always allow. `else:` runs after the body, and `finally:` after that: on a run
that does not raise, where Python runs them. Any other `try` is a located error: which
handler runs is known only when the function runs, and generated code would have to catch
the exception where Python raises it.
"""
import gast

from s2sad.errors import Diagnostic

from .. import nodes

# Spellings of a float or complex dtype (a name's last part, or a string).
FLOAT_DTYPES = {"float", "float64", "float32", "double", "single", "float_", "complex",
                "complex128", "complex64", "f8", "f4", "d"}


def without_handlers(source, statement, tree):
    """The statements that replace `statement` (a gast.Try), or a Diagnostic."""
    kept = statement.body + statement.orelse + statement.finalbody
    if not statement.handlers:
        return kept  # try/finally: on a run that does not raise, the body then `finally`
    if all(handler.body and isinstance(handler.body[-1], gast.Raise)
           for handler in statement.handlers):
        return kept
    dicts = _dict_names(tree)
    if all(_cannot_raise(s, dicts) for s in statement.body):
        return kept
    return Diagnostic(
        source.loc(statement), "a `try` whose body may raise an exception that a handler "
        "catches is not supported", why="which branch runs (the body or a handler) is known "
        "only when the function runs; s2sad drops the handlers only when each ends in "
        "`raise`, or when the body cannot raise (assignments of names, constants and "
        "conversions to float such as v.astype(np.float64))",
        fix="test the condition the handler is for with an `if` instead, or compute this "
            "outside the differentiated function")


def _cannot_raise(statement, dicts):
    if not isinstance(statement, gast.Assign):
        return isinstance(statement, gast.Pass)
    return all(isinstance(t, gast.Name) or
               isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name) and
               t.value.id in dicts and isinstance(t.slice, (gast.Name, gast.Constant))
               for t in statement.targets) and _safe_value(statement.value)


def _safe_value(value):
    if isinstance(value, (gast.Name, gast.Constant)):
        return True
    if not isinstance(value, gast.Call) or not isinstance(value.func, gast.Attribute):
        return False
    if value.func.attr == "astype" and len(value.args) == 1 and \
            isinstance(value.func.value, gast.Name) and \
            all(k.arg == "copy" for k in value.keywords):
        return _float_dtype(value.args[0])
    dtype = [k.value for k in value.keywords if k.arg == "dtype"]
    return value.func.attr in ("asarray", "array") and len(value.args) == 1 and \
        isinstance(value.args[0], gast.Name) and len(dtype) == 1 and \
        len(value.keywords) == 1 and _float_dtype(dtype[0])


def _float_dtype(node):
    if isinstance(node, gast.Constant):
        return isinstance(node.value, str) and node.value in FLOAT_DTYPES
    parts = nodes.dotted_parts(node)
    return parts is not None and parts[-1] in FLOAT_DTYPES


def _dict_names(tree):
    """Names the function binds only to dicts it makes (`{}`, `dict(...)`, comprehensions)."""
    made, other = set(), set()
    for node in nodes.walk(tree):
        if isinstance(node, gast.Assign):
            is_dict = isinstance(node.value, (gast.Dict, gast.DictComp)) or \
                isinstance(node.value, gast.Call) and nodes.dotted_parts(node.value.func) == \
                ["dict"]
            for target in node.targets:
                for name in (t for t in nodes.walk(target) if isinstance(t, gast.Name) and
                             isinstance(t.ctx, gast.Store)):
                    (made if is_dict and target is name else other).add(name.id)
        elif isinstance(node, (gast.For, gast.AugAssign)):
            other |= {n.id for n in nodes.walk(node.target) if isinstance(n, gast.Name)}
    return made - other
