"""A `raise` whose message is an f-string formats it in Numba's object mode, so that the rest
of the function still compiles (Numba formats no f-string, and formats floats its own way) and
the message is the one Python writes:

    raise ValueError(f"{n} coordinates")   -->   with rt.objmode(_message="unicode_type"):
                                                     _message = f"{n} coordinates"
                                                 raise ValueError(_message)

and a message the sweeps hold in a name (`_t2 = f"..."`) is formatted the same way.

Run as Python, `rt.objmode()` does nothing: the same lines format the same message.
"""
import gast

from .. import facts, nodes


def rewrite(function):
    """Rewrite every such `raise` of `function` (a FunctionDef), in place."""
    taken = {n.id for n in nodes.walk(function) if isinstance(n, gast.Name)}
    name = next(f"_message{k or ''}" for k in range(len(taken) + 1)
                if f"_message{k or ''}" not in taken)
    for statements in list(nodes.statement_lists(function)):
        for k in range(len(statements) - 1, -1, -1):
            statement = statements[k]
            if isinstance(statement, gast.Assign) and len(statement.targets) == 1 and \
                    isinstance(statement.targets[0], gast.Name) and \
                    isinstance(statement.value, gast.JoinedStr):  # (a message held in a name)
                statement.value = _plain_fields(statement.value)
                mode = gast.Call(nodes.dotted("rt.objmode"), [], [
                    gast.keyword(statement.targets[0].id, gast.Constant("unicode_type", None))])
                statements[k] = gast.copy_location(
                    gast.With([gast.withitem(mode, None)], [statement], None), statement)
                continue
            message = formatted_message(statement)
            if message is None:
                continue
            call = statements[k].exc
            message = _plain_fields(message)
            mode = gast.Call(nodes.dotted("rt.objmode"), [], [
                gast.keyword(name, gast.Constant("unicode_type", None))])
            block = gast.With([gast.withitem(mode, None)],
                              [nodes.assign(name, message)], None)
            call.args = [nodes.name(name)]
            statements[k:k] = [gast.copy_location(block, statements[k])]
            for node in nodes.walk(block):
                if isinstance(node, gast.stmt):
                    gast.copy_location(node, statements[k + 1])


def formatted_message(statement):
    """The f-string of `raise E(f"...")` (or of its exception held by normalize.py until the
    sweeps are built: generate/effects.py), or None."""
    if isinstance(statement, gast.Raise):
        call = statement.exc
    elif isinstance(statement, gast.Assign) and facts.EFFECT.of(statement) == "raise":
        call = statement.value
    else:
        return None
    if not isinstance(call, gast.Call):
        return None
    if len(call.args) == 1 and not call.keywords and isinstance(call.args[0], gast.JoinedStr):
        return call.args[0]
    return None


_CONVERSIONS = {ord("r"): "repr", ord("s"): "str", ord("a"): "ascii"}


def _plain_fields(message):
    """`f"{x:.2f} {y!r}"` -> `f"{format(x, '.2f')} {repr(y)}"`: Numba reads no format spec
    or conversion in a function's bytecode, even in object mode."""
    for part in message.values:
        if not isinstance(part, gast.FormattedValue):
            continue
        value = part.value
        if part.conversion in _CONVERSIONS:
            value = gast.Call(nodes.name(_CONVERSIONS[part.conversion]), [value], [])
        spec = part.format_spec
        if spec is not None:
            if not all(isinstance(v, gast.Constant) for v in spec.values):
                continue  # (a spec of its own fields: left for Numba to refuse)
            text = "".join(str(v.value) for v in spec.values)
            value = gast.Call(nodes.name("format"), [value, gast.Constant(text, None)], [])
        part.value, part.conversion, part.format_spec = value, -1, None
    return message
