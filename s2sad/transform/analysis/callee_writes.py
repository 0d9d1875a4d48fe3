"""Which parameters a function of yours writes into, in place: what its callers must know.

    def g(a):                 # written_parameters(g) -> {0: (where `a[0] = ...` is, 'a')}
        a[0] = 2.0 * a[1]
        return np.sum(a)

A caller that passes `y` to `g` and reads `y` afterwards sees the write, but s2sad follows
values by name: the caller's gradient would not know that `y` changed (aliases.py reports it
at the call). Read from the callee's source statement by statement: a name made from a
parameter by a view (`b = a[1:]`, `b = a.T`, `b = a.reshape(...)`, a loop's row) holds the
parameter, a name given a new value (`a = a.copy()`) holds it no more; after an `if` a name
holds what either branch left, and a loop is followed to a fixpoint (it may run zero times).
Writes are element and slice assignments, augmented assignments (in place on
arrays), in-place methods (`a.fill`, `a.sort`), `out=` arguments, `numpy.copyto`, and passing
the array to another function of yours that writes into it.
"""
import inspect

import gast

from s2sad.errors import S2sadError

from .. import nodes
from ..front import (constants, container_arguments, container_cells, container_values, parse,
                     resolve)

_VIEW_METHODS = frozenset({"reshape", "ravel", "view", "transpose", "squeeze", "swapaxes",
                           "diagonal"})
_VIEW_FUNCTIONS = frozenset({"reshape", "ravel", "transpose", "squeeze", "expand_dims",
                             "atleast_1d", "atleast_2d", "atleast_3d", "swapaxes", "moveaxis",
                             "diagonal", "asarray", "asanyarray", "flip", "fliplr", "flipud",
                             "rot90", "real", "matrix_transpose", "permute_dims"})
_IN_PLACE_METHODS = frozenset({"fill", "sort", "put", "itemset", "resize", "partition",
                               "setfield"})

_known = {}          # (function, code) -> {index: (Location, parameter name, least rank)}
_in_progress = set()


def written_parameters(func):
    """{position: (Location of the first write, parameter name, least rank)} for the
    parameters `func` writes into, when given an array of at least that many dimensions
    (`v = a[0, 1]; v += 1` writes into `a` only if it has 3: otherwise v is a number); {} when
    its source cannot be read (its own transformation reports that)."""
    key = (func, func.__code__)
    if key in _known:
        return _known[key]
    if key in _in_progress:
        return {}  # recursion: what the outer scan finds is what there is
    _in_progress.add(key)
    try:
        try:
            source = parse.parse_function(func)
        except S2sadError:
            found = {}
        else:
            found = _Scan(source).written()
    finally:
        _in_progress.discard(key)
    found = _with_state_cells(func, _flat(func, found))
    _known[key] = found
    return found


def _flat(func, found):
    """For a copy specialised on containers (container_arguments.py): the positions of its
    leaf parameters (a write into a container's element is not followed, but an object's
    fields held in cells, which `self.k = v` writes, are written when the object is)."""
    structures = dict(container_arguments.structures_of(func))
    if not structures:
        return found
    names = [a.id for a in resolve.parameters(parse.parse_function(func).tree.args)]
    flat, k = {}, 0
    for index, name in enumerate(names):
        if name in structures:
            leaves = container_values.leaf_names(structures[name])
            for leaf in _cells_assigned(func, name, structures[name]):
                j = leaves.index(leaf)  # an object's field it assigns: its cell is written
                flat[k + j] = (found.get(index, (parse.code_location(func),))[0], leaf, 1)
            k += len(leaves)
            continue
        if index in found:
            flat[k] = found[index]
        k += 1
    return flat


def _with_state_cells(func, found):
    """`found`, and the parameters of a copy taking constants (constants.taking_constants)
    that hold its functions' state (`f.count`, function_state.py): counted as written, so that
    callers keep them before the call and its adjoint runs again from the state it had."""
    names = list(inspect.signature(func).parameters)
    held = set(constants.state_cells(container_arguments.original(func)))
    extra = {k: (parse.code_location(func), name, 1) for k, name in enumerate(names)
             if name in held and k not in found}
    return {**found, **extra} if extra else found


