"""Checking gradients against central finite differences, with JIT on and off."""
import dataclasses

import numpy as np

import s2sad
from s2sad.tools.verify import finite_difference  # noqa: F401  (tests import it from here)

RTOL = 1e-6          # gradient vs finite differences, relative to max(1, |expected|)
SAME = 1e-12         # JIT on vs JIT off


def line_of(func, text):
    """The file line number of the first line of `func`'s source containing `text`."""
    lines, first = __import__("inspect").getsourcelines(func)
    return first + next(i for i, line in enumerate(lines) if text in line)


def _name(f):
    return getattr(f, "__name__", type(f).__name__)  # a partial has none


def assert_close(computed, expected, rtol=RTOL, what=""):
    computed, expected = np.asarray(computed, float), np.asarray(expected, float)
    assert computed.shape == expected.shape, f"{what}: shape {computed.shape} != {expected.shape}"
    error = np.abs(computed - expected) / np.maximum(1.0, np.abs(expected))
    assert np.all(error <= rtol), f"{what}: worst relative error {error.max():.2e}\n" \
                                  f"computed={computed}\nexpected={expected}"


def check_gradient(f, args, wrt, jit_fn=None, py_fn=None, jit=True):
    """The gradient of f at args matches finite differences, JIT on and off, and on == off
    (jit=False: JIT off only, and it returns the Python gradient)."""
    wrt = tuple(wrt) if isinstance(wrt, (tuple, list)) else (wrt,)
    py_fn = py_fn or s2sad.grad(f, wrt=wrt, jit=False)
    if not jit:
        with_jit = without = py_fn(*args)
    else:
        jit_fn = jit_fn or s2sad.grad(f, wrt=wrt, jit=True)
        with_jit, without = jit_fn(*args), py_fn(*args)
    names = list(__import__("inspect").signature(f).parameters)
    for k, w in enumerate(wrt):
        position = w if isinstance(w, int) else names.index(w)
        if is_tree(args[position]):
            check_tree_gradient(f, args, position, with_jit[k], without[k], names[position],
                                jit=jit)
            continue
        expected = finite_difference(f, args, position)
        assert_close(without[k], expected, what=f"{_name(f)} d/d{names[position]} (Python)")
        if jit:
            assert_close(with_jit[k], expected, what=f"{_name(f)} d/d{names[position]} (Numba)")
            assert_close(with_jit[k], without[k], rtol=SAME,
                         what=f"{_name(f)} d/d{names[position]} JIT vs Python")
        assert isinstance(with_jit[k], float) == (np.ndim(args[position]) == 0)
    return with_jit


# ---- container (pytree) arguments: written here independently of s2sad/api/pytrees.py --------

def is_tree(value):
    return isinstance(value, (dict, list, tuple)) or (
        dataclasses.is_dataclass(value) and not isinstance(value, type))


def tree_items(value):
    """(key, child) pairs of a container."""
    if isinstance(value, dict):
        return list(value.items())
    if isinstance(value, (list, tuple)):
        return list(enumerate(value))
    return [(f.name, getattr(value, f.name)) for f in dataclasses.fields(value)]


def tree_leaves(value, path=()):
    """(path, leaf) of every number or array, depth first (a str, None or bool is no leaf)."""
    if value is None or isinstance(value, (str, bytes, bool, np.bool_)):
        return []
    if not is_tree(value):
        return [(path, value)]
    return [pair for key, child in tree_items(value) for pair in tree_leaves(child, path + (key,))]


def tree_get(value, path):
    for key in path:
        value = getattr(value, key) if dataclasses.is_dataclass(value) else value[key]
    return value


def tree_with(value, path, leaf):
    """A copy of `value` with the leaf at `path` replaced (the original is untouched)."""
    if not path:
        return leaf
    key, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, key: tree_with(value[key], rest, leaf)}
    if isinstance(value, list):
        return [tree_with(v, rest, leaf) if k == key else v for k, v in enumerate(value)]
    if isinstance(value, tuple):
        items = [tree_with(v, rest, leaf) if k == key else v for k, v in enumerate(value)]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return dataclasses.replace(value, **{key: tree_with(getattr(value, key), rest, leaf)})


def same_structure(a, b):
    """Same container types, keys and nesting (leaves not compared)."""
    if not is_tree(a):
        return not is_tree(b)
    return type(a) is type(b) and [k for k, _ in tree_items(a)] == \
        [k for k, _ in tree_items(b)] and \
        all(same_structure(x, y) for (_, x), (_, y) in zip(tree_items(a), tree_items(b)))


def tree_equal(a, b):
    """Same structure and equal leaves (arrays element by element)."""
    return same_structure(a, b) and all(
        np.array_equal(x, y) for (_, x), (_, y) in zip(tree_leaves(a), tree_leaves(b)))


def check_tree_gradient(f, args, position, with_jit, without, name, jit=True):
    """The gradient of a container argument: the same structure and type, each leaf's entry
    matching finite differences, JIT on and off (jit=False: `with_jit` is `without`)."""
    tree = args[position]
    for got in (with_jit, without):
        assert same_structure(got, tree), f"{_name(f)} d/d{name}: {got!r} is not shaped " \
                                          f"like {tree!r}"
    for path, leaf in tree_leaves(tree):
        def at(v, path=path):
            return f(*args[:position], tree_with(tree, path, v), *args[position + 1:])
        expected = finite_difference(at, [leaf], 0)
        what = f"{_name(f)} d/d{name}{list(path)}"
        assert_close(tree_get(without, path), expected, what=what + " (Python)")
        if jit:
            assert_close(tree_get(with_jit, path), expected, what=what + " (Numba)")
            assert_close(tree_get(with_jit, path), tree_get(without, path), rtol=SAME,
                         what=what + " JIT vs Python")
        assert isinstance(tree_get(with_jit, path), float) == (np.ndim(leaf) == 0)
