"""Decide now the tests of what a value is, when the function's kinds show it, and keep only
the branch they take: `type(x) is T`, `type(x) in (A, B)`, `isinstance(x, (A, B))`,
`numpy.isscalar(x[0])`, `len(xs)` of a list display, and what `not`, `and`, `or` and
comparisons make of them and of constants (a parameter given a literal, `rot=0` left to its
default). The kinds are the arguments' (pipeline kinds; known_kinds.py), followed through the
code's assignments. Library code checks its arguments this way; left in, the branch that is
never taken would be differentiated, and it names classes generated code cannot hold:

    def __call__(self, point):                    def __call__(self, point):
        if type(point) is Optimum:      -->           return self._evaluate(point)
            point = point.position
        return self._evaluate(point)                  # (point: a float64 array)

    x = [x] if isscalar(x[0]) else x    -->       x = [x]         # (x: a 1-D array)

It runs before everything else reads the code (a class in a test taken away is never
resolved). `typed_calls` then gives each call of a function of yours a copy of the function
that knows its arguments' kinds (and is specialised on the defaults the call leaves), so the
callee decides its own tests the same way.
"""
import builtins
import inspect
import types

import gast
import numpy

from s2sad.errors import S2sadError

from .. import facts, nodes
from . import container_arguments, parse
from . import known_kinds as kk
from .known_kinds import UNKNOWN, Kind

_COMPARE = {gast.Eq: lambda a, b: a == b, gast.NotEq: lambda a, b: a != b,
            gast.Is: lambda a, b: a is b, gast.IsNot: lambda a, b: a is not b,
            gast.In: lambda a, b: a in b, gast.NotIn: lambda a, b: a not in b,
            gast.Lt: lambda a, b: a < b, gast.LtE: lambda a, b: a <= b,
            gast.Gt: lambda a, b: a > b, gast.GtE: lambda a, b: a >= b}
_ARRAY_COPIES = (numpy.asarray, numpy.asanyarray, numpy.ascontiguousarray, numpy.array)
_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)


def fold(source, kinds):
    """Rewrite `source.tree` in place, for arguments of these pipeline kinds."""
    tree = source.tree
    params = _parameters(tree)
    folder = _Folder(kk.namespace(source.func), _stored(tree) | set(params), kinds)
    tree.body = folder.block(tree.body, kk.of_parameters(params, kinds)) or [gast.Pass()]
    args = tree.args  # (annotations claim kinds too; generated code does not import their names)
    for arg in list(args.posonlyargs) + list(args.args) + list(args.kwonlyargs) + \
            [a for a in (args.vararg, args.kwarg) if a is not None]:
        arg.annotation = None
    tree.returns = None


def typed_calls(source, kinds, callees):
    """Each call of a function of yours (facts.USER) now calls a copy that knows the kinds of
    the arguments it passes (facts.TYPES) and takes the defaults it leaves as constants
    (facts.DEFAULTED). Returns `callees` (emitted name -> function) updated."""
    tree = source.tree
    params = _parameters(tree)
    folder = _Folder(kk.namespace(source.func), _stored(tree) | set(params), kinds)
    folder.calls = []
    tree.body = folder.block(tree.body, kk.of_parameters(params, kinds)) or [gast.Pass()]
    for call, env in folder.calls:
        func = facts.REF.of(call)
        try:
            signature = inspect.signature(func)
            bound = signature.bind_partial(*call.args, **{k.arg: k.value for k in call.keywords
                                                         if k.arg is not None})
        except (TypeError, ValueError):
            continue
        asks, tested = _asks(func)
        described = []
        for name, argument in bound.arguments.items() if asks else ():
            kind = folder.kind(argument, env) if isinstance(argument, gast.AST) else None
            key = _key(kind)
            if key is not None:
                described.append((name, key))
        for name, parameter in signature.parameters.items():
            if name not in bound.arguments and parameter.default is not parameter.empty and \
                    name in tested and \
                    type(parameter.default) in (int, float, bool, str, type(None)):
                constant = gast.copy_location(gast.Constant(parameter.default, None), call)
                facts.DEFAULTED.put(constant, True)
                call.keywords.append(gast.keyword(name, constant))
        if described:
            facts.REF.put(call, _typed(func, frozenset(described)))
    calls = [n for n in nodes.walk(tree) if isinstance(n, gast.Call) and facts.USER.of(n) and
             isinstance(n.func, gast.Name)]
    refs = {}  # emitted name -> the functions its calls call now
    for call in calls:
        refs.setdefault(call.func.id, []).append(facts.REF.of(call))
    out, taken = dict(callees), nodes.names(tree) | set(callees)
    for emitted, called in refs.items():
        distinct = list(dict.fromkeys(called))
        if emitted in out and len(distinct) == 1:
            out[emitted] = distinct[0]
            continue
        for copy in distinct:  # (one function called with arguments of other kinds)
            if copy is out.get(emitted):
                continue
            k = 2
            while f"{emitted}_{k}" in taken:
                k += 1
            taken.add(f"{emitted}_{k}")
            out[f"{emitted}_{k}"] = copy
            for call in calls:
                if facts.REF.of(call) is copy and call.func.id == emitted:
                    call.func.id = f"{emitted}_{k}"
    called = {facts.REF.of(n) for n in calls}
    return {name: f for name, f in out.items() if f in called or name not in refs}


