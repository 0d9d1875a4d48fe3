"""Bind every free name to the object it denotes, and spell it the emitter's way.

Generated code imports only `numpy`, `math` and `rt`, so a user's aliases are rewritten to
canonical names, numbers read from globals are inlined, and calls to other user functions are
marked for recursive transformation:

    import numpy as np                 # user module
    from math import exp
    SCALE = 2.0
    def f(x):                          def f(x):
        y = np.sin(x) * SCALE    -->       y = numpy.sin(x) * 2.0
        return exp(helper(y))              return math.exp(helper(y))      # helper: a callee

Every Call gets `facts.REF`, the function object it calls; user callees are listed in
`Resolution.callees`. Module-level arrays stay names: they become inputs (constants.py). Globals
s2sad cannot put in generated code (objects) are reported, all at once, with the fix.
"""
import builtins
import dataclasses
import importlib
import inspect
import numbers
import sys
import types

import gast
import numpy

from s2sad import templates
from s2sad.errors import Diagnostic
from s2sad.runtime import rt
from s2sad.templates.methods import METHODS

from .. import facts, nodes
from . import container_values, library_calls, parse, recursion, stand_ins, unresolved
from . import resolve_values
from .resolve_values import is_draw, is_function_value, is_generator, is_record_constant

# Modules generated code may reference, by their canonical names.
EMITTED_MODULES = {"numpy", "math"}
# Array attributes that are plain integers or tuples: reading them never carries a gradient.
SHAPE_ATTRIBUTES = unresolved.SHAPE_ATTRIBUTES


@dataclasses.dataclass
class Resolution:
    callees: dict          # emitted name -> user function object, in order of first use
    diagnostics: list
    # emitted name -> (function with a user-registered rule, (module, attribute path) or None):
    # called as it is, differentiated by its rule (@s2sad.adjoint(f))
    externals: dict = dataclasses.field(default_factory=dict)


def resolve(source, classes=None, functions=None):
    """Rewrite `source.tree` in place; return the callees and any problems. `classes`:
    {parameter: the class of the object it is given} (an object passed as its attributes),
    whose methods it may call: `self.layer(x)` calls `Net.layer(self, x)`. `functions`:
    {parameter: the function it is given} (`nonlinearity=np.tanh`), whose calls call it."""
    library_calls.unfreeze(source.tree, _namespace(source.func))  # `d = norm(mu, s)`
    resolver = _Resolver(source)
    resolver.classes = dict(classes or {})
    resolver.functions = {**source.made, **(functions or {})}  # parameter -> its function
    resolver.visit(source.tree)
    diagnostics = resolver.diagnostics + recursion.endless(source)
    return Resolution(resolver.callees, diagnostics, resolver.externals)


def local_names(tree):
    """Parameters and every name the function assigns (Python's rule for locals)."""
    names = {arg.id for arg in parameters(tree.args)}
    for node in nodes.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            names.add(node.id)
    return names


def parameters(args):
    return list(args.posonlyargs) + list(args.args) + list(args.kwonlyargs)


def canonical_name(obj):
    """'numpy.sin' for numpy.sin, 'math.exp' for math.exp, 'abs' for builtins.abs, else None."""
    if getattr(builtins, getattr(obj, "__name__", ""), None) is obj:
        return obj.__name__
    if getattr(rt, getattr(obj, "__name__", ""), None) is obj:
        return f"rt.{obj.__name__}"  # s2sad.stop_gradient
    module, name = getattr(obj, "__module__", None), getattr(obj, "__name__", None)
    if not module or not name or module.split(".")[0] not in EMITTED_MODULES:
        return None
    try:
        found = _lookup(module, name)
    except (ImportError, AttributeError):
        return None
    return f"{module}.{name}" if found is obj else None


def _lookup(module, name):
    return getattr(importlib.import_module(module), name)


