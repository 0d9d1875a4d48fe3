"""Part of resolve.py: what the values a function reads stand for, beyond names and calls of
functions: objects (a module-level object's fields, properties and methods, `self.ndim`),
functions passed as values, functions held in module lists, and random draws.

    PROBLEM = Ackley(ndim=4)                           def f(x, PROBLEM_weights, ...):
    def f(x):                              -->             return Ackley_evaluate(...)
        return PROBLEM.evaluate(x)                     # Ackley.evaluate called with PROBLEM

    layer(x, W, np.tanh)                   -->         layer(x, W, <numpy.tanh>)
                                                       # a constant: layer is specialised on it
"""
import inspect
import types

import gast
import numpy

from .. import facts, nodes
from . import container_values, parse


_MISSING = object()


def is_record_constant(value):
    """A module-level object of a class of the user's, or a dataclass instance: generated code
    takes its fields as inputs, and its methods are called with it (constants.py)."""
    return container_values.is_record(value)


def is_draw(value):
    """A function or method drawing random numbers: one of numpy.random's, or a method of a
    RandomState or Generator."""
    owner = getattr(value, "__self__", None)
    if isinstance(owner, (numpy.random.RandomState, numpy.random.Generator)):
        return getattr(value, "__name__", "") not in ("get_state", "set_state", "seed",
                                                      "spawn", "bit_generator")
    name = getattr(value, "__name__", None)
    return isinstance(name, str) and getattr(numpy.random, name, None) is value and \
        callable(value) and not isinstance(value, type) and \
        name not in ("get_state", "set_state", "seed", "default_rng", "get_bit_generator",
                     "set_bit_generator")


def is_generator(value):
    """A NumPy random generator (RandomState or Generator): held in a global or a closure, it
    is an input of generated code, read at every call, which draws from it (constants.py)."""
    return isinstance(value, (numpy.random.RandomState, numpy.random.Generator))


# NumPy 2's functions that dispatch on `__array_function__` (numpy.sum, numpy.dot) are objects
# of their own type, neither Python functions nor ufuncs
_NUMPY_FUNCTION = type(numpy.sum)


def is_function_value(value):
    """A function that may be passed as a value: a Python function (a `def`, a lambda), a
    builtin, a NumPy ufunc or another NumPy function (`numpy.sum`)."""
    return isinstance(value, (types.FunctionType, types.BuiltinFunctionType, numpy.ufunc,
                              _NUMPY_FUNCTION))


