"""A starred unpacking of a shape, as one assignment per name:

    *batch, n = x.shape          -->      batch = x.shape[0:-1]
                                          n = x.shape[-1]

    b, *rest = f(x).shape        -->      _shape0 = f(x).shape
                                          b = _shape0[0]
                                          rest = _shape0[1:]

A shape's length is the array's rank, known when the function is transformed for its
arguments' kinds, but not when the assignment is read; slices and indexes from both ends need
no length. The starred name holds a tuple where Python gives a list (the same ints).
"""
import gast

from .. import nodes


def split(statement, fresh):
    """The assignments `statement` stands for, or None when it is no starred unpacking of a
    shape (`v.shape` or `numpy.shape(v)`). `fresh(base)` names a temporary."""
    if not (isinstance(statement, gast.Assign) and len(statement.targets) == 1 and
            isinstance(statement.targets[0], (gast.Tuple, gast.List)) and
            _is_shape(statement.value)):
        return None
    names = statement.targets[0].elts
    starred = [k for k, n in enumerate(names) if isinstance(n, gast.Starred)]
    if len(starred) != 1 or not all(isinstance(n.value if isinstance(n, gast.Starred) else n,
                                               gast.Name) for n in names):
        return None
    out, shape = [], statement.value
    if not _plain(shape):   # evaluated once, as Python does
        temporary = fresh("_shape")
        out.append(nodes.assign(temporary, shape))
        shape = nodes.name(temporary)
    k, after = starred[0], len(names) - starred[0] - 1
    for position, target in enumerate(names):
        if position < k:
            index = nodes.constant(position)
        elif position > k:
            index = nodes.constant(position - len(names))
        else:
            target = target.value
            index = gast.Slice(nodes.constant(k), nodes.constant(-after) if after else None,
                               None)
        value = gast.Subscript(nodes.clone(shape), index, gast.Load())
        out.append(gast.Assign([nodes.name(target.id, store=True)], value, None))
    return [gast.copy_location(s, statement) for s in out]


def _is_shape(value):
    if isinstance(value, gast.Attribute) and value.attr == "shape":
        return True
    return isinstance(value, gast.Call) and nodes.dotted_parts(value.func) in (
        ["np", "shape"], ["numpy", "shape"]) and len(value.args) == 1 and not value.keywords


def _plain(value):
    """`x.shape`, `self.x.shape`: read again at no cost and with no effect."""
    return isinstance(value, gast.Attribute) and nodes.dotted_parts(value) is not None