def _cells_assigned(func, parameter, spec):
    """The cells of the object given to `parameter` (its spec) whose fields `func` assigns,
    itself or through the methods it calls on the object."""
    cls = resolve.classes_of([(parameter, spec)]).get(parameter)
    if cls is None:
        return []
    fields = container_cells.assigned_fields(container_arguments.original(func), parameter,
                                              cls)
    kind, keys, parts, _, _ = spec
    return [part[1] for key, part in zip(keys, parts)
            if container_cells.is_cell_spec(part) and key in fields]


class _Scan:
    """Flow-sensitive: which parameters each name may hold (or a view of) at each statement,
    and through how many integer indices (`r = a[0]`: a row, one index); a copy (`q =
    q.copy()`) holds none. A write is the parameter's where its name may hold it."""

    def __init__(self, source):
        self.source = source
        self.tree = source.tree
        self.params = [a.id for a in resolve.parameters(self.tree.args)]
        self.ints = _range_variables(self.tree)
        self.found = {}

    def written(self):
        self._block(self.tree.body, {p: {i: 0} for i, p in enumerate(self.params)})
        return dict(sorted(self.found.items()))

    def _block(self, statements, state):
        for statement in statements:
            state = self._statement(statement, state)
        return state

    def _statement(self, node, state):
        if isinstance(node, gast.If):
            self._check(node.test, state)
            return _union(self._block(node.body, dict(state)),
                          self._block(node.orelse, dict(state)))
        if isinstance(node, (gast.For, gast.While)):
            self._check(node.iter if isinstance(node, gast.For) else node.test, state)
            entry = out = dict(state)
            for _ in range(len(self.params) + 2):  # to a fixpoint: the sets only grow
                if isinstance(node, gast.For):  # its variable: a row of what it goes over
                    rows = self._held(node.iter, state)
                    for name in nodes.names(node.target):
                        entry[name] = {i: depth + 1 for i, depth in rows.items()}
                out = self._block(node.body, dict(entry))
                grown = _union(entry, out)
                if grown == entry:
                    break
                entry = grown
            return self._block(node.orelse, _union(state, out))
        if isinstance(node, gast.stmt) and isinstance(getattr(node, "body", None), list):
            return self._block(node.body, state)  # `with`: its body runs once
        self._check(node, state)
        if isinstance(node, gast.Assign):
            for target in node.targets:
                if isinstance(target, gast.Name):
                    state[target.id] = self._held(node.value, state)
                elif isinstance(target, (gast.Tuple, gast.List)):  # not followed
                    for name in nodes.names(target):
                        state[name] = {}
        return state

    def _held(self, value, state):
        """{parameter index: integer indices taken} of what `value` may be a view of."""
        origin = _view_of(value)
        held = state.get(origin, {})
        if not held:
            return {}
        taken = 0
        node = value
        while isinstance(node, gast.Subscript):
            parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
            taken += sum(1 for part in parts if _int_like(part, self.ints))
            node = node.value
        return {i: depth + taken for i, depth in held.items()}

    def _check(self, node, state):
        for write, name, extra in self._writes(node):
            for index, depth in sorted(state.get(name, {}).items()):
                least = depth + extra
                known = self.found.get(index)
                if known is None or least < known[2]:
                    self.found[index] = (self.source.loc(write), self.params[index], least)

    def _writes(self, root):
        """(node, name written into, least rank of what the name holds for it to be a write)
        for every in-place write in `root` (one statement, or the test of one)."""
        for node in nodes.walk(root):
            if isinstance(node, (gast.Assign, gast.AugAssign)):
                targets = node.targets if isinstance(node, gast.Assign) else [node.target]
                for target in targets:
                    for part in nodes.walk(target):
                        if isinstance(part, (gast.Subscript, gast.Attribute)) and \
                                isinstance(part.ctx, gast.Store):
                            base = _base(part)
                            if base is not None:
                                yield node, base, 1
                if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
                    yield node, node.target.id, 1  # in place when it holds an array
            elif isinstance(node, gast.Call):
                yield from self._call_writes(node)

    def _call_writes(self, call):
        func = call.func
        for keyword in call.keywords:
            if keyword.arg == "out" and isinstance(keyword.value, gast.Name):
                yield call, keyword.value.id, 1
        if isinstance(func, gast.Attribute) and func.attr in _IN_PLACE_METHODS and \
                isinstance(func.value, gast.Name):
            yield call, func.value.id, 1
            return
        chain = nodes.dotted_parts(func)
        if chain and chain[-1] == "copyto" and call.args and isinstance(call.args[0], gast.Name):
            yield call, call.args[0].id, 1
            return
        callee = self._function(chain)
        if callee is None:
            return
        for index, (_, _, least) in written_parameters(callee).items():
            if index < len(call.args) and isinstance(call.args[index], gast.Name):
                yield call, call.args[index].id, least

    def _function(self, chain):
        """The function of yours a call's dotted name denotes, or None."""
        if not chain or chain[0] in self.params:
            return None
        func = self.source.func
        cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
        try:
            value = cells[chain[0]].cell_contents if chain[0] in cells else \
                func.__globals__[chain[0]]
            for attribute in chain[1:]:
                value = getattr(value, attribute)
        except (KeyError, AttributeError, ValueError):
            return None
        return value if resolve.is_user_function(value) else None