class Values:
    """The methods of resolve._Resolver that resolve values (it provides `namespace`,
    `locals`, `classes`, `functions`, `externals`, `report` and `_user_call`)."""

    def _draw(self, node, chain, found):
        """A draw from NumPy's generator or a module-level one: called as it is (the gradient
        runs as Python, where it draws from the very generator the function uses)."""
        facts.REF.put(node, found)
        facts.DRAW.put(node, True)
        name = getattr(found, "__name__", chain[-1])
        if getattr(numpy.random, name, None) is found:
            node.func = nodes.dotted(f"numpy.random.{name}", node.func)
            return node
        if len(chain) == 2 and is_generator(self.namespace.get(chain[0])):
            # `rs.randn(...)`, rs a global or a closure variable: an input read at every call
            node.func = gast.copy_location(gast.Attribute(
                gast.copy_location(nodes.name(chain[0]), node.func), chain[1], gast.Load()),
                node.func)
            return node
        self.report(node.func, f"cannot draw from '{'.'.join(chain)}' here",
                    why="s2sad draws from numpy.random, and from a generator that is an "
                        "argument, a global or a closure variable",
                    fix="pass the generator to the function as an argument")
        return node

    def _global_item(self, node):
        """(names for the emitted name, the value) of `G[0][1]`, constant subscripts of a
        global list, tuple or dict (function_sequences.py writes them); else None."""
        keys = []
        while isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant):
            keys.insert(0, node.slice.value)
            node = node.value
        if not keys or not isinstance(node, gast.Name) or node.id in self.locals or \
                node.id not in self.namespace:
            return None
        value = self.namespace[node.id]
        for key in keys:
            try:
                value = value[key]
            except (TypeError, KeyError, IndexError):
                return None
        return [node.id] + [container_values.identifier(k) for k in keys], value

    def _function_value(self, node):
        """A function passed to another (`layer(x, W, np.tanh)`, `layer(x, W, act)` with `act`
        given a function): a constant holding the function, on which the callee is specialised
        (container_arguments.py); None for any other argument."""
        chain = nodes.dotted_parts(node)
        if chain is None:
            return None
        if len(chain) == 1 and chain[0] in self.functions:
            found = self.functions[chain[0]]
        elif chain[0] in self.locals or chain[0] not in self.namespace:
            return None
        else:
            found = self.namespace[chain[0]]
            for attribute in chain[1:]:
                found = getattr(found, attribute, _MISSING)
        if not is_function_value(found):
            return None
        constant = gast.copy_location(gast.Constant(parse.named(found), None), node)
        facts.REF.put(constant, parse.named(found))
        return constant

    def _own_method(self, receiver, name):
        """The plain function `receiver.name` runs, when receiver is a parameter (or a field
        of one, `self._f`) given an object of a class with that method (not a static or class
        method), else None."""
        cls = self.classes.get(path_of(receiver))
        found = inspect.getattr_static(cls, name, None) if cls is not None else None
        return found if isinstance(found, types.FunctionType) else None

    def _called_field(self, receiver, name):
        """`type(f).__call__` when `receiver.name` is a field holding a callable object of a
        class with a Python `__call__` (`self._f(x)`), else None."""
        cls = self.classes.get(f"{path_of(receiver)}.{name}")
        found = inspect.getattr_static(cls, "__call__", None) if cls is not None else None
        return found if isinstance(found, types.FunctionType) else None

    def _own_property(self, receiver, name):
        """The getter `receiver.name` runs when it reads a property of a class of the user's
        (`self.ndim` -> `Problem.ndim.fget(self)`), else None."""
        cls = self.classes.get(path_of(receiver))
        return _getter(cls, name) if cls is not None else None

    def _record_prefix(self, chain):
        """How many names of `chain` lead to a module-level object held as a record (`model`
        in `model.W`, `pkg.model` in `pkg.model.W`), or 0."""
        value = self.namespace.get(chain[0], _MISSING)
        if chain[0] in self.locals:
            return 0
        for depth in range(1, len(chain)):
            if is_record_constant(value):
                return depth
            if not isinstance(value, types.ModuleType):
                return 0
            value = getattr(value, chain[depth], _MISSING)
        return 0

    def _record_read(self, like, chain, held):
        """`chain` (whose first `held` names lead to a module record) as a read of the record's
        fields, a property's getter called where the chain reads one; and the value it reads
        now."""
        value = self.namespace[chain[0]]
        for name in chain[1:held]:
            value = getattr(value, name)
        node = gast.copy_location(nodes.name("_".join(chain[:held])), like)
        for name in chain[held:]:
            getter = _getter(type(value), name)
            if getter is not None:
                node = self._user_call(like, ["_".join(chain[:held]), name], getter, [node])
            else:
                node = gast.copy_location(gast.Attribute(node, name, gast.Load()), like)
                facts.FIELD.put(node, True)  # a field of the record (containers.py reads it)
            value = getattr(value, name, None)
        return node, value


def _getter(cls, name):
    """The getter of the property `name` of `cls`, if it is a Python function, else None."""
    found = inspect.getattr_static(cls, name, None)
    getter = getattr(found, "fget", None) if isinstance(found, property) else None
    return getter if isinstance(getter, types.FunctionType) else None


def path_of(node):
    """`self._f` -> "self._f": a name or an attribute chain of one, else ""."""
    parts = []
    while isinstance(node, gast.Attribute):
        parts.insert(0, node.attr)
        node = node.value
    return ".".join([node.id] + parts) if isinstance(node, gast.Name) else ""
