"""The types of Python values as a `by_type` dispatch sees them (dispatch.py), without Numba.

A dispatch is written against Numba's types; Numba calls it while compiling. Python calls the
same dispatch at run time with the types of the actual arguments. Importing Numba to type them
(numba.typeof) costs 0.3-1.2 s, most of a gradient's first call as Python, so Python types
them here instead, with the few things a dispatch asks (dispatch.py's predicates, `.ndim`,
`.dtype`, `.layout`, a tuple's length and elements):

    typeof(np.zeros((2, 3)))        --> Array(float64, 2, "C")
    typeof((1, 2))                  --> Tuple(int64, int64)   (uniform: Numba's UniTuple)
    typeof(3, literal=True)         --> Literal(3)            (an int64 whose value is known)

Each type answers as Numba's type of the same value would; tests/test_value_types.py checks the
two against each other on many values.
"""
import numpy


class Type:
    """A value's type; equal and hashed by `_key` (as Numba's types are)."""

    def _key(self):
        return ()

    def __eq__(self, other):
        return type(self) is type(other) and self._key() == other._key()

    def __hash__(self):
        return hash((type(self).__name__, self._key()))


class Scalar(Type):
    """A number or a bool: `kind` is "float", "int", "uint", "complex" or "bool"."""

    def __init__(self, kind, bits):
        self.kind, self.bits = kind, bits

    def _key(self):
        return (self.kind, self.bits)

    @property
    def name(self):
        return "bool" if self.kind == "bool" else f"{self.kind}{self.bits}"

    def __repr__(self):
        return self.name


class Literal(Scalar):
    """A constant int or bool whose value the dispatch may read (Numba's literal types)."""

    def __init__(self, value):
        super().__init__("bool" if isinstance(value, bool) else "int", 64)
        self.literal_value = value

    def _key(self):
        return (self.kind, self.literal_value)

    def __repr__(self):
        return f"Literal[{self.name}]({self.literal_value})"


class String(Type):
    """A str; `literal_value` when it is a constant."""

    def __init__(self, value=None, literal=False):
        self.literal_value, self.is_literal = value, literal

    def _key(self):
        return (self.literal_value, self.is_literal)

    def __repr__(self):
        return f"Literal[str]({self.literal_value!r})" if self.is_literal else "unicode_type"


class Array(Type):
    def __init__(self, dtype, ndim, layout, readonly=False, aligned=True):
        self.dtype, self.ndim, self.layout = dtype, ndim, layout
        self.readonly, self.aligned = readonly, aligned

    def _key(self):
        return (self.dtype, self.ndim, self.layout, self.readonly, self.aligned)

    def __repr__(self):
        prefix = "readonly " if self.readonly else ""
        return f"{prefix}array({self.dtype!r}, {self.ndim}d, {self.layout})"


class Tuple(Type):
    def __init__(self, types):
        self.types = tuple(types)

    @property
    def uniform(self):
        """All elements of one type (Numba's UniTuple), and at least one."""
        return len(self.types) > 0 and all(t == self.types[0] for t in self.types)

    @property
    def dtype(self):
        return self.types[0] if self.uniform else None

    def _key(self):
        return self.types

    def __len__(self):
        return len(self.types)

    def __getitem__(self, index):
        return self.types[index]

    def __iter__(self):
        return iter(self.types)

    def __repr__(self):
        return f"Tuple({', '.join(map(repr, self.types))})"


class List(Type):
    def __init__(self, dtype):
        self.dtype = dtype

    def _key(self):
        return (self.dtype,)

    def __repr__(self):
        return f"list({self.dtype!r})"


class NoneType(Type):
    def __repr__(self):
        return "none"


class Omitted(Type):
    """An argument left to its default `value`."""

    def __init__(self, value):
        self.value = value

    def _key(self):
        return (id(self.value),)

    def __repr__(self):
        return f"omitted(default={self.value!r})"


class PyObject(Type):
    """A value Numba has no type for (only Python runs it)."""

    def __repr__(self):
        return "pyobject"


class Other(Type):
    """A dtype that is no number (a string or object array's elements)."""

    def __init__(self, name):
        self.name = name

    def _key(self):
        return (self.name,)

    def __repr__(self):
        return self.name


float64 = Scalar("float", 64)
int64 = Scalar("int", 64)
boolean = Scalar("bool", 8)
pyobject = PyObject()
_KINDS = {"f": "float", "i": "int", "u": "uint", "c": "complex", "b": "bool"}


def of_dtype(dtype):
    kind = _KINDS.get(dtype.kind)
    if kind is None:
        return Other("pyobject" if dtype.kind == "O" else str(dtype))
    return Scalar(kind, 8 if kind == "bool" else dtype.itemsize * 8)


def typeof(value, literal=False):
    """The type of `value`, as numba.typeof (with literal=True: numba.types.literal for an
    int, a bool or a str) would give it."""
    if literal and isinstance(value, (bool, int)) and not isinstance(value, numpy.integer):
        return Literal(value)
    if isinstance(value, bool) or isinstance(value, numpy.bool_):
        return boolean
    if isinstance(value, int):
        return int64 if -2 ** 63 <= value < 2 ** 63 else Scalar("uint", 64)
    if isinstance(value, float):
        return float64
    if isinstance(value, complex):
        return Scalar("complex", 128)
    if isinstance(value, numpy.generic) and value.dtype.kind in _KINDS:
        return of_dtype(value.dtype)
    if isinstance(value, numpy.ndarray):
        flags = value.flags
        layout = "C" if flags.c_contiguous else "F" if flags.f_contiguous else "A"
        return Array(of_dtype(value.dtype), value.ndim, layout, not flags.writeable,
                     flags.aligned)
    if value is None:
        return NoneType()
    if isinstance(value, str):
        return String(value, True) if literal else String()
    if isinstance(value, tuple):
        return Tuple(typeof(v) for v in value)
    if isinstance(value, list) and value:
        return List(typeof(value[0]))
    return pyobject