def _union(a, b):
    """What either path left: each parameter a name may hold, through the fewest indices."""
    out = {}
    for name in set(a) | set(b):
        held = dict(a.get(name, {}))
        for index, depth in b.get(name, {}).items():
            held[index] = min(depth, held.get(index, depth))
        out[name] = held
    return out


def _range_variables(tree):
    """Names only ever bound by `for ... in range(...)`: ints."""
    ranges, others = set(), set()
    for node in nodes.walk(tree):
        if isinstance(node, gast.For):
            is_range = isinstance(node.iter, gast.Call) and \
                nodes.dotted_parts(node.iter.func) == ["range"]
            (ranges if is_range and isinstance(node.target, gast.Name) else others).update(
                nodes.names(node.target))
        elif isinstance(node, (gast.Assign, gast.AugAssign)):
            targets = node.targets if isinstance(node, gast.Assign) else [node.target]
            for target in targets:
                others.update(n.id for n in nodes.walk(target) if isinstance(n, gast.Name) and
                              isinstance(n.ctx, gast.Store))
    return ranges - others


def _int_like(index, ints):
    """An index part that is an int for sure: a literal, a range loop's variable, arithmetic of
    them (not a slice, an array, or a name s2sad cannot see the type of)."""
    if isinstance(index, gast.Constant):
        return type(index.value) is int
    if isinstance(index, gast.Name):
        return index.id in ints
    if isinstance(index, gast.UnaryOp) and isinstance(index.op, (gast.USub, gast.UAdd)):
        return _int_like(index.operand, ints)
    if isinstance(index, gast.BinOp) and isinstance(index.op, (gast.Add, gast.Sub, gast.Mult,
                                                               gast.Mod, gast.FloorDiv)):
        return _int_like(index.left, ints) and _int_like(index.right, ints)
    return False


def _view_of(value):
    """The name whose array `value` may be (a view of), or None for a new array."""
    if isinstance(value, gast.Name):
        return value.id
    if isinstance(value, gast.Subscript):
        return _base(value)
    if isinstance(value, gast.Attribute) and value.attr in ("T", "real", "imag", "flat"):
        return _view_of(value.value)
    if isinstance(value, gast.Call):
        func = value.func
        if isinstance(func, gast.Attribute) and func.attr in _VIEW_METHODS:
            inner = _view_of(func.value)
            if inner is not None and not (isinstance(func.value, gast.Name) and
                                          func.value.id in ("np", "numpy")):
                return inner
        chain = nodes.dotted_parts(func)
        if chain and chain[-1] in _VIEW_FUNCTIONS and len(chain) > 1 and value.args:
            return _view_of(value.args[0])
    return None


def _base(node):
    """`a` for `a[...]`, `a[...][...]`, `a.T[...]`; None when not a plain name at the root."""
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None
