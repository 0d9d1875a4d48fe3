"""Tests decided while containers.py follows the function (part of containers.py): an `if`
whose test reads only what is known at that point keeps only the branch it takes, so a
container changed in that branch stays one container, and code under a test that fails (a
call of a field holding None, a key the dict does not have) is never read:

    def evaluate(self, x, names=None, **kwargs):        # self.callback is None, called with
        if names is None:                               # no names and no keywords
            names = ["F"]                               names = ["F"]
            if self.n_constr > 0:                       out = {}
                names.append("G")             -->       out_F = numpy.sum(x ** 2)
        out = {}                                        return out_F
        out["F"] = np.sum(x ** 2)
        if self.callback is not None:
            self.callback(x, out)
        if "scale" in kwargs:
            out["F"] = out["F"] * kwargs["scale"]
        return out[names[0]] if len(names) == 1 else tuple(out[n] for n in names)

Known here: literals, names holding a constant now (a str, int, None or bool: a literal
assigned, a constant argument the function is specialised on, a record's field of such a
value), containers held now (`len(names)`, `"scale" in kwargs`, `isinstance(names, list)`),
and what `not`, `and`, `or` and one comparison make of them. `v is None` of a value computed
when the function runs is False: s2sad holds None only as a constant known now, so a name
that may be None is a parameter the arguments' kinds do not show to be an array or a number,
or one the function assigns None somewhere (`may_be_none`); its test stays undecided.
`isinstance(v, list)` (or dict) is False for a value known to be an array or a number
(`is_array`). The rest of the function then sees the taken branch's statements only.
"""
import operator

import gast

from .. import facts, nodes
from . import container_values as values

UNKNOWN = object()
_COMPARE = {gast.Eq: operator.eq, gast.NotEq: operator.ne, gast.Lt: operator.lt,
            gast.LtE: operator.le, gast.Gt: operator.gt, gast.GtE: operator.ge}
_TYPES = {"list": "list", "tuple": "tuple", "dict": "dict"}
_RUNTIME = object()   # a value computed when the function runs (never None, see above)
_NUMERIC = object()   # the dtype of an array argument: a number type, never `object`


class _Array:
    """An array parameter of a known number of dimensions (the arguments' kinds)."""

    def __init__(self, ndim):
        self.ndim = ndim


def may_be_none(tree, given=()):
    """Names that may hold None when the function runs: parameters (but those in `given`: the
    arguments' kinds say they are arrays or numbers), names the function assigns None
    somewhere, and names assigned those. Their `is None` tests are decided only where the
    name holds a constant."""
    found = {a.id for a in nodes.walk(tree.args) if isinstance(a, gast.Name)} - set(given)
    changed = True
    while changed:
        changed = False
        for node in nodes.walk(tree):
            if not isinstance(node, gast.Assign):
                continue
            value = node.value
            none = isinstance(value, gast.Constant) and value.value is None or \
                isinstance(value, gast.Name) and value.id in found or \
                isinstance(value, gast.IfExp)
            for target in node.targets:
                if none and isinstance(target, gast.Name) and target.id not in found:
                    found.add(target.id)
                    changed = True
    return found


def decide(owner, test):
    """The truth of `test` if it is known now, else UNKNOWN. `owner`: the containers pass
    (its `held`, `known`, `container`, `maybe_none`)."""
    value = _value(owner, test)
    if value is UNKNOWN or value is _RUNTIME or isinstance(value, values.Container):
        return UNKNOWN if value is UNKNOWN or value is _RUNTIME else bool(value.items)
    return bool(value)


def _value(owner, node):
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, gast.Name):
        if node.id in owner.held:
            return owner.held[node.id]
        if node.id in owner.known:
            return owner.known[node.id]
        if node.id in owner.ranks:
            return _Array(owner.ranks[node.id])
        if node.id == "object":
            return object
        return UNKNOWN if node.id in owner.maybe_none else _RUNTIME
    if isinstance(node, (gast.Attribute, gast.Subscript)):
        return _element(owner, node)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
        inner = _truth(_value(owner, node.operand))
        return inner if inner is UNKNOWN else not inner
    if isinstance(node, gast.BoolOp):
        deciding = isinstance(node.op, gast.Or)
        result = UNKNOWN
        for operand in node.values:
            result = _truth(_value(owner, operand))
            if result is UNKNOWN or result == deciding:
                return result
        return result
    if isinstance(node, gast.Compare) and len(node.ops) == 1:
        return _compare(owner, node.ops[0], node.left, node.comparators[0])
    if isinstance(node, gast.Call) and not node.keywords:
        return _call(owner, node)
    return UNKNOWN


def _element(owner, node):
    """A record's field or a container's element read with a key known now."""
    if not isinstance(node.value, (gast.Name, gast.Attribute, gast.Subscript)):
        return UNKNOWN
    if isinstance(node, gast.Attribute) and node.attr in ("ndim", "dtype"):
        array = _value(owner, node.value)
        if isinstance(array, _Array):
            return array.ndim if node.attr == "ndim" else _NUMERIC
        return UNKNOWN
    made = owner.container(node.value, None)
    if not isinstance(made, values.Container):
        return UNKNOWN
    if isinstance(node, gast.Attribute):
        item = made.attribute(node.attr)
    else:
        key = owner.key(node.slice, None) if not isinstance(node.slice, gast.Slice) else None
        if key is None:
            return UNKNOWN
        if isinstance(key, int) and made.kind != "dict":
            item = made.items[key] if -len(made.items) <= key < len(made.items) else None
        else:
            item = made.item(key)
    if item is None:
        return UNKNOWN
    if isinstance(item, values.Container):
        return item
    if isinstance(item, gast.Constant):
        return item.value
    if isinstance(item, gast.Name):
        return _value(owner, item)
    return _RUNTIME


