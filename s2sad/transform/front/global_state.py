"""What a transformation read from globals and closures, to notice when rebinding one makes
the gradient stale: resolve.py inlines numbers and binds callees when it transforms, and
generated code is specialised on the kinds of the module constants it takes as inputs.

    SCALE = 2.0                    state = global_state(f)      # [(f, "SCALE", 2.0), ...]
    def f(x):           -->        SCALE = 3.0
        return SCALE * x           same_state(state, global_state(f))   # False: transform again
"""
import numbers
import types

import numpy

from . import container_cells, container_values
from .resolve import (code_names, is_constant_array, is_constant_container, is_function_value,
                      is_record_constant, is_user_function)
from .resolve_values import is_generator

_MISSING = object()


def global_state(func):
    """What `func` and the user functions it reaches read from globals and closures, as a list
    of (function, name, value) to compare with `same_state`: s2sad inlines numbers and binds
    callees when it transforms, so a change there means transforming again."""
    state, seen = [], set()
    _collect_state(func, state, seen)
    return state


def same_state(a, b):
    """Numbers compare by value, module constants (arrays) by kind: generated code takes
    them as inputs; everything else by identity."""
    return len(a) == len(b) and all(
        fa is fb and na == nb and (va == vb if isinstance(va, _Contents) else
                                   va is vb or _same_number(va, vb) or _same_kind(va, vb))
        for (fa, na, va), (fb, nb, vb) in zip(a, b))


def _same_number(a, b):
    return _is_plain_number(a) and _is_plain_number(b) and type(a) is type(b) and \
        repr(a) == repr(b)


def _same_kind(a, b):
    if is_generator(a) or is_generator(b):  # an input drawn from: another of its class is alike
        return type(a) is type(b)
    if is_constant_container(a) and is_constant_container(b):
        return constant_kind(a) == constant_kind(b)
    return is_constant_array(a) and is_constant_array(b) and \
        a.ndim == b.ndim and a.dtype == b.dtype


def constant_kind(value):
    """What generated code depends on in a module constant: an array's dtype and rank, a
    container's structure and its leaves' kinds, a number's type."""
    if is_constant_array(value):
        return ("array", value.dtype.str, value.ndim)
    if is_record_constant(value):
        return ("record", type(value), tuple(
            (k, ("cell", type(v).__name__) if container_cells.is_cell(value, k, v) else
             ("static", v) if type(v) is int else  # (an int field: constants.py)
             constant_kind(v)) for k, v in ((k, getattr(value, k))
                                            for k in container_values.record_fields(value))))
    if container_values.is_static_value(value) or is_function_value(value):
        return ("static", value)  # (a function: compared by identity)
    if isinstance(value, dict):
        return ("dict", tuple((k, constant_kind(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(constant_kind(v) for v in value))
    return ("number", type(value).__name__)


def functions_of(state):
    """The functions a state covers."""
    return list({id(f): f for f, _, _ in state}.values())


def _collect_state(func, state, seen):
    if id(func) in seen or not isinstance(func, types.FunctionType):
        return
    seen.add(id(func))
    code = func.__code__
    state.append((func, "__code__", code))
    names = code_names(code)
    cells = dict(zip(code.co_freevars, func.__closure__ or ()))
    modules = []
    for name in names:
        if name in cells:
            try:
                value = cells[name].cell_contents
            except ValueError:  # not assigned yet
                continue
        elif name in func.__globals__:
            value = func.__globals__[name]
        else:
            continue  # a builtin, a local or an attribute name
        state.append((func, name, value))
        if _specialises(value):  # (also what it holds now: changed in place, it is stale)
            state.append((func, name + CONTENTS, _Contents(constant_kind(value))))
        if isinstance(value, types.ModuleType):
            modules.append((name, value))
        elif is_user_function(value):
            _collect_state(value, state, seen)
    for module_name, module in modules:  # `config.SCALE`, `helpers.f`
        for name in names:
            value = module.__dict__.get(name, _MISSING)
            if _is_plain_number(value) or is_user_function(value) or \
                    is_constant_array(value) or is_constant_container(value):
                state.append((func, f"{module_name}.{name}", value))
                if _specialises(value):
                    state.append((func, f"{module_name}.{name}{CONTENTS}",
                                  _Contents(constant_kind(value))))
                _collect_state(value, state, seen)


CONTENTS = "[contents]"   # a state entry holding what a container holds now (_Contents)


class _Contents(tuple):
    """The constant_kind of a module container the generated code is specialised on (one
    holding functions, strings or objects): equal when what it holds is."""

    def __new__(cls, kind):
        return super().__new__(cls, (kind,))


def _specialises(value):
    """A module container whose contents the generated code is specialised on, beyond the
    kinds of its leaves: functions (calls bound), strings, None, bools (inlined), objects."""
    if is_record_constant(value):
        return True
    if not is_constant_container(value):
        return False
    items = value.values() if isinstance(value, dict) else value
    return any(is_function_value(v) or container_values.is_static_value(v) or
               _specialises(v) for v in items)


def _is_plain_number(value):
    return isinstance(value, (numbers.Number, numpy.generic)) or value is None


class Watch:
    """A quick test, run on every call, that nothing a `global_state` covers was rebound:
    identity checks only, no traversal. It also notices a global defined since under a name the
    code read as a builtin. A failed test means "compare the states properly" (`same_state`
    accepts an equal number), not necessarily "transform again"."""

    def __init__(self, state):
        self._checks = []   # (namespace or cell, key, value); key None: a cell's contents
        self._contents = []  # the same, for what a container held (_Contents)
        modules = {(id(f), n): v for f, n, v in state if isinstance(v, types.ModuleType)}
        for func, name, value in state:
            if name == "__code__":
                self._checks.append((func, "__code__", value))
                cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
                for missing in code_names(func.__code__):
                    if missing in cells:
                        if _contents(cells[missing]) is _MISSING:  # not assigned yet
                            self._checks.append((cells[missing], None, _MISSING))
                    elif missing not in func.__globals__:
                        self._checks.append((func.__globals__, missing, _MISSING))
                continue
            if isinstance(value, _Contents):  # compared by what it holds
                self._contents.append((func, name[:-len(CONTENTS)], modules, value))
                continue
            module_name, dot, attribute = name.partition(".")
            if dot:
                module = modules[(id(func), module_name)]
                self._checks.append((module.__dict__, attribute, value))
                continue
            cell = dict(zip(func.__code__.co_freevars, func.__closure__ or ())).get(name)
            self._checks.append((cell, None, value) if cell is not None else
                                (func.__globals__, name, value))
        self._contents = [(holder, key, value) for holder, key, value in
                          (self._holder(*entry) for entry in self._contents)]

    @staticmethod
    def _holder(func, name, modules, value):
        module_name, dot, attribute = name.partition(".")
        if dot:
            return modules[(id(func), module_name)].__dict__, attribute, value
        cell = dict(zip(func.__code__.co_freevars, func.__closure__ or ())).get(name)
        return (cell, None, value) if cell is not None else (func.__globals__, name, value)

    def unchanged(self):
        for holder, key, value in self._checks:
            if key is None:
                current = _contents(holder)
            elif key == "__code__":
                current = holder.__code__
            else:
                current = holder.get(key, _MISSING)
            if current is not value:
                return False
        for holder, key, value in self._contents:
            current = _contents(holder) if key is None else holder.get(key, _MISSING)
            if _Contents(constant_kind(current)) != value:
                return False
        return True


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:  # not assigned yet
        return _MISSING
