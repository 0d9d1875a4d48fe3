"""Stage 3: bind every free name to the object it denotes, and spell it the emitter's way.

Generated code imports only `numpy`, `math` and `rt`, so a user's aliases are rewritten to
canonical names, numbers read from globals are inlined, and calls to other user functions are
marked for recursive transformation:

    import numpy as np                 # user module
    from math import exp
    SCALE = 2.0
    def f(x):                          def f(x):
        y = np.sin(x) * SCALE    -->       y = numpy.sin(x) * 2.0
        return exp(helper(y))              return math.exp(helper(y))      # helper: a callee

Every Call gets `node.s2sad_ref`, the function object it calls; user callees are listed in
`Resolution.callees`. Globals s2sad cannot put in generated code (arrays, objects) are reported,
all at once, with the fix.
"""
import builtins
import dataclasses
import importlib
import math
import numbers
import types

import gast
import numpy

from . import nodes, rt, templates
from .errors import Diagnostic
from .templates.methods import METHODS

# Modules generated code may reference, by their canonical names.
EMITTED_MODULES = {"numpy", "math"}
# Array attributes that are plain integers or tuples: reading them never carries a gradient.
SHAPE_ATTRIBUTES = {"shape", "ndim", "size", "dtype"}


@dataclasses.dataclass
class Resolution:
    callees: dict          # emitted name -> user function object, in order of first use
    diagnostics: list
    # emitted name -> (function with a user-registered rule, (module, attribute path) or None):
    # called as it is, differentiated by its rule (@s2sad.adjoint(f))
    externals: dict = dataclasses.field(default_factory=dict)


def resolve(source):
    """Rewrite `source.tree` in place; return the callees and any problems."""
    resolver = _Resolver(source)
    resolver.visit(source.tree)
    return Resolution(resolver.callees, resolver.diagnostics, resolver.externals)


def local_names(tree):
    """Parameters and every name the function assigns (Python's rule for locals)."""
    names = {arg.id for arg in parameters(tree.args)}
    for node in gast.walk(tree):
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


