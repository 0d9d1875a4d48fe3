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

from . import nodes
from .errors import Diagnostic

# Modules generated code may reference, by their canonical names.
EMITTED_MODULES = {"numpy", "math"}
# Array attributes that are plain integers or tuples: reading them never carries a gradient.
SHAPE_ATTRIBUTES = {"shape", "ndim", "size", "dtype"}


@dataclasses.dataclass
class Resolution:
    callees: dict          # emitted name -> user function object, in order of first use
    diagnostics: list


def resolve(source):
    """Rewrite `source.tree` in place; return the callees and any problems."""
    resolver = _Resolver(source)
    resolver.visit(source.tree)
    return Resolution(resolver.callees, resolver.diagnostics)


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
        self.diagnostics = []

    def report(self, node, message, why="", fix=""):
        self.diagnostics.append(Diagnostic(self.source.loc(node), message, why=why, fix=fix))

    def visit_Call(self, node):
        node.args = [self.visit(arg) for arg in node.args]
        node.keywords = [self.visit(keyword) for keyword in node.keywords]
        chain = nodes.dotted_parts(node.func)
        if chain is None or chain[0] in self.locals:
            if chain and len(chain) > 1:
                self.report(node.func, f"method calls (`.{chain[-1]}(...)`) are not supported "
                            "yet", fix=f"call the NumPy function instead, e.g. "
                            f"numpy.{chain[-1]}({chain[0]}, ...)")
            elif chain:
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
        elif _is_user_function(found):
            node.s2sad_user = True
            emitted = "_".join(chain)
            self.callees.setdefault(emitted, found)
            node.func = nodes.dotted(emitted, node.func)
        else:
            self.report(node.func, f"cannot call '{'.'.join(chain)}' "
                        f"({type(found).__name__}) from differentiated code",
                        why="it is neither a NumPy/math/builtin function nor a Python function "
                            "with source",
                        fix="register a derivative for it with @s2sad.adjoint, or compute it "
                            "outside the differentiated function and pass the result in")
        return node

    def visit_Attribute(self, node):
        chain = nodes.dotted_parts(node)
        if chain is None:
            self.generic_visit(node)
            return node
        if chain[0] in self.locals:
            if len(chain) == 2 and chain[1] in SHAPE_ATTRIBUTES:
                return node
            self.report(node, f"the attribute `.{chain[-1]}` of an array is not supported yet",
                        fix="use the NumPy function instead (e.g. numpy.transpose for .T)")
            return node
        return self._constant(node, chain)

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


def _is_user_function(obj):
    return isinstance(obj, types.FunctionType) and obj.__name__ != "<lambda>"