class _Resolver(resolve_values.Values, nodes.Transformer):
    def __init__(self, source):
        self.source = source
        self.locals = local_names(source.tree)
        self.namespace = _namespace(source.func)
        self.callees = {}
        self.externals = {}
        self.diagnostics = []

    def report(self, node, message, why="", fix=""):
        self.diagnostics.append(Diagnostic(self.source.loc(node), message, why=why, fix=fix))

    def visit_FunctionDef(self, node):
        if node is self.source.tree:
            given = _defaults_of(node.args, self.functions)  # (`nonlinearity=np.tanh`: the
            saved = [(d, list(getattr(node.args, d))) for d in ("defaults", "kw_defaults")]
            for field, values in saved:                      # value given is bound instead)
                setattr(node.args, field, [None if id(v) in given else v for v in values])
            node = self.generic_visit(node)
            for field, values in saved:
                setattr(node.args, field, [v if id(v) in given else new for v, new in
                                           zip(values, getattr(node.args, field))])
            return node
        return self._nested(node)

    def _nested(self, node):
        """A nested def, class, lambda or comprehension: the fence reports it; its inside is
        not the function's code, so its names are not looked up."""
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            self.locals.add(node.name)
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = _nested
    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _nested

    def visit_Call(self, node):
        node.args = [self._function_value(arg) or self.visit(arg) for arg in node.args]
        for keyword in node.keywords:
            keyword.value = self._function_value(keyword.value) or self.visit(keyword.value)
        node = self._call(node)
        given = [*node.args, *(k.value for k in node.keywords)] \
            if isinstance(node, gast.Call) and not facts.USER.of(node) else ()
        for arg in given:
            if isinstance(arg, gast.Constant) and callable(arg.value):
                what = "this lambda" if str(getattr(arg.value, "__qualname__", "")).endswith(
                    "<lambda>") else f"the function '{arg.value.__name__}'"
                self.report(arg, f"{what} is passed to a function that is not yours", why="s2sad specialises a function of yours on "
                            "the function it is given; a library function would call it "
                            "where s2sad cannot see", fix="call it directly, or pass it to a "
                            "function of yours")
                arg.value = None
        return node

    def _call(self, node):
        chain = nodes.dotted_parts(node.func)
        if isinstance(node.func, gast.Attribute) and (chain is None or chain[0] in self.locals
                                                      or self._on_array(chain)):
            return self._method_call(node)
        item = self._global_item(node.func) if chain is None else None
        if item is not None:  # `LAYERS[0][0](x)`: a function a module-level list holds
            chain, found = item
        elif chain is not None and len(chain) == 1 and chain[0] in self.functions:
            found = self.functions[chain[0]]  # a function given as an argument
        elif chain is None or chain[0] in self.locals:
            if chain:
                self.report(node.func, f"cannot call the local variable '{chain[0]}'",
                            why="s2sad must know at transform time which function is called",
                            fix="call the function by its global name")
            return node
        else:
            bound = library_calls.bind(self, node, chain)  # scipy.stats norm.logpdf(x, m, s)
            if bound is not None:
                return bound
            held = self._record_prefix(chain)
            if held:  # `model.energy(x)` of a module-level object: Model.energy(model, x)
                receiver, value = self._record_read(node.func.value, chain[:-1], held)
                method = inspect.getattr_static(type(value), chain[-1], None)
                if isinstance(method, types.FunctionType):
                    return self._user_call(node, chain, method, [receiver, *node.args])
            found = self._lookup(node.func, chain)
            call = inspect.getattr_static(type(found), "__call__", None) \
                if is_record_constant(found) else None
            if isinstance(call, types.FunctionType):  # `LOSS(x)`, `model._f(x)`: objects
                held = self._record_prefix(chain + ["__call__"])
                receiver = self._record_read(node.func, chain, held)[0] if held < len(chain) \
                    else self._constant(node.func, chain)
                return self._user_call(node, chain, call, [receiver, *node.args])
        if found is _MISSING:
            return node
        if isinstance(found, types.ModuleType) or not callable(found):
            self.report(node.func, f"'{'.'.join(chain)}' is not a function",
                        why="it is a module or a value, and calling it fails",
                        fix="call the function it contains, e.g. numpy.sin(x)")
            return node
        if is_draw(found):  # numpy.random.randn(...), RS.normal(...) of a module generator
            return self._draw(node, chain, found)
        made = getattr(found, "differentiable_function", None)
        if callable(made) and type(found).__module__.startswith("s2sad."):
            node.args = list(node.args) + [  # (then the constants f reads: the caller's too)
                gast.copy_location(nodes.name(n), node) for n in found.nested_constants()]
            found = made()  # s2sad.grad(f) called inside: f's derivative, a generated function
        found = parse.named(stand_ins.stand_in(node, found, self.report))  # (odeint; a lambda)
        facts.REF.put(node, found)
        name = canonical_name(found)
        if name is not None:
            node.func = nodes.dotted(name, node.func)
        elif templates.rule_for(found) is not None or templates.tangent_for(found) is not None:
            emitted = "_".join(chain)  # a user's rule wins over the function's own source
            self.externals.setdefault(emitted, (found, self._location(chain)))
            node.func = nodes.dotted(emitted, node.func)
        elif is_user_function(found):
            facts.USER.put(node, True)
            pack_star_arguments(node, found)
            _pass_function_defaults(node, found)
            emitted = "_".join(chain)
            self.callees.setdefault(emitted, found)
            node.func = nodes.dotted(emitted, node.func)
        elif container_values.class_fields(found) is not None:
            pass  # a NamedTuple or dataclass made: a container (containers.py holds it)
        elif self._importable(chain, found) is not None:  # no rule, no source: run as it is
            emitted = "_".join(chain)
            self.externals.setdefault(emitted, (found, self._importable(chain, found)))
            node.func = nodes.dotted(emitted, node.func)
        else:
            self.report(node.func, *unresolved.uncallable(chain, found))
        return node

    def _importable(self, chain, found):
        """(module, attribute path) from which generated code can import the callable `found`
        that `chain` names, or None (a bound method, a callable object, a local function)."""
        location = self._location(chain)
        if location is None:
            module, path = getattr(found, "__module__", None), getattr(found, "__qualname__", None)
            location = (module, path) if isinstance(module, str) and isinstance(path, str) \
                and "<" not in path else None
        name = getattr(found, "__name__", None)
        if location is None and isinstance(name, str):  # a ufunc says neither
            location = next(((m, name) for m, held in sorted(sys.modules.items())
                             if not m.startswith("_") and getattr(held, name, None) is found),
                            None)
        if location is None or location[0] not in sys.modules:
            return None
        holder = sys.modules[location[0]]
        for part in location[1].split("."):
            holder = getattr(holder, part, None)
        return location if holder is found else None

    def _location(self, chain):
        """(module, attribute path) to import what `chain` names: from the module it is read
        from if there is one (`sp.erf` -> ('scipy.special', 'erf'))."""
        root = self.namespace.get(chain[0])
        if isinstance(root, types.ModuleType) and len(chain) > 1:
            return root.__name__, ".".join(chain[1:])
        return None

    def _method_call(self, node):
        """`x.sum(axis=0)` -> `numpy.sum(x, axis=0)`: the method's NumPy function and its rule."""
        receiver, name = self.visit(node.func.value), node.func.attr
        if name == "append" and isinstance(receiver, gast.Name):
            return node  # a list grown in the function (containers.py)
        if name in ("keys", "values", "items") and self._local(receiver):
            node.func.value = receiver
            facts.FIELD.put(node, True)  # of a dict (containers.py reads it, or reports it)
            return node
        own = self._own_method(receiver, name)
        if own is not None:
            path = resolve_values.path_of(receiver)
            return self._user_call(node, path.split(".") + [name], own,
                                   [receiver, *node.args])
        called = self._called_field(receiver, name)  # `self._f(x)`, _f a callable object
        if called is not None:
            field = gast.copy_location(gast.Attribute(receiver, name, gast.Load()), node.func)
            facts.FIELD.put(field, True)
            path = resolve_values.path_of(receiver)
            return self._user_call(node, path.split(".") + [name], called,
                                   [field, *node.args])
        method = METHODS.get(name)
        if name in unresolved.RANDOM_METHODS and isinstance(receiver, gast.Name) and \
                (method is None or method.attribute):
            node.func.value = receiver  # `rng.normal(...)`: a generator given as an argument
            facts.DRAW.put(node, True)
            return node
        if (method is None or method.attribute) and (self._local(receiver) or self._in_global(
                receiver)) and (self._held_method(name) or not self.classes and
                                self._field_of_parameter(receiver)):
            node.func.value = receiver  # `var.pdf(y)`, var an element of a list of objects:
            facts.METHOD.put(node, True)  # bound once containers.py knows var
            return node
        if method is None and (self.classes.get(resolve_values.path_of(receiver)) or
                               any(hasattr(t, name) for t in (str, dict, list)) and
                               not hasattr(numpy.ndarray, name)):
            node.func.value = receiver  # `self.callback(x)` of a field holding None,
            facts.FIELD.put(node, True)  # `mode.startswith("r")`, `d.get(k)`: under a test
            return node  # decided now (container_tests.py), else reported after containers
        if method is None or method.attribute:
            self.report(node.func, f"the array method `.{name}(...)` is not supported",
                        why="s2sad knows the methods listed in docs/coverage.md",
                        fix=unresolved.method_fix(name) + ", or register the method in "
                            "templates/methods.py")
            return node
        args = node.args
        if method.pack and len(args) > 1:
            args = [gast.Tuple(args, gast.Load())]
        return self._as_function(method, [receiver, *args], node.keywords, node)

    def _held_method(self, name):
        """Whether an object an argument holds (a field, an element of a list) has a method
        `name`: a class of the user's, or a frozen scipy.stats distribution."""
        return any(isinstance(held, library_calls.Frozen) or  # (one without a rule: said then)
                   isinstance(inspect.getattr_static(held, name, None), types.FunctionType)
                   for held in [*self.classes.values(), *self._module_objects()])

    def _module_objects(self):
        """The classes of the objects, and the frozen distributions, in the module lists,
        tuples and dicts the function reads (`PRIORS = [norm(0, 1), t(3)]`)."""
        found, stack = [], [self.namespace.get(n) for n in code_names(self.source.func.__code__)
                            if isinstance(self.namespace.get(n), (list, tuple, dict))]
        while stack and len(found) < 1000:
            value = stack.pop()
            if isinstance(value, (list, tuple, dict)):
                stack += list(value.values() if isinstance(value, dict) else value)
            elif container_values.is_frozen(value):
                found.append(library_calls.Frozen(""))
            elif is_record_constant(value):
                found.append(type(value))
        return found

    def _in_global(self, receiver):
        """`PAIR[1]`: an element of a module list, tuple or dict."""
        root = nodes.root_name(receiver)
        return root is not None and root not in self.locals and isinstance(
            self.namespace.get(root), (list, tuple, dict))

    def _field_of_parameter(self, receiver):
        """`self._phi` of a parameter whose structure is not known here (a method inlined
        into its caller: what `self` holds is known there)."""
        return isinstance(receiver, gast.Attribute) and \
            nodes.root_name(receiver) in {a.id for a in parameters(self.source.tree.args)}

    def _user_call(self, node, chain, function, args):
        """`node` as a call of the user's function `function` with `args`."""
        emitted = "_".join(chain)
        called, keywords = (node.func, node.keywords) if isinstance(node, gast.Call) else \
            (node, [])  # (a property read: its getter called)
        call = gast.copy_location(gast.Call(nodes.dotted(emitted, called), args, keywords),
                                  node)
        facts.REF.put(call, function)
        facts.USER.put(call, True)
        if isinstance(node, gast.Call) and not any(k.arg is None for k in keywords):
            pack_star_arguments(call, function)  # (`**kwargs` spread: containers.py packs)
            _pass_function_defaults(call, function)
        self.callees.setdefault(emitted, function)
        return call

    def _as_function(self, method, args, keywords, node):
        call = gast.Call(nodes.dotted(canonical_name(method.function), node), args, keywords)
        facts.REF.put(call, method.function)
        return gast.copy_location(call, node)

    def visit_Attribute(self, node):
        if not isinstance(node.ctx, gast.Load) or facts.CANONICAL.of(node):
            return node  # `obj.a = v`: the fence reports it; `numpy.inf` made by desugar.py
        chain = nodes.dotted_parts(node)
        if chain is not None and chain[0] not in self.locals and not self._on_array(chain):
            held = self._record_prefix(chain)
            return self._record_read(node, chain, held)[0] if held else \
                self._constant(node, chain)
        receiver = self.visit(node.value)
        getter = self._own_property(receiver, node.attr)
        if getter is not None:
            return self._user_call(node, resolve_values.path_of(receiver).split(".") +
                                   [node.attr], getter, [receiver])
        if node.attr in SHAPE_ATTRIBUTES:
            node.value = receiver
            return node
        method = METHODS.get(node.attr)
        if method is not None and method.attribute:
            return self._as_function(method, [receiver], [], node)
        node.value = receiver
        if self._local(receiver):
            facts.FIELD.put(node, True)  # of a NamedTuple or dataclass (containers.py reads it,
            return node              # or reports it with unknown_attribute)
        self.diagnostics.append(unresolved.unknown_attribute(self.source, node))
        return node

    def _local(self, node):
        """What may hold a container: a local, a call of yours or a record's class, part of one."""
        while isinstance(node, (gast.Attribute, gast.Subscript)):
            node = node.value
        return isinstance(node, gast.Name) and node.id in self.locals or facts.USER.of(node) or \
            isinstance(node, gast.Call) and container_values.class_fields(facts.REF.of(node))

    def visit_Name(self, node):
        if not isinstance(node.ctx, gast.Load) or node.id in self.locals or facts.STATE.of(node):
            return node  # (a function's state attribute: its cell, an input, function_state.py)
        return self._constant(node, [node.id])

    def _constant(self, node, chain):
        """A global read as a value: inline numbers, keep module constants like numpy.pi."""
        found = self._lookup(node, chain)
        if found is _MISSING:
            return node
        if isinstance(found, (bool, str)) or found is None:
            return gast.Constant(found, None)  # (rebinding one transforms again)
        if isinstance(found, type) and canonical_name(found) is not None:
            return nodes.dotted(canonical_name(found), node)  # a dtype: numpy.float64, float
        if is_constant_array(found) or is_constant_container(found) or is_generator(found):
            return gast.copy_location(nodes.name("_".join(chain)), node)  # an input (constants.py)
        if isinstance(found, numbers.Real):
            if len(chain) > 1:
                root = self._lookup(node, chain[:1])
                module = getattr(root, "__name__", "")
                if isinstance(root, types.ModuleType) and module.split(".")[0] in EMITTED_MODULES:
                    return nodes.dotted(".".join([module] + chain[1:]), node)
            return nodes.number_node(found)
        kind = "a module" if isinstance(found, types.ModuleType) else type(found).__name__
        self.report(node, f"the global '{'.'.join(chain)}' ({kind}) cannot be used as a value "
                    "in differentiated code",
                    why="generated code can only inline numbers and call functions",
                    fix="pass it to the function as an argument")
        return node

    def _on_array(self, chain):
        """Whether `chain` is an attribute of a module constant (`W0.T`, `tables.W0.sum`)."""
        value = self.namespace.get(chain[0], _MISSING)
        for attribute in chain[1:]:
            if is_constant_array(value):
                return True
            value = getattr(value, attribute, _MISSING)
        return False

    def _lookup(self, node, chain):
        if chain[0] not in self.namespace:
            self.report(node, f"name '{chain[0]}' is not defined",
                        why="s2sad looks up every name when it transforms the function",
                        fix="define it before differentiating the function")
            return _MISSING
        value = self.namespace[chain[0]]
        for depth, attribute in enumerate(chain[1:], start=1):
            if not hasattr(value, attribute):
                self.report(node, f"'{'.'.join(chain)}' does not exist",
                            why=f"'{'.'.join(chain[:depth])}' has no attribute '{attribute}'",
                            fix="check the spelling")
                return _MISSING
            value = getattr(value, attribute)
        return value


