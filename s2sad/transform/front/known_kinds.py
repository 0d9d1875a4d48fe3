"""What a value is, when the function is transformed: its class, an array's dtype and number of
dimensions, a list's length, a constant's value (part of kind_tests.py, which decides the tests
on them). The kinds come from the arguments the function is specialised on (pipeline kinds:
which parameters are arrays, numbers, containers, constants, and each one's exact type) and
follow the code's assignments:

    def f(point):          # point: a float64 array of 1 dimension
        v = point[0]       # v: a numpy.float64 --> `type(v) is float`: False
        xs = [point]       # xs: a list of 1 array --> `len(xs) > 1`: False, `isscalar(x[0])`: True

Nothing is guessed: what the code does not show is unknown, and a test on it stays a test.
"""
import builtins
import dataclasses
import numbers
import sys
import types

import gast
import numpy

UNKNOWN = object()


@dataclasses.dataclass(frozen=True)
class Kind:
    cls: object = None        # the exact class, when known
    within: tuple = ()        # classes it is known to be an instance of (cls unknown)
    dtype: str = ""           # an array's dtype, when known
    ndim: int = -1            # an array's number of dimensions, when known
    items: tuple = None       # a list's or tuple's elements' kinds (its length), when known
    spec: object = None       # a container argument's structure (api/pytrees.py)
    value: object = UNKNOWN   # a constant's value

    def instance(self, classes):
        """isinstance(value, classes): True, False or UNKNOWN."""
        classes = classes if isinstance(classes, tuple) else (classes,)
        if not all(isinstance(c, type) for c in classes):
            return UNKNOWN
        if self.cls is not None:
            return issubclass(self.cls, classes)
        if any(issubclass(k, classes) for k in self.within):
            return True
        return False if all(self._excludes(c) for c in classes) else UNKNOWN

    def _excludes(self, cls):
        """Whether no value of this kind can be an instance of `cls`."""
        if isinstance(cls, type) and type(cls) is not type and not issubclass(cls, numpy.ndarray):
            return False  # (an abstract class, a metaclass's: anything may register with it)
        return all(not issubclass(cls, k) and not issubclass(k, cls) for k in self.within)

    @property
    def scalar(self):
        """numpy.isscalar(value): True, False or UNKNOWN."""
        if self.cls is not None:
            return issubclass(self.cls, (numbers.Number, numpy.generic, str, bytes))
        if self.instance(numpy.ndarray) is True or self.items is not None:
            return False
        return True if self.instance(numbers.Number) is True else UNKNOWN

    def item(self):
        """The kind of value[i] (one int) or of what iterating over the value gives."""
        if self.cls is numpy.ndarray and self.ndim > 1:
            return Kind(numpy.ndarray, dtype=self.dtype, ndim=self.ndim - 1)
        if self.cls is numpy.ndarray and self.ndim == 1:
            if self.dtype:
                return Kind(numpy.dtype(self.dtype).type)
            return Kind(within=(numpy.generic,))
        if self.items and all(k == self.items[0] for k in self.items):
            return self.items[0]
        return None


ARRAY = Kind(within=(numpy.ndarray,))
NUMBER = Kind(within=(numbers.Real,))
INTEGER = Kind(within=(numbers.Integral,))
CONTAINERS = {"dict": dict, "list": list, "tuple": tuple}


def describe(value):
    """A value's kind, as a hashable key part (type name, dtype, ndim), or None: for the
    arguments the API passes (pipeline kinds[4])."""
    cls = type(value)
    if cls is numpy.ndarray:
        return ("numpy.ndarray", value.dtype.name, value.ndim)
    if cls in (float, int, complex, bool) or isinstance(value, numpy.generic):
        return (f"{cls.__module__}.{cls.__qualname__}", "", 0)
    return None


def of_arguments(names, values):
    """The pipeline kinds' (name, describe key) pairs of a call's arguments (kinds[4])."""
    return frozenset((n, describe(v)) for n, v in zip(names, values) if describe(v) is not None)


def described(key):
    """The Kind a `describe` key stands for, or None."""
    cls = class_named(key[0])
    if cls is None:
        return None
    if cls is numpy.ndarray:
        return Kind(numpy.ndarray, dtype=key[1], ndim=key[2])
    return Kind(cls)


def class_named(qualified):
    """The class `module.qualname` names, or None."""
    module, _, qualname = (qualified or "").rpartition(".")
    holder = sys.modules.get(module)
    for part in qualname.split(".") if holder is not None and "<" not in qualname else ["<"]:
        holder = getattr(holder, part, None)
    return holder if isinstance(holder, type) else None