class _Resolver(gast.NodeTransformer):
    def __init__(self, source):
        self.source = source
        self.locals = local_names(source.tree)
        self.namespace = _namespace(source.func)
        self.callees = {}
        self.externals = {}
        self.diagnostics = []

    def report(self, node, message, why="", fix=""):
        self.diagnostics.append(Diagnostic(self.source.loc(node), message, why=why, fix=fix))

    def visit_Call(self, node):
        node.args = [self.visit(arg) for arg in node.args]
        node.keywords = [self.visit(keyword) for keyword in node.keywords]
        chain = nodes.dotted_parts(node.func)
        if isinstance(node.func, gast.Attribute) and (chain is None or chain[0] in self.locals):
            return self._method_call(node)
        if chain is None or chain[0] in self.locals:
            if chain:
                self.report(node.func, f"cannot call the local variable '{chain[0]}'",
                            why="s2sad must know at transform time which function is called",
                            fix="call the function by its global name")
            return node
        found = self._lookup(node.func, chain)
        if found is _MISSING:
            return node
        if isinstance(found, types.ModuleType) or not callable(found):
            self.report(node.func, f"'{'.'.join(chain)}' is not a function")
            return node
        node.s2sad_ref = found
        name = canonical_name(found)
        if name is not None:
            node.func = nodes.dotted(name, node.func)
        elif templates.rule_for(found) is not None or templates.tangent_for(found) is not None:
            emitted = "_".join(chain)  # a user's rule wins over the function's own source
            self.externals.setdefault(emitted, (found, self._location(chain)))
            node.func = nodes.dotted(emitted, node.func)
        elif is_user_function(found):
            node.s2sad_user = True
            emitted = "_".join(chain)
            self.callees.setdefault(emitted, found)
            node.func = nodes.dotted(emitted, node.func)
        else:
            self.report(node.func, f"cannot call '{'.'.join(chain)}' "
                        f"({type(found).__name__}) from differentiated code",
                        why="it is neither a NumPy/math/builtin function nor a Python function "
                            "with source",
                        fix="register a derivative for it with @s2sad.adjoint (README: Adding a "
                            "derivative), wrap the value in s2sad.stop_gradient(...) if no "
                            "gradient should flow, or compute it outside the differentiated "
                            "function and pass the result in")
        return node

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
        method = METHODS.get(name)
        if method is None or method.attribute:
            self.report(node.func, f"the array method `.{name}(...)` is not supported",
                        why="s2sad knows the methods listed in docs/coverage.md",
                        fix=f"call a NumPy function instead (numpy.{name}(x, ...)), or register "
                            "the method in templates/methods.py")
            return node
        args = node.args
        if method.pack and len(args) > 1:
            args = [gast.Tuple(args, gast.Load())]
        return self._as_function(method, [receiver, *args], node.keywords, node)

    def _as_function(self, method, args, keywords, node):
        call = gast.Call(nodes.dotted(canonical_name(method.function), node), args, keywords)
        call.s2sad_ref = method.function
        return gast.copy_location(call, node)

    def visit_Attribute(self, node):
        chain = nodes.dotted_parts(node)
        if chain is not None and chain[0] not in self.locals:
            return self._constant(node, chain)
        receiver = self.visit(node.value)
        if node.attr in SHAPE_ATTRIBUTES:
            node.value = receiver
            return node
        method = METHODS.get(node.attr)
        if method is not None and method.attribute:
            return self._as_function(method, [receiver], [], node)
        node.value = receiver
        supported = ", ".join(f".{m.name}" for m in METHODS.values() if m.attribute)
        self.report(node, f"the array attribute `.{node.attr}` is not supported",
                    why=f"s2sad knows {supported} and the shape attributes "
                        f"({', '.join(sorted(SHAPE_ATTRIBUTES))})",
                    fix="use the NumPy function instead")
        return node

    def visit_Name(self, node):
        if not isinstance(node.ctx, gast.Load) or node.id in self.locals:
            return node
        return self._constant(node, [node.id])

    def _constant(self, node, chain):
        """A global read as a value: inline numbers, keep module constants like numpy.pi."""
        found = self._lookup(node, chain)
        if found is _MISSING:
            return node
        if isinstance(found, bool) or found is None:
            return gast.Constant(found, None)
        if isinstance(found, type) and canonical_name(found) is not None:
            return nodes.dotted(canonical_name(found), node)  # a dtype: numpy.float64, float
        if isinstance(found, numbers.Real):
            if len(chain) > 1:
                root = self._lookup(node, chain[:1])
                module = getattr(root, "__name__", "")
                if isinstance(root, types.ModuleType) and module.split(".")[0] in EMITTED_MODULES:
                    return nodes.dotted(".".join([module] + chain[1:]), node)
            return number_node(found)
        kind = "a module" if isinstance(found, types.ModuleType) else type(found).__name__
        self.report(node, f"the global '{'.'.join(chain)}' ({kind}) cannot be used as a value "
                    "in differentiated code",
                    why="generated code can only inline numbers and call functions",
                    fix="pass it to the function as an argument")
        return node

    def _lookup(self, node, chain):
        if chain[0] not in self.namespace:
            self.report(node, f"name '{chain[0]}' is not defined",
                        fix="define it before differentiating the function")
            return _MISSING
        value = self.namespace[chain[0]]
        for attribute in chain[1:]:
            if not hasattr(value, attribute):
                self.report(node, f"'{'.'.join(chain)}' does not exist")
                return _MISSING
            value = getattr(value, attribute)
        return value


_MISSING = object()


def number_node(value):
    """A literal for a real number; negatives as unary minus (astor prints Constant(-2)**2 as
    -2 ** 2)."""
    if isinstance(value, numpy.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return nodes.dotted("numpy.nan", None)
    if isinstance(value, float) and math.isinf(value):
        inf = nodes.dotted("numpy.inf", None)
        return inf if value > 0 else gast.UnaryOp(gast.USub(), inf)
    if value < 0:
        return gast.UnaryOp(gast.USub(), gast.Constant(-value, None))
    return gast.Constant(value, None)


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


def is_user_function(obj):
    return isinstance(obj, types.FunctionType) and obj.__name__ != "<lambda>"