def _compare(owner, op, left_node, right_node):
    left, right = _value(owner, left_node), _value(owner, right_node)
    if isinstance(op, (gast.Is, gast.IsNot)):
        if left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        if left is _RUNTIME or right is _RUNTIME:  # a value of its own vs a constant
            other = right if left is _RUNTIME else left
            if other is not None:
                return UNKNOWN
            same = False
        else:
            same = left is right
        return same if isinstance(op, gast.Is) else not same
    if left is UNKNOWN or right is UNKNOWN or left is _RUNTIME or right is _RUNTIME:
        return UNKNOWN
    if isinstance(op, (gast.In, gast.NotIn)):
        if isinstance(right, values.Container):
            if isinstance(left, values.Container):
                return UNKNOWN
            keys = right.keys if right.kind == "dict" else \
                [_value(owner, i) if not isinstance(i, values.Container) else UNKNOWN
                 for i in right.items]
            if right.kind != "dict" and any(k is UNKNOWN or k is _RUNTIME for k in keys):
                return UNKNOWN
            found = left in keys
        elif isinstance(right, str) and isinstance(left, str):
            found = left in right
        else:
            return UNKNOWN
        return found if isinstance(op, gast.In) else not found
    if isinstance(left, values.Container) or isinstance(right, values.Container) or \
            type(op) not in _COMPARE or isinstance(left, _Array) or isinstance(right, _Array):
        return UNKNOWN
    if _NUMERIC in (left, right):  # `x.dtype != object`
        other = right if left is _NUMERIC else left
        if other is not object or not isinstance(op, (gast.Eq, gast.NotEq)):
            return UNKNOWN
        return isinstance(op, gast.NotEq)
    try:
        return bool(_COMPARE[type(op)](left, right))
    except TypeError:
        return UNKNOWN


def _call(owner, node):
    """`len(c)` and `isinstance(c, list)` of a container held now, `s.startswith('r')` of a
    str known now."""
    chain = nodes.dotted_parts(node.func)
    if chain == ["len"] and len(node.args) == 1:
        made = _value(owner, node.args[0])
        return len(made.items) if isinstance(made, values.Container) else \
            len(made) if isinstance(made, str) else UNKNOWN
    if chain == ["isinstance"] and len(node.args) == 2:
        made = _value(owner, node.args[0])
        kinds = nodes.dotted_parts(node.args[1])
        if kinds == ["numpy", "ndarray"] and isinstance(made, (_Array, values.Container)):
            return isinstance(made, _Array)
        if kinds is None or len(kinds) != 1 or kinds[0] not in _TYPES:
            return UNKNOWN
        if isinstance(made, values.Container):
            return made.kind == _TYPES[kinds[0]]
        if isinstance(made, _Array) or made is _RUNTIME and is_array(owner, node.args[0]):
            return False  # (s2sad holds every list and dict it follows as a container)
        return UNKNOWN
    if isinstance(node.func, gast.Attribute) and node.func.attr in ("startswith", "endswith"):
        text = _value(owner, node.func.value)
        args = [_value(owner, a) for a in node.args]
        if isinstance(text, str) and len(args) == 1 and isinstance(args[0], (str, tuple)):
            return getattr(text, node.func.attr)(args[0])
    return UNKNOWN


# NumPy functions that return a list or a tuple of arrays, not one array.
SEQUENCE_RESULTS = {"split", "array_split", "hsplit", "vsplit", "dsplit", "meshgrid",
                    "broadcast_arrays", "nonzero", "unravel_index", "gradient", "histogram",
                    "frexp", "modf", "divmod", "slogdet", "eig", "eigh", "qr", "svd", "lstsq",
                    "tolist", "atleast_1d", "atleast_2d", "atleast_3d", "where", "indices"}


def is_array(owner, node):
    """Whether `node` names a value known to be a number or an array: an array parameter,
    or a name whose value (`owner.values`, the last one assigned) is arithmetic, an element
    or a slice of such a value, or a NumPy function's result (not one of SEQUENCE_RESULTS)."""
    if not isinstance(node, gast.Name):
        return False
    value = owner.values.get(node.id)
    if node.id in owner.ranks or isinstance(value, (gast.BinOp, gast.UnaryOp)):
        return True
    if isinstance(value, gast.Subscript):
        return is_array(owner, value.value)
    chain = nodes.dotted_parts(value.func) if isinstance(value, gast.Call) else None
    return bool(chain) and chain[0] == "numpy" and chain[-1] not in SEQUENCE_RESULTS and \
        not facts.USER.of(value)


def _truth(value):
    if value is UNKNOWN or value is _RUNTIME:
        return UNKNOWN
    if isinstance(value, values.Container):
        return bool(value.items)
    return bool(value)