def of_parameters(params, kinds):
    """{parameter: Kind} from the pipeline's kinds: (scalars, ints, (array, ndim) pairs,
    (container parameter, spec) pairs, (name, describe key) pairs)."""
    known = {}
    for name in params:
        kind = _leaf_kind(name, kinds)
        if kind is not None:
            known[name] = kind
    for name, spec in (kinds[3] if len(kinds) > 3 else ()):
        if name in params:
            kind = of_spec(spec, kinds)
            if kind is not None:
                known[name] = kind
    return known


def _leaf_kind(name, kinds):
    types_ = dict(kinds[4]) if len(kinds) > 4 else {}
    if name in types_:
        return described(types_[name])
    ranks = dict(kinds[2]) if len(kinds) > 2 else {}
    if name in ranks:
        return Kind(numpy.ndarray, ndim=ranks[name])  # (generated code's arrays are ndarrays)
    if len(kinds) > 1 and name in kinds[1]:
        return INTEGER
    if kinds and name in kinds[0]:
        return NUMBER
    return None


def of_spec(spec, kinds):
    """The Kind of a container argument of this structure (a leaf's from `kinds`)."""
    if isinstance(spec, str):
        return _leaf_kind(spec, kinds)
    if isinstance(spec, tuple) and len(spec) == 2 and spec[0] == "static":
        return constant(spec[1])
    if not (isinstance(spec, tuple) and len(spec) == 5):
        return None
    kind, _, parts, fields, typename = spec
    cls = CONTAINERS.get(typename) if kind in CONTAINERS else class_named(typename)
    if kind in ("list", "tuple") and not fields:
        return Kind(cls, items=tuple(of_spec(p, kinds) or Kind() for p in parts), spec=spec)
    return Kind(cls, spec=spec) if cls is not None else None


def field(kind, name, kinds):
    """The Kind of `value.name` for a container argument's Kind, or None."""
    spec = kind.spec if kind is not None else None
    if not (isinstance(spec, tuple) and len(spec) == 5 and spec[0] == "record"):
        return None
    for key, part in zip(spec[1], spec[2]):
        if key == name:
            return of_spec(part, kinds)
    return None


def constant(value):
    return Kind(type(value), value=value)


def static_global(value):
    """Whether a global's value may be read when the function is transformed (tests on it
    decided): a class, a module, a function, or a literal."""
    if isinstance(value, tuple):
        return all(static_global(v) for v in value)
    return isinstance(value, (type, types.ModuleType, types.BuiltinFunctionType,
                              types.FunctionType, numpy.ufunc, str, bool, int, float)) or \
        value is None


def namespace(func):
    """The names the function's code may read as globals: builtins, its module's, its
    closure's."""
    found = dict(vars(builtins))
    found.update(getattr(func, "__globals__", {}))
    for name, cell in zip(func.__code__.co_freevars, func.__closure__ or ()):
        try:
            found[name] = cell.cell_contents
        except ValueError:
            pass
    return found


def subscript_kind(kind, index, index_kind):
    """The Kind of value[index] for a value of `kind`: one int, or a slice."""
    if kind is None:
        return None
    if isinstance(index, gast.Slice):
        if kind.cls is numpy.ndarray:
            return kind
        return Kind(kind.cls) if kind.cls in (list, tuple) else None
    if kind.items is not None and index_kind is not None and \
            isinstance(index_kind.value, int) and -len(kind.items) <= index_kind.value < \
            len(kind.items):
        return kind.items[index_kind.value]
    if index_kind is not None and index_kind.instance(numbers.Integral) is True and \
            index_kind.instance(bool) is False:
        return kind.item()
    return None


def arithmetic(left, right):
    """The Kind of `left op right` (+ - * / **) of a float64 array and a float or another
    float64 array, or of two floats; None where NumPy's rules would need more."""
    if left is None or right is None:
        return None
    float64 = (float, numpy.float64)
    sides = (left, right)
    if all(k.cls in float64 or k.cls is numpy.ndarray and k.dtype == "float64" and k.ndim >= 0
           for k in sides):
        ndim = max(k.ndim if k.cls is numpy.ndarray else -1 for k in sides)
        return Kind(numpy.ndarray, dtype="float64", ndim=ndim) if ndim >= 0 else \
            Kind(numpy.float64 if numpy.float64 in (left.cls, right.cls) else float)
    array = next((k for k in sides if k.cls is numpy.ndarray and k.dtype == "float64"), None)
    other = right if array is left else left
    if array is not None and other.cls in (int, float) and array.ndim >= 0:
        return Kind(numpy.ndarray, dtype="float64", ndim=array.ndim)
    return None


def dimensions(kind):
    """numpy.ndim of a value of this Kind (`x.ndim`), or UNKNOWN."""
    if kind.cls is numpy.ndarray:
        return kind.ndim if kind.ndim >= 0 else UNKNOWN
    return 0 if kind.scalar is True else UNKNOWN