_MISSING = object()


def code_names(code):
    names = list(code.co_names) + list(code.co_freevars)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names += [n for n in code_names(const) if n not in names]
    return names


def _namespace(func):
    namespace = dict(vars(builtins))
    namespace.update(func.__globals__)
    cells = func.__closure__ or ()
    for name, cell in zip(func.__code__.co_freevars, cells):
        try:
            namespace[name] = cell.cell_contents
        except ValueError:  # an empty cell: the variable is not assigned yet
            pass
    return namespace


def is_constant_array(value):
    """A global generated code takes as an input (constants.py): a numeric NumPy array."""
    return isinstance(value, numpy.ndarray) and value.dtype.kind in "biuf"


def is_constant_container(value):
    """A module-level tuple, list or dict (str keys) of numeric arrays and numbers, nested:
    generated code takes its leaves as inputs (constants.py)."""
    if is_record_constant(value):
        return True
    if isinstance(value, dict):
        items = list(value.values())
        if not all(isinstance(k, str) and k.isidentifier() for k in value):
            return False
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        return False
    return bool(items) and all(
        is_constant_array(v) or is_constant_container(v) or is_function_value(v) or
        container_values.is_frozen(v) or
        container_values.is_static_value(v) and not isinstance(v, bytes) or
        (isinstance(v, (numbers.Real, numpy.floating)) and not isinstance(v, (bool, numpy.bool_)))
        for v in items)