_typed_copies = {}
_TESTS = (builtins.type, builtins.isinstance, numpy.isscalar, numpy.ndim)
_asked = {}   # code -> (whether it asks what a value is, the names its tests read)


def _asks(func, depth=0):
    """(whether `func`, or a function of yours it calls, asks what a value is: type,
    isinstance, isscalar, ndim; the names its `if`, `while` and `x if C else y` tests read).
    A copy of a callee is made only for what it asks: calls passing the same arguments
    otherwise share one generated function."""
    code = getattr(func, "__code__", None)
    if code is None or depth > 4:
        return False, set()
    if code not in _asked:
        _asked[code] = (False, set())  # (recursion: what is found so far)
        try:
            tree = parse.parse_function(func).tree
        except S2sadError:
            return _asked[code]
        namespace, asks, tested = kk.namespace(func), False, set()
        for node in nodes.walk(tree):
            if isinstance(node, (gast.If, gast.While, gast.IfExp, gast.Assert)):
                tested |= nodes.names_loaded(node.test)
            if isinstance(node, gast.Attribute) and node.attr == "ndim":
                asks = True
            if not isinstance(node, gast.Call) or asks:
                continue
            called = _static_callees(node.func, namespace, func)
            asks = any(c in _TESTS or isinstance(c, types.FunctionType) and
                       _asks(c, depth + 1)[0] for c in called)
        _asked[code] = (asks, tested)
    return _asked[code]


def _static_callees(node, namespace, func):
    """The objects a call's function may name: a global's, or for `self.method` the method of
    func's class and of its subclasses."""
    chain = nodes.dotted_parts(node) or []
    if len(chain) == 2 and chain[0] == "self":
        owner = namespace.get(func.__qualname__.split(".")[0])
        classes, found = [owner] if isinstance(owner, type) else [], []
        while classes:
            cls = classes.pop()
            found.append(inspect.getattr_static(cls, chain[1], None))
            classes += cls.__subclasses__()
        return found
    value = namespace.get(chain[0]) if chain else None
    for part in chain[1:]:
        value = getattr(value, part, None)
    return [value]


def _typed(func, described):
    key = (func, func.__code__, described)
    if key not in _typed_copies:
        copy = container_arguments.copy_function(func, list(inspect.signature(
            func).parameters.values()))
        facts.TYPES.put(copy, frozenset(facts.TYPES.of(func)) | described)
        _typed_copies[key] = copy
    return _typed_copies[key]


def _key(kind):
    """A known_kinds.describe key for an argument of this Kind, or None."""
    if kind is None or kind.cls is None:
        return None
    if kind.cls is numpy.ndarray:
        return ("numpy.ndarray", kind.dtype, kind.ndim) if kind.ndim >= 0 else None
    if kind.cls in (float, int, complex, bool) or issubclass(kind.cls, numpy.generic):
        return (f"{kind.cls.__module__}.{kind.cls.__qualname__}", "", 0)
    return None


