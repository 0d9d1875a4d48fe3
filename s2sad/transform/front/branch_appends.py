"""An `append` that ends both branches of an `if`, moved after it (part of desugar.py): every
path through the `if` adds one element, as an append at the top of a loop's body does, which
is what a list grown in a loop needs (container_buffers.py).

    if parents[i] == -1:                         if parents[i] == -1:
        out.append(relatives[i])          -->        _appended0 = relatives[i]
    else:                                        else:
        out.append(out[parents[i]] @ r[i])           _appended0 = out[parents[i]] @ r[i]
                                                 out.append(_appended0)

Python's meaning is kept: each branch computes its element where it appended it, and nothing
runs between the append and the end of the `if`. `elif` chains too (the inner `if` is done
first, so that its own append ends the outer `else`).
"""
import gast

from .. import nodes


def sunk(statement, fresh):
    """[`name.append(_appendedK)`] to put after `statement`, an `if` whose two branches end
    with an append to the same list, whose appends become assignments of `_appendedK`; else []
    (and `statement` unchanged). `fresh(base)` names the element."""
    if not isinstance(statement, gast.If) or not statement.body or not statement.orelse:
        return []
    lists = {_appended_to(branch[-1]) for branch in (statement.body, statement.orelse)}
    if len(lists) != 1 or None in lists:
        return []
    element = fresh("_appended")
    append = statement.body[-1]
    for branch in (statement.body, statement.orelse):
        value = branch[-1].value.args[0]
        branch[-1] = gast.copy_location(nodes.assign(element, value), branch[-1])
    append = gast.copy_location(gast.Expr(gast.Call(
        gast.Attribute(nodes.name(lists.pop()), "append", gast.Load()),
        [nodes.name(element)], [])), append)
    return [append]


def _appended_to(statement):
    """The list `statement` appends one element to (`out.append(v)`), else None."""
    call = statement.value if isinstance(statement, gast.Expr) else None
    if isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and \
            call.func.attr == "append" and isinstance(call.func.value, gast.Name) and \
            len(call.args) == 1 and not call.keywords and \
            not isinstance(call.args[0], gast.Starred):
        return call.func.value.id
    return None