def pack_star_arguments(call, func):
    """`g(W, x, h)` of `def g(W, *inputs)` -> `g(W, (x, h))`: the function takes its `*args`
    as one tuple (desugar.py); `h(x, scale=2.0)` of `def h(x, **options)` -> `h(x,
    options={'scale': 2.0})`: its `**kwargs` as one dict of the keywords no parameter names."""
    code = func.__code__
    if any(isinstance(a, gast.Starred) for a in call.args) or \
            any(k.arg is None for k in call.keywords):
        return  # (spread first: containers.py packs them then)
    if code.co_flags & inspect.CO_VARARGS:
        named = code.co_argcount
        extra = call.args[named:]
        packed = gast.Tuple(extra, gast.Load())
        if extra:
            gast.copy_location(packed, extra[0])
        call.args = call.args[:named] + [packed]
    if code.co_flags & inspect.CO_VARKEYWORDS:
        count = code.co_argcount + code.co_kwonlyargcount
        named = set(code.co_varnames[code.co_posonlyargcount:count])
        name = code.co_varnames[count + (1 if code.co_flags & inspect.CO_VARARGS else 0)]
        extra = [k for k in call.keywords if k.arg not in named]
        packed = gast.copy_location(gast.Dict([gast.Constant(k.arg, None) for k in extra],
                                              [k.value for k in extra]), call)
        call.keywords = [k for k in call.keywords if k.arg in named] + \
            [gast.keyword(name, packed)]