def _parameters(tree):
    args = tree.args
    return [a.id for a in list(args.posonlyargs) + list(args.args) + list(args.kwonlyargs)] + \
        [a.id for a in (args.vararg, args.kwarg) if a is not None]


def _stored(node):
    """Every name `node` binds (assignments, loop targets, `del`, nested defs, imports)."""
    found = set()
    for n in nodes.walk(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            found.add(n.id)
        elif isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)) and \
                n is not node:
            found.add(n.name)
        elif isinstance(n, (gast.Import, gast.ImportFrom)):
            found.update((a.asname or a.name).split(".")[0] for a in n.names)
        elif isinstance(n, (gast.Global, gast.Nonlocal)):
            found.update(n.names)
    return found


class _Folder:
    def __init__(self, namespace, local, kinds):
        self.namespace, self.local, self.kinds = namespace, local, kinds
        self.calls = None   # typed_calls: (call of a function of yours, the kinds there)
        self.depth = 0      # calls followed into (_returned)
        self.final = {}     # id of a `return` -> the Kind it returns

    # ---- statements ------------------------------------------------------------------------

    def block(self, statements, env):
        out = []
        for statement in statements:
            out += self.statement(statement, env)
            if out and isinstance(out[-1], (gast.Return, gast.Raise)):
                break  # (what follows a branch kept in place of its `if` is never reached)
        return out

    def statement(self, node, env):
        if isinstance(node, gast.If):
            value = self.value(node.test, env)
            if value is not UNKNOWN:
                return self.block(node.body if value else node.orelse, env)
            node.test = self.expression(node.test, env)
            env1, env2 = dict(env), dict(env)
            node.body = self.block(node.body, env1) or [gast.Pass()]
            node.orelse = self.block(node.orelse, env2)
            ends = [b and isinstance(b[-1], (gast.Return, gast.Raise))
                    for b in (node.body, node.orelse)]
            kept = env2 if ends[0] and not ends[1] else env1 if ends[1] and not ends[0] else \
                {n: k for n, k in env1.items() if env2.get(n) == k}
            env.clear()
            env.update(kept)
            return [node]
        if isinstance(node, gast.Assert):
            node.test = self.expression(node.test, env)
            return [] if self.value(node.test, env) not in (UNKNOWN, False) else [node]
        if isinstance(node, (gast.Assign, gast.AnnAssign)) and node.value is not None:
            node.value = self.expression(node.value, env)
            targets = node.targets if isinstance(node, gast.Assign) else [node.target]
            kind = self.kind(node.value, env)
            self._forget(targets, env)
            if len(targets) == 1 and isinstance(targets[0], gast.Name):
                if kind is not None:
                    env[targets[0].id] = kind
            return [node]
        if isinstance(node, (gast.For, gast.AsyncFor, gast.While)):
            self._forget([node], env)
            if isinstance(node, gast.While):
                node.test = self.expression(node.test, env)
            else:
                node.iter = self.expression(node.iter, env)
            inner = dict(env)
            if not isinstance(node, gast.While) and isinstance(node.target, gast.Name):
                iterated = self.kind(node.iter, env)
                item = self._item(node.iter, iterated)
                if item is not None:
                    inner[node.target.id] = item
            node.body = self.block(node.body, inner) or [gast.Pass()]
            node.orelse = self.block(node.orelse, dict(env))
            return [node]
        if any(isinstance(getattr(node, f, None), list) for f in ("body", "handlers")) and \
                not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            self._forget([node], env)  # with, try: their blocks, what they bind forgotten
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(node, field, None)
                if isinstance(inner, list) and inner:
                    setattr(node, field, self.block(inner, dict(env)) or [gast.Pass()])
            for handler in getattr(node, "handlers", []):
                handler.body = self.block(handler.body, dict(env)) or [gast.Pass()]
            return [node]
        self._forget([node], env)
        if not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            for field in node._fields:
                value = getattr(node, field, None)
                if isinstance(value, gast.expr):
                    setattr(node, field, self.expression(value, env))
        if isinstance(node, gast.Return) and node.value is not None:
            self.final[id(node)] = self.kind(node.value, env)
        return [node]

    def _forget(self, parts, env):
        for part in parts:
            for name in _stored(part) | ({part.name} if isinstance(
                    part, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)) else set()):
                env.pop(name, None)

    def _item(self, iterable, kind):
        """The Kind of what a loop over `iterable` gives: an array's rows or elements, a
        `range`'s ints."""
        if isinstance(iterable, gast.Call) and self.value(iterable.func, {}) is builtins.range:
            return Kind(int)
        return kind.item() if kind is not None else None

    # ---- expressions -----------------------------------------------------------------------

    def expression(self, node, env):
        """`node` with its known tests (`x if C else y`, a type test) replaced by what they
        give; records the calls of functions of yours for typed_calls."""
        if isinstance(node, gast.IfExp):
            value = self.value(node.test, env)
            if value is not UNKNOWN:
                return self.expression(node.body if value else node.orelse, env)
        if isinstance(node, (gast.Compare, gast.BoolOp, gast.UnaryOp, gast.Call)) and \
                self._is_test(node):
            value = self.value(node, env)
            if isinstance(value, bool):
                return gast.copy_location(gast.Constant(value, None), node)
        if isinstance(node, (gast.ListComp, gast.SetComp, gast.GeneratorExp, gast.DictComp)):
            inner = dict(env)
            for k, generator in enumerate(node.generators):
                generator.iter = self.expression(generator.iter, env if k == 0 else inner)
                item = self._item(generator.iter, self.kind(generator.iter, env if k == 0
                                                            else inner))
                self._forget([generator.target], inner)
                if isinstance(generator.target, gast.Name) and item is not None:
                    inner[generator.target.id] = item
                generator.ifs = [self.expression(t, inner) for t in generator.ifs]
            for field in ("elt", "key", "value"):
                if getattr(node, field, None) is not None:
                    setattr(node, field, self.expression(getattr(node, field), inner))
            return node
        if isinstance(node, gast.Lambda):
            return node
        if isinstance(node, gast.Call) and self.calls is not None and facts.USER.of(node):
            self.calls.append((node, dict(env)))
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, gast.expr):
                setattr(node, field, self.expression(value, env))
            elif isinstance(value, list):
                setattr(node, field, [self.expression(v, env) if isinstance(v, gast.expr) else
                                      self._keyword(v, env) for v in value])
        return node

    def _returned(self, func, call, env):
        """The Kind a call of a function of yours returns, when every `return` of it returns
        one Kind for arguments of the kinds this call passes (`c = _coords(x)`)."""
        if self.depth >= 3 or any(isinstance(a, gast.Starred) for a in call.args) or \
                any(k.arg is None for k in call.keywords):
            return None
        try:
            bound = inspect.signature(func).bind(*call.args,
                                                 **{k.arg: k.value for k in call.keywords})
            bound.apply_defaults()
            source = parse.parse_function(func)
        except (TypeError, ValueError, S2sadError):
            return None
        inner = {}
        for name, argument in bound.arguments.items():
            kind = self.kind(argument, env) if isinstance(argument, gast.AST) else \
                kk.constant(argument) if kk.static_global(argument) else None
            if kind is not None:
                inner[name] = kind
        tree = source.tree
        folder = _Folder(kk.namespace(func), _stored(tree) | set(_parameters(tree)), ())
        folder.depth = self.depth + 1
        body = folder.block(tree.body, inner)
        returns = [n for s in body for n in nodes.walk(s) if isinstance(n, gast.Return)]
        if not returns or any(isinstance(n, (gast.FunctionDef, gast.Lambda, gast.Yield))
                              for s in body for n in nodes.walk(s)):
            return None
        kinds = [folder.final.get(id(r)) for r in returns]
        return kinds[0] if all(k is not None and k == kinds[0] for k in kinds) else None

    def _keyword(self, node, env):
        if isinstance(node, gast.keyword):
            node.value = self.expression(node.value, env)
        return node

    def _is_test(self, node):
        """Whether `node` asks what a value is (type, isinstance, isscalar, len) or combines
        such questions: replaced by its answer when known."""
        for n in nodes.walk(node):
            if isinstance(n, gast.Call) and self.value(n.func, {}) in (
                    builtins.type, builtins.isinstance, numpy.isscalar):
                return True
        return False

    def value(self, node, env):
        """The value of `node` if it is known now, else UNKNOWN."""
        if isinstance(node, gast.Constant):
            return node.value
        if isinstance(node, gast.Name):
            if node.id in env:
                return env[node.id].value
            if node.id in self.local or node.id not in self.namespace:
                return UNKNOWN
            found = self.namespace[node.id]
            return found if kk.static_global(found) else UNKNOWN
        if isinstance(node, gast.Attribute):
            if isinstance(node.value, gast.Name) and node.value.id in env:
                if node.attr == "ndim" and env[node.value.id].spec is None:  # (`x.ndim == 1`)
                    return kk.dimensions(env[node.value.id])
                held = kk.field(env[node.value.id], node.attr, self.kinds)
                return held.value if held is not None else UNKNOWN
            base = self.value(node.value, env)
            if isinstance(base, type) or type(base).__name__ == "module":
                found = getattr(base, node.attr, UNKNOWN)
                return found if kk.static_global(found) else UNKNOWN
            return UNKNOWN
        if isinstance(node, (gast.Tuple, gast.List)):
            parts = [self.value(e, env) for e in node.elts]
            if any(p is UNKNOWN for p in parts) or \
                    any(isinstance(e, gast.Starred) for e in node.elts):
                return UNKNOWN
            return tuple(parts) if isinstance(node, gast.Tuple) else parts
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
            inner = self.value(node.operand, env)
            return UNKNOWN if inner is UNKNOWN else not inner
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
            inner = self.value(node.operand, env)
            return -inner if type(inner) in (int, float) else UNKNOWN
        if isinstance(node, gast.BoolOp):
            return self._bool(node, env)
        if isinstance(node, gast.Compare):
            return self._compare(node, env)
        if isinstance(node, gast.Call):
            return self._call(node, env)
        return UNKNOWN

    def _bool(self, node, env):
        """`a and b` / `a or b`: known when an operand decides it after operands that are
        unknown but call nothing, or when all are known."""
        deciding = isinstance(node.op, gast.Or)
        value, unknown = UNKNOWN, False
        for operand in node.values:
            value = self.value(operand, env)
            if value is UNKNOWN:
                if any(isinstance(n, gast.Call) for n in nodes.walk(operand)):
                    return UNKNOWN
                unknown = True
                continue
            if bool(value) == deciding:
                return value if not unknown else bool(value)
        return UNKNOWN if unknown else value

    def _compare(self, node, env):
        left = self.value(node.left, env)
        for op, right_node in zip(node.ops, node.comparators):
            right = self.value(right_node, env)
            if left is UNKNOWN or right is UNKNOWN or type(op) not in _COMPARE or \
                    isinstance(left, numpy.ndarray) or isinstance(right, numpy.ndarray):
                return UNKNOWN
            try:
                if not _COMPARE[type(op)](left, right):
                    return False
            except TypeError:
                return UNKNOWN
            left = right
        return True

    def _call(self, node, env):
        func = self.value(node.func, env)
        args = node.args
        if node.keywords or any(isinstance(a, gast.Starred) for a in args):
            return UNKNOWN
        if func is builtins.type and len(args) == 1:
            kind = self.kind(args[0], env)
            return kind.cls if kind is not None and kind.cls is not None else UNKNOWN
        if func is builtins.isinstance and len(args) == 2:
            kind, classes = self.kind(args[0], env), self.value(args[1], env)
            return UNKNOWN if kind is None or classes is UNKNOWN else kind.instance(classes)
        if func is numpy.isscalar and len(args) == 1:
            kind = self.kind(args[0], env)
            return UNKNOWN if kind is None else kind.scalar
        if func is numpy.ndim and len(args) == 1:
            kind = self.kind(args[0], env)
            return UNKNOWN if kind is None else kk.dimensions(kind)
        if func is builtins.len and len(args) == 1:
            kind = self.kind(args[0], env)
            return len(kind.items) if kind is not None and kind.items is not None else UNKNOWN
        if func in (builtins.all, builtins.any) and len(args) == 1:
            return self._all_or_any(func, args[0], env)
        return UNKNOWN

    def _all_or_any(self, func, argument, env):
        """all(test for v in xs) / any(...): known when the test is known for the kind of
        every element (and, where it matters, xs is known to be empty or not)."""
        if isinstance(argument, (gast.GeneratorExp, gast.ListComp)) and \
                len(argument.generators) == 1 and not argument.generators[0].ifs and \
                isinstance(argument.generators[0].target, gast.Name):
            generator = argument.generators[0]
            iterated = self.kind(generator.iter, env)
            item = self._item(generator.iter, iterated)
            if item is None:
                return UNKNOWN
            inner = dict(env, **{generator.target.id: item})
            value = self.value(argument.elt, inner)
            length = len(iterated.items) if iterated is not None and \
                iterated.items is not None else None
            if value is UNKNOWN:
                return UNKNOWN
            if func is builtins.all:
                return True if value else (False if length else UNKNOWN if length is None
                                           else True)
            return False if not value else (True if length else UNKNOWN if length is None
                                            else False)
        values = self.value(argument, env)
        return func(values) if isinstance(values, (list, tuple)) else UNKNOWN

    def kind(self, node, env):
        """The Kind of `node`'s value, or None."""
        if isinstance(node, gast.Name):
            if node.id in env:
                return env[node.id]
        elif isinstance(node, gast.Constant):
            return kk.constant(node.value)
        elif isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and \
                node.value.id in env:
            held = env[node.value.id]
            if node.attr == "shape" and held.cls is numpy.ndarray and held.ndim >= 0:
                return Kind(tuple, items=(Kind(int),) * held.ndim)  # (`len(x.shape)`)
            return kk.field(held, node.attr, self.kinds)
        elif isinstance(node, gast.Subscript):
            index = node.slice
            index_kind = None if isinstance(index, gast.Slice) else self.kind(index, env)
            return kk.subscript_kind(self.kind(node.value, env), index, index_kind)
        elif isinstance(node, (gast.List, gast.Tuple)):
            if any(isinstance(e, gast.Starred) for e in node.elts):
                return None
            return Kind(list if isinstance(node, gast.List) else tuple,
                        items=tuple(self.kind(e, env) or Kind() for e in node.elts))
        elif isinstance(node, gast.ListComp):
            generators = node.generators
            iterated = self.kind(generators[0].iter, env) if len(generators) == 1 and \
                not generators[0].ifs else None
            items = iterated.items if iterated is not None else None
            return Kind(list, items=(Kind(),) * len(items) if items is not None else None)
        elif isinstance(node, gast.IfExp):
            value = self.value(node.test, env)
            if value is not UNKNOWN:
                return self.kind(node.body if value else node.orelse, env)
        elif isinstance(node, gast.BinOp) and type(node.op) in _ARITHMETIC:
            return kk.arithmetic(self.kind(node.left, env), self.kind(node.right, env))
        elif isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            operand = self.kind(node.operand, env)
            if operand is not None and operand.value is UNKNOWN:
                return operand
        elif isinstance(node, gast.Call) and len(node.args) == 1 and \
                self.value(node.func, env) in _ARRAY_COPIES:
            kind = self.kind(node.args[0], env)
            if kind is None or kind.cls is not numpy.ndarray or \
                    any(k.arg != "dtype" for k in node.keywords):
                return None
            dtype = [self.value(k.value, env) for k in node.keywords]
            if not dtype:
                return kind
            return Kind(numpy.ndarray, dtype="float64", ndim=kind.ndim) \
                if dtype[0] in (float, numpy.float64, "float64") else None
        elif isinstance(node, gast.Call) and isinstance(self.value(node.func, env),
                                                        types.FunctionType):
            return self._returned(self.value(node.func, env), node, env)
        value = self.value(node, env)
        return kk.constant(value) if value is not UNKNOWN else None
