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
import gast

from s2sad.errors import S2sadError

from . import container_arguments, container_values, nodes, parse, resolve

_VIEW_METHODS = frozenset({"reshape", "ravel", "view", "transpose", "squeeze", "swapaxes",
                           "diagonal"})
_VIEW_FUNCTIONS = frozenset({"reshape", "ravel", "transpose", "squeeze", "expand_dims",
                             "atleast_1d", "atleast_2d", "atleast_3d", "swapaxes", "moveaxis",
                             "diagonal", "asarray"})
_IN_PLACE_METHODS = frozenset({"fill", "sort", "put", "itemset", "resize", "partition",
                               "setfield"})

_known = {}          # (function, code) -> {index: (Location, parameter name)}
_in_progress = set()


def written_parameters(func):
    """{position: (Location of the first write, parameter name)} for the parameters `func`
    writes into; {} when its source cannot be read (its own transformation reports that)."""
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
    found = _flat(func, found)
    _known[key] = found
    return found


def _flat(func, found):
    """For a copy specialised on containers (container_arguments.py): the positions of its
    leaf parameters (a write into a container's element is not followed)."""
    structures = dict(container_arguments.structures_of(func))
    if not structures:
        return found
    names = [a.id for a in resolve.parameters(parse.parse_function(func).tree.args)]
    flat, k = {}, 0
    for index, name in enumerate(names):
        if name in structures:
            k += len(container_values.leaf_names(structures[name]))
            continue
        if index in found:
            flat[k] = found[index]
        k += 1
    return flat


class _Scan:
    """Flow-sensitive: which parameters each name may hold (or a view of) at each statement;
    a copy (`q = q.copy()`) holds none. A write is the parameter's where its name may hold it."""

    def __init__(self, source):
        self.source = source
        self.tree = source.tree
        self.params = [a.id for a in resolve.parameters(self.tree.args)]
        self.found = {}

    def written(self):
        self._block(self.tree.body, {p: {i} for i, p in enumerate(self.params)})
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
                    for name in nodes.names(node.target):
                        entry[name] = set(state.get(_view_of(node.iter), ()))
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
                self._bind(target, node.value, state)
        return state

    def _bind(self, target, value, state):
        if isinstance(target, gast.Name):
            state[target.id] = set(state.get(_view_of(value), ()))
        elif isinstance(target, (gast.Tuple, gast.List)):  # as before: not followed
            for name in nodes.names(target):
                state[name] = set()

    def _check(self, node, state):
        for write, name in self._writes(node):
            for index in sorted(state.get(name, ())):
                self.found.setdefault(index, (self.source.loc(write), self.params[index]))

    def _writes(self, root):
        """(node, name written into) for every in-place write in `root` (one statement, or
        the test of one)."""
        for node in gast.walk(root):
            if isinstance(node, (gast.Assign, gast.AugAssign)):
                targets = node.targets if isinstance(node, gast.Assign) else [node.target]
                for target in targets:
                    for part in gast.walk(target):
                        if isinstance(part, (gast.Subscript, gast.Attribute)) and \
                                isinstance(part.ctx, gast.Store):
                            base = _base(part)
                            if base is not None:
                                yield node, base
                if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
                    yield node, node.target.id  # in place when it holds an array
            elif isinstance(node, gast.Call):
                yield from self._call_writes(node)

    def _call_writes(self, call):
        func = call.func
        for keyword in call.keywords:
            if keyword.arg == "out" and isinstance(keyword.value, gast.Name):
                yield call, keyword.value.id
        if isinstance(func, gast.Attribute) and func.attr in _IN_PLACE_METHODS and \
                isinstance(func.value, gast.Name):
            yield call, func.value.id
            return
        chain = nodes.dotted_parts(func)
        if chain and chain[-1] == "copyto" and call.args and isinstance(call.args[0], gast.Name):
            yield call, call.args[0].id
            return
        callee = self._function(chain)
        if callee is None:
            return
        for index in written_parameters(callee):
            if index < len(call.args) and isinstance(call.args[index], gast.Name):
                yield call, call.args[index].id

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
    return {name: a.get(name, set()) | b.get(name, set()) for name in set(a) | set(b)}


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