def classes_of(structures):
    """{parameter: its class} for the parameters given objects of a class that can be found
    by its name (`structures`: (parameter, spec) pairs, api/pytrees.py), and fields of them,
    `self._f`; objects in lists and dicts too (`self._vars[0]`), and frozen scipy.stats
    distributions (a library_calls.Frozen)."""
    found = {}

    def walk(path, spec):
        if isinstance(spec, tuple) and len(spec) == 5 and spec[0] != "record":
            for key, part in zip(spec[1], spec[2]):  # (objects in a list: `self._vars[0]`)
                walk(f"{path}[{key!r}]", part)
            return
        typename = spec[4] if isinstance(spec, tuple) and len(spec) == 5 else None
        family = library_calls.frozen_family(typename)
        if family is not None:
            found[path] = library_calls.Frozen(family)
            return
        holder = class_named(typename)
        if holder is not None:
            found[path] = holder  # (a record in a record: `self._f`, its path)
            for field, part in zip(spec[3], spec[2]):
                walk(f"{path}.{field}", part)

    for name, spec in structures:
        walk(name, spec)
    return found


def class_named(typename):
    """The class a record's type name (module.qualname, api/pytrees.py) names, else None."""
    module, _, qualname = (typename or "").rpartition(".")
    holder = sys.modules.get(module)
    for part in qualname.split(".") if holder is not None and "<" not in qualname else ():
        holder = getattr(holder, part, None)
    return holder if isinstance(holder, type) else None


def _defaults_of(args, parameters):
    """ids of the default values of `parameters` in a gast.arguments."""
    positional = list(args.posonlyargs) + list(args.args)
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults)) + \
        list(zip(args.kwonlyargs, args.kw_defaults))
    return {id(value) for param, value in pairs if value is not None and param.id in parameters}


def functions_given(structures):
    """{parameter: the function it is given} of `structures` (a function passed as an
    argument is a static leaf of the specialisation, api/pytrees.py)."""
    return {name: spec[1] for name, spec in structures
            if isinstance(spec, tuple) and len(spec) == 2 and spec[0] == "static" and
            callable(spec[1])}


def _pass_function_defaults(call, func):
    """`net(x, W)` of `def net(x, W, act=np.tanh)`: `net(x, W, act=np.tanh)`, the function
    default passed as a constant, on which the callee is specialised (container_arguments.py),
    as a function given to it is; so is a default str, None or bool (`names=None`)."""
    code = func.__code__
    given = set(code.co_varnames[:min(len(call.args), code.co_argcount)]) | \
        {k.arg for k in call.keywords}
    defaults = dict(zip(code.co_varnames[code.co_argcount - len(func.__defaults__ or ()):
                                         code.co_argcount], func.__defaults__ or ()))
    defaults.update(func.__kwdefaults__ or {})
    for name, value in defaults.items():
        if name not in given and is_function_value(value):
            constant = gast.copy_location(gast.Constant(parse.named(value), None), call)
            facts.REF.put(constant, parse.named(value))
            call.keywords.append(gast.keyword(name, constant))
        elif name not in given and container_values.is_static_value(value) and \
                not isinstance(value, bytes):  # `names=None`: a constant of the callee too
            call.keywords.append(gast.keyword(name, gast.copy_location(
                gast.Constant(value, None), call)))


def is_user_function(obj):
    """A Python function of the user's (a `def`, or a lambda: parse.named names it)."""
    return isinstance(obj, types.FunctionType)
